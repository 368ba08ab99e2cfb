// The one kit every tolerant reader reads a server object with (positions, history, account,
// prices, the one shape): how a field's name is matched, how a fact is picked from the first of
// its names, and what counts as a number. Written once so that two commands reading the same
// payload read the same value (issue 51: `positions` and `report` read a position's P&L apart).

/** `closed_at`, `closedAt` and `Closed-At` are one name. */
export function nameKey(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]/g, '');
}

/** A record's fields by their normalised name (the first of two that normalise alike wins). */
export type Fields = ReadonlyMap<string, unknown>;

export function fieldsOf(raw: Record<string, unknown>): Fields {
  const byKey = new Map<string, unknown>();
  for (const [name, value] of Object.entries(raw)) {
    const key = nameKey(name);
    if (!byKey.has(key)) byKey.set(key, value);
  }
  return byKey;
}

export type Reader<T> = (value: unknown) => T | undefined;

/**
 * The first of `names` (the order of preference) whose value `read` accepts, whatever its
 * spelling style, and the name it was found under (one of `names`). Pass the record's `fieldsOf`
 * when reading many facts of one record.
 */
export function pickField<T>(
  from: Record<string, unknown> | Fields,
  names: readonly string[],
  read: Reader<T>,
): { value: T; name: string } | undefined {
  const fields = from instanceof Map ? (from as Fields) : fieldsOf(from as Record<string, unknown>);
  for (const name of names) {
    const value = read(fields.get(nameKey(name)));
    if (value !== undefined) return { value, name };
  }
  return undefined;
}

/** pickField's value alone. */
export function firstField<T>(
  from: Record<string, unknown> | Fields,
  names: readonly string[],
  read: Reader<T>,
): T | undefined {
  return pickField(from, names, read)?.value;
}

const NUMERIC_TEXT = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

/**
 * A finite number, or a plain decimal string (`"-12.5"`, `"99889.00"`, `"1e3"`: as some services
 * send money). Hex, binary and octal text (`"0x10"`), `"Infinity"` and blank text are no number.
 */
export function readNumber(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value !== 'string' || !NUMERIC_TEXT.test(value.trim())) return undefined;
  const number = Number(value.trim());
  return Number.isFinite(number) ? number : undefined;
}

/** Text that is not blank (a time, a market: a number there is not read as one). */
export function readString(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

/** Text that is not blank, or a finite number as its text (an id sent as a number). */
export function readText(value: unknown): string | undefined {
  if (typeof value === 'string') return value.trim() === '' ? undefined : value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}
