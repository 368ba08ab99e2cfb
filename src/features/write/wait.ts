// Waiting for an asynchronous action to resolve (design.md "Asynchronous actions").
import type { Hedge, HistoryRecord } from '../../platform/api/schemas.js';
import { recordStanding } from '../book/book.js';
import type { Side } from '../../core/vocabulary.js';
import type { WritePorts } from './ports.js';
import { historyHedgeId, historyRecordForPeople, historyTotals } from '../../platform/api/wire/fields.js';
import { readSidesInStep } from '../book/side-book.js';
import type { HedgeClient } from '../../platform/api/client.js';
import {
  ApiError,
  InterruptedError,
  InvalidResponseError,
  NetworkError,
  StillPendingError,
} from '../../core/errors.js';
import { safeText } from '../../core/security/safe-text.js';
import { sideOf } from '../../platform/journal/index.js';
import { rowKey } from '../../core/keep-rules.js';
import { DEFAULT_WAIT_BOUND_MS } from '../../platform/config/wait-bound.js';
import { identityOf, sentBy } from './row-trust.js';
import { formatSpan } from '../../core/duration.js';

/** Never below 1 000 ms: the spec advises polling no faster than every one to two seconds. */
export const POLL_CADENCE = { firstDelayMs: 1_000, intervalMs: 1_500 };

/** Sleeps on the command's clock until `at`; a stop (Ctrl-C), before or during the sleep, throws `interrupted()`. */
export async function pauseUntil({ clock, signal }: WritePorts, at: number, interrupted: () => Error) {
  if (signal.aborted) throw interrupted();
  if (at > clock.now()) await clock.sleep(at - clock.now(), signal).catch(() => Promise.reject(interrupted()));
}

/** Polls until `isDone`, within ports.deadline, with a spinner on a terminal. */
export async function pollUntil<T>(
  ports: WritePorts,
  options: {
    label: string;
    /** Clock time when the request that started the wait was sent; the first poll is due firstDelayMs after it. */
    startedAt: number;
    poll(): Promise<T>;
    isDone(value: T): boolean;
    /** `waited`: the time since startedAt, in whole seconds ("12s"). */
    timedOut(last: T | undefined, waited: string): Error;
    /** What stands when Ctrl-C stops the wait (after "Stopped waiting."; the hint is the check command). */
    interrupted: string;
    checkCommand: string;
  },
) {
  const { clock, signal } = ports;
  const { startedAt, checkCommand } = options;
  const deadline = ports.waitDeadline(startedAt) ?? Infinity;
  let dueAt = startedAt + POLL_CADENCE.firstDelayMs;
  let last: T | undefined;
  const timedOut = () => options.timedOut(last, formatSpan(Math.max(0, clock.now() - startedAt)));
  const progress = await ports.startProgress(options.label, startedAt);
  const interrupted = () =>
    new InterruptedError(`Stopped waiting. ${options.interrupted}`, {
      hint: `Check it with: ${checkCommand}`,
      stoppedBy: signal.reason,
    });
  try {
    for (;;) {
      if (dueAt >= deadline) {
        // No further poll fits before the deadline: wait it out, then report the action as pending.
        await pauseUntil(ports, deadline, interrupted);
        throw timedOut();
      }
      await pauseUntil(ports, dueAt, interrupted);
      dueAt = clock.now() + POLL_CADENCE.intervalMs;
      try {
        last = await options.poll();
      } catch (error) {
        if (signal.aborted || error instanceof InterruptedError) throw interrupted();
        if (clock.now() >= deadline) throw timedOut();
        // A poll that failed after the transport's retries: the action itself still stands. The error is kept whole
        // (its details say what could not be read); only its next step is the wait's.
        if (error instanceof NetworkError || error instanceof InvalidResponseError)
          Object.assign(error, {
            hint: `The action was submitted and stands; only the wait failed. Check it with: ${checkCommand}`,
          });
        throw error;
      }
      progress.refresh();
      if (options.isDone(last)) return last;
    }
  } finally {
    progress.stop();
  }
}

/** A hedge filled or ended will not change by itself any more (book.ts): an opening one, or one settling, is waited on. */
const isFinal = (hedge?: Hedge | null) => !!hedge && ['filled', 'ended'].includes(recordStanding(hedge).standing);

/**
 * Polls GET /hedges/{id} until the hedge is final; a failed hedge is returned, not thrown. The id came from the server
 * (its answer to this action, or a read), so a 404 is a read that trails the write: not visible yet, polled on.
 */
export async function waitForHedgeStatus(
  ports: WritePorts,
  hedgeId: string,
  options: { label: string; startedAt: number; initial?: Hedge },
) {
  let seen = options.initial;
  if (isFinal(seen)) return seen!;
  const client = await ports.client();
  const checkCommand = ports.hedgeCommand('hedges', hedgeId, '--wait');
  return (await pollUntil(ports, {
    ...options,
    checkCommand,
    poll: async () => {
      try {
        return (seen = await client.getHedge(hedgeId));
      } catch (error) {
        if (!(error instanceof ApiError && error.status === 404)) throw error;
        ports.log(`hedge ${safeText(hedgeId)} is not visible yet (404): the server's reads trail its answer`);
        // null: the last read did not show it (undefined: no read yet).
        return null;
      }
    },
    isDone: isFinal,
    timedOut: (last, waited) =>
      new StillPendingError(
        last === null
          ? `Hedge ${hedgeId}, named by the server's answer, is not visible in its reads after ${waited}, so whether it filled cannot be told yet. The order stands.`
          : `Still ${seen?.status ?? 'submitted'} after ${waited}: hedge ${hedgeId} has not resolved yet. The order stands.`,
        checkCommand,
        seen,
      ),
    interrupted: `The order stands: hedge ${hedgeId} is still being processed.`,
  }))!;
}

/** This account's own entries of one command within a wait's bound (`since`), by side. */
export async function ownRecentOf(ports: WritePorts, command: string) {
  const [journal, self] = await Promise.all([ports.journal(), identityOf(ports)]);
  const since = ports.clock.now() - DEFAULT_WAIT_BOUND_MS;
  const entries = (await journal.list({ since })).filter((entry) => entry.command === command && sentBy(self, entry));
  const of = (market: string, side: string) => entries.filter((entry) => sideOf(entry) === rowKey({ market, side }));
  return { since, of };
}

/** The hedges the server named in its answers to this account's own opens of a side within a wait's bound. */
export async function answeredOpens(ports: WritePorts) {
  const { of } = await ownRecentOf(ports, 'open');
  return (market: string, side: Side) => of(market, side).flatMap((entry) => entry.hedge_id || []);
}

/**
 * readSidesInStep before a decision (nothing sent yet) that also waits, within its bound, for the hedges the server named in its answers to this account's
 * own opens of these sides: a read that does not show one yet trails the write, never a flat side.
 */
export async function readSidesAsAnswered(
  ports: WritePorts,
  client: HedgeClient,
  sides: ReadonlyArray<{ market: string; side: Side }>,
  /** Wait besides for the hedges being opened on a side (readSidesInStep). */
  settled?: boolean,
) {
  const opened = await answeredOpens(ports);
  return readSidesInStep(
    ports,
    client,
    sides.map((one) => ({ ...one, opened: opened(one.market, one.side) })),
    settled,
  );
}

/** Best effort: looks for the history records of the hedges a close ended a few times at the polling cadence; the
 * records of several read as one, their figures summed and every hedge named, never one hedge's figures for the side. */
export async function findClosedRecord(ports: WritePorts, ids: readonly string[]) {
  const { clock, signal, deadline = Infinity } = ports;
  try {
    const client = await ports.client();
    for (let attempt = 1; !signal.aborted; attempt += 1) {
      const records = await client.listHistory({ limit: 20 });
      // Each record's hedge id under any of its names.
      const found = ids.flatMap((id) => records.find((record) => historyHedgeId(record) === id) ?? []);
      if (found.length === ids.length) return found.length === 1 ? found[0] : summedRecords(found);
      if (attempt === 3 || clock.now() + POLL_CADENCE.intervalMs >= deadline) return;
      await clock.sleep(POLL_CADENCE.intervalMs, signal);
    }
  } catch {
    // Slow or unavailable history is not a failure of the close.
  }
}

/** Several hedges' records as one, in the one shape: the ids, the summed notional and P&L (as `hedge history` totals
 * them), the last close time. Prices differ per hedge, so none is given. */
function summedRecords(records: HistoryRecord[]): HistoryRecord {
  const shaped = records.map(historyRecordForPeople);
  const closed = shaped.map((record) => record.closed_at).filter((at) => typeof at === 'string');
  // Each record was read with its net P&L (historyRecordSchema): so is their sum.
  return {
    hedge_ids: shaped.map((record) => record.hedge_id),
    ...(historyTotals(shaped) as { net_pnl_usd: number }),
    ...(closed.length && { closed_at: closed.sort().at(-1) }),
  };
}
