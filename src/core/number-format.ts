// The one family of number formatters, and the one reader of a number sent as text.

/** `12`, `-3.10`, `.5`, `1e3`: what a server or a file may send as a decimal string. */
const NUMERIC_TEXT = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

/** Whether text is a decimal number; `spaces: false` refuses surrounding white space. */
export function isNumericText(text: string, spaces = true) {
  return NUMERIC_TEXT.test(spaces ? text.trim() : text);
}

/** A finite number, or numeric text read as one (`"99889.00"`: as some services send money). */
export function readNumber(value: unknown) {
  const number =
    typeof value === 'number' ? value : typeof value === 'string' && isNumericText(value) ? Number(value) : NaN;
  return Number.isFinite(number) ? number : undefined;
}

/** A number hedge computed for output (a sum of cents in binary floating point: -3.5599999999999996) as the decimal it
 * stands for (-3.56): 15 significant digits, as many as a double holds exactly. */
export function computedDecimal(value: number) {
  return Number.isFinite(value) ? Number(value.toPrecision(15)) : value;
}

const fixedFormatters = new Map<number, Intl.NumberFormat>();
const PLAIN_DECIMAL = /^(\d+)(?:\.(\d+))?$/;
const THOUSANDS = /\B(?=(\d{3})+$)/g;

export function formatFixed(value: number, decimals: number) {
  const digits =
    Number.isInteger(decimals) && decimals >= 0 && decimals <= 20 ? PLAIN_DECIMAL.exec(String(Math.abs(value))) : null;
  if (digits) {
    let whole = digits[1];
    let fraction = digits[2] ?? '';
    if (fraction.length > decimals) {
      const roundUp = fraction.charCodeAt(decimals) >= 53; // '5'
      fraction = fraction.slice(0, decimals);
      if (roundUp) {
        // One unit in the last place, carried through the digits.
        const digits = String(BigInt(whole + fraction) + 1n).padStart(whole.length + fraction.length, '0');
        const split = digits.length - fraction.length;
        [whole, fraction] = [digits.slice(0, split), digits.slice(split)];
      }
    }
    fraction = fraction.padEnd(decimals, '0');
    const grouped = whole.length > 3 ? whole.replace(THOUSANDS, ',') : whole;
    const text = decimals > 0 ? `${grouped}.${fraction}` : grouped;
    return value < 0 || Object.is(value, -0) ? `-${text}` : text;
  }
  const formatter =
    fixedFormatters.get(decimals) ??
    new Intl.NumberFormat('en-US', { minimumFractionDigits: decimals, maximumFractionDigits: decimals });
  fixedFormatters.set(decimals, formatter);
  return formatter.format(value);
}

/** At most `decimals` decimals, trailing zeros dropped (Intl's maximumFractionDigits): 1,500.5 */
export function formatUpTo(value: number, decimals: number) {
  const text = formatFixed(value, decimals);
  return text.includes('.') && !text.includes('e') ? text.replace(/\.?0+$/, '') : text;
}

export function formatMoney(value: number) {
  return formatFixed(value, 2);
}

/** "12,345.00 USD" */
export function formatUsd(value: number) {
  return `${formatMoney(value)} USD`;
}

/** "+1,234.56", "-1,234.56", "0.00": signed money, no sign on a figure that rounds to zero. */
export function formatSignedMoney(value: number) {
  const text = formatMoney(Math.abs(value));
  return text === '0.00' ? text : `${value > 0 ? '+' : '-'}${text}`;
}

/** NGN per USDT (~1,500) wants 2 decimals; a rate near 1 wants 4; small ones more. */
export function rateDecimals(value: number) {
  const size = Math.abs(value);
  return size >= 100 ? 2 : size >= 1 ? 4 : 6;
}

export function formatRate(value: number, decimals = rateDecimals(value)) {
  return formatFixed(value, decimals);
}

/** First 6 and last 4 of a 0x hash (a number too, in hex), for tables and a wait's line; details show it whole. */
export function shortHash(hash: string) {
  return hash.length > 14 ? `${hash.slice(0, 6)}…${hash.slice(-4)}` : hash;
}

/** A count with its noun: `1 hedge`, `2 hedges` (`many` where the plural is not the noun and an s). */
export const plural = (count: number, one: string, many = `${one}s`) => `${count} ${count === 1 ? one : many}`;
