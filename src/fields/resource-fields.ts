// Every resource the CLI shows, declared once: its fields (keys, labels, units, kinds — one column order for TSV, CSV
// and JSON --fields), the order a table shows them in when it differs, and its column priorities: one ordered list,
// most important first — first what a desk decides on, then the rest.
import type { ChalkInstance } from 'chalk';
import type { FieldSpec } from './fields.js';
import { utcClockMinute } from '../core/utc-text.js';

/** A resource as lists show it. */
export interface Resource {
  fields: FieldSpec[];
  priority: readonly string[];
  /**
   * How many of `priority`'s first keys are what a desk decides on (`ranked`): a narrow table keeps them with
   * headers on two lines and compact cells before leaving one out, and takes the rest only while those read whole.
   */
  decisive?: number;
  table?: readonly string[];
}

const market: FieldSpec = { key: 'market', label: 'Market' };
const side: FieldSpec = { key: 'side', label: 'Side', kind: 'side' };
const notional: FieldSpec = { key: 'notional_usd', label: 'Notional', unit: 'USD', kind: 'money' };
const tenor: FieldSpec = { key: 'tenor_days', label: 'Tenor', unit: 'days', kind: 'count' };
/** The caller's own deal id (the spec's `client_reference`): "Ref" wherever a list shows it. */
const reference: FieldSpec = { key: 'client_reference', label: 'Ref', kind: 'text' };

/** A list's priorities in two tiers: what a desk decides on, most important first, then the rest (ui/table.ts: `TableInput.decisive`). */
function ranked(decides: readonly string[], rest: readonly string[]): Pick<Resource, 'priority' | 'decisive'> {
  return { priority: [...decides, ...rest], decisive: decides.length };
}

/**
 * The priorities for these rows: when they hold more than one market, the market joins the columns the desk decides
 * on, first (a side means nothing without it); with one market, the rates' unit in the headers (`Entry NGN/USDT`)
 * names it and its column is one of the rest.
 */
export function rankedFor(
  resource: Pick<Resource, 'priority' | 'decisive'>,
  markets: ReadonlyArray<unknown>,
): { priority: readonly string[]; decisive: number } {
  const decisive = resource.decisive ?? 0;
  const at = resource.priority.indexOf('market');
  if (decisive === 0 || at < decisive || new Set(markets).size <= 1) return { priority: resource.priority, decisive };
  return { priority: ['market', ...resource.priority.filter((key) => key !== 'market')], decisive: decisive + 1 };
}

/** Hedges still able to mature: the others show no countdown. */
const STILL_RUNNING = new Set(['submitted', 'filled']);
const runningHedge = (row: Record<string, unknown>): boolean =>
  typeof row.status !== 'string' || STILL_RUNNING.has(row.status);

// ---- hedges --------------------------------------------------------------------------------

/**
 * A hedge, in the one column order of `hedge hedges` (list and ID; TSV, CSV and table alike): what identifies it
 * and what it is, then times, then the on-chain details (hashes whole in TSV, CSV and JSON; shortened on screen).
 */
export const HEDGE_FIELDS: FieldSpec[] = [
  { key: 'id', label: 'Hedge ID', kind: 'id' },
  reference,
  market,
  side,
  notional,
  tenor,
  { key: 'status', label: 'Status', kind: 'status' },
  { key: 'struck_rate', label: 'Struck', unit: 'rate', kind: 'rate' },
  { key: 'opened_at', label: 'Opened', kind: 'time', relativeWhen: runningHedge },
  { key: 'maturity_at', label: 'Maturity', kind: 'time', relativeWhen: runningHedge },
  { key: 'filled_at', label: 'Filled', kind: 'time', relativeWhen: () => false },
  { key: 'closed_at', label: 'Closed', kind: 'time', relativeWhen: () => false },
  { key: 'units', label: 'Units', kind: 'count' },
  { key: 'order_key', label: 'Order key', kind: 'hash' },
  { key: 'order_tx_hash', label: 'Order tx', kind: 'hash' },
  { key: 'fill_tx_hash', label: 'Fill tx', kind: 'hash' },
];

/** The id names the record (`hedge hedges ID`): first, shortened in the middle rather than dropped. */
export const HEDGE_RESOURCE: Resource = {
  fields: HEDGE_FIELDS,
  ...ranked(
    ['id', 'side', 'client_reference', 'notional_usd', 'struck_rate', 'status', 'maturity_at'],
    [
      'market',
      'tenor_days',
      'opened_at',
      'filled_at',
      'closed_at',
      'units',
      'order_key',
      'order_tx_hash',
      'fill_tx_hash',
    ],
  ),
};

// ---- positions -----------------------------------------------------------------------------

/**
 * A deal reference hedge joins in under this symbol — a position's, from its side's hedges
 * (flows/position-sides.ts); a closed hedge's under `history --ref`, from the deal's hedge records (flows/deal.ts):
 * JSON never prints a symbol-keyed value, so `--json` stays the server's data as sent, while the table, TSV, CSV
 * and `--fields client_reference` show it.
 */
export const JOINED_REFERENCE: unique symbol = Symbol('client_reference');

const joinedReference = (row: Record<string, unknown>): unknown =>
  (row as Record<PropertyKey, unknown>)[JOINED_REFERENCE] ?? row.client_reference;

/** The spec names only `net_margin_usd`: what closing now would return. */
export const POSITION_FIELDS: FieldSpec[] = [
  market,
  side,
  { ...reference, get: joinedReference },
  notional,
  { key: 'entry_price', label: 'Entry', unit: 'rate', kind: 'rate' },
  { key: 'mark_price', label: 'Mark', unit: 'rate', kind: 'rate' },
  { key: 'gross_pnl_usd', label: 'Gross P&L', unit: 'USD', kind: 'pnl' },
  { key: 'accrued_carry_usdc', label: 'Carry', unit: 'USDC', kind: 'charge' },
  { key: 'net_pnl_usd', label: 'Net P&L', unit: 'USD', kind: 'pnl' },
  { key: 'close_fee_usdc', label: 'Close fee', unit: 'USDC', kind: 'charge' },
  { key: 'margin_usdc', label: 'Margin', unit: 'USDC', kind: 'money' },
  { key: 'net_margin_usd', label: 'Net margin', unit: 'USD', kind: 'money' },
  // Time to maturity, for people: the table's view of maturity_at.
  { key: 'matures_in', label: 'Left', kind: 'countdown', screenOnly: true, get: (row) => row.maturity_at },
  { key: 'maturity_at', label: 'Maturity', kind: 'utc' },
  { key: 'hedge_id', label: 'Hedge ID', kind: 'id' },
  { key: 'units', label: 'Units', kind: 'count' },
  { key: 'opened_at', label: 'Opened', kind: 'utc' },
];

/** The desk's columns: side, reference, notional, net P&L, entry, mark and time left — all kept at 80 columns whatever the reference's length. */
export const POSITION_RESOURCE: Resource = {
  fields: POSITION_FIELDS,
  ...ranked(
    ['side', 'client_reference', 'notional_usd', 'net_pnl_usd', 'entry_price', 'mark_price', 'matures_in'],
    // The amounts first: a header wraps to keep an amount, never for the columns after them.
    [
      'net_margin_usd',
      'gross_pnl_usd',
      'accrued_carry_usdc',
      'close_fee_usdc',
      'margin_usdc',
      'market',
      'maturity_at',
      'hedge_id',
      'units',
      'opened_at',
    ],
  ),
};

// ---- history -------------------------------------------------------------------------------

/** What a closed hedge realized; the spec names only `net_pnl_usd`. */
export const REALIZED_FIELDS: FieldSpec[] = [
  { key: 'entry_price', label: 'Entry', unit: 'rate', kind: 'rate' },
  { key: 'exit_price', label: 'Exit', unit: 'rate', kind: 'rate' },
  { key: 'gross_pnl_usd', label: 'Gross P&L', unit: 'USD', kind: 'pnl' },
  { key: 'carry_usdc', label: 'Carry', unit: 'USDC', kind: 'charge' },
  { key: 'fees_usdc', label: 'Fees', unit: 'USDC', kind: 'charge' },
  { key: 'net_pnl_usd', label: 'Net P&L', unit: 'USD', kind: 'pnl' },
];

/**
 * A footnote mark hedge puts after a closed hedge's notional on screen (ui/history-view.ts): this journal resized
 * the hedge while it was open, so its P&L (the whole life's) is on more than the notional shown.
 */
export const NOTIONAL_MARK: unique symbol = Symbol('notional_mark');

export const HISTORY_FIELDS: FieldSpec[] = [
  { key: 'hedge_id', label: 'Hedge ID', kind: 'id' },
  // A record without a reference of its own shows the deal's, joined from its hedge's record (`history --ref`).
  { ...reference, get: joinedReference },
  market,
  side,
  { ...notional, style: (text, row) => text + ((row as Record<PropertyKey, unknown>)[NOTIONAL_MARK] ?? '') },
  tenor,
  { key: 'opened_at', label: 'Opened', kind: 'utc' },
  { key: 'closed_at', label: 'Closed', kind: 'utc' },
  { key: 'close_reason', label: 'How', kind: 'text' },
  ...REALIZED_FIELDS,
];

/**
 * A closed hedge as a desk reads it: side, reference, notional, net P&L, the rates it was struck and closed at, and
 * when it closed — kept at 80 columns; net P&L before the rates, so that it is never the one left out at 60.
 */
export const HISTORY_RESOURCE: Resource = {
  fields: HISTORY_FIELDS,
  ...ranked(
    ['side', 'client_reference', 'notional_usd', 'net_pnl_usd', 'entry_price', 'exit_price', 'closed_at'],
    ['gross_pnl_usd', 'carry_usdc', 'fees_usdc', 'hedge_id', 'close_reason', 'market', 'tenor_days', 'opened_at'],
  ),
};

// ---- maturities ----------------------------------------------------------------------------

/**
 * `hedge maturities`: the flat list in TSV, CSV and JSON --fields (in this order); the table shows the time of day
 * and the time left instead of the day and the exact time (a line per day above its settlements says the date).
 */
export const MATURITY_RESOURCE: Resource = {
  fields: [
    { key: 'day', label: 'Day' },
    { key: 'maturity_at', label: 'Maturity', kind: 'utc' },
    { key: 'matures_in_seconds', label: 'Matures in (s)', kind: 'count' },
    market,
    side,
    notional,
    tenor,
    { key: 'hedge_id', label: 'Hedge ID', kind: 'id' },
    reference,
    { key: 'mark_price', label: 'Mark', unit: 'rate', kind: 'rate' },
    { key: 'net_pnl_usd', label: 'P&L', unit: 'USD', kind: 'pnl' },
    { key: 'accrued_carry_usdc', label: 'Carry', unit: 'USDC', kind: 'charge' },
    {
      key: 'time',
      label: 'UTC',
      kind: 'text',
      screenOnly: true,
      get: (row) => (typeof row.maturity_at === 'string' ? utcClockMinute(row.maturity_at) : undefined),
    },
    { key: 'left', label: 'Left', kind: 'countdown', screenOnly: true, get: (row) => row.maturity_at },
  ],
  table: [
    'time',
    'left',
    'market',
    'side',
    'client_reference',
    'notional_usd',
    'net_pnl_usd',
    'accrued_carry_usdc',
    'mark_price',
    'tenor_days',
    'hedge_id',
  ],
  // A schedule: when (the day is the line above) and how long is left come first.
  ...ranked(
    ['time', 'left', 'side', 'client_reference', 'notional_usd', 'net_pnl_usd', 'mark_price'],
    ['accrued_carry_usdc', 'market', 'hedge_id', 'tenor_days'],
  ),
};

// ---- account, prices, markets ----------------------------------------------------------------

/** The spec names only `balance_usdc` and `available_exposure_usd`; the rest follows the wire contract. */
export const ACCOUNT_FIELDS: FieldSpec[] = [
  { key: 'balance_usdc', label: 'Balance, free (USDC)', kind: 'money' },
  { key: 'margin_in_use_usdc', label: 'Margin in use (USDC)', kind: 'money' },
  { key: 'open_exposure_usd', label: 'Open exposure (USD)', kind: 'money' },
  { key: 'unrealized_pnl_usd', label: 'Unrealized P&L (USD)', kind: 'pnl' },
  { key: 'open_positions', label: 'Open positions', kind: 'count' },
  { key: 'available_exposure_usd', label: 'Available exposure (USD)', kind: 'money' },
  { key: 'exposure_cap_usd', label: 'Exposure cap (USD)', kind: 'money' },
];

/** `hedge price`: the indicative mid rate per market (GET /prices). */
export const PRICE_RESOURCE: Resource = {
  fields: [
    market,
    { key: 'price', label: 'Mid price', unit: 'rate', kind: 'rate' },
    { key: 'timestamp', label: 'As of', kind: 'time' },
  ],
  ...ranked(['market', 'price', 'timestamp'], []),
};

type PerSide = { buy: number; sell: number };

/** `hedge markets`: capacity and carry per side come nested (`available_capacity_usd.buy`) and are shown as a column per side. */
export function marketsResource(carryText?: (ratePerDay: number, compact?: boolean) => string): Resource {
  const capacity = (which: keyof PerSide): FieldSpec => ({
    key: `capacity_${which}_usd`,
    label: `Capacity ${which}`,
    unit: 'USD',
    kind: 'money',
    decimals: 0,
    covers: ['available_capacity_usd'],
    aliases: [`available_capacity_usd.${which}`],
    get: (row) => (row.available_capacity_usd as PerSide | undefined)?.[which],
  });
  const carry = (which: keyof PerSide): FieldSpec => ({
    key: `carry_${which}_daily_pct`,
    label: `Carry/day ${which}`,
    kind: carryText ? 'text' : 'percent',
    covers: ['net_rate_daily_pct'],
    // The same words whether the column is asked for as carry_sell_daily_pct or net_rate_daily_pct.sell.
    aliases: [`net_rate_daily_pct.${which}`],
    get: (row) => {
      const rate = (row.net_rate_daily_pct as PerSide | undefined)?.[which];
      return carryText && typeof rate === 'number' ? carryText(rate) : rate;
    },
    // A narrow table: the signed rate alone (the note under the table says what the sign means).
    compact: (row) => {
      const rate = (row.net_rate_daily_pct as PerSide | undefined)?.[which];
      return carryText && typeof rate === 'number' ? carryText(rate, true) : rate;
    },
  });
  return {
    fields: [
      market,
      { key: 'status', label: 'Status', kind: 'status' },
      { key: 'price', label: 'Price', unit: 'rate', kind: 'rate' },
      capacity('buy'),
      capacity('sell'),
      carry('buy'),
      carry('sell'),
    ],
    // Every column is one the desk decides on: whether the market trades, at what price, how much each side can take and what it costs to hold; at 80 columns all are kept.
    ...ranked(
      [
        'market',
        'status',
        'price',
        'capacity_buy_usd',
        'capacity_sell_usd',
        'carry_buy_daily_pct',
        'carry_sell_daily_pct',
      ],
      [],
    ),
  };
}

// ---- profiles --------------------------------------------------------------------------------

/**
 * `hedge profile list` (rows of config/profile-view.ts): one column order in every format; on a screen the current
 * profile is marked with `*` (the `current` column is left out) and LIVE is red.
 */
export function profilesResource(
  c: ChalkInstance,
  forPeople: boolean,
  environmentLabel: (environment: 'live' | 'test' | null) => string,
): Resource {
  return {
    fields: [
      { key: 'name', label: 'Profile', style: (text, row) => (row.current ? c.bold(`* ${text}`) : `  ${text}`) },
      { key: 'current', label: 'Current' },
      {
        key: 'environment',
        label: 'Environment',
        get: (row) => (forPeople ? (row.environment ?? 'none') : row.environment),
        style: (_text, row) => environmentLabel((row.environment as 'live' | 'test' | null | undefined) ?? null),
      },
      { key: 'base_url', label: 'Base URL', kind: 'text' },
      {
        key: 'api_key',
        label: 'API key',
        // Where the key lives beside it, for a key that is not in the file (the keyring, a helper).
        get: (row) =>
          forPeople
            ? row.api_key
              ? `${row.api_key}${row.key_store === 'keyring' ? ' (keyring)' : row.key_store === 'command' ? ' (helper)' : ''}`
              : 'logged out'
            : row.api_key,
        style: (text, row) => (row.api_key ? text : c.dim(text)),
      },
      { key: 'ca_file', label: 'CA file', kind: 'text' },
      { key: 'journal_url', label: 'Journal store', kind: 'text' },
      { key: 'saved_at', label: 'Saved', kind: 'time' },
      { key: 'key_store', label: 'Key stored in', kind: 'text' },
    ],
    table: ['name', 'environment', 'base_url', 'api_key', 'ca_file', 'journal_url', 'saved_at'],
    priority: [
      'name',
      'environment',
      'api_key',
      'base_url',
      'saved_at',
      'ca_file',
      'journal_url',
      'current',
      'key_store',
    ],
  };
}

// ---- the journal -----------------------------------------------------------------------------

/** `hedge journal` rows (ui/journal-fields.ts makes them from the entries). */
export const JOURNAL_RESOURCE: Resource = {
  fields: [
    { key: 'id', label: 'ID', kind: 'id' },
    { key: 'created_at', label: 'Time', kind: 'time' },
    { key: 'command', label: 'Command' },
    market,
    side,
    reference,
    notional,
    { key: 'outcome', label: 'Outcome', kind: 'status' },
    { key: 'hedge_id', label: 'Hedge ID', kind: 'id' },
    { key: 'environment', label: 'Where' },
    // The machine that began it: a team store holds several desks' actions.
    { key: 'host', label: 'Host' },
    // `unverified`: an unresolved row whose seal does not verify under this key (never sent again).
    { key: 'seal', label: 'Seal' },
  ],
  // The entry (its id, for `journal show`), the action with its side, deal and notional, how it ended (and a seal that
  // fails), then when: kept at 80 columns, the time without its "(5s ago)" where the width is short.
  ...ranked(
    ['id', 'command', 'side', 'client_reference', 'notional_usd', 'outcome', 'seal', 'created_at'],
    ['market', 'hedge_id', 'environment', 'host'],
  ),
};

// ---- plan and apply --------------------------------------------------------------------------

/** `hedge plan` / `hedge apply`: a line per step (numbered, in execution order) or per side already at target. */
export const PLAN_RESOURCE: Resource = {
  fields: [
    { key: 'step', label: '#', kind: 'count' },
    market,
    side,
    { key: 'current_usd', label: 'Current', kind: 'money' },
    { key: 'target_usd', label: 'Target', kind: 'money' },
    { key: 'action', label: 'Action' },
    { key: 'delta_usd', label: 'Change', kind: 'pnl' },
    { key: 'tenor_days', label: 'Days', kind: 'count' },
    { key: 'margin_usdc', label: 'Margin', kind: 'money' },
    { key: 'fee_usdc', label: 'Fee', kind: 'pnl' },
    { key: 'carry_usdc', label: 'Carry', kind: 'pnl' },
    { key: 'line', label: 'Line', kind: 'count' },
    {
      key: 'change',
      label: 'Change',
      kind: 'pnl',
      screenOnly: true,
      get: (row) => (row.action === 'none' ? undefined : row.delta_usd),
    },
  ],
  table: [
    'step',
    'market',
    'side',
    'current_usd',
    'target_usd',
    'action',
    'change',
    'tenor_days',
    'margin_usdc',
    'fee_usdc',
    'carry_usdc',
  ],
  priority: [
    'market',
    'side',
    'target_usd',
    'action',
    'change',
    'current_usd',
    'margin_usdc',
    'step',
    'carry_usdc',
    'fee_usdc',
    'tenor_days',
    'delta_usd',
    'line',
  ],
};

/** What `hedge apply` did, step by step. */
export const APPLY_RESOURCE: Resource = {
  fields: [
    { key: 'step', label: '#', kind: 'count' },
    { key: 'action', label: 'Action' },
    market,
    side,
    { key: 'delta_usd', label: 'Change', unit: 'USD', kind: 'pnl' },
    { key: 'outcome', label: 'Outcome', kind: 'status' },
    { key: 'hedge_id', label: 'Hedge', kind: 'id' },
    { key: 'journal_id', label: 'Journal', kind: 'id' },
  ],
  priority: ['action', 'market', 'side', 'outcome', 'delta_usd', 'step', 'hedge_id', 'journal_id'],
};

// ---- the agent's tools -------------------------------------------------------------------------

export const TOOL_RESOURCE: Resource = {
  fields: [
    { key: 'name', label: 'Tool' },
    { key: 'tier', label: 'Tier' },
    { key: 'offered', label: 'Offered' },
    { key: 'arguments', label: 'Arguments', kind: 'text' },
  ],
  priority: ['name', 'tier', 'offered', 'arguments'],
};

/** `fields` with `extra` inserted right after the field named `after`. */
export function insertAfter(fields: FieldSpec[], after: string, extra: FieldSpec[]): FieldSpec[] {
  const index = fields.findIndex((field) => field.key === after);
  return index < 0 ? [...fields, ...extra] : [...fields.slice(0, index + 1), ...extra, ...fields.slice(index + 1)];
}
