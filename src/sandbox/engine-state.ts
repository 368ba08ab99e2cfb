import type { SandboxDialect } from './dialect-names.js';
import type { Side, SideAmounts } from './market-model.js';

/** The spec's five statuses of a hedge. */
export const HEDGE_STATUSES = ['submitting', 'submitted', 'filled', 'failed', 'closed'] as const;
type HedgeStatus = (typeof HEDGE_STATUSES)[number];
export type ChangeAction = 'add' | 'reduce' | 'close';
export type CloseReason = 'closed' | 'settled';

/** An add, reduce or close that was accepted and lands after the fill delay. */
export interface PendingChange {
  action: ChangeAction;
  notionalUsd: number;
  orderTxHash: string;
  submittedAtMs: number;
  dueMs: number;
  reservedMarginUsdc: number;
  reservedFeeUsdc: number;
  dailyCarryRatePct: number;
}

export interface HedgeState {
  id: string;
  clientReference?: string;
  market: string;
  side: Side;
  notionalUsd: number;
  tenorDays: number;
  status: HedgeStatus;
  orderTxHash: string;
  orderKey: string;
  fillTxHash?: string;
  struckRate?: number;
  openedAtMs: number;
  filledAtMs?: number;
  maturityAtMs: number;
  closedAtMs?: number;
  closeReason?: CloseReason;
  /** Decided at open from the seeded PRNG, so a replayed state fails the same orders. */
  willFail: boolean;
  entryPrice?: number;
  marginUsdc: number;
  /** Daily carry rate fixed at open (blended on add), accrued pro rata since `carryAccruedToMs`. */
  dailyCarryRatePct: number;
  accruedCarryUsdc: number;
  carryAccruedToMs: number;
  /** Economics already realized by reduces and fees, so the history record covers the lifecycle. */
  realizedGrossUsd: number;
  realizedCarryUsdc: number;
  feesPaidUsdc: number;
  pendingChange?: PendingChange;
}

export interface HistoryRecord {
  hedge_id: string;
  market: string;
  side: Side;
  notional_usd: number;
  tenor_days: number;
  client_reference?: string;
  opened_at: string;
  closed_at: string;
  close_reason: CloseReason;
  entry_price: number;
  exit_price: number;
  gross_pnl_usd: number;
  carry_usdc: number;
  fees_usdc: number;
  net_pnl_usd: number;
}

export interface AccountState {
  id: string;
  balanceUsdc: number;
  hedges: Record<string, HedgeState>;
  /** `market:side` → id of the newest hedge that is `submitted` or `filled` there (what add acts on). */
  activeHedgeIds: Record<string, string>;
  activeHedgeStacks: Record<string, string[]>;
  /** Oldest first by (closed_at, hedge_id), so the newest page is read from the end. */
  history: HistoryRecord[];
  trailing?: TrailingViews;
}

/** The hedge fields a positions line is computed from (views.ts); the rest of a hedge never shows there. */
export const POSITION_BASIS = [
  'id',
  'market',
  'side',
  'notionalUsd',
  'entryPrice',
  'marginUsdc',
  'dailyCarryRatePct',
  'accruedCarryUsdc',
  'carryAccruedToMs',
  'openedAtMs',
  'maturityAtMs',
] as const;
export type PositionBasis = Pick<HedgeState, (typeof POSITION_BASIS)[number]>;

interface AccountFigures {
  balanceUsdc: number;
  marginInUseUsdc: number;
  openExposureUsd: number;
}

export interface ViewChange {
  atMs: number;
  figures: AccountFigures;
  hedgeId?: string;
  position?: PositionBasis | null;
}

export interface TrailingViews {
  figures: AccountFigures;
  positions: Record<string, PositionBasis>;
  pending: ViewChange[];
}

export type EventKind = 'fill' | 'change' | 'maturity';

interface ScheduledEvent {
  dueMs: number;
  sequence: number;
  kind: EventKind;
  accountId: string;
  hedgeId: string;
}

interface IdempotencyRecord {
  fingerprintDigest: string;
  createdAtMs: number;
  /** The write's result as JSON (its data and meta are read; a saved record's other fields are not). */
  bodyJson: string;
}

export interface EngineState {
  version: 1;
  seed: string;
  prngState: number;
  idState: number;
  sequence: number;
  /** Wire dialect the sandbox speaks; a state keeps it, as hedges opened under one may not suit another. */
  dialect: SandboxDialect;
  nowMs: number;
  accounts: Record<string, AccountState>;
  openInterestUsd: Record<string, SideAmounts>;
  events: ScheduledEvent[];
  idempotency: Record<string, IdempotencyRecord>;
}

export function activeHedgeKey(market: string, side: Side) {
  return `${market}:${side}`;
}

/** Code-unit order of two strings, as a sort's comparator answers. */
export const compareText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export const compareHistoryRecords = (a: HistoryRecord, b: HistoryRecord) =>
  compareText(a.closed_at, b.closed_at) || compareText(a.hedge_id, b.hedge_id);

/** The order events are applied in (it decides the random draws): due time, then sequence. */
export const compareEvents = (a: ScheduledEvent, b: ScheduledEvent) => a.dueMs - b.dueMs || a.sequence - b.sequence;

/** The first index of [0, length) where `before` turns false (binary search: it holds on a prefix, then never). */
export function partitionPoint(length: number, before: (index: number) => boolean) {
  let low = 0;
  let high = length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (before(middle)) low = middle + 1;
    else high = middle;
  }
  return low;
}
