// The keeper's decisions as pure functions: what it remembers and what a read showed in; what to
// do (each row's step, its writes, as data), what to say and what it remembers next out. Nothing
// here reads, writes or waits: keep.ts does, and decides nothing.
import type { Hedge } from '../../platform/api/schemas.js';
import {
  DEFAULT_ROLL_BEFORE_MS,
  rowKey,
  tenorFor,
  type Actionable,
  type EventDetail,
  type EventFields,
  type KeepDecision,
  type KeepRow,
  type KeepRowStatus,
} from '../../core/keep-rules.js';
import { HedgeError, HeldError, UnresolvedError } from '../../core/errors.js';
import {
  bodyOf,
  isUnresolved,
  recordedUsd,
  sideOf,
  type Holder,
  type JournalEntry,
} from '../../platform/journal/index.js';
import type { RollOutcome } from '../trade/roll.js';
import { safeText } from '../../core/security/safe-text.js';
import { utcIso, utcMinute } from '../../core/utc-text.js';
import { formatSpan } from '../../core/duration.js';
import { formatUsd, plural } from '../../core/number-format.js';
import { ASSUMED_SKEW_MS, describeServerClock, type ClockReading, type ServerTime } from '../../core/server-clock.js';
import {
  changeVerdict,
  closedEarly,
  cutRead,
  expectedNotional,
  latestHereAt,
  latestOf,
  mayHaveMatured,
  recordStanding,
  sideHolds,
  soonestHeld,
  towardTarget,
  disagreement,
  type ExpectedChange,
  type HedgeRecord,
  type SideBook,
  notTheRows,
  offsetOf,
} from '../book/book.js';
import { adoptWords, otherHedgeWords } from '../../core/plan.js';
import { cutSide, hedgeRecord } from '../book/side-book.js';
import { begunElsewhere } from '../write/row-trust.js';
import type { WriteOutcome } from '../write/write-flow.js';
import { ROLL_GROUP_PREFIX } from '../write/write-run.js';

/** Every re-open or convergence of a keeper is journaled under a group starting with this. */
export const KEEP_GROUP_PREFIX = 'keep-';
/** A server clock further than this from ours is said once (the keeper still acts on the server's: maturities are its). */
const SKEW_WORTH_SAYING_MS = 5 * 60_000;
/** How long (server time) the keeper's own landed write may take to show in every view before it says it cannot tell (exit 12 for --once). */
const EXPECTATION_BOUND_MS = 10 * 60_000;
/** A failed step's side waits one interval, then twice as long after each failure in a row, at most this long… */
const BACKOFF_CAP_MS = 3_600_000;
/** …and a flat side's re-open at most this long (or one interval, when longer): the side is bare meanwhile, and a refused re-open costs only the pre-trade reads. */
const FLAT_SIDE_BACKOFF_CAP_MS = 5 * 60_000;

// ---- What goes in and out.

/** What the keeper remembers of one side (`MARKET side`) between cycles, and between a cycle and its steps. */
interface SideMemory {
  /** Its steps' failures in a row, and when it may try again. */
  failures: number;
  retryAtMs: number;
  /** What was last said of it (why it is held or skipped, its drift; `past` once its settling or its own write is past the bound): each said once while it stays so. */
  said: Partial<Record<'held' | 'skip' | 'drift' | 'settling' | 'expected', string>>;
  /** The change this keeper's own last write must show in every view before the side is decided again, said as `what`,
   * expected since `sinceMs` (server time). */
  expected?: ExpectedChange & { what: string; sinceMs: number };
  /** Since when (server time) its views have disagreed, while they do. */
  settlingSince?: number;
  /** Its hedges closed before their maturity: by this keeper or a roll (true: the side is the keeper's to cover again), or by someone else (false: drift). The journal is asked once per hedge. */
  closedByUs: Record<string, boolean>;
}

/** What the keeper remembers: a record per side, and the notices said once (by code). */
export const initialKeeperState = () => ({ sides: new Map<string, SideMemory>(), notices: new Set<string>() });
export type KeeperState = ReturnType<typeof initialKeeperState>;

/** A pure step: `work` changes a copy of the state and says what it says; the state it was handed stays as it was. */
function evolve<T extends object>(state: KeeperState, work: (next: KeeperState, events: KeeperSaid[]) => T) {
  const next = structuredClone(state);
  const events: KeeperSaid[] = [];
  return { ...work(next, events), state: next, events };
}

/** A row's market and side, as its events and status name them first. */
const marketSide = ({ market, side }: KeepRow) => ({ market, side });

const sideIn = (state: KeeperState, key: string) =>
  state.sides.get(key) ?? state.sides.set(key, { failures: 0, retryAtMs: 0, said: {}, closedByUs: {} }).get(key)!;

/** Whether what is said of the side changes to something (and it is remembered): each is said once while it stays so. */
const renewed = (memory: SideMemory, what: keyof SideMemory['said'], value?: string) =>
  memory.said[what] !== (memory.said[what] = value) && value !== undefined;

/** One side as a read showed it. */
export interface SideObservation {
  book: SideBook;
  /** The side's newest hedge, as the hedges list gives it. */
  newest?: Hedge;
  /** The journal's answer to `journalQuestion`: whether a roll or keeper action closed the newest hedge. */
  closedByRoll?: boolean;
}

/** The book as one read showed it: every row's side (in the rows' order; a target names each side once) and the server's time. */
export interface BookObservation {
  sides: readonly SideObservation[];
  time: ServerTime;
  clock: ClockReading;
  /** The server's time by which a write sent now has landed (book.ts whenLanded: one request's bound past the read). */
  landsByMs?: number;
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
  /** `--adopt REF|ID`: hedges on a row's side under another reference (or none) that are the row's all the same. */
  adopt?: readonly string[];
}

/** What is to be said: an event, or an error (an `error` event; a one-cycle run ends with its first's exit code). */
export type KeeperSaid = { say: EventFields } | { error: unknown; fields: EventDetail };

/** One write of a step: the side changed by `deltaUsd` from `beforeUsd` (what the model said it held) toward `targetUsd` (`converge`: a drift brought back), the plan step it is sent as; or a roll, whose notional and maturity are what a dry run says of it. */
export type KeeperWrite = { row: KeepRow; tenorDays?: KeepRow['tenorDays'] } & (
  | {
      kind: 'open' | 'add' | 'reduce' | 'close';
      deltaUsd: number;
      targetUsd: number;
      beforeUsd: number;
      converge?: true;
    }
  | { kind: 'roll'; hedgeId?: string; notionalUsd: number; maturityAtMs: number }
);

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
export function decide(
  state: KeeperState,
  { rows, book, inFlight, unresolved, stopping }: KeeperObservation,
  nowMs: number,
  settings: KeeperSettings,
) {
  return evolve(state, (next, events) => {
    const actions: KeeperStep[] = [];
    // Nothing is done on a book that could not be read: a side it cannot see is never opened.
    if ('error' in book) events.push({ error: book.error, fields: { phase: 'read' } });
    const read = 'error' in book ? undefined : book;
    const sides = read && readSides(next, read, rows, settings, events);
    const serverOffsetMs = read ? offsetOf(read.time) : 0;
    const statuses = rows.map((row, index) => {
      const key = rowKey(row);
      const seen = sides?.[index];
      const status = rowStatus(row, seen);
      const step = inFlight.get(key);
      if (step) status.state = `${step.kind} in flight (${formatSpan(nowMs - step.sinceMs)})`;
      if (step || !seen) return status;
      const { decision, closedOutside } = seen;
      const soonestId = soonestHeld(seen.book)?.id;
      const memory = sideIn(next, key);
      const base = marketSide(row);
      // An action of this side whose outcome is not known yet: nothing new is sent until it resolves.
      const held = unresolved.get(key);
      if (renewed(memory, 'held', held)) events.push({ say: { event: 'skip', ...base, reason: held } });
      if (held) return Object.assign(status, { state: held });
      const skip = decision.kind === 'skip' ? decision.reason : undefined;
      if (renewed(memory, 'skip', skip))
        events.push({ say: { event: 'skip', ...base, notional_usd: status.current_usd ?? undefined, reason: skip } });
      if (decision.kind === 'skip') return status;
      const drift = decision.kind === 'drift' ? decision : undefined;
      const signature = drift && `${drift.change}:${drift.currentUsd}→${drift.targetUsd}`;
      if ((renewed(memory, 'drift', signature) || (settings.converge && !settings.dryRun)) && drift) {
        const action = `${drift.change === 'open' ? 're-open' : drift.change} ${formatUsd(drift.amountUsd)}`;
        const closedBy = closedOutside ? `closed outside the keeper (${closedOutside.hedgeId}); ` : '';
        events.push({
          say: {
            event: 'drift',
            ...base,
            notional_usd: drift.currentUsd,
            target_usd: drift.targetUsd,
            change: drift.change,
            hedge_ids: idList(soonestId || closedOutside?.hedgeId),
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
      else if (stopping) status.state = 'stopping: not started';
      else if (nowMs < memory.retryAtMs)
        Object.assign(status, {
          state: `backing off after ${plural(memory.failures, 'failure')}`,
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
          hedgeIds: idList(soonestId || undefined),
          serverOffsetMs,
          ...(settings.dryRun && { writes: writesFor(row, decision, seen.book, settings, read!.time) }),
        });
      }
      return status;
    });
    return { actions, rows: statuses, serverTime: read && utcIso(latestOf(read.time)) };
  });
}

/** A row's status as its side was seen (none: the book could not be read). What the side's view alone decides: a row not
 * acted on this cycle (its step in flight, an action of it unresolved) still shows when a covered side's roll falls due,
 * since the alerts judge a side that settles before the next cycle as a missed roll by that time. */
function rowStatus(row: KeepRow, seen?: ReturnType<typeof readSides>[number]) {
  const hold = seen?.decision.kind === 'hold' ? seen.decision : undefined;
  const holds = seen && sideHolds(seen.book);
  return {
    ...marketSide(row),
    ...(row.clientReference && { client_reference: row.clientReference }),
    target_usd: row.notionalUsd,
    current_usd: holds?.holds === 'held' ? holds.notionalUsd : null,
    // Null above is flat only when the side could be told: the alert rules must not read a settling side, one with a
    // hedge still opening, one this keeper still waits on, or a book that could not be read, as one that settled.
    ...((!holds || seen.waiting !== undefined || (holds.holds !== 'flat' && holds.holds !== 'held')) && {
      current_unknown: true as const,
    }),
    ...(seen?.others.length && { not_this_rows: seen.others.map((record) => record.id) }),
    state: seen?.decision.reason ?? 'unknown (the book could not be read)',
    next_action: hold?.nextAction ?? null,
    next_action_at: hold?.nextActionAtMs !== undefined ? utcIso(hold.nextActionAtMs) : null,
  };
}

/** What a live keeper would do to each row on this read: the question before it starts. */
export function preview(state: KeeperState, book: BookObservation, rows: readonly KeepRow[], settings: KeeperSettings) {
  return evolve(state, (next, events) => {
    const sides = readSides(next, book, rows, settings, events);
    return {
      lines: rows.map(
        (row, index) => `${row.market} ${row.side} ${formatUsd(row.notionalUsd)}: ${sides[index].decision.reason}`,
      ),
    };
  });
}

/** A new target (SIGHUP): what was remembered about drift is the old target's. */
export const forgetDrift = (state: KeeperState) =>
  evolve(state, (next) => {
    for (const memory of next.sides.values()) memory.said.drift = undefined;
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
    const memory = sideIn(next, step.key);
    const { kind } = step;
    memory.failures = failure ? memory.failures + 1 : 0;
    const capMs = kind === 'reopen' ? Math.max(settings.intervalMs, FLAT_SIDE_BACKOFF_CAP_MS) : BACKOFF_CAP_MS;
    memory.retryAtMs = failure ? nowMs + Math.min(capMs, settings.intervalMs * 2 ** (memory.failures - 1)) : 0;
    // A roll that failed may have closed nothing (its close refused): whose close it was is the journal's to say again.
    if (failure) {
      memory.closedByUs = {};
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
    }
    const dry = settings.dryRun;
    return {
      statusText: failure
        ? `${kind} ${dry ? 'would be refused' : 'failed; retrying'}`
        : dry
          ? `would ${kind}`
          : `${kind} done`,
    };
  });
}

// ---- Each side as the model says it, what this keeper waits for on it (its own write not shown yet, a colleague's close), and what is done to its row.

/** The side's newest hedge, as the hedges list gives it, when the side model has it closed before its maturity. */
const closedEarlyOf = ({ book, newest }: SideObservation, time: ServerTime) =>
  newest && closedEarly(book, hedgeRecord(newest), time.bestMs);

/** The hedge the journal is to be asked about (closed by a roll or keeper action?): the side's newest, closed early, once per hedge. */
export function journalQuestion(state: KeeperState, key: string, side: SideObservation, time: ServerTime) {
  const closed = closedEarlyOf(side, time);
  return closed && state.sides.get(key)?.closedByUs[closed.id] === undefined ? closed.id : undefined;
}

/** Each row's side as the model says it, what this keeper waits for on it and what is decided of it (rolls timed at the
 * latest the server's clock can read); what the read teaches each side's memory, and the notices it calls for. */
function readSides(
  next: KeeperState,
  book: BookObservation,
  rows: readonly KeepRow[],
  settings: KeeperSettings,
  events: KeeperSaid[],
) {
  const { time, clock } = book;
  const sides = rows.map((row, index) => {
    const observed = book.sides[index];
    const memory = sideIn(next, rowKey(row));
    const waiting = waitingOn(memory, row, observed.book, latestOf(time), events);
    const closedOutside = closedOutsideOf(memory, observed, time);
    const others = notTheRows(observed.book, row.clientReference, settings.adopt);
    const decision = decideRow(
      row,
      observed.book,
      time,
      { ...settings, landsByMs: book.landsByMs },
      { waiting, closedOutside, others },
    );
    return { book: observed.book, waiting, closedOutside, decision, others };
  });
  const notice = (code: string, message: string) =>
    !next.notices.has(code) && next.notices.add(code) && events.push({ say: { event: 'notice', code, message } });
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
  const offsetMs = offsetOf(time);
  if (Math.abs(offsetMs) > SKEW_WORTH_SAYING_MS)
    notice(
      'clock_skew',
      `The server's clock is ${formatSpan(Math.abs(offsetMs))} ${offsetMs > 0 ? 'ahead of' : 'behind'} this machine's: maturities are compared with the server's.`,
    );
  return sides;
}

/** Why this keeper waits on a side whose views agree: its own last write not in every view yet. How long the side has
 * settled or waited is remembered; past the bound, said once that what it holds cannot be told. */
function waitingOn(memory: SideMemory, row: KeepRow, side: SideBook, nowMs: number, events: KeeperSaid[]) {
  /** Said once per cause past EXPECTATION_BOUND_MS since `sinceMs`: cannot tell (the side still waits after that). */
  const cannotTell = (what: 'settling' | 'expected', sinceMs: number, said: (waited: string) => string | Error) => {
    if (nowMs - sinceMs <= EXPECTATION_BOUND_MS || !renewed(memory, what, 'past')) return;
    const error = said(formatSpan(nowMs - sinceMs));
    const hint =
      'Compare `hedge positions` with `hedge hedges`; the keeper acts on the side again once both show the same book.';
    events.push({
      error: typeof error === 'string' ? new UnresolvedError(error, { hint }) : error,
      fields: marketSide(row),
    });
  };
  const { expected } = memory;
  const settling = disagreement(sideHolds(side));
  if (settling !== undefined) {
    const since = (memory.settlingSince ??= nowMs);
    // Records that may be cut stay so however long it waits (a history that may be cut, past the bound: a view that
    // trails may still bring the side into step): said at once with what to set, and held; never read as a side short
    // of its target.
    const cut = cutRead(side);
    cannotTell('settling', cut === 'records' ? -Infinity : since, (waited) =>
      cut
        ? cutSide(row, side, true)
        : `The ${row.side} side of ${row.market} has been settling for ${waited} (server time): ${settling}. What it holds cannot be told, so nothing is sent on it.`,
    );
    return undefined;
  }
  memory.settlingSince = memory.said.settling = undefined;
  // Once its own last write shows in every view, the expectation is dropped. A hedge of its own that failed will never
  // show: the side is the book's to say again too.
  if (!expected) return undefined;
  if (['landed', 'failed'].includes(changeVerdict(side, expected).verdict)) {
    memory.expected = memory.said.expected = undefined;
    return undefined;
  }
  const waiting = `this keeper's own ${expected.what} is not in every view yet`;
  cannotTell(
    'expected',
    expected.sinceMs,
    (waited) =>
      `${waiting} ${waited} after it landed (server time): cannot tell what the side holds, so nothing more is sent on it.`,
  );
  return waiting;
}

/** The side's newest hedge closed early by someone other than this keeper or a roll (the journal asked once per hedge),
 * and the latest this machine's clock can have read then. */
function closedOutsideOf(memory: SideMemory, observed: SideObservation, time: ServerTime) {
  const closed = closedEarlyOf(observed, time);
  if (!closed || (memory.closedByUs[closed.id] ??= observed.closedByRoll ?? false)) return undefined;
  return { hedgeId: closed.id, closedAtLocalMs: latestHereAt(closed.closedAtMs ?? NaN, time) };
}

/** What is done to a row this cycle, from what the side model says its side holds, judged on the server's clock as the
 * model times a maturity (`now`: its reading, or an instant known exactly; a write sent now lands by `landsByMs`):
 * nothing while its views disagree or this keeper waits on it (`waiting`), nor on a side holding hedges that are not
 * the row's (`others`) or a hedge still being opened; a flat side re-opened, or left as drift when someone else closed
 * it (`closedOutside`, the latest this machine's clock can have read then) before the target last said the row; a held
 * one's drift past the tolerance, or its roll when due. */
export function decideRow(
  row: KeepRow,
  book: SideBook,
  now: ServerTime | number,
  rules: { toleranceUsd: number; landsByMs?: number },
  keeper: {
    waiting?: string;
    closedOutside?: { hedgeId: string; closedAtLocalMs?: number };
    others?: readonly HedgeRecord[];
  } = {},
): KeepDecision {
  const { notionalUsd: targetUsd, untilMs, statedAtMs, rollBeforeMs = DEFAULT_ROLL_BEFORE_MS } = row;
  const { waiting, closedOutside: closed, others = [] } = keeper;
  const holds = sideHolds(book);
  const settling = waiting ?? disagreement(holds);
  if (settling !== undefined) return { kind: 'hold', reason: `settling: ${settling}; waiting for every view to agree` };
  // A side holding hedges that are not the row's is never closed, reduced or counted as drift: the user adopts them.
  if (others.length)
    return {
      kind: 'skip',
      reason: `not this row's: the side holds ${safeText(others.map(otherHedgeWords).join(', '))}; ${adoptWords(others)
        .map((word) => `--adopt ${safeText(word)}`)
        .join(' ')} makes ${others.length === 1 ? 'it' : 'them'} the row's`,
    };
  // A side whose views agree may still be opening a hedge: said by its status, and waited on all the same.
  if (holds.opening)
    return { kind: 'hold', reason: `${holds.opening.id} is ${holds.opening.status}; waiting for it to resolve` };
  if (holds.holds !== 'held') {
    if (targetUsd === 0) return { kind: 'hold', reason: 'flat, as the target says' };
    // The exposure's end, by the latest the server's clock may read.
    if (untilMs !== undefined && mayHaveMatured(untilMs, now))
      return { kind: 'skip', reason: `the exposure ended (until ${iso(untilMs)}): the side is not re-opened` };
    // (A time not known, undefined or NaN, compares false: a close the target cannot be shown to postdate is drift.)
    if (closed && !(statedAtMs! > closed.closedAtLocalMs!))
      return {
        kind: 'drift',
        currentUsd: 0,
        targetUsd,
        change: 'open',
        amountUsd: targetUsd,
        alsoRollDue: false,
        reason: 'flat: closed outside the keeper (drift)',
      };
    return { kind: 'reopen', notionalUsd: targetUsd, reason: 'flat: re-open' };
  }
  const current = holds.notionalUsd;
  // The soonest to mature of the side's hedges decides when the side is rolled.
  const maturity = soonestHeld(book)!.maturityAtMs;
  // A side is renewed only while the target holds something and the exposure outlasts this hedge.
  const untilBlocks = untilMs !== undefined && maturity !== undefined && untilMs <= maturity;
  // A roll's close that may land after the maturity (by `landsByMs`) would take a settling hedge: it is left to settle.
  const late = rules.landsByMs !== undefined && mayHaveMatured(maturity, rules.landsByMs);
  // Due once the hedge may mature within roll_before, as the model judges a maturity against the server's time.
  const due = maturity !== undefined && mayHaveMatured(maturity, now, rollBeforeMs);
  const rollDue = due && targetUsd > 0 && !untilBlocks && !late;
  const drift = towardTarget(book, targetUsd, row.toleranceUsd ?? rules.toleranceUsd);
  if (drift)
    return {
      kind: 'drift',
      ...drift,
      targetUsd,
      alsoRollDue: rollDue,
      reason: `drifted to ${formatUsd(current)} (target ${formatUsd(targetUsd)})`,
    };
  if (maturity === undefined) return { kind: 'hold', reason: 'covered; the server shows no maturity to roll at' };
  if (untilBlocks && due)
    return {
      kind: 'skip',
      reason: `the exposure ends (until ${iso(untilMs!)}) by this hedge's maturity (${iso(maturity)}): left to mature, not renewed`,
    };
  if (untilBlocks) return { kind: 'hold', reason: `covered until its maturity; not renewed (until ${iso(untilMs!)})` };
  if (rollBeforeMs === 0)
    return { kind: 'hold', reason: 'covered; settles at its maturity (roll_before 0), then re-opened' };
  // Said once (a skip event) and shown, with why: a roll was due and could not be sent in time.
  if (late && targetUsd > 0)
    return {
      kind: 'skip',
      reason: `covered; matures ${iso(maturity)}, before a roll's close could land (within --request-timeout): left to settle, and re-opened once it has`,
    };
  if (!rollDue) return { kind: 'hold', reason: 'covered', nextAction: 'roll', nextActionAtMs: maturity - rollBeforeMs };
  return { kind: 'roll', notionalUsd: current, reason: `roll due (matures ${iso(maturity)})` };
}

const iso = (ms: number) => `${utcMinute(ms)} UTC`;

// ---- A step's writes (planned again under the side's lock), what a dry run says of them, and what each one's outcome changes and says.

/** A live step's writes, decided again on a fresh read of its side under the side's lock: none when the side no longer needs them. */
export function plan(state: KeeperState, book: BookObservation, row: KeepRow, settings: KeeperSettings) {
  return evolve(state, (next, events) => {
    const [{ book: side, decision }] = readSides(next, book, [row], settings, events);
    return { writes: writesFor(row, decision, side, settings, book.time) };
  });
}

/** What a decision sends on the side: a roll, a re-open, or a drift brought back (--converge only, a colleague's close too) with the roll due beside it. */
function writesFor(
  row: KeepRow,
  decision: KeepDecision,
  side: SideBook,
  settings: KeeperSettings,
  now: ServerTime,
): KeeperWrite[] {
  // The tenor a new hedge of the row gets, as the decision took it (an add, reduce or close sends none).
  const tenorDays = tenorFor(row, latestOf(now));
  // A roll of the side's soonest hedge at its maturity: the one due, or one due beside a drift (never a flat side's).
  const { id: hedgeId, maturityAtMs } = soonestHeld(side) ?? {};
  const roll = (notionalUsd: number): KeeperWrite[] =>
    maturityAtMs === undefined ? [] : [{ kind: 'roll', row, hedgeId, tenorDays, notionalUsd, maturityAtMs }];
  if (decision.kind === 'roll') return roll(decision.notionalUsd);
  if (decision.kind === 'reopen')
    return [
      { kind: 'open', row, deltaUsd: decision.notionalUsd, targetUsd: decision.notionalUsd, beforeUsd: 0, tenorDays },
    ];
  if (decision.kind !== 'drift') return [];
  const { change, amountUsd, targetUsd, currentUsd } = decision;
  const writes: KeeperWrite[] = settings.converge
    ? [{ kind: change, row, deltaUsd: amountUsd, targetUsd, beforeUsd: currentUsd, tenorDays, converge: true }]
    : [];
  // A roll due as well follows: of the notional the side holds once converged (or left alone).
  return decision.alsoRollDue ? [...writes, ...roll(settings.converge ? targetUsd : currentUsd)] : writes;
}

/** --dry-run: what a write would do, said with "would", and the pre-trade checks a real open passes on it (`check`: an open's or add's room, a roll's open after the close that frees as much). */
export function wouldSay(write: KeeperWrite) {
  const base = { ...marketSide(write.row), dry_run: true };
  if (write.kind === 'roll') {
    const { notionalUsd, hedgeId, tenorDays } = write;
    return {
      check: { notionalUsd, freedUsd: notionalUsd },
      say: {
        event: 'roll',
        ...base,
        notional_usd: notionalUsd,
        hedge_ids: idList(hedgeId || undefined),
        maturity_at: utcIso(write.maturityAtMs),
        tenor_days: tenorDays,
        message: `would roll: close ${hedgeId ?? 'the position'}, then open ${formatUsd(notionalUsd)} for ${tenorDays} days`,
      },
    };
  }
  const { kind, deltaUsd, tenorDays, converge } = write;
  const amount = formatUsd(deltaUsd);
  return {
    // Only an open or add needs room.
    ...((kind === 'open' || kind === 'add') && { check: { notionalUsd: deltaUsd, freedUsd: 0 } }),
    say: {
      event: converge ? 'converge' : 'reopen',
      ...base,
      notional_usd: deltaUsd,
      ...(converge
        ? {
            action: kind,
            message: `would ${kind === 'open' ? 're-open' : kind} ${amount} to reach the target of ${formatUsd(write.targetUsd)}`,
          }
        : { tenor_days: tenorDays, message: `would open ${amount} for ${tenorDays} days` }),
    },
  };
}

/** How a write of the keeper came back: the run through the write flow (a re-open or convergence, journaled in its keep group), or the roll's outcome. */
export type WriteDone =
  { kind: 'sent'; result: WriteOutcome<unknown, unknown>; group: string } | { kind: 'rolled'; outcome: RollOutcome };

/** What a landed write makes the side wait for (counted from the server's time then: `now`, its reading or an instant), what it says, and a failure to raise. */
export function wrote(state: KeeperState, write: KeeperWrite, done: WriteDone, now: ServerTime | number) {
  return evolve(state, (next, events): { failure?: Error } => {
    const base = marketSide(write.row);
    const memory = sideIn(next, rowKey(write.row));
    const expect = (what: string, change: ExpectedChange) => {
      memory.expected = { ...change, what: `${what} (${formatUsd(expectedNotional(change))})`, sinceMs: latestOf(now) };
      memory.said.expected = undefined;
    };
    if (done.kind === 'rolled') {
      const { outcome } = done;
      const rolledId = write.kind === 'roll' ? write.hedgeId : undefined;
      events.push(rollEvent(outcome, base, rolledId));
      // A roll's open leg opens its hedge on the side its close leg left flat, and its closed hedges are gone.
      if (outcome.kind === 'rolled') {
        const { view } = outcome;
        expect('roll', {
          kind: 'open',
          before: 0,
          changeUsd: view.notional_usd,
          hedgeId: view.open.hedge_id ?? undefined,
          gone: idList(rolledId, view.close?.hedge_id),
        });
      }
      return {};
    }
    const { result, group } = done;
    if (result.kind === 'dry-run')
      return write.kind === 'open' ? {} : { failure: new HedgeError('Nothing was sent for the convergence.') };
    // A roll comes back rolled, never sent.
    if (write.kind === 'roll') return {};
    const hedge = result.kind === 'resolved' ? (result.result as Hedge | undefined) : undefined;
    const { kind, deltaUsd: changeUsd, beforeUsd, tenorDays } = write;
    const reopen = kind === 'open';
    if (reopen && hedge && 'failed' in recordStanding(hedge))
      return {
        failure: new HedgeError(`The re-opened hedge ${safeText(hedge.id)} failed on-chain; nothing was opened.`),
      };
    const said = sentEvent(
      base,
      reopen,
      result.entry,
      changeUsd,
      reopen ? { tenor_days: tenorDays, journal_group: group } : { action: kind },
    );
    expect(reopen ? 're-open' : kind, {
      kind,
      before: beforeUsd,
      changeUsd,
      hedgeId: reopen ? said.say.hedge_ids[0] : undefined,
    });
    events.push(said);
    return {};
  });
}

/** A re-open's or convergence's event, from the journal row that sent it. */
const sentEvent = (
  base: EventDetail,
  reopen: boolean,
  row: JournalEntry,
  notionalUsd: number | undefined,
  { action, tenor_days, journal_group }: EventDetail,
) => {
  const hedgeIds = idList(row.hedge_id || undefined);
  // The fields in the order the events have always had (a re-open sent now names its hedge before its journal row).
  return {
    say: {
      event: reopen ? ('reopen' as const) : ('converge' as const),
      ...base,
      notional_usd: notionalUsd,
      ...(action !== undefined && { action }),
      ...(tenor_days !== undefined && { tenor_days, hedge_ids: hedgeIds }),
      journal_id: row.id,
      ...(journal_group !== undefined && { journal_group }),
      idempotency_key: row.idempotency_key,
      hedge_ids: hedgeIds,
    },
  };
};

// ---- This keeper's own unfinished journal rows: finished with their keys, or the side left alone.

/** A roll's or a keeper action's journal group. */
export const ofKeeper = (group: string | undefined): group is string =>
  group?.startsWith(ROLL_GROUP_PREFIX) === true || group?.startsWith(KEEP_GROUP_PREFIX) === true;

/** Which of this account's unfinished rows (`ours`, oldest last) the keeper finishes: its own (via keeper, begun on this machine) of the target's sides with no step in flight, one per group; a roll by its roll. */
export function toResume(ours: readonly JournalEntry[], busy: ReadonlySet<string>, rows: readonly KeepRow[]) {
  const groups = new Set<string>();
  return ours
    .filter((entry) => {
      const side = sideOf(entry);
      return (
        side !== undefined &&
        !busy.has(side) &&
        entry.via === 'keeper' &&
        !begunElsewhere(entry) &&
        rows.some((row) => rowKey(row) === side)
      );
    })
    .reverse()
    .flatMap((entry) => {
      const { group } = entry;
      if (!ofKeeper(group) || groups.has(group)) return [];
      groups.add(group);
      const how = group.startsWith(ROLL_GROUP_PREFIX) ? 'roll' : isUnresolved(entry) ? 'write' : undefined;
      return how ? [{ entry, group, how }] : [];
    });
}

/** What a finished row says; a failure is said unless another live process holds the row: the side just waits for it. */
export function resumed(
  { entry, group }: { entry: JournalEntry; group: string },
  done: WriteDone | { kind: 'failed'; error: unknown },
): KeeperSaid | undefined {
  const body = bodyOf(entry);
  const base = { market: String(body.market ?? ''), side: String(body.side ?? ''), resumed: true };
  if (done.kind === 'failed')
    return done.error instanceof HeldError
      ? undefined
      : { error: done.error, fields: { ...base, phase: 'resume', journal_id: entry.id } };
  if (done.kind === 'rolled') return rollEvent(done.outcome, base);
  if (done.result.kind !== 'dry-run')
    return sentEvent(base, entry.leg === 'reopen', done.result.entry, recordedUsd(body), { journal_group: group });
}

/** The first of this account's unfinished rows on each side with no step in flight: the side is left alone until it resolves (a new key could double it). */
export function unresolvedSides(ours: readonly JournalEntry[], busy: ReadonlySet<string>) {
  const first = new Map<string, JournalEntry>();
  for (const entry of ours) {
    const key = sideOf(entry);
    if (key !== undefined && !first.has(key) && !busy.has(key)) first.set(key, entry);
  }
  return first;
}

/** Why a side waits for its unfinished row: another live process carries it out, or it is to be finished by its key. */
export function heldReason(entry: JournalEntry, holder: Holder | undefined) {
  return holder
    ? `${entry.command} in progress by another process (pid ${holder.pid} on ${safeText(holder.host)}, journal ${entry.id}): left alone until it resolves`
    : `the ${entry.command} of journal ${entry.id} is unresolved (${entry.outcome}): left alone until it is finished by its key`;
}

// ---- How events read.

const idList = (...ids: Array<string | null | undefined>) => ids.filter((id): id is string => typeof id === 'string');

/** A roll's event from its outcome: the hedges old → new, the open leg's journal id (resume takes it), its key, the group. */
function rollEvent(outcome: RollOutcome, base: EventDetail, oldHedgeId?: string) {
  if (outcome.kind !== 'rolled') return { say: { event: 'roll', ...base, dry_run: true } };
  const { view } = outcome;
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
      ...(outcome.notes.length && { messages: outcome.notes.map(safeText) }),
    },
  };
}
