// Checks of what the operator typed, before any request: each failure is one UsageError line naming the argument and what is allowed (exit 2, nothing sent).
import { UsageError } from './errors.js';
import { cents } from './money.js';
import { hasUnsafeText } from './security/safe-text.js';
import { containsKeyShape } from './security/secrets.js';
import { MAX_PAGE_SIZE } from './wire.js';
import { HEDGE_STATUSES, HOUR_MS, type Side } from './vocabulary.js';

type Env = Readonly<Record<string, string | undefined>>;

const MARKET_SHAPE = /^[A-Z0-9]{3,20}$/;
const HEDGE_ID_SHAPE = /^hdg_[A-Za-z0-9_-]{1,100}$/;
const MAX_NOTIONAL_USD = 1e12;
const MAX_ECHO = 40;
/** Linux's PATH_MAX: no file or folder a person could act on has a longer name. */
const MAX_PATH = 4096;

/** Quotes what was typed, shortened so that a 10 kB argument does not flood the terminal. */
export function echo(raw: string) {
  const shown = raw.length > MAX_ECHO ? `${raw.slice(0, MAX_ECHO)}… (${raw.length} characters)` : raw;
  return JSON.stringify(shown);
}

/** Quotes a file or folder named in a message a person acts on: whole, as it must be typed or fixed (only a table cell shortens a path). */
export function quotePath(path: string) {
  return path.length > MAX_PATH ? echo(path) : JSON.stringify(path);
}

/** The refusal of a value typed for `name`, saying what `name` takes. */
export function notAllowed(name: string, raw: unknown, allowed: string) {
  return new UsageError(`${name}: ${echo(String(raw))} is not allowed; expected ${allowed}.`);
}

/** The value trimmed; blank or absent, a refusal naming it. */
function required(name: string, raw: string | undefined, allowed: string) {
  if (!raw?.trim()) throw new UsageError(`${name}: missing; expected ${allowed}.`);
  return raw.trim();
}

/** Whether a string is a market name as parseMarket returns it (3 to 20 upper-case letters and digits). */
export function isMarketName(value: string) {
  return MARKET_SHAPE.test(value);
}

/** Upper-cased and trimmed; the live markets list decides whether it is tradable. */
export function parseMarket(raw: string | undefined) {
  const value = required('market', raw, 'a market such as USDTNGN');

  if (/[^\x20-\x7e]/.test(value))
    throw new UsageError(
      `market: ${echo(value)} has characters outside plain ASCII letters and digits (a look-alike?); expected e.g. USDTNGN.`,
    );
  const market = value.toUpperCase();
  if (!MARKET_SHAPE.test(market))
    throw new UsageError(
      `market: ${echo(value)} is not a market name; expected 3 to 20 letters and digits such as USDTNGN.`,
    );
  return market;
}

export function parseSide(raw: string | undefined): Side {
  const value = required('side', raw, 'buy or sell').toLowerCase();
  if (value !== 'buy' && value !== 'sell') throw notAllowed('side', raw, 'buy or sell');
  return value;
}

/** Which amounts an option takes: `positive` (a notional, an agent's limit), `zero-or-more` (a tolerance, a headroom threshold), `signed` (a P&L threshold). */
type AmountSign = 'positive' | 'zero-or-more' | 'signed';

const AMOUNT_EXAMPLES: Record<AmountSign, string> = {
  positive: 'a positive USD amount such as 10000, 10_000, 10k or 1.5m',
  'zero-or-more': 'a USD amount of 0 or more such as 100, 10_000, 10k or 1.5m',
  signed: 'a USD amount, signed, such as -500, -1,000, -2.5k or 0',
};

// Groups of three after a 1-3 digit head, one separator kind throughout: `1000,000` (a European 1000.000?), `1,0,0` and `1,000_000` are refused rather than read 1000 times too big or small.
const AMOUNT_SHAPE = /^([+-]?)((?:\d{1,3}(?:([_,])\d{3})(?:\3\d{3})*|\d+)(?:\.\d+)?|\.\d+)(k|m|bn)?$/i;
const AMOUNT_SCALE: Record<string, number> = { '': 1, k: 1e3, m: 1e6, bn: 1e9 };

/** The one grammar of an amount: `10000`, `10_000`, `10,000`, `10k`, `1.5m`, `1.2bn`, at most 2 decimals once scaled, at most `max`; a sign only where `sign` is `signed`. */
export function readAmount(text: string, sign: AmountSign, max: number) {
  const match = AMOUNT_SHAPE.exec(text.trim());
  if (!match || (match[1] !== '' && sign !== 'signed')) return 'shape';
  const amount =
    Number(match[2].replace(/[_,]/g, '')) * AMOUNT_SCALE[(match[4] ?? '').toLowerCase()] * (match[1] === '-' ? -1 : 1);
  if (!Number.isFinite(amount) || (sign === 'positive' ? amount <= 0 : sign === 'zero-or-more' && amount < 0))
    return 'shape';
  if (Math.abs(amount) > max) return 'too-big';
  if (Math.abs(Math.round(amount * 100) - amount * 100) > 1e-6) return 'cents';
  return cents(amount);
}

/** An amount in readAmount's grammar (`30m`, `10_000`, `-2.5k`) as plain decimal text, scaled exactly on its digits (no
 * float), for a reader of exact decimals; undefined when it is written otherwise. */
export function amountAsDecimalText(text: string) {
  const match = AMOUNT_SHAPE.exec(text.trim());
  if (!match) return;
  const [, sign, digits, , suffix = ''] = match;
  const zeros = Math.log10(AMOUNT_SCALE[suffix.toLowerCase()]);
  const [whole, fraction = ''] = digits.replace(/[_,]/g, '').split('.');
  const padded = fraction.padEnd(zeros, '0');
  const integer = `${whole}${padded.slice(0, zeros)}`.replace(/^0+(?=\d)/, '') || '0';
  const rest = padded.slice(zeros);
  return `${sign === '-' ? '-' : ''}${integer}${rest ? `.${rest}` : ''}`;
}

/** A USD amount an argument or option takes (readAmount's grammar); a refusal is one line naming it, exit 2. */
export function parseUsdAmount(raw: string | undefined, name: string, sign: AmountSign = 'positive') {
  const allowed = AMOUNT_EXAMPLES[sign];
  // An argument left blank is missing; an option given a blank value (`--tolerance ""`) is a bad value.
  const value = (name.startsWith('--') ? (raw ?? '') : required(name, raw, allowed)).trim();
  const amount = readAmount(value, sign, MAX_NOTIONAL_USD);
  if (typeof amount === 'number') return amount;
  const why = {
    shape: `is not allowed; expected ${allowed}`,
    'too-big': 'is more than 1,000,000,000,000 USD',
    cents: 'has more than 2 decimals (cents)',
  }[amount];
  throw new UsageError(`${name}: ${echo(value)} ${why}.`);
}

export function parseNotional(raw: string | undefined, name = 'notional') {
  return parseUsdAmount(raw, name);
}

/** Days: `3`, or with its one unit `3d`; another unit (`1w`, `72h`) is refused, never read as its number. */
export function parseTenor(raw: string | undefined) {
  const value = required('--tenor', raw, '1, 3 or 7 (days)').replace(/d$/i, '');
  if (value === '1' || value === '3' || value === '7') return Number(value) as 1 | 3 | 7;
  const unit = /^[\d.]+\s*[a-z]/i.test(value) ? '; d is the only unit (3d is 3 days)' : '';
  throw notAllowed('--tenor', raw, `1, 3 or 7 (days)${unit}`);
}

/** How many rows `hedges` and `history` list without --limit or --all: hedge's own length, the same on every server (read across pages of whatever size the server uses), never the server's page. */
const DEFAULT_LIST_LENGTH = 50;

/** --limit N, or --all (every row, page after page: Infinity), else DEFAULT_LIST_LENGTH; both together is bad usage. */
export function parseListLength(limitRaw: unknown, allRaw: unknown) {
  const limit = limitRaw === undefined ? undefined : parseWholeNumber(limitRaw, '--limit', 1, MAX_PAGE_SIZE);
  const all = allRaw === true;
  if (all && limit !== undefined)
    throw new UsageError('--limit and --all disagree: give one of them (--all reads every page).');
  return { limit: all ? Infinity : (limit ?? DEFAULT_LIST_LENGTH), defaulted: !all && limit === undefined };
}

/** The one whole-number grammar: digits only (surrounding space aside), from `min` to `max`; a refusal names `allowed`. */
export function parseWholeNumber(
  raw: unknown,
  name: string,
  min: number,
  max: number,
  allowed = `a whole number from ${min} to ${max}`,
) {
  const value = readDecimal(raw, { min, max, decimals: 0 });
  if (value === undefined) throw notAllowed(name, raw, allowed);
  return value;
}

/** What a decimal option, variable or file key takes. */
interface DecimalRange {
  min: number;
  max: number;
  /** `min` itself refused: the value must be above it (a lifetime, a speed). */
  aboveMin?: boolean;
  /** At most this many decimals (seconds read to the millisecond: 3). */
  decimals?: number;
  /** A `%` may follow the number. */
  percent?: boolean;
}

const DECIMAL_SHAPE = /^([+-]?)\d+(?:\.(\d+))?$/;

/** The one decimal grammar: digits and a fraction if any (no exponent or hex; a sign only in a range below 0), surrounding space aside, within `range`; undefined when refused. */
export function readDecimal(raw: unknown, { min, max, aboveMin, decimals = Infinity, percent }: DecimalRange) {
  const text = String(raw).trim();
  const match = DECIMAL_SHAPE.exec(percent && text.endsWith('%') ? text.slice(0, -1) : text);
  const value = Number(match?.[0]);
  if (!match || (match[1] && min >= 0) || (match[2]?.length ?? 0) > decimals) return;
  return value > max || (aboveMin ? value <= min : value < min) ? undefined : value;
}

/** A decimal an option or variable takes (readDecimal's grammar); a refusal is one line naming it, the unit, the range and an example, exit 2. */
export function parseDecimal(raw: unknown, range: DecimalRange & { name: string; unit: string; example: string }) {
  const value = readDecimal(raw, range);
  if (value !== undefined) return value;
  const { name, unit, min, max, example } = range;
  const bounds = range.aboveMin ? `above ${min} and at most ${max}` : `from ${min} to ${max}`;
  throw notAllowed(name, raw, `${unit} ${bounds}, e.g. ${example}`);
}

/** How long after an identical write ended a re-run is refused without --again: HEDGE_REPEAT_WINDOW minutes (10; 0 turns it off). */
export function repeatWindowMs(env: Env) {
  const raw = env.HEDGE_REPEAT_WINDOW;
  if (!raw?.trim()) return 10 * 60_000;
  return (
    parseDecimal(raw, { name: 'HEDGE_REPEAT_WINDOW', unit: 'minutes', min: 0, max: 24 * 60, example: '10 (0: off)' }) *
    60_000
  );
}

/** HEDGE_KEY_LIFETIME in hours (a positive number), in ms; the default when unset. */
export function keyLifetimeMs(env: Env) {
  const raw = env.HEDGE_KEY_LIFETIME;
  if (!raw?.trim()) return 12 * HOUR_MS;
  return (
    parseDecimal(raw, {
      name: 'HEDGE_KEY_LIFETIME',
      unit: 'hours',
      min: 0,
      aboveMin: true,
      max: 24 * 365,
      example: '12 or 0.5',
    }) * HOUR_MS
  );
}

/** The first of `keys` given in `values` (a switch given false was not), as its flag: alertPnl is --alert-pnl. */
export function firstGiven(values: object, keys: string) {
  const key = keys.split(' ').find((name) => ((values as Record<string, unknown>)[name] ?? false) !== false);
  return key && `--${key.replace(/[A-Z]/g, '-$&').toLowerCase()}`;
}

export function parseStatus(raw: unknown) {
  if (raw === undefined) return;
  const value = String(raw).trim().toLowerCase();
  const found = HEDGE_STATUSES.find((status) => status === value);
  if (!found) throw notAllowed('--status', raw, `one of ${HEDGE_STATUSES.join(', ')}`);
  return found;
}

/** An id shortened as a table shows it (`hdg_0mw…9bif`; `...` typed for `…`): its start and its end. */
const SHOWN_SHORT = /^([A-Za-z0-9_-]*)(?:…|\.\.\.)([A-Za-z0-9_-]*)$/;

/** A hedge id whole, or as much of one as a table shows: its start, its end, or both around `…`. */
export function parseHedgeId(raw: string | undefined) {
  const value = required('id', raw, 'a hedge id such as hdg_…');
  if (!/^[A-Za-z0-9_-]{1,104}$/.test(value) && !SHOWN_SHORT.test(value))
    throw new UsageError(
      `id: ${echo(value)} is not a hedge id; expected hdg_ followed by letters and digits, or the part of one a table shows (hdg_0mw…9bif, its start or its end).`,
    );
  return value;
}

export function sameReference(a: unknown, b: unknown) {
  return typeof a === 'string' && typeof b === 'string' && a.trim().toUpperCase() === b.trim().toUpperCase();
}

/** Whether a typed hedge id is one whole (else only a part of one, to be found in the list). */
export function isWholeHedgeId(value: string) {
  return HEDGE_ID_SHAPE.test(value);
}

/** Whether what a person typed names `id`, case aside: the id whole, its start or its end (as git takes a short hash), or its start and end around `…` as a table shortens it. */
export function idMatches(typed: string, id: string) {
  const want = typed.trim().toLowerCase();
  const have = id.toLowerCase();
  const shown = SHOWN_SHORT.exec(want);
  if (!shown) return want !== '' && (have.startsWith(want) || have.endsWith(want));
  const [, start = '', end = ''] = shown;
  return have.length > start.length + end.length && have.startsWith(start) && have.endsWith(end);
}

export function parseClientReference(raw: unknown) {
  if (raw === undefined) return;
  const value = String(raw);
  // The spec shows no constraint; refuse only what cannot be a sensible deal id.
  if (!value.trim() || value.length > 128 || hasUnsafeText(value))
    throw notAllowed(
      '--ref',
      value,
      '1 to 128 printable characters (no control, bidirectional or zero-width characters)',
    );
  // A reference is stored on the server, in the journal and in every listing: it must never be a key.
  if (containsKeyShape(value))
    throw new UsageError(
      '--ref: the reference looks like an API key (<prefix>_live_… or <prefix>_test_…), which is never sent as data; use a deal id such as DEAL-42.',
    );
  return value;
}
