// Plain objects as hedge writes them.

/** A JSON object as read or written: names to values of any kind. */
export type JsonObject = Record<string, unknown>;

/** An object that is not a list (a JSON object). */
export const isObject = (value: unknown): value is JsonObject =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** The value when it is text (blank included), else undefined. */
export const stringOf = (value: unknown) => (typeof value === 'string' ? value : undefined);

/** `value` with `each` applied to its elements or its own fields (by name), copied only where one changed; the same object when none did (a copy keeps its symbol-keyed fields). */
export function mapChildren(value: object, each: (child: unknown, key: string) => unknown) {
  if (Array.isArray(value)) {
    const items = value.map((item, index) => each(item, String(index)));
    return items.some((item, index) => item !== value[index]) ? items : value;
  }
  let copy: JsonObject | undefined;
  for (const [key, inner] of Object.entries(value)) {
    const shown = each(inner, key);
    if (shown !== inner) (copy ??= { ...value })[key] = shown;
  }
  return copy ?? value;
}

/** The object without its undefined fields (a field left out is never written as null or "undefined"). */
export function withoutUndefined<T extends object>(value: T) {
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as T;
}
