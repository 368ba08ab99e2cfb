// What this journal knows of a hedge's size over its life.
import type { CommandContext } from '../../platform/runtime/context.js';
import { bodyOf, recordedUsd, type JournalEntry } from '../../platform/journal/index.js';
import { cents } from '../../core/money.js';
import { messageOf } from '../../core/security/safe-text.js';

/** A hedge's notional as this journal's writes moved it, oldest first. */
export interface HedgeSizes {
  /** What it was opened with, when this journal sent the open. */
  openedUsd?: number;
  /** This journal's adds and reduces of it that landed, oldest first. */
  changes: Array<{ action: 'add' | 'reduce'; usd: number }>;
  /** The largest notional it had, from its open through the changes (only when the open is known). */
  largestUsd?: number;
  /** What the changes leave it at, from its open (only when the open is known). */
  lastUsd?: number;
}

/** Outcomes of a write that landed (journal/entry.ts). */
const LANDED = new Set(['filled', 'done']);

/** Which write an entry sent, by its path: an open (a roll's or a plan's leg too), an add or a reduce. */
const WRITE_PATH = /\/hedges(?:\/(add|reduce))?\/*$/;

/** The hedges of `ids` that this journal's adds or reduces changed, with what it knows of their size; a hedge only opened from here (never resized) is not in the map. */
export function resizedHedges(entries: readonly JournalEntry[], ids: ReadonlySet<string>) {
  const found = new Map<string, HedgeSizes>();
  const oldestFirst = entries.toSorted((a, b) =>
    a.seq !== undefined && b.seq !== undefined
      ? a.seq - b.seq
      : Number(a.created_at > b.created_at) - Number(a.created_at < b.created_at),
  );
  for (const entry of oldestFirst) {
    // The hedge it acted on: the one the server's answer named, else the one its side held before the send.
    // (None is in no set of ids.)
    const id = [entry.hedge_id, entry.context?.hedge_id].find((id) => typeof id === 'string' && id) as string;
    const write = entry.request?.method === 'POST' && WRITE_PATH.exec(String(entry.request.path ?? ''));
    const usd = recordedUsd(bodyOf(entry));
    if (!ids.has(id) || !write || usd === undefined || !LANDED.has(entry.outcome)) continue;
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
      for (const { action, usd } of sizes.changes) {
        now += action === 'add' ? usd : -usd;
        sizes.largestUsd = Math.max(sizes.largestUsd, now);
      }
      sizes.lastUsd = cents(now);
    }
  }
  return found;
}

/** The journal read for `resizedHedges`. */
export async function readResizedHedges(ports: Pick<CommandContext, 'journal' | 'log'>, ids: ReadonlySet<string>) {
  if (ids.size === 0) return new Map();
  try {
    return resizedHedges(await (await ports.journal()).list(), ids);
  } catch (error) {
    ports.log(`history: the journal was not read for resized hedges (${messageOf(error)})`);
    return new Map();
  }
}
