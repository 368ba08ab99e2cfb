// `hedge keep FILE`: holds the book at a target file through maturities. Each cycle finishes what
// the journal shows unfinished, reads the book, asks domain/keep.ts what each row needs at the
// server's time, and starts it as that row's own step (keep-cycle.ts) through the flows every write
// already uses (keep-steps.ts). Safety: one keeper per account (its lock, held for its life); a side
// with an action unresolved is left alone (never a second action with a new key); each action is
// decided again under the side's lock on a fresh read; a side it cannot see is never opened, one a
// colleague closed is not re-opened (drift). The service parts (keeper-service.ts) hear every event.
import { statSync } from 'node:fs';
import { DEFAULT_ROLL_BEFORE_MS, type KeepEvent, type KeepReporter, type KeepRow } from '../domain/keep.js';
import { StateError, UsageError } from '../errors.js';
import type { Hold } from '../journal/index.js';
import type { FlowPorts } from '../runtime/flow-ports.js';
import { safeText } from '../security/safe-text.js';
import {
  installSignals,
  realKeeperClock,
  RowScheduler,
  runCycles,
  type EventFields,
  type KeepCycle,
  type KeeperClock,
  type KeeperSignals,
} from './keep-cycle.js';
import { keeperSteps } from './keep-steps.js';
import { guardLiveAction } from './live-guard.js';
import { readTargetFile } from './target-plan.js';
import { identityOf } from './identity.js';
import { keeperLockPlace, takeKeeperLock as takeAccountKeeperLock } from './keeper-lock.js';
import { startKeeperService, type KeeperService, type KeeperServiceOptions } from './keeper-service.js';
import { formatUsd } from '../domain/number-format.js';

/** What an --alert-cmd child gets: the keeper's environment less what carries a secret. */
export { childEnvironment as hookEnvironment } from '../security/child-env.js';
/** The spec advises polling no faster than every one to two seconds: a cycle is at least this apart. */
export const MIN_INTERVAL_MS = 2_000;
export const DEFAULT_INTERVAL_MS = 60_000;
export const MAX_INTERVAL_MS = 86_400_000;
const DAY_MS = 86_400_000;

/** The keeper's target re-read each cycle, and the ports it reads it with. */
export type MovingTarget = (ports: TargetPorts) => Promise<KeepRow[]>;
type TargetPorts = Pick<
  FlowPorts,
  | 'clock'
  | 'signal'
  | 'deadline'
  | 'timeoutSeconds'
  | 'client'
  | 'log'
  | 'stdin'
  | 'stdinIsTTY'
  | 'origin'
  | 'targetFiles'
>;

export interface KeepOptions {
  file: string;
  once: boolean;
  intervalMs: number;
  dryRun: boolean;
  converge: boolean;
  toleranceUsd: number;
  alertCommand?: string;
  /** The service parts (keeper-service.ts): --alert-url, --alert-headroom, --metrics. */
  service?: Pick<KeeperServiceOptions, 'alertUrl' | 'alertHeadroomUsd' | 'metrics' | 'metricsErrorCodes'>;
  /**
   * `keep --exposures`: the target is recomputed before every cycle (due dates pass,
   * buckets change, the price moves) instead of read from a target file; see flows/exposures.ts.
   */
  movingTarget?: MovingTarget;
}

/** What the keeper is given besides its options: where its events and status go, its clock, and who else hears what it does. */
export interface KeepServices {
  /** The live screen or NDJSON (commands/keep.ts chooses); nothing shown when absent. */
  reporter?: KeepReporter;
  clock?: KeeperClock;
  /** Told every event (the reporter and --alert-cmd are told too). */
  observers?: Array<(event: KeepEvent) => void>;
  /** Told every cycle's outcome, with its number. */
  onCycle?: (cycle: KeepCycle & { number: number; at: string }) => void;
  /** A failure as an `error` event's fields (code, exit code, message, hint): the command's description. */
  errorFields: (error: unknown) => { code: string; message: string } & Record<string, unknown>;
}

/**
 * How a keeper ended, for the command to map to an exit code: stopped by a signal (`interrupted`
 * when a second one cut its steps short), or one cycle run (`--once`, `--dry-run`) with the first
 * error's exit code when there was one.
 */
export type KeepOutcome = { kind: 'stopped'; interrupted: boolean } | { kind: 'one-cycle'; firstError?: unknown };

type KeepPorts = Pick<
  FlowPorts,
  | 'clock'
  | 'signal'
  | 'deadline'
  | 'timeoutSeconds'
  | 'interceptSignals'
  | 'client'
  | 'credentials'
  | 'journal'
  | 'env'
  | 'configDir'
  | 'notify'
  | 'log'
  | 'hedgeCommand'
  | 'interactive'
  | 'inputAllowed'
  | 'confirmedAhead'
  | 'confirm'
  | 'stdin'
  | 'stdinIsTTY'
  | 'origin'
  | 'targetFiles'
  | 'keeperStep'
>;

export async function runKeep(ports: KeepPorts, options: KeepOptions, services: KeepServices): Promise<KeepOutcome> {
  const clock = services.clock ?? realKeeperClock(() => ports.clock.now());
  // Signals first, before anything is awaited: the first SIGTERM/SIGINT ends the loop after the
  // steps in flight; a second one is left to the runner (it aborts their waits); SIGHUP re-reads.
  const signals = installSignals(ports, clock);
  try {
    return await keep(ports, options, signals, clock, services);
  } finally {
    signals.uninstall();
  }
}

async function keep(
  ports: KeepPorts,
  options: KeepOptions,
  signals: KeeperSignals,
  clock: KeeperClock,
  services: KeepServices,
): Promise<KeepOutcome> {
  if (options.file === '-' && !options.once && !options.dryRun) {
    throw new UsageError(
      'FILE: a keeper re-reads its target file (on SIGHUP), so it cannot be - (stdin); name the file, or use --once.',
    );
  }
  const readRows = async () =>
    options.movingTarget
      ? options.movingTarget(ports)
      : toKeepRows((await readTargetFile(ports, options.file)).rows, options.file);
  // Stdin may be a pipe that never ends: a stop signal then ends the read (and the command) at once.
  // A file is read at once, and a signal during that read stops the keeper as any other in start-up.
  let rows = await (options.file === '-' ? signals.leaveStopsToRunner(readRows) : readRows());
  const guard = await guardLiveAction(ports, {
    action: 'keep the book at the target: roll, re-open and (with --converge) change hedges without asking again',
    dryRun: options.dryRun,
  });
  await ports.journal();
  const identity = await identityOf(ports);
  const reporter: KeepReporter = services.reporter ?? { event: () => {}, status: () => {}, close: () => {} };
  // The service parts (heartbeat, alerts to --alert-cmd/--alert-url, metrics): started once the lock is held.
  let service: KeeperService | undefined;
  const event = (fields: EventFields): KeepEvent => {
    // A dry run marks every event as one: nothing it says was done.
    const full = {
      at: new Date(clock.now()).toISOString(),
      ...fields,
      ...(options.dryRun ? { dry_run: true } : {}),
    } as KeepEvent;
    reporter.event(full);
    for (const observer of services.observers ?? []) observer(full);
    service?.observe(full);
    return full;
  };

  // One keeper per account: held for the keeper's life, released by its exit (kill -9 included).
  // A team store that restarts ends the session holding it: the keeper acts on nothing until it has
  // taken it again (another keeper that took it meanwhile wins: this one stops, exit 11).
  // The lock is on the account: in the team store, or in the per-user keeper folder every config
  // folder on this machine shares (keeper-lock.ts), so two config folders cannot run two keepers.
  const lockPlace = options.dryRun ? undefined : await keeperLockPlace(ports, identity);
  const takeKeeperLock = (): Promise<Hold> => takeAccountKeeperLock(ports, lockPlace!, options.file);
  let keeperHold = options.dryRun ? undefined : await takeKeeperLock();

  let confirmed = !guard.needsConfirmation;
  // The steps say nothing (what they did comes back as outcomes, made into events here), so no
  // spinner of theirs is drawn over the live status; they ask nothing once the keeper's run is
  // confirmed (by --yes, a key that is not live, or the question below). Their rows are journaled
  // `via: keeper`: the keeper finishes no one's unresolved rows but its own.
  const stepContext = () => ports.keeperStep({ signal: signals.stepSignal, notify: sayNothing, confirmed });
  // The first error of a one-cycle run: the command ends with its exit code.
  let firstError: { error: unknown } | undefined;
  const noteError = (error: unknown, fields: Omit<EventFields, 'event'>): void => {
    firstError ??= { error };
    const described = services.errorFields(error);
    // The step's own fields first; the error's description fills what they leave (its journal id).
    event({
      event: 'error',
      ...fields,
      ...described,
      ...(fields.journal_id === undefined ? {} : { journal_id: fields.journal_id }),
    } as EventFields);
  };
  signals.onStopRequested = (signal) =>
    event({
      event: 'stop',
      phase: 'requested',
      message: `${signal}: stopping after the steps in flight (a second ${signal} interrupts them)`,
    });
  const steps = keeperSteps(stepContext, {
    dryRun: options.dryRun,
    converge: options.converge,
    toleranceUsd: options.toleranceUsd,
    event,
    noteError,
    identity,
  });
  const scheduler = new RowScheduler({ rules: options, clock, event, noteError });

  try {
    service = await startKeeperService(
      ports,
      identity,
      lockPlace,
      {
        file: options.file,
        intervalMs: options.intervalMs,
        toleranceUsd: options.toleranceUsd,
        dryRun: options.dryRun,
        alertCommand: options.alertCommand,
        ...options.service,
      },
      event,
    );
    event({
      event: 'start',
      file: options.file,
      rows: rows.length,
      dry_run: options.dryRun,
      pid: process.pid,
      interval_s: options.intervalMs / 1000,
      environment: identity.environment,
    });
    if (!confirmed && !signals.stopping) {
      const preview = await steps.read(rows);
      const lines = rows.map(
        (row) => `${row.market} ${row.side} ${formatUsd(row.notionalUsd)}: ${scheduler.preview(row, preview)}`,
      );
      await guard.confirm(
        `Keep ${rows.length} row${rows.length === 1 ? '' : 's'} at target from now on (${lines.join('; ')})?`,
      );
      confirmed = true;
    }

    const loop = {
      once: options.once || options.dryRun,
      intervalMs: options.intervalMs,
      minIntervalMs: MIN_INTERVAL_MS,
      clock,
    };
    await runCycles(loop, signals, async (number, startedAt) => {
      if (options.movingTarget) {
        // The exposures file is read again every cycle, so a SIGHUP needs nothing more.
        signals.takeReload();
        try {
          rows = await options.movingTarget(stepContext());
        } catch (error) {
          noteError(error, {
            phase: 'target',
            message: 'the target could not be recomputed from the exposures; the previous target stays',
          });
        }
      } else if (signals.takeReload()) {
        try {
          rows = await readRows();
          scheduler.forgetDrift();
          event({ event: 'start', file: options.file, rows: rows.length, reloaded: true });
        } catch (error) {
          noteError(error, {
            phase: 'reload',
            message: 'the target file could not be re-read; the previous target stays',
          });
        }
      }
      try {
        if (keeperHold?.lost?.()) {
          event({
            event: 'notice',
            code: 'keeper_lock_lost',
            message:
              "the team store ended the session holding this keeper's lock; taking it again before anything is done",
          });
          keeperHold = await takeKeeperLock();
        }
        const unresolved = options.dryRun
          ? new Map<string, string>()
          : await steps.finishUnfinished(scheduler.busySides(), rows);
        const outcome = await scheduler.cycle(rows, steps, {
          unresolved,
          isStopping: () => signals.stopping,
          stepsDueBy: startedAt + options.intervalMs,
        });
        // --once: the cycle's steps finish before it is reported (a cron run's one look at the book).
        if (loop.once) await scheduler.settle();
        const nextAt =
          loop.once || signals.stopping ? undefined : new Date(startedAt + options.intervalMs).toISOString();
        const at = new Date(clock.now()).toISOString();
        reporter.status({
          file: options.file,
          rows: outcome.rows,
          last_cycle_at: at,
          next_cycle_at: nextAt,
          stopping: signals.stopping,
          dry_run: options.dryRun,
        });
        event({
          event: 'cycle',
          cycle: number,
          server_time: outcome.serverTime,
          rows: outcome.rows,
          ...(nextAt ? { next_cycle_at: nextAt } : {}),
        });
        services.onCycle?.({ ...outcome, number, at });
      } catch (error) {
        // The journal or team store unreachable: said (an error event, so --alert-cmd runs) and tried
        // again next cycle; every step takes its locks afresh, so nothing acts without them.
        if (!(error instanceof StateError) || loop.once) throw error;
        noteError(error, {
          phase: 'cycle',
          message: `the journal cannot be used (${error.message}); nothing is done until it answers again, retried every cycle`,
        });
      }
      // Alerts (once on, once recovered), heartbeat and metrics, after every cycle, finished or failed.
      await service?.endCycle(stepContext());
    });
    // The steps still in flight finish before the keeper stops (a second signal interrupts their waits).
    await scheduler.settle();
    if (signals.interrupted) {
      event({
        event: 'stop',
        message:
          'stopped by a second signal: the steps in progress were interrupted; their journal entries stay unresolved and the next start finishes them',
      });
      return { kind: 'stopped', interrupted: true };
    }
    if (signals.stopping) event({ event: 'stop', message: 'stopped by a signal after finishing the steps in flight' });
    return loop.once
      ? { kind: 'one-cycle', ...(firstError === undefined ? {} : { firstError: firstError.error }) }
      : { kind: 'stopped', interrupted: false };
  } finally {
    await service?.stop();
    reporter.close();
    await keeperHold?.release().catch(() => {});
  }
}

function toKeepRows(rows: Awaited<ReturnType<typeof readTargetFile>>['rows'], file: string): KeepRow[] {
  const stated = statedAt(file);
  return rows.map((row) => {
    const where = `${safeText(file)}:${row.line}`;
    if (row.notionalUsd > 0 && row.tenorDays === undefined)
      throw new UsageError(`${where}: tenor_days is required for a row the keeper holds open.`);
    const rollBeforeMs = row.rollBeforeMs ?? DEFAULT_ROLL_BEFORE_MS;
    // A roll_before as long as the tenor would roll every new hedge at once, every cycle, paying each time.
    if (row.tenorDays !== undefined && rollBeforeMs >= row.tenorDays * DAY_MS) {
      throw new UsageError(
        `${where}: roll_before must be shorter than the tenor (${row.tenorDays} day${row.tenorDays === 1 ? '' : 's'}); a hedge would be rolled as soon as it is opened.`,
      );
    }
    return {
      market: row.market,
      side: row.side,
      notionalUsd: row.notionalUsd,
      tenorDays: row.tenorDays,
      clientReference: row.clientReference,
      untilMs: row.untilMs,
      rollBeforeMs: row.rollBeforeMs,
      ...(stated === undefined ? {} : { statedAtMs: stated }),
    };
  });
}

/** When the target last said its rows: the file's modification time (a colleague's close after it stands). */
function statedAt(file: string): number | undefined {
  if (file === '-') return undefined;
  try {
    return statSync(file).mtimeMs;
  } catch {
    return undefined;
  }
}

/** Where the steps' notices go: nowhere (the keeper reports what they did from their outcomes). */
function sayNothing(): void {}
