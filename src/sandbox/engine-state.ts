// The engine's whole persistent state. It is plain JSON on purpose: the demo saves it to a file
// between CLI invocations and reloads it later, so nothing here may be a class, Map or Date.
// Times are sandbox-time milliseconds; money is kept to the cent once it is booked.

import type { SandboxDialect } from './dialect-names.js';
import type { Side, SideAmounts } from './market-model.js';

export type HedgeStatus = 'submitting' | 'submitted' | 'filled' | 'failed' | 'closed';
export type ChangeAction = 'add' | 'reduce' | 'close';
export type CloseReason = 'closed' | 'settled';

/** An add, reduce or close that was accepted and lands after the fill delay. */
export interface PendingChange {
  action: ChangeAction;
  notionalUsd: number;
  orderTxHash: string;
  submittedAtMs: number;
  dueMs: number;
  /** Add only: margin and fee already taken from the balance, refunded if the add never lands. */
  reservedMarginUsdc: number;
  reservedFeeUsdc: number;
  /** Add only: carry rate of the added notional, fixed when the add was accepted. */
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
  units: number;
  openedAtMs: number;
  filledAtMs?: number;
  maturityAtMs: number;
  closedAtMs?: number;
  /** Why it closed: an early close (or full reduce) or settlement at maturity. */
  closeReason?: CloseReason;
  /** Decided at open from the seeded PRNG, so a replayed state fails the same orders. */
  willFail: boolean;
  /** Notional-weighted entry across the open and every add. */
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
  /**
   * `market:side` → every hedge that is `submitted` or `filled` there, oldest first: one, except
   * in a dialect that allows several hedges per side. Its last id is the one in activeHedgeIds.
   */
  activeHedgeStacks: Record<string, string[]>;
  /** Oldest first by (closed_at, hedge_id), so the newest page is read from the end. */
  history: HistoryRecord[];
  /**
   * Only while the views trail the records (viewLagMs): what the positions list and the account
   * show, and the changes they do not show yet. Absent in states saved without a lag (built when
   * first needed, from the records: the views then start in step with them).
   */
  trailing?: TrailingViews;
}

/** The hedge fields a positions line is computed from (views.ts); the rest of a hedge never shows there. */
export type PositionBasis = Pick<
  HedgeState,
  | 'id'
  | 'market'
  | 'side'
  | 'notionalUsd'
  | 'units'
  | 'entryPrice'
  | 'marginUsdc'
  | 'dailyCarryRatePct'
  | 'accruedCarryUsdc'
  | 'carryAccruedToMs'
  | 'openedAtMs'
  | 'maturityAtMs'
>;

/** The account summary's figures that come from the records (the rest comes from the positions). */
export interface AccountFigures {
  balanceUsdc: number;
  marginInUseUsdc: number;
  openExposureUsd: number;
}

/** One change of an account as the trailing views will show it, at `atMs` plus the lag. */
export interface ViewChange {
  atMs: number;
  /** The account's figures after the change. */
  figures: AccountFigures;
  /** The hedge whose line changed, if one did, and its line from then on (null: it left the list). */
  hedgeId?: string;
  position?: PositionBasis | null;
}

/**
 * The positions list and the account as a server whose views trail its records shows them, and
 * the changes made since, oldest first (about a lag's worth: older ones are folded into what is
 * shown as soon as anything reads or changes the account).
 */
export interface TrailingViews {
  figures: AccountFigures;
  /** Hedge id → its line's basis, for every hedge filled as of asOfMs. */
  positions: Record<string, PositionBasis>;
  pending: ViewChange[];
}

export type EventKind = 'fill' | 'change' | 'maturity';

export interface ScheduledEvent {
  dueMs: number;
  sequence: number;
  kind: EventKind;
  accountId: string;
  hedgeId: string;
}

/**
 * What a replay answers with. Kept compact (one record per write for a day, so a busy sandbox
 * holds tens of thousands): the request's fingerprint as a SHA-256 digest and the answer as its
 * JSON text, instead of the request text and a copy of the answer's every object and string.
 */
export interface IdempotencyRecord {
  /** SHA-256 (base64url) of the canonical request: method, path and JSON body. */
  fingerprintDigest: string;
  createdAtMs: number;
  status: number;
  headers: Record<string, string>;
  /** The answer's envelope as JSON text. */
  bodyJson: string;
}

export interface EngineState {
  version: 1;
  seed: string;
  prngState: number;
  /**
   * The generator of the random part of hedge ids: seeded from --seed, else at random for a fresh
   * state, so ids differ across restarts and resets.
   */
  idState: number;
  sequence: number;
  /** Wire dialect the sandbox speaks; a state keeps it, as hedges opened under one may not suit another. */
  dialect: SandboxDialect;
  /** Latest sandbox time the engine has seen; time never runs backwards for the state. */
  nowMs: number;
  accounts: Record<string, AccountState>;
  /** Notional reserved by the sandbox's own accounts per market (background OI is added on top). */
  openInterestUsd: Record<string, SideAmounts>;
  /** Future fills, landings and maturities, in compareEvents order. */
  events: ScheduledEvent[];
  /** Keyed by `environment:account:Idempotency-Key` (spec section 5.4 and 7). */
  idempotency: Record<string, IdempotencyRecord>;
}

export function activeHedgeKey(market: string, side: Side): string {
  return `${market}:${side}`;
}

export function compareHistoryRecords(a: HistoryRecord, b: HistoryRecord): number {
  if (a.closed_at !== b.closed_at) return a.closed_at < b.closed_at ? -1 : 1;
  return a.hedge_id < b.hedge_id ? -1 : a.hedge_id > b.hedge_id ? 1 : 0;
}

/** The order events are applied in (it decides the random draws): due time, then sequence. */
export const compareEvents = (a: ScheduledEvent, b: ScheduledEvent): number =>
  a.dueMs - b.dueMs || a.sequence - b.sequence;

/** The first index of [0, length) where `before` turns false (binary search: it holds on a prefix, then never). */
export function partitionPoint(length: number, before: (index: number) => boolean): number {
  let low = 0;
  let high = length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (before(middle)) low = middle + 1;
    else high = middle;
  }
  return low;
}
