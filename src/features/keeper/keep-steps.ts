// What a keeper cycle does on the server, through the flows every write uses (roll, re-open, converge),
// each decided again under the side's lock on a fresh read; events are built from their outcomes.
import type { HedgeClient, OpenRequest } from '../../platform/api/client.js';
import type { Hedge } from '../../platform/api/schemas.js';
import {
  decideRow,
  rowKey,
  type KeepDecision,
  type KeepEvent,
  type KeepRow,
  type SideView,
} from '../../core/keep-rules.js';
import { HedgeError, HeldError, UnresolvedError } from '../../core/errors.js';
import { isUnresolved, type JournalEntry } from '../../platform/journal/index.js';
import type { FlowPorts } from '../../platform/runtime/context.js';
import { safeText } from '../../core/security/safe-text.js';
import { withSideLock } from '../write/account-lock.js';
import type { Actionable, EventFields, KeeperSteps, SideReading } from '../../core/keep-rules.js';
import { expectationMet, type SideExpectation } from '../book/book.js';
import { SideViews, type SideBook } from '../book/side-book.js';
import { checkOpenAfterClose } from '../trade/pre-trade.js';
import { bodyOf } from '../../platform/journal/index.js';
import { finishJournaled } from '../trade/resume.js';
import { begunElsewhere, ownRowTest } from '../write/row-trust.js';
import { newGroup, resumeRollOutcome, ROLL_GROUP_PREFIX, runRoll } from '../trade/roll.js';
import type { RollOutcome } from '../../platform/results/roll-outcome-types.js';
import { changeAction, changeArgv, closeAction, closeArgv, openAction, openArgv } from '../trade/trade-actions.js';
import { runWrite, type WriteOptions } from '../write/write-flow.js';
import { sentBy, type Identity } from '../write/identity.js';
import { formatUsd } from '../../core/number-format.js';
import { ASSUMED_SKEW_MS, describeServerClock, formatSpan, type ServerTime } from '../../core/server-clock.js';

/** Every re-open or convergence of a keeper is journaled under a group starting with this. */
const KEEP_GROUP_PREFIX = 'keep-';
/** A server clock further than this from ours is said once (the keeper still acts on the server's: maturities are its). */
const SKEW_WORTH_SAYING_MS = 5 * 60_000;
const SEND_AND_WAIT: WriteOptions = { wait: true, dryRun: false, fresh: false };
/** The keeper's steps are confirmed by the keeper's own run (its target and --yes), never at a prompt. */
const QUIETLY = { confirmed: true } as const;
/** How long (server time) the keeper's own landed write may take to show in every view before it says it cannot tell (exit 12 for --once). */
const EXPECTATION_BOUND_MS = 10 * 60_000;

export interface StepDeps {
  dryRun: boolean;
  converge: boolean;
  toleranceUsd: number;
  event: (fields: EventFields) => KeepEvent;
  noteError: (error: unknown, fields: Omit<EventFields, 'event'>) => void;
  identity: Identity;
}

/** The keeper's steps on the server, each under `stepContext()` (its notices said to no one, its signal the keeper's). */
export function keeperSteps(
  stepContext: () => FlowPorts,
  deps: StepDeps,
): KeeperSteps & {
  finishUnfinished(busy: ReadonlySet<string>, rows: readonly KeepRow[]): Promise<Map<string, string>>;
} {
  const clockNotes = new Set<string>();
  const memory: KeeperMemory = {
    closedByKeeper: new Set(),
    byARoll: new Map(),
    expectations: new Map(),
    overdue: new Set(),
    settlingSince: new Map(),
    noteError: deps.noteError,
  };
  const say = (code: string, message: string) => {
    if (clockNotes.has(code)) return;
    clockNotes.add(code);
    deps.event({ event: 'notice', code, message });
  };
  const read = (ports: FlowPorts, rows: readonly KeepRow[]) => readSides(ports, rows, memory, say);
  // Counted from the server's time when the write landed (the bound is the server's, like maturities).
  const expect =
    (ports: Pick<FlowPorts, 'clock' | 'client'>): Expect =>
    (row, expectation) =>
      ports.client().then((client) => {
        memory.expectations.set(rowKey(row), {
          ...expectation,
          sinceMs: client.transport.serverNow().latestMs,
        });
        memory.overdue.delete(rowKey(row));
      });
  // What a roll is about to close is noted before it is sent: a roll whose open then fails leaves
  // the side flat, and that side is the keeper's to re-open, not a colleague's drift.
  const noteRoll = (outcome: RollOutcome | { closing?: string }) => {
    if ('closing' in outcome && outcome.closing) memory.closedByKeeper.add(outcome.closing);
    if ('kind' in outcome && outcome.kind === 'rolled' && outcome.closed?.hedgeId)
      memory.closedByKeeper.add(outcome.closed.hedgeId);
  };
  return {
    read: (rows) => read(stepContext(), rows),
    async act(row, first) {
      const ports = stepContext();
      if (deps.dryRun) return wouldAct(ports, row, first, deps);
      await withSideLock(ports, row.market, row.side, async () => {
        const fresh = await read(ports, [row]);
        const view = fresh.views.get(rowKey(row)) ?? {};
        const decision = decideRow(row, view, fresh.nowMs, deps);
        if (decision.kind === 'hold' || decision.kind === 'skip') return;
        if (decision.kind === 'drift' && !deps.converge && !decision.alsoRollDue) return;
        await act(ports, row, decision, view, deps, noteRoll, expect(ports));
      });
    },
    finishUnfinished: (busy, rows) => finishUnfinished(stepContext(), deps, busy, rows, noteRoll),
  };
}

/**
 * The book read fresh, each side from its hedge records and positions together, at the latest the
 * server's clock can read. A side whose views disagree or miss this keeper's own last write is settling.
 */
async function readSides(
  ports: FlowPorts,
  rows: readonly KeepRow[],
  memory: KeeperMemory,
  say: (what: string, message: string) => void,
): Promise<SideReading> {
  const client = await ports.client();
  const sideViews = await SideViews.read(client, (line) => ports.log(line));
  const hedges = sideViews.hedges;
  const time = client.transport.serverNow();
  const nowMs = time.latestMs;
  const views = new Map<string, SideView>();
  for (const row of rows) {
    const key = rowKey(row);
    const book = await sideViews.book(row.market, row.side, nowMs);
    const settling =
      book.state === 'settling'
        ? settlingTooLong(memory, key, book.why ?? 'its views disagree', nowMs)
        : unmetExpectation(memory, key, book, nowMs);
    if (book.state !== 'settling') {
      memory.settlingSince.delete(key);
      memory.overdue.delete(`settling ${key}`);
    }
    const ofSide = hedges.filter((hedge) => sameSide(hedge, row));
    // The soonest to mature of the side's hedges decides when the side is rolled.
    const soonest = book.filled.at(-1);
    const covered = book.state === 'in-step' && soonest !== undefined;
    const opening = book.opening[0];
    let closed = book.state === 'flat' && !opening ? closedOutside(ofSide[0], time, memory.closedByKeeper) : undefined;
    if (closed) {
      const rolled = memory.byARoll.get(closed.hedgeId) ?? (await closedByARoll(ports, closed.hedgeId));
      memory.byARoll.set(closed.hedgeId, rolled);
      if (rolled) closed = undefined;
    }
    views.set(key, {
      ...(covered
        ? { position: { notionalUsd: book.recordsUsd, hedgeId: soonest.id, maturityAtMs: soonest.maturityAtMs } }
        : {}),
      ...(opening && !covered ? { opening: { hedgeId: opening.id, status: opening.status } } : {}),
      ...(closed ? { closedOutside: closed } : {}),
      ...(settling ? { settling: { why: settling } } : {}),
    });
  }
  const reading = client.transport.serverClock.reading();
  if (time.assumed) {
    say(
      'server_time_unknown',
      `The server sends no Date header and no open of this keeper has been answered yet, so its clock is not known: maturities are taken as up to ${formatSpan(ASSUMED_SKEW_MS)} sooner than they may be (rolls come that much early) until an open's answer dates it.`,
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
  return { views, nowMs, serverTime: new Date(nowMs).toISOString() };
}

/** What the keeper remembers between its reads: its own closes, which hedges a roll closed, what its own writes must show. */
interface KeeperMemory {
  /** Hedges this keeper closed itself (a roll's close): a side flat after one of these is not a colleague's. */
  closedByKeeper: Set<string>;
  /** Hedge id → closed by a roll or keeper action, as the journal says (asked once per hedge). */
  byARoll: Map<string, boolean>;
  /** Per side: what this keeper's own last write must show in every view before the side is decided again. */
  expectations: Map<string, SideExpectation & { what: string }>;
  /** Sides whose expectation ran past its bound, said once each. */
  overdue: Set<string>;
  /** Per side: since when (server time) its views have disagreed, while they do. */
  settlingSince: Map<string, number>;
  noteError: StepDeps['noteError'];
}

/**
 * Why a settling side waits, said as an error once it has disagreed longer than
 * EXPECTATION_BOUND_MS of server time (cannot tell; exit 12 for --once): it still waits after that.
 */
function settlingTooLong(memory: KeeperMemory, key: string, why: string, nowMs: number): string {
  const since = memory.settlingSince.get(key) ?? nowMs;
  memory.settlingSince.set(key, since);
  if (nowMs - since > EXPECTATION_BOUND_MS) {
    const [market, side] = key.split(' ');
    cannotTellOnce(
      memory,
      `settling ${key}`,
      key,
      `The ${side} side of ${market} has been settling for ${Math.round((nowMs - since) / 1000)} s (server time): ${why}. What it holds cannot be told, so nothing is sent on it.`,
    );
  }
  return why;
}

/** The error a side past EXPECTATION_BOUND_MS gives (cannot tell), said once per side and cause. */
function cannotTellOnce(memory: KeeperMemory, overdueKey: string, key: string, message: string): void {
  if (memory.overdue.has(overdueKey)) return;
  memory.overdue.add(overdueKey);
  const [market, side] = key.split(' ');
  memory.noteError(
    new UnresolvedError(message, {
      hint: 'Compare `hedge positions` with `hedge hedges`; the keeper acts on the side again once both show the same book.',
    }),
    { market: market!, side: side! },
  );
}

/**
 * Why the side waits for this keeper's own last write to show in every view, or undefined once it
 * does (the expectation is then dropped). Past EXPECTATION_BOUND_MS of server time it is an error
 * (cannot tell, exit 12 for --once), said once, and the side still waits: never a new write.
 */
function unmetExpectation(memory: KeeperMemory, key: string, book: SideBook, nowMs: number): string | undefined {
  const expected = memory.expectations.get(key);
  if (!expected) return undefined;
  if (expectationMet(book, expected)) {
    memory.expectations.delete(key);
    memory.overdue.delete(key);
    return undefined;
  }
  const why = `this keeper's own ${expected.what} (${formatUsd(expected.notionalUsd)}) is not in every view yet`;
  if (nowMs - expected.sinceMs > EXPECTATION_BOUND_MS) {
    cannotTellOnce(
      memory,
      key,
      key,
      `${why} ${Math.round((nowMs - expected.sinceMs) / 1000)} s after it landed (server time): cannot tell what the side holds, so nothing more is sent on it.`,
    );
  }
  return why;
}

/** The side's newest hedge closed before maturity by someone else: a colleague's close, which wins. */
function closedOutside(
  newest: Hedge | undefined,
  time: ServerTime,
  closedByKeeper: ReadonlySet<string>,
): SideView['closedOutside'] {
  if (!newest || newest.status !== 'closed' || closedByKeeper.has(newest.id)) return undefined;
  const maturity = typeof newest.maturity_at === 'string' ? Date.parse(newest.maturity_at) : NaN;
  if (!(maturity > time.earliestMs)) return undefined;
  const closedAt = (newest as Record<string, unknown>).closed_at;
  const closedAtLocalMs = (typeof closedAt === 'string' ? Date.parse(closedAt) : NaN) - time.earliestMs + time.localMs;
  return { hedgeId: newest.id, ...(Number.isFinite(closedAtLocalMs) ? { closedAtLocalMs } : {}) };
}

/**
 * Whether the journal shows this hedge closed by a roll or a keeper's action (this keeper before a
 * restart, or a `hedge roll` whose open then failed): that side is to be covered again, not drift.
 */
async function closedByARoll(ports: Pick<FlowPorts, 'journal' | 'credentials'>, hedgeId: string): Promise<boolean> {
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

/** A roll's or a keeper action's journal group. */
const ofKeeper = (group: string | undefined): group is string =>
  group?.startsWith(ROLL_GROUP_PREFIX) === true || group?.startsWith(KEEP_GROUP_PREFIX) === true;

/** The side (`MARKET side`) a journal row acts on. */
const sideOf = (entry: JournalEntry) =>
  `${String(bodyOf(entry).market ?? '').toUpperCase()} ${String(bodyOf(entry).side ?? '')}`;

function sameSide(hedge: Hedge, row: KeepRow): boolean {
  return hedge.market.toUpperCase() === row.market && hedge.side === row.side;
}

type NoteRoll = (outcome: RollOutcome | { closing?: string }) => void;
/** Records what the keeper's own landed write must show in every view of the row's side. */
type Expect = (row: KeepRow, expectation: Omit<SideExpectation, 'sinceMs'> & { what: string }) => Promise<void>;

async function act(
  ports: FlowPorts,
  row: KeepRow,
  decision: Actionable,
  view: SideView,
  deps: StepDeps,
  noteRoll: NoteRoll,
  expect: Expect,
): Promise<void> {
  const { event } = deps;
  const base = { market: row.market, side: row.side };
  switch (decision.kind) {
    case 'drift': {
      if (decision.change === 'open') {
        if (deps.converge)
          await act(
            ports,
            row,
            {
              kind: 'reopen',
              notionalUsd: decision.targetUsd,
              ...(decision.tenorDays ? { tenorDays: decision.tenorDays } : {}),
            },
            view,
            deps,
            noteRoll,
            expect,
          );
        return;
      }
      if (deps.converge) {
        const entry = await converge(ports, row, decision);
        await expect(row, { what: decision.change, notionalUsd: decision.targetUsd });
        event({
          event: 'converge',
          ...base,
          notional_usd: decision.amountUsd,
          action: decision.change,
          journal_id: entry.id,
          idempotency_key: entry.idempotency_key,
          hedge_ids: entry.hedge_id ? [entry.hedge_id] : [],
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
          deps,
          noteRoll,
          expect,
        );
      }
      return;
    }
    case 'roll': {
      const tenorDays = decision.tenorDays ?? row.tenorDays!;
      noteRoll({ closing: decision.hedgeId });
      // The row's deal reference on every hedge it opens (the rolled hedge's own when the row names none).
      const outcome = await runRoll(ports, {
        market: row.market,
        side: row.side,
        tenorDays,
        skipChecks: false,
        write: SEND_AND_WAIT,
        bookLock: false,
        ...(row.clientReference ? { clientReference: row.clientReference } : {}),
      });
      noteRoll(outcome);
      if (outcome.kind === 'rolled') {
        const gone = [decision.hedgeId, outcome.closed?.hedgeId].filter((id): id is string => typeof id === 'string');
        await expect(row, {
          what: 'roll',
          notionalUsd: outcome.notionalUsd,
          ...(outcome.opened.hedgeId ? { present: [outcome.opened.hedgeId] } : {}),
          gone,
        });
      }
      event(rollEvent(outcome, base, decision.hedgeId));
      return;
    }
    case 'reopen': {
      const request = openRequest(row, decision.notionalUsd, decision.tenorDays);
      const client = await ports.client();
      const group = newGroup(KEEP_GROUP_PREFIX, ports);
      const result = await runWrite(
        ports,
        { ...openAction(ports, client, request, { argv: openArgv(request), group, leg: 'reopen' }), ...QUIETLY },
        SEND_AND_WAIT,
      );
      if (result.kind === 'dry-run') return;
      const hedge = result.kind === 'resolved' ? result.result : undefined;
      if (hedge?.status === 'failed')
        throw new HedgeError(`The re-opened hedge ${safeText(hedge.id)} failed on-chain; nothing was opened.`);
      await expect(row, {
        what: 're-open',
        notionalUsd: decision.notionalUsd,
        ...(result.entry.hedge_id ? { present: [result.entry.hedge_id] } : {}),
      });
      event({
        event: 'reopen',
        ...base,
        notional_usd: decision.notionalUsd,
        tenor_days: request.tenor_days,
        hedge_ids: result.entry.hedge_id ? [result.entry.hedge_id] : [],
        journal_id: result.entry.id,
        journal_group: group,
        idempotency_key: result.entry.idempotency_key,
      });
      return;
    }
  }
}

function openRequest(row: KeepRow, notionalUsd: number, tenorDays: KeepRow['tenorDays']): OpenRequest {
  return {
    market: row.market,
    side: row.side,
    notional_usd: notionalUsd,
    tenor_days: tenorDays ?? row.tenorDays!,
    ...(row.clientReference ? { client_reference: row.clientReference } : {}),
  };
}

/** A roll's event from its outcome: the hedges old → new, the open leg's journal id (resume takes it), its key, the group. */
function rollEvent(
  outcome: RollOutcome,
  base: { market: string; side: string; resumed?: boolean },
  oldHedgeId?: string,
): EventFields {
  if (outcome.kind !== 'rolled') return { event: 'roll', ...base, dry_run: true };
  const hedgeIds = [oldHedgeId ?? outcome.rolledHedgeId ?? outcome.closed?.hedgeId, outcome.opened.hedgeId].filter(
    (id): id is string => typeof id === 'string',
  );
  return {
    event: 'roll',
    ...base,
    tenor_days: outcome.tenorDays,
    notional_usd: outcome.notionalUsd,
    hedge_ids: hedgeIds,
    journal_id: outcome.opened.journalId ?? undefined,
    journal_group: outcome.group,
    idempotency_key: outcome.opened.idempotencyKey ?? undefined,
    covered: outcome.covered,
    ...(outcome.notes.length > 0 ? { messages: outcome.notes.map((note) => safeText(note.text)) } : {}),
  };
}

/**
 * --dry-run: what a real run would do, validated as it would be — the market listed and open, the
 * notional within the side's capacity and the account's exposure headroom (a roll's counted after
 * its close) — said with "would"; a refusal is the error event a real run would give.
 */
async function wouldAct(
  ports: Pick<FlowPorts, 'client'>,
  row: KeepRow,
  decision: Actionable,
  deps: StepDeps,
): Promise<void> {
  const base = { market: row.market, side: row.side, dry_run: true };
  const client = await ports.client();
  const check = (notionalUsd: number, freedUsd: number) =>
    checkOpenAfterClose(client, row.market, row.side, notionalUsd, freedUsd);
  switch (decision.kind) {
    case 'roll': {
      await check(decision.notionalUsd, decision.notionalUsd);
      const tenorDays = decision.tenorDays ?? row.tenorDays;
      deps.event({
        event: 'roll',
        ...base,
        notional_usd: decision.notionalUsd,
        hedge_ids: decision.hedgeId ? [decision.hedgeId] : [],
        maturity_at: new Date(decision.maturityAtMs).toISOString(),
        tenor_days: tenorDays,
        message: `would roll: close ${decision.hedgeId ?? 'the position'}, then open ${formatUsd(decision.notionalUsd)} for ${tenorDays} days`,
      });
      return;
    }
    case 'reopen': {
      await check(decision.notionalUsd, 0);
      const tenorDays = decision.tenorDays ?? row.tenorDays;
      deps.event({
        event: 'reopen',
        ...base,
        notional_usd: decision.notionalUsd,
        tenor_days: tenorDays,
        message: `would open ${formatUsd(decision.notionalUsd)} for ${tenorDays} days`,
      });
      return;
    }
    case 'drift': {
      if (!deps.converge) return;
      if (decision.change === 'open' || decision.change === 'add') await check(decision.amountUsd, 0);
      const what = decision.change === 'open' ? 're-open' : decision.change;
      deps.event({
        event: 'converge',
        ...base,
        notional_usd: decision.amountUsd,
        action: decision.change,
        message: `would ${what} ${formatUsd(decision.amountUsd)} to reach the target of ${formatUsd(decision.targetUsd)}`,
      });
      return;
    }
  }
}

/** --converge: one add, reduce or close through the write flow, journaled in a keep group. */
async function converge(
  ports: FlowPorts,
  row: KeepRow,
  decision: Extract<KeepDecision, { kind: 'drift' }>,
): Promise<JournalEntry> {
  const client = await ports.client();
  const group = newGroup(KEEP_GROUP_PREFIX, ports);
  const { market, side } = row;
  const change = decision.change;
  if (change === 'open') throw new HedgeError('A flat side is re-opened, not converged.');
  const request = { market, side, notional_usd: decision.amountUsd };
  const how = { group, leg: 'converge' };
  const result =
    change === 'close'
      ? await runWrite(
          ports,
          {
            ...closeAction(ports, client, { market, side }, { argv: closeArgv({ market, side }), ...how }),
            ...QUIETLY,
          },
          SEND_AND_WAIT,
        )
      : await runWrite(
          ports,
          {
            ...changeAction(ports, client, change, request, { argv: changeArgv(change, request), ...how }),
            ...QUIETLY,
          },
          SEND_AND_WAIT,
        );
  if (result.kind === 'dry-run') throw new HedgeError('Nothing was sent for the convergence.');
  return result.entry;
}

/** Only a keeper's own unresolved row (begun here, on a side of its target) is finished by it; the rest is a person's. */
function keepersOwn(entry: JournalEntry, rows: readonly KeepRow[]): boolean {
  return entry.via === 'keeper' && !begunElsewhere(entry) && rows.some((row) => rowKey(row) === sideOf(entry));
}

/**
 * Before every cycle: finishes this keeper's unresolved rolls and actions with their own keys, and
 * returns per side why it is left alone: a new action with a new key could double an unresolved one.
 */
async function finishUnfinished(
  ports: FlowPorts,
  deps: StepDeps,
  busy: ReadonlySet<string>,
  rows: readonly KeepRow[],
  noteRoll: NoteRoll,
): Promise<Map<string, string>> {
  const journal = await ports.journal();
  const pending = (await journal.list({ pending: true })).filter(
    (entry) => sentBy(deps.identity, entry) && !busy.has(sideOf(entry)) && keepersOwn(entry, rows),
  );
  const done = new Set<string>();
  for (const entry of [...pending].reverse()) {
    const group = entry.group;
    if (!ofKeeper(group) || done.has(group)) continue;
    done.add(group);
    const base = { market: String(bodyOf(entry).market ?? ''), side: String(bodyOf(entry).side ?? ''), resumed: true };
    try {
      if (group.startsWith(ROLL_GROUP_PREFIX)) {
        const outcome = await resumeRollOutcome(ports, entry, { wait: true });
        noteRoll(outcome);
        deps.event(rollEvent(outcome, base));
      } else if (isUnresolved(entry)) {
        const client: HedgeClient = await ports.client();
        const result = await finishJournaled(ports, client, entry, {
          wait: true,
          present: (action) => ({ ...action, ...QUIETLY }),
        });
        if (!result || result.kind === 'dry-run') continue;
        const kind = entry.leg === 'reopen' ? 'reopen' : 'converge';
        deps.event({
          event: kind,
          ...base,
          notional_usd: bodyOf(entry).notional_usd ?? bodyOf(entry).amount_usd,
          journal_id: result.entry.id,
          journal_group: group,
          idempotency_key: result.entry.idempotency_key,
          hedge_ids: result.entry.hedge_id ? [result.entry.hedge_id] : [],
        });
      }
    } catch (error) {
      // Another live process running it is not a failure of this keeper: the side just waits for it.
      if (!(error instanceof HeldError)) deps.noteError(error, { ...base, phase: 'resume', journal_id: entry.id });
    }
  }
  const still = new Map<string, string>();
  for (const entry of (await journal.list({ pending: true })).filter((candidate) => sentBy(deps.identity, candidate))) {
    const market = bodyOf(entry).market;
    const side = bodyOf(entry).side;
    if (typeof market !== 'string' || typeof side !== 'string') continue;
    const key = `${market.toUpperCase()} ${side}`;
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
}
