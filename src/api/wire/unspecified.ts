// The spec marks these "not shown". What the client SENDS is a guess, so each guess is a setting
// with one default, here — overridable per profile (`wire` in the profile) and by environment
// variable, listed by `hedge whoami` and in docs/configuration.md. What the client READS is taken tolerantly
// (parsePrices below, read-position.ts, read-history.ts). src/api/wire-contract.md has our defaults.

/** The page size's upper bound is shown (500); its parameter's name is not. A domain fact: domain/wire.ts. */
export { MAX_PAGE_SIZE } from '../../domain/wire.js';

/** GET /prices takes several markets comma-separated. */
export const PRICE_SYMBOLS_SEPARATOR = ',';

export interface WireSettings {
  /** GET /hedges and GET /hedges/history: the page-size query parameter (`none`: send none). */
  pageSizeParam: string;
  /** POST /hedges/add and /hedges/reduce: the body's notional field (market and side are as for open). */
  changeNotionalField: string;
  /** GET /prices: the query parameter naming the market (the spec shows `symbols`). */
  pricesParam: string;
  /** Lists: the query parameter a page cursor is sent back under; empty: derived from the answer (`next_cursor` → `cursor`). */
  cursorParam: string;
}

/** The page-size setting's value for a server that takes no page-size parameter at all. */
export const NO_PAGE_SIZE = 'none';

export const DEFAULT_WIRE_SETTINGS: WireSettings = { pageSizeParam: 'limit', changeNotionalField: 'notional_usd', pricesParam: 'symbols', cursorParam: '' };

/** Each setting's environment variable and its key in a profile's `wire` object. */
export const WIRE_SETTING_SOURCES: Record<keyof WireSettings, { env: string; profileKey: string }> = {
  pageSizeParam: { env: 'HEDGE_WIRE_PAGE_SIZE_PARAM', profileKey: 'page_size_param' },
  changeNotionalField: { env: 'HEDGE_WIRE_NOTIONAL_FIELD', profileKey: 'notional_field' },
  pricesParam: { env: 'HEDGE_WIRE_PRICES_PARAM', profileKey: 'prices_param' },
  cursorParam: { env: 'HEDGE_WIRE_CURSOR_PARAM', profileKey: 'cursor_param' },
};

/** The settings hedge can learn from the server (a refusal naming its own name, or its answers). */
export const LEARNABLE_SETTINGS: ReadonlyArray<keyof WireSettings> = ['pageSizeParam', 'changeNotionalField'];

/** The next step of a wire refusal: the setting that changes the name, and the command that checks. */
export function wireHint(setting: keyof WireSettings): string {
  const { env, profileKey } = WIRE_SETTING_SOURCES[setting];
  return `Set ${env} (or the profile's wire.${profileKey}) to the name the server expects; \`hedge doctor\` shows what hedge detected, and \`hedge profile reset-wire\` forgets what it learned.`;
}

const WIRE_NAME = /^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/;

/** default: our guess; learned: the server named it (kept in the profile); profile / environment: set by you. */
export type WireSource = 'default' | 'learned' | 'profile' | 'environment';

/** Environment over profile over learned over default; a malformed name is refused with the setting named. */
export function resolveWireSettings(
  env: Readonly<Record<string, string | undefined>>,
  profileWire: Readonly<Record<string, unknown>> = {},
  learnedWire: Readonly<Record<string, unknown>> = {},
): { settings: WireSettings; sources: Record<keyof WireSettings, WireSource>; problem?: string } {
  const settings = { ...DEFAULT_WIRE_SETTINGS };
  const sources = Object.fromEntries(Object.keys(DEFAULT_WIRE_SETTINGS).map((key) => [key, 'default'])) as Record<keyof WireSettings, WireSource>;
  for (const key of Object.keys(WIRE_SETTING_SOURCES) as Array<keyof WireSettings>) {
    const { env: variable, profileKey } = WIRE_SETTING_SOURCES[key];
    const fromEnv = env[variable]?.trim();
    const fromProfile = profileWire[profileKey];
    const fromLearned = learnedWire[profileKey];
    const [value, source]: [unknown, WireSource] = fromEnv
      ? [fromEnv, 'environment']
      : fromProfile !== undefined
        ? [fromProfile, 'profile']
        : fromLearned !== undefined
          ? [fromLearned, 'learned']
          : [undefined, 'default'];
    if (value === undefined) continue;
    if (typeof value !== 'string' || !WIRE_NAME.test(value)) {
      // A learned name that went bad is forgotten rather than refused: nobody typed it.
      if (source === 'learned') continue;
      const where = source === 'environment' ? variable : `the profile's wire.${profileKey}`;
      return { settings, sources, problem: `${where}: ${JSON.stringify(value)} is not a field or parameter name (letters, digits, "_", "." and "-", at most 64).` };
    }
    settings[key] = value;
    sources[key] = source;
  }
  return { settings, sources };
}

/** POST /hedges/add and /hedges/reduce: `market`, `side` and the notional under its setting's name. */
export function changeNotionalBody(wire: Pick<WireSettings, 'changeNotionalField'>, market: string, side: string, notionalUsd: number): Record<string, unknown> {
  return { market, side, [wire.changeNotionalField]: notionalUsd };
}

export interface PriceQuote {
  market: string;
  price: number;
  [field: string]: unknown;
}

const PRICE_FIELDS = ['price', 'mid', 'mid_price', 'midPrice', 'mid_rate', 'rate', 'value', 'last', 'last_price'] as const;
const MARKET_FIELDS = ['market', 'symbol', 'pair', 'instrument', 'ticker'] as const;
const TIME_FIELDS = ['timestamp', 'ts', 'time', 'as_of', 'asOf', 'updated_at', 'at'] as const;
/** Every name a price, its market or its time is read from (a bid and an ask make a mid): read, they are shown as ours. */
export const PRICE_READ_NAMES: ReadonlySet<string> = new Set([...PRICE_FIELDS, ...MARKET_FIELDS, ...TIME_FIELDS, 'bid', 'ask']);

/** Where a list of prices may be wrapped in an object. */
const PRICE_LIST_KEYS = ['prices', 'rates', 'quotes', 'data', 'items', 'results'] as const;

const numeric = (value: unknown): number | undefined => {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value);
  return undefined;
};

function priceOf(value: unknown): number | undefined {
  const direct = numeric(value);
  if (direct !== undefined) return direct;
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const fields = value as Record<string, unknown>;
    for (const field of PRICE_FIELDS) {
      const found = priceOf(fields[field]);
      if (found !== undefined) return found;
    }
    // Only a two-sided price: its mid.
    const bid = numeric(fields.bid);
    const ask = numeric(fields.ask);
    // Rounded to 12 significant digits: (15.2832 + 15.2908) / 2 is not 15.286999999999999.
    if (bid !== undefined && ask !== undefined) return Number(((bid + ask) / 2).toPrecision(12));
  }
  return undefined;
}

function marketOf(value: Record<string, unknown>): string | undefined {
  for (const field of MARKET_FIELDS) {
    if (typeof value[field] === 'string') return value[field] as string;
  }
  return undefined;
}

function timeOf(value: Record<string, unknown>): string | undefined {
  for (const field of TIME_FIELDS) {
    if (typeof value[field] === 'string') return value[field] as string;
  }
  return undefined;
}

/**
 * GET /prices: the response shape is not shown, so accept every plausible one — an array of
 * `{market|symbol|pair, price|mid|rate|bid+ask}`, an object keyed by market (`{"USDTNGN": 1532.4}`
 * or `{"USDTNGN": {"price": 1532.4}}`), one such object, or any of these wrapped in an object
 * (`{"rates": [...]}`). Prices may be numbers or decimal strings; with only a bid and an ask the mid
 * is between them. Returns undefined when nothing fits.
 */
export function parsePrices(data: unknown, requested: readonly string[], depth = 0): PriceQuote[] | undefined {
  const fromObject = (value: unknown, fallbackMarket?: string): PriceQuote | undefined => {
    const price = priceOf(value);
    if (price === undefined) return undefined;
    const fields = value && typeof value === 'object' ? (value as Record<string, unknown>) : {};
    const market = marketOf(fields) ?? fallbackMarket;
    if (!market) return undefined;
    const timestamp = timeOf(fields);
    return { ...fields, market, price, ...(timestamp !== undefined && fields.timestamp === undefined ? { timestamp } : {}) };
  };
  if (Array.isArray(data)) {
    const quotes = data.map((item) => fromObject(item, requested.length === 1 ? requested[0] : undefined));
    return quotes.length > 0 && quotes.every((quote) => quote !== undefined) ? (quotes as PriceQuote[]) : undefined;
  }
  if (data && typeof data === 'object') {
    const object = data as Record<string, unknown>;
    const single = fromObject(data, requested.length === 1 ? requested[0] : undefined);
    if (single && marketOf(object)) return [single];
    const keyed = Object.entries(object).map(([market, value]) => fromObject(value, market));
    if (keyed.length > 0 && keyed.every((quote) => quote !== undefined)) return keyed as PriceQuote[];
    if (single) return [single];
    // A wrapper: `{rates: [...]}`, `{data: {USDTKES: …}}` — looked into once.
    if (depth === 0) {
      for (const key of PRICE_LIST_KEYS) {
        if (object[key] !== undefined && typeof object[key] === 'object') {
          const inner = parsePrices(object[key], requested, depth + 1);
          if (inner) return inner;
        }
      }
    }
  }
  if (typeof data === 'number' && requested.length === 1) return [{ market: requested[0]!, price: data }];
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
