// What a keeper cycle does on the server, through the flows every write uses (roll, re-open, converge),
// each decided again under the side's lock on a fresh read; events are built from their outcomes.
import type { Hedge } from '../../platform/api/schemas.js';
import {
  decideRow,
  rowKey,
  type Actionable,
  type EventFields,
  type KeepEvent,
  type KeepRow,
  type KeeperSteps,
  type SideReading,
  type SideView,
} from '../../core/keep-rules.js';
import { HedgeError, HeldError, UnresolvedError } from '../../core/errors.js';
import { bodyOf, isUnresolved, type JournalEntry } from '../../platform/journal/index.js';
import type { FlowPorts } from '../../platform/runtime/context.js';
import type { PlanStep } from '../../core/plan.js';
import { safeText } from '../../core/security/safe-text.js';
import { withSideLock } from '../write/account-lock.js';
import { expectationMet, type SideExpectation } from '../book/book.js';
import { SideViews, type SideBook } from '../book/side-book.js';
import { checkOpenAfterClose } from '../trade/pre-trade.js';
import { finishJournaled } from '../trade/resume.js';
import { begunElsewhere, ownRowTest } from '../write/row-trust.js';
import { newGroup, resumeRollOutcome, ROLL_GROUP_PREFIX, runRoll } from '../trade/roll.js';
import type { RollOutcome } from '../../platform/results/roll-outcome-types.js';
import { stepAction } from '../trade/trade-actions.js';
import { runWrite, type WriteOptions } from '../write/write-flow.js';
import { sentBy, type Identity } from '../write/identity.js';
import { formatUsd } from '../../core/number-format.js';
import { ASSUMED_SKEW_MS, describeServerClock, formatSpan, type ServerTime } from '../../core/server-clock.js';

/** Every re-open or convergence of a keeper is journaled under a group starting with this. */
const KEEP_GROUP_PREFIX = 'keep-';
/** A server clock further than this from ours is said once (the keeper still acts on the server's: maturities are its). */
const SKEW_WORTH_SAYING_MS = 5 * 60_000;
const SEND_AND_WAIT: WriteOptions = { wait: true, dryRun: false, fresh: false };
/** How long (server time) the keeper's own landed write may take to show in every view before it says it cannot tell (exit 12 for --once). */
const EXPECTATION_BOUND_MS = 10 * 60_000;

interface StepDeps {
  dryRun: boolean;
  converge: boolean;
  toleranceUsd: number;
  event: (fields: EventFields) => KeepEvent;
  noteError: (error: unknown, fields: Omit<EventFields, 'event'>) => void;
  identity: Identity;
}

/** A roll's or a keeper action's journal group. */
const ofKeeper = (group: string | undefined): group is string =>
  group?.startsWith(ROLL_GROUP_PREFIX) === true || group?.startsWith(KEEP_GROUP_PREFIX) === true;

/** The side (`MARKET side`) a journal row acts on. */
const sideOf = (entry: JournalEntry) =>
  `${String(bodyOf(entry).market ?? '').toUpperCase()} ${String(bodyOf(entry).side ?? '')}`;

const idList = (...ids: Array<string | null | undefined>) => ids.filter((id): id is string => typeof id === 'string');

/**
 * The keeper's steps on the server, each under `stepContext()` (its notices said to no one, its
 * signal the keeper's). Steps are confirmed by the keeper's own run (its target and --yes), never at a prompt.
 */
export function keeperSteps(
  stepContext: () => FlowPorts,
  deps: StepDeps,
): KeeperSteps & {
  finishUnfinished(busy: ReadonlySet<string>, rows: readonly KeepRow[]): Promise<Map<string, string>>;
} {
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

  /**
   * Why the side waits for this keeper's own last write to show in every view, or undefined once it
   * does (the expectation is then dropped).
   */
  const unmetExpectation = (row: KeepRow, key: string, book: SideBook, nowMs: number) => {
    const expected = expectations.get(key);
    if (!expected) return undefined;
    if (expectationMet(book, expected)) {
      expectations.delete(key);
      said.delete(key);
      return undefined;
    }
    const why = `this keeper's own ${expected.what} (${formatUsd(expected.notionalUsd)}) is not in every view yet`;
    if (nowMs - expected.sinceMs > EXPECTATION_BOUND_MS)
      cannotTell(
        key,
        row,
        `${why} ${Math.round((nowMs - expected.sinceMs) / 1000)} s after it landed (server time): cannot tell what the side holds, so nothing more is sent on it.`,
      );
    return why;
  };

  /**
   * The book read fresh, each side from its hedge records and positions together, at the latest the
   * server's clock can read. A side whose views disagree or miss this keeper's own last write is settling.
   */
  const read = async (ports: FlowPorts, rows: readonly KeepRow[]): Promise<SideReading> => {
    const client = await ports.client();
    const sideViews = await SideViews.read(client, (line) => ports.log(line));
    const time = client.transport.serverNow();
    const nowMs = time.latestMs;
    const views = new Map<string, SideView>();
    for (const row of rows) {
      const key = rowKey(row);
      const book = await sideViews.book(row.market, row.side, nowMs);
      const settling =
        book.state === 'settling' ? (book.why ?? 'its views disagree') : unmetExpectation(row, key, book, nowMs);
      if (book.state === 'settling') {
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
      }
      // The soonest to mature of the side's hedges decides when the side is rolled.
      const soonest = book.filled.at(-1);
      const covered = book.state === 'in-step' && soonest !== undefined;
      const opening = book.opening[0];
      let closed =
        book.state === 'flat' && !opening
          ? closedOutside(
              sideViews.hedges.find((hedge) => hedge.market.toUpperCase() === row.market && hedge.side === row.side),
              time,
              closedByKeeper,
            )
          : undefined;
      if (closed) {
        const rolled = byARoll.get(closed.hedgeId) ?? (await closedByARoll(ports, closed.hedgeId));
        byARoll.set(closed.hedgeId, rolled);
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

  const act = async (ports: FlowPorts, row: KeepRow, decision: Actionable, view: SideView): Promise<void> => {
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
        ...(hedgeIds.length > 0 ? { present: hedgeIds } : {}),
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

  /**
   * --dry-run: what a real run would do, validated as it would be — the market listed and open, the
   * notional within the side's capacity and the account's exposure headroom (a roll's counted after
   * its close) — said with "would"; a refusal is the error event a real run would give.
   */
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
        maturity_at: new Date(decision.maturityAtMs).toISOString(),
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
    read: (rows) => read(stepContext(), rows),
    async act(row, first) {
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
    /**
     * Before every cycle: finishes this keeper's unresolved rolls and actions with their own keys, and
     * returns per side why it is left alone: a new action with a new key could double an unresolved one.
     * Only a keeper's own unresolved row (begun here, on a side of its target) is finished by it; the rest is a person's.
     */
    async finishUnfinished(busy, rows) {
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
        const base = {
          market: String(bodyOf(entry).market ?? ''),
          side: String(bodyOf(entry).side ?? ''),
          resumed: true,
        };
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
              notional_usd: bodyOf(entry).notional_usd ?? bodyOf(entry).amount_usd,
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

/** A roll's event from its outcome: the hedges old → new, the open leg's journal id (resume takes it), its key, the group. */
function rollEvent(
  outcome: RollOutcome,
  base: { market: string; side: string; resumed?: boolean },
  oldHedgeId?: string,
): EventFields {
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
    ...(outcome.notes.length > 0 ? { messages: outcome.notes.map((note) => safeText(note.text)) } : {}),
  };
}
