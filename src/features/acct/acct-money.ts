// Exact decimal arithmetic for the accounts: a value is a fraction of two bigints, rounded to the cent only
// where an amount is booked, so that products of amounts, rates and discount factors never drift.

export type Exact = readonly [numerator: bigint, denominator: bigint];

const DECIMAL = /^([+-]?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d{1,2}))?$/;

/** `"1.0929"` → 10929/10000, `"1e-7"` (as a server's number prints) → 1/10000000: the digits as written, exactly;
 * undefined for anything that is not a decimal. */
export function exact(text: string): Exact | undefined {
  const parts = DECIMAL.exec(text.trim());
  if (!parts) return;
  const fraction = parts[3] ?? '';
  const numerator = BigInt(parts[2] + fraction);
  const signed = parts[1] === '-' ? -numerator : numerator;
  return shifted([signed, 1n], Number(parts[4] ?? 0) - fraction.length);
}

/** `value` × 10^`shift`, exactly. */
const shifted = ([n, d]: Exact, shift: number): Exact =>
  shift >= 0 ? [n * 10n ** BigInt(shift), d] : [n, d * 10n ** BigInt(-shift)];

/** A number the server sent, as the decimal it was written as (JSON's shortest form: 0.1 is 1/10, 1e-7 is 1/10^7). */
export function exactNumber(value: number) {
  const [mantissa, power = '0'] = String(value).split('e');
  return shifted(exact(mantissa)!, Number(power));
}

export const add = (a: Exact, b: Exact): Exact => [a[0] * b[1] + b[0] * a[1], a[1] * b[1]];
export const sub = (a: Exact, b: Exact): Exact => [a[0] * b[1] - b[0] * a[1], a[1] * b[1]];
export const mul = (a: Exact, b: Exact): Exact => [a[0] * b[0], a[1] * b[1]];
export const div = (a: Exact, b: Exact): Exact =>
  b[0] < 0n ? [-a[0] * b[1], a[1] * -b[0]] : [a[0] * b[1], a[1] * b[0]];

/** Half away from zero, as a ledger rounds. */
export function roundDiv(numerator: bigint, denominator: bigint) {
  const negative = numerator < 0n !== denominator < 0n;
  const [n, d] = [absCents(numerator), absCents(denominator)];
  const rounded = (2n * n + d) / (2n * d);
  return negative ? -rounded : rounded;
}

/** An amount in cents (a bigint). */
export type Cents = bigint;

export const toCents = ([n, d]: Exact) => roundDiv(n * 100n, d);

/** An exact value over a power of ten as the decimal it was given as (10929/10000 → "1.0929"). */
export function exactText([numerator, denominator]: Exact) {
  const places = denominator.toString().length - 1;
  const digits = absCents(numerator)
    .toString()
    .padStart(places + 1, '0');
  const text = places ? `${digits.slice(0, -places)}.${digits.slice(-places)}` : digits;
  return numerator < 0n ? `-${text}` : text;
}

/** `-1234.5` → "-1234.50": the text a CSV or JSON reader takes exactly. */
export const centsText = (cents: Cents) => exactText([cents, 100n]);

/** The largest amount hedge prints: 2^53 − 1 cents (90,071,992,547,409.91), the most a JSON number holds to the cent. */
export const MAX_CENTS = BigInt(Number.MAX_SAFE_INTEGER);

/** An amount past MAX_CENTS: refused rather than printed with its cents lost. */
export class BeyondExact extends Error {
  constructor(readonly cents: Cents) {
    super(`${centsText(cents)} is past the largest amount hedge prints exactly (${centsText(MAX_CENTS)})`);
  }
}

/** The amount as a JSON number (exact to the cent as JSON writes it), or a refusal past MAX_CENTS. */
export function centsNumber(cents: Cents) {
  if (absCents(cents) > MAX_CENTS) throw new BeyondExact(cents);
  return Number(centsText(cents));
}

export const absCents = (cents: Cents) => (cents < 0n ? -cents : cents);
export const signOf = (cents: Cents) => (cents > 0n ? 1n : cents < 0n ? -1n : 0n);

/** A ratio of two amounts as a number (for diagnostics, never booked). */
export const ratioOf = (a: Cents, b: Cents) => (b === 0n ? null : Number(a) / Number(b));
