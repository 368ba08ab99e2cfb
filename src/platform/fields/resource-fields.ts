// Every resource the CLI shows, declared once: its fields (keys, labels, units, kinds — one column order for TSV, CSV and JSON --fields), the order a table shows them in when it differs, and its column priorities: one ordered list, most important first — first what a desk decides on, then the rest.
import type { ChalkInstance } from 'chalk';
import { fieldTable, type FieldSpec } from './fields.js';
import { utcClockMinute } from '../../core/utc-text.js';
import { statusStanding } from '../../core/vocabulary.js';
import type { JsonObject } from '../../core/objects.js';

export interface Resource {
  fields: FieldSpec[];
  priority: readonly string[];
  /** How many of `priority`'s first keys are what a desk decides on (`ranked`): a narrow table keeps them with headers on two lines and compact cells before leaving one out, and takes the rest only while those read whole. */
  decisive?: number;
  table?: readonly string[];
}

/** A list's priorities in two tiers: what a desk decides on, most important first, then the rest (ui/table.ts: `TableInput.decisive`). */
function ranked(decides: string, rest = '') {
  return { priority: words(`${decides} ${rest}`), decisive: words(decides).length };
}

function words(keys: string) {
  return keys.split(' ').filter(Boolean);
}

/** The priorities for these rows: when they hold more than one market, the market joins the columns the desk decides on, first (a side means nothing without it); with one market, the rates' unit in the headers (`Entry NGN/USDT`) names it and its column is one of the rest. */
export function rankedFor(resource: Pick<Resource, 'priority' | 'decisive'>, markets: ReadonlyArray<unknown>) {
  const decisive = resource.decisive ?? 0;
  if (decisive === 0 || resource.priority.indexOf('market') < decisive || new Set(markets).size <= 1)
    return { priority: resource.priority, decisive };
  return { priority: ['market', ...resource.priority.filter((key) => key !== 'market')], decisive: decisive + 1 };
}

/** Hedges still able to mature (being opened or filled, in the side model's table): the others show no countdown. */
const runningHedge = (row: JsonObject) =>
  typeof row.status !== 'string' || ['opening', 'filled'].includes(statusStanding(row.status));

/** A hedge, in the one column order of `hedge hedges` (list and ID; TSV, CSV and table alike): what identifies it and what it is, then times, then the on-chain details (hashes whole in TSV, CSV and JSON; shortened on screen). */
export const HEDGE_FIELDS = fieldTable(
  `
  id                Hedge ID   id
  client_reference  Ref        text
  market            Market
  side              Side       side
  notional_usd      Notional   money   USD
  tenor_days        Tenor      count   days
  status            Status     status
  struck_rate       Struck     rate    rate
  opened_at         Opened     time
  maturity_at       Maturity   time
  filled_at         Filled     time
  closed_at         Closed     time
  units             Units      count
  order_key         Order key  hash
  order_tx_hash     Order tx   hash
  fill_tx_hash      Fill tx    hash`,
  {
    opened_at: { relativeWhen: runningHedge },
    maturity_at: { relativeWhen: runningHedge },
    filled_at: { relativeWhen: () => false },
    closed_at: { relativeWhen: () => false },
  },
);

/** The id names the record (`hedge hedges ID`): first, shortened in the middle rather than dropped. */
export const HEDGE_RESOURCE = {
  fields: HEDGE_FIELDS,
  ...ranked(
    'id side client_reference notional_usd struck_rate status maturity_at',
    'market tenor_days opened_at filled_at closed_at units order_key order_tx_hash fill_tx_hash',
  ),
};

/** Joined deal references go under a symbol: JSON never prints one, so `--json` stays the server's data as sent. */
export const JOINED_REFERENCE = Symbol('client_reference');

const joinedReference = (row: JsonObject) =>
  (row as Record<PropertyKey, unknown>)[JOINED_REFERENCE] ?? row.client_reference;

/** The spec names only `net_margin_usd`: what closing now would return. */
export const POSITION_FIELDS = fieldTable(
  `
  market              Market
  side                Side        side
  client_reference    Ref         text
  notional_usd        Notional    money      USD
  entry_price         Entry       rate       rate
  mark_price          Mark        rate       rate
  gross_pnl_usd       Gross P&L   pnl        USD
  accrued_carry_usdc  Carry       charge     USDC
  net_pnl_usd         Net P&L     pnl        USD
  close_fee_usdc      Close fee   charge     USDC
  margin_usdc         Margin      money      USDC
  net_margin_usd      Net margin  money      USD
  matures_in          Left        countdown
  maturity_at         Maturity    utc
  hedge_id            Hedge ID    id
  units               Units       count
  opened_at           Opened      utc`,
  // Time to maturity, for people: the table's view of maturity_at.
  { client_reference: { get: joinedReference }, matures_in: { screenOnly: true, get: (row) => row.maturity_at } },
);

/** The desk's columns: side, reference, notional, net P&L, time left, entry and mark — all kept at 80 columns whatever the reference's length; time left before the rates, so that it is never the one left out at 60. */
export const POSITION_RESOURCE: Resource = {
  fields: POSITION_FIELDS,
  ...ranked(
    'side client_reference notional_usd net_pnl_usd matures_in entry_price mark_price',
    'net_margin_usd gross_pnl_usd accrued_carry_usdc close_fee_usdc margin_usdc market maturity_at hedge_id units opened_at',
  ),
};

/** What a closed hedge realized; the spec names only `net_pnl_usd`. */
export const REALIZED = `
  entry_price    Entry      rate    rate
  exit_price     Exit       rate    rate
  gross_pnl_usd  Gross P&L  pnl     USD
  carry_usdc     Carry      charge  USDC
  fees_usdc      Fees       charge  USDC
  net_pnl_usd    Net P&L    pnl     USD`;

/** A footnote mark hedge puts after a closed hedge's notional on screen (ui/history-view.ts): this journal resized the hedge while it was open, so its P&L (the whole life's) is on more than the notional shown. */
export const NOTIONAL_MARK = Symbol('notional_mark');

export const HISTORY_FIELDS = fieldTable(
  `
  hedge_id          Hedge ID  id
  client_reference  Ref       text
  market            Market
  side              Side      side
  notional_usd      Notional  money  USD
  tenor_days        Tenor     count  days
  opened_at         Opened    utc
  closed_at         Closed    utc
  close_reason      How       text
  ${REALIZED}`,
  {
    // A record without a reference of its own shows the deal's, joined from its hedge's record (`history --ref`).
    client_reference: { get: joinedReference },
    notional_usd: { style: (text, row) => text + ((row as Record<PropertyKey, unknown>)[NOTIONAL_MARK] ?? '') },
  },
);

/** A closed hedge as a desk reads it: side, reference, notional, net P&L, the rates it was struck and closed at, and when it closed — kept at 80 columns; net P&L before the rates, so that it is never the one left out at 60. */
export const HISTORY_RESOURCE = {
  fields: HISTORY_FIELDS,
  ...ranked(
    'side client_reference notional_usd net_pnl_usd entry_price exit_price closed_at',
    'gross_pnl_usd carry_usdc fees_usdc hedge_id close_reason market tenor_days opened_at',
  ),
};

/** `hedge maturities`: the flat list in TSV, CSV and JSON --fields (in this order); the table shows the time of day and the time left instead of the day and the exact time (a line per day above its settlements says the date). */
export const MATURITY_RESOURCE = {
  fields: fieldTable(
    `
    day                 Day
    maturity_at         Maturity        utc
    matures_in_seconds  Matures in (s)  count
    market              Market
    side                Side            side
    notional_usd        Notional        money      USD
    tenor_days          Tenor           count      days
    hedge_id            Hedge ID        id
    client_reference    Ref             text
    mark_price          Mark            rate       rate
    net_pnl_usd         P&L             pnl        USD
    accrued_carry_usdc  Carry           charge     USDC
    time                UTC             text
    left                Left            countdown`,
    {
      time: {
        screenOnly: true,
        get: (row) => (typeof row.maturity_at === 'string' ? utcClockMinute(row.maturity_at) : undefined),
      },
      left: { screenOnly: true, get: (row) => row.maturity_at },
    },
  ),
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
export const ACCOUNT_FIELDS = fieldTable(`
  balance_usdc            Balance, free (USDC)      money
  margin_in_use_usdc      Margin in use (USDC)      money
  open_exposure_usd       Open exposure (USD)       money
  unrealized_pnl_usd      Unrealized P&L (USD)      pnl
  open_positions          Open positions            count
  available_exposure_usd  Available exposure (USD)  money
  exposure_cap_usd        Exposure cap (USD)        money`);

/** `hedge price`: the indicative mid rate per market (GET /prices). */
export const PRICE_RESOURCE = {
  fields: fieldTable(`
    market     Market
    price      Mid price  rate  rate
    timestamp  As of      time`),
  ...ranked('market price timestamp'),
};

type PerSide = { buy: number; sell: number };

/** `hedge markets`: capacity and carry per side come nested (`available_capacity_usd.buy`) and are shown as a column per side. */
export function marketsResource(carryText?: (ratePerDay: number) => string) {
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
  const carry = (which: keyof PerSide): FieldSpec => {
    const rate = (row: JsonObject) => (row.net_rate_daily_pct as PerSide | undefined)?.[which];
    const inWords = (row: JsonObject) => {
      const value = rate(row);
      return typeof value === 'number' ? carryText!(value) : value;
    };
    return {
      key: `carry_${which}_daily_pct`,
      label: `Carry/day ${which}`,
      kind: 'percent',
      covers: ['net_rate_daily_pct'],
      // The same words whether the column is asked for as carry_sell_daily_pct or net_rate_daily_pct.sell.
      aliases: [`net_rate_daily_pct.${which}`],
      get: rate,
      // With its word at any width ("-0.0384% pay"): a sign alone is not a decision.
      onScreen: carryText && { kind: 'text', get: inWords, whole: true },
    };
  };
  return {
    fields: [
      ...fieldTable(`
        market  Market
        status  Status  status
        price   Price   rate    rate`),
      capacity('buy'),
      capacity('sell'),
      carry('buy'),
      carry('sell'),
    ],
    // Every column is one the desk decides on: whether the market trades, at what price, what each side costs to hold
    // (both sides, with their words) and how much each can take; at 80 columns all are kept, at 60 the capacities wait.
    ...ranked('market status price carry_buy_daily_pct carry_sell_daily_pct capacity_buy_usd capacity_sell_usd'),
  };
}

/** `hedge profile list` (rows of config/profiles.ts): one column order in every format; on a screen the current profile is marked with `*` (the `current` column is left out) and LIVE is red. */
export function profilesResource(c: ChalkInstance, environmentLabel: (environment: 'live' | 'test' | null) => string) {
  return {
    fields: fieldTable(
      `
      name         Profile
      current      Current
      environment  Environment
      base_url     Base URL       text
      api_key      API key
      ca_file      CA file        text
      journal_url  Journal store  text
      saved_at     Saved          time
      key_store    Key stored in  text`,
      {
        name: { style: (text, row) => (row.current ? c.bold(`* ${text}`) : `  ${text}`) },
        environment: {
          onScreen: { get: (row) => row.environment ?? 'none' },
          style: (_text, row) => environmentLabel((row.environment as 'live' | 'test' | null | undefined) ?? null),
        },
        api_key: {
          // Where the key lives beside it, for a key that is not in the file (the keyring, a helper).
          onScreen: {
            get: (row) =>
              row.api_key
                ? `${row.api_key}${row.key_store === 'keyring' ? ' (keyring)' : row.key_store === 'command' ? ' (helper)' : ''}`
                : 'logged out',
          },
          style: (text, row) => (row.api_key ? text : c.dim(text)),
        },
      },
    ),
    table: words('name environment base_url api_key ca_file journal_url saved_at'),
    priority: words('name environment api_key base_url saved_at ca_file journal_url current key_store'),
  };
}

/** `hedge journal` rows (ui/journal-fields.ts makes them from the entries). */
export const JOURNAL_RESOURCE = {
  // host: the machine that began it (a team store holds several desks' actions); seal: as stored; seal_check:
  // hedge's verdict on an unresolved row's seal under this key (one that does not verify is never sent again).
  fields: fieldTable(
    `
    id                ID        id
    created_at        Time      time
    command           Command
    market            Market
    side              Side      side
    client_reference  Ref       text
    notional_usd      Notional  money   USD
    outcome           Outcome   status
    hedge_id          Hedge ID  id
    environment       Where
    host              Host
    seal              Seal
    seal_check        Seal`,
    {
      // On screen the verdict in a word: `verified`, or `unverified` (unsealed, forged, another key's).
      seal_check: {
        onScreen: { get: (row) => (row.seal_check === 'verified' ? 'verified' : row.seal_check && 'unverified') },
      },
    },
  ),
  // The entry (its id, for `journal show`), the action with its side, deal and notional, how it ended (and a seal that fails), then when: kept at 80 columns, the time without its "(5s ago)" where the width is short.
  ...ranked(
    'id command side client_reference notional_usd outcome seal_check created_at',
    'market hedge_id environment host seal',
  ),
};

/** `hedge plan` / `hedge apply`: a line per step (numbered, in execution order) or per side already at target. */
export const PLAN_RESOURCE: Resource = {
  fields: fieldTable(
    `
    step            #        count
    market          Market
    side            Side     side
    current_usd     Current  money
    target_usd      Target   money
    action          Action
    delta_usd       Change   pnl
    tenor_days      Days     count
    margin_usdc     Margin   money
    fee_pnl_usdc    Fee      pnl
    carry_pnl_usdc  Carry    pnl
    line            Line     count
    change          Change   pnl`,
    { change: { screenOnly: true, get: (row) => (row.action === 'none' ? undefined : row.delta_usd) } },
  ),
  table: words(
    'step market side current_usd target_usd action change tenor_days margin_usdc fee_pnl_usdc carry_pnl_usdc',
  ),
  priority: words(
    'market side target_usd action change current_usd margin_usdc step carry_pnl_usdc fee_pnl_usdc tenor_days delta_usd line',
  ),
};

export const APPLY_RESOURCE: Resource = {
  fields: fieldTable(`
    step        #        count
    action      Action
    market      Market
    side        Side     side
    delta_usd   Change   pnl     USD
    outcome     Outcome  status
    hedge_id    Hedge    id
    journal_id  Journal  id`),
  priority: words('action market side outcome delta_usd step hedge_id journal_id'),
};

export const TOOL_RESOURCE = {
  fields: fieldTable(`
    name       Tool
    tier       Tier
    offered    Offered
    arguments  Arguments  text`),
  priority: words('name tier offered arguments'),
};
