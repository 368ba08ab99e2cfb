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

/** Which write an entry is, by what it sent: an open (a roll's or a plan's leg too), an add or a reduce. */
function writeOf(entry: JournalEntry) {
  if (entry.request?.method !== 'POST') return;
  const path = String(entry.request.path ?? '').replace(/\/+$/, '');
  if (path.endsWith('/hedges/add')) return 'add';
  if (path.endsWith('/hedges/reduce')) return 'reduce';
  if (path.endsWith('/hedges')) return 'open';
  return;
}

/** The hedge a write acted on: the one the server's answer named, else the one its side held before the send. */
function hedgeIdOf(entry: JournalEntry) {
  if (typeof entry.hedge_id === 'string' && entry.hedge_id !== '') return entry.hedge_id;
  const fromContext = entry.context?.hedge_id;
  return typeof fromContext === 'string' && fromContext !== '' ? fromContext : undefined;
}

/** The hedges of `ids` that this journal's adds or reduces changed, with what it knows of their size; a hedge only opened from here (never resized) is not in the map. */
export function resizedHedges(entries: readonly JournalEntry[], ids: ReadonlySet<string>) {
  const found = new Map<string, HedgeSizes>();
  const oldestFirst = [...entries].sort((a, b) =>
    a.seq !== undefined && b.seq !== undefined
      ? a.seq - b.seq
      : a.created_at < b.created_at
        ? -1
        : a.created_at > b.created_at
          ? 1
          : 0,
  );
  for (const entry of oldestFirst) {
    const id = hedgeIdOf(entry);
    const write = writeOf(entry);
    const usd = recordedUsd(bodyOf(entry));
    if (id === undefined || !ids.has(id) || write === undefined || usd === undefined || !LANDED.has(entry.outcome))
      continue;
    const sizes = found.get(id) ?? { changes: [] };
    if (write === 'open') sizes.openedUsd = usd;
    else sizes.changes.push({ action: write, usd });
    found.set(id, sizes);
  }
  for (const [id, sizes] of found) {
    if (!sizes.changes.length) {
      found.delete(id);
      continue;
    }
    if (sizes.openedUsd === undefined) continue;
    let now = sizes.openedUsd;
    let largest = now;
    for (const change of sizes.changes) {
      now += change.action === 'add' ? change.usd : -change.usd;
      largest = Math.max(largest, now);
    }
    sizes.largestUsd = largest;
    sizes.lastUsd = cents(now);
  }
  return found;
}

/** The journal read for `resizedHedges`. */
export async function readResizedHedges(ports: Pick<CommandContext, 'journal' | 'log'>, ids: ReadonlySet<string>) {
  if (ids.size === 0) return new Map();
  try {
    const journal = await ports.journal();
    return resizedHedges(await journal.list(), ids);
  } catch (error) {
    ports.log(`history: the journal was not read for resized hedges (${messageOf(error)})`);
    return new Map();
  }
}
