// Durations as a person types them: `30m`, `6h`, `1d`, `1d12h`, `2w`, and as hedge shows them (`formatSpan`, the one
// duration text); and a point in time as `--since`/`--until` take it, read one way by every command: a date (midnight
// UTC), an ISO time (UTC when no zone is given), or a time ago whose calendar months are `mo`, as `m` is minutes.
import { notAllowed } from './input.js';
import { utcDay } from './utc-text.js';
import { DAY_MS } from './vocabulary.js';

const UNIT_MS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };
const DURATION_EXAMPLES = ['30m', '6h', '1d', '1d12h', '2w'];
/** Hedges run for at most 7 days; a year leaves room for anything a desk schedules around them. */
const MAX_DURATION_MS = 366 * 86_400_000;

/** Parses a duration; throws a UsageError (exit 2) whose message starts with `name:` and says what is allowed. */
export function parseDuration(raw: string, name: string, units = 'mhdw', maxMs = MAX_DURATION_MS) {
  const value = raw.trim().toLowerCase().replace(/\s+/g, '');
  // Only examples this option takes: `--within 30m` is refused, so its message never offers 30m.
  const examples = DURATION_EXAMPLES.filter((example) =>
    [...example.replace(/\d/g, '')].every((unit) => units.includes(unit)),
  );
  const allowed = `a duration such as ${examples.slice(0, -1).join(', ')} or ${examples.at(-1)} (${[...units].join(', ')})`;
  // Amounts each with one of the units this option takes.
  if (!new RegExp(`^(\\d+(\\.\\d+)?[${units}])+$`).test(value)) throw notAllowed(name, raw, allowed);
  let ms = 0;
  for (const [, amount, unit] of value.matchAll(/(\d+(?:\.\d+)?)([smhdw])/g)) ms += Number(amount) * UNIT_MS[unit];
  if (!(ms > 0) || ms > maxMs)
    throw notAllowed(name, raw, `${allowed}, more than 0${maxMs === MAX_DURATION_MS ? ' and at most 366d' : ''}`);
  return { ms: Math.round(ms), text: value };
}

/** `12 ms`, `0.5 s`, `1.5 s`, `45 s`, `10 min 1 s`, `2 h 5 min`, `3 days 4 h`: two units at most, a last one of 0 left
 * out; under 10 s a tenth of a second is kept, so that a configured 1.5 s is not said as 2 s. */
export function formatSpan(ms: number) {
  if (ms < 100) return `${Math.round(ms)} ms`;
  if (ms < 9950) return `${Number((ms / 1000).toFixed(1))} s`;
  const seconds = Math.round(ms / 1000);
  if (seconds < 120) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 120) return units(minutes, 'min', seconds % 60, 's');
  const hours = Math.floor(minutes / 60);
  return hours < 48 ? units(hours, 'h', minutes % 60, 'min') : units(Math.floor(hours / 24), 'days', hours % 24, 'h');
}

const units = (whole: number, unit: string, rest: number, restUnit: string) =>
  `${whole} ${unit}${rest ? ` ${rest} ${restUnit}` : ''}`;

/** A date, or a date and a time with its zone or none. */
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(Z|[+-]\d{2}:\d{2})?)?$/i;
const MONTHS_AGO = /^(\d{1,4})mo$/i;

/** `3mo`: that many calendar months before `now`, at the same time of day, on the same day or the month's last; undefined for any other text. */
export function readMonthsAgo(text: string, now: Date) {
  const months = MONTHS_AGO.exec(text.trim());
  if (!months) return;
  const year = now.getUTCFullYear();
  const month = now.getUTCMonth() - Number(months[1]);
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  return new Date(Date.UTC(year, month, Math.min(now.getUTCDate(), lastDay)) + (now.getTime() % DAY_MS));
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
