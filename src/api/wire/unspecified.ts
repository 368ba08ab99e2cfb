// The spec marks these "not shown". What the client SENDS is a guess, so each guess is a setting
// with one default, here — overridable per profile (`wire` in the profile) and by environment
// variable, listed by `hedge whoami` and in docs/configuration.md. What the client READS is taken tolerantly
// (parsePrices below, read-position.ts, read-history.ts, all with read-fields.ts). src/api/wire-contract.md has our defaults.

import { firstField, nameKey, readNumber, readString } from './read-fields.js';

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

export const DEFAULT_WIRE_SETTINGS: WireSettings = {
  pageSizeParam: 'limit',
  changeNotionalField: 'notional_usd',
  pricesParam: 'symbols',
  cursorParam: '',
};

/** Each setting's environment variable and its key in a profile's `wire` object. */
export const WIRE_SETTING_SOURCES: Record<keyof WireSettings, { env: string; profileKey: string }> = {
  pageSizeParam: { env: 'HEDGE_WIRE_PAGE_SIZE_PARAM', profileKey: 'page_size_param' },
  changeNotionalField: { env: 'HEDGE_WIRE_NOTIONAL_FIELD', profileKey: 'notional_field' },
  pricesParam: { env: 'HEDGE_WIRE_PRICES_PARAM', profileKey: 'prices_param' },
  cursorParam: { env: 'HEDGE_WIRE_CURSOR_PARAM', profileKey: 'cursor_param' },
};

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
  const sources = Object.fromEntries(Object.keys(DEFAULT_WIRE_SETTINGS).map((key) => [key, 'default'])) as Record<
    keyof WireSettings,
    WireSource
  >;
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
      return {
        settings,
        sources,
        problem: `${where}: ${JSON.stringify(value)} is not a field or parameter name (letters, digits, "_", "." and "-", at most 64).`,
      };
    }
    settings[key] = value;
    sources[key] = source;
  }
  return { settings, sources };
}

/** POST /hedges/add and /hedges/reduce: `market`, `side` and the notional under its setting's name. */
export function changeNotionalBody(
  wire: Pick<WireSettings, 'changeNotionalField'>,
  market: string,
  side: string,
  notionalUsd: number,
): Record<string, unknown> {
  return { market, side, [wire.changeNotionalField]: notionalUsd };
}

export interface PriceQuote {
  market: string;
  price: number;
  [field: string]: unknown;
}

const PRICE_FIELDS = [
  'price',
  'mid',
  'mid_price',
  'midPrice',
  'mid_rate',
  'rate',
  'value',
  'last',
  'last_price',
] as const;
const MARKET_FIELDS = ['market', 'symbol', 'pair', 'instrument', 'ticker'] as const;
const TIME_FIELDS = ['timestamp', 'ts', 'time', 'as_of', 'asOf', 'updated_at', 'at'] as const;
/**
 * The server's own object behind each price read from one (parsePrices): the price carries our
 * names over it for people, and the one shape for scripts (pricesInOneShape) starts from it.
 */
const PRICE_SENT = new WeakMap<PriceQuote, Record<string, unknown>>();

/** Where a list of prices may be wrapped in an object. */
const PRICE_LIST_KEYS = ['prices', 'rates', 'quotes', 'data', 'items', 'results'] as const;

function priceOf(value: unknown): number | undefined {
  const direct = readNumber(value);
  if (direct !== undefined) return direct;
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const fields = value as Record<string, unknown>;
    const found = firstField(fields, PRICE_FIELDS, priceOf);
    if (found !== undefined) return found;
    // Only a two-sided price: its mid.
    const bid = readNumber(fields.bid);
    const ask = readNumber(fields.ask);
    // Rounded to 12 significant digits: (15.2832 + 15.2908) / 2 is not 15.286999999999999.
    if (bid !== undefined && ask !== undefined) return Number(((bid + ask) / 2).toPrecision(12));
  }
  return undefined;
}

const marketOf = (value: Record<string, unknown>): string | undefined => firstField(value, MARKET_FIELDS, readString);
const timeOf = (value: Record<string, unknown>): string | undefined => firstField(value, TIME_FIELDS, readString);

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
    const quote: PriceQuote = {
      ...fields,
      market,
      price,
      ...(timestamp !== undefined && fields.timestamp === undefined ? { timestamp } : {}),
    };
    PRICE_SENT.set(quote, fields);
    return quote;
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

/**
 * hedge's one shape of a price (docs/output.md): `market`, `price` (a number: the mid) and
 * `timestamp` (the time text the server gave, or null) first, whatever the shape of GET /prices,
 * then every other field of the server's price object under its own name — a bid and an ask the
 * mid was made of included. The field a fact was read from (`symbol`, `pair`, `mid`, `rate`, `ts`,
 * `as_of`) is not repeated; what the server sent under one of our three names that is not the fact
 * (a `price` object, a numeric `timestamp`) is kept under `_wire` (showUnderKnownNames). The market
 * of a shape keyed by market is the key, which is no field.
 */
export function pricesInOneShape(quotes: readonly PriceQuote[]): Array<Record<string, unknown>> {
  return quotes.map((quote) => {
    const sent = PRICE_SENT.get(quote) ?? quote;
    const { market, price, timestamp, ...others } = showUnderKnownNames(sent, [
      { known: 'market', value: quote.market, synonyms: MARKET_FIELDS },
      { known: 'price', value: quote.price, synonyms: PRICE_FIELDS },
      // A time is text (the spec: ISO 8601); none read is null, so the name is always there.
      { known: 'timestamp', value: timeOf(sent) ?? null, synonyms: TIME_FIELDS },
    ]);
    return { market, price, timestamp, ...others };
  });
}

/**
 * Where hedge's one shape keeps what the server sent under one of its names when that name holds
 * something else there (docs/output.md "Formats"): the mapped value takes the documented name, and
 * the server's own value is not lost but kept here, under the name it came under (nested as sent).
 * A name of our shape itself: a server field called `_wire` is kept inside it too.
 */
export const WIRE_HOLDER = '_wire';

/** An ISO 8601 time that carries its zone (`Z` or `+01:00`): two such texts can be compared as instants. */
const ZONED_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/i;

/**
 * Whether the server's `sent` value is the very fact hedge read as `read`, only written another way:
 * a decimal string of that number (`"99889.00"` for 99889), a number read as its text (an id),
 * the same word in another case (`BUY` read as `buy`, `usdtngn` as `USDTNGN`), the same instant.
 * Anything else (`long` read as `buy`, `"7 days"` as 7) is a different value: kept, never dropped.
 */
export function sameFact(sent: unknown, read: unknown): boolean {
  if (sent === read) return true;
  if (typeof read === 'number') return readNumber(sent) === read;
  if (typeof read !== 'string') return false;
  if (typeof sent === 'number') return String(sent) === read;
  if (typeof sent !== 'string') return false;
  if (sent.toLowerCase() === read.toLowerCase()) return true;
  return ZONED_TIME.test(sent) && ZONED_TIME.test(read) && Date.parse(sent) === Date.parse(read);
}

/**
 * A record in hedge's one shape (docs/output.md), for people and for `--json` alike: each fact the
 * tolerant reader found is under our name. Every field the server sent stays, under its own name,
 * with two exceptions, so that nothing it sent is lost (issue 49):
 *   - the field a fact was read from under another name (`direction`, `size_usd`) is dropped when
 *     its value is that fact (sameFact): it is the same value, now under ours;
 *   - a server field under our name that holds something other than the fact hedge read (a side
 *     `long` read as `buy`, a `notional_usd` of `"n/a"` beside a readable `size_usd`) gives the name
 *     to the fact, and is kept under `_wire` (WIRE_HOLDER) with its own name.
 * A field read under our own name, as the fact, stays exactly as sent (its text too).
 */
export function showUnderKnownNames(
  raw: Record<string, unknown>,
  facts: ReadonlyArray<{ known: string; value: unknown; synonyms: readonly string[] }>,
): Record<string, unknown> {
  const row: Record<string, unknown> = { ...raw };
  const displaced: Record<string, unknown> = {};
  if (Object.prototype.hasOwnProperty.call(row, WIRE_HOLDER)) {
    displaced[WIRE_HOLDER] = row[WIRE_HOLDER];
    delete row[WIRE_HOLDER];
  }
  // Each of the record's names normalised once: a long history is shaped record by record.
  let names: Array<readonly [name: string, key: string]> | undefined;
  for (const { known, value, synonyms } of facts) {
    if (value === undefined) continue;
    const current = Object.prototype.hasOwnProperty.call(row, known) ? row[known] : undefined;
    if (current !== undefined && sameFact(current, value)) continue;
    // Our own names are never a source: a fact already under one stays there.
    names ??= Object.keys(row)
      .filter((name) => !facts.some((fact) => fact.known === name))
      .map((name) => [name, nameKey(name)] as const);
    const source = sourceOf(row, names, value, synonyms);
    if (source !== undefined) delete row[source];
    if (current !== undefined) displaced[known] = current;
    row[known] = value;
  }
  if (Object.keys(displaced).length > 0) row[WIRE_HOLDER] = displaced;
  return row;
}

/** The synonym lists are few and fixed: each name normalised once. */
const synonymKeys = new Map<string, string>();

/**
 * The field a fact was read from: the first of its synonyms, in the readers' own order of
 * preference (whatever its spelling style), whose value is that fact; not a field an earlier fact
 * already took.
 */
function sourceOf(
  row: Record<string, unknown>,
  names: ReadonlyArray<readonly [string, string]>,
  value: unknown,
  synonyms: readonly string[],
): string | undefined {
  for (const synonym of synonyms) {
    let wanted = synonymKeys.get(synonym);
    if (wanted === undefined) synonymKeys.set(synonym, (wanted = nameKey(synonym)));
    for (const [name, key] of names) {
      if (key === wanted && Object.prototype.hasOwnProperty.call(row, name) && sameFact(row[name], value)) return name;
    }
  }
  return undefined;
}
