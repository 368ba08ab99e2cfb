// The sandbox engine's state and options: one JSON document the book (book.ts) acts on, saved whole (the HTTP layer,
// http/, answers requests with them).

import type { SandboxDialect } from './dialect-names.js';
import { type MarketDefinition, roundMoney, type Side, type SideAmounts } from './market-model.js';
import { hashString } from './prng.js';

/** The spec's five statuses of a hedge. */
export const HEDGE_STATUSES = ['submitting', 'submitted', 'filled', 'failed', 'closed'] as const;
type HedgeStatus = (typeof HEDGE_STATUSES)[number];
export type ChangeAction = 'add' | 'reduce' | 'close';
export type CloseReason = 'closed' | 'settled';

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
  /** An add, reduce or close that was accepted and lands after the fill delay. */
  pendingChange?: {
    action: ChangeAction;
    notionalUsd: number;
    orderTxHash: string;
    dueMs: number;
    reservedMarginUsdc: number;
    reservedFeeUsdc: number;
    dailyCarryRatePct: number;
  };
}

export const toIso = (timeMs: number) => new Date(timeMs).toISOString();

/** The history record of a hedge just closed: its whole life's realized P&L. */
export function historyRecord(hedge: HedgeState, exitPrice: number) {
  return {
    hedge_id: hedge.id,
    market: hedge.market,
    side: hedge.side,
    notional_usd: roundMoney(hedge.notionalUsd),
    tenor_days: hedge.tenorDays,
    ...(hedge.clientReference !== undefined && { client_reference: hedge.clientReference }),
    opened_at: toIso(hedge.openedAtMs),
    closed_at: toIso(hedge.closedAtMs!),
    close_reason: hedge.closeReason!,
    entry_price: hedge.entryPrice!,
    exit_price: exitPrice,
    gross_pnl_usd: hedge.realizedGrossUsd,
    carry_usdc: hedge.realizedCarryUsdc,
    fees_usdc: hedge.feesPaidUsdc,
    net_pnl_usd: roundMoney(hedge.realizedGrossUsd - hedge.realizedCarryUsdc - hedge.feesPaidUsdc),
  };
}
export type HistoryRecord = ReturnType<typeof historyRecord>;

export interface AccountState {
  id: string;
  balanceUsdc: number;
  hedges: Record<string, HedgeState>;
  /** `market:side` → id of the newest hedge that is `submitted` or `filled` there (what add acts on): the last of its
   * stack, still saved because an older hedge sharing the state file reads it. */
  activeHedgeIds: Record<string, string>;
  activeHedgeStacks: Record<string, string[]>;
  /** Oldest first by (closed_at, hedge_id), so the newest page is read from the end. */
  history: HistoryRecord[];
  trailing?: TrailingViews;
}

/** The hedge fields a positions line is computed from (http/http-engine.ts); the rest of a hedge never shows there. */
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

export interface TrailingViews {
  figures: AccountFigures;
  positions: Record<string, PositionBasis>;
  /** Changes not shown yet, in time order: the account's figures after each, and the positions line it set or cleared. */
  pending: { atMs: number; figures: AccountFigures; hedgeId?: string; position?: PositionBasis | null }[];
}

export type EventKind = 'fill' | 'change' | 'maturity';

interface ScheduledEvent {
  dueMs: number;
  sequence: number;
  kind: EventKind;
  accountId: string;
  hedgeId: string;
}

export interface EngineOptions {
  apiKeys: readonly string[];
  /**
   * Account ids already worked out for some of apiKeys (accountIdFor's result): the demo's one built-in key has a
   * constant id, so a `--demo` command never loads node:crypto to hash it.
   */
  knownAccountIds?: Readonly<Record<string, string>>;
  seed?: string | number;
  fillDelayMs?: number;
  failRate?: number;
  exposureCapUsd?: number;
  /** Markets listed besides (or instead of) the dialect's, none of their open interest held elsewhere. */
  extraMarkets?: readonly Omit<MarketDefinition, 'backgroundOpenInterestUsd'>[];
  rateLimit?: number;
  /** How the rate limit is said: `x-ratelimit-*` headers and Retry-After on a 429 (default), or the IETF draft's
   * `RateLimit: limit=N, remaining=R, reset=S` and `RateLimit-Policy: N;w=1`, a 429 with no Retry-After. */
  rateLimitHeaders?: 'x-ratelimit' | 'draft';
  dialect?: SandboxDialect;
  severalPerSide?: boolean;
  viewLagMs?: number;
  recordLagMs?: number;
  /** After an early close (or a full reduce), the hedge shows `settling` with a notional of 0 for this long, then `closed`. */
  closedSettlingMs?: number;
  /** History paged by time (delta) with no `meta.next_before`: older records only by a `before` the client works out. */
  unmarkedHistoryPages?: boolean;
  /** History paged by cursor (reference): before each page of records, this many empty pages, each naming the next. */
  emptyHistoryPages?: number;
  settlementDelayMs?: number;
  dayMs?: number;
}

export const DEFAULT_SEED = 'hedge-sandbox';

/** The engine's state: one JSON document the book (book.ts) acts on, saved whole. */
export function createEngineState(
  seed: string | number = DEFAULT_SEED,
  /** Wire dialect the sandbox speaks; a state keeps it, as hedges opened under one may not suit another. */
  dialect: SandboxDialect = 'reference',
  idSeed = hashString(`ids:${seed}`),
) {
  return {
    version: 1 as const,
    seed: String(seed),
    prngState: hashString(`prng:${seed}`),
    idState: idSeed >>> 0,
    sequence: 0,
    dialect,
    nowMs: 0,
    accounts: {} as Record<string, AccountState>,
    openInterestUsd: {} as Record<string, SideAmounts>,
    events: [] as ScheduledEvent[],
    /** `bodyJson`: the write's result as JSON (its data and meta are read; a saved record's other fields are not). */
    idempotency: {} as Record<string, { fingerprintDigest: string; createdAtMs: number; bodyJson: string }>,
  };
}

export type EngineState = ReturnType<typeof createEngineState>;

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
