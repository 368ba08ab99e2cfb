// A point in time as `--since`/`--until` take it, read one way by every command: a date (midnight UTC),
// an ISO time (UTC when no zone is given), or a time ago whose calendar months are `mo`, as `m` is minutes.
import { utcDay } from './utc-text.js';
import { DAY_MS } from './vocabulary.js';

/** A date, or a date and a time with its zone or none. */
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})?)?$/i;
const MONTHS_AGO = /^(\d{1,4})mo$/i;

/** The same time of day `months` calendar months back, on the same day or the month's last. */
function monthsBefore(now: Date, months: number) {
  const year = now.getUTCFullYear();
  const month = now.getUTCMonth() - months;
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  return new Date(Date.UTC(year, month, Math.min(now.getUTCDate(), lastDay)) + (now.getTime() % DAY_MS));
}

/** `3mo`: that many calendar months before `now`; undefined for any other text. */
export function readMonthsAgo(text: string, now: Date) {
  const months = MONTHS_AGO.exec(text.trim());
  return months ? monthsBefore(now, Number(months[1])) : undefined;
}

/** A date or an ISO time as written; undefined for any other text. */
export function readDateTime(text: string) {
  const value = text.trim();
  const parts = DATE_TIME.exec(value);
  // Date.parse takes 2026-02-30 for 2 March and 24:00 for the next midnight: the day and hour must be the ones written.
  const ms =
    parts && Number(parts[4] ?? 0) < 24 && utcDay(Date.UTC(+parts[1], +parts[2] - 1, +parts[3])) === value.slice(0, 10)
      ? Date.parse(`${value}${parts[4] && !parts[7] ? 'Z' : ''}`.toUpperCase())
      : NaN;
  return Number.isFinite(ms) ? new Date(ms) : undefined;
}
