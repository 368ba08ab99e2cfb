// How numbers, rates and times read on a desk: money with separators and 2 decimals, rates with
// the precision their size needs, percentages signed, times in UTC with the local time beside.

import { formatMoney } from '../domain/money.js';

export { formatMoney, formatUsd } from '../domain/money.js';

export function formatSignedMoney(value: number): string {
  const text = formatMoney(Math.abs(value));
  if (value > 0) return `+${text}`;
  if (value < 0) return `-${text}`;
  return text;
}

/** NGN per USDT (~1,500) wants 2 decimals; a rate near 1 wants 4; small ones more. */
export function rateDecimals(value: number): number {
  const size = Math.abs(value);
  if (size >= 100) return 2;
  if (size >= 1) return 4;
  return 6;
}

// One formatter per number of decimals, made on first use: building an Intl.NumberFormat costs far
// more than formatting with one. Ordinary numbers do not need one at all: they are rounded here the
// way Intl rounds (half away from zero, on the shortest decimal that reads back as the number, so
// 1.005 → 1.01) and the separators put in, several times faster per cell of a big table.
const fixedFormatters = new Map<number, Intl.NumberFormat>();
const PLAIN_DECIMAL = /^(\d+)(?:\.(\d+))?$/;
const THOUSANDS = /\B(?=(\d{3})+$)/g;

/** The number with thousands separators and exactly `decimals` decimals: 1,530.33 */
export function formatFixed(value: number, decimals: number): string {
  const digits = Number.isInteger(decimals) && decimals >= 0 && decimals <= 20 ? PLAIN_DECIMAL.exec(String(Math.abs(value))) : null;
  if (digits) {
    let whole = digits[1]!;
    let fraction = digits[2] ?? '';
    if (fraction.length > decimals) {
      const roundUp = fraction.charCodeAt(decimals) >= 53; // '5'
      fraction = fraction.slice(0, decimals);
      if (roundUp) [whole, fraction] = incremented(whole, fraction);
    }
    fraction = fraction.padEnd(decimals, '0');
    const grouped = whole.length > 3 ? whole.replace(THOUSANDS, ',') : whole;
    const text = decimals > 0 ? `${grouped}.${fraction}` : grouped;
    return value < 0 || Object.is(value, -0) ? `-${text}` : text;
  }
  let formatter = fixedFormatters.get(decimals);
  if (formatter === undefined) {
    formatter = new Intl.NumberFormat('en-US', { minimumFractionDigits: decimals, maximumFractionDigits: decimals });
    fixedFormatters.set(decimals, formatter);
  }
  return formatter.format(value);
}

/** whole.fraction plus one unit in the last place of `fraction`, as digit strings. */
function incremented(whole: string, fraction: string): [string, string] {
  const all = (whole + fraction).split('');
  let index = all.length - 1;
  while (index >= 0 && all[index] === '9') all[index--] = '0';
  if (index < 0) all.unshift('1');
  else all[index] = String.fromCharCode(all[index]!.charCodeAt(0) + 1);
  const split = all.length - fraction.length;
  return [all.slice(0, split).join(''), all.slice(split).join('')];
}

export function formatRate(value: number, decimals = rateDecimals(value)): string {
  return formatFixed(value, decimals);
}

/** Decimals a plain number shows as sent (up to 6): 12.5 → 1, 3 → 0. */
export function fractionDigits(value: number): number {
  if (Number.isInteger(value)) return 0;
  for (let digits = 1; digits < 6; digits++) {
    const scaled = value * 10 ** digits;
    if (Math.abs(scaled - Math.round(scaled)) < 1e-9 * Math.max(1, Math.abs(scaled))) return digits;
  }
  return 6;
}

export function formatPercent(value: number, decimals = 4): string {
  const text = Math.abs(value).toFixed(decimals);
  if (value > 0) return `+${text}%`;
  if (value < 0) return `-${text}%`;
  return `${text}%`;
}

export function formatBps(value: number): string {
  const text = Math.abs(value).toFixed(1);
  if (value > 0) return `+${text} bps`;
  if (value < 0) return `-${text} bps`;
  return `${text} bps`;
}

/** "2026-11-25 08:00:00 UTC" */
export function formatUtc(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return `${date.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

/** "2026-11-25 08:00" (UTC, to the minute): a time in a table column headed "UTC". */
export function formatUtcMinutes(iso: string): string {
  // A UTC timestamp as servers write it ("2026-11-21T23:44:18.103Z") reads as its own first 16
  // characters: no Date to make, per cell of a long table. Anything else goes through Date.
  if (UTC_TIMESTAMP.test(iso)) return `${iso.slice(0, 10)} ${iso.slice(11, 16)}`;
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return date.toISOString().slice(0, 16).replace('T', ' ');
}

/** Time left until `iso`: "2d 23h", "5h 10m", "4m"; "due" once it has passed; '' when unreadable. */
export function formatTimeLeft(iso: string, nowMs: number): string {
  const target = Date.parse(iso);
  if (Number.isNaN(target)) return '';
  if (target <= nowMs) return 'due';
  const relative = formatRelative(iso, nowMs);
  return relative.startsWith('in ') ? relative.slice(3) : relative;
}

/** `YYYY-MM-DDTHH:MM`, seconds and a fraction optional, `Z`: month, day, hour and minute in range. */
const UTC_TIMESTAMP = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])T([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d+)?)?Z$/;

/** "2026-11-25 09:00 (local)" in the machine's time zone. */
export function formatLocal(iso: string, timeZone?: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
    timeZoneName: 'short',
  }).formatToParts(date);
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  return `${part('year')}-${part('month')}-${part('day')} ${part('hour')}:${part('minute')} ${part('timeZoneName')}`;
}

/** "in 2d 23h", "in 5m", "3h ago"; "now" within a second either way. */
export function formatRelative(iso: string, nowMs: number): string {
  const target = Date.parse(iso);
  if (Number.isNaN(target)) return '';
  const delta = target - nowMs;
  const abs = Math.abs(delta);
  if (abs < 1000) return 'now';
  const minutes = Math.floor(abs / 60_000);
  const hours = Math.floor(minutes / 60);
  const days = Math.floor(hours / 24);
  let text: string;
  if (days > 0) text = `${days}d ${hours % 24}h`;
  else if (hours > 0) text = `${hours}h ${minutes % 60}m`;
  else if (minutes > 0) text = `${minutes}m`;
  else text = `${Math.floor(abs / 1000)}s`;
  return delta >= 0 ? `in ${text}` : `${text} ago`;
}

export function formatDuration(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  if (seconds < 60) return `${seconds}s`;
  return `${Math.floor(seconds / 60)}m ${seconds % 60}s`;
}

/** First 6 and last 4 of a 0x hash, for tables and spinners; details show it whole. */
export function shortHash(hash: string): string {
  return hash.length > 14 ? `${hash.slice(0, 6)}…${hash.slice(-4)}` : hash;
}
