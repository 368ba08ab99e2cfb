// How numbers, rates and times read on a desk: money with separators and 2 decimals, rates with the precision their size needs, percentages signed, times in UTC with the local time beside.

import type { ChalkInstance } from 'chalk';
import { utcMinute, utcSecond } from '../../core/utc-text.js';

/** Decimals a plain number shows as sent (up to 6): 12.5 → 1, 3 → 0. */
export function fractionDigits(value: number) {
  if (Number.isInteger(value)) return 0;
  for (let digits = 1; digits < 6; digits++) {
    const scaled = value * 10 ** digits;
    if (Math.abs(scaled - Math.round(scaled)) < 1e-9 * Math.max(1, Math.abs(scaled))) return digits;
  }
  return 6;
}

export const formatPercent = (value: number, decimals = 4) => signedFixed(value, decimals, '%');

/** "1 day", "3 days", "2.5 days" (to a tenth). */
export function formatDays(days: number) {
  return days === 1 ? '1 day' : `${Math.round(days * 10) / 10} days`;
}

export const formatBps = (value: number) => signedFixed(value, 1, ' bps');

/** Green for a gain, red for a loss; nought as `zero` draws it. */
export const toned = (c: ChalkInstance, value: number, text: string, zero = (same: string) => same) =>
  value > 0 ? c.green(text) : value < 0 ? c.red(text) : zero(text);

const signedFixed = (value: number, decimals: number, unit: string) =>
  `${value > 0 ? '+' : value < 0 ? '-' : ''}${Math.abs(value).toFixed(decimals)}${unit}`;

/** The time `iso` names as `show` says, or `iso` itself when it names none. */
function onDate(iso: string, show: (date: Date) => string) {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : show(date);
}

/** "2026-11-25 08:00:00 UTC" (`cut`: to the minute); a time that cannot be read as sent, never labelled UTC ('' stays ''). */
export const formatUtc = (iso: string, cut = utcSecond) => onDate(iso, (date) => `${cut(date)} UTC`);

/** "2026-11-25 08:00" (UTC, to the minute): a time in a table column headed "UTC". */
export function formatUtcMinutes(iso: string) {
  // A UTC timestamp as servers write it ("2026-11-21T23:44:18.103Z") reads as its own first 16 characters: no Date to make, per cell of a long table.
  return UTC_TIMESTAMP.test(iso) ? utcMinute(iso) : onDate(iso, utcMinute);
}

/** Time left until `iso`: "2d 23h", "5h 10m", "4m"; "due" once it has passed; '' when unreadable. */
export function formatTimeLeft(iso: string, nowMs: number) {
  // An unreadable time is never <= now, and formatRelative gives it ''.
  return Date.parse(iso) <= nowMs ? 'due' : formatRelative(iso, nowMs).replace(/^in /, '');
}

/** `YYYY-MM-DDTHH:MM`, seconds and a fraction optional, `Z`: month, day, hour and minute in range. */
const UTC_TIMESTAMP = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])T([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d+)?)?Z$/;

/** The local time to show beside a UTC one ("2026-11-25 09:00 GMT+1"), or '' when the machine's zone reads the same clock then (TZ=UTC, London in winter): a second line saying the same is noise. */
export function localTimeBeside(iso: string, timeZone?: string) {
  const local = onDate(iso, (date) => {
    const part = Object.fromEntries(
      new Intl.DateTimeFormat('en-CA', {
        timeZone,
        year: 'numeric',
        month: '2-digit',
        day: '2-digit',
        hour: '2-digit',
        minute: '2-digit',
        hourCycle: 'h23',
        timeZoneName: 'short',
      })
        .formatToParts(date)
        .map(({ type, value }) => [type, value]),
    );
    return `${part.year}-${part.month}-${part.day} ${part.hour}:${part.minute} ${part.timeZoneName}`;
  });
  return local.startsWith(formatUtcMinutes(iso)) ? '' : local;
}

/** "in 2d 23h", "in 5m", "3h ago"; "now" within a second either way. */
export function formatRelative(iso: string, nowMs: number) {
  const target = Date.parse(iso);
  if (Number.isNaN(target)) return '';
  const delta = target - nowMs;
  const abs = Math.abs(delta);
  if (abs < 1000) return 'now';
  const minutes = Math.floor(abs / 60_000);
  const hours = Math.floor(minutes / 60);
  const days = Math.floor(hours / 24);
  const text =
    days > 0
      ? `${days}d ${hours % 24}h`
      : hours > 0
        ? `${hours}h ${minutes % 60}m`
        : minutes > 0
          ? `${minutes}m`
          : `${Math.floor(abs / 1000)}s`;
  return delta >= 0 ? `in ${text}` : `${text} ago`;
}
