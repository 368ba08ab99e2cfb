// Plain objects as hedge writes them.

/** A JSON object as read or written: names to values of any kind. */
export type JsonObject = Record<string, unknown>;

/** The object without its undefined fields (a field left out is never written as null or "undefined"). */
export function withoutUndefined<T extends object>(value: T) {
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as T;
}
