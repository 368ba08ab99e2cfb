// `hedge keep FILE`: holds the book at a target file through maturities, one keeper per account.
// A side with an unresolved action is left alone; one it cannot see is never opened; a colleague's close stands (drift).
import { statSync } from 'node:fs';
import {
  DEFAULT_ROLL_BEFORE_MS,
  type EventFields,
  type KeepEvent,
  type KeepReporter,
  type KeepRow,
} from '../../core/keep-rules.js';
import { StateError, UsageError } from '../../core/errors.js';
import type { TargetRow } from '../../core/target-file.js';
import type { CommandContext } from '../../platform/runtime/context.js';
import type { WritePorts } from '../write/ports.js';
import { safeText } from '../../core/security/safe-text.js';
import { utcIso } from '../../core/utc-text.js';
import { DAY_MS } from '../../core/vocabulary.js';
import { confirmOrStop, guardLiveAction } from '../write/live-guard.js';
import { identityOf } from '../write/identity.js';
import { readTargetFile } from '../plan/target-plan.js';
import { days } from '../trade/trade-actions.js';
import { keeperLockPlace, takeKeeperLock } from './keeper-service.js';
import { startKeeperService, type KeeperService, type KeeperServiceOptions } from './keeper-service.js';
import { keeperCycles, keeperIo, type KeeperClock } from './keeper-steps.js';
import type { JsonObject } from '../../core/objects.js';
import { plural } from '../../core/number-format.js';

/** The spec advises polling no faster than every one to two seconds: a cycle is at least this apart. */
export const MIN_INTERVAL_MS = 2_000;
export const DEFAULT_INTERVAL_MS = 60_000;
export const MAX_INTERVAL_MS = 86_400_000;

/** The keeper's target, re-read each cycle. */
export type MovingTarget = (ports: WritePorts) => Promise<KeepRow[]>;

/** The keeper's options, its service parts' (keeper-service.ts: --alert-cmd, --alert-url, --alert-headroom, --metrics) among them. */
interface KeepOptions extends KeeperServiceOptions {
  once: boolean;
  converge: boolean;
  /** `keep --exposures`: the target is recomputed before every cycle (due dates pass, buckets change, the price moves) instead of read from a target file; see features/exposures/exposures.ts. */
  movingTarget?: MovingTarget;
}

/** Besides its options the keeper is given where its events and status go (`reporter`: the live screen or NDJSON, as
 * cli/cmd/automation/keep.ts chooses), and how a failure reads as an `error` event's fields (code, exit code, message, hint). */
export async function runKeep(
  ports: WritePorts & Pick<CommandContext, 'keeperStep' | 'interceptSignals'>,
  options: KeepOptions,
  reporter: KeepReporter,
  errorFields: (error: unknown) => JsonObject,
) {
  const { file, dryRun, movingTarget: moving } = options;
  // The context's clock; a wake-up ends a sleep early (no timer outlives the keeper).
  const clock: KeeperClock = {
    now: () => ports.clock.now(),
    sleep: (ms, wake) => ports.clock.sleep(ms, wake).catch(() => undefined),
  };
  // Signals first, before anything is awaited: the first SIGTERM/SIGINT ends the loop after the
  // steps in flight; a second one is left to the runner (it aborts their waits); SIGHUP re-reads.
  const signals = installSignals(ports, clock);
  try {
    if (file === '-' && !options.once && !dryRun)
      throw new UsageError(
        'FILE: a keeper re-reads its target file (on SIGHUP), so it cannot be - (stdin); name the file, or use --once.',
      );
    const readRows = async (): Promise<KeepRow[]> => toKeepRows((await readTargetFile(ports, file)).rows, file);
    // Stdin may be a pipe that never ends: a stop signal then ends the read (and the command) at once.
    // A file is read at once, and a signal during that read stops the keeper as any other in start-up.
    const firstRows = moving ? () => moving(ports) : readRows;
    let rows = await (file === '-' ? signals.leaveStopsToRunner(firstRows) : firstRows());
    const guard = await guardLiveAction(ports, {
      action: 'keep the book at the target: roll, re-open and (with --converge) change hedges without asking again',
      dryRun,
    });
    await ports.journal();
    const identity = await identityOf(ports);
    // The service parts (heartbeat, alerts to --alert-cmd/--alert-url, metrics): started once the lock is held.
    let service: KeeperService | undefined;
    const event = (fields: EventFields) => {
      // A dry run marks every event as one: nothing it says was done.
      const full = { at: utcIso(clock.now()), ...fields, ...(dryRun && { dry_run: true }) } as KeepEvent;
      reporter.event(full);
      service?.observe(full);
    };

    // One keeper per account, held for its life; a team store that ends the session makes it take the lock again.
    const lockPlace = dryRun ? undefined : await keeperLockPlace(ports, identity);
    const takeLock = () => takeKeeperLock(ports, lockPlace!, file);
    let keeperHold = lockPlace && (await takeLock());

    let confirmed = !guard.needsConfirmation;
    // The steps say nothing (what they did comes back as outcomes, made into events here), so no
    // spinner of theirs is drawn over the live status; they ask nothing once the keeper's run is
    // confirmed (by --yes, a key that is not live, or the question below). Their rows are journaled
    // `via: keeper`: the keeper finishes no one's unresolved rows but its own.
    const stepContext = () => ports.keeperStep({ signal: signals.stepSignal, notify: () => {}, confirmed });
    // The first error of a one-cycle run: the command ends with its exit code.
    let firstError: unknown;
    const noteError = (error: unknown, fields: Omit<EventFields, 'event'>) => {
      firstError ??= error;
      const described = errorFields(error);
      // The error's description fills what the step's fields leave; the step's own sentence stays `message`, the
      // error's words are under `error` (every error event has them there).
      event({
        event: 'error',
        ...fields,
        ...described,
        ...(fields.message !== undefined && { message: fields.message }),
        ...(fields.journal_id !== undefined && { journal_id: fields.journal_id }),
        error: { code: described.code, message: described.message },
      });
    };
    signals.onStopRequested = (signal) =>
      event({
        event: 'stop',
        phase: 'requested',
        message: `${signal}: stopping after the steps in flight (a second ${signal} interrupts them)`,
      });
    const io = keeperIo(stepContext, { ...options, identity }, { event, noteError });
    const cycles = keeperCycles(options, clock, io);
    const once = options.once || dryRun;

    try {
      service = await startKeeperService(ports, identity, lockPlace, options, event);
      const started = { event: 'start', file } as const;
      event({
        ...started,
        rows: rows.length,
        dry_run: dryRun,
        pid: process.pid,
        interval_s: options.intervalMs / 1000,
        environment: identity.environment,
      });
      if (!confirmed && !signals.stopping) {
        const lines = await cycles.preview(rows);
        await confirmOrStop(ports, `Keep ${plural(rows.length, 'row')} at target from now on (${lines.join('; ')})?`, {
          live: true,
        });
        confirmed = true;
      }

      await runCycles({ ...options, once, clock }, signals, async (number, startedAt) => {
        // The exposures are read again every cycle, so a SIGHUP needs nothing more there.
        if (moving || signals.reload) {
          signals.reload = false;
          try {
            rows = moving ? await moving(stepContext()) : await readRows();
            if (!moving) {
              cycles.forgetDrift();
              event({ ...started, rows: rows.length, reloaded: true });
            }
          } catch (error) {
            noteError(error, {
              phase: moving ? 'target' : 'reload',
              message: `the target ${moving ? 'could not be recomputed from the exposures' : 'file could not be re-read'}; the previous target stays`,
            });
          }
        }
        try {
          if (keeperHold?.lost()) {
            event({
              event: 'notice',
              code: 'keeper_lock_lost',
              message:
                "the team store ended the session holding this keeper's lock; taking it again before anything is done",
            });
            keeperHold = await takeLock();
          }
          const unresolved = dryRun ? new Map<string, string>() : await io.finishUnfinished(cycles.busySides(), rows);
          const outcome = await cycles.cycle(rows, unresolved, () => signals.stopping, startedAt + options.intervalMs);
          // --once: the cycle's steps finish before it is reported (a cron run's one look at the book).
          if (once) await cycles.settle();
          const nextAt = once || signals.stopping ? undefined : utcIso(startedAt + options.intervalMs);
          const { rows: statuses, serverTime } = outcome;
          reporter.status({
            file,
            rows: statuses,
            last_cycle_at: utcIso(clock.now()),
            next_cycle_at: nextAt,
            stopping: signals.stopping,
            dry_run: dryRun,
          });
          event({ event: 'cycle', cycle: number, server_time: serverTime, rows: statuses, next_cycle_at: nextAt });
        } catch (error) {
          // The journal or team store unreachable: said (an error event, so --alert-cmd runs) and tried
          // again next cycle; every step takes its locks afresh, so nothing acts without them.
          if (!(error instanceof StateError) || once) throw error;
          noteError(error, {
            phase: 'cycle',
            message: `the journal cannot be used (${error.message}); nothing is done until it answers again, retried every cycle`,
          });
        }
        // Alerts (once on, once recovered), heartbeat and metrics, after every cycle, finished or failed.
        await service?.endCycle(stepContext());
      });
      // The steps still in flight finish before the keeper stops (a second signal interrupts their waits).
      await cycles.settle();
      // How it ended: `interrupted` when a second signal cut its steps short; a one-cycle run's first error gives the exit code.
      const interrupted = signals.stepSignal.aborted;
      if (interrupted || signals.stopping)
        event({
          event: 'stop',
          message: interrupted
            ? 'stopped by a second signal: the steps in progress were interrupted; their journal entries stay unresolved and the next start finishes them'
            : 'stopped by a signal after finishing the steps in flight',
        });
      return { interrupted, firstError: once && !interrupted ? firstError : undefined };
    } finally {
      await service?.stop();
      reporter.close();
      await keeperHold?.release().catch(() => {});
    }
  } finally {
    signals.uninstall();
  }
}

function toKeepRows(rows: TargetRow[], file: string) {
  const statedAtMs = statedAt(file);
  return rows.map((row) => {
    const where = `${safeText(file)}:${row.line}`;
    if (row.notionalUsd > 0 && row.tenorDays === undefined)
      throw new UsageError(`${where}: tenor_days is required for a row the keeper holds open.`);
    // A roll_before as long as the tenor would roll every new hedge at once, every cycle, paying each time.
    if (row.tenorDays !== undefined && (row.rollBeforeMs ?? DEFAULT_ROLL_BEFORE_MS) >= row.tenorDays * DAY_MS)
      throw new UsageError(
        `${where}: roll_before must be shorter than the tenor (${days(row.tenorDays)}); a hedge would be rolled as soon as it is opened.`,
      );
    return { ...row, statedAtMs };
  });
}

/** When the target last said its rows: the file's modification time (a colleague's close after it stands). */
function statedAt(file: string) {
  try {
    return file === '-' ? undefined : statSync(file).mtimeMs;
  } catch {
    return;
  }
}

// ---- The loop, and the signals (on the injected clock: unit tests move it themselves).

/** The keeper's loop: a cycle, then a sleep until the interval is up (woken early by a SIGHUP, but cycles stay at least MIN_INTERVAL_MS apart), until a stop. Timing only, on the injected clock. */
export async function runCycles(
  loop: { once: boolean; intervalMs: number; clock: KeeperClock },
  signals: Pick<ReturnType<typeof installSignals>, 'stopping' | 'sleep'>,
  cycle: (number: number, startedAtMs: number) => Promise<void>,
) {
  for (let number = 1; !signals.stopping; number += 1) {
    const startedAt = loop.clock.now();
    await cycle(number, startedAt);
    if (loop.once) break;
    let until = startedAt + loop.intervalMs;
    do {
      await signals.sleep(Math.max(0, until - loop.clock.now()));
      // Woken early (a SIGHUP): the next cycle comes as soon as the minimum spacing allows, not an interval later.
      until = startedAt + MIN_INTERVAL_MS;
    } while (!signals.stopping && loop.clock.now() - startedAt < MIN_INTERVAL_MS);
  }
}

/** The keeper's signals: the first SIGTERM/SIGINT ends the loop after the steps in flight, a second aborts the steps' own signal; SIGHUP asks for the target to be read again. */
function installSignals(ports: Pick<CommandContext, 'signal' | 'interceptSignals'>, clock: KeeperClock) {
  const steps = new AbortController();
  let wake: AbortController | undefined;
  let runnersStops = false;
  const handle = {
    // A signal that came before the keeper started listening was the runner's first: a graceful stop.
    stopping: ports.signal.aborted,
    /** A SIGHUP came: the target is to be read again. */
    reload: false,
    /** Aborted by a second stop signal only: what the steps run under (aborted: they were interrupted). */
    stepSignal: steps.signal,
    /** Told when the first stop signal arrives (the keeper says it will stop after the current steps). */
    onStopRequested: undefined as ((signal: string) => void) | undefined,
    /** Sleeps until `ms` passed, a stop, or a SIGHUP. */
    async sleep(ms: number) {
      if (handle.stopping) return;
      wake = new AbortController();
      await clock.sleep(ms, wake.signal).finally(() => (wake = undefined));
    },
    /** Runs `work` with stop signals left to the runner: a stdin pipe that never ends must not hold a SIGTERM back. */
    async leaveStopsToRunner<T>(work: () => Promise<T>) {
      runnersStops = true;
      return await work().finally(() => (runnersStops = false));
    },
    uninstall() {
      release();
      ports.signal.removeEventListener('abort', onAbort);
    },
  };
  const release = ports.interceptSignals((signal) => {
    const hup = signal === 'SIGHUP';
    if (runnersStops || (handle.stopping && !hup)) return false;
    handle[hup ? 'reload' : 'stopping'] = true;
    wake?.abort();
    if (!hup) handle.onStopRequested?.(signal);
    return true;
  });
  const onAbort = () => steps.abort(ports.signal.reason);
  if (!ports.signal.aborted) ports.signal.addEventListener('abort', onAbort, { once: true });
  return handle;
}
