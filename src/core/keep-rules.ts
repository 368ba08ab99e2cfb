// What `hedge keep` keeps (its rows, what it decides of each, the events and status it says), and the tenor a new
// hedge of a row gets. The decision itself reads the side model: features/keeper/keeper-decide.ts.
import { cents } from './money.js';
import type { TargetRow } from './target-file.js';
import { DAY_MS, TENORS } from './vocabulary.js';

export const DEFAULT_ROLL_BEFORE_MS = 3_600_000;

/** A target row (as a target file gives it, or as exposures imply it), without its line in a file. */
export interface KeepRow extends Omit<TargetRow, 'line'> {
  toleranceUsd?: number;
  /** When the target last said this row (the target file's modification time): a side a colleague closed before that is the target's to restore; one closed after it is the colleague's call. */
  statedAtMs?: number;
}

/** What is done to the row, with the reason the row's status shows for it. */
export type KeepDecision = { reason: string } & (
  | { kind: 'hold'; nextActionAtMs?: number; nextAction?: 'roll' }
  | { kind: 'roll' | 'reopen'; notionalUsd: number }
  /** change `open`: the side was closed outside the keeper; restored only with --converge (a re-open). */
  | {
      kind: 'drift';
      currentUsd: number;
      targetUsd: number;
      change: 'add' | 'reduce' | 'close' | 'open';
      amountUsd: number;
      alsoRollDue: boolean;
    }
  | { kind: 'skip' }
);

/** A side's key (`USDTNGN buy`): the keeper's memory, its alerts and the heartbeat's alerts name a side by it. */
export const rowKey = ({ market, side }: { market: string; side: string }) => `${market.toUpperCase()} ${side}`;

/** The one on-target rule, the keeper's, its alerts' and the plan's: a side holding `heldUsd` (null: flat) is at its
 * target when their difference, in whole cents (under half a cent is none), is within the tolerance; a flat side only
 * under a target of 0. */
export const onTarget = (heldUsd: number | null, targetUsd: number, toleranceUsd: number) =>
  heldUsd === null ? targetUsd === 0 : cents(Math.abs(heldUsd - targetUsd)) <= toleranceUsd;

/** The tenor a new hedge of the row gets: the row's own, or — when the exposure ends (until) sooner — the shortest supported tenor that still reaches until, so no days past it are paid for. */
export function tenorFor({ tenorDays, untilMs }: Pick<KeepRow, 'tenorDays' | 'untilMs'>, nowMs: number) {
  if (tenorDays === undefined || untilMs === undefined) return tenorDays;
  const daysLeft = Math.ceil((untilMs - nowMs) / DAY_MS);
  const enough = TENORS.find((tenor) => tenor >= daysLeft);
  return enough === undefined || enough > tenorDays ? tenorDays : enough;
}

export interface KeepEvent {
  event: 'start' | 'cycle' | 'roll' | 'reopen' | 'drift' | 'converge' | 'skip' | 'notice' | 'error' | 'stop' | 'alert';
  at: string;
  server_time?: string;
  market?: string;
  side?: string;
  notional_usd?: number;
  hedge_ids?: string[];
  journal_id?: string;
  [field: string]: unknown;
}

export interface KeepRowStatus {
  market: string;
  side: string;
  client_reference?: string;
  target_usd: number;
  current_usd: number | null;
  /** Set when what the side holds cannot be told this cycle (its views disagree while a change lands, or the book could not be read): `current_usd` is then null without the side being flat. */
  current_unknown?: true;
  /** The hedges on the side that are not the row's (another reference, or none): the side is left alone, never drift. */
  not_this_rows?: string[];
  state: string;
  next_action: string | null;
  next_action_at: string | null;
}

export interface KeepStatus {
  file: string;
  rows: KeepRowStatus[];
  last_cycle_at?: string;
  next_cycle_at?: string;
  stopping: boolean;
  dry_run?: boolean;
}

export interface KeepReporter {
  event(event: KeepEvent): void;
  status(status: KeepStatus): void;
  close(): void;
}

export type EventFields = Omit<KeepEvent, 'at'>;
/** What an event says besides its kind: a step's fields, an error's. */
export type EventDetail = Omit<EventFields, 'event'>;
export type Emit = (fields: EventFields) => void;
export type Actionable = Exclude<KeepDecision, { kind: 'hold' | 'skip' }>;
