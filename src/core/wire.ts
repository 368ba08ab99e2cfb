// The server's answers as the rules reason about them.

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
  netPnlUsd: number;
  grossPnlUsd?: number;
  carryUsd?: number;
  feesUsd?: number;
  notionalUsd?: number;
  side?: 'buy' | 'sell';
  tenorDays?: number;
  market?: string;
  hedgeId?: string;
  clientReference?: string;
  entryPrice?: number;
  exitPrice?: number;
  openedAt?: string;
  closedAt?: string;
}
