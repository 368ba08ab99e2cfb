// What `hedge keep` does to one target row in one cycle, as a pure rule over what the book shows at the server's time.
import type { TargetRow } from './target-file.js';
import { DAY_MS, TENORS, type Tenor } from './vocabulary.js';
import { utcMinute } from './utc-text.js';
import { formatUsd } from './number-format.js';

export const DEFAULT_ROLL_BEFORE_MS = 3_600_000;

/** A target row (as a target file gives it, or as exposures imply it), without its line in a file. */
export interface KeepRow extends Omit<TargetRow, 'line'> {
  toleranceUsd?: number;
  /** When the target last said this row (the target file's modification time): a side a colleague closed before that is the target's to restore; one closed after it is the colleague's call. */
  statedAtMs?: number;
}

export interface SideView {
  position?: { notionalUsd?: number; hedgeId?: string; maturityAtMs?: number };
  opening?: { hedgeId: string; status: string };
  /** The side is flat because its newest hedge was closed before its maturity by someone other than this keeper (a colleague's `hedge close`, the partner desk); when, if the server says, on this machine's clock (the server's closed_at through its clock's offset: the latest it can be). */
  closedOutside?: { hedgeId: string; closedAtLocalMs?: number };
  /** The views of the side disagree (domain/book.ts: a filled hedge not yet in the positions list, a closed one still in it, a hedge past its maturity not settled yet), or they do not show this keeper's own last write yet: nothing is decided on the side until they do. */
  settling?: { why: string };
}

/** What is done to the row, with the reason the row's status shows for it. */
export type KeepDecision = { reason: string } & (
  | { kind: 'hold'; nextActionAtMs?: number; nextAction?: 'roll' }
  | { kind: 'roll'; notionalUsd: number; hedgeId?: string; maturityAtMs: number; tenorDays?: Tenor }
  | { kind: 'reopen'; notionalUsd: number; tenorDays?: Tenor }
  /** change `open`: the side was closed outside the keeper; restored only with --converge (a re-open). */
  | {
      kind: 'drift';
      currentUsd: number;
      targetUsd: number;
      change: 'add' | 'reduce' | 'close' | 'open';
      amountUsd: number;
      alsoRollDue: boolean;
      tenorDays?: Tenor;
    }
  | { kind: 'skip' }
);

/** A side's key (`USDTNGN buy`): the keeper's memory, its alerts and the heartbeat's alerts name a side by it. */
export const rowKey = ({ market, side }: { market: string; side: string }) => `${market.toUpperCase()} ${side}`;

export function decideRow(
  row: KeepRow,
  { settling, opening, position, closedOutside: closed }: SideView,
  nowMs: number,
  rules: { toleranceUsd: number },
): KeepDecision {
  const { notionalUsd: targetUsd, untilMs, statedAtMs, rollBeforeMs = DEFAULT_ROLL_BEFORE_MS } = row;
  const ended = untilMs !== undefined && untilMs <= nowMs;
  if (settling) return { kind: 'hold', reason: `settling: ${settling.why}; waiting for every view to agree` };
  if (opening && !position)
    return { kind: 'hold', reason: `${opening.hedgeId} is ${opening.status}; waiting for it to resolve` };
  if (!position) {
    if (targetUsd === 0) return { kind: 'hold', reason: 'flat, as the target says' };
    if (ended)
      return { kind: 'skip', reason: `the exposure ended (until ${iso(untilMs!)}): the side is not re-opened` };
    const tenorDays = tenorFor(row, nowMs);
    if (
      closed &&
      !(statedAtMs !== undefined && closed.closedAtLocalMs !== undefined && statedAtMs > closed.closedAtLocalMs)
    )
      return {
        kind: 'drift',
        currentUsd: 0,
        targetUsd,
        change: 'open',
        amountUsd: targetUsd,
        alsoRollDue: false,
        ...(tenorDays && { tenorDays }),
        reason: 'flat: closed outside the keeper (drift)',
      };
    return { kind: 'reopen', notionalUsd: targetUsd, ...(tenorDays && { tenorDays }), reason: 'flat: re-open' };
  }
  const current = position.notionalUsd;
  const maturity = position.maturityAtMs;
  // A side is renewed only while the target holds something and the exposure outlasts this hedge.
  const untilBlocks = untilMs !== undefined && maturity !== undefined && untilMs <= maturity;
  const rollDue = maturity !== undefined && maturity - rollBeforeMs <= nowMs && targetUsd > 0 && !untilBlocks;
  if (current !== undefined && Math.abs(current - targetUsd) > (row.toleranceUsd ?? rules.toleranceUsd)) {
    const change = targetUsd === 0 ? 'close' : current < targetUsd ? 'add' : 'reduce';
    return {
      kind: 'drift',
      currentUsd: current,
      targetUsd,
      change,
      amountUsd: Math.abs(targetUsd - current),
      alsoRollDue: rollDue,
      reason: `drifted to ${formatUsd(current)} (target ${formatUsd(targetUsd)})`,
    };
  }
  if (maturity === undefined) return { kind: 'hold', reason: 'covered; the server shows no maturity to roll at' };
  if (untilBlocks && maturity - rollBeforeMs <= nowMs)
    return {
      kind: 'skip',
      reason: `the exposure ends (until ${iso(untilMs!)}) by this hedge's maturity (${iso(maturity)}): left to mature, not renewed`,
    };
  if (untilBlocks) return { kind: 'hold', reason: `covered until its maturity; not renewed (until ${iso(untilMs!)})` };
  if (!rollDue) return { kind: 'hold', reason: 'covered', nextAction: 'roll', nextActionAtMs: maturity - rollBeforeMs };
  const tenorDays = tenorFor(row, nowMs);
  return {
    kind: 'roll',
    notionalUsd: current ?? targetUsd,
    hedgeId: position.hedgeId,
    maturityAtMs: maturity,
    ...(tenorDays && { tenorDays }),
    reason: `roll due (matures ${iso(maturity)})`,
  };
}

/** The tenor a new hedge of the row gets: the row's own, or — when the exposure ends (until) sooner — the shortest supported tenor that still reaches until, so no days past it are paid for. */
export function tenorFor({ tenorDays, untilMs }: Pick<KeepRow, 'tenorDays' | 'untilMs'>, nowMs: number) {
  if (tenorDays === undefined || untilMs === undefined) return tenorDays;
  const daysLeft = Math.ceil((untilMs - nowMs) / DAY_MS);
  const enough = TENORS.find((tenor) => tenor >= daysLeft);
  return enough === undefined || enough > tenorDays ? tenorDays : enough;
}

function iso(ms: number) {
  return `${utcMinute(ms)} UTC`;
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
export type Actionable = Exclude<KeepDecision, { kind: 'hold' | 'skip' }>;
