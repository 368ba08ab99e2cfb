// The one shape `--json` gives a script, whatever the server's dialect: records under the names of docs/output.md (api/wire/fields.ts), and every figure a number — a decimal string for a known numeric field, or for a field whose name says amount, percentage, price or rate.
import { isNumericText } from '../../core/number-format.js';
import { mapChildren } from '../../core/objects.js';
import { fieldsByKey, kindFromName, NUMERIC_KINDS, type FieldKind, type FieldSpec } from './fields.js';

/** Kinds a field's name alone makes numeric (`_usd`, `_usdc`, `_pct`, `pnl`, `price`, `rate`); `count` is only a fallback there. */
const NAMED_NUMERIC: ReadonlySet<FieldKind> = new Set(['money', 'pnl', 'percent', 'rate']);

/** The sides of a price that do not say `price` or `rate` (`bid`, `ask`, `mid`, `best_bid`): a two-sided price kept beside the mid it makes (`price --json`) is prices, as numbers. */
const PRICE_WORD = /(^|[._])(bid|ask|mid)([._]|$)/i;

/** Lists of records, records, and the objects inside them; deeper than this is left as it is. */
const MAX_DEPTH = 6;

export function forScripts<T>(data: T, known: readonly FieldSpec[] = []) {
  return shape(data, fieldsByKey(known), '', 0) as T;
}

function shape(value: unknown, fields: ReadonlyMap<string, FieldSpec>, path: string, depth: number): unknown {
  if (value === null || typeof value !== 'object' || depth > MAX_DEPTH) return value;
  // A list's items are read under the list's own name.
  if (Array.isArray(value)) return mapChildren(value, (item) => shape(item, fields, path, depth + 1));
  if (Object.getPrototypeOf(value) !== Object.prototype && Object.getPrototypeOf(value) !== null) return value;
  // A copy keeps symbol-keyed values (a position's joined reference) for --fields.
  return mapChildren(value, (inner, key) => {
    const name = path === '' ? key : `${path}.${key}`;
    return typeof inner === 'string'
      ? numberIfNumeric(inner, name, path === '' ? fields.get(key) : undefined)
      : shape(inner, fields, name, depth + 1);
  });
}

function numberIfNumeric(text: string, name: string, field: FieldSpec | undefined) {
  if (!isNumericText(text)) return text;
  const numeric =
    field?.kind !== undefined
      ? NUMERIC_KINDS.has(field.kind)
      : NAMED_NUMERIC.has(kindFromName(name, 0)) || PRICE_WORD.test(name);
  if (!numeric) return text;
  const number = Number(text);
  return Number.isFinite(number) ? number : text;
}
