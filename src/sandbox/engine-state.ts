// The engine's whole persistent state. It is plain JSON on purpose: the demo saves it to a file
// between CLI invocations and reloads it later, so nothing here may be a class, Map or Date.
// Times are sandbox-time milliseconds; money is kept to the cent once it is booked.

import type { Envelope } from './envelope.js';
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
  /** `market:side` → id of the hedge that is `submitted` or `filled` there (at most one). */
  activeHedgeIds: Record<string, string>;
  history: HistoryRecord[];
}

export type EventKind = 'fill' | 'change' | 'maturity';

export interface ScheduledEvent {
  dueMs: number;
  sequence: number;
  kind: EventKind;
  accountId: string;
  hedgeId: string;
}

export interface IdempotencyRecord {
  fingerprint: string;
  createdAtMs: number;
  status: number;
  headers: Record<string, string>;
  body: Envelope;
}

export interface EngineState {
  version: 1;
  seed: string;
  prngState: number;
  sequence: number;
  /** Latest sandbox time the engine has seen; time never runs backwards for the state. */
  nowMs: number;
  accounts: Record<string, AccountState>;
  /** Notional reserved by the sandbox's own accounts per market (background OI is added on top). */
  openInterestUsd: Record<string, SideAmounts>;
  /** Future fills, landings and maturities, sorted by (dueMs, sequence). */
  events: ScheduledEvent[];
  /** Keyed by `environment:account:Idempotency-Key` (spec section 5.4 and 7). */
  idempotency: Record<string, IdempotencyRecord>;
}

export function activeHedgeKey(market: string, side: Side): string {
  return `${market}:${side}`;
}
