// What the journal saw a hedge hold over its life (its sends of add and reduce), and the note `hedge history` adds
// for a closed hedge whose notional changed while open: its P&L is the whole life's, the notional beside it may be
// only what it closed with.
import { formatUsd as usd } from '../../core/number-format.js';
import { NOTIONAL_MARK } from '../../platform/fields/resource-fields.js';
import type { CommandContext } from '../../platform/runtime/context.js';
import { bodyOf, hasLanded, recordedUsd, type JournalEntry } from '../../platform/journal/index.js';
import { messageOf, safeText } from '../../core/security/safe-text.js';

const RESIZED_MARK = '*';

/** Marks the notional of each row whose hedge was resized (`resized` by row); when any is, the other rows and the totals get a space instead, so that the column's figures stay aligned. */
export function markResized(
  rows: ReadonlyArray<Record<PropertyKey, unknown>>,
  resized: ReadonlyArray<boolean>,
  totals?: Record<PropertyKey, unknown>,
) {
  if (!resized.some(Boolean)) return;
  rows.forEach((row, index) => {
    row[NOTIONAL_MARK] = resized[index] ? RESIZED_MARK : ' ';
  });
  if (totals) totals[NOTIONAL_MARK] = ' ';
}

/** The note under the table, one sentence per resized hedge: `* DEAL-7 hdg_…: opened with 5,000.00 USD, reduced by 3,000.00 USD (this journal); its P&L is its whole life's, on up to 5,000.00 USD, not on the 2,000.00 USD shown.` */
export function resizedNote(
  hedges: ReadonlyArray<{ hedgeId: string; reference?: string; shownUsd?: number; sizes: HedgeSizes }>,
) {
  if (!hedges.length) return;
  const sentences = hedges.map(({ hedgeId, reference, shownUsd, sizes }) => {
    const name = [reference ?? '', hedgeId].filter(Boolean).map(safeText).join(' ');
    const moves = sizes.changes.map(
      (change) => `${change.action === 'add' ? 'added' : 'reduced by'} ${usd(change.usd)}`,
    );
    const life = sizes.openedUsd === undefined ? moves : [`opened with ${usd(sizes.openedUsd)}`, ...moves];
    // The largest is known only from the open: without it, only that the P&L is on every notional it held.
    const onWhat =
      sizes.largestUsd !== undefined
        ? `on up to ${usd(sizes.largestUsd)}${shownUsd === undefined || shownUsd === sizes.largestUsd ? '' : `, not on the ${usd(shownUsd)} shown`}`
        : `on every notional it held${shownUsd === undefined ? '' : `, not only the ${usd(shownUsd)} shown`}`;
    return `${RESIZED_MARK} ${name}: ${life.join(', ')} (this journal); its P&L is its whole life's, ${onWhat}.`;
  });
  return sentences.join(' ');
}

/** A hedge's notional as this journal's writes moved it, oldest first: what it was opened with (when this journal sent
 * the open), its adds and reduces that landed, and the largest notional it had (only when the open is known). */
type HedgeSizes = {
  openedUsd?: number;
  changes: Array<{ action: 'add' | 'reduce'; usd: number }>;
  largestUsd?: number;
};

/** Which write an entry sent, by its path: an open (a roll's or a plan's leg too), an add or a reduce. */
const WRITE_PATH = /\/hedges(?:\/(add|reduce))?\/*$/;

/** The hedges of `ids` that this journal's adds or reduces changed, with what it knows of their size; a hedge only opened from here (never resized) is not in the map. `entries` as the journal lists them: newest first. */
export function resizedHedges(entries: readonly JournalEntry[], ids: ReadonlySet<string>) {
  const found = new Map<string, HedgeSizes>();
  for (const entry of entries.toReversed()) {
    // The hedge it acted on: the one the server's answer named, else the one its side held before the send.
    // (None is in no set of ids.)
    const id = [entry.hedge_id, entry.context?.hedge_id].find((id) => typeof id === 'string' && id) as string;
    const write = entry.request?.method === 'POST' && WRITE_PATH.exec(String(entry.request.path ?? ''));
    const usd = recordedUsd(bodyOf(entry));
    if (!ids.has(id) || !write || usd === undefined || !hasLanded(entry)) continue;
    const sizes = found.get(id) ?? { changes: [] };
    if (write[1]) sizes.changes.push({ action: write[1] as 'add' | 'reduce', usd });
    else sizes.openedUsd = usd;
    found.set(id, sizes);
  }
  for (const [id, sizes] of found) {
    if (!sizes.changes.length) found.delete(id);
    else if (sizes.openedUsd !== undefined) {
      let now = sizes.openedUsd;
      sizes.largestUsd = now;
      for (const change of sizes.changes) {
        now += change.action === 'add' ? change.usd : -change.usd;
        sizes.largestUsd = Math.max(sizes.largestUsd, now);
      }
    }
  }
  return found;
}

/** The journal read for `resizedHedges`. */
export async function readResizedHedges(ports: Pick<CommandContext, 'journal' | 'log'>, ids: ReadonlySet<string>) {
  if (ids.size === 0) return new Map();
  try {
    // The whole journal read a part at a time, keeping only the entries of these hedges (newest first, as listed).
    const named: JournalEntry[] = [];
    for await (const entry of (await ports.journal()).each())
      if ([entry.hedge_id, entry.context?.hedge_id].some((id) => typeof id === 'string' && ids.has(id)))
        named.push(entry);
    return resizedHedges(named, ids);
  } catch (error) {
    ports.log(`history: the journal was not read for resized hedges (${messageOf(error)})`);
    return new Map();
  }
}
