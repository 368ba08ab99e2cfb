// The spec marks these "not shown". What the client SENDS is a guess, so each guess is a setting
// with one default, here — overridable per profile (`wire` in the profile) and by environment
// variable, listed by `hedge whoami` and in docs/configuration.md. What the client READS is taken tolerantly
// (parsePrices below, read-position.ts, read-history.ts). src/api/wire-contract.md has our defaults.

/** The page size's upper bound is shown (500); its parameter's name is not. */
export const MAX_PAGE_SIZE = 500;

/** GET /prices takes several markets comma-separated. */
export const PRICE_SYMBOLS_SEPARATOR = ',';

export interface WireSettings {
  /** GET /hedges and GET /hedges/history: the page-size query parameter. */
  pageSizeParam: string;
  /** POST /hedges/add and /hedges/reduce: the body's notional field (market and side are as for open). */
  changeNotionalField: string;
  /** GET /prices: the query parameter naming the market (the spec shows `symbols`). */
  pricesParam: string;
}

export const DEFAULT_WIRE_SETTINGS: WireSettings = { pageSizeParam: 'limit', changeNotionalField: 'notional_usd', pricesParam: 'symbols' };

/** Each setting's environment variable and its key in a profile's `wire` object. */
export const WIRE_SETTING_SOURCES: Record<keyof WireSettings, { env: string; profileKey: string }> = {
  pageSizeParam: { env: 'HEDGE_WIRE_PAGE_SIZE_PARAM', profileKey: 'page_size_param' },
  changeNotionalField: { env: 'HEDGE_WIRE_NOTIONAL_FIELD', profileKey: 'notional_field' },
  pricesParam: { env: 'HEDGE_WIRE_PRICES_PARAM', profileKey: 'prices_param' },
};

const WIRE_NAME = /^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/;

export type WireSource = 'default' | 'profile' | 'environment';

/** Environment over profile over default; a malformed name is refused with the setting named. */
export function resolveWireSettings(
  env: Readonly<Record<string, string | undefined>>,
  profileWire: Readonly<Record<string, unknown>> = {},
): { settings: WireSettings; sources: Record<keyof WireSettings, WireSource>; problem?: string } {
  const settings = { ...DEFAULT_WIRE_SETTINGS };
  const sources = { pageSizeParam: 'default', changeNotionalField: 'default', pricesParam: 'default' } as Record<keyof WireSettings, WireSource>;
  for (const key of Object.keys(WIRE_SETTING_SOURCES) as Array<keyof WireSettings>) {
    const { env: variable, profileKey } = WIRE_SETTING_SOURCES[key];
    const fromEnv = env[variable]?.trim();
    const fromProfile = profileWire[profileKey];
    const [value, source]: [unknown, WireSource] = fromEnv ? [fromEnv, 'environment'] : fromProfile !== undefined ? [fromProfile, 'profile'] : [undefined, 'default'];
    if (value === undefined) continue;
    if (typeof value !== 'string' || !WIRE_NAME.test(value)) {
      const where = source === 'environment' ? variable : `the profile's wire.${profileKey}`;
      return { settings, sources, problem: `${where}: ${JSON.stringify(value)} is not a field or parameter name (letters, digits, "_", "." and "-", at most 64).` };
    }
    settings[key] = value;
    sources[key] = source;
  }
  return { settings, sources };
}

/** POST /hedges/add and /hedges/reduce: `market`, `side` and the notional under its setting's name. */
export function changeNotionalBody(wire: WireSettings, market: string, side: string, notionalUsd: number): Record<string, unknown> {
  return { market, side, [wire.changeNotionalField]: notionalUsd };
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

/** `closed_at`, `closedAt` and `Closed-At` are one name. */
const nameKey = (name: string): string => name.toLowerCase().replace(/[^a-z0-9]/g, '');

/**
 * A record for the human table: each fact the tolerant reader found under another name (or
 * elsewhere, e.g. a position's side from its hedge) is shown under our known name, and the field it
 * was read from is dropped so it is not shown twice. Everything else stays as sent, to be labelled
 * from its own name. JSON and TSV never get this view: they carry the server's data as it came.
 */
export function showUnderKnownNames(
  raw: Record<string, unknown>,
  facts: ReadonlyArray<{ known: string; value: unknown; synonyms: readonly string[] }>,
): Record<string, unknown> {
  const row: Record<string, unknown> = { ...raw };
  for (const { known, value, synonyms } of facts) {
    if (value === undefined || row[known] !== undefined) continue;
    const names = new Set(synonyms.map(nameKey));
    const same = (field: unknown) => field !== null && typeof field !== 'object' && String(field).toLowerCase() === String(value).toLowerCase();
    const source = Object.keys(row).find((name) => names.has(nameKey(name)) && same(row[name]));
    if (source !== undefined) delete row[source];
    row[known] = value;
  }
  return row;
}
