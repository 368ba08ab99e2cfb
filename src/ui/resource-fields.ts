// How the API's resources are labelled and formatted, defined once for every command that shows
// them. Fields the spec does not name follow the wire contract; anything else the server sends
// is shown after these by the output layer.
import type { FieldSpec } from './fields.js';

const hedgeId: FieldSpec = { key: 'id', label: 'Hedge ID' };
const market: FieldSpec = { key: 'market', label: 'Market' };
const side: FieldSpec = { key: 'side', label: 'Side', kind: 'side' };
const notional: FieldSpec = { key: 'notional_usd', label: 'Notional (USD)', kind: 'money' };
const tenor: FieldSpec = { key: 'tenor_days', label: 'Tenor (days)', kind: 'count' };
const status: FieldSpec = { key: 'status', label: 'Status', kind: 'status' };
const struckRate: FieldSpec = { key: 'struck_rate', label: 'Struck rate', kind: 'rate' };

/** A hedge in full, tx hashes whole (`hedge hedges ID`, the result of open). */
export const HEDGE_FIELDS: FieldSpec[] = [
  hedgeId,
  { key: 'client_reference', label: 'Client reference' },
  status,
  market,
  side,
  notional,
  tenor,
  struckRate,
  { key: 'units', label: 'Units', kind: 'count' },
  { key: 'order_key', label: 'Order key', kind: 'hash' },
  { key: 'order_tx_hash', label: 'Order tx', kind: 'hash' },
  { key: 'fill_tx_hash', label: 'Fill tx', kind: 'hash' },
  { key: 'opened_at', label: 'Opened', kind: 'time' },
  { key: 'filled_at', label: 'Filled', kind: 'time' },
  { key: 'maturity_at', label: 'Maturity', kind: 'time' },
  { key: 'closed_at', label: 'Closed', kind: 'time' },
];

/** Shown whole by `hedge hedges ID`; too wide for a list (a hash is 66 characters). */
export const HEDGE_DETAIL_ONLY = ['order_tx_hash', 'fill_tx_hash', 'order_key', 'units', 'filled_at', 'closed_at'];

export const HEDGE_LIST_FIELDS: FieldSpec[] = [
  hedgeId,
  { key: 'client_reference', label: 'Ref' },
  market,
  side,
  notional,
  tenor,
  status,
  struckRate,
  { key: 'opened_at', label: 'Opened', kind: 'time' },
  { key: 'maturity_at', label: 'Maturity', kind: 'time' },
];

/** The spec names only `net_margin_usd`: what closing now would return. */
export const POSITION_FIELDS: FieldSpec[] = [
  market,
  side,
  { key: 'notional_usd', label: 'Notional', kind: 'money' },
  { key: 'entry_price', label: 'Entry', kind: 'rate' },
  { key: 'mark_price', label: 'Mark', kind: 'rate' },
  { key: 'gross_pnl_usd', label: 'Gross P&L', kind: 'pnl' },
  { key: 'accrued_carry_usdc', label: 'Carry', kind: 'money' },
  { key: 'net_pnl_usd', label: 'Net P&L', kind: 'pnl' },
  { key: 'close_fee_usdc', label: 'Close fee', kind: 'money' },
  { key: 'margin_usdc', label: 'Margin (USDC)', kind: 'money' },
  { key: 'net_margin_usd', label: 'Net margin', kind: 'money' },
  { key: 'maturity_at', label: 'Maturity', kind: 'utc' },
  { key: 'hedge_id', label: 'Hedge ID' },
  { key: 'units', label: 'Units', kind: 'count' },
  { key: 'opened_at', label: 'Opened', kind: 'utc' },
];

/** Left out of the terminal table only, so that it fits a terminal; TSV and JSON keep them. */
export const POSITION_TABLE_OMITS = ['margin_usdc', 'hedge_id', 'units', 'opened_at'];

/** What a closed hedge realized; the spec names only `net_pnl_usd`. */
export const REALIZED_FIELDS: FieldSpec[] = [
  { key: 'entry_price', label: 'Entry', kind: 'rate' },
  { key: 'exit_price', label: 'Exit', kind: 'rate' },
  { key: 'gross_pnl_usd', label: 'Gross P&L (USD)', kind: 'pnl' },
  { key: 'carry_usdc', label: 'Carry paid (USDC)', kind: 'money' },
  { key: 'fees_usdc', label: 'Fees (USDC)', kind: 'money' },
  { key: 'net_pnl_usd', label: 'Net P&L (USD)', kind: 'pnl' },
];

export const HISTORY_FIELDS: FieldSpec[] = [
  { key: 'hedge_id', label: 'Hedge ID' },
  { key: 'client_reference', label: 'Ref' },
  market,
  side,
  notional,
  tenor,
  { key: 'opened_at', label: 'Opened', kind: 'utc' },
  { key: 'closed_at', label: 'Closed', kind: 'utc' },
  { key: 'close_reason', label: 'How' },
  ...REALIZED_FIELDS,
];

/** Left out of the terminal table only (it is wide); TSV and JSON keep them. */
export const HISTORY_TABLE_OMITS = ['opened_at', 'tenor_days'];

/** `fields` with `extra` inserted right after the field named `after`. */
export function insertAfter(fields: FieldSpec[], after: string, extra: FieldSpec[]): FieldSpec[] {
  const index = fields.findIndex((field) => field.key === after);
  return index < 0 ? [...fields, ...extra] : [...fields.slice(0, index + 1), ...extra, ...fields.slice(index + 1)];
}
