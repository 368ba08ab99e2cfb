// `hedge keep FILE`: holds the book at a target file through maturities, one keeper per account.
// A side with an unresolved action is left alone; one it cannot see is never opened; a colleague's close stands (drift).
import { statSync } from 'node:fs';
import type { Hedge } from '../../platform/api/schemas.js';
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
import { HedgeError, HeldError, StateError, UnresolvedError, UsageError } from '../../core/errors.js';
import type { TargetRow } from '../../core/target-file.js';
import type { PlanStep } from '../../core/plan.js';
import { bodyOf, isUnresolved, type JournalEntry } from '../../platform/journal/index.js';
import type { FlowPorts } from '../../platform/runtime/context.js';
import type { RollOutcome } from '../../platform/results/roll-outcome-types.js';
import { safeText } from '../../core/security/safe-text.js';
import { utcIso, utcMinute } from '../../core/utc-text.js';
import { formatUsd } from '../../core/number-format.js';
import { DAY_MS } from '../../core/vocabulary.js';
import { ASSUMED_SKEW_MS, describeServerClock, formatSpan } from '../../core/server-clock.js';
import { guardLiveAction } from '../write/live-guard.js';
import { withSideLock } from '../write/account-lock.js';
import { begunElsewhere, ownRowTest } from '../write/row-trust.js';
import { runWrite } from '../write/write-flow.js';
import { identityOf, sentBy, type Identity } from '../write/identity.js';
import { readTargetFile } from '../plan/target-plan.js';
import { checkOpenAfterClose } from '../trade/pre-trade.js';
import { finishJournaled } from '../trade/resume.js';
import { newGroup, resumeRollOutcome, ROLL_GROUP_PREFIX, runRoll } from '../trade/roll.js';
import { days, stepAction } from '../trade/trade-actions.js';
import { expectationMet, type SideExpectation } from '../book/book.js';
import { SideViews, unseenIn } from '../book/side-book.js';
import { answeredOpens } from '../write/wait.js';
import { keeperLockPlace, takeKeeperLock } from './keeper-heartbeat.js';
import { startKeeperService, type KeeperService, type KeeperServiceOptions } from './keeper-service.js';
import type { JsonObject } from '../../core/objects.js';

/** The spec advises polling no faster than every one to two seconds: a cycle is at least this apart. */
export const MIN_INTERVAL_MS = 2_000;
export const DEFAULT_INTERVAL_MS = 60_000;
export const MAX_INTERVAL_MS = 86_400_000;

/** The keeper's target, re-read each cycle. */
export type MovingTarget = (ports: FlowPorts) => Promise<KeepRow[]>;

/** The keeper's options, its service parts' (keeper-service.ts: --alert-cmd, --alert-url, --alert-headroom, --metrics) among them. */
interface KeepOptions extends KeeperServiceOptions {
  once: boolean;
  converge: boolean;
  /** `keep --exposures`: the target is recomputed before every cycle (due dates pass, buckets change, the price moves) instead of read from a target file; see flows/exposures.ts. */
  movingTarget?: MovingTarget;
}

/** How the keeper's parts say what they did: an event, or an error (a one-cycle run ends with its first's exit code). */
interface Say {
  event: (fields: EventFields) => void;
  noteError: (error: unknown, fields: Omit<EventFields, 'event'>) => void;
}

/** What the keeper is given besides its options: where its events and status go, and how a failure reads. */
interface KeepServices {
  /** The live screen or NDJSON (commands/keep.ts chooses). */
  reporter: KeepReporter;
  /** A failure as an `error` event's fields (code, exit code, message, hint): the command's description. */
  errorFields: (error: unknown) => JsonObject;
}

/** How a keeper ended: stopped by a signal (`interrupted` when a second cut its steps short), or one cycle run with the first error for the exit code. */
type KeepOutcome = { kind: 'stopped'; interrupted: boolean } | { kind: 'one-cycle'; firstError?: unknown };

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
    const event = (fields: EventFields) => {
      // A dry run marks every event as one: nothing it says was done.
      const full = {
        at: utcIso(clock.now()),
        ...fields,
        ...(options.dryRun ? { dry_run: true } : {}),
      } as KeepEvent;
      reporter.event(full);
      service?.observe(full);
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
    const noteError = (error: unknown, fields: Omit<EventFields, 'event'>) => {
      firstError ??= error;
      const described = services.errorFields(error);
      // The step's own fields first; the error's description fills what they leave (its journal id).
      event({
        event: 'error',
        ...fields,
        ...described,
        ...(fields.journal_id === undefined ? {} : { journal_id: fields.journal_id }),
      });
    };
    signals.onStopRequested = (signal) =>
      event({
        event: 'stop',
        phase: 'requested',
        message: `${signal}: stopping after the steps in flight (a second ${signal} interrupts them)`,
      });
    const steps = keeperSteps(stepContext, { ...options, event, noteError, identity });
    const scheduler = rowScheduler({ rules: options, clock, event, noteError });

    try {
      service = await startKeeperService(ports, identity, lockPlace, options, event);
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
          // The exposures are read again every cycle, so a SIGHUP needs nothing more there.
          const moving = options.movingTarget;
          if (signals.takeReload() || moving) {
            try {
              rows = moving ? await moving(stepContext()) : await readRows();
              if (!moving) {
                scheduler.forgetDrift();
                event({ event: 'start', file: options.file, rows: rows.length, reloaded: true });
              }
            } catch (error) {
              noteError(
                error,
                moving
                  ? {
                      phase: 'target',
                      message: 'the target could not be recomputed from the exposures; the previous target stays',
                    }
                  : { phase: 'reload', message: 'the target file could not be re-read; the previous target stays' },
              );
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
            const nextAt = once || signals.stopping ? undefined : utcIso(startedAt + options.intervalMs);
            reporter.status({
              file: options.file,
              rows: outcome.rows,
              last_cycle_at: utcIso(clock.now()),
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

function toKeepRows(rows: TargetRow[], file: string) {
  const statedAtMs = statedAt(file);
  return rows.map((row) => {
    const where = `${safeText(file)}:${row.line}`;
    if (row.notionalUsd > 0 && row.tenorDays === undefined)
      throw new UsageError(`${where}: tenor_days is required for a row the keeper holds open.`);
    const rollBeforeMs = row.rollBeforeMs ?? DEFAULT_ROLL_BEFORE_MS;
    // A roll_before as long as the tenor would roll every new hedge at once, every cycle, paying each time.
    if (row.tenorDays !== undefined && rollBeforeMs >= row.tenorDays * DAY_MS) {
      throw new UsageError(
        `${where}: roll_before must be shorter than the tenor (${days(row.tenorDays)}); a hedge would be rolled as soon as it is opened.`,
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
    return;
  }
}

// ---- One cycle, and the loop: one step in flight per row, each row backing off on its own.

/** A flat side's re-open backs off at most this long (or one interval, when longer): the side is bare meanwhile, and a refused re-open costs only the pre-trade reads. */
const FLAT_SIDE_BACKOFF_CAP_MS = 5 * 60_000;

/** The cycles' scheduler: one step in flight per row, each row backing off on its own. */
export function rowScheduler({
  rules,
  clock,
  event,
  noteError,
}: Say & { rules: Pick<KeepOptions, 'dryRun' | 'converge' | 'intervalMs' | 'toleranceUsd'>; clock: KeeperClock }) {
  // What the keeper remembers between cycles about one row.
  const memory = new Map<
    string,
    { failures: number; retryAtMs: number; lastSkip?: string; lastDrift?: string; lastHeld?: string }
  >();
  const inFlight = new Map<string, { kind: Actionable['kind']; sinceMs: number; done: Promise<void> }>();
  const withStep = (key: string, status: KeepRowStatus) => {
    const step = inFlight.get(key);
    return step
      ? { ...status, state: `${step.kind} in flight (${Math.round((clock.now() - step.sinceMs) / 1000)} s)` }
      : status;
  };
  return {
    /** The sides (`MARKET side`) with a step in flight: the journal's unfinished actions of these are theirs. */
    busySides: () => new Set(inFlight.keys()),

    /** Waits for every step in flight (each bounded by its requests' own bounds). */
    async settle() {
      while (inFlight.size > 0) await Promise.all([...inFlight.values()].map((step) => step.done));
    },

    /** What a row would get on this reading (the question before a live keeper starts). */
    preview: (row: KeepRow, reading: SideReading) =>
      describeDecision(decideRow(row, reading.views.get(rowKey(row)) ?? {}, reading.nowMs, rules)),

    /** A new target (SIGHUP): what was remembered about drift is the old target's. */
    forgetDrift() {
      for (const remembered of memory.values()) remembered.lastDrift = undefined;
    },

    /** One cycle: what it saw and decided, the status of every row (the live screen, the `cycle` event); its steps are awaited until `stepsDueBy` (always in a dry run), then left in flight. */
    async cycle(
      rows: readonly KeepRow[],
      steps: KeeperSteps,
      state: { unresolved: ReadonlyMap<string, string>; isStopping: () => boolean; stepsDueBy?: number },
    ) {
      let reading: SideReading;
      try {
        reading = await steps.read(rows);
      } catch (error) {
        // Nothing is done on a book that could not be read: a side it cannot see is never opened.
        noteError(error, { phase: 'read' });
        return {
          rows: rows.map((row) =>
            withStep(rowKey(row), rowStatus(row, undefined, 'unknown (the book could not be read)')),
          ),
        };
      }
      const statuses: KeepRowStatus[] = [];
      const started: Array<Promise<void>> = [];
      for (const row of rows) {
        const key = rowKey(row);
        const view = reading.views.get(key) ?? {};
        const remembered = memory.get(key) ?? { failures: 0, retryAtMs: 0 };
        memory.set(key, remembered);
        const base = { market: row.market, side: row.side };
        // What the side's view alone decides: a row not acted on this cycle (its step in flight, an
        // action of it unresolved) still shows when a covered side's roll falls due, since the alerts
        // judge a side that settles before the next cycle as a missed roll by that time.
        const decision = decideRow(row, view, reading.nowMs, rules);
        if (inFlight.has(key)) {
          statuses.push(withStep(key, rowStatus(row, view, '', decision)));
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
          const signature = `${decision.change}:${decision.currentUsd}→${decision.targetUsd}`;
          if (remembered.lastDrift !== signature || (rules.converge && !rules.dryRun)) {
            const would = rules.dryRun ? 'would ' : '';
            const action = `${decision.change === 'open' ? 're-open' : decision.change} ${formatUsd(decision.amountUsd)}`;
            const closedBy = view.closedOutside ? `closed outside the keeper (${view.closedOutside.hedgeId}); ` : '';
            event({
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
            });
          }
          remembered.lastDrift = signature;
          // Reported only: a colleague's change stands until the target says otherwise (or --converge);
          // the row says so, so that nobody reads the drift as being brought back.
          if (!rules.converge && !(decision.alsoRollDue && !rules.dryRun)) {
            status.state += ': reported only (run with --converge to bring it back)';
            continue;
          }
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
          status.next_action_at = utcIso(remembered.retryAtMs);
          continue;
        }
        status.state = `${decision.kind} in flight`;
        // The row's status says how its step ended once it has (what --once and a dry run report).
        const done = (async () => {
          try {
            await steps.act(row, decision);
            remembered.failures = 0;
            remembered.retryAtMs = 0;
            status.state = rules.dryRun ? `would ${decision.kind}` : `${decision.kind} done`;
          } catch (error) {
            remembered.failures += 1;
            // A flat side's re-open backs off at most FLAT_SIDE_BACKOFF_CAP_MS (or one interval, when longer).
            const capMs = decision.kind === 'reopen' ? Math.max(rules.intervalMs, FLAT_SIDE_BACKOFF_CAP_MS) : undefined;
            remembered.retryAtMs = clock.now() + backoffMs(remembered.failures, rules.intervalMs, capMs);
            noteError(error, {
              ...base,
              notional_usd: row.notionalUsd,
              action: decision.kind,
              hedge_ids: view.position?.hedgeId ? [view.position.hedgeId] : [],
              failures: remembered.failures,
              retry_at: utcIso(remembered.retryAtMs),
            });
            status.state = rules.dryRun ? `${decision.kind} would be refused` : `${decision.kind} failed; retrying`;
          } finally {
            inFlight.delete(key);
          }
        })();
        inFlight.set(key, { kind: decision.kind, sinceMs: clock.now(), done });
        started.push(done);
      }
      const dueBy = rules.dryRun ? undefined : state.stepsDueBy;
      const timer = new AbortController();
      try {
        if (started.length)
          await Promise.race([
            Promise.all(started),
            ...(dueBy === undefined ? [] : [clock.sleep(Math.max(0, dueBy - clock.now()), timer.signal)]),
          ]);
      } finally {
        timer.abort();
      }
      return { rows: statuses, serverTime: reading.serverTime };
    },
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
    next_action_at: next?.nextActionAtMs !== undefined ? utcIso(next.nextActionAtMs) : null,
  };
}

function describeDecision(decision: KeepDecision) {
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

/** The keeper's loop: a cycle, then a sleep until the interval is up (woken early by a SIGHUP, but cycles stay at least `minIntervalMs` apart), until a stop. Timing only, on the injected clock. */
export async function runCycles(
  loop: { once: boolean; intervalMs: number; minIntervalMs: number; clock: KeeperClock },
  signals: { readonly stopping: boolean; sleep(ms: number): Promise<void> },
  cycle: (number: number, startedAtMs: number) => Promise<void>,
) {
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

/** The keeper's signals: the first SIGTERM/SIGINT ends the loop after the steps in flight, a second aborts the steps' own signal; SIGHUP asks for the target to be read again. */
function installSignals(ports: FlowPorts, clock: KeeperClock) {
  const steps = new AbortController();
  // A signal that came before the keeper started listening was the runner's first: a graceful stop.
  let stopping = ports.signal.aborted;
  let reload = false;
  let wake: AbortController | undefined;
  let runnersStops = false;
  const release = ports.interceptSignals((signal) => {
    const hup = signal === 'SIGHUP';
    if (runnersStops || (stopping && !hup)) return false;
    if (hup) reload = true;
    else stopping = true;
    wake?.abort();
    if (!hup) handle.onStopRequested?.(signal);
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

// ---- The steps: what a keeper cycle does on the server, through the flows every write uses (roll,
// re-open, converge), each decided again under the side's lock on a fresh read; events are built from their outcomes.

/** Every re-open or convergence of a keeper is journaled under a group starting with this. */
const KEEP_GROUP_PREFIX = 'keep-';
/** A server clock further than this from ours is said once (the keeper still acts on the server's: maturities are its). */
const SKEW_WORTH_SAYING_MS = 5 * 60_000;
const SEND_AND_WAIT = { wait: true, dryRun: false, fresh: false };
/** How long (server time) the keeper's own landed write may take to show in every view before it says it cannot tell (exit 12 for --once). */
const EXPECTATION_BOUND_MS = 10 * 60_000;

/** A roll's or a keeper action's journal group. */
const ofKeeper = (group: string | undefined): group is string =>
  group?.startsWith(ROLL_GROUP_PREFIX) === true || group?.startsWith(KEEP_GROUP_PREFIX) === true;

/** The side (`MARKET side`) a journal row acts on. */
const sideOf = (entry: JournalEntry) =>
  `${String(bodyOf(entry).market ?? '').toUpperCase()} ${String(bodyOf(entry).side ?? '')}`;

const idList = (...ids: Array<string | null | undefined>) => ids.filter((id): id is string => typeof id === 'string');

/** The keeper's steps on the server, each under `stepContext()` (its notices said to no one, its signal the keeper's). Steps are confirmed by the keeper's own run (its target and --yes), never at a prompt. */
function keeperSteps(
  stepContext: () => FlowPorts,
  deps: Say & Pick<KeepOptions, 'dryRun' | 'converge' | 'toleranceUsd'> & { identity: Identity },
) {
  const { event, noteError } = deps;
  // Notices said once (by code), and sides past their bound said once each (by side and cause).
  const said = new Set<string>();
  const once = (key: string) => !said.has(key) && !!said.add(key);
  // Hedges this keeper closed itself (a roll's close): a side flat after one of these is not a colleague's.
  const closedByKeeper = new Set<string>();
  // Hedge id → closed by a roll or keeper action, as the journal says (asked once per hedge).
  const byARoll = new Map<string, boolean>();
  // Per side: what this keeper's own last write must show in every view before the side is decided again.
  const expectations = new Map<string, SideExpectation & { what: string }>();
  // Per side: since when (server time) its views have disagreed, while they do.
  const settlingSince = new Map<string, number>();

  const say = (code: string, message: string) => {
    if (once(code)) event({ event: 'notice', code, message });
  };
  /** The error a side past EXPECTATION_BOUND_MS gives (cannot tell), said once per side and cause: it still waits after that. */
  const cannotTell = (key: string, row: KeepRow, message: string) => {
    if (once(key))
      noteError(
        new UnresolvedError(message, {
          hint: 'Compare `hedge positions` with `hedge hedges`; the keeper acts on the side again once both show the same book.',
        }),
        { market: row.market, side: row.side },
      );
  };
  const onRolled = (outcome: RollOutcome) => {
    if (outcome.kind === 'rolled' && outcome.closed?.hedgeId) closedByKeeper.add(outcome.closed.hedgeId);
  };
  // Counted from the server's time when the write landed (the bound is the server's, like maturities).
  const expect = async (
    ports: FlowPorts,
    row: KeepRow,
    expectation: Omit<SideExpectation, 'sinceMs'> & { what: string },
  ) => {
    const client = await ports.client();
    expectations.set(rowKey(row), { ...expectation, sinceMs: client.transport.serverNow().latestMs });
    said.delete(rowKey(row));
  };

  /** Why the side waits for this keeper's own last write to show in every view, or undefined once it does (the expectation is then dropped). */

  /** The book read fresh, each side from its hedge records and positions together; rolls are timed at the latest the server's clock can read. A side whose views disagree or miss this keeper's own last write is settling. */
  const read = async (ports: FlowPorts, rows: readonly KeepRow[]) => {
    const client = await ports.client();
    const sideViews = await SideViews.read(client, (line) => ports.log(line));
    // A hedge an open of this account was answered with, not in the views yet: they trail the write, the side is not flat.
    const opened = await answeredOpens(ports);
    const time = client.transport.serverNow();
    const nowMs = time.latestMs;
    const views = new Map<string, SideView>();
    for (const row of rows) {
      const key = rowKey(row);
      const book = await sideViews.book(row.market, row.side);
      let settling: string | undefined;
      const unseen = book.state === 'settling' ? undefined : unseenIn(book, opened(row.market, row.side));
      if (book.state === 'settling' || unseen !== undefined) {
        settling =
          unseen === undefined
            ? (book.why ?? 'its views disagree')
            : `it does not show hedge ${safeText(unseen)} yet, which the server named in its answer to an open of it`;
        const since = settlingSince.get(key) ?? nowMs;
        settlingSince.set(key, since);
        if (nowMs - since > EXPECTATION_BOUND_MS)
          cannotTell(
            `settling ${key}`,
            row,
            `The ${row.side} side of ${row.market} has been settling for ${Math.round((nowMs - since) / 1000)} s (server time): ${settling}. What it holds cannot be told, so nothing is sent on it.`,
          );
      } else {
        settlingSince.delete(key);
        said.delete(`settling ${key}`);
        // The side waits for this keeper's own last write to show in every view; once it does, the expectation is dropped.
        const expected = expectations.get(key);
        if (expected && expectationMet(book, expected)) {
          expectations.delete(key);
          said.delete(key);
        } else if (expected) {
          settling = `this keeper's own ${expected.what} (${formatUsd(expected.notionalUsd)}) is not in every view yet`;
          if (nowMs - expected.sinceMs > EXPECTATION_BOUND_MS)
            cannotTell(
              key,
              row,
              `${settling} ${Math.round((nowMs - expected.sinceMs) / 1000)} s after it landed (server time): cannot tell what the side holds, so nothing more is sent on it.`,
            );
        }
      }
      // The soonest to mature of the side's hedges decides when the side is rolled.
      const soonest = book.filled.at(-1);
      const covered = book.state === 'in-step' && soonest !== undefined;
      const opening = book.opening[0];
      // The side's newest hedge closed before maturity (on the clock the book judged it by) by someone else: a colleague's close, which wins.
      const newest = sideViews.hedges.find(
        (hedge) => hedge.market.toUpperCase() === row.market && hedge.side === row.side,
      );
      const closedAt = (newest as JsonObject | undefined)?.closed_at;
      const closedAtLocalMs =
        (typeof closedAt === 'string' ? Date.parse(closedAt) : NaN) - time.earliestMs + time.localMs;
      let closed =
        book.state === 'flat' &&
        !opening &&
        newest?.status === 'closed' &&
        !closedByKeeper.has(newest.id) &&
        Date.parse(String(newest.maturity_at)) > time.bestMs
          ? { hedgeId: newest.id, closedAtLocalMs: Number.isFinite(closedAtLocalMs) ? closedAtLocalMs : undefined }
          : undefined;
      if (closed) {
        const rolled = byARoll.get(closed.hedgeId) ?? (await closedByARoll(ports, closed.hedgeId));
        byARoll.set(closed.hedgeId, rolled);
        if (rolled) closed = undefined;
      }
      views.set(key, {
        position: covered
          ? { notionalUsd: book.recordsUsd, hedgeId: soonest.id, maturityAtMs: soonest.maturityAtMs }
          : undefined,
        opening: opening && !covered ? { hedgeId: opening.id, status: opening.status } : undefined,
        closedOutside: closed,
        settling: settling ? { why: settling } : undefined,
      });
    }
    const reading = client.transport.serverClock.reading();
    if (time.assumed) {
      say(
        'server_time_unknown',
        `The server sends no Date header and no open of this keeper has been answered yet, so its clock is not known: rolls are taken as due up to ${formatSpan(ASSUMED_SKEW_MS)} sooner than they may be (they come that much early) until an open's answer dates it.`,
      );
    } else if (!reading.from.includes('date')) {
      say('server_time_from_stamps', `The server sends no Date header: its clock is ${describeServerClock(reading)}.`);
    }
    const offsetMs = time.bestMs - time.localMs;
    if (Math.abs(offsetMs) > SKEW_WORTH_SAYING_MS) {
      say(
        'clock_skew',
        `The server's clock is ${formatSpan(Math.abs(offsetMs))} ${offsetMs > 0 ? 'ahead of' : 'behind'} this machine's: maturities are compared with the server's.`,
      );
    }
    return { views, nowMs, serverTime: utcIso(nowMs) };
  };

  /** One add, reduce, close or re-open through the write flow, journaled in a keep group. */
  const send = async (ports: FlowPorts, step: Partial<PlanStep>, leg: string) => {
    const client = await ports.client();
    const group = newGroup(KEEP_GROUP_PREFIX, ports);
    const result = await runWrite(
      ports,
      { ...stepAction(ports, client, step as PlanStep, group, leg), confirmed: true },
      SEND_AND_WAIT,
    );
    return { result, group };
  };

  const act = async (ports: FlowPorts, row: KeepRow, decision: Actionable, view: SideView) => {
    const base = { market: row.market, side: row.side };
    if (decision.kind === 'drift') {
      if (decision.change === 'open') {
        if (deps.converge)
          await act(
            ports,
            row,
            { kind: 'reopen', notionalUsd: decision.targetUsd, tenorDays: decision.tenorDays },
            view,
          );
        return;
      }
      if (deps.converge) {
        const { result } = await send(
          ports,
          { ...base, action: decision.change, deltaUsd: decision.amountUsd },
          'converge',
        );
        if (result.kind === 'dry-run') throw new HedgeError('Nothing was sent for the convergence.');
        const { entry } = result;
        await expect(ports, row, { what: decision.change, notionalUsd: decision.targetUsd });
        event({
          event: 'converge',
          ...base,
          notional_usd: decision.amountUsd,
          action: decision.change,
          journal_id: entry.id,
          idempotency_key: entry.idempotency_key,
          hedge_ids: idList(entry.hedge_id || undefined),
        });
      }
      if (decision.alsoRollDue && view.position?.maturityAtMs !== undefined) {
        // What the side holds now: the target once converged, the drifted notional otherwise.
        const notionalUsd = deps.converge ? decision.targetUsd : decision.currentUsd;
        await act(
          ports,
          row,
          { kind: 'roll', notionalUsd, hedgeId: view.position.hedgeId, maturityAtMs: view.position.maturityAtMs },
          view,
        );
      }
    } else if (decision.kind === 'roll') {
      // What a roll is about to close is noted before it is sent: a roll whose open then fails leaves
      // the side flat, and that side is the keeper's to re-open, not a colleague's drift.
      if (decision.hedgeId) closedByKeeper.add(decision.hedgeId);
      // The row's deal reference on every hedge it opens (the rolled hedge's own when the row names none).
      const outcome = await runRoll(ports, {
        ...base,
        tenorDays: decision.tenorDays ?? row.tenorDays!,
        skipChecks: false,
        write: SEND_AND_WAIT,
        bookLock: false,
        ...(row.clientReference ? { clientReference: row.clientReference } : {}),
      });
      onRolled(outcome);
      if (outcome.kind === 'rolled') {
        await expect(ports, row, {
          what: 'roll',
          notionalUsd: outcome.notionalUsd,
          ...(outcome.opened.hedgeId ? { present: [outcome.opened.hedgeId] } : {}),
          gone: idList(decision.hedgeId, outcome.closed?.hedgeId),
        });
      }
      event(rollEvent(outcome, base, decision.hedgeId));
    } else {
      const tenorDays = decision.tenorDays ?? row.tenorDays;
      const { result, group } = await send(
        ports,
        {
          ...base,
          action: 'open',
          deltaUsd: decision.notionalUsd,
          tenorDays,
          clientReference: row.clientReference || undefined,
        },
        'reopen',
      );
      if (result.kind === 'dry-run') return;
      const hedge = result.kind === 'resolved' ? (result.result as Hedge | undefined) : undefined;
      if (hedge?.status === 'failed')
        throw new HedgeError(`The re-opened hedge ${safeText(hedge.id)} failed on-chain; nothing was opened.`);
      const hedgeIds = idList(result.entry.hedge_id || undefined);
      await expect(ports, row, {
        what: 're-open',
        notionalUsd: decision.notionalUsd,
        ...(hedgeIds.length ? { present: hedgeIds } : {}),
      });
      event({
        event: 'reopen',
        ...base,
        notional_usd: decision.notionalUsd,
        tenor_days: tenorDays,
        hedge_ids: hedgeIds,
        journal_id: result.entry.id,
        journal_group: group,
        idempotency_key: result.entry.idempotency_key,
      });
    }
  };

  /** --dry-run: what a real run would do, validated as it would be (market, capacity, headroom) and said with "would"; a refusal is the error event a real run would give. */
  const wouldAct = async (ports: FlowPorts, row: KeepRow, decision: Actionable) => {
    const base = { market: row.market, side: row.side, dry_run: true };
    const client = await ports.client();
    const check = (notionalUsd: number, freedUsd = 0) =>
      checkOpenAfterClose(client, row.market, row.side, notionalUsd, freedUsd);
    const tenorDays = decision.tenorDays ?? row.tenorDays;
    if (decision.kind === 'roll') {
      await check(decision.notionalUsd, decision.notionalUsd);
      event({
        event: 'roll',
        ...base,
        notional_usd: decision.notionalUsd,
        hedge_ids: idList(decision.hedgeId || undefined),
        maturity_at: utcIso(decision.maturityAtMs),
        tenor_days: tenorDays,
        message: `would roll: close ${decision.hedgeId ?? 'the position'}, then open ${formatUsd(decision.notionalUsd)} for ${tenorDays} days`,
      });
    } else if (decision.kind === 'reopen') {
      await check(decision.notionalUsd);
      event({
        event: 'reopen',
        ...base,
        notional_usd: decision.notionalUsd,
        tenor_days: tenorDays,
        message: `would open ${formatUsd(decision.notionalUsd)} for ${tenorDays} days`,
      });
    } else if (deps.converge) {
      if (decision.change === 'open' || decision.change === 'add') await check(decision.amountUsd);
      event({
        event: 'converge',
        ...base,
        notional_usd: decision.amountUsd,
        action: decision.change,
        message: `would ${decision.change === 'open' ? 're-open' : decision.change} ${formatUsd(decision.amountUsd)} to reach the target of ${formatUsd(decision.targetUsd)}`,
      });
    }
  };

  return {
    read: (rows: readonly KeepRow[]) => read(stepContext(), rows),
    async act(row: KeepRow, first: Actionable) {
      const ports = stepContext();
      if (deps.dryRun) return wouldAct(ports, row, first);
      await withSideLock(ports, row.market, row.side, async () => {
        const fresh = await read(ports, [row]);
        const view = fresh.views.get(rowKey(row)) ?? {};
        const decision = decideRow(row, view, fresh.nowMs, deps);
        if (decision.kind === 'hold' || decision.kind === 'skip') return;
        if (decision.kind === 'drift' && !deps.converge && !decision.alsoRollDue) return;
        await act(ports, row, decision, view);
      });
    },
    /** Finishes this keeper's own unresolved rows with their keys and returns why each busy side is left alone: a new key could double an unresolved action; a person's rows are not the keeper's to finish. */
    async finishUnfinished(busy: ReadonlySet<string>, rows: readonly KeepRow[]) {
      const ports = stepContext();
      const journal = await ports.journal();
      const ours = async () => (await journal.list({ pending: true })).filter((entry) => sentBy(deps.identity, entry));
      const pending = (await ours()).filter(
        (entry) =>
          !busy.has(sideOf(entry)) &&
          entry.via === 'keeper' &&
          !begunElsewhere(entry) &&
          rows.some((row) => rowKey(row) === sideOf(entry)),
      );
      const done = new Set<string>();
      for (const entry of pending.reverse()) {
        const group = entry.group;
        if (!ofKeeper(group) || done.has(group)) continue;
        done.add(group);
        const body = bodyOf(entry);
        const base = { market: String(body.market ?? ''), side: String(body.side ?? ''), resumed: true };
        try {
          if (group.startsWith(ROLL_GROUP_PREFIX)) {
            const outcome = await resumeRollOutcome(ports, entry, { wait: true });
            onRolled(outcome);
            event(rollEvent(outcome, base));
          } else if (isUnresolved(entry)) {
            const result = await finishJournaled(ports, await ports.client(), entry, {
              wait: true,
              present: (action) => ({ ...action, confirmed: true }),
            });
            if (!result || result.kind === 'dry-run') continue;
            event({
              event: entry.leg === 'reopen' ? 'reopen' : 'converge',
              ...base,
              notional_usd: body.notional_usd ?? body.amount_usd,
              journal_id: result.entry.id,
              journal_group: group,
              idempotency_key: result.entry.idempotency_key,
              hedge_ids: idList(result.entry.hedge_id || undefined),
            });
          }
        } catch (error) {
          // Another live process running it is not a failure of this keeper: the side just waits for it.
          if (!(error instanceof HeldError)) noteError(error, { ...base, phase: 'resume', journal_id: entry.id });
        }
      }
      const still = new Map<string, string>();
      for (const entry of await ours()) {
        const { market, side } = bodyOf(entry);
        if (typeof market !== 'string' || typeof side !== 'string') continue;
        const key = sideOf(entry);
        if (still.has(key) || busy.has(key)) continue;
        const holder = await journal.holderOf(entry.id);
        still.set(
          key,
          holder
            ? `${entry.command} in progress by another process (pid ${holder.pid} on ${safeText(holder.host)}, journal ${entry.id}): left alone until it resolves`
            : `the ${entry.command} of journal ${entry.id} is unresolved (${entry.outcome}): left alone until it is finished by its key`,
        );
      }
      return still;
    },
  };
}

/** Whether the journal shows this hedge closed by a roll or a keeper's action (this keeper before a restart, or a `hedge roll` whose open then failed): that side is to be covered again, not drift. */
async function closedByARoll(ports: FlowPorts, hedgeId: string) {
  const [entries, own] = await Promise.all([(await ports.journal()).list(), ownRowTest(ports)]);
  // A close of the hedge (a roll's close leg, a convergence's close), or a roll's open planned to replace it — not the open that made it.
  const closes = (entry: JournalEntry) => entry.leg === 'close' || entry.request?.path?.endsWith('/close') === true;
  return entries.some(
    (entry) =>
      ofKeeper(entry.group) &&
      ((closes(entry) && entry.hedge_id === hedgeId) || entry.context?.rolled_hedge_id === hedgeId) &&
      // Only a row this key sealed: one written into the store without it would turn a colleague's
      // close (left alone, reported as drift) into a side for the keeper to open again.
      own(entry),
  );
}

/** A roll's event from its outcome: the hedges old → new, the open leg's journal id (resume takes it), its key, the group. */
function rollEvent(
  outcome: RollOutcome,
  base: { market: string; side: string; resumed?: boolean },
  oldHedgeId?: string,
) {
  if (outcome.kind !== 'rolled') return { event: 'roll', ...base, dry_run: true };
  return {
    event: 'roll',
    ...base,
    tenor_days: outcome.tenorDays,
    notional_usd: outcome.notionalUsd,
    hedge_ids: idList(oldHedgeId ?? outcome.rolledHedgeId ?? outcome.closed?.hedgeId, outcome.opened.hedgeId),
    journal_id: outcome.opened.journalId ?? undefined,
    journal_group: outcome.group,
    idempotency_key: outcome.opened.idempotencyKey ?? undefined,
    covered: outcome.covered,
    ...(outcome.notes.length ? { messages: outcome.notes.map((note) => safeText(note.text)) } : {}),
  };
}
