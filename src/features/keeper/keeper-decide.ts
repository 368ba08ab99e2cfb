// The keeper's decisions as pure functions: what it remembers and what a read showed in; what to
// do (each row's step, its writes, as data), what to say and what it remembers next out. Nothing
// here reads, writes or waits: keeper-steps.ts does, and decides nothing.
import type { Hedge } from '../../platform/api/schemas.js';
import {
  backoffMs,
  decideRow,
  rowKey,
  tenorFor,
  type Actionable,
  type EventFields,
  type KeepDecision,
  type KeepRow,
  type KeepRowStatus,
  type SideView,
} from '../../core/keep-rules.js';
import { HedgeError, HeldError, UnresolvedError } from '../../core/errors.js';
import { bodyOf, isUnresolved, recordedUsd, type Holder, type JournalEntry } from '../../platform/journal/index.js';
import type { RollOutcome } from '../../platform/results/roll-outcome-types.js';
import { safeText } from '../../core/security/safe-text.js';
import { utcIso } from '../../core/utc-text.js';
import { formatUsd } from '../../core/number-format.js';
import {
  ASSUMED_SKEW_MS,
  describeServerClock,
  formatSpan,
  type ClockReading,
  type ServerTime,
} from '../../core/server-clock.js';
import { expectationMet, type SideBook, type SideExpectation } from '../book/book.js';
import { cutSide, unseenIn } from '../book/side-book.js';
import { begunElsewhere } from '../write/row-trust.js';
import { ROLL_GROUP_PREFIX, type WriteOutcome } from '../write/write-flow.js';

/** Every re-open or convergence of a keeper is journaled under a group starting with this. */
export const KEEP_GROUP_PREFIX = 'keep-';
/** A server clock further than this from ours is said once (the keeper still acts on the server's: maturities are its). */
const SKEW_WORTH_SAYING_MS = 5 * 60_000;
/** How long (server time) the keeper's own landed write may take to show in every view before it says it cannot tell (exit 12 for --once). */
const EXPECTATION_BOUND_MS = 10 * 60_000;
/** A flat side's re-open backs off at most this long (or one interval, when longer): the side is bare meanwhile, and a refused re-open costs only the pre-trade reads. */
const FLAT_SIDE_BACKOFF_CAP_MS = 5 * 60_000;

// ---- What goes in and out.

/** What the keeper remembers between cycles (and between a cycle and its steps). */
export const initialKeeperState = () => ({
  /** Per row (`MARKET side`): its failures in a row, when it may try again, and what was last said of it (each said once). */
  rows: new Map<
    string,
    { failures: number; retryAtMs: number; lastSkip?: string; lastDrift?: string; lastHeld?: string }
  >(),
  /** Notices said once (by code), and sides past their bound said once each (by side and cause). */
  said: new Set<string>(),
  /** Hedges this keeper closed itself (a roll's close): a side flat after one of these is not a colleague's. */
  closedByKeeper: new Set<string>(),
  /** Hedge id → closed by a roll or keeper action, as the journal said (asked once per hedge). */
  closedByRoll: new Map<string, boolean>(),
  /** Per side: what this keeper's own last write must show in every view before the side is decided again. */
  expectations: new Map<string, SideExpectation & { what: string }>(),
  /** Per side: since when (server time) its views have disagreed, while they do. */
  settlingSince: new Map<string, number>(),
});
export type KeeperState = ReturnType<typeof initialKeeperState>;

/** A pure step: `work` changes a copy of the state and says what it says; the state it was handed stays as it was. */
function evolve<T extends object>(state: KeeperState, work: (next: KeeperState, events: KeeperSaid[]) => T) {
  const next = structuredClone(state);
  const events: KeeperSaid[] = [];
  return { ...work(next, events), state: next, events };
}

/** A row's market and side, as its events and status name them first. */
const marketSide = ({ market, side }: KeepRow) => ({ market, side });

const memoryOf = (next: KeeperState, key: string) =>
  next.rows.get(key) ?? next.rows.set(key, { failures: 0, retryAtMs: 0 }).get(key)!;

/** One side as a read showed it. */
export interface SideObservation {
  book: SideBook;
  /** Hedges the server named in its answers to this account's opens of the side: a view that does not show one trails the write. */
  opened: readonly string[];
  /** The side's newest hedge, as the hedges list gives it. */
  newest?: Hedge;
}

/** The book as one read showed it: every row's side, the server's time, and the journal's answers to `journalQuestions`. */
export interface BookObservation {
  sides: ReadonlyMap<string, SideObservation>;
  time: ServerTime;
  clock: ClockReading;
  closedByRoll: ReadonlyMap<string, boolean>;
}

/** What one cycle found: the target, the book (or why it could not be read), and the journal's and the runner's word on each side. */
interface KeeperObservation {
  rows: readonly KeepRow[];
  book: BookObservation | { error: unknown };
  /** Per side, why an action of it whose outcome is not known leaves it alone. */
  unresolved: ReadonlyMap<string, string>;
  /** The rows' steps still in flight, since when (our clock). */
  inFlight: ReadonlyMap<string, { kind: Actionable['kind']; sinceMs: number }>;
  stopping: boolean;
}

export interface KeeperSettings {
  dryRun: boolean;
  converge: boolean;
  intervalMs: number;
  toleranceUsd: number;
}

/** What is to be said: an event, or an error (an `error` event; a one-cycle run ends with its first's exit code). */
export type KeeperSaid = { say: EventFields } | { error: unknown; fields: Omit<EventFields, 'event'> };

/** One write of a step; `would`: a dry run's pre-trade checks (those a real open passes), then what it would do, said. */
export type KeeperWrite =
  | { kind: 'open'; row: KeepRow; notionalUsd: number; tenorDays: KeepRow['tenorDays'] }
  | { kind: 'add' | 'reduce' | 'close'; row: KeepRow; amountUsd: number; targetUsd: number }
  | { kind: 'roll'; row: KeepRow; hedgeId?: string; tenorDays: KeepRow['tenorDays'] }
  | { kind: 'would'; row: KeepRow; check?: { notionalUsd: number; freedUsd: number }; say: EventFields };

/** A row's step, started by a cycle and left in flight while it runs. A live one is planned (`plan`) again under the side's lock on a fresh read; a dry run's writes are this cycle's. */
export interface KeeperStep {
  key: string;
  row: KeepRow;
  kind: Actionable['kind'];
  /** The status row the step's end is written into. */
  status: KeepRowStatus;
  hedgeIds: string[];
  writes?: KeeperWrite[];
  /** The server's clock less ours on the read it was decided on: its retry time is said on the server's clock. */
  serverOffsetMs: number;
}

// ---- The cycle.

/** One cycle: each row's status, the steps to start, what to say. */
export function decide(state: KeeperState, observation: KeeperObservation, nowMs: number, settings: KeeperSettings) {
  return evolve(state, (next, events) => {
    const { rows, book, inFlight, unresolved } = observation;
    const actions: KeeperStep[] = [];
    // Nothing is done on a book that could not be read: a side it cannot see is never opened.
    if ('error' in book) events.push({ error: book.error, fields: { phase: 'read' } });
    const read = 'error' in book ? undefined : book;
    const views = read && viewSides(next, read, rows, events);
    const serverOffsetMs = read ? read.time.bestMs - read.time.localMs : 0;
    const statuses = rows.map((row) => {
      const key = rowKey(row);
      const view = views?.get(key);
      // What the side's view alone decides: a row not acted on this cycle (its step in flight, an
      // action of it unresolved) still shows when a covered side's roll falls due, since the alerts
      // judge a side that settles before the next cycle as a missed roll by that time.
      const decision = view && decideRow(row, view, read!.time.latestMs, settings);
      const status = rowStatus(row, view, decision?.reason ?? 'unknown (the book could not be read)', decision);
      const step = inFlight.get(key);
      if (step) status.state = `${step.kind} in flight (${Math.round((nowMs - step.sinceMs) / 1000)} s)`;
      if (step || !decision) return status;
      const memory = memoryOf(next, key);
      // Whether what is remembered of the row changes (and it is remembered): each is said once while it stays so.
      const renewed = (field: 'lastHeld' | 'lastSkip' | 'lastDrift', value?: string) =>
        memory[field] !== (memory[field] = value);
      const base = marketSide(row);
      // An action of this side whose outcome is not known yet: nothing new is sent until it resolves.
      const held = unresolved.get(key);
      if (renewed('lastHeld', held) && held) events.push({ say: { event: 'skip', ...base, reason: held } });
      if (held) return Object.assign(status, { state: held });
      const skip = decision.kind === 'skip' ? decision.reason : undefined;
      if (renewed('lastSkip', skip) && skip)
        events.push({ say: { event: 'skip', ...base, notional_usd: view.position?.notionalUsd, reason: skip } });
      if (decision.kind === 'skip') return status;
      const drift = decision.kind === 'drift' ? decision : undefined;
      const signature = drift && `${drift.change}:${drift.currentUsd}→${drift.targetUsd}`;
      if ((renewed('lastDrift', signature) || (settings.converge && !settings.dryRun)) && drift) {
        const action = `${drift.change === 'open' ? 're-open' : drift.change} ${formatUsd(drift.amountUsd)}`;
        const closedBy = view.closedOutside ? `closed outside the keeper (${view.closedOutside.hedgeId}); ` : '';
        events.push({
          say: {
            event: 'drift',
            ...base,
            notional_usd: drift.currentUsd,
            target_usd: drift.targetUsd,
            change: drift.change,
            hedge_ids: idList(view.position?.hedgeId || view.closedOutside?.hedgeId),
            message: settings.converge
              ? `${closedBy}--converge ${settings.dryRun ? 'would ' : ''}${action} to reach the target`
              : drift.change === 'open'
                ? `${closedBy}left flat: not re-opened until the target file says so again (edit it, then SIGHUP), or run with --converge`
                : 'reported only; run with --converge to bring it back',
          },
        });
      }
      if (decision.kind === 'hold') return status;
      // Reported only: a colleague's change stands until the target says otherwise (or --converge);
      // the row says so, so that nobody reads the drift as being brought back.
      if (drift && !settings.converge && !drift.alsoRollDue)
        status.state += ': reported only (run with --converge to bring it back)';
      else if (observation.stopping) status.state = 'stopping: not started';
      else if (nowMs < memory.retryAtMs)
        Object.assign(status, {
          state: `backing off after ${memory.failures} failure${memory.failures === 1 ? '' : 's'}`,
          next_action: decision.kind,
          next_action_at: utcIso(memory.retryAtMs + serverOffsetMs),
        });
      else {
        status.state = `${decision.kind} in flight`;
        actions.push({
          key,
          row,
          kind: decision.kind,
          status,
          hedgeIds: idList(view.position?.hedgeId || undefined),
          serverOffsetMs,
          ...(settings.dryRun && { writes: wouldDo(row, decision, view, settings, read!.time.latestMs) }),
        });
      }
      return status;
    });
    return { actions, rows: statuses, serverTime: read && utcIso(read.time.latestMs) };
  });
}

/** What a live keeper would do to each row on this read: the question before it starts. */
export function preview(state: KeeperState, book: BookObservation, rows: readonly KeepRow[], settings: KeeperSettings) {
  return evolve(state, (next, events) => {
    const views = viewSides(next, book, rows, events);
    const decided = (row: KeepRow) => decideRow(row, views.get(rowKey(row))!, book.time.latestMs, settings);
    return {
      lines: rows.map((row) => `${row.market} ${row.side} ${formatUsd(row.notionalUsd)}: ${decided(row).reason}`),
    };
  });
}

/** A new target (SIGHUP): what was remembered about drift is the old target's. */
export const forgetDrift = (state: KeeperState) =>
  evolve(state, (next) => {
    for (const memory of next.rows.values()) memory.lastDrift = undefined;
    return {};
  });

/** How a step ended (`failure` when it threw): its row's failures and back-off, its status, and its error said with when it is tried again. */
export function stepEnded(
  state: KeeperState,
  step: KeeperStep,
  nowMs: number,
  settings: KeeperSettings,
  failure?: { error: unknown },
) {
  return evolve(state, (next, events) => {
    const memory = memoryOf(next, step.key);
    const { kind } = step;
    memory.failures = failure ? memory.failures + 1 : 0;
    const capMs = kind === 'reopen' ? Math.max(settings.intervalMs, FLAT_SIDE_BACKOFF_CAP_MS) : undefined;
    memory.retryAtMs = failure ? nowMs + backoffMs(memory.failures, settings.intervalMs, capMs) : 0;
    if (failure)
      events.push({
        error: failure.error,
        fields: {
          ...marketSide(step.row),
          notional_usd: step.row.notionalUsd,
          action: kind,
          hedge_ids: step.hedgeIds,
          failures: memory.failures,
          retry_at: utcIso(memory.retryAtMs + step.serverOffsetMs),
        },
      });
    const texts = settings.dryRun
      ? [`would ${kind}`, `${kind} would be refused`]
      : [`${kind} done`, `${kind} failed; retrying`];
    return { statusText: texts[failure ? 1 : 0] };
  });
}

// ---- What the views of each side say: settling, this keeper's own write not shown yet, a colleague's close.

/** The sides (`MARKET side`) whose newest hedge the journal is to be asked about (closed by a roll or keeper action?), once per hedge. */
export function journalQuestions(state: KeeperState, book: Pick<BookObservation, 'sides' | 'time'>) {
  return [...book.sides.values()]
    .map((side) => closedElsewhere(state, side, book.time)?.id)
    .filter((id): id is string => id !== undefined && !state.closedByRoll.has(id));
}

/** The side's newest hedge when it was closed before its maturity (on the clock the book judged it by), and not by this keeper as far as it knows. */
function closedElsewhere(state: KeeperState, { book, newest }: SideObservation, time: ServerTime) {
  // A server may leave an early-closed hedge `filled` on its record: the book has it ended from the history.
  return book.state === 'flat' &&
    !book.opening[0] &&
    newest !== undefined &&
    (newest.status === 'closed' || (newest.status === 'filled' && book.ended.includes(newest.id))) &&
    !state.closedByKeeper.has(newest.id) &&
    Date.parse(String(newest.maturity_at)) > time.bestMs
    ? newest
    : undefined;
}

/** Each row's side as the rules read it; a side whose views disagree or miss this keeper's own last write is settling. Rolls are timed at the latest the server's clock can read. */
function viewSides(next: KeeperState, book: BookObservation, rows: readonly KeepRow[], events: KeeperSaid[]) {
  const { time, clock } = book;
  const nowMs = time.latestMs;
  const once = (key: string) => !next.said.has(key) && !!next.said.add(key);
  const views = new Map<string, SideView>();
  for (const row of rows) {
    const key = rowKey(row);
    const observed = book.sides.get(key)!;
    const side = observed.book;
    const fields = marketSide(row);
    /** Said once per side and cause (`what`) past EXPECTATION_BOUND_MS since `sinceMs`: cannot tell (the side still waits after that). */
    const cannotTell = (what: string, sinceMs: number, said: (waitedS: number) => string | Error) => {
      if (nowMs - sinceMs <= EXPECTATION_BOUND_MS || !once(what)) return;
      const error = said(Math.round((nowMs - sinceMs) / 1000));
      const hint =
        'Compare `hedge positions` with `hedge hedges`; the keeper acts on the side again once both show the same book.';
      events.push({ error: typeof error === 'string' ? new UnresolvedError(error, { hint }) : error, fields });
    };
    const unseen = side.state === 'settling' ? undefined : unseenIn(side, observed.opened);
    let settling =
      side.state === 'settling'
        ? (side.why ?? 'its views disagree')
        : unseen === undefined
          ? undefined
          : `it does not show hedge ${safeText(unseen)} yet, which the server named in its answer to an open of it`;
    const expected = next.expectations.get(key);
    if (settling !== undefined) {
      const since = next.settlingSince.get(key) ?? nowMs;
      next.settlingSince.set(key, since);
      // Records that may be cut stay so however long it waits (a history that may be cut, past the bound): said at
      // once with what to set, and held; never read as a side short of its target.
      const cut = side.recordsCut !== undefined || side.historyCut !== undefined;
      cannotTell(`settling ${key}`, side.recordsCut === undefined ? since : -Infinity, (waited) =>
        cut
          ? cutSide(row, side, true)
          : `The ${row.side} side of ${row.market} has been settling for ${waited} s (server time): ${settling}. What it holds cannot be told, so nothing is sent on it.`,
      );
    } else {
      next.settlingSince.delete(key);
      next.said.delete(`settling ${key}`);
      // The side waits for this keeper's own last write to show in every view; once it does, the expectation is dropped.
      if (expected && expectationMet(side, expected)) {
        next.expectations.delete(key);
        next.said.delete(key);
      } else if (expected) {
        settling = `this keeper's own ${expected.what} (${formatUsd(expected.notionalUsd)}) is not in every view yet`;
        cannotTell(
          key,
          expected.sinceMs,
          (waited) =>
            `${settling} ${waited} s after it landed (server time): cannot tell what the side holds, so nothing more is sent on it.`,
        );
      }
    }
    // The soonest to mature of the side's hedges decides when the side is rolled.
    const soonest = side.filled.at(-1);
    const covered = side.state === 'in-step' && soonest !== undefined;
    const opening = side.opening[0];
    // The side's newest hedge closed early by someone else: a colleague's close, which wins — unless the journal shows a roll closed it.
    const closed = closedElsewhere(next, observed, time);
    const rolled = closed && (next.closedByRoll.get(closed.id) ?? book.closedByRoll.get(closed.id) ?? false);
    if (closed) next.closedByRoll.set(closed.id, rolled!);
    const closedAtLocalMs =
      (typeof closed?.closed_at === 'string' ? Date.parse(closed.closed_at) : NaN) - time.earliestMs + time.localMs;
    views.set(key, {
      position: covered
        ? { notionalUsd: side.recordsUsd, hedgeId: soonest.id, maturityAtMs: soonest.maturityAtMs }
        : undefined,
      opening: opening && !covered ? { hedgeId: opening.id, status: opening.status } : undefined,
      closedOutside:
        closed && !rolled
          ? { hedgeId: closed.id, closedAtLocalMs: Number.isFinite(closedAtLocalMs) ? closedAtLocalMs : undefined }
          : undefined,
      settling: settling ? { why: settling } : undefined,
    });
  }
  const notice = (code: string, message: string) =>
    once(code) && events.push({ say: { event: 'notice', code, message } });
  const noDate =
    clock.dateBehindMs === undefined
      ? 'The server sends no Date header'
      : "The server's Date header is behind the times in its records (not used)";
  if (time.assumed)
    notice(
      'server_time_unknown',
      `${noDate} and no open of this keeper has been answered yet, so its clock is not known: rolls are taken as due up to ${formatSpan(ASSUMED_SKEW_MS)} sooner than they may be (they come that much early) until an open's answer dates it.`,
    );
  else if (!clock.from.includes('date'))
    notice('server_time_from_stamps', `${noDate}: its clock is ${describeServerClock(clock)}.`);
  const offsetMs = time.bestMs - time.localMs;
  if (Math.abs(offsetMs) > SKEW_WORTH_SAYING_MS)
    notice(
      'clock_skew',
      `The server's clock is ${formatSpan(Math.abs(offsetMs))} ${offsetMs > 0 ? 'ahead of' : 'behind'} this machine's: maturities are compared with the server's.`,
    );
  return views;
}

// ---- A step's writes, planned again under the side's lock, and what each one's outcome changes and says.

/** A live step's writes, decided again on a fresh read of its side under the side's lock: none when the side no longer needs them. */
export function plan(state: KeeperState, book: BookObservation, row: KeepRow, settings: KeeperSettings) {
  return evolve(state, (next, events) => {
    const view = viewSides(next, book, [row], events).get(rowKey(row))!;
    const decision = decideRow(row, view, book.time.latestMs, settings);
    const writes: KeeperWrite[] = [];
    const tenorDays = (decision as Partial<Actionable>).tenorDays ?? row.tenorDays;
    if (decision.kind === 'roll') writes.push({ kind: 'roll', row, hedgeId: decision.hedgeId, tenorDays });
    if (decision.kind === 'reopen') writes.push({ kind: 'open', row, notionalUsd: decision.notionalUsd, tenorDays });
    if (decision.kind === 'drift') {
      const { change, amountUsd, targetUsd } = decision;
      // A colleague's close is restored (re-opened) only with --converge, as any other drift.
      if (settings.converge)
        writes.push(
          change === 'open'
            ? { kind: 'open', row, notionalUsd: targetUsd, tenorDays }
            : { kind: change, row, amountUsd, targetUsd },
        );
      if (change !== 'open' && decision.alsoRollDue && view.position?.maturityAtMs !== undefined)
        writes.push({
          kind: 'roll',
          row,
          hedgeId: view.position.hedgeId,
          tenorDays: tenorFor(row, book.time.latestMs),
        });
    }
    return { writes };
  });
}

/** --dry-run: what a real run would do, validated as it would be (market, capacity, headroom) and said with "would". */
function wouldDo(
  row: KeepRow,
  decision: Actionable,
  view: SideView,
  settings: KeeperSettings,
  nowMs: number,
): KeeperWrite[] {
  const base = { ...marketSide(row), dry_run: true };
  const tenorDays = decision.tenorDays ?? row.tenorDays;
  const would = (say: EventFields, notionalUsd?: number, freedUsd = 0): KeeperWrite[] => [
    { kind: 'would', row, ...(notionalUsd !== undefined && { check: { notionalUsd, freedUsd } }), say },
  ];
  if (decision.kind === 'drift') {
    // A drift a dry run starts a step for is one --converge brings back; only an open or add needs room.
    const { change, amountUsd } = decision;
    const message = `would ${change === 'open' ? 're-open' : change} ${formatUsd(amountUsd)} to reach the target of ${formatUsd(decision.targetUsd)}`;
    const converge = { event: 'converge' as const, ...base, notional_usd: amountUsd, action: change, message };
    const writes = settings.converge
      ? would(converge, change === 'open' || change === 'add' ? amountUsd : undefined)
      : [];
    // A roll due as well follows, as `plan` makes it: of the notional the side holds once converged (or left alone).
    const maturityAtMs = view.position?.maturityAtMs;
    if (change !== 'open' && decision.alsoRollDue && maturityAtMs !== undefined) {
      const notionalUsd = settings.converge ? decision.targetUsd : decision.currentUsd;
      const roll = { kind: 'roll' as const, notionalUsd, hedgeId: view.position?.hedgeId, maturityAtMs };
      writes.push(...wouldDo(row, { ...roll, tenorDays: tenorFor(row, nowMs), reason: '' }, view, settings, nowMs));
    }
    return writes;
  }
  const { notionalUsd } = decision;
  if (decision.kind === 'reopen') {
    const message = `would open ${formatUsd(notionalUsd)} for ${tenorDays} days`;
    return would({ event: 'reopen', ...base, notional_usd: notionalUsd, tenor_days: tenorDays, message }, notionalUsd);
  }
  return would(
    {
      event: 'roll',
      ...base,
      notional_usd: notionalUsd,
      hedge_ids: idList(decision.hedgeId || undefined),
      maturity_at: utcIso(decision.maturityAtMs),
      tenor_days: tenorDays,
      message: `would roll: close ${decision.hedgeId ?? 'the position'}, then open ${formatUsd(notionalUsd)} for ${tenorDays} days`,
    },
    notionalUsd,
    notionalUsd,
  );
}

/** A write about to be sent: what a roll is about to close is noted first, since a roll whose open then fails leaves the side flat, and that side is the keeper's to re-open, not a colleague's drift.
 * A roll that `failed`: whether its close landed is the journal's to say (the roll journals its legs before the close), so a colleague's later close of a hedge it never closed is theirs. */
export function sending(state: KeeperState, write: KeeperWrite, failed = false) {
  if (write.kind !== 'roll' || !write.hedgeId) return state;
  const next = structuredClone(state);
  next.closedByKeeper[failed ? 'delete' : 'add'](write.hedgeId);
  return next;
}

/** How a write of the keeper came back: the run through the write flow (a re-open or convergence, journaled in its keep group), or the roll's outcome. */
export type WriteDone =
  { kind: 'sent'; result: WriteOutcome<unknown, unknown>; group: string } | { kind: 'rolled'; outcome: RollOutcome };

/** What a landed write makes the side wait for (counted from the server's time then: `serverNowMs`), what it says, and a failure to raise. */
export function wrote(state: KeeperState, write: KeeperWrite, done: WriteDone, serverNowMs: number) {
  return evolve(state, (next, events) => {
    const base = marketSide(write.row);
    const expect = (expectation: Omit<SideExpectation, 'sinceMs'> & { what: string }) => {
      next.expectations.set(rowKey(write.row), { ...expectation, sinceMs: serverNowMs });
      next.said.delete(rowKey(write.row));
    };
    if (done.kind === 'rolled') {
      const { outcome } = done;
      const rolledId = write.kind === 'roll' ? write.hedgeId : undefined;
      events.push(rollEvent(next, outcome, base, rolledId));
      if (outcome.kind === 'rolled') {
        const { view } = outcome;
        expect({
          what: 'roll',
          notionalUsd: view.notional_usd,
          ...(view.open.hedge_id && { present: [view.open.hedge_id] }),
          gone: idList(rolledId, view.close?.hedge_id),
        });
      }
      return {};
    }
    const { result, group } = done;
    if (result.kind === 'dry-run')
      return write.kind === 'open' ? {} : { failure: new HedgeError('Nothing was sent for the convergence.') };
    const hedge = result.kind === 'resolved' ? (result.result as Hedge | undefined) : undefined;
    const { entry } = result;
    const hedgeIds = idList(entry.hedge_id || undefined);
    if (write.kind === 'open') {
      if (hedge?.status === 'failed')
        return {
          failure: new HedgeError(`The re-opened hedge ${safeText(hedge.id)} failed on-chain; nothing was opened.`),
        };
      expect({ what: 're-open', notionalUsd: write.notionalUsd, ...(hedgeIds.length && { present: hedgeIds }) });
      events.push({
        say: {
          event: 'reopen',
          ...base,
          notional_usd: write.notionalUsd,
          tenor_days: write.tenorDays,
          hedge_ids: hedgeIds,
          journal_id: entry.id,
          journal_group: group,
          idempotency_key: entry.idempotency_key,
        },
      });
    } else if (write.kind !== 'roll' && write.kind !== 'would') {
      expect({ what: write.kind, notionalUsd: write.targetUsd });
      events.push({
        say: {
          event: 'converge',
          ...base,
          notional_usd: write.amountUsd,
          action: write.kind,
          journal_id: entry.id,
          idempotency_key: entry.idempotency_key,
          hedge_ids: hedgeIds,
        },
      });
    }
    return {};
  });
}

// ---- This keeper's own unfinished journal rows: finished with their keys, or the side left alone.

/** A roll's or a keeper action's journal group. */
export const ofKeeper = (group: string | undefined): group is string =>
  group?.startsWith(ROLL_GROUP_PREFIX) === true || group?.startsWith(KEEP_GROUP_PREFIX) === true;

/** The side (`MARKET side`) a journal row acts on. */
const sideOf = (entry: JournalEntry) =>
  `${String(bodyOf(entry).market ?? '').toUpperCase()} ${String(bodyOf(entry).side ?? '')}`;

/** Which of this account's unfinished rows (`ours`, oldest last) the keeper finishes: its own (via keeper, begun on this machine) of the target's sides with no step in flight, one per group; a roll by its roll. */
export function toResume(ours: readonly JournalEntry[], busy: ReadonlySet<string>, rows: readonly KeepRow[]) {
  const groups = new Set<string>();
  return ours
    .filter(
      (entry) =>
        !busy.has(sideOf(entry)) &&
        entry.via === 'keeper' &&
        !begunElsewhere(entry) &&
        rows.some((row) => rowKey(row) === sideOf(entry)),
    )
    .reverse()
    .flatMap((entry) => {
      const { group } = entry;
      if (!ofKeeper(group) || groups.has(group)) return [];
      groups.add(group);
      const how = group.startsWith(ROLL_GROUP_PREFIX) ? 'roll' : isUnresolved(entry) ? 'write' : undefined;
      return how ? [{ entry, group, how }] : [];
    });
}

/** What a finished row says (and a roll's close noted as this keeper's); a failure is said unless another live process holds the row: the side just waits for it. */
export function resumed(
  state: KeeperState,
  { entry, group }: { entry: JournalEntry; group: string },
  done: WriteDone | { kind: 'failed'; error: unknown },
) {
  return evolve(state, (next, events) => {
    const body = bodyOf(entry);
    const base = { market: String(body.market ?? ''), side: String(body.side ?? ''), resumed: true };
    if (done.kind === 'failed') {
      if (!(done.error instanceof HeldError))
        events.push({ error: done.error, fields: { ...base, phase: 'resume', journal_id: entry.id } });
    } else if (done.kind === 'rolled') {
      events.push(rollEvent(next, done.outcome, base));
    } else if (done.result.kind !== 'dry-run') {
      const { entry: row } = done.result;
      events.push({
        say: {
          event: entry.leg === 'reopen' ? 'reopen' : 'converge',
          ...base,
          notional_usd: recordedUsd(body),
          journal_id: row.id,
          journal_group: group,
          idempotency_key: row.idempotency_key,
          hedge_ids: idList(row.hedge_id || undefined),
        },
      });
    }
    return {};
  });
}

/** The first of this account's unfinished rows on each side with no step in flight: the side is left alone until it resolves (a new key could double it). */
export function unresolvedSides(ours: readonly JournalEntry[], busy: ReadonlySet<string>) {
  const first = new Map<string, JournalEntry>();
  for (const entry of ours) {
    const { market, side } = bodyOf(entry);
    if (typeof market !== 'string' || typeof side !== 'string') continue;
    const key = sideOf(entry);
    if (!first.has(key) && !busy.has(key)) first.set(key, entry);
  }
  return first;
}

/** Why a side waits for its unfinished row: another live process carries it out, or it is to be finished by its key. */
export function heldReason(entry: JournalEntry, holder: Holder | undefined) {
  return holder
    ? `${entry.command} in progress by another process (pid ${holder.pid} on ${safeText(holder.host)}, journal ${entry.id}): left alone until it resolves`
    : `the ${entry.command} of journal ${entry.id} is unresolved (${entry.outcome}): left alone until it is finished by its key`;
}

// ---- How rows and events read.

export function rowStatus(row: KeepRow, view: SideView | undefined, state: string, decision?: KeepDecision) {
  const next = decision?.kind === 'hold' ? decision : undefined;
  return {
    ...marketSide(row),
    ...(row.clientReference && { client_reference: row.clientReference }),
    target_usd: row.notionalUsd,
    current_usd: view?.position?.notionalUsd ?? null,
    // Null above is flat only when the side could be told: the alert rules must not read a settling
    // side, or a book that could not be read, as one that settled.
    ...((!view || view.settling) && { current_unknown: true as const }),
    state,
    next_action: next?.nextAction ?? null,
    next_action_at: next?.nextActionAtMs !== undefined ? utcIso(next.nextActionAtMs) : null,
  };
}

const idList = (...ids: Array<string | null | undefined>) => ids.filter((id): id is string => typeof id === 'string');

/** A roll's event from its outcome: the hedges old → new, the open leg's journal id (resume takes it), its key, the group; the hedge it closed is noted as this keeper's. */
function rollEvent(
  next: KeeperState,
  outcome: RollOutcome,
  base: { market: string; side: string; resumed?: boolean },
  oldHedgeId?: string,
): KeeperSaid {
  if (outcome.kind !== 'rolled') return { say: { event: 'roll', ...base, dry_run: true } };
  const { view } = outcome;
  if (view.close?.hedge_id) next.closedByKeeper.add(view.close.hedge_id);
  return {
    say: {
      event: 'roll',
      ...base,
      tenor_days: view.tenor_days,
      notional_usd: view.notional_usd,
      hedge_ids: idList(oldHedgeId ?? view.rolled_hedge_id ?? view.close?.hedge_id, view.open.hedge_id),
      journal_id: view.open.journal_id,
      journal_group: view.journal_group,
      idempotency_key: outcome.idempotencyKey ?? undefined,
      covered: outcome.covered,
      ...(outcome.notes.length && { messages: outcome.notes.map((note) => safeText(note)) }),
    },
  };
}
