// How one value reads on a screen (a table cell or a card's value): made harmless, formatted by its kind (money 2 decimals, rates the precision their size needs, times in UTC, hashes short), measured once and coloured.
import type { ChalkInstance } from 'chalk';
import { quoteCurrencyOf } from '../../core/markets.js';
import { toAccountSide } from '../../core/money.js';
import { safeText } from '../../core/security/safe-text.js';
import { formatFixed, isNumericText, rateDecimals, shortHash } from '../../core/number-format.js';
import { kindFromName, NUMERIC_KINDS, type FieldSpec } from '../fields/fields.js';
import {
  formatPercent,
  formatRelative,
  formatTimeLeft,
  formatUtc,
  formatUtcMinutes,
  fractionDigits,
} from './format.js';
import { tableCell } from './table.js';
import type { JsonObject } from '../../core/objects.js';

export function valueOf(field: FieldSpec, row: JsonObject) {
  return field.get ? field.get(row) : row[field.key];
}

/** The field's kind, or what its first present value says it is. */
export function kindOf(field: FieldSpec, rows: readonly JsonObject[]) {
  if (field.kind) return field.kind;
  for (const row of rows) {
    const value = valueOf(field, row);
    if (value != null) return kindFromName(field.key, value);
  }
  return 'text';
}

/** `NGN/USDT` when every row is of one USDT market; undefined when rows mix markets or say none. */
export function rateUnitOf(rows: readonly JsonObject[]) {
  let market: unknown;
  for (const row of rows) {
    if (market === undefined) market = row.market;
    else if (row.market !== market) return;
  }
  const currency = typeof market === 'string' && quoteCurrencyOf(market);
  return currency ? `${currency}/USDT` : undefined;
}

/** One number of decimals for the whole column: money 2, percentages 4, rates what their smallest value needs, other numbers as many as the most precise value has (at most 6); undefined for other kinds. */
export function decimalsOf(field: FieldSpec, rows: readonly JsonObject[]) {
  const kind = kindOf(field, rows);
  if (field.decimals !== undefined) return field.decimals;
  if (kind === 'money' || kind === 'pnl' || kind === 'charge') return 2;
  if (kind === 'percent') return 4;
  if (kind !== 'rate' && kind !== 'count') return;
  return rows.reduce((most, row) => {
    const value = valueOf(field, row);
    return typeof value === 'number' ? Math.max(most, (kind === 'rate' ? rateDecimals : fractionDigits)(value)) : most;
  }, 0);
}

export interface CellContext {
  chalk: ChalkInstance;
  nowMs: number;
  where: 'table' | 'card';
  absoluteOnly?: boolean;
}

export function formatCell(
  field: FieldSpec,
  value: unknown,
  row: JsonObject,
  /** How many decimals one column shows its numbers with, decided once from all of its values (decimalsOf). */
  decimals: number | undefined,
  context: CellContext,
) {
  const c = context.chalk;
  if (value == null || value === '') return tableCell(c.dim('—'));
  const kind = field.kind ?? kindFromName(field.key, value);
  // A server's decimal string ("99889.00"): its own digits, grouped like our numbers; signed and coloured as P&L.
  const numericText = typeof value === 'string' && NUMERIC_KINDS.has(kind) && isNumericText(value);
  let text: string;
  let styled: string | undefined;
  if ((kind === 'pnl' || kind === 'charge') && (numericText || typeof value === 'number')) {
    // A charge: the server's positive is paid by the account, shown as money out of it.
    const amount = kind === 'charge' ? toAccountSide(Number(value)) : Number(value);
    text = formatFixed(Math.abs(amount), numericText ? (value.trim().split('.')[1] ?? '').length : (decimals ?? 2));
    // A figure that rounds to zero carries no sign (core/number-format.ts formatSignedMoney); green when positive, red when negative.
    if (amount && !/^[0.,]*$/.test(text))
      styled = c[amount > 0 ? 'green' : 'red']((text = `${amount > 0 ? '+' : '-'}${text}`));
  } else if (typeof value === 'number')
    text =
      kind === 'percent'
        ? formatPercent(value, decimals ?? 4)
        : NUMERIC_KINDS.has(kind)
          ? formatFixed(value, decimals ?? 2)
          : String(value);
  // `-1234567.50` → `-1,234,567.50`, the digits as sent; exponent form has no digits of its own to keep: shown as the number it is.
  else if (numericText)
    text = /e/i.test(value)
      ? formatFixed(Number(value), 2)
      : value
          .trim()
          .replace(/^\+/, '')
          .replace(/^-?\d+/, (whole) => whole.replace(/\B(?=(\d{3})+$)/g, ','));
  else if (typeof value === 'string') {
    text = safeText(value);
    if (kind === 'time' || kind === 'utc') {
      const relative =
        kind === 'time' && !context.absoluteOnly && (field.relativeWhen?.(row) ?? true)
          ? formatRelative(value, context.nowMs)
          : '';
      text = (context.where === 'table' ? formatUtcMinutes : formatUtc)(text);
      if (relative) {
        styled = `${text} ${c.dim(`(${relative})`)}`;
        text += ` (${relative})`;
      }
    } else if (kind === 'countdown') text = formatTimeLeft(text, context.nowMs) || text;
    else if (kind === 'hash') text = shortHash(text);
    else if (kind === 'side') styled = value === 'buy' ? c.green(text) : value === 'sell' ? c.magenta(text) : text;
    else if (kind === 'status') styled = colorStatus(c, text);
  } else text = safeText(plainValue(value));
  // A figure that rounds to zero carries no sign, as signed money (-0.0 or -0.004 from a server): never -0.00.
  if (styled === undefined && (numericText || typeof value === 'number')) text = text.replace(/^-(?=[0.,]*%?$)/, '');
  // A style may mark the value (`* name`): what it shows is what is measured.
  return tableCell(field.style?.(styled ?? text, row) ?? styled ?? text);
}

/** TSV and CSV cells: raw values, an object as its JSON; escaped to one line by spreadsheetSafe. */
export function plainValue(value: unknown) {
  if (value == null) return '';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

const STATUS_COLOURS = Object.fromEntries(
  'filled:green open:green done:green failed:red disabled:red rejected:red submitted:yellow submitting:yellow pending:yellow planned:yellow closed:dim abandoned:dim'
    .split(' ')
    .map((pair) => pair.split(':')),
) as Record<string, 'green' | 'red' | 'yellow' | 'dim'>;

export function colorStatus(c: ChalkInstance, status: string) {
  if (status === 'unknown') return c.yellow.bold(status);
  return Object.hasOwn(STATUS_COLOURS, status) ? c[STATUS_COLOURS[status]](status) : status;
}
