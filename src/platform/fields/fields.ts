import { safeText } from '../../core/security/safe-text.js';
import { declaredName } from './output-fields.js';
import type { JsonObject } from '../../core/objects.js';

// What a field is, from what the spec names or, for fields it does not show, from its name: `_usd`/`_usdc` are money, `_pct` percentages, `_at` times, `price`/`rate` rates.

// `charge`: carry or a fee as the server signs it (positive: the account pays).
const FIELD_KINDS = [
  'text',
  'id',
  'money',
  'pnl',
  'charge',
  'rate',
  'percent',
  'time',
  'utc',
  'countdown',
  'side',
  'status',
  'hash',
  'count',
  'json',
] as const;

export type FieldKind = (typeof FIELD_KINDS)[number];

export interface FieldSpec {
  key: string;
  label: string;
  kind?: FieldKind;
  unit?: string;
  decimals?: number;
  get?: (row: JsonObject) => unknown;
  covers?: string[];
  /** Dotted names of the server's data this column shows (`net_rate_daily_pct.sell`): --fields asking for one gets this column under that name, so it reads the same as without --fields. */
  aliases?: string[];
  wrap?: boolean;
  /** The value a narrow table shows instead, where the column has no room for the whole one (the carry's rate without its word; a time's compact form is made by kind): shown alike in every row. */
  compact?: (row: JsonObject) => unknown;
  screenOnly?: boolean;
  relativeWhen?: (row: JsonObject) => boolean;
  style?: (text: string, row: JsonObject) => string;
  /** How a person's table or card shows the field where it differs from what scripts read (the carry in words, a key it stands for). */
  onScreen?: Partial<Pick<FieldSpec, 'kind' | 'get' | 'compact' | 'covers'>>;
}

/** The fields as a person's table or card shows them. */
export function onScreen(fields: readonly FieldSpec[]) {
  return fields.map((field) => (field.onScreen ? { ...field, ...field.onScreen } : field));
}

/** Fields written as a table, a line each: key, label, kind and unit, two spaces or more apart; `extra` adds to a field by its key (a getter, a style). */
export function fieldTable(table: string, extra: Record<string, Partial<FieldSpec>> = {}): FieldSpec[] {
  return table
    .trim()
    .split(/\s*\n\s*/)
    .map((line) => {
      const [key, label, kind, unit] = line.split(/ {2,}/) as [string, string, FieldKind?, string?];
      if (key.includes(' ') || (kind && !FIELD_KINDS.includes(kind))) throw new Error(`not a field: ${line}`);
      return { key, label, ...(unit && { unit }), ...(kind && { kind }), ...extra[key] };
    });
}

/** The label with its unit: "Notional USD", "Struck NGN/USDT", "Maturity UTC" in a table header; "Notional (USD)" on a card (a card's times say UTC themselves). */
export function fieldLabel(
  field: Pick<FieldSpec, 'label' | 'unit'>,
  style: 'header' | 'card',
  context: { kind?: FieldKind; rateUnit?: string } = {},
) {
  let unit = field.unit === 'rate' ? context.rateUnit : field.unit;
  if (unit === undefined && style === 'header' && (context.kind === 'time' || context.kind === 'utc')) unit = 'UTC';
  if (unit === undefined) return field.label;
  return style === 'header' ? `${field.label} ${unit}` : `${field.label} (${unit})`;
}

/** Kinds whose values are numbers: right-aligned, with one number of decimals per column. */
export const NUMERIC_KINDS: ReadonlySet<FieldKind> = new Set(['money', 'pnl', 'charge', 'rate', 'percent', 'count']);

const ACRONYMS: Record<string, string> = { usd: 'USD', usdc: 'USDC', pnl: 'P&L', id: 'ID', tx: 'tx', pct: '%' };

/** `accrued_carry_usdc` → "Accrued carry (USDC)", `gross_pnl_usd` → "Gross P&L (USD)"; a server's name made safe first (a key in it redacted before its words are recased). */
export function labelFromName(name: string) {
  const words = safeText(name)
    .split(/[_\s]+/)
    .filter(Boolean);
  let unit: string | undefined;
  const last = words[words.length - 1]?.toLowerCase();
  if (last === 'usd' || last === 'usdc' || last === 'pct') {
    unit = ACRONYMS[last];
    words.pop();
  }
  const text = words
    .map((word, index) => {
      const lower = word.toLowerCase();
      const mapped = ACRONYMS[lower] ?? lower;
      return index === 0 && mapped === lower ? mapped.charAt(0).toUpperCase() + mapped.slice(1) : mapped;
    })
    .join(' ');
  return unit ? `${text || 'Value'} (${unit})` : text;
}

export function kindFromName(name: string, value: unknown): FieldKind {
  // A dotted name (`available_capacity_usd.buy`): the innermost part that says something about the value, so `.buy` of a USD object is money and `pricing.market_price` a rate.
  if (name.includes('.')) {
    const parts = name.split('.');
    const plain = typeof value === 'number' ? 'count' : 'text';
    for (let index = parts.length - 1; index >= 0; index--) {
      const kind = kindFromName(parts[index], value);
      if (kind !== plain) return kind;
    }
    return plain;
  }
  const lower = name.toLowerCase();
  if (value !== null && typeof value === 'object') return 'json';
  if (typeof value === 'string') {
    if (lower.endsWith('_at') || lower === 'maturity') return 'time';
    if (lower.endsWith('_hash') || lower === 'order_key') return 'hash';
    if (lower === 'id' || lower.endsWith('_id')) return 'id';
    if (lower === 'side') return 'side';
    if (lower === 'status') return 'status';
    return 'text';
  }
  if (typeof value === 'number') {
    if (lower.includes('pnl')) return 'pnl';
    if (lower.endsWith('_usd') || lower.endsWith('_usdc')) return 'money';
    if (lower.endsWith('_pct')) return 'percent';
    if (lower.includes('price') || lower.includes('rate')) return 'rate';
    return 'count';
  }
  return 'text';
}

/** Known fields first, in the order given, then every other field the server sent, sorted by name (a stable column order whatever order the server writes its keys in). */
export function withExtraFields(
  known: FieldSpec[],
  rows: JsonObject[],
  options: { omit?: readonly string[]; keepAbsentKnown?: boolean } = {},
) {
  const covered = new Set(options.omit ?? []);
  for (const field of known) {
    covered.add(field.key);
    for (const key of field.covers ?? []) covered.add(key);
  }
  const extra = new Map<string, FieldSpec>();
  for (const row of rows) {
    for (const key in row) {
      if (covered.has(key) || extra.has(key) || !Object.hasOwn(row, key)) continue;
      // Kind from the first value that says something (a null says nothing).
      const value = row[key];
      if (value === undefined) continue;
      extra.set(key, { key, label: labelFromName(key), kind: kindFromName(key, value) });
    }
  }
  const present = known.filter(
    (field) =>
      !options.omit?.includes(field.key) &&
      (options.keepAbsentKnown || field.get || rows.some((row) => row[field.key] !== undefined)),
  );
  const extras = [...extra.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return [...present, ...extras];
}

/** The value at a dotted path (`pricing.market_price`): each segment a key of an object, or the index of a list element (`legs.0.side`); undefined where the path leads nowhere. */
export function valueAtPath(record: unknown, path: string) {
  let value = record;
  for (const segment of path.split('.')) {
    if (value === null || typeof value !== 'object') return;
    if (Array.isArray(value)) {
      if (!/^\d+$/.test(segment)) return;
      value = value[Number(segment)];
    } else {
      if (!Object.hasOwn(value, segment)) return;
      value = (value as JsonObject)[segment];
    }
  }
  return value;
}

/** Whether a dotted name reaches into what there is: its first part is a field there is (or was declared), or some record has a value at the whole path. */
export function dottedNameExists(name: string, availableKeys: ReadonlySet<string>, records: readonly unknown[]) {
  const dot = name.indexOf('.');
  if (dot <= 0 || dot === name.length - 1) return false;
  return availableKeys.has(name.slice(0, dot)) || records.some((record) => valueAtPath(record, name) !== undefined);
}

/** The fields --fields asked for, in the order asked; an unknown name is `problem`, naming it and every name there is. */
export function pickFields(
  available: readonly FieldSpec[],
  wanted: readonly string[],
  records: readonly unknown[] = [],
  accepted?: ReadonlySet<string>,
): { fields: FieldSpec[] } | { problem: string } {
  const byKey = new Map(available.map((field) => [field.key, field]));
  const keys = new Set(byKey.keys());
  for (const field of available) for (const key of field.covers ?? []) keys.add(key);
  const picked: FieldSpec[] = [];
  const aliased = new Map(
    available.flatMap((field) => (field.aliases ?? []).map((alias) => [alias, { ...field, key: alias }] as const)),
  );
  for (const name of wanted) {
    let field = byKey.get(name) ?? aliased.get(name);
    // A dotted name asked twice is one column.
    if (!field && (dottedNameExists(name, keys, records) || (accepted !== undefined && declaredName(name, accepted))))
      byKey.set(name, (field = { key: name, label: safeText(name), get: (row) => valueAtPath(row, name) }));
    if (!field)
      return {
        problem: unknownFieldProblem(
          name,
          available.map((candidate) => candidate.key),
        ),
      };
    if (!picked.includes(field)) picked.push(field);
  }
  return { fields: picked };
}

export function unknownFieldProblem(name: string, available: readonly string[]) {
  const names = [...new Set(available)];
  return `--fields: "${safeText(name)}" is not a field here; available: ${names.length ? names.map(safeText).join(', ') : '(none)'}.`;
}
