// The field picker for the parts of the contract the spec marks "not shown".
import { InvalidResponseError } from '../../../core/errors.js';
import { toAccountSide, toCents } from '../../../core/money.js';
import { readNumber } from '../../../core/number-format.js';
import { SIDES } from '../../../core/vocabulary.js';
import type { HistoryFacts } from '../../../core/wire.js';
import { isObject, type JsonObject } from '../../../core/objects.js';

/** `closed_at`, `closedAt` and `Closed-At` are one name. */
export function nameKey(name: string) {
  return name.toLowerCase().replace(/[^a-z0-9]/g, '');
}

function fieldsOf(raw: JsonObject) {
  // Reversed: of two names that normalise alike, the first is set last.
  return new Map(
    Object.entries(raw)
      .map(([name, value]) => [nameKey(name), value] as const)
      .reverse(),
  );
}

type Reader<T> = (value: unknown) => T | undefined;

/** The first of `names` (in order of preference) whose value `read` accepts, and that name; `from`: a record, or its
 * fields by normalised name (fieldsOf). */
export function pickField<T>(
  from: JsonObject | ReadonlyMap<string, unknown>,
  names: readonly string[],
  read: Reader<T>,
) {
  const fields = from instanceof Map ? from : fieldsOf(from as JsonObject);
  for (const name of names) {
    const value = read(fields.get(nameKey(name)));
    if (value !== undefined) return { value, name };
  }
}

/** Text that is not blank (a time, a market: a number there is not read as one). */
export function readString(value: unknown) {
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

/** Text that is not blank, or a finite number as its text (an id sent as a number). */
export function readText(value: unknown) {
  return typeof value === 'number' && Number.isFinite(value) ? String(value) : readString(value);
}

interface PriceQuote {
  market: string;
  price: number;
  [field: string]: unknown;
}

/** A price's facts, each under the names it is read from, ours first. */
const PRICE_FIELDS = fieldTable({
  market: ['market symbol pair instrument ticker', readString],
  price: ['price mid mid_price midPrice mid_rate rate value last last_price', priceOf],
  timestamp: ['timestamp ts time as_of asOf updated_at at', readString],
});
/** The server's own object behind each price read (pricesInOneShape starts from it). */
const PRICE_SENT = new WeakMap<PriceQuote, JsonObject>();

const PRICE_LIST_KEYS = 'prices rates quotes data items results'.split(' ');

function priceOf(value: unknown): number | undefined {
  if (!isObject(value)) return readNumber(value);
  const bid = readNumber(value.bid);
  const ask = readNumber(value.ask);
  // Only a two-sided price: its mid, rounded to 12 significant digits ((15.2832 + 15.2908) / 2 is not 15.286999999999999).
  return (
    pickField(value, ...PRICE_FIELDS.price)?.value ??
    (bid !== undefined && ask !== undefined ? Number(((bid + ask) / 2).toPrecision(12)) : undefined)
  );
}

const marketOf = (value: JsonObject) => pickField(value, ...PRICE_FIELDS.market)?.value;
const timeOf = (value: JsonObject) => pickField(value, ...PRICE_FIELDS.timestamp)?.value;

/** GET /prices, whose shape is not shown. */
export function parsePrices(data: unknown, requested: readonly string[], depth = 0): PriceQuote[] | undefined {
  const only = requested.length === 1 ? requested[0] : undefined;
  const fromObject = (value: unknown, fallbackMarket?: string) => {
    const price = priceOf(value);
    if (price === undefined) return;
    const fields = isObject(value) ? value : {};
    const market = marketOf(fields) ?? fallbackMarket;
    if (!market) return;
    const timestamp = timeOf(fields);
    const quote = {
      ...fields,
      market,
      price,
      ...(timestamp && fields.timestamp === undefined && { timestamp }),
    };
    PRICE_SENT.set(quote, fields);
    return quote;
  };
  const all = (quotes: Array<PriceQuote | undefined>) =>
    quotes.length && quotes.every((quote) => quote !== undefined) ? quotes : undefined;
  if (Array.isArray(data)) return all(data.map((item) => fromObject(item, only)));
  if (isObject(data)) {
    const single = fromObject(data, only);
    if (single && marketOf(data)) return [single];
    const keyed = all(Object.entries(data).map(([market, value]) => fromObject(value, market)));
    if (keyed) return keyed;
    if (single) return [single];
    // A wrapper: `{rates: [...]}`, `{data: {USDTKES: …}}` — looked into once.
    for (const key of depth === 0 ? PRICE_LIST_KEYS : []) {
      const inner = typeof data[key] === 'object' && parsePrices(data[key], requested, 1);
      if (inner) return inner;
    }
  }
  if (typeof data === 'number' && only !== undefined) return [{ market: only, price: data }];
}

/** A price in the one shape (docs/output.md): `market`, `price`, `timestamp` first, then what the server sent. */
export function pricesInOneShape(quotes: readonly PriceQuote[]) {
  return quotes.map((quote) => {
    const sent = PRICE_SENT.get(quote) ?? quote;
    const { market, price, timestamp, ...others } = inOneShape(sent, PRICE_FIELDS, {
      market: quote.market,
      price: quote.price,
      // A time is text (the spec: ISO 8601); none read is null, so the name is always there.
      timestamp: timeOf(sent) ?? null,
    });
    return { market, price, timestamp, ...others };
  });
}

/** Where the one shape keeps what the server sent under one of our names for something else. */
const WIRE_HOLDER = '_wire';

/** An ISO 8601 time that carries its zone (`Z` or `+01:00`): two such texts can be compared as instants. */
const ZONED_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/i;

/** Whether `sent` is the fact read as `read`, only written another way (`"99889.00"`, `BUY`, the same instant). */
export function sameFact(sent: unknown, read: unknown) {
  if (sent === read) return true;
  if (typeof read === 'number') return readNumber(sent) === read;
  if (typeof read !== 'string') return false;
  if (typeof sent === 'number') return String(sent) === read;
  if (typeof sent !== 'string') return false;
  if (sent.toLowerCase() === read.toLowerCase()) return true;
  return ZONED_TIME.test(sent) && ZONED_TIME.test(read) && Date.parse(sent) === Date.parse(read);
}

/** A record with each fact under our name and nothing the server sent lost. */
export function showUnderKnownNames(
  raw: JsonObject,
  facts: ReadonlyArray<{ known: string; value: unknown; synonyms: readonly string[] }>,
) {
  const { [WIRE_HOLDER]: held, ...row } = raw;
  const displaced: JsonObject = Object.hasOwn(raw, WIRE_HOLDER) ? { [WIRE_HOLDER]: held } : {};
  // Each of the record's names normalised once: a long history is shaped record by record.
  let names: Array<readonly [name: string, key: string]> | undefined;
  for (const { known, value, synonyms } of facts) {
    if (value === undefined) continue;
    const current = row[known];
    if (current !== undefined && sameFact(current, value)) continue;
    // Our own names are never a source: a fact already under one stays there.
    names ??= Object.keys(row)
      .filter((name) => !facts.some((fact) => fact.known === name))
      .map((name) => [name, nameKey(name)] as const);
    // The field a fact was read from: the first of its synonyms whose value is that fact.
    const source = synonyms
      .map(synonymKey)
      .flatMap((wanted) =>
        names!.filter(([name, key]) => key === wanted && Object.hasOwn(row, name) && sameFact(row[name], value)),
      )[0]?.[0];
    if (source !== undefined) delete row[source];
    if (current !== undefined) displaced[known] = current;
    row[known] = value;
  }
  if (Object.keys(displaced).length) row[WIRE_HOLDER] = displaced;
  return row;
}

/** The synonym lists are few and fixed: each name normalised once. */
const synonymKeys = new Map<string, string>();
const synonymKey = (synonym: string) =>
  synonymKeys.get(synonym) ?? synonymKeys.set(synonym, nameKey(synonym)).get(synonym)!;

/** Each fact's names, most likely first (the first ours), and its reader. */
type FieldTable = Readonly<Record<string, readonly [names: readonly string[], read: Reader<unknown>]>>;

/** `{fact: ['name other_name …', read]}` (a number without a reader), each list of names split once. */
function fieldTable<T extends Record<string, string | readonly [string, Reader<unknown>]>>(
  table: T,
): {
  [F in keyof T]: readonly [
    string[],
    T[F] extends readonly [string, infer R extends Reader<unknown>] ? R : typeof readNumber,
  ];
} {
  return Object.fromEntries(
    Object.entries(table).map(([fact, entry]) => {
      const [names, read] = typeof entry === 'string' ? [entry, readNumber] : entry;
      return [fact, [names.split(' '), read]];
    }),
  ) as never;
}

/** Each fact of `table` read from `raw`, in the table's order; a name other than the first is noted in `used`. */
function readFacts<T extends FieldTable>(raw: JsonObject, table: T, used?: string[]) {
  const fields = fieldsOf(raw);
  const facts: JsonObject = {};
  for (const [fact, [names, read]] of Object.entries(table)) {
    const found = pickField(fields, names, read);
    if (!found) continue;
    if (found.name !== names[0]) used?.push(found.name);
    facts[fact] = found.value;
  }
  return facts as { [F in keyof T]?: NonNullable<ReturnType<T[F][1]>> };
}

/** `raw` in the one shape (docs/output.md): each fact under the first of its names. */
function inOneShape(raw: JsonObject, table: FieldTable, facts: JsonObject = readFacts(raw, table)) {
  return showUnderKnownNames(
    raw,
    Object.entries(table).map(([fact, [synonyms]]) => ({
      known: synonyms[0],
      value: facts[fact],
      synonyms,
    })),
  );
}

/** Every name we read each "not shown" figure from, most likely first. Extend here, and only here. */
const POSITION_FIELDS = fieldTable({
  side: [
    'side direction position_side hedge_side',
    (value) => SIDES.find((side) => typeof value === 'string' && side === value.toLowerCase()),
  ],
  market: ['market symbol pair', (value) => readString(value)?.toUpperCase()],
  notionalUsd: 'notional_usd size_usd notional amount_usd exposure_usd position_usd',
  hedgeId: ['hedge_id id hedge', readString],
  // Net names first, then a bare `pnl_usd`; "unrealized" last: a venue's is often the price part alone.
  netPnlUsd:
    'net_pnl_usd net_pnl_usdc unrealized_net_pnl_usd net_unrealized_pnl_usd pnl_net_usd net_pnl pnl_usd total_pnl_usd unrealized_pnl_usd unrealised_pnl_usd upnl_usd unrealized_pnl',
  maturityAt: ['maturity_at maturity expires_at settles_at maturity_time', readTime],
  markPrice: 'mark_price mark_rate mark current_price',
  entryPrice: 'entry_price entry_rate entry avg_entry_price',
  accruedCarryUsdc: 'accrued_carry_usdc carry_accrued_usdc carry_usdc accrued_carry funding_usdc',
  marginUsdc: 'margin_usdc collateral_usdc locked_margin_usdc margin',
  grossPnlUsd: 'gross_pnl_usd pnl_gross_usd price_pnl_usd gross_pnl',
  closeFeeUsdc: 'close_fee_usdc exit_fee_usdc fee_to_close_usdc close_fee',
  units: 'units qty quantity',
  openedAt: ['opened_at open_time created_at opened', readTime],
});

/** The names a side and a notional are read from (`hedge doctor` says which one a position used). */
export const POSITION_FIELD_SYNONYMS = { side: POSITION_FIELDS.side[0], notionalUsd: POSITION_FIELDS.notionalUsd[0] };

/** A position's facts; `synonymsUsed`: the names read other than ours (for --verbose). */
export type PositionFacts = ReturnType<typeof readFacts<typeof POSITION_FIELDS>> & {
  netMarginUsd?: number;
  synonymsUsed: string[];
};

export function readPosition(raw: JsonObject): PositionFacts {
  const synonymsUsed: string[] = [];
  return {
    ...readFacts(raw, POSITION_FIELDS, synonymsUsed),
    netMarginUsd: readNumber(raw.net_margin_usd),
    synonymsUsed,
  };
}

/** A position in the one shape: a fact taken from its hedge (a position with no side) shown too. */
export function positionInOneShape(raw: JsonObject, facts: Omit<PositionFacts, 'synonymsUsed'>) {
  return inOneShape(raw, POSITION_FIELDS, facts);
}

// `long`/`short` are read as buy/sell: buying USDT against the quote currency is the long side.
const SIDE_WORDS: Record<string, 'buy' | 'sell'> = { buy: 'buy', long: 'buy', sell: 'sell', short: 'sell' };

/** Names a closed-hedge record may give each fact, most likely first (the first: what our simulator serves). */
const HISTORY_FIELDS = fieldTable({
  netPnlUsd: 'net_pnl_usd net_pnl_usdc net_pnl net_realized_pnl_usd realized_net_pnl_usd pnl_net_usd net_profit_usd',
  grossPnlUsd:
    'gross_pnl_usd gross_pnl_usdc realized_pnl_usd realized_gross_pnl_usd gross_realized_pnl_usd pnl_gross_usd gross_pnl price_pnl_usd',
  carryUsd:
    'carry_usdc carry_paid_usdc carry_usd carry_paid_usd total_carry_usdc accrued_carry_usdc carry funding_usdc funding_usd',
  feesUsd: 'fees_usdc fees_usd fee_usd fee_usdc total_fees_usdc total_fees_usd fees_paid_usdc fees fee',
  notionalUsd: 'notional_usd notional_usdc notional size_usd size_usdc amount_usd size',
  side: [
    'side direction position_side',
    (value) => (typeof value === 'string' ? SIDE_WORDS[value.trim().toLowerCase()] : undefined),
  ],
  tenorDays: ['tenor_days tenor tenor_d duration_days', readTenor],
  market: ['market symbol pair instrument', readText],
  // A nested `{id: …}` (e.g. `hedge: {id}`) is read as its id.
  hedgeId: ['hedge_id id hedge position_id', (value) => readText(isObject(value) ? value.id : value)],
  clientReference: ['client_reference client_ref reference clientReference', readText],
  entryPrice: 'entry_price entry_rate open_price struck_rate avg_entry_price',
  exitPrice: 'exit_price exit_rate close_price settlement_price settlement_rate',
  openedAt: ['opened_at open_time opened_time entry_time entered_at created_at opened', readTimestamp],
  closedAt: ['closed_at close_time closed_time exit_time exited_at settled_at settlement_time closed', readTimestamp],
}) satisfies { [F in keyof HistoryFacts]-?: readonly [string[], Reader<NonNullable<HistoryFacts[F]>>] };

/** How a closed hedge ended: no rule reads it, but the one shape shows it under ours. */
const HISTORY_FOR_PEOPLE = {
  ...HISTORY_FIELDS,
  ...fieldTable({ closeReason: ['close_reason exit_reason reason closed_reason closure_reason', readText] }),
};

/** `7`, `"7"`, `"7d"`, `"7 days"`. */
function readTenor(value: unknown) {
  const days = readNumber(
    typeof value === 'string'
      ? value
          .trim()
          .toLowerCase()
          .replace(/\s*d(ays?)?$/, '')
      : value,
  );
  return Number.isInteger(days) && days! > 0 ? days : undefined;
}

const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?(Z|[+-]\d{2}:?\d{2})?$/i;
const HAS_ZONE = /(Z|[+-]\d{2}:?\d{2})$/i;
// Epoch numbers under this are seconds, over it milliseconds (1e11 s is the year 5138).
const EPOCH_SECONDS_BELOW = 1e11;

/** An ISO 8601 time given the `Z` it lacks (the spec's times are UTC; JavaScript reads a time without a zone as local); other text as sent. */
export function asUtc(value: string) {
  const text = value.trim();
  if (!ISO_TIMESTAMP.test(text)) return value;
  const iso = text.replace(' ', 'T');
  return iso.length === 10 || HAS_ZONE.test(iso) ? iso : `${iso}Z`;
}

/** Text that is not blank, an ISO 8601 time without a zone read as UTC. */
function readTime(value: unknown) {
  const text = readString(value);
  return text && asUtc(text);
}

/** An ISO 8601 time (no zone: UTC, never local) or epoch seconds or milliseconds → an ISO string. */
export function readTimestamp(value: unknown) {
  const epoch = readNumber(value);
  const date = new Date(
    epoch !== undefined
      ? Math.abs(epoch) < EPOCH_SECONDS_BELOW
        ? epoch * 1000
        : epoch
      : typeof value === 'string' && ISO_TIMESTAMP.test(value.trim())
        ? Date.parse(asUtc(value))
        : NaN,
  );
  // Not a time, or not one a date can hold.
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/** A closed-hedge record's facts; one not found is left out, never 0. No net P&L is off the contract. */
export function readHistoryRecord(raw: JsonObject) {
  const facts = readFacts(raw, HISTORY_FIELDS);
  // The rules reason on the account's side: the server's positive carry and fees are paid.
  for (const fact of ['carryUsd', 'feesUsd'] as const)
    if (facts[fact] !== undefined) facts[fact] = toAccountSide(facts[fact]);
  if (facts.netPnlUsd === undefined) {
    const id = facts.hedgeId ? ` (${facts.hedgeId})` : '';
    throw new InvalidResponseError(`A closed-hedge record${id} has no net P&L (net_pnl_usd).`, {
      endpoint: 'GET /hedges/history',
      status: 200,
      hint: 'The P&L report needs net_pnl_usd on every closed hedge; see the raw records with `hedge history --json`.',
    });
  }
  return facts as HistoryFacts;
}

export const historyHedgeId = (raw: JsonObject) => pickField(raw, ...HISTORY_FIELDS.hedgeId)?.value;

/** A closed-hedge record's close time, read even when the record gives no net P&L. */
export const historyCloseTime = (raw: JsonObject) => pickField(raw, ...HISTORY_FIELDS.closedAt)?.value;

/** A closed-hedge record's id and close time, where it carries them (to page the history by). */
export function historyRowKey(raw: unknown) {
  return isObject(raw) ? { id: historyHedgeId(raw), at: historyCloseTime(raw) } : {};
}

/** A closed-hedge record in the one shape, how it ended (`close_reason`) included. */
export const historyRecordForPeople = (raw: JsonObject) => inOneShape(raw, HISTORY_FOR_PEOPLE);

/** The sums of the money figures every record carries as a number (or numeric text), by our names: each figure rounded
 * to the cent as its row shows it, so a total is the sum of its rows (as in `hedge report`). */
export function historyTotals(records: readonly JsonObject[]) {
  return Object.fromEntries(
    ['notional_usd', 'gross_pnl_usd', 'carry_usdc', 'fees_usdc', 'net_pnl_usd'].flatMap((key) => {
      const values = records.map((record) => readNumber(record[key]));
      if (!values.every((value) => value !== undefined)) return [];
      return [[key, values.reduce((sum, value) => sum + toCents(value), 0) / 100]];
    }),
  );
}

/** Every name each account figure is read from, ours (docs/output.md) first. Extend here, and only here. */
const ACCOUNT_FIELDS = fieldTable({
  balance_usdc: 'balance_usdc',
  margin_in_use_usdc: 'margin_in_use_usdc used_margin_usdc margin_locked_usdc margin_used_usdc',
  open_exposure_usd: 'open_exposure_usd exposure_usd gross_exposure_usd',
  unrealized_pnl_usd: 'unrealized_pnl_usd upnl_usd floating_pnl_usd unrealised_pnl_usd',
  open_positions: 'open_positions open_position_count num_positions positions',
  available_exposure_usd: 'available_exposure_usd',
  exposure_cap_usd: 'exposure_cap_usd exposure_limit_usd max_exposure_usd',
});

/** The account in the one shape: each figure read under another name shown under ours. */
export const accountForPeople = (raw: JsonObject) => inOneShape(raw, ACCOUNT_FIELDS);
