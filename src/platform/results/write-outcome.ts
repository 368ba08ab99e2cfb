// How the outcome of one write is shown: a card on a terminal, `field<TAB>value` lines in plain mode, one document
// under --json. Hints name commands through `hedgeCommand`, so that they carry the flags that chose the environment.
import { type PositionFacts, historyRecordForPeople } from '../api/wire/fields.js';
import type { Hedge, HistoryRecord, Quote, SubmittedAction } from '../api/schemas.js';
import { betterOrWorse, impliedAdditionPrice, payOrEarn, priceFavourBps, toAccountSide } from '../../core/money.js';
import { formatMoney, formatRate, formatSignedMoney } from '../../core/number-format.js';
import { fieldTable } from '../fields/fields.js';
import { HEDGE_FIELDS, POSITION_FIELDS, REALIZED } from '../fields/resource-fields.js';
import { formatBps, formatPercent, formatTimeLeft } from '../terminal/format.js';
import type { Output } from '../terminal/output.js';
import { safeText } from '../../core/security/safe-text.js';
import { priceRows, priceUnit, upfrontRows } from './quote-card.js';
import type { JsonObject } from '../../core/objects.js';

/** The hedge as opened, its id under `hedge_id` (as positions, close and history name it), with the quote's execution price and the slippage beside the struck rate. */
export const OPENED_FIELDS = HEDGE_FIELDS.flatMap((field) =>
  field.key === 'id'
    ? // Scripts get the server's `id` too (at the end); a person's card shows the id once.
      [{ ...field, key: 'hedge_id', onScreen: { covers: ['id'] } }]
    : field.key === 'struck_rate'
      ? [
          field,
          ...fieldTable(
            `
          quoted_execution_price  Quoted price       rate
          slippage_bps            Slippage vs quote  text`,
            // In words to a person; scripts get the basis points.
            {
              slippage_bps: {
                onScreen: {
                  get: (row) =>
                    typeof row.slippage_bps === 'number' ? slippageText(row.slippage_bps) : row.slippage_bps,
                },
              },
            },
          ),
        ]
      : [field],
);

/** What an add or reduce prints for scripts: the side after it, the server's answer and the hedge it named. */
export const CHANGED_SIDE_FIELDS = [
  ...POSITION_FIELDS,
  // A cell holds text (JSON keeps the objects): the hedge as the hedges list names it, the answer as the journal does.
  ...fieldTable(
    `
    hedge   Hedge
    answer  Answer`,
    {
      hedge: { get: (row) => wordsOf(row.hedge, ['id', 'status', 'notional_usd']) },
      answer: { get: (row) => wordsOf(row.answer, ['action', 'status', 'notional_usd', 'order_tx_hash']) },
    },
  ),
];

/** An object's values under `keys`, in that order, as one line of words (none: an empty cell). */
function wordsOf(value: unknown, keys: readonly string[]) {
  if (value === null || typeof value !== 'object') return value;
  const record = value as Record<string, unknown>;
  return keys.flatMap((key) => (record[key] == null ? [] : [String(record[key])])).join(' ');
}

export const SUBMITTED_FIELDS = fieldTable(`
  hedge_id       Hedge ID
  id             Hedge ID
  action         Action
  status         Status          status
  market         Market
  side           Side            side
  notional_usd   Notional (USD)  money
  order_tx_hash  Order tx        hash
  submitted_at   Submitted       time`);

/** In basis points of the quoted price, on the account's side: positive when the fill is better than quoted. */
export function slippageBps(side: 'buy' | 'sell', filledPrice: number, quotedPrice: number) {
  return Math.round(priceFavourBps(side, filledPrice, quotedPrice) * 100) / 100;
}

function slippageText(bps: number) {
  const rounded = Math.round(bps * 10) / 10;
  return `${formatBps(rounded)}, ${betterOrWorse(rounded, 'quoted', 'as quoted')}`;
}

export function renderHedge(output: Output, hedge: Hedge, title: string, quote?: Quote) {
  const record: JsonObject = { hedge_id: hedge.id, ...hedge };
  const struck = hedge.struck_rate;
  const quoted = quote?.pricing.execution_price;
  if (quoted !== undefined) {
    record.quoted_execution_price = quoted;
    if (typeof struck === 'number' && quoted > 0) record.slippage_bps = slippageBps(hedge.side, struck, quoted);
  }
  // JSON: the server's record of the hedge (its `id` kept), its id first under hedge's name for it; --raw: as sent.
  output.record(record, OPENED_FIELDS, {
    title,
    json: output.named(hedge, (sent) => ({ hedge_id: sent.id, ...sent })),
  });
}

export const CLOSE_FIELDS = fieldTable(`
  hedge_id          Hedge ID
  client_reference  Client reference
  status            Status                status
  market            Market
  side              Side                  side
  notional_usd      Notional (USD)        money
  tenor_days        Tenor (days)          count
  order_tx_hash     Close tx              hash
  net_margin_usd    Returned (est., USD)  money
  ${REALIZED}
  close_reason      Close reason
  opened_at         Opened                time
  submitted_at      Close submitted       time
  closed_at         Closed                time
  action            Action`);

/** The close of a side as the close card shows it: the server's answer and what the side showed before it. */
export function renderClosed(
  output: Output,
  answer: SubmittedAction,
  hedgeId: string | undefined,
  estimate?: number,
  realized?: HistoryRecord,
) {
  const summary = {
    ...answer,
    ...(hedgeId && { hedge_id: hedgeId }),
    status: 'closed',
    net_margin_usd: estimate ?? null,
    realized: realized ?? null,
  };
  const record: JsonObject = { ...summary };
  delete record.realized;
  // The record's own figures, without repeating what the close already says.
  for (const [key, value] of Object.entries(realized ? output.named(realized, historyRecordForPeople) : {}))
    if (!(key in record) || key === 'notional_usd' || key === 'closed_at') record[key] = value;
  // The embedded history record is a server object: in the one shape, as `hedge history` gives it; --raw as sent.
  output.record(record, CLOSE_FIELDS, {
    json: output.named(summary, (sent) => ({ ...sent, realized: realized ? historyRecordForPeople(realized) : null })),
    // A person's card, without the rows its title says, and what the figures mean.
    people: (shown) => {
      // A close that ended several hedges names them all in the row that names one.
      if (Array.isArray(record.hedge_ids)) {
        record.hedge_id = record.hedge_ids.join(', ');
        delete record.hedge_ids;
      }
      // A card fits 24 rows at 80 columns: rows that only repeat its title (market and side) go.
      const { market, side } = record;
      const named = typeof market === 'string' && typeof side === 'string';
      const repeats = ['action', ...(named ? ['market', 'side'] : [])];
      if (record.close_reason === record.status) repeats.push('close_reason');
      const title = named ? `Position closed: ${safeText(market)} ${safeText(side)}` : 'Position closed';
      for (const key of repeats) delete record[key];
      const fields = CLOSE_FIELDS.flatMap((field) => {
        if (repeats.includes(field.key)) return [];
        if (field.kind !== 'charge') return [field];
        // Carry and fees on the account's side, with words; plain and JSON keep the record's paid-positive sign.
        const value = record[field.key];
        if (typeof value === 'number') record[field.key] = payOrEarn(toAccountSide(value), { realized: true });
        return [{ ...field, kind: 'text' as const, unit: undefined }];
      });
      const footer = [
        estimate !== undefined &&
          'Returned (est.) is the net margin the position showed just before the close; `hedge account` shows the balance.',
        !realized && 'The realized figures were not in the history yet; see `hedge history` in a moment.',
      ].flatMap((line) => (line ? [shown.chalk.dim(line)] : []));
      shown.record(record, fields, { title, footer });
    },
  });
}

/** An add keeps the hedge's maturity, so its quote's carry is per day and, when the maturity is known, to it. */
export function renderAdditionQuote(
  output: Output,
  {
    quote,
    maturityAt,
    daysLeft: days,
    nowMs,
    position = {},
  }: { quote: Quote; maturityAt?: string; daysLeft?: number; nowMs?: number; position?: Partial<PositionFacts> },
) {
  const carry = toAccountSide(quote.carry.daily_usdc);
  const fee = toAccountSide(quote.upfront.platform_fee_usdc);
  const perDay = payOrEarn(carry, { per: '/day' });
  output.cardOrNote(
    () => {
      const c = output.chalk;
      const entry = position.entryPrice;
      const rows = [
        ...priceRows(output, quote, entry === undefined ? '' : c.dim(` (position entry ${formatRate(entry)})`)),
        ...upfrontRows(output, quote, fee),
        ['Carry per day', perDay],
        // The time left in one measure on both rows: from the same instant, by the same formatter.
        [
          'Carry to maturity (est.)',
          days !== undefined &&
            `${payOrEarn(carry * days)}${maturityAt && nowMs !== undefined ? ` ${c.dim(`(${formatTimeLeft(maturityAt, nowMs)} left)`)}` : ''}`,
        ],
        [
          'Maturity (unchanged)',
          maturityAt ? output.humanValue({ key: 'maturity_at', kind: 'time' }, maturityAt, nowMs) : undefined,
        ],
      ] as const;
      const now = position.notionalUsd === undefined ? '' : ` (now ${formatMoney(position.notionalUsd)} USD)`;
      return output.card(rows, `Adding ${formatMoney(quote.notional_usd)} USD to ${quote.market} ${quote.side}${now}`, [
        c.dim('Indicative only: the addition executes at the price when it lands.'),
      ]);
    },
    `Quote for the addition (indicative): execution ${formatRate(quote.pricing.execution_price)}${priceUnit(quote.market)}, margin ${formatMoney(quote.upfront.required_margin_usdc)} USDC, ` +
      `fee ${payOrEarn(fee)}, carry ${perDay}.`,
  );
}

/** What an add or reduce did, from the positions list before and after (and the account's balance for a reduce). */
interface PositionChange {
  action: 'add' | 'reduce';
  market: string;
  side: 'buy' | 'sell';
  notionalUsd: number;
  before?: Partial<PositionFacts>;
  position?: Partial<PositionFacts>;
  quotedPrice?: number;
  balanceBeforeUsdc?: number;
  balanceAfterUsdc?: number;
  orderTxHash?: string;
}

/** After an add or a partial reduce landed: the position before → after (notional, entry, margin); an add, the price it is implied to have executed at; a reduce, the share of the position it closed, that share of what the position showed, and the balance's change. */
export function renderPositionChange(
  output: Output,
  {
    action,
    market,
    side,
    before = {},
    position,
    notionalUsd,
    quotedPrice,
    balanceBeforeUsdc: from,
    balanceAfterUsdc: to,
    orderTxHash,
  }: PositionChange,
  footer: string[] = [],
) {
  const c = output.chalk;
  const unit = priceUnit(market);
  const shift = (key: 'notionalUsd' | 'entryPrice' | 'marginUsdc', format: (value: number) => string, unit: string) => {
    const [was, now] = [before[key], position?.[key]].map((value) => (value === undefined ? undefined : format(value)));
    if (was === undefined) return now && `${now} ${unit}`;
    if (now === undefined) return `${was} ${unit} → —`;
    return was === now ? `${now} ${unit} (unchanged)` : `${was} → ${now} ${unit}`;
  };
  const notional = shift('notionalUsd', formatMoney, 'USD');
  const entry = shift('entryPrice', formatRate, unit.trim());
  const margin = shift('marginUsdc', formatMoney, 'USDC');
  // NaN where a figure of either side is missing.
  const implied =
    action === 'add'
      ? impliedAdditionPrice(before as Required<PositionFacts>, { ...position } as Required<PositionFacts>)
      : NaN;
  const addedAt = Number.isFinite(implied) ? implied : undefined;
  const share =
    action === 'reduce' && (before.notionalUsd ?? 0) > 0 ? Math.min(1, notionalUsd / before.notionalUsd!) : undefined;
  // What the reduced share of the position showed just before: returned, realized net P&L and the carry in it.
  const [returned, realizedNet, carry] = [before.netMarginUsd, before.netPnlUsd, before.accruedCarryUsdc].map(
    (value) => (share === undefined || value === undefined ? undefined : value * share),
  );
  const carryText = carry === undefined ? undefined : payOrEarn(toAccountSide(carry), { realized: true });
  const balance = action === 'reduce' && from !== undefined && to !== undefined ? to - from : undefined;
  const slippage =
    addedAt !== undefined && quotedPrice !== undefined ? slippageText(slippageBps(side, addedAt, quotedPrice)) : '';
  const parts = [
    notional && `notional ${notional}`,
    entry && `entry ${entry}`,
    margin && `margin ${margin}`,
    addedAt !== undefined && `added at about ${formatRate(addedAt)}${slippage && ` (${slippage})`}`,
    returned !== undefined && `returned (est.) ${formatSignedMoney(returned)} USD`,
    realizedNet !== undefined && `realized net P&L (est.) ${formatSignedMoney(realizedNet)} USD`,
    carryText && `carry (est.) ${carryText}`,
    balance !== undefined && `balance ${formatSignedMoney(balance)} USDC`,
  ].filter(Boolean);
  output.cardOrNote(
    () => {
      const shown = (kind: 'pnl' | 'time' | 'hash', value: unknown) => output.humanValue({ key: kind, kind }, value);
      const hedge = position ?? before;
      const rows = [
        ['Hedge ID', hedge.hedgeId],
        ['Notional', notional],
        ['Entry', entry],
        [
          'Added at (implied)',
          addedAt !== undefined &&
            `${formatRate(addedAt)}${unit}${slippage && `, ${slippage}`}${quotedPrice === undefined ? '' : c.dim(` (quoted ${formatRate(quotedPrice)})`)}`,
        ],
        ['Margin', margin],
        ['Returned (est.)', returned !== undefined && `${formatSignedMoney(returned)} USD to your balance`],
        ['Realized net P&L (est.)', realizedNet !== undefined && `${shown('pnl', realizedNet)} USD`],
        ['Carry in it (est.)', carryText],
        [
          'Balance change',
          balance !== undefined &&
            `${shown('pnl', balance)} USDC ${c.dim(`(${formatMoney(from!)} → ${formatMoney(to!)})`)}`,
        ],
        [
          'Net margin now',
          position?.netMarginUsd !== undefined &&
            `${formatMoney(position.netMarginUsd)} USD ${c.dim('(what closing now returns)')}`,
        ],
        ['Maturity (unchanged)', hedge.maturityAt !== undefined && shown('time', hedge.maturityAt)],
        [`${action === 'add' ? 'Add' : 'Reduce'} tx`, orderTxHash !== undefined && shown('hash', orderTxHash)],
      ] as const;
      const notes = [
        ...footer,
        share !== undefined &&
          (returned !== undefined || realizedNet !== undefined) &&
          `(est.) is ${formatPercent(share * 100, 1).replace(/^\+/, '')} (${formatMoney(notionalUsd)} of ${formatMoney(before.notionalUsd!)} USD) of what the position showed just before the reduce; a reduction is proportional.`,
        balance !== undefined &&
          'Balance change is `balance_usdc` before and after: other activity on the account in between counts too.',
      ];
      return output.card(
        rows,
        `Position after the ${action}: ${market} ${side}`,
        notes.flatMap((line) => (typeof line === 'string' ? [c.dim(line)] : [])),
      );
    },
    parts.length ? `Position after the ${action}: ${parts.join('; ')}.` : undefined,
  );
}
