// What the server sent, beside what hedge read from it.
import { isObject, mapChildren } from './objects.js';

const sent = new WeakMap<object, unknown>();
/** The originals themselves: shown as they are, without a walk through them (a list is shown twice over). */
const originals = new WeakSet<object>();

/** Records that `read` was read from `original` (each element too, for lists). */
export function rememberSent<T>(read: T, original: unknown) {
  if (read === null || typeof read !== 'object' || read === original) return read;
  sent.set(read, original);
  if (original !== null && typeof original === 'object') originals.add(original);
  if (Array.isArray(read) && Array.isArray(original) && read.length === original.length)
    read.forEach((item, index) => rememberSent(item, original[index]));
  return read;
}

/** The server's own data behind a value the reading layer returned, wherever it sits: a list built from read records (filtered, several pages) and an object of ours that carries one (a close's `realized` record) show each as sent. */
export function asSent<T>(value: T, depth = 0): T {
  if (value === null || typeof value !== 'object' || originals.has(value)) return value;
  const original = sent.get(value);
  if (original !== undefined) {
    // What hedge added to a read record under a symbol (a position's deal reference joined from its hedge) is not the server's data, and is never printed as such: it stays on the record shown, so the output layer can still draw it as a column.
    const symbols = Object.getOwnPropertySymbols(value);
    if (!symbols.length || !isObject(original)) return original as T;
    const copy: Record<PropertyKey, unknown> = { ...original };
    for (const symbol of symbols) copy[symbol] = (value as Record<PropertyKey, unknown>)[symbol];
    return copy as T;
  }
  if (depth > 4 || (!Array.isArray(value) && Object.getPrototypeOf(value) !== Object.prototype)) return value;
  return mapChildren(value, (inner) => asSent(inner, depth + 1)) as T;
}
