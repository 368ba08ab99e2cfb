// Plain objects as hedge writes them.

/** The object without its undefined fields (a field left out is never written as null or "undefined"). */
export function withoutUndefined<T extends object>(value: T) {
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as T;
}
