// `hedge keep FILE`: holds the book at a target file through maturities, one keeper per account.
// A side with an unresolved action is left alone; one it cannot see is never opened; a colleague's close stands (drift).
import { statSync } from 'node:fs';
import {
  DEFAULT_ROLL_BEFORE_MS,
  rowKey,
  type Emit,
  type EventDetail,
  type EventFields,
  type KeepEvent,
  type KeepReporter,
  type KeepRow,
  type KeepRowStatus,
} from '../../core/keep-rules.js';
import type { ServerTime } from '../../core/server-clock.js';
import { StateError, UsageError } from '../../core/errors.js';
import type { CommandContext } from '../../platform/runtime/context.js';
import type { WritePorts } from '../write/ports.js';
import { safeText } from '../../core/security/safe-text.js';
import { utcIso } from '../../core/utc-text.js';
import { DAY_MS } from '../../core/vocabulary.js';
import { confirmOrStop, guardLiveAction } from '../write/confirm.js';
import { readTargetFile } from '../plan/target-plan.js';
import {
  keeperLockPlace,
  startKeeperService,
  holdKeeperLock,
  type KeeperService,
  type KeeperServiceOptions,
} from './keeper-service.js';
import { withoutUndefined, type JsonObject } from '../../core/objects.js';
import type { JournalEntry } from '../../platform/journal/index.js';
import type { PlanStep } from '../../core/plan.js';
import { identityOf, ownRowTest, sameAccount, sentBy, type Identity } from '../write/row-trust.js';
import { answeredOpens } from '../write/wait.js';
import { runPreTradeChecks } from '../trade/pre-trade.js';
import { finishJournaled } from '../trade/resume.js';
import { newGroup, resumeRollOutcome, runRoll } from '../trade/roll.js';
import { days, sendTrade, stepRecord } from '../trade/trade-actions.js';
import { lock } from '../write/write-flow.js';
import type { Held } from '../write/write-run.js';
import { SideViews } from '../book/side-book.js';
import { latestOf, whenLanded } from '../book/book.js';
import {
  decide,
  forgetDrift,
  heldReason,
  initialKeeperState,
  journalQuestion,
  KEEP_GROUP_PREFIX,
  ofKeeper,
  plan,
  preview,
  resumed,
  stepEnded,
  toResume,
  unresolvedSides,
  wouldSay,
  wrote,
  type KeeperSaid,
  type BookObservation,
  type KeeperSettings,
  type KeeperState,
  type KeeperStep,
  type KeeperWrite,
  type SideObservation,
  type WriteDone,
} from './keeper-decide.js';
import { plural } from '../../core/number-format.js';
import { formatSpan } from '../../core/duration.js';
import { DEFAULT_REQUEST_TIMEOUT_S } from '../../platform/api/client.js';

/** The spec advises polling no faster than every one to two seconds: a cycle is at least this apart. */
export const MIN_INTERVAL_MS = 2_000;
export const DEFAULT_INTERVAL_MS = 60_000;
export const MAX_INTERVAL_MS = 86_400_000;

/** The keeper's target, re-read each cycle. */
export type MovingTarget = (ports: WritePorts) => Promise<KeepRow[]>;

/** The keeper's options: its decisions' settings (keeper-decide.ts) and its service parts' (keeper-service.ts: --alert-cmd,
 * --alert-url, --alert-headroom, --metrics). */
interface KeepOptions extends KeeperServiceOptions, KeeperSettings {
  once: boolean;
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
    const readRows = targetReader(ports, options);
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

    const lockPlace = dryRun ? undefined : await keeperLockPlace(ports, identity);
    const keeperLock = await holdKeeperLock(ports, lockPlace, file, event);

    // The steps say nothing (what they did comes back as outcomes, made into events here), so no
    // spinner of theirs is drawn over the live status; they ask nothing: their writes are approved by
    // the keeper's run (`KEEPER_RUN`: --yes, a key that is not live, or the question below). Their rows are journaled
    // `via: keeper`: the keeper finishes no one's unresolved rows but its own.
    const stepContext = () => ports.keeperStep({ signal: signals.stepSignal, notify: () => {} });
    // The first error of a one-cycle run: the command ends with its exit code.
    const errors = errorEvents(event, errorFields);
    signals.onStopRequested = (signal) =>
      event({
        event: 'stop',
        phase: 'requested',
        message: `${signal}: stopping after the steps in flight (a second ${signal} interrupts them)`,
      });
    const io = keeperIo(stepContext, { ...options, identity }, { event, ...errors });
    // A step that ends while the loop sleeps wakes it: its side is read again at the next cycle allowed.
    const cycles = keeperCycles(options, clock, io, () => signals.wake());
    const once = options.once || dryRun;

    try {
      service = await startKeeperService(ports, identity, lockPlace, options, event);
      event({
        event: 'start',
        file,
        rows: rows.length,
        dry_run: dryRun,
        pid: process.pid,
        interval_s: options.intervalMs / 1000,
        environment: identity.environment,
      });
      if (guard.needsConfirmation && !signals.stopping) {
        const lines = await cycles.preview(rows);
        await confirmOrStop(ports, `Keep ${plural(rows.length, 'row')} at target from now on (${lines.join('; ')})?`, {
          live: true,
        });
      }

      const parts = { ...options, once, clock, signals, cycles, io, event, ...errors, reporter, keeperLock };
      const reread = moving ? () => moving(stepContext()) : readRows;
      await runCycles(parts, signals, async (number, startedAt) => {
        // The exposures are read again every cycle, so a SIGHUP needs nothing more there.
        if (moving || signals.reload) rows = await nextTarget(rows, parts, reread);
        const nextAt = await reportedCycle(parts, rows, number, startedAt);
        // Alerts (once on, once recovered), heartbeat and metrics, after every cycle, finished or failed.
        await service?.endCycle(stepContext());
        return nextAt;
      });
      // The steps still in flight finish before the keeper stops (a second signal interrupts their waits).
      await cycles.settle();
      const interrupted = saidStopped(signals, event);
      return { interrupted, firstError: once && !interrupted ? errors.first : undefined };
    } finally {
      await service?.stop();
      await keeperLock.release();
    }
  } finally {
    // Closed however the run ends, a start-up refusal too: the live screen lets go of the terminal.
    reporter.close();
    signals.uninstall();
  }
}

/** An error said as an `error` event, the first kept (a one-cycle run ends with its exit code). The error's description
 * fills what the step's fields leave; the step's own sentence stays `message`, the error's words are under `error`
 * (every error event has them there). */
function errorEvents(event: Emit, errorFields: (error: unknown) => JsonObject) {
  const errors = {
    first: undefined as unknown,
    noteError(error: unknown, fields: EventDetail) {
      errors.first ??= error;
      const described = errorFields(error);
      event({
        event: 'error',
        ...fields,
        ...described,
        ...withoutUndefined({ message: fields.message, journal_id: fields.journal_id }),
        error: { code: described.code, message: described.message },
      });
    },
  };
  return errors;
}

/** What a cycle is run and reported with. */
interface CycleParts extends Say, KeepOptions {
  clock: KeeperClock;
  signals: ReturnType<typeof installSignals>;
  cycles: ReturnType<typeof keeperCycles>;
  io: ReturnType<typeof keeperIo>;
  reporter: KeepReporter;
  keeperLock: Awaited<ReturnType<typeof holdKeeperLock>>;
}

/** The target for the next cycle: the exposures recomputed, or the file re-read on a SIGHUP (what it remembered of
 * drift was the old target's); when that fails, said, and the previous target stays. */
async function nextTarget(rows: KeepRow[], parts: CycleParts, reread: () => Promise<KeepRow[]>) {
  const { movingTarget: moving, signals, cycles } = parts;
  signals.reload = false;
  try {
    const read = await reread();
    if (!moving) {
      cycles.forgetDrift();
      parts.event({ event: 'start', file: parts.file, rows: read.length, reloaded: true });
    }
    return read;
  } catch (error) {
    parts.noteError(error, {
      phase: moving ? 'target' : 'reload',
      message: `the target ${moving ? 'could not be recomputed from the exposures' : 'file could not be re-read'}; the previous target stays`,
    });
    return rows;
  }
}

/** One cycle, reported (the live screen or NDJSON, and the `cycle` event): this keeper's unfinished rows finished first,
 * and in a one-cycle run its steps too; returns when the next one starts (none: an interval on). The journal or team
 * store unreachable: said (an error event, so --alert-cmd runs) and tried again next cycle; every step takes its locks
 * afresh, so nothing acts without them. */
async function reportedCycle(parts: CycleParts, rows: readonly KeepRow[], number: number, startedAt: number) {
  const { dryRun, once, signals, cycles, io, clock } = parts;
  try {
    await parts.keeperLock.again();
    const unresolved = dryRun ? new Map<string, string>() : await io.finishUnfinished(cycles.busySides(), rows);
    const {
      rows: statuses,
      serverTime,
      nextCycleAt,
    } = await cycles.cycle(rows, unresolved, () => signals.stopping, startedAt);
    // --once: the cycle's steps finish before it is reported (a cron run's one look at the book).
    if (once) await cycles.settle();
    const nextAt = once || signals.stopping ? undefined : utcIso(nextCycleAt);
    parts.reporter.status({
      file: parts.file,
      rows: statuses,
      last_cycle_at: utcIso(clock.now()),
      next_cycle_at: nextAt,
      stopping: signals.stopping,
      dry_run: dryRun,
    });
    parts.event({ event: 'cycle', cycle: number, server_time: serverTime, rows: statuses, next_cycle_at: nextAt });
    return nextCycleAt;
  } catch (error) {
    if (!(error instanceof StateError) || once) throw error;
    parts.noteError(error, {
      phase: 'cycle',
      message: `the journal cannot be used (${error.message}); nothing is done until it answers again, retried every cycle`,
    });
  }
}

/** How the keeper ended, said: `interrupted` (returned) when a second signal cut its steps short. */
function saidStopped(signals: ReturnType<typeof installSignals>, event: Emit) {
  const interrupted = signals.stepSignal.aborted;
  if (interrupted || signals.stopping)
    event({
      event: 'stop',
      message: interrupted
        ? 'stopped by a second signal: the steps in progress were interrupted; their journal entries stay unresolved and the next start finishes them'
        : 'stopped by a signal after finishing the steps in flight',
    });
  return interrupted;
}

/** The target file's reader, read again on a SIGHUP: never stdin but for one cycle. */
function targetReader(ports: WritePorts, { file, once, dryRun }: KeepOptions) {
  if (file === '-' && !once && !dryRun)
    throw new UsageError(
      'FILE: a keeper re-reads its target file (on SIGHUP), so it cannot be - (stdin); name the file, or use --once.',
    );
  const again = ['keep', '-', dryRun ? '--dry-run' : '--once'];
  const landingMs = (ports.globals.requestTimeout ?? DEFAULT_REQUEST_TIMEOUT_S) * 1000;
  const shortestRollBeforeMs = landingMs + MIN_INTERVAL_MS;
  return async (): Promise<KeepRow[]> => {
    const { rows } = await readTargetFile(ports, file, again);
    const statedAtMs = statedAt(file);
    return rows.map((row) => {
      const where = `${safeText(file)}:${row.line}`;
      if (row.notionalUsd > 0 && row.tenorDays === undefined)
        throw new UsageError(`${where}: tenor_days is required for a row the keeper holds open.`);
      const rollBeforeMs = row.rollBeforeMs ?? DEFAULT_ROLL_BEFORE_MS;
      // A roll_before as long as the tenor would roll every new hedge at once, every cycle, paying each time.
      if (row.tenorDays !== undefined && rollBeforeMs >= row.tenorDays * DAY_MS)
        throw new UsageError(
          `${where}: roll_before must be shorter than the tenor (${days(row.tenorDays)}); a hedge would be rolled as soon as it is opened.`,
        );
      // A roll's close is sent only while it lands before the maturity (within one request's bound), after the reads
      // before it: a roll_before within that would be announced, then never rolled, the hedge left to settle.
      if (row.notionalUsd > 0 && rollBeforeMs > 0 && rollBeforeMs <= shortestRollBeforeMs)
        throw new UsageError(
          `${where}: roll_before ${formatSpan(rollBeforeMs)} leaves no time to roll: a roll's close must land before the maturity, and may take --request-timeout (${formatSpan(landingMs)}) after the cycle's reads (${formatSpan(MIN_INTERVAL_MS)}); allowed: more than ${formatSpan(shortestRollBeforeMs)} (or a shorter --request-timeout), or 0 to let each hedge settle.`,
        );
      return { ...row, statedAtMs };
    });
  };
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

/** When the next cycle starts: an interval after this one's start, or sooner when a row's next action falls due (`dueAtMs`:
 * a roll, on this machine's clock), never within MIN_INTERVAL_MS of this one's start. */
export const nextCycleAt = (startedAtMs: number, intervalMs: number, dueAtMs = Infinity) =>
  Math.max(startedAtMs + MIN_INTERVAL_MS, Math.min(startedAtMs + intervalMs, dueAtMs));

/** The keeper's loop: a cycle, then a sleep until the time it gives for the next (an interval after it when it gives none;
 * woken early by a SIGHUP or a step's end, but cycles stay at least MIN_INTERVAL_MS apart), until a stop. Timing only, on
 * the injected clock. */
export async function runCycles(
  loop: { once: boolean; intervalMs: number; clock: KeeperClock },
  signals: Pick<ReturnType<typeof installSignals>, 'stopping' | 'sleep'>,
  cycle: (number: number, startedAtMs: number) => Promise<number | void>,
) {
  for (let number = 1; !signals.stopping; number += 1) {
    const startedAt = loop.clock.now();
    const next = await cycle(number, startedAt);
    if (loop.once) break;
    let until = next ?? startedAt + loop.intervalMs;
    do {
      await signals.sleep(Math.max(0, until - loop.clock.now()));
      // Woken early (a SIGHUP): the next cycle comes as soon as the minimum spacing allows, not an interval later.
      until = startedAt + MIN_INTERVAL_MS;
    } while (!signals.stopping && loop.clock.now() - startedAt < MIN_INTERVAL_MS);
  }
}

/** The keeper's signals: the first SIGTERM/SIGINT ends the loop after the steps in flight, a second aborts the steps' own signal; SIGHUP asks for the target to be read again. */
function installSignals(ports: Pick<CommandContext, 'signal' | 'interceptSignals'>, clock: KeeperClock) {
  let wake: AbortController | undefined;
  let runnersStops = false;
  const handle = {
    // A signal that came before the keeper started listening was the runner's first: a graceful stop.
    stopping: ports.signal.aborted,
    /** A SIGHUP came: the target is to be read again. */
    reload: false,
    /** Aborted by a second stop signal only (the runner's, once the first is taken here): what the steps run under
     * (aborted: they were interrupted). */
    stepSignal: ports.signal.aborted ? new AbortController().signal : AbortSignal.any([ports.signal]),
    /** Told when the first stop signal arrives (the keeper says it will stop after the current steps). */
    onStopRequested: undefined as ((signal: string) => void) | undefined,
    /** Ends the sleep at once (a step ended: its side is read again). */
    wake: () => wake?.abort(),
    /** Sleeps until `ms` passed, a stop, a SIGHUP or a wake. */
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
    uninstall: () => release(),
  };
  const release = ports.interceptSignals((signal) => {
    const hup = signal === 'SIGHUP';
    if (runnersStops || (handle.stopping && !hup)) return false;
    handle[hup ? 'reload' : 'stopping'] = true;
    wake?.abort();
    if (!hup) handle.onStopRequested?.(signal);
    return true;
  });
  return handle;
}

// ---- The steps: what a cycle does on the server (the book read, each row's step through the flows every write
// uses: runWrite, runRoll, resume), in flight on its own. What to do and say is keeper-decide.ts's; nothing here decides.

export interface KeeperClock {
  now(): number;
  /** Resolves after `ms`, or at once when `wake` aborts (a stop signal, a SIGHUP). */
  sleep(ms: number, wake: AbortSignal): Promise<void>;
}

/** How the keeper's parts say what they did: an event, or an error (a one-cycle run ends with its first's exit code). */
interface Say {
  event: Emit;
  noteError: (error: unknown, fields: EventDetail) => void;
}

/** What the keeper remembers, in one place: a pure step's result is taken at once (never across an await), and what it said is said. */
export function keeperMemory(say: Say) {
  const tell = (one: KeeperSaid) => ('say' in one ? say.event(one.say) : say.noteError(one.error, one.fields));
  return {
    state: initialKeeperState(),
    tell,
    take<T extends { state: KeeperState; events: readonly KeeperSaid[] }>(out: T) {
      this.state = out.state;
      out.events.forEach(tell);
      return out;
    },
  };
}

/** The cycles: one step in flight per row, each row backing off on its own. `io` is what they do on the server (keeperIo's, or a test's), and the memory they take what they learn into; `wake`, told when a step ends. */
export function keeperCycles(
  settings: KeeperSettings,
  clock: KeeperClock,
  io: Pick<ReturnType<typeof keeperIo>, 'memory' | 'observe' | 'carry'>,
  wake: () => void = () => {},
) {
  const { memory } = io;
  const inFlight = new Map<string, { kind: KeeperStep['kind']; sinceMs: number; done: Promise<void> }>();
  /** A step ended since the cycle began: what it did is read at the next cycle allowed. */
  let anEnded = false;
  const start = (step: KeeperStep) => {
    const done = io.carry(step).then(
      () => ended(),
      (error: unknown) => ended({ error }),
    );
    // The row's status says how its step ended once it has (what --once and a dry run report).
    function ended(failure?: { error: unknown }) {
      try {
        step.status.state = memory.take(stepEnded(memory.state, step, clock.now(), settings, failure)).statusText;
      } finally {
        inFlight.delete(step.key);
        anEnded = true;
        wake();
      }
    }
    inFlight.set(step.key, { kind: step.kind, sinceMs: clock.now(), done });
    return done;
  };
  return {
    /** The sides (`MARKET side`) with a step in flight: the journal's unfinished actions of these are theirs. */
    busySides: () => new Set(inFlight.keys()),

    /** Waits for every step in flight (each bounded by its requests' own bounds). */
    async settle() {
      while (inFlight.size > 0) await Promise.all([...inFlight.values()].map((step) => step.done));
    },

    /** What each row would get on a fresh read (the question before a live keeper starts). */
    async preview(rows: readonly KeepRow[]) {
      return memory.take(preview(memory.state, await io.observe(rows), rows, settings)).lines;
    },

    forgetDrift: () => memory.take(forgetDrift(memory.state)),

    /** One cycle begun at `startedAt`: every row's status (the live screen, the `cycle` event) and when the next one starts
     * (`nextCycleAt`: sooner than the interval for a row's next action, or when a step ended); its steps are awaited until
     * then (always in a dry run), then left in flight. */
    async cycle(
      rows: readonly KeepRow[],
      unresolved: ReadonlyMap<string, string>,
      isStopping: () => boolean,
      startedAt: number,
    ) {
      anEnded = false;
      const book = await io.observe(rows).catch((error: unknown) => ({ error }));
      // Whether a stop came is asked after the read: a stop that came during it starts nothing.
      const observation = { rows, book, unresolved, inFlight, stopping: isStopping() };
      const cycle = memory.take(decide(memory.state, observation, clock.now(), settings));
      const due = 'error' in book ? undefined : soonestAction(cycle.rows, book.time);
      const next = () => nextCycleAt(startedAt, settings.intervalMs, anEnded ? clock.now() : due);
      const started = cycle.actions.map(start);
      const timer = new AbortController();
      if (started.length)
        await Promise.race([
          Promise.all(started),
          ...(settings.dryRun ? [] : [clock.sleep(Math.max(0, next() - clock.now()), timer.signal)]),
        ]).finally(() => timer.abort());
      return { ...cycle, nextCycleAt: next() };
    },
  };
}

/** The soonest next action of the rows (a roll, a back-off's end), on this machine's clock: a roll is due once the latest
 * the server's clock may read reaches its time. */
function soonestAction(rows: readonly KeepRowStatus[], time: ServerTime) {
  const ahead = latestOf(time) - time.localMs;
  const due = rows.flatMap((row) => (row.next_action_at ? [Date.parse(row.next_action_at) - ahead] : []));
  return due.length ? Math.min(...due) : undefined;
}

const SEND_AND_WAIT = { wait: true };
/** The keeper's writes are approved by its own run (its target and --yes, or the question at its start). */
const KEEPER_RUN = { by: 'run' } as const;
/** A row of its own the keeper finishes: with its key, waited for, on the run's approval. */
const FINISH = { wait: true, approved: KEEPER_RUN };

/** Carries out one write of a keeper's step under its side's lock (`held`): a roll, or an add, reduce, close or re-open
 * through the write flow, journaled in a keep group. */
async function carryOut(ports: WritePorts, write: KeeperWrite, held: Held): Promise<WriteDone> {
  const { market, side, clientReference } = write.row;
  // The row's deal reference on every hedge it opens (the rolled hedge's own when the row names none).
  if (write.kind === 'roll')
    return {
      kind: 'rolled',
      outcome: await runRoll(ports, {
        market,
        side,
        tenorDays: write.tenorDays!,
        skipChecks: false,
        write: SEND_AND_WAIT,
        approved: KEEPER_RUN,
        held,
        ...(clientReference && { clientReference }),
      }),
    };
  // An add, reduce, close or re-open through the write flow, journaled in a keep group.
  const group = newGroup(KEEP_GROUP_PREFIX, ports);
  const { kind: action, deltaUsd, tenorDays } = write;
  // Only an open takes its tenor and the row's deal reference.
  const step = { market, side, action, deltaUsd, tenorDays, clientReference: clientReference || undefined };
  const record = {
    ...stepRecord(step as PlanStep, group, action === 'open' ? 'reopen' : 'converge'),
    approved: KEEPER_RUN,
  };
  const result = await sendTrade(ports, record, { ...SEND_AND_WAIT, held });
  return { kind: 'sent', result, group };
}

/** The keeper's reads and writes on the server, each under `stepContext()` (its notices said to no one, its signal the keeper's). Writes are confirmed by the keeper's own run (its target and --yes), never at a prompt. */
function keeperIo(stepContext: () => WritePorts, settings: KeeperSettings & { identity: Identity }, say: Say) {
  const memory = keeperMemory(say);
  const observe = (ports: WritePorts, rows: readonly KeepRow[]) => readBook(ports, rows, memory);

  return {
    memory,
    /** The rows' sides read fresh, with the journal's answers to what the decisions ask of it. */
    observe: (rows: readonly KeepRow[]) => observe(stepContext(), rows),

    /** Carries out one row's step: a live one planned again on a fresh read under its side's lock. */
    async carry(step: KeeperStep) {
      const ports = stepContext();
      // A dry run: each write's pre-trade checks (those a real open passes), then what it would do, said.
      await sayWouldDo(ports, step.writes ?? [], say);
      if (step.writes) return;
      await lock(ports, {
        sides: [step.row],
        run: async (held) => {
          const fresh = await observe(ports, [step.row]);
          const { writes } = memory.take(plan(memory.state, fresh, step.row, settings));
          const client = await ports.client();
          for (const write of writes) {
            const done = await carryOut(ports, write, held);
            // Counted from the server's time when the write landed (the bound is the server's, like maturities).
            const { failure } = memory.take(wrote(memory.state, write, done, client.transport.serverNow()));
            if (failure) throw failure;
          }
        },
      });
    },

    /** Finishes this keeper's own unresolved rows with their keys and returns why each other side of the account's unfinished rows is left alone: a new key could double an unresolved action; a person's rows are not the keeper's to finish. */
    async finishUnfinished(busy: ReadonlySet<string>, rows: readonly KeepRow[]) {
      const ports = stepContext();
      const journal = await ports.journal();
      const pending = async (of: typeof sentBy) =>
        (await journal.list({ pending: true })).filter((entry) => of(settings.identity, entry));
      for (const resume of toResume(await pending(sentBy), busy, rows)) {
        let done: WriteDone | { kind: 'failed'; error: unknown } | undefined;
        try {
          if (resume.how === 'roll') {
            done = { kind: 'rolled', outcome: await resumeRollOutcome(ports, resume.entry, FINISH) };
          } else {
            const result = await finishJournaled(ports, await ports.client(), resume.entry, FINISH);
            done = result && { kind: 'sent', result, group: resume.group };
          }
        } catch (error) {
          done = { kind: 'failed', error };
        }
        const said = done && resumed(resume, done);
        if (said) memory.tell(said);
      }
      const still = new Map<string, string>();
      // Any unfinished row of the account holds its side, through whichever host name it was sent.
      for (const [key, entry] of unresolvedSides(await pending(sameAccount), busy))
        still.set(key, heldReason(entry, await journal.holderOf(entry.id)));
      return still;
    },
  };
}

/** The rows' sides read fresh, one after the other in the rows' order, with the journal's answers to what the decisions
 * ask of it (whether a roll closed a side's newest hedge). */
async function readBook(
  ports: WritePorts,
  rows: readonly KeepRow[],
  memory: { state: KeeperState },
): Promise<BookObservation> {
  const client = await ports.client();
  const sideViews = await SideViews.read(client, (line) => ports.log(line));
  const opened = await answeredOpens(ports);
  // The server's time as the views were read: the model judges them on it.
  const time = sideViews.serverNow;
  const sides: SideObservation[] = [];
  for (const row of rows) {
    const side = {
      newest: sideViews.hedges.find((hedge) => rowKey(hedge) === rowKey(row)),
      // A hedge the server named in its answer to an open of the side that no view shows yet: settling (book.ts).
      book: await sideViews.book(row.market, row.side, opened(row.market, row.side)),
    };
    const asked = journalQuestion(memory.state, rowKey(row), side, time);
    sides.push(asked ? { ...side, closedByRoll: await closedByARoll(ports, asked) } : side);
  }
  const { serverClock, config } = client.transport;
  return { sides, time, clock: serverClock.reading(), landsByMs: whenLanded(time, config.requestTimeoutMs) };
}

/** A dry run's writes: each one's pre-trade checks (those a real open passes), then what it would do, said. */
async function sayWouldDo(ports: WritePorts, writes: readonly KeeperWrite[], say: Say) {
  for (const write of writes) {
    const { check, say: fields } = wouldSay(write);
    const { market, side } = write.row;
    if (check)
      await runPreTradeChecks(
        await ports.client(),
        { market, side, notionalUsd: check.notionalUsd, action: 'open' },
        undefined,
        check.freedUsd,
      );
    say.event(fields);
  }
}

/** Whether the journal shows this hedge closed by a roll or a keeper's action (this keeper before a restart, or a `hedge roll` whose open then failed): that side is to be covered again, not drift. */
async function closedByARoll(ports: WritePorts, hedgeId: string) {
  const [journal, own] = await Promise.all([ports.journal(), ownRowTest(ports)]);
  // The rows naming the hedge, and every row of their keepers' groups (whose closes may have been refused).
  const named = await journal.list({ hedge: hedgeId });
  const groups = new Set(named.flatMap((entry) => (ofKeeper(entry.group) ? [entry.group] : [])));
  const entries = [...named, ...(await Promise.all([...groups].map((group) => journal.list({ group })))).flat()];
  // A close of the hedge (a roll's close leg, a convergence's close), or a roll's open planned to replace it — not the open that made it.
  const closes = (entry: JournalEntry) => entry.leg === 'close' || entry.request?.path?.endsWith('/close') === true;
  // A group whose close the server refused closed nothing: a close of that hedge since is a colleague's.
  const refused = new Set(entries.filter((entry) => closes(entry) && entry.outcome === 'rejected').map((e) => e.group));
  return entries.some(
    (entry) =>
      ofKeeper(entry.group) &&
      !refused.has(entry.group) &&
      ((closes(entry) && entry.hedge_id === hedgeId) || entry.context?.rolled_hedge_id === hedgeId) &&
      // Only a row this key sealed: one written into the store without it would turn a colleague's
      // close (left alone, reported as drift) into a side for the keeper to open again.
      own(entry),
  );
}
