// `hedge keep FILE`: holds the book at a target file through maturities. Each cycle finishes what
// the journal shows unfinished, reads the book, asks domain/keep.ts what each row needs at the
// server's time, and carries it out through the flows every write already uses: a roll is
// `hedge roll` (its own journal group, the close then the open), a re-open is an open through the
// one write flow (a `keep-…` group), a convergence an add/reduce/close. Nothing here sends a
// request of its own.
//
// Safety, in order:
//  - one keeper per account: its `keep` lock on the account (keeper-lock.ts: the team store, or the
//    per-user keeper folder every config folder shares), held for the keeper's life, dies with it;
//  - before every cycle, what the journal shows unfinished for this account (a roll, a keeper's
//    action) is finished by its own key; a side with an action still unresolved (or one another
//    live process is running) is left alone until it resolves: never a second action with a new key;
//  - each action is decided again under the account's `book` lock on a fresh read of its side
//    (the lock apply, roll and open --ref take): never on a read a colleague's action made stale;
//  - a side it cannot see is never opened;
//  - SIGTERM/SIGINT let the current step finish (its journal entries resolved) and exit 0; a
//    second one stops the step's wait (the journal keeps the action unresolved) and exits with the
//    signal's code; SIGHUP re-reads the target file before the next cycle.
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import type { OpenRequest } from '../api/client.js';
import type { Hedge } from '../api/schemas.js';
import { backoffMs, DEFAULT_ROLL_BEFORE_MS, decideRow, rowKey, type KeepDecision, type KeepRow, type SideView } from '../domain/keep.js';
import { HedgeError, HeldError, StateError, UsageError } from '../errors.js';
import { describeError } from '../exit-codes.js';
import { isUnresolved, type JournalEntry } from '../journal/index.js';
import type { CommandContext } from '../runtime/context.js';
import { safeText } from '../security/safe-text.js';
import { childEnvironment } from '../security/child-env.js';
import { liveReporter, ndjsonReporter, type KeepEvent, type KeepReporter, type KeepRowStatus } from '../ui/keep-view.js';
import { Output } from '../ui/output.js';
import { withAccountLock, withSideLock } from './account-lock.js';
import type { Hold } from '../journal/index.js';
import { guardLiveAction } from './live-guard.js';
import { findSide, readBook } from './positions.js';
import { resumeRoll, ROLL_GROUP_PREFIX, runRoll } from './roll.js';
import { readTargetFile } from './target-plan.js';
import { changeAction, changeArgv, closeAction, closeArgv, openAction, openArgv } from './trade-actions.js';
import { identityOf, runWrite, type WriteOptions } from './write-flow.js';
import { finishJournaled, sentBy } from './resume.js';
import { keeperLockPlace, takeKeeperLock as takeAccountKeeperLock } from './keeper-lock.js';
import { startKeeperService, type KeeperService, type KeeperServiceOptions } from './keeper-service.js';

/** Every re-open or convergence of a keeper is journaled under a group starting with this. */
export const KEEP_GROUP_PREFIX = 'keep-';
/** The spec advises polling no faster than every one to two seconds: a cycle is at least this apart. */
export const MIN_INTERVAL_MS = 2_000;
export const DEFAULT_INTERVAL_MS = 60_000;
export const MAX_INTERVAL_MS = 86_400_000;
/** A server clock further than this from ours is said once (the keeper still acts on the server's: maturities are its). */
const SKEW_WORTH_SAYING_MS = 5 * 60_000;
const DAY_MS = 86_400_000;

export interface KeepOptions {
  file: string;
  once: boolean;
  intervalMs: number;
  dryRun: boolean;
  converge: boolean;
  toleranceUsd: number;
  alertCommand?: string;
  /** Issue 38's service parts (keeper-service.ts): --alert-url, --alert-headroom, --metrics. */
  service?: Pick<KeeperServiceOptions, 'alertUrl' | 'alertHeadroomUsd' | 'metrics'>;
  /**
   * `keep --exposures` (issue 39): the target is recomputed before every cycle (due dates pass,
   * buckets change, the price moves) instead of read from a target file; see flows/exposures.ts.
   */
  movingTarget?: (ctx: CommandContext) => Promise<KeepRow[]>;
}

const SEND_AND_WAIT: WriteOptions = { wait: true, dryRun: false, fresh: false };
const QUIETLY = { renderSubmitted: () => {}, renderResolved: () => {}, confirmed: true } as const;

/** What the keeper remembers between cycles about one row. */
interface RowMemory {
  failures: number;
  retryAtMs: number;
  lastSkip?: string;
  lastDrift?: string;
  lastHeld?: string;
}

type EventFields = Omit<KeepEvent, 'at'>;

export async function runKeep(ctx: CommandContext, options: KeepOptions): Promise<number> {
  // Signals first, before anything is awaited: the first SIGTERM/SIGINT ends the loop after the
  // current step; a second one is left to the runner (it aborts the step's wait); SIGHUP re-reads.
  const signals = installSignals(ctx);
  try {
    return await keep(ctx, options, signals);
  } finally {
    signals.uninstall();
  }
}

interface KeeperSignals {
  readonly stopping: boolean;
  /** True once a second stop signal interrupted the step in progress. */
  readonly interrupted: boolean;
  takeReload(): boolean;
  /** Sleeps until `ms` passed, a stop, or a SIGHUP. */
  sleep(ms: number): Promise<void>;
  /** Aborted by a second stop signal only: what the steps run under. */
  readonly stepSignal: AbortSignal;
  /** Told when the first stop signal arrives (the keeper says it will stop after the current step). */
  onStopRequested?: (signal: string) => void;
  uninstall(): void;
}

function installSignals(ctx: CommandContext): KeeperSignals {
  const steps = new AbortController();
  // A signal that came before the keeper started listening was the runner's first: a graceful stop.
  let stopping = ctx.signal.aborted;
  let reload = false;
  let wake: (() => void) | undefined;
  ctx.signalInterceptor = (signal) => {
    if (signal === 'SIGHUP') {
      reload = true;
      wake?.();
      return true;
    }
    if (stopping) return false;
    stopping = true;
    wake?.();
    handle.onStopRequested?.(signal);
    return true;
  };
  const onAbort = () => steps.abort(ctx.signal.reason);
  if (!ctx.signal.aborted) ctx.signal.addEventListener('abort', onAbort, { once: true });
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
    sleep(ms) {
      if (stopping) return Promise.resolve();
      return new Promise((resolve) => {
        const timer = setTimeout(done, ms);
        function done() {
          clearTimeout(timer);
          wake = undefined;
          resolve();
        }
        wake = done;
      });
    },
    stepSignal: steps.signal,
    uninstall() {
      ctx.signalInterceptor = undefined;
      ctx.signal.removeEventListener('abort', onAbort);
    },
  };
  return handle;
}

async function keep(ctx: CommandContext, options: KeepOptions, signals: KeeperSignals): Promise<number> {
  if (options.file === '-' && !options.once && !options.dryRun) {
    throw new UsageError('FILE: a keeper re-reads its target file (on SIGHUP), so it cannot be - (stdin); name the file, or use --once.');
  }
  let rows = options.movingTarget ? await options.movingTarget(ctx) : toKeepRows((await readTargetFile(ctx, options.file)).rows, options.file);
  const guard = await guardLiveAction(ctx, {
    action: 'keep the book at the target: roll, re-open and (with --converge) change hedges without asking again',
    dryRun: options.dryRun,
  });
  await ctx.journal();
  const identity = await identityOf(ctx);
  const reporter: KeepReporter = await chooseReporter(ctx);
  // keeper-service: heartbeat, alerts, metrics (issue 38); started once the lock is held.
  let service: KeeperService | undefined;
  const event = (fields: EventFields): KeepEvent => {
    const full = { at: new Date(ctx.clock.now()).toISOString(), ...fields } as KeepEvent;
    reporter.event(full);
    service?.observe(full); // keeper-service
    return full;
  };

  // One keeper per account: held for the keeper's life, released by its exit (kill -9 included).
  // A team store that restarts ends the session holding it: the keeper acts on nothing until it has
  // taken it again (another keeper that took it meanwhile wins: this one stops, exit 11).
  // keeper-lock: the lock is on the account (the team store, or the per-user keeper folder every config folder shares).
  const lockPlace = options.dryRun ? undefined : await keeperLockPlace(ctx, identity);
  const takeKeeperLock = (): Promise<Hold> => takeAccountKeeperLock(ctx, lockPlace!, options.file);
  let keeperHold = options.dryRun ? undefined : await takeKeeperLock();
  const releaseLock = () => keeperHold?.release() ?? Promise.resolve();

  const messages: string[] = [];
  const quiet = quietOutput(ctx, messages);
  const memory = new Map<string, RowMemory>();
  let confirmed = !guard.needsConfirmation;
  const stepContext = () => ctx.derive({ signal: signals.stepSignal, output: quiet, globals: confirmed ? { yes: true } : {} });
  let firstError: number | undefined;
  const noteError = (error: unknown, fields: Omit<EventFields, 'event'>): void => {
    const described = describeError(error);
    firstError ??= described.exitCode;
    const journalId = described.details.journal_id;
    event({
      event: 'error',
      ...fields,
      ...(typeof journalId === 'string' && fields.journal_id === undefined ? { journal_id: journalId } : {}),
      code: described.code,
      exit_code: described.exitCode,
      message: described.message,
      ...(described.hint ? { hint: described.hint } : {}),
      ...(described.idempotencyKey ? { idempotency_key: described.idempotencyKey } : {}),
      ...drainMessages(messages),
    });
  };
  signals.onStopRequested = (signal) =>
    event({ event: 'stop', phase: 'requested', message: `${signal}: stopping after the current step (a second ${signal} interrupts it)` });
  const deps: CycleDeps = { options, memory, event, noteError, messages, identity, clockNotes: new Set() };

  try {
    service = await startKeeperService(ctx, identity, lockPlace, { file: options.file, intervalMs: options.intervalMs, toleranceUsd: options.toleranceUsd, dryRun: options.dryRun, alertCommand: options.alertCommand, ...options.service }, event); // keeper-service
    event({ event: 'start', file: options.file, rows: rows.length, dry_run: options.dryRun, pid: process.pid, interval_s: options.intervalMs / 1000, environment: identity.environment });
    if (!confirmed && !signals.stopping) {
      const preview = await readSides(stepContext(), rows, deps);
      const due = rows.map((row) => ({ row, decision: decideRow(row, preview.views.get(rowKey(row)) ?? {}, preview.nowMs, options) }));
      const lines = due.map(({ row, decision }) => `${row.market} ${row.side} ${row.notionalUsd} USD: ${describeDecision(decision)}`);
      await guard.confirm(`Keep ${rows.length} row${rows.length === 1 ? '' : 's'} at target from now on (${lines.join('; ')})?`);
      confirmed = true;
    }

    let lastCycleStart = 0;
    for (let cycle = 1; !signals.stopping; cycle += 1) {
      if (options.movingTarget) {
        // The exposures file is read again every cycle, so a SIGHUP needs nothing more.
        signals.takeReload();
        try {
          rows = await options.movingTarget(stepContext());
        } catch (error) {
          noteError(error, { phase: 'target', message: 'the target could not be recomputed from the exposures; the previous target stays' });
        }
      } else if (signals.takeReload()) {
        try {
          rows = toKeepRows((await readTargetFile(ctx, options.file)).rows, options.file);
          event({ event: 'start', file: options.file, rows: rows.length, reloaded: true });
        } catch (error) {
          noteError(error, { phase: 'reload', message: 'the target file could not be re-read; the previous target stays' });
        }
      }
      lastCycleStart = ctx.clock.now();
      try {
        if (keeperHold?.lost?.()) {
          event({ event: 'notice', code: 'keeper_lock_lost', message: 'the team store ended the session holding this keeper\'s lock; taking it again before anything is done' });
          keeperHold = await takeKeeperLock();
        }
        const unresolved = options.dryRun ? new Map<string, string>() : await finishUnfinished(stepContext(), deps);
        const statuses = await runCycle(stepContext(), rows, deps, { unresolved, isStopping: () => signals.stopping });
        const nextAt = options.once || options.dryRun || signals.stopping ? undefined : new Date(lastCycleStart + options.intervalMs).toISOString();
        reporter.status({ file: options.file, rows: statuses.rows, last_cycle_at: new Date(ctx.clock.now()).toISOString(), next_cycle_at: nextAt, stopping: signals.stopping });
        event({ event: 'cycle', cycle, server_time: statuses.serverTime, rows: statuses.rows, ...(nextAt ? { next_cycle_at: nextAt } : {}) });
      } catch (error) {
        // The journal or team store unreachable: said (an error event, so --alert-cmd runs) and tried
        // again next cycle; every step takes its locks afresh, so nothing acts without them.
        if (!(error instanceof StateError) || options.once || options.dryRun) throw error;
        noteError(error, { phase: 'cycle', message: `the journal cannot be used (${describeError(error).message}); nothing is done until it answers again, retried every cycle` });
      }
      await service.endCycle(stepContext()); // keeper-service: alerts, heartbeat, metrics
      if (options.once || options.dryRun) break;
      // A SIGHUP wakes the sleep to re-read the file, but cycles stay at least the polling advice apart.
      do await signals.sleep(Math.max(0, lastCycleStart + options.intervalMs - ctx.clock.now()));
      while (!signals.stopping && ctx.clock.now() - lastCycleStart < MIN_INTERVAL_MS);
    }
    if (signals.interrupted) {
      event({ event: 'stop', message: 'stopped by a second signal: the step in progress was interrupted; its journal entries stay unresolved and the next start finishes them' });
      return ctx.stopExitCode;
    }
    if (signals.stopping) event({ event: 'stop', message: 'stopped by a signal after finishing the current step' });
    return options.once || options.dryRun ? (firstError ?? 0) : 0;
  } finally {
    await service?.stop(); // keeper-service
    reporter.close();
    await releaseLock?.().catch(() => {});
    // The steps' contexts keep the shared connections open; the keeper is the last to use them.
    const { closeTransport } = await import('../api/transport.js');
    await closeTransport();
  }
}

function toKeepRows(rows: Awaited<ReturnType<typeof readTargetFile>>['rows'], file: string): KeepRow[] {
  return rows.map((row) => {
    const where = `${safeText(file)}:${row.line}`;
    if (row.notionalUsd > 0 && row.tenorDays === undefined) throw new UsageError(`${where}: tenor_days is required for a row the keeper holds open.`);
    const rollBeforeMs = row.rollBeforeMs ?? DEFAULT_ROLL_BEFORE_MS;
    // A roll_before as long as the tenor would roll every new hedge at once, every cycle, paying each time.
    if (row.tenorDays !== undefined && rollBeforeMs >= row.tenorDays * DAY_MS) {
      throw new UsageError(`${where}: roll_before must be shorter than the tenor (${row.tenorDays} day${row.tenorDays === 1 ? '' : 's'}); a hedge would be rolled as soon as it is opened.`);
    }
    return {
      market: row.market,
      side: row.side,
      notionalUsd: row.notionalUsd,
      tenorDays: row.tenorDays,
      clientReference: row.clientReference,
      untilMs: row.untilMs,
      rollBeforeMs: row.rollBeforeMs,
    };
  });
}

async function chooseReporter(ctx: CommandContext): Promise<KeepReporter> {
  const live = ctx.io.stdoutIsTTY && ctx.output.isHuman;
  if (!live) return ndjsonReporter(ctx.io.stdout);
  return liveReporter(ctx.io.stdout, () => ctx.output.columns, ctx.output.chalk);
}

/** The output the steps render into: nothing reaches the screen; what they say is kept for the events. */
function quietOutput(ctx: CommandContext, messages: string[]): Output {
  const sink = new Writable({
    write(_chunk, _encoding, done) {
      done();
    },
  });
  const said = new Writable({
    write(chunk, _encoding, done) {
      // eslint-disable-next-line no-control-regex
      const text = String(chunk).replace(/\u001b\[[0-9;]*m/g, '').trim();
      if (text !== '') messages.push(...text.split('\n'));
      if (messages.length > 50) messages.splice(0, messages.length - 50);
      done();
    },
  });
  return new Output({ format: 'json', chalk: ctx.output.chalk, streams: { stdout: sink, stderr: said }, now: () => ctx.clock.now(), columns: ctx.output.columns });
}

function drainMessages(messages: string[]): { messages?: string[] } {
  if (messages.length === 0) return {};
  return { messages: messages.splice(0).map((line) => safeText(line)) };
}

interface SideReading {
  views: Map<string, SideView>;
  nowMs: number;
  serverTime?: string;
}

/** The book as the rows need it, at the server's time (its Date header), read fresh. */
async function readSides(ctx: CommandContext, rows: readonly KeepRow[], deps: Pick<CycleDeps, 'event' | 'clockNotes'>): Promise<SideReading> {
  const client = await ctx.client();
  const book = await readBook({ client, log: (line) => ctx.log(line) });
  const hedges = await client.listHedges();
  const serverNow = client.transport.serverNow();
  const views = new Map<string, SideView>();
  for (const row of rows) {
    const position = findSide(book, row.market, row.side);
    const opening = hedges.find((hedge) => sameSide(hedge, row) && !FINAL.has(hedge.status));
    views.set(rowKey(row), {
      ...(position
        ? { position: { notionalUsd: position.notionalUsd, hedgeId: position.hedgeId, maturityAtMs: position.maturityAt ? Date.parse(position.maturityAt) : undefined } }
        : {}),
      ...(opening && !position ? { opening: { hedgeId: opening.id, status: opening.status } } : {}),
    });
  }
  const local = ctx.clock.now();
  if (serverNow === undefined) {
    sayOnce(deps, 'no-date', 'The server sends no Date header: maturities are compared with this machine\'s clock.');
  } else if (Math.abs(serverNow - local) > SKEW_WORTH_SAYING_MS) {
    const minutes = Math.round((serverNow - local) / 60_000);
    sayOnce(deps, 'skew', `The server's clock is ${Math.abs(minutes)} min ${minutes > 0 ? 'ahead of' : 'behind'} this machine's: maturities are compared with the server's.`);
  }
  return { views, nowMs: serverNow ?? local, serverTime: serverNow === undefined ? undefined : new Date(serverNow).toISOString() };
}

function sayOnce(deps: Pick<CycleDeps, 'event' | 'clockNotes'>, what: string, message: string): void {
  if (deps.clockNotes.has(what)) return;
  deps.clockNotes.add(what);
  deps.event({ event: 'notice', code: what === 'skew' ? 'clock_skew' : 'server_time_unknown', message });
}

/** Statuses after which a hedge is no longer being opened; anything else (unknown ones too) is in progress. */
const FINAL = new Set(['filled', 'closed', 'failed']);

function sameSide(hedge: Hedge, row: KeepRow): boolean {
  return hedge.market.toUpperCase() === row.market && hedge.side === row.side;
}

interface CycleDeps {
  options: KeepOptions;
  memory: Map<string, RowMemory>;
  event: (fields: EventFields) => KeepEvent;
  noteError: (error: unknown, fields: Omit<EventFields, 'event'>) => void;
  messages: string[];
  identity: Awaited<ReturnType<typeof identityOf>>;
  clockNotes: Set<string>;
}

type Actionable = Exclude<KeepDecision, { kind: 'hold' | 'skip' }>;

async function runCycle(
  ctx: CommandContext,
  rows: readonly KeepRow[],
  deps: CycleDeps,
  state: { unresolved: Map<string, string>; isStopping: () => boolean },
): Promise<{ rows: KeepRowStatus[]; serverTime?: string }> {
  const { options, memory, event, noteError } = deps;
  let reading: SideReading;
  try {
    reading = await readSides(ctx, rows, deps);
  } catch (error) {
    // Nothing is done on a book that could not be read: a side it cannot see is never opened.
    noteError(error, { phase: 'read' });
    return { rows: rows.map((row) => rowStatus(row, undefined, 'unknown (the book could not be read)')) };
  }
  const statuses: KeepRowStatus[] = [];
  for (const row of rows) {
    const key = rowKey(row);
    const view = reading.views.get(key) ?? {};
    const remembered = memory.get(key) ?? { failures: 0, retryAtMs: 0 };
    memory.set(key, remembered);
    const base = { market: row.market, side: row.side };
    const unresolved = state.unresolved.get(key);
    if (unresolved) {
      // An action of this side whose outcome is not known yet: nothing new is sent until it resolves.
      statuses.push(rowStatus(row, view, unresolved));
      if (remembered.lastHeld !== unresolved) event({ event: 'skip', ...base, reason: unresolved });
      remembered.lastHeld = unresolved;
      continue;
    }
    remembered.lastHeld = undefined;
    const decision = decideRow(row, view, reading.nowMs, options);
    const status = rowStatus(row, view, describeDecision(decision), decision);
    statuses.push(status);
    if (decision.kind === 'hold') {
      remembered.lastSkip = undefined;
      continue;
    }
    if (decision.kind === 'skip') {
      if (remembered.lastSkip !== decision.reason) event({ event: 'skip', ...base, notional_usd: view.position?.notionalUsd, reason: decision.reason });
      remembered.lastSkip = decision.reason;
      continue;
    }
    remembered.lastSkip = undefined;
    if (state.isStopping()) {
      status.state = 'stopping: not started';
      continue;
    }
    if (ctx.clock.now() < remembered.retryAtMs) {
      status.state = `backing off after ${remembered.failures} failure${remembered.failures === 1 ? '' : 's'}`;
      status.next_action = decision.kind;
      status.next_action_at = new Date(remembered.retryAtMs).toISOString();
      continue;
    }
    try {
      if (options.dryRun) await act(ctx, row, decision, view, deps);
      else await decideAgainAndAct(ctx, row, decision, deps);
      remembered.failures = 0;
      remembered.retryAtMs = 0;
    } catch (error) {
      remembered.failures += 1;
      remembered.retryAtMs = ctx.clock.now() + backoffMs(remembered.failures, options.intervalMs);
      noteError(error, {
        ...base,
        notional_usd: row.notionalUsd,
        action: decision.kind,
        hedge_ids: view.position?.hedgeId ? [view.position.hedgeId] : [],
        failures: remembered.failures,
        retry_at: new Date(remembered.retryAtMs).toISOString(),
      });
      status.state = `${decision.kind} failed; retrying`;
    }
  }
  return { rows: statuses, serverTime: reading.serverTime };
}

function rowStatus(row: KeepRow, view: SideView | undefined, state: string, decision?: KeepDecision): KeepRowStatus {
  const next = decision?.kind === 'hold' ? decision : undefined;
  return {
    market: row.market,
    side: row.side,
    ...(row.clientReference ? { client_reference: row.clientReference } : {}),
    target_usd: row.notionalUsd,
    current_usd: view?.position?.notionalUsd ?? null,
    state,
    next_action: next?.nextAction ?? null,
    next_action_at: next?.nextActionAtMs !== undefined ? new Date(next.nextActionAtMs).toISOString() : null,
  };
}

/**
 * Under the account's book lock (the one apply, roll and open --ref take) and the side's own (the
 * one every write of the side takes), the side is read afresh
 * and decided again: a colleague's roll or apply since the cycle's read is seen, never doubled.
 * The roll's own lock is the same one, taken by this process already.
 */
async function decideAgainAndAct(ctx: CommandContext, row: KeepRow, first: Actionable, deps: CycleDeps): Promise<void> {
  await withAccountLock(ctx, 'the book of this account', ['book'], () => withSideLock(ctx, row.market, row.side, async () => {
    const fresh = await readSides(ctx, [row], deps);
    const view = fresh.views.get(rowKey(row)) ?? {};
    const decision = decideRow(row, view, fresh.nowMs, deps.options);
    if (decision.kind === 'hold' || decision.kind === 'skip') return;
    if (decision.kind !== first.kind) ctx.log(`keep: ${rowKey(row)} is now ${decision.kind} (was ${first.kind} at the cycle's read)`);
    await act(ctx, row, decision, view, deps);
  }));
}

async function act(ctx: CommandContext, row: KeepRow, decision: Actionable, view: SideView, deps: CycleDeps): Promise<void> {
  const { options, event, memory } = deps;
  const base = { market: row.market, side: row.side };
  const remembered = memory.get(rowKey(row))!;
  switch (decision.kind) {
    case 'drift': {
      const signature = `${decision.currentUsd}→${decision.targetUsd}`;
      const converging = options.converge && !options.dryRun;
      if (remembered.lastDrift !== signature || converging) {
        event({
          event: 'drift',
          ...base,
          notional_usd: decision.currentUsd,
          target_usd: decision.targetUsd,
          hedge_ids: view.position?.hedgeId ? [view.position.hedgeId] : [],
          message: converging ? `${decision.change} ${decision.amountUsd} USD to reach the target` : 'reported only; run with --converge to bring it back',
        });
      }
      remembered.lastDrift = signature;
      if (converging) {
        const entry = await converge(ctx, row, decision);
        event({ event: 'converge', ...base, notional_usd: decision.amountUsd, action: decision.change, journal_id: entry.id, hedge_ids: entry.hedge_id ? [entry.hedge_id] : [], ...drainMessages(deps.messages) });
      }
      if (decision.alsoRollDue && view.position?.maturityAtMs !== undefined && !options.dryRun) {
        // What the side holds now: the target once converged, the drifted notional otherwise.
        const notionalUsd = converging ? decision.targetUsd : decision.currentUsd;
        await act(ctx, row, { kind: 'roll', notionalUsd, hedgeId: view.position.hedgeId, maturityAtMs: view.position.maturityAtMs }, view, deps);
      }
      return;
    }
    case 'roll': {
      remembered.lastDrift = undefined;
      if (options.dryRun) {
        event({ event: 'roll', ...base, notional_usd: decision.notionalUsd, hedge_ids: decision.hedgeId ? [decision.hedgeId] : [], dry_run: true, maturity_at: new Date(decision.maturityAtMs).toISOString(), tenor_days: row.tenorDays });
        return;
      }
      const startedAt = ctx.clock.now();
      await runRoll(ctx, { market: row.market, side: row.side, tenorDays: row.tenorDays!, skipChecks: false, write: SEND_AND_WAIT });
      const legs = await newestGroup(ctx, ROLL_GROUP_PREFIX, row, startedAt);
      event({ event: 'roll', ...base, tenor_days: row.tenorDays, ...rollFacts(legs, decision.hedgeId, decision.notionalUsd), ...drainMessages(deps.messages) });
      return;
    }
    case 'reopen': {
      remembered.lastDrift = undefined;
      const request: OpenRequest = {
        market: row.market,
        side: row.side,
        notional_usd: decision.notionalUsd,
        tenor_days: row.tenorDays!,
        ...(row.clientReference ? { client_reference: row.clientReference } : {}),
      };
      if (options.dryRun) {
        event({ event: 'reopen', ...base, notional_usd: decision.notionalUsd, tenor_days: row.tenorDays, dry_run: true });
        return;
      }
      const client = await ctx.client();
      const group = newGroup(ctx);
      const result = await runWrite(ctx, { ...openAction(ctx, client, request, { argv: openArgv(request), group, leg: 'reopen' }), ...QUIETLY }, SEND_AND_WAIT);
      if (result.kind === 'dry-run') return;
      const hedge = result.kind === 'resolved' ? result.result : undefined;
      if (hedge?.status === 'failed') throw new HedgeError(`The re-opened hedge ${safeText(hedge.id)} failed on-chain; nothing was opened.`);
      event({
        event: 'reopen',
        ...base,
        notional_usd: decision.notionalUsd,
        tenor_days: row.tenorDays,
        hedge_ids: result.entry.hedge_id ? [result.entry.hedge_id] : [],
        journal_id: result.entry.id,
        journal_group: group,
        ...drainMessages(deps.messages),
      });
      return;
    }
  }
}

/** A roll's event fields from its journal group: the hedges old → new, the open leg's journal id (resume takes it), the group. */
function rollFacts(legs: JournalEntry[], oldHedgeId: string | undefined, notionalUsd: number | undefined): Record<string, unknown> {
  const opened = legs.find((entry) => entry.leg === 'open');
  const closed = legs.find((entry) => entry.leg === 'close');
  const body = (opened?.request.body ?? {}) as Record<string, unknown>;
  const rolled = typeof opened?.context?.rolled_hedge_id === 'string' ? opened.context.rolled_hedge_id : undefined;
  return {
    notional_usd: typeof body.notional_usd === 'number' ? body.notional_usd : notionalUsd,
    hedge_ids: [oldHedgeId ?? rolled ?? closed?.hedge_id, opened?.hedge_id].filter((id): id is string => typeof id === 'string'),
    ...(opened ? { journal_id: opened.id, journal_group: opened.group } : {}),
  };
}

/** --converge: one add, reduce or close through the write flow, journaled in a keep group. */
async function converge(ctx: CommandContext, row: KeepRow, decision: Extract<KeepDecision, { kind: 'drift' }>): Promise<JournalEntry> {
  const client = await ctx.client();
  const group = newGroup(ctx);
  const { market, side } = row;
  const result =
    decision.change === 'close'
      ? await runWrite(ctx, { ...closeAction(ctx, client, { market, side }, { argv: closeArgv({ market, side }), group, leg: 'converge' }), ...QUIETLY }, SEND_AND_WAIT)
      : await runWrite(
          ctx,
          { ...changeAction(ctx, client, decision.change, { market, side, notional_usd: decision.amountUsd }, { argv: changeArgv(decision.change, { market, side, notional_usd: decision.amountUsd }), group, leg: 'converge' }), ...QUIETLY },
          SEND_AND_WAIT,
        );
  if (result.kind === 'dry-run') throw new HedgeError('Nothing was sent for the convergence.');
  return result.entry;
}

function newGroup(ctx: CommandContext): string {
  return `${KEEP_GROUP_PREFIX}${new Date(ctx.clock.now()).toISOString().replace(/[-:.]/g, '')}-${randomBytes(3).toString('hex')}`;
}

/** The entries of the newest journal group with this prefix for the row's side, made since `sinceMs`. */
async function newestGroup(ctx: CommandContext, prefix: string, row: KeepRow, sinceMs: number): Promise<JournalEntry[]> {
  const entries = await (await ctx.journal()).list({ since: sinceMs - 1000 });
  const mine = entries.filter((entry) => entry.group?.startsWith(prefix) && bodyField(entry, 'market') === row.market && bodyField(entry, 'side') === row.side);
  const group = mine[0]?.group;
  return group ? mine.filter((entry) => entry.group === group) : [];
}

function bodyField(entry: JournalEntry, name: string): unknown {
  const body = entry.request?.body;
  return typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[name] : undefined;
}

/**
 * Before every cycle: each roll or keeper action this account left unresolved (a keeper killed
 * mid-step, an answer lost) is finished with its own keys, the book reconciled first by the write
 * flow. Returns, per side, why it must be left alone this cycle: an action still unresolved after
 * the attempt, or any unresolved action of that side (a colleague's add whose answer was lost, an
 * action another live process is running) — a new action with a new key could double it.
 */
async function finishUnfinished(ctx: CommandContext, deps: CycleDeps): Promise<Map<string, string>> {
  const journal = await ctx.journal();
  const { identity } = deps;
  const pending = (await journal.list({ pending: true })).filter((entry) => sentBy(identity, entry));
  const done = new Set<string>();
  for (const entry of [...pending].reverse()) {
    const group = entry.group;
    if (!group || !(group.startsWith(ROLL_GROUP_PREFIX) || group.startsWith(KEEP_GROUP_PREFIX)) || done.has(group)) continue;
    done.add(group);
    const base = { market: String(bodyField(entry, 'market') ?? ''), side: String(bodyField(entry, 'side') ?? ''), resumed: true };
    try {
      if (group.startsWith(ROLL_GROUP_PREFIX)) {
        await resumeRoll(ctx, entry, { wait: true });
        const legs = (await journal.list()).filter((candidate) => candidate.group === group);
        deps.event({ event: 'roll', ...base, tenor_days: bodyField(legs.find((leg) => leg.leg === 'open') ?? entry, 'tenor_days'), ...rollFacts(legs, undefined, undefined), ...drainMessages(deps.messages) });
      } else if (isUnresolved(entry)) {
        const client = await ctx.client();
        const result = await finishJournaled(ctx, client, entry, { wait: true, present: (action) => ({ ...action, ...QUIETLY }) });
        if (!result) continue;
        const kind = entry.leg === 'reopen' ? 'reopen' : 'converge';
        if (result.kind !== 'dry-run') {
          deps.event({ event: kind, ...base, notional_usd: bodyField(entry, 'notional_usd') ?? bodyField(entry, 'amount_usd'), journal_id: result.entry.id, journal_group: group, hedge_ids: result.entry.hedge_id ? [result.entry.hedge_id] : [], ...drainMessages(deps.messages) });
        }
      }
    } catch (error) {
      // Another live process running it is not a failure of this keeper: the side just waits for it.
      if (!(error instanceof HeldError)) deps.noteError(error, { ...base, phase: 'resume', journal_id: entry.id });
    }
  }
  const still = new Map<string, string>();
  for (const entry of (await journal.list({ pending: true })).filter((candidate) => sentBy(identity, candidate))) {
    const market = bodyField(entry, 'market');
    const side = bodyField(entry, 'side');
    if (typeof market !== 'string' || typeof side !== 'string') continue;
    const key = `${market.toUpperCase()} ${side}`;
    if (still.has(key)) continue;
    const holder = await journal.holderOf(entry.id);
    still.set(
      key,
      holder
        ? `${entry.command} in progress by another process (pid ${holder.pid} on ${safeText(holder.host)}, journal ${entry.id}): left alone until it resolves`
        : `the ${entry.command} of journal ${entry.id} is unresolved (${entry.outcome}): left alone until it is finished by its key`,
    );
  }
  return still;
}

function describeDecision(decision: KeepDecision): string {
  switch (decision.kind) {
    case 'hold':
      return decision.reason;
    case 'roll':
      return `roll due (matures ${new Date(decision.maturityAtMs).toISOString().slice(0, 16).replace('T', ' ')} UTC)`;
    case 'reopen':
      return 'flat: re-open';
    case 'drift':
      return `drifted to ${decision.currentUsd} USD (target ${decision.targetUsd})`;
    case 'skip':
      return decision.reason;
  }
}

/** The keeper's environment less what carries a secret (the API key, the team store's URL, a PostgreSQL password). */
export function hookEnvironment(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return childEnvironment(env);
}
