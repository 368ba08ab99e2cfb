// Every resource the CLI shows, declared once: its fields (keys, labels, units, kinds — one column order for TSV, CSV and JSON --fields), the order a table shows them in when it differs, and its column priorities: one ordered list, most important first — first what a desk decides on, then the rest.
import type { ChalkInstance } from 'chalk';
import type { FieldKind, FieldSpec } from './fields.js';
import { utcClockMinute } from '../../core/utc-text.js';

export interface Resource {
  fields: FieldSpec[];
  priority: readonly string[];
  /** How many of `priority`'s first keys are what a desk decides on (`ranked`): a narrow table keeps them with headers on two lines and compact cells before leaving one out, and takes the rest only while those read whole. */
  decisive?: number;
  table?: readonly string[];
}

const market = field('market', 'Market');
const side = field('side', 'Side', 'side');
const notional = field('notional_usd', 'Notional', 'money', 'USD');
const tenor = field('tenor_days', 'Tenor', 'count', 'days');
/** The caller's own deal id (the spec's `client_reference`): "Ref" wherever a list shows it. */
const reference = field('client_reference', 'Ref', 'text');

/** A list's priorities in two tiers: what a desk decides on, most important first, then the rest (ui/table.ts: `TableInput.decisive`). */
function ranked(decides: string, rest = ''): Pick<Resource, 'priority' | 'decisive'> {
  return { priority: words(`${decides} ${rest}`), decisive: words(decides).length };
}

function words(keys: string) {
  return keys.split(' ').filter(Boolean);
}

function field(key: string, label: string, kind?: FieldKind, unit?: string): FieldSpec {
  return {
    key,
    label,
    ...(unit === undefined ? {} : { unit }),
    ...(kind === undefined ? {} : { kind }),
  };
}

/** The priorities for these rows: when they hold more than one market, the market joins the columns the desk decides on, first (a side means nothing without it); with one market, the rates' unit in the headers (`Entry NGN/USDT`) names it and its column is one of the rest. */
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

/** A hedge, in the one column order of `hedge hedges` (list and ID; TSV, CSV and table alike): what identifies it and what it is, then times, then the on-chain details (hashes whole in TSV, CSV and JSON; shortened on screen). */
export const HEDGE_FIELDS: FieldSpec[] = [
  field('id', 'Hedge ID', 'id'),
  reference,
  market,
  side,
  notional,
  tenor,
  field('status', 'Status', 'status'),
  field('struck_rate', 'Struck', 'rate', 'rate'),
  { key: 'opened_at', label: 'Opened', kind: 'time', relativeWhen: runningHedge },
  { key: 'maturity_at', label: 'Maturity', kind: 'time', relativeWhen: runningHedge },
  { key: 'filled_at', label: 'Filled', kind: 'time', relativeWhen: () => false },
  { key: 'closed_at', label: 'Closed', kind: 'time', relativeWhen: () => false },
  field('units', 'Units', 'count'),
  field('order_key', 'Order key', 'hash'),
  field('order_tx_hash', 'Order tx', 'hash'),
  field('fill_tx_hash', 'Fill tx', 'hash'),
];

/** The id names the record (`hedge hedges ID`): first, shortened in the middle rather than dropped. */
export const HEDGE_RESOURCE: Resource = {
  fields: HEDGE_FIELDS,
  ...ranked(
    'id side client_reference notional_usd struck_rate status maturity_at',
    'market tenor_days opened_at filled_at closed_at units order_key order_tx_hash fill_tx_hash',
  ),
};

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
  field('entry_price', 'Entry', 'rate', 'rate'),
  field('mark_price', 'Mark', 'rate', 'rate'),
  field('gross_pnl_usd', 'Gross P&L', 'pnl', 'USD'),
  field('accrued_carry_usdc', 'Carry', 'charge', 'USDC'),
  field('net_pnl_usd', 'Net P&L', 'pnl', 'USD'),
  field('close_fee_usdc', 'Close fee', 'charge', 'USDC'),
  field('margin_usdc', 'Margin', 'money', 'USDC'),
  field('net_margin_usd', 'Net margin', 'money', 'USD'),
  // Time to maturity, for people: the table's view of maturity_at.
  { key: 'matures_in', label: 'Left', kind: 'countdown', screenOnly: true, get: (row) => row.maturity_at },
  field('maturity_at', 'Maturity', 'utc'),
  field('hedge_id', 'Hedge ID', 'id'),
  field('units', 'Units', 'count'),
  field('opened_at', 'Opened', 'utc'),
];

/** The desk's columns: side, reference, notional, net P&L, entry, mark and time left — all kept at 80 columns whatever the reference's length. */
export const POSITION_RESOURCE: Resource = {
  fields: POSITION_FIELDS,
  ...ranked(
    'side client_reference notional_usd net_pnl_usd entry_price mark_price matures_in',
    'net_margin_usd gross_pnl_usd accrued_carry_usdc close_fee_usdc margin_usdc market maturity_at hedge_id units opened_at',
  ),
};

/** What a closed hedge realized; the spec names only `net_pnl_usd`. */
export const REALIZED_FIELDS: FieldSpec[] = [
  field('entry_price', 'Entry', 'rate', 'rate'),
  field('exit_price', 'Exit', 'rate', 'rate'),
  field('gross_pnl_usd', 'Gross P&L', 'pnl', 'USD'),
  field('carry_usdc', 'Carry', 'charge', 'USDC'),
  field('fees_usdc', 'Fees', 'charge', 'USDC'),
  field('net_pnl_usd', 'Net P&L', 'pnl', 'USD'),
];

/** A footnote mark hedge puts after a closed hedge's notional on screen (ui/history-view.ts): this journal resized the hedge while it was open, so its P&L (the whole life's) is on more than the notional shown. */
export const NOTIONAL_MARK: unique symbol = Symbol('notional_mark');

export const HISTORY_FIELDS: FieldSpec[] = [
  field('hedge_id', 'Hedge ID', 'id'),
  // A record without a reference of its own shows the deal's, joined from its hedge's record (`history --ref`).
  { ...reference, get: joinedReference },
  market,
  side,
  { ...notional, style: (text, row) => text + ((row as Record<PropertyKey, unknown>)[NOTIONAL_MARK] ?? '') },
  tenor,
  field('opened_at', 'Opened', 'utc'),
  field('closed_at', 'Closed', 'utc'),
  field('close_reason', 'How', 'text'),
  ...REALIZED_FIELDS,
];

/** A closed hedge as a desk reads it: side, reference, notional, net P&L, the rates it was struck and closed at, and when it closed — kept at 80 columns; net P&L before the rates, so that it is never the one left out at 60. */
export const HISTORY_RESOURCE: Resource = {
  fields: HISTORY_FIELDS,
  ...ranked(
    'side client_reference notional_usd net_pnl_usd entry_price exit_price closed_at',
    'gross_pnl_usd carry_usdc fees_usdc hedge_id close_reason market tenor_days opened_at',
  ),
};

/** `hedge maturities`: the flat list in TSV, CSV and JSON --fields (in this order); the table shows the time of day and the time left instead of the day and the exact time (a line per day above its settlements says the date). */
export const MATURITY_RESOURCE: Resource = {
  fields: [
    field('day', 'Day'),
    field('maturity_at', 'Maturity', 'utc'),
    field('matures_in_seconds', 'Matures in (s)', 'count'),
    market,
    side,
    notional,
    tenor,
    field('hedge_id', 'Hedge ID', 'id'),
    reference,
    field('mark_price', 'Mark', 'rate', 'rate'),
    field('net_pnl_usd', 'P&L', 'pnl', 'USD'),
    field('accrued_carry_usdc', 'Carry', 'charge', 'USDC'),
    {
      key: 'time',
      label: 'UTC',
      kind: 'text',
      screenOnly: true,
      get: (row) => (typeof row.maturity_at === 'string' ? utcClockMinute(row.maturity_at) : undefined),
    },
    { key: 'left', label: 'Left', kind: 'countdown', screenOnly: true, get: (row) => row.maturity_at },
  ],
  table: words(
    'time left market side client_reference notional_usd net_pnl_usd accrued_carry_usdc mark_price tenor_days hedge_id',
  ),
  // A schedule: when (the day is the line above) and how long is left come first.
  ...ranked(
    'time left side client_reference notional_usd net_pnl_usd mark_price',
    'accrued_carry_usdc market hedge_id tenor_days',
  ),
};

/** The spec names only `balance_usdc` and `available_exposure_usd`; the rest follows the wire contract. */
export const ACCOUNT_FIELDS: FieldSpec[] = [
  field('balance_usdc', 'Balance, free (USDC)', 'money'),
  field('margin_in_use_usdc', 'Margin in use (USDC)', 'money'),
  field('open_exposure_usd', 'Open exposure (USD)', 'money'),
  field('unrealized_pnl_usd', 'Unrealized P&L (USD)', 'pnl'),
  field('open_positions', 'Open positions', 'count'),
  field('available_exposure_usd', 'Available exposure (USD)', 'money'),
  field('exposure_cap_usd', 'Exposure cap (USD)', 'money'),
];

/** `hedge price`: the indicative mid rate per market (GET /prices). */
export const PRICE_RESOURCE: Resource = {
  fields: [market, field('price', 'Mid price', 'rate', 'rate'), field('timestamp', 'As of', 'time')],
  ...ranked('market price timestamp'),
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
      field('status', 'Status', 'status'),
      field('price', 'Price', 'rate', 'rate'),
      capacity('buy'),
      capacity('sell'),
      carry('buy'),
      carry('sell'),
    ],
    // Every column is one the desk decides on: whether the market trades, at what price, how much each side can take and what it costs to hold; at 80 columns all are kept.
    ...ranked('market status price capacity_buy_usd capacity_sell_usd carry_buy_daily_pct carry_sell_daily_pct'),
  };
}

/** `hedge profile list` (rows of config/profile-view.ts): one column order in every format; on a screen the current profile is marked with `*` (the `current` column is left out) and LIVE is red. */
export function profilesResource(
  c: ChalkInstance,
  forPeople: boolean,
  environmentLabel: (environment: 'live' | 'test' | null) => string,
): Resource {
  return {
    fields: [
      { key: 'name', label: 'Profile', style: (text, row) => (row.current ? c.bold(`* ${text}`) : `  ${text}`) },
      field('current', 'Current'),
      {
        key: 'environment',
        label: 'Environment',
        get: (row) => (forPeople ? (row.environment ?? 'none') : row.environment),
        style: (_text, row) => environmentLabel((row.environment as 'live' | 'test' | null | undefined) ?? null),
      },
      field('base_url', 'Base URL', 'text'),
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
      field('ca_file', 'CA file', 'text'),
      field('journal_url', 'Journal store', 'text'),
      field('saved_at', 'Saved', 'time'),
      field('key_store', 'Key stored in', 'text'),
    ],
    table: words('name environment base_url api_key ca_file journal_url saved_at'),
    priority: words('name environment api_key base_url saved_at ca_file journal_url current key_store'),
  };
}

/** `hedge journal` rows (ui/journal-fields.ts makes them from the entries). */
export const JOURNAL_RESOURCE: Resource = {
  fields: [
    field('id', 'ID', 'id'),
    field('created_at', 'Time', 'time'),
    field('command', 'Command'),
    market,
    side,
    reference,
    notional,
    field('outcome', 'Outcome', 'status'),
    field('hedge_id', 'Hedge ID', 'id'),
    field('environment', 'Where'),
    // The machine that began it: a team store holds several desks' actions.
    field('host', 'Host'),
    // `unverified`: an unresolved row whose seal does not verify under this key (never sent again).
    field('seal', 'Seal'),
  ],
  // The entry (its id, for `journal show`), the action with its side, deal and notional, how it ended (and a seal that fails), then when: kept at 80 columns, the time without its "(5s ago)" where the width is short.
  ...ranked(
    'id command side client_reference notional_usd outcome seal created_at',
    'market hedge_id environment host',
  ),
};

/** `hedge plan` / `hedge apply`: a line per step (numbered, in execution order) or per side already at target. */
export const PLAN_RESOURCE: Resource = {
  fields: [
    field('step', '#', 'count'),
    market,
    side,
    field('current_usd', 'Current', 'money'),
    field('target_usd', 'Target', 'money'),
    field('action', 'Action'),
    field('delta_usd', 'Change', 'pnl'),
    field('tenor_days', 'Days', 'count'),
    field('margin_usdc', 'Margin', 'money'),
    field('fee_usdc', 'Fee', 'pnl'),
    field('carry_usdc', 'Carry', 'pnl'),
    field('line', 'Line', 'count'),
    {
      key: 'change',
      label: 'Change',
      kind: 'pnl',
      screenOnly: true,
      get: (row) => (row.action === 'none' ? undefined : row.delta_usd),
    },
  ],
  table: words('step market side current_usd target_usd action change tenor_days margin_usdc fee_usdc carry_usdc'),
  priority: words(
    'market side target_usd action change current_usd margin_usdc step carry_usdc fee_usdc tenor_days delta_usd line',
  ),
};

/** What `hedge apply` did, step by step. */
export const APPLY_RESOURCE: Resource = {
  fields: [
    field('step', '#', 'count'),
    field('action', 'Action'),
    market,
    side,
    field('delta_usd', 'Change', 'pnl', 'USD'),
    field('outcome', 'Outcome', 'status'),
    field('hedge_id', 'Hedge', 'id'),
    field('journal_id', 'Journal', 'id'),
  ],
  priority: words('action market side outcome delta_usd step hedge_id journal_id'),
};

export const TOOL_RESOURCE: Resource = {
  fields: [
    field('name', 'Tool'),
    field('tier', 'Tier'),
    field('offered', 'Offered'),
    field('arguments', 'Arguments', 'text'),
  ],
  priority: words('name tier offered arguments'),
};

/** `fields` with `extra` inserted right after the field named `after`. */
export function insertAfter(fields: FieldSpec[], after: string, extra: FieldSpec[]): FieldSpec[] {
  const index = fields.findIndex((field) => field.key === after);
  return index < 0 ? [...fields, ...extra] : [...fields.slice(0, index + 1), ...extra, ...fields.slice(index + 1)];
}
