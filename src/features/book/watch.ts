// `--watch`: read the same thing again at a steady cadence until Ctrl-C, --timeout or --count;
// passing failures mark the view stale, alerts fire once per condition until it clears.
import { hedgeClient } from '../../platform/api/client.js';
import { createTransport } from '../../platform/api/transport.js';
import { alertConditions, type Alert } from '../../core/alerts.js';
import { echo, firstGiven, notAllowed, parseWholeNumber, readDecimal, parseUsdAmount } from '../../core/input.js';
import { parseDuration } from '../../core/duration.js';
import { ApiError, InterruptedError, InvalidResponseError, NetworkError, UsageError } from '../../core/errors.js';
import type { CommandContext } from '../../platform/runtime/context.js';
import type { OutputFormat } from '../../core/vocabulary.js';
import { sourceFor, type WatchSnapshot, type WatchTarget } from './watch-model.js';
import { offsetOf } from './book.js';

export type { WatchTarget };

/** The options every watchable command declares (WATCH_OPTIONS in the manifest). */
export interface WatchOptionValues {
  watch?: string | true;
  alertPnl?: string;
  alertMaturity?: string;
  exitOnAlert?: boolean;
  count?: string;
}

/** What a watch uses of its command. */
type WatchPorts = Pick<CommandContext, 'clock' | 'signal' | 'deadline' | 'client' | 'log' | 'notify'>;

/** A Retry-After longer than this is not waited out in full: the watch tries again after this long. */
const MAX_RETRY_AFTER_MS = 600_000;

/** One retry inside a refresh, quickly; a Retry-After is never waited out inside it (the loop delays its next refresh instead). The transport's other settings (timeouts, --timeout) stay. */
const WATCH_RETRY_POLICY = {
  maxAttempts: 2,
  baseDelayMs: 500,
  maxDelayMs: 1_000,
  maxTotalMs: 2_000,
  maxRetryAfterMs: 0,
};

/** The first option given that needs --watch. */
const givenWithWatch = (options: WatchOptionValues) => firstGiven(options, 'alertPnl alertMaturity exitOnAlert count');

/** True when any watch option was given: the command hands over to runWatch (which refuses alerts without --watch). */
export function watchAsked(options: WatchOptionValues) {
  return options.watch !== undefined || givenWithWatch(options) !== undefined;
}

/** --watch's value: `true` alone (the default, 2 s), else seconds from 1 to 3600. Returns ms. */
export function parseWatchInterval(raw: string | true) {
  if (raw === true) return 2000;
  // `hedge price --watch USDTNGN`: the optional value took the argument.
  if (readDecimal(raw, { min: 0, max: Infinity }) === undefined)
    throw new UsageError(
      `--watch: ${echo(raw)} is not a number of seconds from 1 to 3600 (default 2); put --watch after the arguments, or give seconds (--watch 5).`,
    );
  const seconds = readDecimal(raw, { min: 1, max: 3600 });
  if (seconds === undefined) throw notAllowed('--watch', raw, 'a number of seconds from 1 to 3600 (default 2)');
  return Math.round(seconds * 1000);
}

/** Every option checked before anything is sent (exit 2 on the first problem). */
export function parseWatchSettings(
  ports: Pick<CommandContext, 'hedgeCommand'>,
  target: WatchTarget,
  options: WatchOptionValues & { format?: OutputFormat },
) {
  const { kind } = target;
  const arg = kind === 'hedge' ? target.id : kind === 'price' ? target.market : undefined;
  const command = `${kind === 'hedge' ? 'hedges' : kind}${arg === undefined ? '' : ` ${arg}`}`;
  if (options.watch === undefined)
    throw new UsageError(
      `${givenWithWatch(options)}: only with --watch; add --watch to \`${ports.hedgeCommand(command)}\`.`,
    );
  const intervalMs = parseWatchInterval(options.watch);
  const count =
    options.count === undefined
      ? undefined
      : parseWholeNumber(options.count, '--count', 1, 1_000_000, 'a whole number of refreshes from 1 to 1,000,000');
  const { format } = options;
  if (format === 'csv' || format === 'tsv')
    throw new UsageError(
      `--format ${format}: --watch writes a live view on a terminal, or NDJSON (one JSON document per refresh); use --format ndjson or leave --format out.`,
    );
  if (kind === 'hedge') {
    if (target.id === undefined)
      throw new UsageError(
        '--watch: on `hedges` it watches one hedge; give its ID, e.g. `hedge hedges hdg_… --watch`.',
      );
    const other = firstGiven(target.filters, 'status ref limit wait');
    if (other) throw new UsageError(`${other}: cannot be combined with --watch.`);
  }
  const { alertPnl, alertMaturity } = options;
  if (alertPnl !== undefined && (kind === 'price' || kind === 'hedge'))
    throw new UsageError(`--alert-pnl: \`${command}\` shows no P&L; use it with positions or account.`);
  const pnlAtOrBelowUsd = alertPnl === undefined ? undefined : parseUsdAmount(alertPnl, '--alert-pnl', 'signed');
  if (alertMaturity !== undefined && (kind === 'price' || kind === 'account'))
    throw new UsageError(`--alert-maturity: \`${command}\` shows no maturity; use it with positions or hedges ID.`);
  const within = alertMaturity === undefined ? undefined : parseDuration(alertMaturity, '--alert-maturity');
  const rules = { pnlAtOrBelowUsd, maturityWithinMs: within?.ms, maturityWithinText: within?.text };
  const alerting = pnlAtOrBelowUsd !== undefined || within !== undefined;
  if (options.exitOnAlert && !alerting)
    throw new UsageError('--exit-on-alert: needs an alert to wait for (--alert-pnl or --alert-maturity).');
  return { intervalMs, rules, alerting, exitOnAlert: options.exitOnAlert === true, count };
}

/** The record of an alert in NDJSON: snake_case like the API's data. */
export function alertRecord(alert: Alert) {
  if (alert.kind === 'pnl') return { kind: 'pnl', net_pnl_usd: alert.netPnlUsd, threshold_usd: alert.thresholdUsd };
  return {
    // Said only when known: JSON leaves out what is undefined.
    kind: 'maturity',
    market: alert.market,
    side: alert.side,
    hedge_id: alert.hedgeId,
    maturity_at: alert.maturityAt,
    seconds_left: alert.secondsLeft,
    within: alert.within,
  };
}

/** Where the watch's refreshes go: a live view on a terminal, NDJSON otherwise (commands/watch-outcome.ts makes them). */
export interface WatchSink {
  /** `offsetMs`: the server's clock less ours, as maturities are counted (core/server-clock.ts `bestMs`). */
  fresh(snapshot: WatchSnapshot, at: number, offsetMs: number): void;
  stale(error: unknown, at: number, nextAt: number): void;
  /** `fired`: new this refresh (a record each, one bell); `holding`: every alert whose condition holds. */
  alerts(fired: Alert[], holding: Array<{ alert: Alert; at: number }>, at: number): void;
  /** Between refreshes, about every second (the terminal's countdown). */
  tick(): void;
  close(): void;
}

/** A refresh that failed for a reason that may pass: the watch goes on, stale. */
export function isPassingFailure(error: unknown) {
  return (
    error instanceof NetworkError ||
    error instanceof InvalidResponseError ||
    (error instanceof ApiError && (error.status >= 500 || error.status === 429))
  );
}

/** Start to start at the interval, and never sooner than a second (the shortest interval) after the answer; after a
 * failure whose answer said Retry-After, not before it either (up to MAX_RETRY_AFTER_MS). */
export function nextRefreshAt(startedAt: number, answeredAt: number, intervalMs: number, failure?: unknown) {
  const next = Math.max(startedAt + intervalMs, answeredAt + 1000);
  return failure instanceof NetworkError && failure.retryAfterMs !== undefined
    ? Math.max(next, answeredAt + Math.min(failure.retryAfterMs, MAX_RETRY_AFTER_MS))
    : next;
}

/** Runs the watch until Ctrl-C, --timeout, --count, the first alert with --exit-on-alert, or an error that is not passing (thrown); what it read goes to the sink `openSink` opens. It returns how the watch ended (the command says it and picks the exit code: commands/watch-outcome.ts); `stopped`: Ctrl-C (how a watch is meant to end), SIGTERM or SIGHUP. */
export async function runWatch(
  ports: WatchPorts,
  target: WatchTarget,
  plan: { settings: ReturnType<typeof parseWatchSettings>; live: boolean; oneShape: boolean },
  openSink: () => Promise<WatchSink>,
) {
  const { settings, live, oneShape } = plan;
  const source = sourceFor(ports.log, target, live, oneShape, settings.rules.maturityWithinMs !== undefined);
  // --timeout bounds the watch; without it (or with --timeout 0) it runs until stopped, unlike a wait.
  const { clock, signal, deadline = Infinity } = ports;
  let client = await ports.client();
  // A transport with settings of its own is rebuilt with the watch's retries (an injected stand-in is used as it is).
  if (client.transport?.config) {
    const { config } = client.transport;
    client = hedgeClient(createTransport({ ...config, retry: { ...config.retry, ...WATCH_RETRY_POLICY } }), {
      wire: client.wire,
      warn: (text) => ports.notify({ kind: 'wire-warning', level: 'warn', text }),
    });
  }
  // Opened once the client is: a key that cannot be read fails before the screen is taken over.
  const sink = await openSink();
  const stopped = { ended: 'stopped' } as const;
  const pastDeadline = { ended: 'deadline' } as const;
  // When each alert whose condition holds fired.
  let firedAt = new Map<string, number>();
  let nextAt = clock.now();
  try {
    for (let refreshes = 0; ; refreshes += 1) {
      if (refreshes === settings.count) return { ended: 'count', count: refreshes } as const;
      // Paused until due, on the second when live, so that a countdown moves in step with the clock on the wall.
      for (;;) {
        if (signal.aborted) return stopped;
        const now = clock.now();
        if (now >= deadline) return pastDeadline;
        if (now >= nextAt) break;
        const until = Math.min(nextAt, deadline);
        try {
          await clock.sleep(Math.max(1, live ? Math.min(until - now, 1000 - (now % 1000)) : until - now), signal);
        } catch {
          return stopped;
        }
        sink.tick();
      }
      const startedAt = clock.now();
      let snapshot: WatchSnapshot;
      try {
        snapshot = await source(client);
      } catch (error) {
        if (signal.aborted || error instanceof InterruptedError) return stopped;
        if (!isPassingFailure(error)) throw error;
        if (clock.now() >= deadline) return pastDeadline;
        nextAt = nextRefreshAt(startedAt, clock.now(), settings.intervalMs, error);
        sink.stale(error, clock.now(), nextAt);
        continue;
      }
      const at = clock.now();
      nextAt = nextRefreshAt(startedAt, at, settings.intervalMs);
      // maturity_at is on the server's clock: counted from its time, as `hedge maturities` counts it.
      const time = client.transport?.serverNow?.();
      const offsetMs = time ? offsetOf(time) : 0;
      sink.fresh(snapshot, at, offsetMs);
      // Fire once, clear once: an alert that holds on keeps the time it first fired.
      const holding = alertConditions(snapshot.facts, settings.rules, at + offsetMs);
      const fired = holding.filter((alert) => !firedAt.has(alert.key));
      firedAt = new Map(holding.map((alert) => [alert.key, firedAt.get(alert.key) ?? at]));
      if (settings.alerting)
        sink.alerts(
          fired,
          holding.map((alert) => ({ alert, at: firedAt.get(alert.key)! })),
          at,
        );
      if (fired.length && settings.exitOnAlert) return { ended: 'alert', alert: fired[0], at, offsetMs } as const;
    }
  } finally {
    sink.close();
  }
}
