// How the API's resources are labelled and formatted, defined once for every command that shows
// them. Fields the spec does not name follow the wire contract; anything else the server sends
// is shown after these by the output layer.
import type { FieldSpec } from './fields.js';

// Priorities say what a narrow terminal keeps (0 never goes; higher numbers go first); units go
// after the label on screen ("Notional USD" in a table, "Notional (USD)" on a card).
const market: FieldSpec = { key: 'market', label: 'Market', priority: 0 };
const side: FieldSpec = { key: 'side', label: 'Side', kind: 'side', priority: 0 };
const notional: FieldSpec = { key: 'notional_usd', label: 'Notional', unit: 'USD', kind: 'money', priority: 1 };
const tenor: FieldSpec = { key: 'tenor_days', label: 'Tenor', unit: 'days', kind: 'count', priority: 6 };

/** Hedges still able to mature: the others show no countdown. */
const STILL_RUNNING = new Set(['submitted', 'filled']);
const runningHedge = (row: Record<string, unknown>): boolean => typeof row.status !== 'string' || STILL_RUNNING.has(row.status);

/**
 * A hedge, in the one column order of `hedge hedges` (list and ID; TSV, CSV and table alike):
 * what identifies it and what it is, then times, then the on-chain details (hashes whole in TSV,
 * CSV and JSON; shortened on screen).
 */
export const HEDGE_FIELDS: FieldSpec[] = [
  { key: 'id', label: 'Hedge ID', kind: 'id', priority: 0 },
  { key: 'client_reference', label: 'Ref', kind: 'text', priority: 4 },
  market,
  side,
  notional,
  tenor,
  { key: 'status', label: 'Status', kind: 'status', priority: 0 },
  { key: 'struck_rate', label: 'Struck', unit: 'rate', kind: 'rate', priority: 3 },
  { key: 'opened_at', label: 'Opened', kind: 'time', priority: 7, relativeWhen: runningHedge },
  { key: 'maturity_at', label: 'Maturity', kind: 'time', priority: 2, relativeWhen: runningHedge },
  { key: 'filled_at', label: 'Filled', kind: 'time', priority: 7, relativeWhen: () => false },
  { key: 'closed_at', label: 'Closed', kind: 'time', priority: 7, relativeWhen: () => false },
  { key: 'units', label: 'Units', kind: 'count', priority: 8 },
  { key: 'order_key', label: 'Order key', kind: 'hash', priority: 8 },
  { key: 'order_tx_hash', label: 'Order tx', kind: 'hash', priority: 8 },
  { key: 'fill_tx_hash', label: 'Fill tx', kind: 'hash', priority: 8 },
];

/** The list shows the same fields as the detail, in the same order. */
export const HEDGE_LIST_FIELDS: FieldSpec[] = HEDGE_FIELDS;

/** The spec names only `net_margin_usd`: what closing now would return. */
export const POSITION_FIELDS: FieldSpec[] = [
  market,
  side,
  notional,
  { key: 'entry_price', label: 'Entry', unit: 'rate', kind: 'rate', priority: 4 },
  { key: 'mark_price', label: 'Mark', unit: 'rate', kind: 'rate', priority: 3 },
  { key: 'gross_pnl_usd', label: 'Gross P&L', unit: 'USD', kind: 'pnl', priority: 5 },
  { key: 'accrued_carry_usdc', label: 'Carry', unit: 'USDC', kind: 'money', priority: 5 },
  { key: 'net_pnl_usd', label: 'Net P&L', unit: 'USD', kind: 'pnl', priority: 1 },
  { key: 'close_fee_usdc', label: 'Close fee', unit: 'USDC', kind: 'money', priority: 6 },
  { key: 'margin_usdc', label: 'Margin', unit: 'USDC', kind: 'money', priority: 6 },
  { key: 'net_margin_usd', label: 'Net margin', unit: 'USD', kind: 'money', priority: 3 },
  // Time to maturity, for people: the table's view of maturity_at.
  { key: 'matures_in', label: 'Matures in', kind: 'countdown', priority: 1, screenOnly: true, get: (row) => row.maturity_at },
  { key: 'maturity_at', label: 'Maturity', kind: 'utc', priority: 6 },
  { key: 'hedge_id', label: 'Hedge ID', kind: 'id', priority: 2 },
  { key: 'units', label: 'Units', kind: 'count', priority: 8 },
  { key: 'opened_at', label: 'Opened', kind: 'utc', priority: 8 },
];

/** What a closed hedge realized; the spec names only `net_pnl_usd`. */
export const REALIZED_FIELDS: FieldSpec[] = [
  { key: 'entry_price', label: 'Entry', unit: 'rate', kind: 'rate', priority: 5 },
  { key: 'exit_price', label: 'Exit', unit: 'rate', kind: 'rate', priority: 5 },
  { key: 'gross_pnl_usd', label: 'Gross P&L', unit: 'USD', kind: 'pnl', priority: 4 },
  { key: 'carry_usdc', label: 'Carry paid', unit: 'USDC', kind: 'money', priority: 6 },
  { key: 'fees_usdc', label: 'Fees', unit: 'USDC', kind: 'money', priority: 6 },
  { key: 'net_pnl_usd', label: 'Net P&L', unit: 'USD', kind: 'pnl', priority: 0 },
];

export const HISTORY_FIELDS: FieldSpec[] = [
  { key: 'hedge_id', label: 'Hedge ID', kind: 'id', priority: 0 },
  { key: 'client_reference', label: 'Ref', kind: 'text', priority: 4 },
  market,
  side,
  notional,
  tenor,
  { key: 'opened_at', label: 'Opened', kind: 'utc', priority: 7 },
  { key: 'closed_at', label: 'Closed', kind: 'utc', priority: 2 },
  { key: 'close_reason', label: 'How', kind: 'text', priority: 3 },
  ...REALIZED_FIELDS,
];

/** `fields` with `extra` inserted right after the field named `after`. */
export function insertAfter(fields: FieldSpec[], after: string, extra: FieldSpec[]): FieldSpec[] {
  const index = fields.findIndex((field) => field.key === after);
  return index < 0 ? [...fields, ...extra] : [...fields.slice(0, index + 1), ...extra, ...fields.slice(index + 1)];
}
