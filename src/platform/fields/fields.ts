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
  /** Text a desk reads whole (a carry with its word): never cut with … for another column; the column waits for a wider terminal instead. */
  whole?: boolean;
  /** The value a narrow table shows instead, where the column has no room for the whole one (a time's compact form is made by kind): shown alike in every row. */
  compact?: (row: JsonObject) => unknown;
  screenOnly?: boolean;
  relativeWhen?: (row: JsonObject) => boolean;
  style?: (text: string, row: JsonObject) => string;
  /** How a person's table or card shows the field where it differs from what scripts read (the carry in words, a key it stands for). */
  onScreen?: Partial<Pick<FieldSpec, 'kind' | 'get' | 'compact' | 'covers' | 'whole'>>;
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

/** The label with its unit: "Notional USD", "Struck NGN/USDT", "Maturity UTC" in a table header; "Notional (USD)" on a card (a card's times say UTC themselves); `rateUnit` stands for a rate's unit, `kind` says a column holds times. */
export function fieldLabel(
  field: Pick<FieldSpec, 'label' | 'unit'>,
  style: 'header' | 'card',
  rateUnit?: string,
  kind?: FieldKind,
) {
  let unit = field.unit === 'rate' ? rateUnit : field.unit;
  if (unit === undefined && style === 'header' && (kind === 'time' || kind === 'utc')) unit = 'UTC';
  if (unit === undefined) return field.label;
  return style === 'header' ? `${field.label} ${unit}` : `${field.label} (${unit})`;
}

/** Kinds whose values are numbers: right-aligned, with one number of decimals per column. */
export const NUMERIC_KINDS: ReadonlySet<FieldKind> = new Set(['money', 'pnl', 'charge', 'rate', 'percent', 'count']);

// `tx` reads as it is, but first in a label, capitalized like any word.
const ACRONYMS: Record<string, string> = { usd: 'USD', usdc: 'USDC', pnl: 'P&L', id: 'ID', pct: '%' };

/** `accrued_carry_usdc` → "Accrued carry (USDC)", `gross_pnl_usd` → "Gross P&L (USD)"; a server's name made safe first (a key in it redacted before its words are recased). */
export function labelFromName(name: string) {
  const words = safeText(name)
    .toLowerCase()
    .split(/[_\s]+/)
    .filter(Boolean);
  const unit = /^(usdc?|pct)$/.test(words.at(-1) ?? '') ? ACRONYMS[words.pop()!] : undefined;
  const text = words
    .map((word, index) => ACRONYMS[word] ?? (index ? word : word[0].toUpperCase() + word.slice(1)))
    .join(' ');
  return unit ? `${text || 'Value'} (${unit})` : text;
}

/** What a name says of a string's or a number's kind: the first pattern it matches. */
const KINDS_BY_NAME: Record<string, Array<[RegExp, FieldKind]>> = {
  string: [
    [/_at$|^maturity$/i, 'time'],
    [/_hash$|^order_key$/i, 'hash'],
    [/^id$|_id$/i, 'id'],
    [/^side$/i, 'side'],
    [/^status$/i, 'status'],
  ],
  number: [
    [/pnl/i, 'pnl'],
    [/_usdc?$/i, 'money'],
    [/_pct$/i, 'percent'],
    [/price|rate/i, 'rate'],
  ],
};

export function kindFromName(name: string, value: unknown): FieldKind {
  // A dotted name (`available_capacity_usd.buy`): the innermost part that says something about the value, so `.buy` of a USD object is money and `pricing.market_price` a rate.
  const plain = typeof value === 'number' ? 'count' : 'text';
  if (name.includes('.'))
    return (
      name
        .split('.')
        .reverse()
        .map((part) => kindFromName(part, value))
        .find((kind) => kind !== plain) ?? plain
    );
  if (value !== null && typeof value === 'object') return 'json';
  // Only strings and numbers have patterns; a name that matches none is plain.
  return KINDS_BY_NAME[typeof value]?.find(([pattern]) => pattern.test(name))?.[1] ?? plain;
}

export const fieldsByKey = (fields: readonly FieldSpec[]) => new Map(fields.map((field) => [field.key, field]));

/** The keys fields show: each its own and those it covers. */
export const keysOf = (fields: readonly FieldSpec[]) => fields.flatMap((field) => [field.key, ...(field.covers ?? [])]);

/** Known fields first, in the order given (but `omit`; a known one no row holds only with `keepAbsentKnown`), then every other field the server sent, sorted by name (a stable column order whatever order the server writes its keys in). */
export function withExtraFields(
  known: FieldSpec[],
  rows: JsonObject[],
  omit: readonly string[] = [],
  keepAbsentKnown = false,
) {
  const covered = new Set([...omit, ...keysOf(known)]);
  const extras: FieldSpec[] = [];
  for (const row of rows)
    for (const key in row) {
      // Kind from the first value that says something (a null says nothing).
      if (covered.has(key) || !Object.hasOwn(row, key) || row[key] === undefined) continue;
      covered.add(key);
      extras.push({ key, label: labelFromName(key), kind: kindFromName(key, row[key]) });
    }
  const present = known.filter(
    (field) =>
      !omit.includes(field.key) && (keepAbsentKnown || field.get || rows.some((row) => row[field.key] !== undefined)),
  );
  return [...present, ...extras.sort((a, b) => (a.key < b.key ? -1 : 1))];
}

/** The value at a dotted path (`pricing.market_price`): each segment a key of an object, or the index of a list element (`legs.0.side`); undefined where the path leads nowhere. */
export function valueAtPath(record: unknown, path: string) {
  let value = record;
  for (const segment of path.split('.')) {
    if (value === null || typeof value !== 'object') return;
    const list = Array.isArray(value);
    if (list ? !/^\d+$/.test(segment) : !Object.hasOwn(value, segment)) return;
    value = (value as JsonObject)[list ? Number(segment) : segment];
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
  records: readonly unknown[],
  accepted: ReadonlySet<string> | undefined,
): { fields: FieldSpec[] } | { problem: string } {
  const byKey = fieldsByKey(available);
  const keys = new Set(keysOf(available));
  const picked = new Set<FieldSpec>();
  const aliased = new Map(
    available.flatMap((field) => (field.aliases ?? []).map((alias) => [alias, { ...field, key: alias }] as const)),
  );
  for (const name of wanted) {
    let field = byKey.get(name) ?? aliased.get(name);
    // A dotted name asked twice is one column.
    if (!field && (dottedNameExists(name, keys, records) || (accepted && declaredName(name, accepted))))
      byKey.set(name, (field = { key: name, label: safeText(name), get: (row) => valueAtPath(row, name) }));
    if (!field)
      return {
        problem: unknownFieldProblem(
          name,
          available.map((candidate) => candidate.key),
        ),
      };
    picked.add(field);
  }
  return { fields: [...picked] };
}

export function unknownFieldProblem(name: string, available: readonly string[]) {
  const names = [...new Set(available)];
  return `--fields: "${safeText(name)}" is not a field here; available: ${names.length ? names.map(safeText).join(', ') : '(none)'}.`;
}
