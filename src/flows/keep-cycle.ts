// One keeper cycle over the target rows, with every row on its own: the book is read once (each
// request bounded), each row is decided (domain/keep.ts) and, when it needs an action, the action
// is started as that row's own step — one step in flight per row, never waited for by another row.
// A row whose step is still in flight (a close that does not answer) is shown as such and decided
// again only once its step ended; its failures back off on their own. Nothing here sends a request:
// the steps (keep-steps.ts) do, and the clock is injected, so all of this is unit-tested. Also here:
// the keeper's clock and how it takes signals.
import { setTimeout as delay } from 'node:timers/promises';
import {
  backoffMs,
  decideRow,
  rowKey,
  type KeepDecision,
  type KeepEvent,
  type KeepRow,
  type KeepRowStatus,
  type SideView,
} from '../domain/keep.js';
import type { FlowPorts } from '../runtime/flow-ports.js';
import { utcMinute } from '../domain/utc-text.js';
import { formatUsd } from '../domain/number-format.js';

export type EventFields = Omit<KeepEvent, 'at'>;

/**
 * A flat side's re-open backs off at most this long (or one interval, when longer): the side is
 * bare meanwhile, and a refused re-open costs only the pre-trade reads.
 */
const FLAT_SIDE_BACKOFF_CAP_MS = 5 * 60_000;
export type Actionable = Exclude<KeepDecision, { kind: 'hold' | 'skip' }>;

/** The book as the rows need it, at the latest the server's clock can read (domain/server-clock.ts). */
export interface SideReading {
  views: Map<string, SideView>;
  nowMs: number;
  serverTime?: string;
}

/** What a cycle needs done on the server, injected (keep-steps.ts, or a test's fakes). */
export interface KeeperSteps {
  read(rows: readonly KeepRow[]): Promise<SideReading>;
  /** Carries out one row's decision (decided again under the side's lock on a fresh read); says its events. */
  act(row: KeepRow, decision: Actionable): Promise<void>;
}

interface CycleRules {
  dryRun: boolean;
  converge: boolean;
  intervalMs: number;
  toleranceUsd: number;
}

export interface CycleDeps {
  rules: CycleRules;
  clock: KeeperClock;
  event: (fields: EventFields) => KeepEvent;
  noteError: (error: unknown, fields: Omit<EventFields, 'event'>) => void;
}

/** What one cycle saw and decided: the status of every row (the live screen, the `cycle` event). */
export interface KeepCycle {
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

  /**
   * One cycle. The steps it starts are waited for until `stepsDueBy` (the next cycle's time), so a
   * cycle normally reports what its steps did; a step still running then stays in flight on its
   * own, and the next cycle goes on without it. A dry run's steps (reads only) are always awaited.
   */
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
      // What the side's view alone would decide: a row not decided this cycle (its step in flight, an
      // action of it unresolved) still shows when a covered side's roll falls due, since the alerts
      // judge a side that settles before the next cycle as a missed roll by that time.
      const shown = () => decideRow(row, view, reading.nowMs, rules);
      if (this.inFlight.has(key)) {
        statuses.push(this.withStep(key, rowStatus(row, view, '', shown())));
        continue;
      }
      const unresolved = state.unresolved.get(key);
      if (unresolved) {
        // An action of this side whose outcome is not known yet: nothing new is sent until it resolves.
        statuses.push(rowStatus(row, view, unresolved, shown()));
        if (remembered.lastHeld !== unresolved) event({ event: 'skip', ...base, reason: unresolved });
        remembered.lastHeld = unresolved;
        continue;
      }
      remembered.lastHeld = undefined;
      const decision = decideRow(row, view, reading.nowMs, rules);
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
    await this.waitFor(started, rules.dryRun ? undefined : state.stepsDueBy);
    return { rows: statuses, serverTime: reading.serverTime };
  }

  private async waitFor(started: Array<Promise<void>>, dueBy: number | undefined): Promise<void> {
    if (started.length === 0) return;
    if (dueBy === undefined) {
      await Promise.all(started);
      return;
    }
    const timer = new AbortController();
    try {
      await Promise.race([
        Promise.all(started),
        this.deps.clock.sleep(Math.max(0, dueBy - this.deps.clock.now()), timer.signal),
      ]);
    } finally {
      timer.abort();
    }
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
  const converging = rules.converge;
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
    message: converging
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
      return decision.reason;
    case 'roll':
      return `roll due (matures ${utcMinute(decision.maturityAtMs)} UTC)`;
    case 'reopen':
      return 'flat: re-open';
    case 'drift':
      return decision.change === 'open'
        ? 'flat: closed outside the keeper (drift)'
        : `drifted to ${formatUsd(decision.currentUsd)} (target ${formatUsd(decision.targetUsd)})`;
    case 'skip':
      return decision.reason;
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

// ---- The clock and the signals -------------------------------------------------------------------
// The clock is injected: unit tests pass one that moves only when told. The first SIGTERM/SIGINT
// ends the loop after the steps in flight; a second is left to the runner (it aborts the steps'
// waits: their journal entries stay unresolved for the next start); SIGHUP re-reads the target
// before the next cycle. Sleeping is the clock's, woken by any of them.

export interface KeeperClock {
  now(): number;
  /** Resolves after `ms`, or at once when `wake` aborts (a stop signal, a SIGHUP). */
  sleep(ms: number, wake: AbortSignal): Promise<void>;
}

/** The context's clock, and a timer that a wake-up cancels (no timer outlives the keeper). */
export function realKeeperClock(now: () => number): KeeperClock {
  return {
    now,
    sleep: (ms, wake) => delay(ms, undefined, { signal: wake }).catch(() => undefined),
  };
}

export interface KeeperSignals {
  readonly stopping: boolean;
  /** True once a second stop signal interrupted the steps in progress. */
  readonly interrupted: boolean;
  takeReload(): boolean;
  /** Sleeps until `ms` passed, a stop, or a SIGHUP. */
  sleep(ms: number): Promise<void>;
  /** Aborted by a second stop signal only: what the steps run under. */
  readonly stepSignal: AbortSignal;
  /** Told when the first stop signal arrives (the keeper says it will stop after the current steps). */
  onStopRequested?: (signal: string) => void;
  /**
   * Runs `work` with the stop signals left to the runner (they abort the command's signal at once):
   * for reading the target from stdin before the first cycle, which has no steps to finish — a
   * pipe that never ends must not hold a SIGTERM back.
   */
  leaveStopsToRunner<T>(work: () => Promise<T>): Promise<T>;
  uninstall(): void;
}

export function installSignals(
  ports: Pick<FlowPorts, 'signal' | 'interceptSignals'>,
  clock: KeeperClock,
): KeeperSignals {
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
  const handle: KeeperSignals = {
    get stopping() {
      return stopping;
    },
    get interrupted() {
      return steps.signal.aborted;
    },
    takeReload() {
      const asked = reload;
      reload = false;
      return asked;
    },
    async sleep(ms) {
      if (stopping) return;
      wake = new AbortController();
      try {
        await clock.sleep(ms, wake.signal);
      } finally {
        wake = undefined;
      }
    },
    stepSignal: steps.signal,
    async leaveStopsToRunner(work) {
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
