// `hedge keep FILE`: holds the book at a target file through maturities, one keeper per account.
// A side with an unresolved action is left alone; one it cannot see is never opened; a colleague's close stands (drift).
import { statSync } from 'node:fs';
import {
  backoffMs,
  decideRow,
  DEFAULT_ROLL_BEFORE_MS,
  rowKey,
  type Actionable,
  type EventFields,
  type KeepEvent,
  type KeepReporter,
  type KeepRow,
  type KeepRowStatus,
  type KeepDecision,
  type KeeperSteps,
  type SideReading,
  type SideView,
} from '../../core/keep-rules.js';
import { StateError, UsageError } from '../../core/errors.js';
import type { TargetRow } from '../../core/target-file.js';
import type { FlowPorts } from '../../platform/runtime/context.js';
import { safeText } from '../../core/security/safe-text.js';
import { utcMinute } from '../../core/utc-text.js';
import { keeperSteps } from './keep-steps.js';
import { guardLiveAction } from '../write/live-guard.js';
import { readTargetFile } from '../plan/target-plan.js';
import { identityOf } from '../write/identity.js';
import { keeperLockPlace, takeKeeperLock } from './keeper-heartbeat.js';
import { startKeeperService, type KeeperService, type KeeperServiceOptions } from './keeper-service.js';
import { formatUsd } from '../../core/number-format.js';
import { DAY_MS } from '../../core/vocabulary.js';

/** The spec advises polling no faster than every one to two seconds: a cycle is at least this apart. */
export const MIN_INTERVAL_MS = 2_000;
export const DEFAULT_INTERVAL_MS = 60_000;
export const MAX_INTERVAL_MS = 86_400_000;

/** The keeper's target, re-read each cycle. */
export type MovingTarget = (ports: FlowPorts) => Promise<KeepRow[]>;

export interface KeepOptions extends Pick<
  KeeperServiceOptions,
  'file' | 'intervalMs' | 'toleranceUsd' | 'dryRun' | 'alertCommand'
> {
  once: boolean;
  converge: boolean;
  /** The service parts (keeper-service.ts): --alert-url, --alert-headroom, --metrics. */
  service?: Pick<KeeperServiceOptions, 'alertUrl' | 'alertHeadroomUsd' | 'metrics' | 'metricsErrorCodes'>;
  /**
   * `keep --exposures`: the target is recomputed before every cycle (due dates pass,
   * buckets change, the price moves) instead of read from a target file; see flows/exposures.ts.
   */
  movingTarget?: MovingTarget;
}

/** What the keeper is given besides its options: where its events and status go, and how a failure reads. */
interface KeepServices {
  /** The live screen or NDJSON (commands/keep.ts chooses). */
  reporter: KeepReporter;
  /** A failure as an `error` event's fields (code, exit code, message, hint): the command's description. */
  errorFields: (error: unknown) => Record<string, unknown>;
}

/**
 * How a keeper ended, for the command to map to an exit code: stopped by a signal (`interrupted`
 * when a second one cut its steps short), or one cycle run (`--once`, `--dry-run`) with the first
 * error's exit code when there was one.
 */
export type KeepOutcome = { kind: 'stopped'; interrupted: boolean } | { kind: 'one-cycle'; firstError?: unknown };

export async function runKeep(ports: FlowPorts, options: KeepOptions, services: KeepServices): Promise<KeepOutcome> {
  // The context's clock; a wake-up ends a sleep early (no timer outlives the keeper).
  const clock: KeeperClock = {
    now: () => ports.clock.now(),
    sleep: (ms, wake) => ports.clock.sleep(ms, wake).catch(() => undefined),
  };
  // Signals first, before anything is awaited: the first SIGTERM/SIGINT ends the loop after the
  // steps in flight; a second one is left to the runner (it aborts their waits); SIGHUP re-reads.
  const signals = installSignals(ports, clock);
  try {
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
    const { reporter } = services;
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
      service?.observe(full);
      return full;
    };

    // One keeper per account, held for its life; a team store that ends the session makes it take the lock again.
    const lockPlace = options.dryRun ? undefined : await keeperLockPlace(ports, identity);
    const takeLock = () => takeKeeperLock(ports, lockPlace!, options.file);
    let keeperHold = lockPlace && (await takeLock());

    let confirmed = !guard.needsConfirmation;
    // The steps say nothing (what they did comes back as outcomes, made into events here), so no
    // spinner of theirs is drawn over the live status; they ask nothing once the keeper's run is
    // confirmed (by --yes, a key that is not live, or the question below). Their rows are journaled
    // `via: keeper`: the keeper finishes no one's unresolved rows but its own.
    const stepContext = () => ports.keeperStep({ signal: signals.stepSignal, notify: () => {}, confirmed });
    // The first error of a one-cycle run: the command ends with its exit code.
    let firstError: unknown;
    const noteError = (error: unknown, fields: Omit<EventFields, 'event'>): void => {
      firstError ??= error;
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
    const steps = keeperSteps(stepContext, { ...options, event, noteError, identity });
    const scheduler = new RowScheduler({ rules: options, clock, event, noteError });

    try {
      service = await startKeeperService(ports, identity, lockPlace, { ...options, ...options.service }, event);
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

      const once = options.once || options.dryRun;
      await runCycles(
        { ...options, once, minIntervalMs: MIN_INTERVAL_MS, clock },
        signals,
        async (number, startedAt) => {
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
              keeperHold = await takeLock();
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
            if (once) await scheduler.settle();
            const nextAt =
              once || signals.stopping ? undefined : new Date(startedAt + options.intervalMs).toISOString();
            reporter.status({
              file: options.file,
              rows: outcome.rows,
              last_cycle_at: new Date(clock.now()).toISOString(),
              next_cycle_at: nextAt,
              stopping: signals.stopping,
              dry_run: options.dryRun,
            });
            event({
              event: 'cycle',
              cycle: number,
              server_time: outcome.serverTime,
              rows: outcome.rows,
              next_cycle_at: nextAt,
            });
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
        },
      );
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
      if (signals.stopping)
        event({ event: 'stop', message: 'stopped by a signal after finishing the steps in flight' });
      return once ? { kind: 'one-cycle', firstError } : { kind: 'stopped', interrupted: false };
    } finally {
      await service?.stop();
      reporter.close();
      await keeperHold?.release().catch(() => {});
    }
  } finally {
    signals.uninstall();
  }
}

function toKeepRows(rows: TargetRow[], file: string): KeepRow[] {
  const statedAtMs = statedAt(file);
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
    return { ...row, statedAtMs };
  });
}

/** When the target last said its rows: the file's modification time (a colleague's close after it stands). */
function statedAt(file: string) {
  try {
    return file === '-' ? undefined : statSync(file).mtimeMs;
  } catch {
    return undefined;
  }
}

// ---- One cycle, and the loop: one step in flight per row, each row backing off on its own.

/**
 * A flat side's re-open backs off at most this long (or one interval, when longer): the side is
 * bare meanwhile, and a refused re-open costs only the pre-trade reads.
 */
const FLAT_SIDE_BACKOFF_CAP_MS = 5 * 60_000;

type CycleRules = Pick<KeepOptions, 'dryRun' | 'converge' | 'intervalMs' | 'toleranceUsd'>;

interface CycleDeps {
  rules: CycleRules;
  clock: KeeperClock;
  event: (fields: EventFields) => KeepEvent;
  noteError: (error: unknown, fields: Omit<EventFields, 'event'>) => void;
}

/** What one cycle saw and decided: the status of every row (the live screen, the `cycle` event). */
interface KeepCycle {
  rows: KeepRowStatus[];
  serverTime?: string;
}

/** What the keeper remembers between cycles about one row. */
interface RowMemory {
  failures: number;
  retryAtMs: number;
  lastSkip?: string;
  lastDrift?: string;
  lastHeld?: string;
}

interface StepInFlight {
  kind: Actionable['kind'];
  sinceMs: number;
  done: Promise<void>;
}

export class RowScheduler {
  private readonly memory = new Map<string, RowMemory>();
  private readonly inFlight = new Map<string, StepInFlight>();

  constructor(private readonly deps: CycleDeps) {}

  /** The sides (`MARKET side`) with a step in flight: the journal's unfinished actions of these are theirs. */
  busySides(): ReadonlySet<string> {
    return new Set(this.inFlight.keys());
  }

  /** Waits for every step in flight (each bounded by its requests' own bounds). */
  async settle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight.values()].map((step) => step.done));
  }

  /** What a row would get on this reading (the question before a live keeper starts). */
  preview(row: KeepRow, reading: SideReading): string {
    return describeDecision(decideRow(row, reading.views.get(rowKey(row)) ?? {}, reading.nowMs, this.deps.rules));
  }

  /** A new target (SIGHUP): what was remembered about drift is the old target's. */
  forgetDrift(): void {
    for (const remembered of this.memory.values()) remembered.lastDrift = undefined;
  }

  /** One cycle; its steps are awaited until `stepsDueBy` (always in a dry run), then left in flight. */
  async cycle(
    rows: readonly KeepRow[],
    steps: KeeperSteps,
    state: { unresolved: ReadonlyMap<string, string>; isStopping: () => boolean; stepsDueBy?: number },
  ): Promise<KeepCycle> {
    const { rules, event, noteError, clock } = this.deps;
    let reading: SideReading;
    try {
      reading = await steps.read(rows);
    } catch (error) {
      // Nothing is done on a book that could not be read: a side it cannot see is never opened.
      noteError(error, { phase: 'read' });
      return {
        rows: rows.map((row) =>
          this.withStep(rowKey(row), rowStatus(row, undefined, 'unknown (the book could not be read)')),
        ),
      };
    }
    const statuses: KeepRowStatus[] = [];
    const started: Array<Promise<void>> = [];
    for (const row of rows) {
      const key = rowKey(row);
      const view = reading.views.get(key) ?? {};
      const remembered = this.memory.get(key) ?? { failures: 0, retryAtMs: 0 };
      this.memory.set(key, remembered);
      const base = { market: row.market, side: row.side };
      // What the side's view alone decides: a row not acted on this cycle (its step in flight, an
      // action of it unresolved) still shows when a covered side's roll falls due, since the alerts
      // judge a side that settles before the next cycle as a missed roll by that time.
      const decision = decideRow(row, view, reading.nowMs, rules);
      if (this.inFlight.has(key)) {
        statuses.push(this.withStep(key, rowStatus(row, view, '', decision)));
        continue;
      }
      const unresolved = state.unresolved.get(key);
      if (unresolved) {
        // An action of this side whose outcome is not known yet: nothing new is sent until it resolves.
        statuses.push(rowStatus(row, view, unresolved, decision));
        if (remembered.lastHeld !== unresolved) event({ event: 'skip', ...base, reason: unresolved });
        remembered.lastHeld = unresolved;
        continue;
      }
      remembered.lastHeld = undefined;
      const status = rowStatus(row, view, describeDecision(decision), decision);
      statuses.push(status);
      if (decision.kind === 'hold') {
        remembered.lastSkip = undefined;
        remembered.lastDrift = undefined;
        continue;
      }
      if (decision.kind === 'skip') {
        if (remembered.lastSkip !== decision.reason)
          event({ event: 'skip', ...base, notional_usd: view.position?.notionalUsd, reason: decision.reason });
        remembered.lastSkip = decision.reason;
        continue;
      }
      remembered.lastSkip = undefined;
      if (decision.kind === 'drift') {
        const converging = rules.converge && !rules.dryRun;
        const signature = `${decision.change}:${decision.currentUsd}→${decision.targetUsd}`;
        if (remembered.lastDrift !== signature || converging) event(driftEvent(decision, view, base, rules));
        remembered.lastDrift = signature;
        // Reported only: a colleague's change stands until the target says otherwise (or --converge).
        if (!rules.converge && !(decision.alsoRollDue && !rules.dryRun)) continue;
      } else {
        remembered.lastDrift = undefined;
      }
      if (state.isStopping()) {
        status.state = 'stopping: not started';
        continue;
      }
      if (clock.now() < remembered.retryAtMs) {
        status.state = `backing off after ${remembered.failures} failure${remembered.failures === 1 ? '' : 's'}`;
        status.next_action = decision.kind;
        status.next_action_at = new Date(remembered.retryAtMs).toISOString();
        continue;
      }
      status.state = `${decision.kind} in flight`;
      started.push(this.start(row, decision, view, steps, remembered, status));
    }
    const dueBy = rules.dryRun ? undefined : state.stepsDueBy;
    const timer = new AbortController();
    try {
      if (started.length > 0)
        await Promise.race([
          Promise.all(started),
          ...(dueBy === undefined ? [] : [clock.sleep(Math.max(0, dueBy - clock.now()), timer.signal)]),
        ]);
    } finally {
      timer.abort();
    }
    return { rows: statuses, serverTime: reading.serverTime };
  }

  /** Starts the row's step; the row's status says how it ended once it has (what --once and a dry run report). */
  private start(
    row: KeepRow,
    decision: Actionable,
    view: SideView,
    steps: KeeperSteps,
    remembered: RowMemory,
    status: KeepRowStatus,
  ): Promise<void> {
    const { rules, noteError, clock } = this.deps;
    const key = rowKey(row);
    const done = (async () => {
      try {
        await steps.act(row, decision);
        remembered.failures = 0;
        remembered.retryAtMs = 0;
        status.state = rules.dryRun ? `would ${decision.kind}` : `${decision.kind} done`;
      } catch (error) {
        remembered.failures += 1;
        const capMs = decision.kind === 'reopen' ? Math.max(rules.intervalMs, FLAT_SIDE_BACKOFF_CAP_MS) : undefined;
        remembered.retryAtMs = clock.now() + backoffMs(remembered.failures, rules.intervalMs, capMs);
        noteError(error, {
          market: row.market,
          side: row.side,
          notional_usd: row.notionalUsd,
          action: decision.kind,
          hedge_ids: view.position?.hedgeId ? [view.position.hedgeId] : [],
          failures: remembered.failures,
          retry_at: new Date(remembered.retryAtMs).toISOString(),
        });
        status.state = rules.dryRun ? `${decision.kind} would be refused` : `${decision.kind} failed; retrying`;
      } finally {
        this.inFlight.delete(key);
      }
    })();
    this.inFlight.set(key, { kind: decision.kind, sinceMs: clock.now(), done });
    return done;
  }

  private withStep(key: string, status: KeepRowStatus): KeepRowStatus {
    const step = this.inFlight.get(key);
    if (!step) return status;
    const seconds = Math.round((this.deps.clock.now() - step.sinceMs) / 1000);
    return { ...status, state: `${step.kind} in flight (${seconds} s)` };
  }
}

function driftEvent(
  decision: Extract<KeepDecision, { kind: 'drift' }>,
  view: SideView,
  base: { market: string; side: string },
  rules: CycleRules,
): EventFields {
  const would = rules.dryRun ? 'would ' : '';
  const action =
    decision.change === 'open'
      ? `re-open ${formatUsd(decision.amountUsd)}`
      : `${decision.change} ${formatUsd(decision.amountUsd)}`;
  const closedBy = view.closedOutside ? `closed outside the keeper (${view.closedOutside.hedgeId}); ` : '';
  return {
    event: 'drift',
    ...base,
    notional_usd: decision.currentUsd,
    target_usd: decision.targetUsd,
    change: decision.change,
    hedge_ids: view.position?.hedgeId
      ? [view.position.hedgeId]
      : view.closedOutside
        ? [view.closedOutside.hedgeId]
        : [],
    message: rules.converge
      ? `${closedBy}--converge ${would}${action} to reach the target`
      : decision.change === 'open'
        ? `${closedBy}left flat: not re-opened until the target file says so again (edit it, then SIGHUP), or run with --converge`
        : 'reported only; run with --converge to bring it back',
  };
}

export function rowStatus(
  row: KeepRow,
  view: SideView | undefined,
  state: string,
  decision?: KeepDecision,
): KeepRowStatus {
  const next = decision?.kind === 'hold' ? decision : undefined;
  return {
    market: row.market,
    side: row.side,
    ...(row.clientReference ? { client_reference: row.clientReference } : {}),
    target_usd: row.notionalUsd,
    current_usd: view?.position?.notionalUsd ?? null,
    // Null above is flat only when the side could be told: the alert rules must not read a settling
    // side, or a book that could not be read, as one that settled.
    ...(view === undefined || view.settling ? { current_unknown: true as const } : {}),
    state,
    next_action: next?.nextAction ?? null,
    next_action_at: next?.nextActionAtMs !== undefined ? new Date(next.nextActionAtMs).toISOString() : null,
  };
}

function describeDecision(decision: KeepDecision): string {
  switch (decision.kind) {
    case 'hold':
    case 'skip':
      return decision.reason;
    case 'roll':
      return `roll due (matures ${utcMinute(decision.maturityAtMs)} UTC)`;
    case 'reopen':
      return 'flat: re-open';
    case 'drift':
      return decision.change === 'open'
        ? 'flat: closed outside the keeper (drift)'
        : `drifted to ${formatUsd(decision.currentUsd)} (target ${formatUsd(decision.targetUsd)})`;
  }
}

/**
 * The keeper's loop: a cycle, then a sleep until the interval is up (woken early by a SIGHUP, but
 * cycles stay at least `minIntervalMs` apart), until a stop. Timing only, on the injected clock.
 */
export async function runCycles(
  loop: { once: boolean; intervalMs: number; minIntervalMs: number; clock: KeeperClock },
  signals: { readonly stopping: boolean; sleep(ms: number): Promise<void> },
  cycle: (number: number, startedAtMs: number) => Promise<void>,
): Promise<void> {
  for (let number = 1; !signals.stopping; number += 1) {
    const startedAt = loop.clock.now();
    await cycle(number, startedAt);
    if (loop.once) break;
    do await signals.sleep(Math.max(0, startedAt + loop.intervalMs - loop.clock.now()));
    while (!signals.stopping && loop.clock.now() - startedAt < loop.minIntervalMs);
  }
}

// ---- The clock and the signals (injected: unit tests move the clock themselves).

export interface KeeperClock {
  now(): number;
  /** Resolves after `ms`, or at once when `wake` aborts (a stop signal, a SIGHUP). */
  sleep(ms: number, wake: AbortSignal): Promise<void>;
}

/**
 * The keeper's signals: the first SIGTERM/SIGINT ends the loop after the steps in flight, a second
 * aborts the steps' own signal; SIGHUP asks for the target to be read again.
 */
function installSignals(ports: FlowPorts, clock: KeeperClock) {
  const steps = new AbortController();
  // A signal that came before the keeper started listening was the runner's first: a graceful stop.
  let stopping = ports.signal.aborted;
  let reload = false;
  let wake: AbortController | undefined;
  let runnersStops = false;
  const release = ports.interceptSignals((signal) => {
    if (runnersStops) return false;
    if (signal === 'SIGHUP') {
      reload = true;
      wake?.abort();
      return true;
    }
    if (stopping) return false;
    stopping = true;
    wake?.abort();
    handle.onStopRequested?.(signal);
    return true;
  });
  const onAbort = () => steps.abort(ports.signal.reason);
  if (!ports.signal.aborted) ports.signal.addEventListener('abort', onAbort, { once: true });
  const handle = {
    get stopping() {
      return stopping;
    },
    /** True once a second stop signal interrupted the steps in progress. */
    get interrupted() {
      return steps.signal.aborted;
    },
    takeReload() {
      const asked = reload;
      reload = false;
      return asked;
    },
    /** Sleeps until `ms` passed, a stop, or a SIGHUP. */
    async sleep(ms: number) {
      if (stopping) return;
      wake = new AbortController();
      try {
        await clock.sleep(ms, wake.signal);
      } finally {
        wake = undefined;
      }
    },
    /** Aborted by a second stop signal only: what the steps run under. */
    stepSignal: steps.signal,
    /** Told when the first stop signal arrives (the keeper says it will stop after the current steps). */
    onStopRequested: undefined as ((signal: string) => void) | undefined,
    /** Runs `work` with stop signals left to the runner: a stdin pipe that never ends must not hold a SIGTERM back. */
    async leaveStopsToRunner<T>(work: () => Promise<T>) {
      runnersStops = true;
      try {
        return await work();
      } finally {
        runnersStops = false;
      }
    },
    uninstall() {
      release();
      ports.signal.removeEventListener('abort', onAbort);
    },
  };
  return handle;
}
