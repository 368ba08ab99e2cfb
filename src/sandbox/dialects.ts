import { SANDBOX_DIALECTS, type SandboxDialect } from './dialect-names.js';
import { MARKET_MODEL } from './market-model.js';

// The markets a dialect lists, in order, with their status there.
const [NGN, KES, GHS] = MARKET_MODEL.catalogue;
const NGN_ONLY = [NGN];
const FRONTIER = [{ ...NGN, status: 'disabled' as const }, KES, GHS];

/**
 * What each dialect answers where the spec leaves it open, one row a rule, one column a dialect:
 * - pricesShape: list `[{market, price, timestamp}]`; keyed `{MARKET: {mid, ts}}`; symbol-rate `[{symbol, rate}]`;
 *   pair-bid-ask `{rates: [{pair, bid, ask, as_of}]}` with bid and ask as decimal strings (the mid is between them).
 * - pageSizeParameter: the query parameter of GET /hedges and /hedges/history that sets the page size;
 *   defaultPageSize: the page size when the request does not set one.
 * - paging: 'none': one page, the newest; 'cursor': `meta.next_cursor` names the next page (null on the last), sent
 *   back as the `cursor` query parameter; `meta.page_size` says the page size used; 'numbers': a zero-based `page`
 *   of `size` rows, `meta {page, size, total_pages, total_elements}` (as Spring Data pages its lists).
 * - unknownListQuery: what a list endpoint does with a query parameter it does not know.
 * - changeNotionalField: the body field of POST /hedges/add and /hedges/reduce that carries the change;
 *   otherNotionalField: what add and reduce do with another dialect's notional field in the body.
 * - statusAfterEarlyClose: the status a hedge shows after an early close or a full reduce (settlement is `closed`).
 * - hedgesPerSide: 'several': a second open on an open side opens another hedge instead of a 409.
 * - closingStatus: a status outside the spec's five that a hedge shows while its close (or full reduce) lands.
 * - amountsAsText: amounts the spec gives no type (positions, account, history) sent as decimal strings ("99889.00").
 * - markets: the markets listed, in order, with their status.
 * - historyPages: GET /hedges/history past its first page, while older records remain: 'cursor': `meta.next_cursor`
 *   sent back as `cursor`; 'time': `meta.next_before` (the oldest close time served) sent back as `before`, at most
 *   TIME_PAGE records a page; null: as its other lists (one page, or their `paging`).
 * - references: 'upper-case': `client_reference` kept trimmed and in upper case, and its filter ignores case.
 */
// prettier-ignore
const RULES = {
  //                      reference        alpha          beta           gamma                  delta           epsilon
  pricesShape:           ['list',         'keyed',       'symbol-rate', 'pair-bid-ask',        'list',         'list'],
  pageSizeParameter:     ['limit',        'page_size',   'per_page',    'page_size',           'limit',        'size'],
  defaultPageSize:       [50,             50,            50,            20,                    50,             20],
  paging:                ['none',         'none',        'none',        'cursor',              'none',         'numbers'],
  unknownListQuery:      ['ignored',      'ignored',     'refused',     'ignored',             'ignored',      'ignored'],
  changeNotionalField:   ['notional_usd', 'amount_usd',  'delta_usd',   'notional_change_usd', 'notional_usd', 'notional_usd'],
  otherNotionalField:    ['ignored',      'refused',     'refused',     'refused',             'ignored',      'ignored'],
  statusAfterEarlyClose: ['closed',       'filled',      'closed',      'closed',              'closed',       'closed'],
  hedgesPerSide:         ['one',          'several',     'one',         'one',                 'one',          'one'],
  closingStatus:         [null,           null,          null,          'settling',            null,           null],
  amountsAsText:         [false,          false,         false,         true,                  false,          false],
  markets:               [NGN_ONLY,       NGN_ONLY,      NGN_ONLY,      FRONTIER,              NGN_ONLY,       NGN_ONLY],
  historyPages:          ['cursor',       null,          null,          null,                  'time',         null],
  references:            ['as-sent',      'as-sent',     'as-sent',     'as-sent',             'upper-case',   'as-sent'],
} as const;

type DialectRules = { -readonly [K in keyof typeof RULES]: (typeof RULES)[K][number] };

/**
 * A field a line: its reference name (the views produce it), then its names in alpha and beta (`-`: left out); a
 * name alone is the same in every dialect. The others use the reference names.
 */
type FieldNames = Readonly<Record<string, string | null>>;

const POSITION_FIELDS = `
  market
  side direction -
  hedge_id
  notional_usd size_usd notional
  units units qty
  entry_price entry_rate avg_entry_price
  mark_price mark_rate current_price
  gross_pnl_usd pnl_gross_usd price_pnl_usd
  accrued_carry_usdc carry_accrued_usdc funding_usdc
  net_pnl_usd pnl_usd total_pnl_usd
  close_fee_usdc exit_fee_usdc fee_to_close_usdc
  margin_usdc collateral_usdc locked_margin_usdc
  net_margin_usd
  opened_at open_time created_at
  maturity_at maturity_time expires_at
`;

const ACCOUNT_FIELDS = `
  balance_usdc
  margin_in_use_usdc used_margin_usdc margin_locked_usdc
  open_exposure_usd exposure_usd gross_exposure_usd
  unrealized_pnl_usd upnl_usd floating_pnl_usd
  open_positions open_position_count num_positions
  available_exposure_usd
  exposure_cap_usd exposure_limit_usd max_exposure_usd
`;

const HISTORY_FIELDS = `
  hedge_id hedge id
  market
  side direction side
  notional_usd size_usd notional
  tenor_days tenor tenor_days
  client_reference client_ref reference
  opened_at entry_time opened
  closed_at exit_time closed
  close_reason exit_reason reason
  entry_price entry_rate open_price
  exit_price exit_rate close_price
  gross_pnl_usd pnl_gross_usd realized_pnl_usd
  carry_usdc carry_paid_usdc funding_usdc
  fees_usdc fees_paid_usdc total_fees_usdc
  net_pnl_usd
`;

function columnOf(table: string, column: number): FieldNames {
  return Object.fromEntries(
    table
      .trim()
      .split('\n')
      .map((line) => {
        const [key, ...names] = line.trim().split(' ');
        const name = names.length && (column === 1 || column === 2) ? names[column - 1] : key;
        return [key, name === '-' ? null : name];
      }),
  );
}

type WireDialect = ReturnType<typeof buildDialect>;

function buildDialect(name: SandboxDialect) {
  const column = SANDBOX_DIALECTS.indexOf(name);
  const rules = Object.fromEntries(
    Object.entries(RULES).map(([rule, row]) => [rule, row[column]]),
  ) as unknown as DialectRules;
  return {
    name,
    ...rules,
    /** Other dialects' notional fields, refused in an add or reduce body (empty when ignored). */
    refusedNotionalFields:
      rules.otherNotionalField === 'refused'
        ? [...new Set(RULES.changeNotionalField)].filter((field) => field !== rules.changeNotionalField)
        : [],
    positionFields: columnOf(POSITION_FIELDS, column),
    accountFields: columnOf(ACCOUNT_FIELDS, column),
    historyFields: columnOf(HISTORY_FIELDS, column),
  };
}

const DIALECTS = Object.fromEntries(SANDBOX_DIALECTS.map((name) => [name, buildDialect(name)]));

/** Checks a dialect name that came from outside the type system (options, a state file). */
export function parseDialect(name: unknown) {
  if (!(SANDBOX_DIALECTS as readonly unknown[]).includes(name))
    throw new Error(`unknown sandbox dialect ${JSON.stringify(name)}; expected one of ${SANDBOX_DIALECTS.join(', ')}`);
  return name as SandboxDialect;
}

export function wireDialect(name: SandboxDialect) {
  return DIALECTS[parseDialect(name)];
}

/** A `client_reference` as the dialect keeps it, and compares a filter with it: as sent, or trimmed in upper case. */
export function keptReference<T extends string | undefined>(reference: T, dialect: WireDialect) {
  return (dialect.references === 'upper-case' ? reference?.trim().toUpperCase() : reference) as T;
}

/** The prices in each shape a dialect may send (its pricesShape). */
export const renderPrices: Readonly<
  Record<
    DialectRules['pricesShape'],
    (prices: readonly { market: string; price: number; timestamp: string }[]) => unknown
  >
> = {
  // The readings are {market, price, timestamp} already.
  list: (prices) => prices,
  keyed: (prices) =>
    Object.fromEntries(prices.map(({ market, price, timestamp }) => [market, { mid: price, ts: timestamp }])),
  'symbol-rate': (prices) => prices.map(({ market, price }) => ({ symbol: market, rate: price })),
  'pair-bid-ask': (prices) => ({
    rates: prices.map(({ market, price, timestamp }) => {
      // A symmetric spread of 5 bp around the mid, at the mid's own precision.
      const half = price * 0.00025;
      return { pair: market, bid: (price - half).toFixed(3), ask: (price + half).toFixed(3), as_of: timestamp };
    }),
  }),
};

/** Counts stay numbers even where amounts go out as text. */
const COUNT_FIELDS = new Set(['open_positions', 'open_position_count', 'num_positions', 'tenor_days', 'tenor']);

/**
 * Copies `record` under the dialect's field names, in the same order, leaving out null names; its amounts as the
 * dialect writes them: unchanged, or (amountsAsText) each number but a count as a decimal string — money (`_usd`,
 * `_usdc`) to the cent ("99889.00"), prices and units as they are ("1532.418").
 */
export function wireRecord(record: object, names: FieldNames, dialect: WireDialect) {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(record)) {
    // A field the table does not know goes out under its own name rather than vanishing.
    const name = Object.hasOwn(names, key) ? names[key] : key;
    if (name === null) continue;
    out[name] =
      !dialect.amountsAsText || typeof value !== 'number' || COUNT_FIELDS.has(name)
        ? value
        : /_usdc?$/.test(name)
          ? value.toFixed(2)
          : String(value);
  }
  return out;
}
