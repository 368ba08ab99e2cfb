// The P&L report, pure: money is summed in integer cents so groups add up to the totals exactly.
// Every figure is on the account's side: net = gross + carry + fees.
import type { HistoryFacts } from '../../core/wire.js';
import { quoteCurrencyOf } from '../../core/markets.js';
import { utcDay, utcIso, utcMonth } from '../../core/utc-text.js';
import { readDateTime, readMonthsAgo } from '../../core/duration.js';
import { sameReference } from '../../core/input.js';
import { DAY_MS } from '../../core/vocabulary.js';
import { toCents } from '../../core/money.js';
import { mapChildren } from '../../core/objects.js';

export interface ReportOptions {
  by: ReportGrouping;
  since?: Date;
  until?: Date;
  ref?: string;
}

/** A figure the records do not give is unknown, not 0: an optional figure is the sum over the records that give it, null when none does (`Report.missing` counts the gaps); net P&L is always known. */
export type ReportFigures = ReturnType<typeof emptyTally>;

/** The report, as `--json` writes it: its groups (by hedge, each with its deal), totals, unrealized P&L, cumulative line and what the records left out. */
export type Report = ReturnType<ReturnType<typeof reportBuilder>['finish']>;

const UNKNOWN_GROUP = { key: 'unknown', label: 'Unknown' };
/** `--by ref`: the group of closed hedges that carry no deal reference. Empty, as no reference is (a deal may well be called `unknown`); its label says what it is. */
const NO_REFERENCE_GROUP = { key: '', label: 'No reference' };

/** The figures a record may leave out, by the report's name and the record's. */
const OPTIONAL_FIGURES = [
  ['notional_usd', 'notionalUsd'],
  ['gross_pnl_usd', 'grossPnlUsd'],
  ['carry_pnl_usdc', 'carryUsd'],
  ['fees_pnl_usdc', 'feesUsd'],
] as const;

/** A sum no record has given a figure to yet. */
const NO_SUM = null as number | null;

/** A group's figures in cents while records are added. */
const emptyTally = () => ({
  count: 0,
  notional_usd: NO_SUM,
  gross_pnl_usd: NO_SUM,
  carry_pnl_usdc: NO_SUM,
  fees_pnl_usdc: NO_SUM,
  net_pnl_usd: 0,
});

const addKnown = (sum: number | null, value: number | undefined) =>
  value === undefined ? sum : (sum ?? 0) + toCents(value);

/** Adds a record to each tally; `missing` counts the figures it leaves out. */
function addRecord(record: HistoryFacts, missing: Record<string, number>, ...tallies: ReportFigures[]) {
  for (const tally of tallies) {
    tally.count += 1;
    tally.net_pnl_usd += toCents(record.netPnlUsd);
  }
  for (const [figure, fact] of OPTIONAL_FIGURES) {
    for (const tally of tallies) tally[figure] = addKnown(tally[figure], record[fact]);
    missing[figure] += Number(record[fact] === undefined);
  }
}

const dollars = (cents: number | null) => (cents === null ? null : cents / 100);

/** The tally in dollars; with no record at all, every sum is 0 (nothing is unknown of nothing). */
const figures = (tally: ReportFigures) =>
  mapChildren(tally, (value, name) =>
    name === 'count' ? value : dollars((value as number | null) ?? (tally.count ? null : 0)),
  ) as ReportFigures;

const pad = (value: number, width = 2) => String(value).padStart(width, '0');

/** 00:00 UTC of the Monday on or before `ms`. */
export function weekStart(ms: number) {
  const day = Math.floor(ms / DAY_MS) * DAY_MS;
  const weekday = (new Date(day).getUTCDay() + 6) % 7;
  return day - weekday * DAY_MS;
}

/** ISO 8601 week (weeks start on Monday; week 1 holds the year's first Thursday): `2026-W47`. */
export function isoWeekKey(ms: number) {
  const thursday = new Date(weekStart(ms) + 3 * DAY_MS);
  const year = thursday.getUTCFullYear();
  const dayOfYear = Math.floor((thursday.getTime() - Date.UTC(year, 0, 1)) / DAY_MS);
  return `${pad(year, 4)}-W${pad(Math.floor(dayOfYear / 7) + 1)}`;
}

/** Each grouping of `--by`, in the order it is listed, and the key it puts a closed hedge under. */
const GROUP_KEYS = {
  day: (_, closedMs) => utcDay(closedMs),
  week: (_, closedMs) => isoWeekKey(closedMs),
  month: (_, closedMs) => utcMonth(closedMs),
  side: (record) => record.side,
  tenor: (record) => record.tenorDays?.toString(),
  market: (record) => record.market,
  hedge: (record) => record.hedgeId,
  // A deal across its rolls: every closed hedge that carried its reference.
  ref: (record) => record.clientReference,
} satisfies Record<string, (record: HistoryFacts, closedMs: number) => string | undefined>;

export type ReportGrouping = keyof typeof GROUP_KEYS;
export const REPORT_GROUPINGS = Object.keys(GROUP_KEYS) as ReportGrouping[];

function groupOf(record: HistoryFacts, closedMs: number, by: ReportGrouping) {
  const key = GROUP_KEYS[by](record, closedMs);
  if (key === undefined) return by === 'ref' ? NO_REFERENCE_GROUP : UNKNOWN_GROUP;
  return { key, label: by === 'tenor' ? `${key} ${key === '1' ? 'day' : 'days'}` : key };
}

/** The quote-currency amount a closed hedge locked: notional × entry rate, in cents. */
export function lockedCents(record: Pick<HistoryFacts, 'notionalUsd' | 'entryPrice'>) {
  return record.notionalUsd === undefined || record.entryPrice === undefined
    ? undefined
    : toCents(record.notionalUsd * record.entryPrice);
}

/** The currency of a closed hedge's market, when its name says it. */
export const quoteOf = (record: Pick<HistoryFacts, 'market'>) => quoteCurrencyOf(record.market ?? '') ?? null;

function dealOf(record: HistoryFacts) {
  const locked = lockedCents(record);
  return {
    client_reference: record.clientReference ?? null,
    market: record.market ?? null,
    side: record.side ?? null,
    tenor_days: record.tenorDays ?? null,
    closed_at: record.closedAt ?? null,
    entry_price: record.entryPrice ?? null,
    exit_price: record.exitPrice ?? null,
    quote_currency: quoteOf(record),
    quote_amount_locked: locked === undefined ? null : locked / 100,
  };
}

/** Groups by key (tenors by number), the group without a key last. */
const compareKeys = (by: ReportGrouping) => (a: string, b: string) => {
  const last = (by === 'ref' ? NO_REFERENCE_GROUP : UNKNOWN_GROUP).key;
  return Number(a === last) - Number(b === last) || (by === 'tenor' ? Number(a) - Number(b) : a < b ? -1 : 1);
};

/** Whether a close time falls outside [since, until); a bound not given holds every time. */
export const outsidePeriod = (ms: number, { since, until }: { since?: Date; until?: Date }) =>
  (since !== undefined && ms < since.getTime()) || (until !== undefined && ms >= until.getTime());

/** A record's place in the listing: its close time in ms, NaN without one (those go last). */
export function closedHedgeTime(record: Pick<HistoryFacts, 'closedAt'>) {
  return Date.parse(record.closedAt ?? '');
}

/** The listing's comparison on (close time, arrival): dated records by close time, then those without one; ties as they came. */
export function compareListed(aMs: number, aIndex: number, bMs: number, bIndex: number) {
  // Two undated: NaN - NaN is NaN, so they fall through to their order of arrival.
  return Number(!Number.isFinite(aMs)) - Number(!Number.isFinite(bMs)) || aMs - bMs || aIndex - bIndex;
}

/** The cumulative line, compact: distinct close times and the running net P&L after each (a streaming writer reads it point by point). */
export type CumulativeSeries = ReturnType<typeof cumulativeSeries>;

/** One point of the line, as Report.cumulative holds it. */
export function cumulativePoint(series: CumulativeSeries, index: number) {
  return { at: utcIso(series.timesMs[index]), net_pnl_usd: series.netUsd[index] };
}

export function cumulativePoints(series: CumulativeSeries) {
  return Array.from({ length: series.length }, (_, index) => cumulativePoint(series, index));
}

function cumulativeSeries(timesMs: number[], cents: number[]) {
  const order = Uint32Array.from(timesMs.keys()).sort((a, b) => timesMs[a] - timesMs[b]);
  const times: number[] = [];
  const nets: number[] = [];
  let runningCents = 0;
  for (const index of order) {
    runningCents += cents[index];
    // Closes at the same instant make one point, the total after all of them.
    if (times.at(-1) !== timesMs[index]) times.push(timesMs[index]);
    nets[times.length - 1] = runningCents / 100;
  }
  return { length: times.length, timesMs: Float64Array.from(times), netUsd: Float64Array.from(nets) };
}

/** The report built one closed hedge at a time: a history read page by page is never held whole; memory grows with groups and close times, not records. */
export function reportBuilder(options: ReportOptions) {
  const totals = emptyTally();
  /** Each group's tally; `--by hedge`: its deal's own line (reference, rates, amounts) and close time, the first record's. */
  const groups = new Map<
    string,
    { identity: typeof UNKNOWN_GROUP; tally: ReportFigures; deal?: ReturnType<typeof dealOf>; closedMs?: number }
  >();
  /** Close time (ms) and net P&L (cents) of each dated record, for the cumulative line. */
  const closeTimes: number[] = [];
  const closeCents: number[] = [];
  const missing = { notional_usd: 0, gross_pnl_usd: 0, carry_pnl_usdc: 0, fees_pnl_usdc: 0 };
  /** The quote-currency amount locked (notional × entry rate), per currency, in cents. */
  const locked = new Map<string | null, { cents: number; count: number }>();
  const left = { excluded: 0, undated: 0 };
  /** The cumulative line of every record added, compact. */
  const cumulative = () => cumulativeSeries(closeTimes, closeCents);
  return {
    /** Counts one closed hedge; returns whether the report covers it (its period and close-time rule). */
    add(record: HistoryFacts) {
      const closedMs = closedHedgeTime(record);
      const dated = Number.isFinite(closedMs);
      // Read at each record: a caller may set the period once the server's clock is known.
      const { since, until, by, ref } = options;
      // Day, week and month (the first groupings) need a close time.
      if (!dated && (since || until || REPORT_GROUPINGS.indexOf(by) < 3)) {
        left.excluded += 1;
        return false;
      }
      // NaN is outside no period: an undated record gets here only when no period is given.
      if (outsidePeriod(closedMs, options) || (ref !== undefined && !sameReference(record.clientReference, ref)))
        return false;

      const identity = groupOf(record, closedMs, by);
      // A hedge id seen twice is one group: its deal is the first record's.
      const group = groups.get(identity.key) ?? {
        identity,
        tally: emptyTally(),
        ...(by === 'hedge' ? { deal: dealOf(record), closedMs: dated ? closedMs : Infinity } : {}),
      };
      groups.set(identity.key, group);
      addRecord(record, missing, group.tally, totals);
      if (dated) {
        closeTimes.push(closedMs);
        closeCents.push(toCents(record.netPnlUsd));
      } else left.undated += 1;
      const lockedAmount = lockedCents(record);
      if (lockedAmount !== undefined) {
        const sum = locked.get(quoteOf(record)) ?? { cents: 0, count: 0 };
        sum.cents += lockedAmount;
        sum.count += 1;
        locked.set(quoteOf(record), sum);
      }
      return true;
    },
    cumulative,
    /** The report of every record added, with the open positions' unrealized P&L. `points: false` leaves `cumulative` empty, for a caller that writes the line from cumulative() itself. */
    finish(openPositions: ReadonlyArray<{ netPnlUsd?: number }>, { points = true }: { points?: boolean } = {}) {
      const { by, since, until } = options;
      const order = compareKeys(by);
      // Deals in close-time order (undated last), as a deal list reads; other groups by their keys.
      const sorted = [...groups.values()].sort(
        (a, b) => (a.closedMs ?? Infinity) - (b.closedMs ?? Infinity) || order(a.identity.key, b.identity.key),
      );
      return {
        by,
        since: since?.toISOString() ?? null,
        until: until?.toISOString() ?? null,
        groups: sorted.map(({ identity, tally, deal }) => ({ ...identity, ...figures(tally), ...(deal && { deal }) })),
        totals: figures(totals),
        unrealized: {
          positions: openPositions.length,
          net_pnl_usd: dollars(
            openPositions.reduce<number | null>(
              (cents, position) => addKnown(cents, position.netPnlUsd),
              openPositions.length ? null : 0,
            ),
          ),
        },
        cumulative: points ? cumulativePoints(cumulative()) : [],
        ...left,
        missing: { ...missing },
        locked: [...locked.entries()]
          .sort(([a], [b]) => (a ?? '\uffff').localeCompare(b ?? '\uffff'))
          .map(([currency, sum]) => ({ quote_currency: currency, amount: sum.cents / 100, count: sum.count })),
      };
    },
  };
}

/** Days and weeks; months are `mo` (readMonthsAgo), and a bare `m` is refused, never guessed: `m` is minutes in every other duration hedge reads. */
const TIME_AGO = /^(\d{1,4})([dwm])$/i;

/** Parses a `--since`/`--until` value, or says why it cannot (a string); `now` is the injected clock for the relative forms. */
export function parseReportDate(text: string, now: Date) {
  const value = text.trim();
  const [, count, unit] = TIME_AGO.exec(value)?.map((part) => part.toLowerCase()) ?? [];
  if (unit) {
    if (unit === 'm')
      return `"${value}" is ambiguous here: write ${Number(count)}mo for a month (m is minutes in hedge journal).`;
    return new Date(now.getTime() - Number(count) * (unit === 'w' ? 7 : 1) * DAY_MS);
  }
  return (
    readMonthsAgo(value, now) ??
    readDateTime(value) ??
    `"${text}" is not allowed; expected a date (2026-11-01, midnight UTC), an ISO 8601 timestamp (2026-11-01T08:00:00Z; UTC when no zone is given) or a time ago (7d, 2w, 1mo: days, weeks, calendar months).`
  );
}

/** A period that can hold nothing is a usage error, said before anything is fetched. */
export function reportPeriodProblem(since: Date | undefined, until: Date | undefined) {
  if (since && until && since.getTime() >= until.getTime())
    return `--since (${since.toISOString()}) must be before --until (${until.toISOString()}); --until is exclusive.`;
}
