// The server's answers as the rules reason about them. api/ reads each answer (zod schemas, the
// tolerant readers) into these shapes; domain/ depends on them and on nothing in api/. Each allows
// more fields than it names: a richer server than the spec is read, not refused.

/** The page size's upper bound is shown in the spec (500); its parameter's name is not (api/wire/unspecified.ts). */
export const MAX_PAGE_SIZE = 500;

/** A figure per side (capacity, daily carry). */
interface PerSideFigures {
  buy: number;
  sell: number;
  [field: string]: unknown;
}

/** One entry of GET /markets. */
export interface MarketFacts {
  market: string;
  /** The spec lists `open`; a server may name others (a market paused or closed). */
  status: string;
  price: number;
  available_capacity_usd: PerSideFigures;
  net_rate_daily_pct: PerSideFigures;
  [field: string]: unknown;
}

/** GET /account: what the checks need (the headroom under the exposure cap). */
export interface AccountFacts {
  balance_usdc: number;
  available_exposure_usd: number;
  [field: string]: unknown;
}

/** A closed hedge from GET /hedges/history, whatever names the server gave its fields (api/wire/fields.ts reads them). */
export interface HistoryFacts {
  /** The spec's bottom line of a closed hedge: what it did to the balance. */
  netPnlUsd: number;
  grossPnlUsd?: number;
  /** On the account's side (domain/money.ts): negative = paid by the account, positive = earned; the server signs it the other way. */
  carryUsd?: number;
  /** On the account's side: negative = paid by the account. */
  feesUsd?: number;
  notionalUsd?: number;
  side?: 'buy' | 'sell';
  tenorDays?: number;
  market?: string;
  hedgeId?: string;
  /** The caller's deal id (the spec's `client_reference`). */
  clientReference?: string;
  /** The rate the hedge was struck at (quote currency per USDT). */
  entryPrice?: number;
  /** The rate it closed or settled at. */
  exitPrice?: number;
  /** ISO 8601 UTC, normalised (`2026-11-22T08:00:00.000Z`). */
  openedAt?: string;
  /** ISO 8601 UTC, normalised. */
  closedAt?: string;
}
