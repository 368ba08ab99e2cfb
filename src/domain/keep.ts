// What `hedge keep` does to one target row in one cycle, as a pure rule over what the book shows
// at the server's time. The flow (flows/keep.ts) reads the book, asks this for each row, carries
// out rolls and re-opens through the one write flow, and reports every decision as an event.
//
//   covered, maturing later than roll_before  → hold (next action: the roll, at maturity − roll_before)
//   covered, maturing within roll_before      → roll (close, open the same notional for the row's tenor)
//                                                unless the exposure ends by that maturity (until) → skip
//   being opened (submitted/submitting)       → hold: never open a side twice
//   flat (settled, closed, never opened)      → reopen the target notional, unless past until → skip
//   covered with another notional             → drift (reported; brought back only with --converge)
//   a target of 0                             → never rolled or re-opened; a position left there is drift
import type { Side, Tenor } from './vocabulary.js';

/** The keeper's roll_before when a row does not give one. */
export const DEFAULT_ROLL_BEFORE_MS = 3_600_000;

export interface KeepRow {
  market: string;
  side: Side;
  notionalUsd: number;
  tenorDays?: Tenor;
  clientReference?: string;
  untilMs?: number;
  rollBeforeMs?: number;
  /** This row's own tolerance (`keep --exposures`: the policy's band, a share of the target); the keeper's when absent. */
  toleranceUsd?: number;
}

/** What the book shows on the row's market and side. */
export interface SideView {
  /** The open position, when the side is covered. */
  position?: { notionalUsd?: number; hedgeId?: string; maturityAtMs?: number };
  /** A hedge of this side still being opened (submitted or submitting). */
  opening?: { hedgeId: string; status: string };
}

export type KeepDecision =
  | { kind: 'hold'; reason: string; nextActionAtMs?: number; nextAction?: 'roll' }
  | { kind: 'roll'; notionalUsd: number; hedgeId?: string; maturityAtMs: number }
  | { kind: 'reopen'; notionalUsd: number }
  | { kind: 'drift'; currentUsd: number; targetUsd: number; change: 'add' | 'reduce' | 'close'; amountUsd: number; alsoRollDue: boolean }
  | { kind: 'skip'; reason: string };

export interface KeepRules {
  /** Differences up to this many USD count as at target. */
  toleranceUsd: number;
}

export function rowKey(row: Pick<KeepRow, 'market' | 'side'>): string {
  return `${row.market} ${row.side}`;
}

export function decideRow(row: KeepRow, view: SideView, nowMs: number, rules: KeepRules): KeepDecision {
  const rollBeforeMs = row.rollBeforeMs ?? DEFAULT_ROLL_BEFORE_MS;
  const ended = row.untilMs !== undefined && row.untilMs <= nowMs;
  if (view.opening && !view.position) {
    return { kind: 'hold', reason: `${view.opening.hedgeId} is ${view.opening.status}; waiting for it to resolve` };
  }
  const position = view.position;
  if (!position) {
    if (row.notionalUsd === 0) return { kind: 'hold', reason: 'flat, as the target says' };
    if (ended) return { kind: 'skip', reason: `the exposure ended (until ${iso(row.untilMs!)}): the side is not re-opened` };
    return { kind: 'reopen', notionalUsd: row.notionalUsd };
  }
  const current = position.notionalUsd;
  const maturity = position.maturityAtMs;
  // A side is renewed only while the target holds something and the exposure outlasts this hedge.
  const untilBlocks = row.untilMs !== undefined && maturity !== undefined && row.untilMs <= maturity;
  const rollDue = maturity !== undefined && maturity - rollBeforeMs <= nowMs && row.notionalUsd > 0 && !untilBlocks;
  if (current !== undefined && Math.abs(current - row.notionalUsd) > (row.toleranceUsd ?? rules.toleranceUsd)) {
    const change = row.notionalUsd === 0 ? 'close' : current < row.notionalUsd ? 'add' : 'reduce';
    return { kind: 'drift', currentUsd: current, targetUsd: row.notionalUsd, change, amountUsd: Math.abs(row.notionalUsd - current), alsoRollDue: rollDue };
  }
  if (maturity === undefined) return { kind: 'hold', reason: 'covered; the server shows no maturity to roll at' };
  if (untilBlocks && maturity - rollBeforeMs <= nowMs) {
    return { kind: 'skip', reason: `the exposure ends (until ${iso(row.untilMs!)}) by this hedge's maturity (${iso(maturity)}): left to mature, not renewed` };
  }
  if (untilBlocks) return { kind: 'hold', reason: `covered until its maturity; not renewed (until ${iso(row.untilMs!)})` };
  if (!rollDue) return { kind: 'hold', reason: 'covered', nextAction: 'roll', nextActionAtMs: maturity - rollBeforeMs };
  return { kind: 'roll', notionalUsd: current ?? row.notionalUsd, hedgeId: position.hedgeId, maturityAtMs: maturity };
}

/** How long a row that failed `failures` times in a row waits before the next try: doubling, capped. */
export function backoffMs(failures: number, intervalMs: number, capMs = 3_600_000): number {
  if (failures <= 0) return 0;
  return Math.min(capMs, intervalMs * 2 ** (failures - 1));
}

function iso(ms: number): string {
  return new Date(ms).toISOString().slice(0, 16).replace('T', ' ') + ' UTC';
}
