// Deterministic randomness for the sandbox.

/** Mixes a uint32 into a well-distributed uint32 (lowbias32 by Chris Wellons). */
function mix32(value: number) {
  let x = value >>> 0;
  x ^= x >>> 16;
  x = Math.imul(x, 0x7feb352d);
  x ^= x >>> 15;
  x = Math.imul(x, 0x846ca68b);
  x ^= x >>> 16;
  return x >>> 0;
}

/** FNV-1a over a string: turns a textual seed or market name into a uint32. */
export function hashString(text: string) {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return mix32(hash);
}

/** Hashes a list of integers (e.g. seed, market, minute) into a uint32. */
export function hashInts(...values: number[]) {
  let hash = 0x9e3779b9;
  for (const value of values) {
    // Split so that numbers above 2^32 (minute indexes are fine, but be safe) still count.
    hash = mix32(hash ^ (value >>> 0));
    hash = mix32(hash ^ Math.floor(value / 0x1_0000_0000));
  }
  return hash;
}

/** A draw in [0, 1) as 8 hex digits. */
export const hex8 = (draw: number) =>
  Math.floor(draw * 0x1_0000_0000)
    .toString(16)
    .padStart(8, '0');

/** Mulberry32 step of the generator whose state is `holder[key]`: moves that state on, returns a value in [0, 1). */
export function nextRandom<K extends string>(holder: Record<K, number>, key: K) {
  let t = (holder[key] = (holder[key] + 0x6d2b79f5) >>> 0);
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 0x1_0000_0000;
}
