// How the outcome of open, add, reduce and close reads: a card on a terminal, `field<TAB>value`
// lines in plain mode, and under --json exactly one document (the final hedge, the side after an
// add or reduce, or the submitted record with --no-wait). Everything goes through the output layer.
import { type PositionFacts, historyRecordForPeople } from '../api/wire/fields.js';
import type { HistoryRecord, Quote } from '../api/schemas.js';
import {
  betterOrWorse,
  formatSignedAmount,
  impliedAdditionPrice,
  payOrEarn,
  priceFavourBps,
  toAccountSide,
} from '../../core/money.js';
import { fieldTable, type FieldSpec } from '../fields/fields.js';
import { HEDGE_FIELDS, POSITION_FIELDS, REALIZED_FIELDS } from '../fields/resource-fields.js';
import { formatBps, formatDays, formatMoney, formatPercent, formatRate } from '../terminal/format.js';
import type { Output } from '../terminal/output.js';
import { safeText } from '../../core/security/safe-text.js';
import { impactForAccount, priceUnit } from './quote-card.js';
import { wrapWords } from '../terminal/width.js';

/** The hedge as opened, with the quote's execution price and the slippage beside the struck rate. */
export const OPENED_FIELDS = HEDGE_FIELDS.flatMap((field) =>
  field.key === 'struck_rate'
    ? [
        field,
        ...fieldTable(`
          quoted_execution_price  Quoted price       rate
          slippage_bps            Slippage vs quote  text`),
      ]
    : [field],
);

/** What an add or reduce prints for scripts: the side after it, the server's answer and the hedge it named. */
export const CHANGED_SIDE_FIELDS = [
  ...POSITION_FIELDS,
  ...fieldTable(`
    hedge   Hedge
    answer  Answer`),
];

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

/**
 * Slippage of a fill against the quote, in basis points of the quoted price, on the account's side
 * (docs/output.md "Sign convention"): positive when the fill is better than quoted (a buy struck below the
 * quote, a sell above it), negative when worse. Rounded to a hundredth of a basis point.
 */
export function slippageBps(side: 'buy' | 'sell', filledPrice: number, quotedPrice: number): number {
  return Math.round(priceFavourBps(side, filledPrice, quotedPrice) * 100) / 100;
}

function slippageText(bps: number) {
  const rounded = Math.round(bps * 10) / 10;
  return `${formatBps(rounded)}, ${betterOrWorse(rounded, 'quoted', 'as quoted')}`;
}

/** The hedge, with the quote's execution price and the slippage beside the struck rate. */
export function renderHedge(
  output: Output,
  hedge: Record<string, unknown>,
  options: { title: string; quote?: Quote; footer?: string[] },
) {
  if (output.isJson) {
    output.json(hedge);
    return;
  }
  const record: Record<string, unknown> = { ...hedge };
  const struck = hedge.struck_rate;
  const quoted = options.quote?.pricing.execution_price;
  if (typeof quoted === 'number') record.quoted_execution_price = quoted;
  if (
    typeof struck === 'number' &&
    typeof quoted === 'number' &&
    quoted > 0 &&
    (hedge.side === 'buy' || hedge.side === 'sell')
  ) {
    const bps = slippageBps(hedge.side, struck, quoted);
    record.slippage_bps = output.isHuman ? slippageText(bps) : bps;
  }
  output.record(record, OPENED_FIELDS, { title: options.title, footer: options.footer });
}

/** `--no-wait`: the record the write returned, status `submitted`. */
export function renderSubmitted(
  output: Output,
  submitted: Record<string, unknown>,
  options: { title: string; footer?: string[] },
) {
  if (output.isJson) {
    output.json(submitted);
    return;
  }
  const fields = 'hedge_id' in submitted ? SUBMITTED_FIELDS.filter((field) => field.key !== 'id') : SUBMITTED_FIELDS;
  output.record(submitted, fields, { title: options.title, footer: options.footer });
}

export const CLOSE_FIELDS = [
  ...fieldTable(`
    hedge_id          Hedge ID
    client_reference  Client reference
    status            Status                status
    market            Market
    side              Side                  side
    notional_usd      Notional (USD)        money
    tenor_days        Tenor (days)          count
    order_tx_hash     Close tx              hash
    net_margin_usd    Returned (est., USD)  money`),
  ...REALIZED_FIELDS,
  ...fieldTable(`
    close_reason  Close reason
    opened_at     Opened           time
    submitted_at  Close submitted  time
    closed_at     Closed           time
    action        Action`),
];

export interface ClosedSummary extends Record<string, unknown> {
  status: 'closed';
  net_margin_usd: number | null;
  realized: HistoryRecord | null;
}

/**
 * The close: what it returned and, when the history record came in time, the realized figures.
 * JSON carries the same as one object; people get one card.
 */
export function renderClosed(output: Output, summary: ClosedSummary) {
  if (output.isJson) {
    // The history record it embeds is a server object like `hedge history`'s: in the one shape,
    // under our names with nothing it sent lost; --raw prints it as sent.
    output.json(
      output.inOneShape && summary.realized
        ? { ...summary, realized: historyRecordForPeople(summary.realized) }
        : summary,
    );
    return;
  }
  const { realized, ...rest } = summary;
  const record: Record<string, unknown> = { ...rest };
  if (realized) {
    for (const [key, value] of Object.entries(realized)) {
      // The record's own figures, without repeating what the close already says.
      if (!(key in record) || key === 'notional_usd' || key === 'closed_at') record[key] = value;
    }
  }
  const footer: string[] = [];
  let fields = CLOSE_FIELDS;
  if (output.isHuman) {
    // Carry and fees on the account's side, with words (docs/output.md "Sign convention"); the record
    // signs them as paid-positive, and plain/JSON keep that.
    const worded = (field: FieldSpec, label: string): FieldSpec => ({ ...field, label, kind: 'text', unit: undefined });
    fields = CLOSE_FIELDS.map((field) =>
      field.key === 'carry_usdc' ? worded(field, 'Carry') : field.key === 'fees_usdc' ? worded(field, 'Fees') : field,
    );
    for (const key of ['carry_usdc', 'fees_usdc']) {
      const value = record[key];
      if (typeof value === 'number') record[key] = payOrEarn(toAccountSide(value), 'USDC', { realized: true });
    }
    if (typeof summary.net_margin_usd === 'number') {
      footer.push(
        output.chalk.dim(
          'Returned (est.) is the net margin the position showed just before the close; `hedge account` shows the balance.',
        ),
      );
    }
    if (!realized)
      footer.push(
        output.chalk.dim('The realized figures were not in the history yet; see `hedge history` in a moment.'),
      );
    // A card fits 24 rows at 80 columns with its title on screen: the title says what it is (market
    // and side), so rows that only repeat it go — the action, the market and side, a close reason
    // that is the status again.
    const title = [record.market, record.side].every((value) => typeof value === 'string')
      ? `Position closed: ${safeText(String(record.market))} ${safeText(String(record.side))}`
      : 'Position closed';
    const repeats = new Set([
      'action',
      ...(title === 'Position closed' ? [] : ['market', 'side']),
      ...(record.close_reason === record.status ? ['close_reason'] : []),
    ]);
    for (const key of repeats) delete record[key];
    output.record(
      record,
      fields.filter((field) => !repeats.has(field.key)),
      { title, footer },
    );
    return;
  }
  output.record(record, fields, { title: 'Position closed', footer });
}

/** What a position showed, read tolerantly from the positions list (api/wire/fields.ts). */
export type PositionFigures = Pick<
  PositionFacts,
  | 'notionalUsd'
  | 'entryPrice'
  | 'marginUsdc'
  | 'netMarginUsd'
  | 'netPnlUsd'
  | 'accruedCarryUsdc'
  | 'hedgeId'
  | 'maturityAt'
>;

/**
 * Before an add is confirmed: what the added notional costs, from a quote for that size. The
 * addition keeps the hedge's maturity, so carry is per day and, when the maturity is known, to it.
 */
export function renderAdditionQuote(
  output: Output,
  quote: Quote,
  context: { maturityAt?: string; daysLeft?: number; position?: PositionFigures },
) {
  const unit = priceUnit(quote.market);
  const days = context.daysLeft;
  const carryPerDay = toAccountSide(quote.carry.daily_usdc);
  const fee = toAccountSide(quote.upfront.platform_fee_usdc);
  if (!output.isHuman) {
    output.note(
      `Quote for the addition (indicative): execution ${formatRate(quote.pricing.execution_price)}${unit}, margin ${formatMoney(quote.upfront.required_margin_usdc)} USDC, ` +
        `fee ${payOrEarn(fee, 'USDC')}, carry ${payOrEarn(carryPerDay, 'USDC', { per: '/day' })}.`,
    );
    return;
  }
  const c = output.chalk;
  const { usd: impact, bps } = impactForAccount(quote);
  const impactText = `${formatSignedAmount(impact)} USD${bps === undefined ? '' : ` (${formatBps(bps)})`}, ${betterOrWorse(impact, 'the market price', 'none')}`;
  const entry = context.position?.entryPrice;
  const rows: Array<[string, string]> = [
    ['Market price', `${formatRate(quote.pricing.market_price)}${unit}`],
    [
      'Execution price',
      `${formatRate(quote.pricing.execution_price)}${unit}${entry === undefined ? '' : c.dim(` (position entry ${formatRate(entry)})`)}`,
    ],
    ['Price impact', impact < 0 ? c.red(impactText) : impact > 0 ? c.green(impactText) : impactText],
    ['Required margin', `${formatMoney(quote.upfront.required_margin_usdc)} USDC`],
    ['Platform fee', payOrEarn(fee, 'USDC')],
    ['Total upfront', c.bold(`${formatMoney(quote.upfront.total_upfront_usdc)} USDC`)],
    ['Carry per day', payOrEarn(carryPerDay, 'USDC', { per: '/day' })],
  ];
  if (days !== undefined) {
    rows.push([
      `Carry to maturity (est.)`,
      `${payOrEarn(carryPerDay * days, 'USDC')} ${c.dim(`(${formatDays(days)} left)`)}`,
    ]);
  }
  if (context.maturityAt)
    rows.push(['Maturity (unchanged)', output.humanValue({ key: 'maturity_at', kind: 'time' }, context.maturityAt)]);
  const title = `Adding ${formatMoney(quote.notional_usd)} USD to ${quote.market} ${quote.side}${context.position?.notionalUsd === undefined ? '' : ` (now ${formatMoney(context.position.notionalUsd)} USD)`}`;
  output.write(
    `${output.card(rows, title)}\n${c.dim(wrapWords('Indicative only: the addition executes at the price when it lands.', output.columns))}`,
  );
}

/** What an add or reduce did, from the positions list before and after (and the account's balance for a reduce). */
export interface PositionChange {
  action: 'add' | 'reduce';
  market: string;
  side: 'buy' | 'sell';
  changeUsd: number;
  before?: PositionFigures;
  after?: PositionFigures;
  orderTxHash?: string;
  quotedPrice?: number;
  balanceBeforeUsdc?: number;
  balanceAfterUsdc?: number;
}

function beforeAfter(
  before: number | undefined,
  after: number | undefined,
  format: (value: number) => string,
  unit: string,
) {
  if (before === undefined && after === undefined) return undefined;
  if (before === undefined) return `${format(after!)} ${unit}`;
  if (after === undefined) return `${format(before)} ${unit} → —`;
  if (format(before) === format(after)) return `${format(after)} ${unit} (unchanged)`;
  return `${format(before)} → ${format(after)} ${unit}`;
}

function derived(change: PositionChange): {
  addedAt?: number;
  share?: number;
  returned?: number;
  realizedNet?: number;
  realizedCarry?: number;
  balance?: number;
} {
  const { before, after } = change;
  const result: ReturnType<typeof derived> = {};
  if (change.action === 'add') {
    if (
      before?.notionalUsd !== undefined &&
      before.entryPrice !== undefined &&
      after?.notionalUsd !== undefined &&
      after.entryPrice !== undefined
    ) {
      result.addedAt = impliedAdditionPrice(
        before as Required<Pick<PositionFigures, 'notionalUsd' | 'entryPrice'>>,
        after as Required<Pick<PositionFigures, 'notionalUsd' | 'entryPrice'>>,
      );
    }
    return result;
  }
  if (before?.notionalUsd !== undefined && before.notionalUsd > 0) {
    const share = Math.min(1, change.changeUsd / before.notionalUsd);
    result.share = share;
    if (before.netMarginUsd !== undefined) result.returned = before.netMarginUsd * share;
    if (before.netPnlUsd !== undefined) result.realizedNet = before.netPnlUsd * share;
    if (before.accruedCarryUsdc !== undefined) result.realizedCarry = toAccountSide(before.accruedCarryUsdc * share);
  }
  if (change.balanceBeforeUsdc !== undefined && change.balanceAfterUsdc !== undefined)
    result.balance = change.balanceAfterUsdc - change.balanceBeforeUsdc;
  return result;
}

/** After an add or a partial reduce landed: the position before → after (notional, entry, margin) */
export function renderPositionChange(output: Output, change: PositionChange, footer: string[] = []) {
  const { before, after } = change;
  const unit = priceUnit(change.market);
  const figures = derived(change);
  const notional = beforeAfter(before?.notionalUsd, after?.notionalUsd, formatMoney, 'USD');
  const entry = beforeAfter(before?.entryPrice, after?.entryPrice, (value) => formatRate(value), unit.trim());
  const margin = beforeAfter(before?.marginUsdc, after?.marginUsdc, formatMoney, 'USDC');
  const slippage =
    figures.addedAt !== undefined && change.quotedPrice !== undefined
      ? slippageBps(change.side, figures.addedAt, change.quotedPrice)
      : undefined;
  const slippageWords = slippage === undefined ? '' : slippageText(slippage);

  if (!output.isHuman) {
    const parts = [
      notional && `notional ${notional}`,
      entry && `entry ${entry}`,
      margin && `margin ${margin}`,
      figures.addedAt !== undefined &&
        `added at about ${formatRate(figures.addedAt)}${slippageWords ? ` (${slippageWords})` : ''}`,
      figures.returned !== undefined && `returned (est.) ${formatSignedAmount(figures.returned)} USD`,
      figures.realizedNet !== undefined && `realized net P&L (est.) ${formatSignedAmount(figures.realizedNet)} USD`,
      figures.realizedCarry !== undefined &&
        `carry (est.) ${payOrEarn(figures.realizedCarry, 'USDC', { realized: true })}`,
      figures.balance !== undefined && `balance ${formatSignedAmount(figures.balance)} USDC`,
    ].filter(Boolean);
    if (parts.length > 0) output.note(`Position after the ${change.action}: ${parts.join('; ')}.`);
    return;
  }

  const c = output.chalk;
  const pnl = (value: number) => output.humanValue({ key: 'pnl', kind: 'pnl' }, value);
  const rows: Array<[string, string | undefined]> = [
    ['Hedge ID', (after ?? before)?.hedgeId],
    ['Notional', notional],
    ['Entry', entry],
    [
      'Added at (implied)',
      figures.addedAt === undefined
        ? undefined
        : `${formatRate(figures.addedAt)}${unit}${slippageWords ? `, ${slippageWords}` : ''}${change.quotedPrice === undefined ? '' : c.dim(` (quoted ${formatRate(change.quotedPrice)})`)}`,
    ],
    ['Margin', margin],
    [
      'Returned (est.)',
      figures.returned === undefined ? undefined : `${formatSignedAmount(figures.returned)} USD to your balance`,
    ],
    ['Realized net P&L (est.)', figures.realizedNet === undefined ? undefined : `${pnl(figures.realizedNet)} USD`],
    [
      'Carry in it (est.)',
      figures.realizedCarry === undefined ? undefined : payOrEarn(figures.realizedCarry, 'USDC', { realized: true }),
    ],
    [
      'Balance change',
      figures.balance === undefined
        ? undefined
        : `${pnl(figures.balance)} USDC ${c.dim(`(${formatMoney(change.balanceBeforeUsdc!)} → ${formatMoney(change.balanceAfterUsdc!)})`)}`,
    ],
    [
      'Net margin now',
      after?.netMarginUsd === undefined
        ? undefined
        : `${formatMoney(after.netMarginUsd)} USD ${c.dim('(what closing now returns)')}`,
    ],
    [
      'Maturity (unchanged)',
      (after ?? before)?.maturityAt === undefined
        ? undefined
        : output.humanValue({ key: 'maturity_at', kind: 'time' }, (after ?? before)!.maturityAt),
    ],
    [
      `${change.action === 'add' ? 'Add' : 'Reduce'} tx`,
      change.orderTxHash === undefined
        ? undefined
        : output.humanValue({ key: 'order_tx_hash', kind: 'hash' }, change.orderTxHash),
    ],
  ];
  const shown = rows.filter((row): row is [string, string] => row[1] !== undefined);
  const notes = [...footer];
  if (figures.share !== undefined && (figures.returned !== undefined || figures.realizedNet !== undefined)) {
    notes.push(
      `(est.) is ${formatPercent(figures.share * 100, 1).replace(/^\+/, '')} (${formatMoney(change.changeUsd)} of ${formatMoney(before!.notionalUsd!)} USD) of what the position showed just before the reduce; a reduction is proportional.`,
    );
  }
  if (figures.balance !== undefined)
    notes.push(
      'Balance change is `balance_usdc` before and after: other activity on the account in between counts too.',
    );
  output.write(output.card(shown, `Position after the ${change.action}: ${change.market} ${change.side}`));
  for (const line of notes) output.write(c.dim(wrapWords(line, output.columns)));
}
