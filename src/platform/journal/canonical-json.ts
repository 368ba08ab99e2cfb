// One text per JSON value, whatever the key order: how "the same request body" is decided.
import type { JsonObject } from '../../core/objects.js';

/** JSON with object keys sorted at every depth; numbers as JSON writes them (10000 and 1e4 agree). */
export function canonicalJson(value: unknown) {
  return JSON.stringify(sortKeys(value)) ?? 'null';
}

function sortKeys(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  // The same conversions JSON.stringify makes (a Date becomes its ISO text).
  const { toJSON } = value as { toJSON?: unknown };
  const plain: unknown = typeof toJSON === 'function' ? toJSON.call(value) : value;
  if (typeof plain !== 'object' || plain === null) return plain;
  if (Array.isArray(plain)) return plain.map(sortKeys);
  // Defined, not assigned: a key named __proto__ stays a key (assigned, it would set the prototype and vanish).
  return Object.fromEntries(
    Object.keys(plain)
      .sort()
      .map((name) => [name, sortKeys((plain as JsonObject)[name])]),
  );
}
