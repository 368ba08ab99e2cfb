// How the outcome of open, add, reduce and close reads: a card on a terminal, `field<TAB>value`
// lines in plain mode, and under --json exactly one document (the final hedge, or the submitted
// record with --no-wait). Everything goes through the output layer.
import type { HistoryRecord, Quote } from '../api/schemas.js';
import type { FieldSpec } from './fields.js';
import { HEDGE_FIELDS, insertAfter, REALIZED_FIELDS } from './resource-fields.js';
import { formatBps } from './format.js';
import type { Output } from './output.js';


/** The hedge as opened, with the quote's execution price and the slippage beside the struck rate. */
const OPENED_FIELDS: FieldSpec[] = insertAfter(HEDGE_FIELDS, 'struck_rate', [
  { key: 'quoted_execution_price', label: 'Quoted price', kind: 'rate' },
  { key: 'slippage_bps', label: 'Slippage vs quote', kind: 'text' },
]);

const SUBMITTED_FIELDS: FieldSpec[] = [
  { key: 'hedge_id', label: 'Hedge ID' },
  { key: 'id', label: 'Hedge ID' },
  { key: 'action', label: 'Action' },
  { key: 'status', label: 'Status', kind: 'status' },
  { key: 'market', label: 'Market' },
  { key: 'side', label: 'Side', kind: 'side' },
  { key: 'notional_usd', label: 'Notional (USD)', kind: 'money' },
  { key: 'order_tx_hash', label: 'Order tx', kind: 'hash' },
  { key: 'submitted_at', label: 'Submitted', kind: 'time' },
];

/**
 * Slippage of the fill against the quote, in basis points of the quoted price: positive when the
 * struck rate is above the quote. For a buy that is against the operator, for a sell in their favour.
 */
export function slippageBps(struckRate: number, quotedPrice: number): number {
  return ((struckRate - quotedPrice) / quotedPrice) * 10_000;
}

function slippageText(bps: number, side: unknown): string {
  const rounded = Math.round(bps * 10) / 10;
  if (rounded === 0) return `${formatBps(0)} (as quoted)`;
  const against = side === 'buy' ? rounded > 0 : rounded < 0;
  return `${formatBps(rounded)} (${against ? 'worse' : 'better'} than quoted)`;
}

/** The hedge, with the quote's execution price and the slippage beside the struck rate. */
export function renderHedge(output: Output, hedge: Record<string, unknown>, options: { title: string; quote?: Quote; footer?: string[] }): void {
  if (output.isJson) {
    output.json(hedge);
    return;
  }
  const record: Record<string, unknown> = { ...hedge };
  const struck = hedge.struck_rate;
  const quoted = options.quote?.pricing.execution_price;
  if (typeof quoted === 'number') record.quoted_execution_price = quoted;
  if (typeof struck === 'number' && typeof quoted === 'number' && quoted > 0) {
    const bps = slippageBps(struck, quoted);
    record.slippage_bps = output.isHuman ? slippageText(bps, hedge.side) : Math.round(bps * 100) / 100;
  }
  output.record(record, OPENED_FIELDS, { title: options.title, footer: options.footer });
}

/** `--no-wait`: the record the write returned, status `submitted`. */
export function renderSubmitted(output: Output, submitted: Record<string, unknown>, options: { title: string; footer?: string[] }): void {
  if (output.isJson) {
    output.json(submitted);
    return;
  }
  const fields = 'hedge_id' in submitted ? SUBMITTED_FIELDS.filter((field) => field.key !== 'id') : SUBMITTED_FIELDS;
  output.record(submitted, fields, { title: options.title, footer: options.footer });
}

const CLOSE_FIELDS: FieldSpec[] = [
  { key: 'hedge_id', label: 'Hedge ID' },
  { key: 'client_reference', label: 'Client reference' },
  { key: 'status', label: 'Status', kind: 'status' },
  { key: 'market', label: 'Market' },
  { key: 'side', label: 'Side', kind: 'side' },
  { key: 'notional_usd', label: 'Notional (USD)', kind: 'money' },
  { key: 'tenor_days', label: 'Tenor (days)', kind: 'count' },
  { key: 'order_tx_hash', label: 'Close tx', kind: 'hash' },
  { key: 'net_margin_usd', label: 'Returned (est., USD)', kind: 'money' },
  ...REALIZED_FIELDS,
  { key: 'close_reason', label: 'Close reason' },
  { key: 'opened_at', label: 'Opened', kind: 'time' },
  { key: 'submitted_at', label: 'Close submitted', kind: 'time' },
  { key: 'closed_at', label: 'Closed', kind: 'time' },
  { key: 'action', label: 'Action' },
];

export interface ClosedSummary extends Record<string, unknown> {
  status: 'closed';
  /** From the position just before closing: what closing was expected to return. */
  net_margin_usd: number | null;
  /** The closed hedge's history record, once it appeared (null when it was not there in time). */
  realized: HistoryRecord | null;
}

/**
 * The close: what it returned and, when the history record came in time, the realized figures.
 * JSON carries the same as one object; people get one card.
 */
export function renderClosed(output: Output, summary: ClosedSummary): void {
  if (output.isJson) {
    output.json(summary);
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
  if (output.isHuman) {
    if (typeof summary.net_margin_usd === 'number') {
      footer.push(output.chalk.dim('Returned (est.) is the net margin the position showed just before the close; `hedge account` shows the balance.'));
    }
    if (!realized) footer.push(output.chalk.dim('The realized figures were not in the history yet; see `hedge history` in a moment.'));
  }
  output.record(record, CLOSE_FIELDS, { title: 'Position closed', footer });
}
