// The spec marks these "not shown". Each has exactly one default, here, and is named in the README
// ("Where the spec is silent"); the sandbox serves the same (src/api/wire-contract.md).
import type { Side } from './schemas.js';

/** GET /hedges and GET /hedges/history page size: the parameter's name (upper bound 500 is shown). */
export const PAGE_SIZE_PARAM = 'limit';
export const MAX_PAGE_SIZE = 500;

/** GET /prices takes several markets comma-separated in `symbols`. */
export const PRICE_SYMBOLS_SEPARATOR = ',';

/** POST /hedges/add and /hedges/reduce: the body mirrors the open call's field names. */
export function changeNotionalBody(market: string, side: Side, notionalUsd: number): Record<string, unknown> {
  return { market, side, notional_usd: notionalUsd };
}

export interface PriceQuote {
  market: string;
  price: number;
  [field: string]: unknown;
}

const PRICE_FIELDS = ['price', 'mid', 'mid_price', 'rate', 'value'] as const;
const MARKET_FIELDS = ['market', 'symbol', 'pair'] as const;

function priceOf(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value);
  if (value && typeof value === 'object') {
    for (const field of PRICE_FIELDS) {
      const found = priceOf((value as Record<string, unknown>)[field]);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

function marketOf(value: Record<string, unknown>): string | undefined {
  for (const field of MARKET_FIELDS) {
    if (typeof value[field] === 'string') return value[field] as string;
  }
  return undefined;
}

/**
 * GET /prices: the response shape is not shown, so accept every plausible one — an array of
 * `{market|symbol, price|mid|rate}`, an object keyed by market (`{"USDTNGN": 1532.4}` or
 * `{"USDTNGN": {"price": 1532.4}}`), or one such object. Returns undefined when nothing fits.
 */
export function parsePrices(data: unknown, requested: readonly string[]): PriceQuote[] | undefined {
  const fromObject = (value: unknown, fallbackMarket?: string): PriceQuote | undefined => {
    const price = priceOf(value);
    if (price === undefined) return undefined;
    const fields = value && typeof value === 'object' ? (value as Record<string, unknown>) : {};
    const market = marketOf(fields) ?? fallbackMarket;
    if (!market) return undefined;
    return { ...fields, market, price };
  };
  if (Array.isArray(data)) {
    const quotes = data.map((item) => fromObject(item, requested.length === 1 ? requested[0] : undefined));
    return quotes.every((quote) => quote !== undefined) ? (quotes as PriceQuote[]) : undefined;
  }
  if (data && typeof data === 'object') {
    const single = fromObject(data, requested.length === 1 ? requested[0] : undefined);
    if (single && marketOf(data as Record<string, unknown>)) return [single];
    const keyed = Object.entries(data as Record<string, unknown>).map(([market, value]) => fromObject(value, market));
    if (keyed.length > 0 && keyed.every((quote) => quote !== undefined)) return keyed as PriceQuote[];
    if (single) return [single];
  }
  if (typeof data === 'number' && requested.length === 1) return [{ market: requested[0], price: data }];
  return undefined;
}
