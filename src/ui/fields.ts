import { safeText } from '../security/safe-text.js';

// What a field is, from what the spec names or, for fields it does not show, from its name:
// `_usd`/`_usdc` are money, `_pct` percentages, `_at` times, `price`/`rate` rates.

export type FieldKind =
  | 'text'
  | 'money'
  | 'pnl'
  | 'rate'
  | 'percent'
  | 'time'
  | 'utc'
  | 'side'
  | 'status'
  | 'hash'
  | 'count'
  | 'json';

export interface FieldSpec {
  key: string;
  label: string;
  kind?: FieldKind;
  /** Read the value from somewhere other than row[key] (nested fields). */
  get?: (row: Record<string, unknown>) => unknown;
  /** Server fields this column shows (e.g. one side of a nested object), so they are not repeated as extras. */
  covers?: string[];
}

const ACRONYMS: Record<string, string> = { usd: 'USD', usdc: 'USDC', pnl: 'P&L', id: 'ID', tx: 'tx', pct: '%' };

/** `accrued_carry_usdc` → "Accrued carry (USDC)", `gross_pnl_usd` → "Gross P&L (USD)". */
export function labelFromName(name: string): string {
  const words = name.split(/[_\s]+/).filter(Boolean);
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
  const lower = name.toLowerCase();
  if (value !== null && typeof value === 'object') return 'json';
  if (typeof value === 'string') {
    if (lower.endsWith('_at') || lower === 'maturity') return 'time';
    if (lower.endsWith('_hash') || lower === 'order_key') return 'hash';
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

export interface ExtraFieldOptions {
  /** Fields the caller shows elsewhere on purpose (e.g. tx hashes, shown whole by `hedges ID`): not appended as extras. */
  omit?: readonly string[];
  /** Keep a known field even when no row has it (TSV columns must not move with the data). */
  keepAbsentKnown?: boolean;
}

/**
 * Known fields first, in the order given, then every other field the server sent, in the order
 * first seen. A field nobody named is never left out.
 */
export function withExtraFields(known: FieldSpec[], rows: Record<string, unknown>[], options: ExtraFieldOptions = {}): FieldSpec[] {
  const covered = new Set([...known.flatMap((field) => [field.key, ...(field.covers ?? [])]), ...(options.omit ?? [])]);
  const extra: FieldSpec[] = [];
  for (const row of rows) {
    for (const [key, value] of Object.entries(row)) {
      if (covered.has(key)) continue;
      covered.add(key);
      extra.push({ key, label: safeText(labelFromName(key)), kind: kindFromName(key, value) });
    }
  }
  const omitted = new Set(options.omit ?? []);
  const present = known.filter(
    (field) => !omitted.has(field.key) && (options.keepAbsentKnown || field.get || rows.some((row) => row[field.key] !== undefined)),
  );
  return [...present, ...extra];
}
