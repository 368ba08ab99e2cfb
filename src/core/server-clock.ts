// The server's clock against ours: the offset is an interval, never a point, narrowed by every answer (its Date header,
// the stamp on our own first send of a write, and past stamps in its data as a bound from below only).

import { withoutUndefined, type JsonObject } from './objects.js';
import { formatSpan } from './duration.js';

type ClockSource = 'date' | 'stamps';

/** How far past what is known the server's clock is taken to be where nothing bounds it. */
export const ASSUMED_SKEW_MS = 5 * 60_000;

/** How far a Date header may lag the records' stamps and still be learned: a clock stepped back by NTP, not another clock. */
const DATE_LAG_ALLOWED_MS = 5_000;

/** Fields a record stamps with a time something already happened on the server. */
const PAST_STAMPS = ['opened_at', 'filled_at', 'closed_at'];

interface Bound {
  ms: number;
  from: ClockSource;
}

/** What was learned, for people: each side's bound (server − ours), what set it, and the last disagreement. */
export interface ClockReading {
  lowMs?: number;
  highMs?: number;
  from: ClockSource[];
  disagreedMs?: number;
  /** How far a Date header was behind a time the server's records had already reached: that header is not believed. */
  dateBehindMs?: number;
}

/** What this process learned of a server's clock, answer by answer. */
export function createServerClock() {
  let lower: Bound | undefined;
  let upper: Bound | undefined;
  let disagreedMs: number | undefined;
  /** The least offset a record's past stamp proves: its clock has reached it, whatever a Date header says. */
  let stampedLow = -Infinity;
  let dateBehindMs: number | undefined;

  function learn(from: ClockSource, low: number, high?: number) {
    if (from === 'stamps') stampedLow = Math.max(stampedLow, low);
    const apart = Math.max(upper ? low - upper.ms : 0, lower && high !== undefined ? lower.ms - high : 0);
    if (apart > 0) {
      disagreedMs = apart;
      lower = upper = undefined;
    }
    if (!lower || low > lower.ms) lower = { ms: low, from };
    if (high !== undefined && (!upper || high < upper.ms)) upper = { ms: high, from };
  }

  return {
    /** An answer's Date header, written between `sentAt` and `receivedAt` (our clock). */
    learnDate(header: string | undefined, sentAt: number, receivedAt: number) {
      const ms = Date.parse(header ?? '');
      if (!Number.isFinite(ms)) return;
      // The header is to the second: the most the server's clock can be ahead of ours.
      const high = ms + 1000 - sentAt;
      // A header from another clock (a gateway's) that is behind the records would move every maturity back and forth.
      if (high + DATE_LAG_ALLOWED_MS < stampedLow) dateBehindMs = stampedLow - high;
      else learn('date', ms - receivedAt, high);
    },

    /** An answer's data: its past stamps, and `own`, the field that stamps our own first send of it (at `sentAt`). */
    learnStamps(data: unknown, receivedAt: number, own?: { field: string; sentAt: number }) {
      // Any past stamp bounds it: the greatest as text is one parse for a page of 500 records.
      let newest = '';
      for (const record of Array.isArray(data) ? data : [data])
        for (const field of PAST_STAMPS) {
          const stamp = (record as JsonObject | null)?.[field];
          if (typeof stamp === 'string' && stamp > newest) newest = stamp;
        }
      const newestMs = Date.parse(newest);
      if (Number.isFinite(newestMs)) learn('stamps', newestMs - receivedAt);
      const stamp = own ? (data as JsonObject | null)?.[own.field] : undefined;
      const ms = typeof stamp === 'string' ? Date.parse(stamp) : NaN;
      // A stamp in whole seconds was made within the second it names.
      if (own && Number.isFinite(ms))
        learn('stamps', ms - receivedAt, ms + (/\.\d/.test(String(stamp)) ? 1 : 1000) - own.sentAt);
    },

    /** The server's time at one instant of ours, as far as its answers tell it. */
    at(localMs: number) {
      const low = lower?.ms;
      const high = upper?.ms;
      // The least move from ours the answers allow: ours wherever they do not show the server's clock differs (a Date
      // header to the second never moves a maturity by half a second), and never beyond what a stamp shows.
      const best = Math.min(Math.max(0, low ?? -Infinity), high ?? Infinity);
      return {
        localMs,
        // The bounds, with ASSUMED_SKEW_MS where nothing bounds a side: for proof (an age, a hedge that may have settled) and to act early (a roll).
        earliestMs: localMs + (low ?? Math.min(high ?? 0, 0) - ASSUMED_SKEW_MS),
        latestMs: localMs + (high ?? Math.max(low ?? 0, 0) + ASSUMED_SKEW_MS),
        // The one reading a maturity is judged and shown on (settling, time left): what the answers tell, else ours; never an assumed skew.
        bestMs: localMs + Math.round(best),
        assumed: low === undefined || high === undefined,
      };
    },

    reading(): ClockReading {
      return withoutUndefined({
        lowMs: lower?.ms,
        highMs: upper?.ms,
        from: [...new Set([lower?.from, upper?.from].filter((from) => from !== undefined))].sort(),
        disagreedMs,
        dateBehindMs,
      });
    },
  };
}

export type ServerClock = ReturnType<typeof createServerClock>;

export type ServerTime = ReturnType<ServerClock['at']>;

/**
 * How old an action is, for its key's lifetime: the larger of its age on the server's clock (the latest the server's
 * time can be now, less the earliest it can have been at the send) and on this machine's (from the send's local time,
 * and within one process `elapsedMs`, monotonic). A reading that contradicts itself never makes an action younger: a
 * send after the server's time now, or one the server's clock told and now does not, is an age that cannot be told
 * (`ms` undefined; `clock` names the clock that told it, or that contradicts itself).
 */
export function actionAge(
  sent: { serverMs?: number; localMs: number },
  now: { server?: ServerTime; localMs: number; elapsedMs?: number },
): { ms?: number; clock: 'server' | 'local' } {
  const local = Math.max(now.localMs - sent.localMs, now.elapsedMs ?? -Infinity);
  if (sent.serverMs === undefined) return { ms: local >= 0 ? local : undefined, clock: 'local' };
  const server = now.server ? now.server.latestMs - sent.serverMs : NaN;
  if (!(server >= 0)) return { clock: 'server' };
  return local > server ? { ms: local, clock: 'local' } : { ms: server, clock: 'server' };
}

/** The server's clock against ours in words: "45 s ahead of this machine's, give or take 0.5 s (from its Date header)", "at least 40 s ahead of this machine's (from the stamps on its answers; …)"; undefined when nothing was learned. */
export function describeServerClock(reading: ClockReading) {
  const { lowMs: low, highMs: high } = reading;
  if (low === undefined) return;
  const sources = reading.from.map((from) => (from === 'date' ? 'its Date header' : 'the stamps on its answers'));
  const learned = `from ${sources.join(' and ')}`;
  const relation = (ms: number) => `${formatSpan(Math.abs(ms))} ${ms >= 0 ? 'ahead of' : 'behind'} this machine's`;
  const behind = reading.dateBehindMs;
  const header =
    behind === undefined ? '' : `its Date header is ${formatSpan(behind)} behind the times in its records, so not used`;
  if (high === undefined)
    return `${low >= 0 ? 'at least' : 'at most'} ${relation(low)} (${learned}; nothing bounds it from above: ${header || 'no Date header'})`;
  const middle = (low + high) / 2;
  const around = Math.abs(middle) < 1000 ? "within a second of this machine's" : relation(middle);
  return `${around}, give or take ${formatSpan((high - low) / 2)} (${learned}${header && `; ${header}`})`;
}
