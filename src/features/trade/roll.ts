// `hedge roll MARKET SIDE --tenor D`: keeps a side covered past its maturity — close the open hedge, then open
// the same notional for the new tenor (or, when the side has already settled, open it anew with the notional of
// the hedge that ended). A plan of two steps, carried out (and finished from the journal) by the plan executor.
import { randomBytes } from 'node:crypto';
import {
  bodyOf,
  describeHolder,
  hasLanded,
  type JournalEntry,
  type ListOptions,
} from '../../platform/journal/index.js';
import type { HedgeClient, OpenRequest } from '../../platform/api/client.js';
import { formatMoney, formatRate, formatUsd, readNumber } from '../../core/number-format.js';
import type { Hedge, OpenedHedge, Quote, SubmittedAction } from '../../platform/api/schemas.js';
import { sameReference } from '../../core/input.js';
import type { Side, Tenor } from '../../core/vocabulary.js';
import {
  ApiError,
  HeldError,
  InvalidResponseError,
  isRejection,
  OrderFailedError,
  PreTradeCheckError,
  StateError,
  UnresolvedError,
  UsageError,
} from '../../core/errors.js';
import {
  confirmedPlan,
  journaledPlan,
  ownGroupEntries,
  runStep,
  setAside,
  stepsDryRun,
  stepsDue,
  type JournaledStep,
  type StepDone,
} from './plan-steps.js';
import type { WritePorts } from '../write/ports.js';
import { safeText } from '../../core/security/safe-text.js';
import { guardLiveAction, hedgesWords, sayMovedSinceAsked } from '../write/confirm.js';
import type { Approval } from '../write/write-run.js';
import { findSide } from '../book/positions.js';
import {
  changedSincePlan,
  endedLately,
  recordStanding,
  rollTakes,
  sideHolds,
  unsized,
  type BoundSide,
  type HedgeRecord,
} from '../book/book.js';
import { hedgeRecord, readSideInStep, sideAfterOf, SideViews } from '../book/side-book.js';
import { readSidesAsAnswered } from '../write/wait.js';
import { runPreTradeChecks } from './pre-trade.js';
import { days, openArgv, rowPlan, tradeAction, tradeRecord, type CloseResult } from './trade-actions.js';
import { journalAhead, lock } from '../write/write-flow.js';
import { requireOwnRow } from '../write/row-trust.js';
import { ROLL_GROUP_PREFIX, type Held, type WriteOptions } from '../write/write-run.js';
import { utcClock, utcMinute, utcStamp } from '../../core/utc-text.js';
import { stringOf, withoutUndefined, type JsonObject } from '../../core/objects.js';
import { formatSpan } from '../../core/duration.js';

/** With nothing open, a side is rolled (opened anew) when its newest ended hedge matured at most this long ago. */
const ROLL_RECENT_MS = 7 * 24 * 3_600_000;

interface RollRequest {
  market: string;
  side: Side;
  tenorDays: Tenor;
  skipChecks: boolean;
  write: WriteOptions;
  /** The new hedge's deal reference (`--ref`, a keeper row's); unset: the rolled hedge's own, kept through the roll. */
  clientReference?: string;
  /** Approved by the command's run (a keeper's roll): not asked again. */
  approved?: Approval;
  /** The locks its caller holds (a keeper's step, its side's): the roll decides under them. */
  held?: Held;
}

/** A group id for the legs of one action: its prefix, the time and a random part. */
export function newGroup(prefix: string, ports: WritePorts) {
  return `${prefix}${utcStamp(ports.clock.now())}-${randomBytes(3).toString('hex')}`;
}

/** One roll as its two steps take it: the open it sends and what is kept beside it (`context`: journaled with its open
 * leg, planned, before anything is sent), and each leg's row once journaled (the close's right before the close is
 * sent: absent before that, and when nothing is closed; neither in a dry run of a new roll, `ended` the hedge that
 * ended already when there is nothing to close). */
type RollLegs = ReturnType<typeof rollLegs>;

function rollLegs(
  group: string,
  request: OpenRequest,
  context: JsonObject,
  rows: { open?: JournalEntry; close?: JournalEntry; unfinished?: boolean; ended?: Hedge },
) {
  const { open, close } = rows;
  // Whether the roll closes an open position first (false: the side had settled, it only opens).
  const closes = context.roll_closes === true;
  return {
    ...rows,
    group,
    request,
    closes,
    rolledHedgeId: stringOf(context.rolled_hedge_id),
    bound: boundOf(context),
    // The close's expected return, kept with the open leg for a resumed run's report.
    netMarginUsd: readNumber(context.net_margin_usd),
    unfinished: rows.unfinished === true,
    described: `${close ? `close ${close.outcome} (journal ${close.id})` : closes ? 'close not sent yet' : 'nothing to close'}; open ${open?.outcome} (journal ${open?.id}, key ${open?.idempotency_key})`,
  };
}

/** One roll as the journal holds it (a journaled plan of the executor's). */
async function legsOf(ports: WritePorts, group: string) {
  const { row, unfinished } = await journaledPlan(ports, group);
  const open = row('open');
  const { market, side, notional_usd, tenor_days, client_reference } = open ? bodyOf(open) : {};
  const [notional, tenor] = [readNumber(notional_usd), readNumber(tenor_days)];
  if (
    !open ||
    typeof market !== 'string' ||
    (side !== 'buy' && side !== 'sell') ||
    notional === undefined ||
    tenor === undefined
  )
    throw new UsageError(
      `Journal group ${safeText(group)} has no readable open leg, so the roll cannot be finished; see \`${ports.hedgeCommand('journal')}\`.`,
    );
  const request = withoutUndefined<OpenRequest>({
    market,
    side,
    notional_usd: notional,
    tenor_days: tenor,
    client_reference: stringOf(client_reference) || undefined,
  });
  return rollLegs(group, request, open.context ?? {}, {
    open,
    close: row('close'),
    unfinished,
  });
}

/** What the plan bound of the side, as its open leg keeps it (`shown` absent: a roll that closes nothing, or one
 * journaled without it). */
function boundOf(context: JsonObject) {
  const ids = context.bound_hedge_ids;
  const notional = readNumber(context.bound_notional_usd);
  const soonest = stringOf(context.soonest_hedge_id);
  return withoutUndefined({
    shown:
      Array.isArray(ids) && ids.every((id) => typeof id === 'string') && notional !== undefined
        ? { hedge_ids: ids, notional_usd: notional }
        : undefined,
    soonest: soonest ? { id: soonest, maturityAtMs: readNumber(context.soonest_maturity_ms) } : undefined,
  });
}

/** A leg's record, journaled under the roll's command line (a leg's failure says how the whole roll is finished:
 * write-flow.ts, the hint a write's failure carries). */
const legRecord = (leg: 'close' | 'open', group: string, request: OpenRequest) =>
  tradeRecord(leg, request, { argv: ['roll', request.market, request.side, ...openArgv(request)], group, leg });

/** What a run of a roll works with: the command's ports and client, the roll as journaled, and what it says with its
 * result. */
interface RollRun {
  ports: WritePorts;
  client: HedgeClient;
  legs: RollLegs;
  notes: string[];
}

/** The close the open follows: the close this run sent (`closeRun`; null: it found nothing to close), else one an
 * earlier run journaled — unless it found nothing to close (rejected with no_open_hedge). */
const closedBy = (legs: RollLegs, closeRun: StepDone | undefined) => {
  const row = closeRun !== undefined ? closeRun?.entry : legs.close;
  return row?.outcome === 'rejected' ? undefined : row;
};

/** The roll ends here: its open leg is never sent. */
const abandon = async ({ ports, legs }: RollRun, message: string) =>
  (await ports.journal()).update(legs.open!.id, { outcome: 'abandoned', message });

/** Why the roll stops, its open leg abandoned: the side is not what its plan bound (before the close: nothing sent;
 * after it: not covered). */
async function sideChanged(run: RollRun, changed: NonNullable<ReturnType<typeof changedSincePlan>>, closed: boolean) {
  const { group, request, bound } = run.legs;
  const { market, side, notional_usd, tenor_days } = request;
  const { hedgeCommand } = run.ports;
  if (changed.settles) return maturing(run, changed.matured);
  const how = changed.matured
    ? `hedge ${safeText(changed.matured.id)} ${changed.matured.maturityAtMs === undefined ? 'has no maturity hedge can read' : `matured at ${utcMinute(changed.matured.maturityAtMs)} UTC`}, possibly before the close ${closed ? 'landed' : 'could be sent'}: it may have settled on its own, and a close of the side would take the others alone`
    : closed
      ? `it held ${formatUsd(changed.moved.notional_usd)} when the close was sent, not the ${formatUsd(notional_usd)} planned on; something outside this roll changed it`
      : `it holds ${formatUsd(changed.moved.notional_usd)} in ${hedgesWords(changed.moved)} now, not the ${formatUsd(bound.shown!.notional_usd)} in ${hedgesWords(bound.shown!)} planned on; something outside this roll changed it`;
  await abandon(run, `not sent: the side changed since the plan (${closed ? 'after' : 'before'} the close)`);
  const planned = `The roll of the ${side} side of ${market} stopped: the side changed since the plan: ${how}.`;
  return new UnresolvedError(
    closed
      ? `${planned} The close was sent; the new hedge was not, so the ${side} side is not covered now.`
      : `${planned} Nothing was sent: the side is as it is now.`,
    {
      details: {
        journal_group: group,
        ...(closed && { covered: false }),
        ...(changed.matured && { matured_hedge_id: changed.matured.id }),
      },
      hint: closed
        ? `See what settled and what the close took with \`${hedgeCommand('history')}\`, then cover the side: \`${hedgeCommand('open', market, side, 'NOTIONAL', '--tenor', String(tenor_days))}\`.`
        : `See the side with \`${hedgeCommand('positions')}\`, then roll again: it plans anew from the side as it is.`,
    },
  );
}

/** A lone hedge that may mature before a close sent now lands is left to settle (a close would take it while it settles,
 * or find it gone): nothing is sent, and a roll once it settled opens it anew. */
async function maturing(run: RollRun, hedge: NonNullable<BoundSide['soonest']>) {
  const { market, side, tenor_days } = run.legs.request;
  await abandon(run, 'not sent: the hedge matures before a close could be known to land');
  return new PreTradeCheckError(
    'hedge_maturing',
    `The ${side} hedge ${safeText(hedge.id)} on ${market} ${hedge.maturityAtMs === undefined ? 'has no maturity hedge can read' : `matures at ${utcMinute(hedge.maturityAtMs)} UTC`}, before a close sent now could be known to land (a request may take up to ${formatSpan(run.client.transport.config.requestTimeoutMs)}): it is left to settle, not closed while it settles. Nothing was sent.`,
    { market, side, hedge_id: hedge.id, status: 'filled' },
    `Once it has settled, \`${run.ports.hedgeCommand('roll', market, side, '--tenor', String(tenor_days))}\` opens the side anew.`,
  );
}

/** Right before the open: the roll opens what it closed, and only on a side nothing covers. */
async function stillToOpen(run: RollRun, closedLeg: JournalEntry | undefined) {
  const { ports, client, legs } = run;
  const { market, side, notional_usd } = legs.request;
  // The side as the close read it right before it was sent (under the side's lock), judged at the close's end (its
  // hedges were judged before it was sent: its sum is what is judged here).
  const closedUsd = readNumber(closedLeg?.context?.notional_usd);
  const shown = legs.bound.shown ?? { hedge_ids: [], notional_usd };
  const changed =
    closedLeg &&
    changedSincePlan(
      { ...legs.bound, shown },
      { ...shown, notional_usd: closedUsd ?? shown.notional_usd },
      // When it ended on this machine's clock (none read: now).
      {
        serverNow: client.transport.serverNow(),
        closedAtLocalMs: Date.parse(closedLeg.resolved_at ?? closedLeg.updated_at ?? '') || undefined,
      },
    );
  if (changed) throw await sideChanged(run, changed, true);
  // What the side holds in its views (one read): a side not flat is not opened a second time.
  const holds = sideHolds(await (await SideViews.read(client, ports.log)).book(market, side));
  if (holds.holds === 'flat') return;
  const [by, what, status] =
    holds.holds === 'held'
      ? [` by ${holds.ids.map(safeText).join(', ')}`, `filled, ${formatUsd(holds.notionalUsd)}`, 'filled']
      : ['', safeText(holds.why), holds.holds];
  await abandon(run, `not sent: the side was already covered${by} (${status})`);
  throw new PreTradeCheckError(
    'side_already_open',
    `The ${side} side of ${market} is already covered${by} (${what}): the roll's new hedge was not opened, so the side is not opened twice.`,
    { market, side, hedge_id: holds.holds === 'held' ? holds.ids[0] : null, status, journal_id: legs.open!.id },
    `See it with \`${ports.hedgeCommand('positions')}\`.`,
  );
}

/** The roll's two steps as data, the close (when it closes) then the open: each leg's record and row, and what its
 * dry run says of it. */
function rollSteps({ legs }: RollRun, wait: boolean): JournaledStep[] {
  const { group, request, open, close, ended } = legs;
  const closeStep = {
    record: legRecord('close', group, request),
    row: close,
    note: close ? `resumed, journal ${close.id}` : open && 'if the side is still open',
  };
  const openStep = {
    record: legRecord('open', group, request),
    row: open,
    wait,
    note: open
      ? `journal ${open.id}, ${open.outcome}`
      : ended
        ? `nothing to close: ${safeText(ended.id)} is ${safeText(ended.status)}`
        : 'sent once the close has landed',
  };
  return legs.closes ? [closeStep, openStep] : [openStep];
}

/** The roll's close, sent while the open is still `planned` (it is sent only after the close): right before it is
 * journaled and sent, under the side's lock, the side is still what the plan bound (a close journaled earlier was
 * judged by the run that sent it; a side changed, nothing is sent, as it says). Null when it found nothing to close;
 * a failure says what it means for the roll. */
async function closeLeg(run: RollRun, step: JournaledStep, held: Held): Promise<StepDone> {
  const { ports, client, legs, notes } = run;
  const { request, open, close: row, bound } = legs;
  const { market, side } = request;
  const { shown, soonest } = bound;
  if (shown && !row) {
    const { books, serverNow } = await readSidesAsAnswered(ports, client, [request]);
    // Judged where the close may land, one request's bound from the views' time: never after the first maturity.
    const changed = changedSincePlan({ shown, soonest }, sideAfterOf(books[0]), {
      serverNow,
      landingMs: client.transport.config.requestTimeoutMs,
    });
    if (changed) throw await sideChanged(run, changed, false);
  }
  try {
    return await runStep(ports, step, held);
  } catch (error) {
    if (error instanceof ApiError && !error.ambiguous && error.code === 'no_open_hedge') {
      notes.push(`Nothing to close: the ${side} hedge on ${market} had already settled or been closed.`);
      return null;
    }
    // A refused close leaves the side as it was: the roll ends here, and its open is never sent.
    if (isRejection(error)) await abandon(run, `not sent: the close was rejected (${error.code})`);
    // The close's outcome is not known here: say what that means for the side, with the error the operator sees.
    else if (error instanceof Error)
      error.message = `${error.message} The roll's new hedge was not sent: if this close landed, the ${side} side of ${market} is not covered now until \`${ports.hedgeCommand('resume', open!.id)}\` finishes the roll; if it did not, the old hedge still covers it (\`${ports.hedgeCommand('positions')}\` shows which).`;
    throw error;
  }
}

/** The roll's open, sent once the close (`closeRun`, this run's) has landed, on a side nothing covers (checked right
 * before it is journaled while it is still planned); a failure once the side was closed says it is bare now. */
async function openLeg(run: RollRun, step: JournaledStep, closeRun: StepDone | undefined, held: Held) {
  const { legs, ports } = run;
  const { group, request, open } = legs;
  const { market, side } = request;
  const closed = closedBy(legs, closeRun);
  try {
    if (open?.outcome === 'planned') await stillToOpen(run, closed);
    return await runStep(ports, step, held);
  } catch (error) {
    if (!closed) throw error;
    // Said with the error itself (the one line an operator sees): the side is bare now.
    if (isRejection(error))
      error.message = `${error.message} The ${side} position on ${market} was closed, but the new hedge was rejected: the side is not covered now.`;
    // The close landed: a journal lost before the open must not end the roll with "nothing was sent" (exit 13).
    if (error instanceof StateError)
      throw new UnresolvedError(
        `The roll closed the ${side} position on ${market}, but its new hedge was not sent: ${error.message} The ${side} side is not covered now.`,
        {
          details: { journal_group: group, close: closed.id, open: open!.id, covered: false },
          hint: `Once the journal is usable again, finish the roll with \`${ports.hedgeCommand('resume', open!.id)}\` (it opens with the key journaled for it), or cover the side yourself.`,
        },
      );
    throw error;
  }
}

/** Carries the roll out through the plan executor from wherever the journal says its steps are — the close (while the
 * open is still `planned`: it is sent only after the close), then the open; the first that fails ends the roll with
 * its error — and says what the roll did; a dry run is the executor's of the same steps, each still to take with the
 * request it would send. `resumed` (with its live guard) finishes one from the journal, the same roll again or `hedge
 * resume` (a close never journaled is sent only when the side still shows open); a new roll carries its `quote`. */
async function carryOut(
  ports: WritePorts,
  legs: RollLegs,
  write: Pick<WriteOptions, 'wait' | 'dryRun' | 'held'>,
  notes: string[],
  resumed?: { needsConfirmation: boolean },
  quote?: Quote,
) {
  const client = await ports.client();
  const run = { ports, client, legs, notes };
  const { group, request } = legs;
  const { market, side, notional_usd, tenor_days } = request;
  const steps = rollSteps(run, write.wait);
  if (write.dryRun) return { kind: 'dry-run' as const, notes, legs: await stepsDryRun(ports, steps) };
  const open = legs.open!;
  let due = stepsDue(steps);
  // A close not known to have landed is finished (sent again under its key) before the planned open.
  const closeDue = due[0]?.record.leg === 'close';
  const planned = open.outcome === 'planned';
  const sideBook = async () => (await readSideInStep(ports, run.client, market, side)).book;
  if (resumed) {
    // Every leg the roll would send is this account's own, before its first request (a close that a forged open leg would start included).
    for (const row of [open, legs.close]) if (row) await requireOwnRow(ports, row, rowPlan(client, row));
    const resuming = `Resuming the roll of ${safeText(market)} ${side} to ${days(tenor_days)} started ${utcClock(open.created_at)} UTC (journal group ${safeText(group)}: ${legs.described}): each leg is finished with its own key, and the side is not opened twice.`;
    // A leg never sent is a new request: on a live key it is confirmed like one, the "yes" bound to the side as it was
    // asked about; otherwise it is said with the result.
    const trades = [{ market, notionalUsd: (closeDue ? 2 : 1) * notional_usd }];
    if (planned && resumed.needsConfirmation)
      await confirmedPlan(
        ports,
        async () => ({ trades: [{ ...trades[0], held: sideAfterOf(await sideBook()) }] }),
        async () => ({
          question: `${resuming}\nFinish the roll of ${side} ${safeText(market)}: ${closeDue ? 'close the position, then ' : ''}open ${formatUsd(notional_usd)} for ${days(tenor_days)}?`,
        }),
        { live: true, moved: (then, now) => sayMovedSinceAsked(ports, request, then.trades, now.trades) },
      );
    else notes.push(resuming);
    // An agent finishing a roll it did not journal itself trades what is left of it.
    if (ports.tradeGate && open.via !== 'agent' && planned) await ports.tradeGate.admit(trades, 'roll');
    // A close never journaled, on a side every view shows gone: nothing to close.
    if (closeDue && !legs.close && sideHolds(await sideBook()).holds === 'flat') {
      notes.push(
        `The ${side} position on ${market} is no longer open (it settled or was closed meanwhile): nothing to close.`,
      );
      due = due.slice(1);
    }
  }
  // Each leg due in turn, the close before the open; the first that fails ends the roll with its error.
  const held = write.held ?? new Set<string>();
  let closeRun: StepDone | undefined;
  let openRun: StepDone | undefined;
  for (const step of due)
    if (step.record.leg === 'close') closeRun = await closeLeg(run, step, held);
    else openRun = await openLeg(run, step, closeRun, held);
  const nothingToClose = closeDue && due[0]?.record.leg !== 'close';
  const closeDone = closeRun !== undefined ? closeRun : legs.close && { entry: legs.close };
  return rollReport(run, nothingToClose ? null : closeDone, openRun ?? { entry: open }, quote);
}

/** What the roll did, from what stands for its legs (the close null: nothing closed): both legs with their keys and
 * journal ids, and whether the side is covered now. */
function rollReport(
  { legs, ports, notes }: RollRun,
  closeRun: StepDone | undefined,
  { entry: openEntry, result, answer }: NonNullable<StepDone>,
  quote?: Quote,
) {
  const { group, request, closes, rolledHedgeId } = legs;
  const { market, side, notional_usd, tenor_days } = request;
  const opened = result as Hedge | undefined;
  const answered = answer as OpenedHedge | undefined;
  const hedge = opened ?? answered;
  const closeEntry = closeRun?.entry ?? legs.close;
  const closed = closeRun?.result as CloseResult | undefined;
  const hedgeId = opened?.id ?? answered?.hedge_id ?? openEntry.hedge_id ?? null;
  // The side model's word on the new hedge: one that failed never held anything.
  const failed = opened !== undefined && 'failed' in recordStanding(opened);
  // A close that found nothing to close (rejected with no_open_hedge, now or by an earlier run) is no leg of the roll.
  const close = closes &&
    closeRun !== null &&
    closeRun?.entry.outcome !== 'rejected' && {
      journal_id: closeEntry?.id ?? null,
      outcome: closeEntry?.outcome ?? 'not sent',
      hedge_id: closed?.hedgeId ?? closeEntry?.hedge_id ?? rolledHedgeId ?? null,
      order_tx_hash:
        (closeRun?.answer as SubmittedAction | undefined)?.order_tx_hash ?? closeEntry?.order_tx_hash ?? null,
      net_margin_usd: closed?.estimate ?? readNumber(closeEntry?.context?.net_margin_usd) ?? legs.netMarginUsd ?? null,
      realized: closed?.realized ?? null,
    };
  return {
    kind: 'rolled' as const,
    view: {
      market,
      side,
      notional_usd,
      tenor_days,
      rolled_hedge_id: rolledHedgeId ?? null,
      journal_group: group,
      close: close || null,
      open: {
        journal_id: openEntry.id,
        outcome: openEntry.outcome,
        hedge_id: hedgeId,
        hedge: hedge ?? null,
        quote: quote ?? null,
      },
    },
    idempotencyKey: openEntry.idempotency_key ?? null,
    landed: opened !== undefined,
    covered: !failed && (hedge !== undefined || ['filled', 'done', 'submitted'].includes(openEntry.outcome)),
    notes,
    ...(failed && {
      failure: new OrderFailedError(
        `The new ${days(tenor_days)} hedge ${hedgeId ? safeText(hedgeId) : 'the new hedge'} failed on-chain: nothing was opened${close ? `, and the ${side} position on ${market} was closed` : ''}, so the side is not covered now.`,
        opened!.id,
        `Open it again with \`${ports.hedgeCommand('open', market, side, String(notional_usd), '--tenor', String(tenor_days))}\` (a new key).`,
      ),
    }),
  };
}

/** What a roll did (or, a dry run, would send), as `hedge roll` and the keeper show it. */
export type RollOutcome = Awaited<ReturnType<typeof carryOut>>;

/** Finishes the whole roll any entry of it names (`hedge resume ID` of any leg, and the keeper's own rolls), through the
 * executor's resume: read again under the locks, refused when another process finished it meanwhile. */
export async function resumeRollOutcome(
  ports: WritePorts,
  entry: JournalEntry,
  options: { wait: boolean; approved?: Approval; held?: Held },
) {
  const legs = await legsOf(ports, entry.group!);
  if (!legs.unfinished)
    throw new UsageError(
      `Journal ${entry.id} is a leg of the roll ${safeText(legs.group)}, which is already finished (${legs.described}); see \`${ports.hedgeCommand('journal', 'show', legs.open!.id)}\`.`,
    );
  const guard = await guardLiveAction(ports, { action: 'finish a roll', approved: options.approved });
  // Read again once the book's and the side's locks are held: refused when another process finished it meanwhile.
  return lock(
    ports,
    {
      sides: [legs.request],
      book: true,
      run: async (held) => {
        const now = await legsOf(ports, legs.group);
        if (!now.unfinished)
          throw new HeldError(
            `The roll ${safeText(now.group)} was finished by another hedge process meanwhile (${now.described}). This run sent nothing.`,
            {
              details: { journal_group: now.group },
              hint: `See it with \`${ports.hedgeCommand('journal', 'show', now.open!.id)}\`.`,
            },
          );
        return carryOut(ports, now, { ...options, held }, [], guard);
      },
    },
    options.held,
  );
}

/** What planning a roll works with: the command's ports and client, the roll asked for, and its live guard. */
interface RollAsk {
  ports: WritePorts;
  client: HedgeClient;
  req: RollRequest;
  guard: { needsConfirmation: boolean };
}

/** The legs of rolls of this market and side sent with the current credentials (newest first). */
const rollLegsOf = async (ports: WritePorts, { market, side }: RollRequest, query: ListOptions) =>
  (await ownGroupEntries(ports, ROLL_GROUP_PREFIX, query)).filter(
    (entry) => bodyOf(entry).market === market && bodyOf(entry).side === side,
  );

/** An earlier roll of the side to finish instead: the one --idempotency-key names, or the newest unfinished one. */
async function earlierRoll({ ports, req }: RollAsk, notes: string[]) {
  const { market, side, tenorDays, write } = req;
  const { hedgeCommand } = ports;
  const key = write.idempotencyKey;
  if (key !== undefined) {
    const [entry] = await (await ports.journal()).list({ idempotencyKey: key });
    if (!entry?.group?.startsWith(ROLL_GROUP_PREFIX))
      throw new UsageError(
        `--idempotency-key: ${key} is not the key of a roll leg in this machine's journal; a roll is finished from the journal that recorded it (\`${hedgeCommand('journal', '--pending')}\` lists what is unfinished).`,
      );
    const legs = await legsOf(ports, entry.group);
    if (legs.request.market !== market || legs.request.side !== side)
      throw new UsageError(
        `--idempotency-key: ${key} is a leg of the roll of ${safeText(legs.request.market)} ${legs.request.side} (journal ${entry.id}), not of ${market} ${side}.`,
      );
    if (!legs.unfinished)
      throw new UsageError(
        `--idempotency-key: the roll with key ${key} (journal group ${safeText(legs.group)}) is already finished; see \`${hedgeCommand('journal', 'show', entry.id)}\`.`,
      );
    return legs;
  }
  // The newest roll of this market and side with a leg still unresolved, sent with the current credentials.
  const group = (await rollLegsOf(ports, req, { pending: true }))[0]?.group;
  if (!group) return;
  const legs = await legsOf(ports, group);
  const to = `${market} ${side} to ${days(legs.request.tenor_days)}`;
  const unfinished = `the unfinished roll of ${to} (journal group ${safeText(group)}: ${legs.described})`;
  if (!write.fresh) {
    if (legs.request.tenor_days === tenorDays) return legs;
    throw new UsageError(
      `An unfinished roll of ${to} is in the journal (group ${safeText(group)}: ${legs.described}); finish it with \`${hedgeCommand('resume', legs.open!.id)}\`, or pass --new to set it aside. Nothing was sent.`,
    );
  }
  if (write.dryRun) return void notes.push(`--new would set aside ${unfinished}; this dry run leaves it as it is.`);
  notes.push(`--new: ${unfinished} is set aside; this run is a new roll with new keys.`);
  await setAside(ports, [legs.close, legs.open], 'set aside by --new');
}
/** The roll as a plan of two steps, read once the side's views agree: what it closes (and the side's filled hedges,
 * soonest to mature last) or the hedge that already ended, the open it sends (the notional, and the deal reference
 * that lives through the roll unless --ref says another), what a confirmation binds (both legs, and the hedges the
 * side held) and what is said before the question. */
async function planRoll({ ports, client, req }: RollAsk) {
  const { market, side, tenorDays } = req;
  const {
    books: [book],
    positions,
    serverNow,
    newest,
  } = await readSidesAsAnswered(ports, client, [{ market, side }]);
  const held = sideAfterOf(book);
  // Only a side held in every view is closed: one with a hedge still being opened is not rolled yet (below).
  const takes = rollTakes(book);
  const closing = takes.held && findSide(positions, market, side);
  const plan = (notionalUsd: number, reference?: string | null) => {
    reference = req.clientReference ?? (reference || undefined);
    const request = { market, side, notional_usd: notionalUsd, tenor_days: tenorDays, client_reference: reference };
    return { notionalUsd, request: withoutUndefined<OpenRequest>(request), reference };
  };
  if (takes.held && closing) {
    // What the side holds is what its records sum to; only when neither view gives a figure is there nothing to re-open.
    if (unsized(book))
      throw new InvalidResponseError(
        `Neither GET /positions nor the hedge records show the ${side} position on ${market} with a notional the CLI can read, so the roll cannot know what to open again. Nothing was sent.`,
        {
          endpoint: 'GET /positions',
          status: 200,
          hint: 'Run with --verbose and report it; `hedge close` then `hedge open` do the two legs by hand.',
        },
      );
    const { several, first } = takes.held;
    const { notionalUsd, request, reference } = plan(takes.held.notionalUsd, first?.clientReference);
    return {
      request,
      closing,
      several,
      first,
      trades: [{ market, notionalUsd: 2 * notionalUsd, held }],
      notes: several ? [severalNote(req, several, reference, notionalUsd)] : [],
    };
  }
  // A hedge still being opened is no filled hedge to roll, and a close would take the side whole while it is opened.
  if (takes.waitsFor) {
    const { opening, withFilled } = takes.waitsFor;
    throw new PreTradeCheckError(
      'hedge_not_filled',
      `The ${side} hedge ${safeText(opening.id)} on ${market} is still ${safeText(opening.status)}: ${withFilled ? 'a roll closes the whole side, so it waits until every hedge of it is filled' : 'there is no filled hedge to roll yet'}. Nothing was sent.`,
      { market, side, hedge_id: opening.id, status: opening.status },
      `Wait for its fill with \`${ports.hedgeCommand('hedges', opening.id, '--wait')}\`, then roll.`,
    );
  }
  // The side's newest hedge that ended lately, from the read the side was judged on, in the model's words.
  const last = newest.find((hedge) => endedLately(book, hedgeRecord(hedge), ROLL_RECENT_MS, serverNow));
  if (!last)
    throw new PreTradeCheckError(
      'nothing_to_roll',
      `Nothing to roll: no ${side} hedge is open on ${market}, and none matured in the last 7 days. Nothing was sent.`,
      { market, side },
      `Open one with \`${ports.hedgeCommand('open', market, side, 'NOTIONAL', '--tenor', String(tenorDays))}\`.`,
    );
  const { notionalUsd, request } = plan(last.notional_usd, last.client_reference);
  return { request, ended: last, trades: [{ market, notionalUsd, held }], notes: [] };
}

/** A side of several hedges is rolled whole (a close takes a market and side): said before the question. */
function severalNote(
  { market, side, tenorDays }: RollRequest,
  several: readonly HedgeRecord[],
  reference: string | undefined,
  notionalUsd: number,
) {
  const listed = several
    .toReversed()
    .map(
      (record) =>
        `${safeText(record.id)} ${record.notionalUsd === undefined ? '' : `${formatUsd(record.notionalUsd)} `}matures ${record.maturityAtMs === undefined ? 'unknown' : utcMinute(record.maturityAtMs)}`,
    )
    .join('; ');
  const others = [
    ...new Set(
      several.flatMap(({ clientReference: ref }) => (ref !== undefined && !sameReference(ref, reference) ? [ref] : [])),
    ),
  ];
  const notCarried = `${others.map(safeText).join(', ')} ${others.length === 1 ? 'is' : 'are'} not carried on`;
  const refs = reference
    ? ` The new hedge carries the reference ${safeText(reference)}${others.length ? `; ${notCarried}` : ''}.`
    : others.length
      ? ` The new hedge carries no reference; ${notCarried}.`
      : '';
  return `The ${side} side of ${market} holds ${several.length} hedges (${listed}). A close closes the whole side, so the roll closes all ${several.length} (the later ones before their maturity) and opens one hedge of ${formatUsd(notionalUsd)} for ${days(tenorDays)}.${refs}`;
}

/** The roll planned, checked and shown (both legs on a card) and confirmed once: the plan, and the quote it was shown
 * with (none for a dry run). */
async function confirmedRoll(ask: RollAsk) {
  const { ports, client, req, guard } = ask;
  const { market, side, tenorDays } = req;
  return confirmedPlan(
    ports,
    () => planRoll(ask),
    async ({ request, closing, trades, several, ended }) => {
      const { notional_usd: notionalUsd } = request;
      // The close's notional is back in the side's capacity and the account's headroom when the open is checked.
      if (!req.skipChecks)
        await runPreTradeChecks(
          client,
          { market, side, notionalUsd, action: 'open' },
          undefined,
          closing ? notionalUsd : 0,
        );
      // An agent's checks judge the roll whole: its confirmation token's legs, and its limits on both legs.
      ports.planCheck?.check(
        [...(closing ? [client.plan('close', request, '')] : []), client.plan('open', request, '')],
        trades,
      );
      await ports.tradeGate?.admit(trades, 'roll');
      if (req.write.dryRun) return {};
      const quote = await client.createQuote({ market, side, notional_usd: notionalUsd, tenor_days: tenorDays });
      // Both legs before the confirmation: a card the command's output shows (the keeper's steps say nothing).
      ports.notify({
        kind: 'roll-preview',
        level: 'note',
        text: `Roll ${side} ${market} to ${days(tenorDays)}, the new hedge quoted at ${formatRate(quote.pricing.execution_price)}.`,
        show: {
          card: 'roll-preview',
          preview: {
            market,
            side,
            notionalUsd,
            tenorDays,
            closing: closing && { ...closing, hedges: several },
            ended,
            quote,
          },
          nowMs: client.transport.serverNow().bestMs,
        },
      });
      const returns = closing?.netMarginUsd === undefined ? '' : ` (returns about ${formatUsd(closing.netMarginUsd)})`;
      // A person's "yes" holds for the card they saw: when the side moved since, nothing is sent and it is asked again.
      const question = `Roll ${side} ${market}: ${closing ? `close the position${several ? ` (all ${several.length} of its hedges)` : ''}${returns}, then ` : ''}open ${formatUsd(notionalUsd)} for ${days(tenorDays)}, about ${formatMoney(quote.upfront.total_upfront_usdc)} USDC upfront?`;
      return { quote, question: guard.needsConfirmation ? question : undefined };
    },
    { live: true, moved: (then, now) => sayMovedSinceAsked(ports, req, then.trades, now.trades) },
  );
}

/** Finish an earlier roll of the side, or plan, check, confirm and carry out a new one (anew when the side moved while
 * a person was asked): its open journaled ahead, planned, before anything is sent. */
async function rollOnce(ask: RollAsk) {
  const { ports, req } = ask;
  const { market, side, write } = req;
  const notes: string[] = [];
  const earlier = await earlierRoll(ask, notes);
  if (earlier) {
    if (write.dryRun)
      notes.push(
        `An unfinished roll of ${market} ${side} is in the journal (group ${safeText(earlier.group)}: ${earlier.described}); without --dry-run this command finishes it.`,
      );
    return carryOut(ports, earlier, write, notes, ask.guard);
  }
  const { plan, shown } = await confirmedRoll(ask);
  const { request, closing, first, ended } = plan;
  const { held } = plan.trades[0];
  notes.push(...plan.notes);
  const context = withoutUndefined({
    roll_closes: closing !== undefined,
    rolled_hedge_id: (closing?.hedgeId ?? ended?.id) || undefined,
    net_margin_usd: closing?.netMarginUsd,
    // The first hedge to mature: a close that lands after its maturity may have found it settled or settling.
    soonest_hedge_id: first?.id,
    soonest_maturity_ms: first?.maturityAtMs,
    // The side the plan bound: the close is sent only while it is still that side.
    bound_hedge_ids: closing && held.hedge_ids,
    bound_notional_usd: closing && held.notional_usd,
  });
  if (write.dryRun) return carryOut(ports, rollLegs('', request, context, { ended }), write, notes);
  const group = newGroup(ROLL_GROUP_PREFIX, ports);
  // Before anything is sent: from here on the journal holds the whole roll.
  const open = await journalAhead(ports, tradeAction(ports, ask.client, legRecord('open', group, request)), context);
  return carryOut(
    ports,
    rollLegs(group, request, context, { open, unfinished: true }),
    write,
    notes,
    undefined,
    shown.quote,
  );
}

/** `hedge roll`: finish an earlier roll of the side, or plan, check, confirm and carry out a new one — a plan the
 * executor runs under the book's lock and the side's. */
export async function runRoll(ports: WritePorts, req: RollRequest) {
  const { market, side, write } = req;
  const guard = await guardLiveAction(ports, {
    action: 'roll a hedge (close it, then open a new one)',
    dryRun: write.dryRun,
    approved: req.approved,
  });
  const client = await ports.client();
  const roll = (held?: Held) => rollOnce({ ports, client, req: { ...req, write: { ...write, held } }, guard });
  if (write.dryRun) return roll(req.held);
  // The side's lock from the plan to the open's landing: an add or reduce of the side waits for the roll.
  const waitingSince = ports.clock.now();
  return lock(
    ports,
    {
      sides: [req],
      book: true,
      run: async (held, holder) => {
        // After waiting for the book lock: a roll of the side that another process finished meanwhile is refused (exit 11).
        const rolled =
          holder &&
          (await rollLegsOf(ports, req, { limit: 200 })).find(
            (entry) => entry.leg === 'open' && hasLanded(entry) && Date.parse(entry.resolved_at ?? '') >= waitingSince,
          );
        if (!rolled) return roll(held);
        const tenor = readNumber(bodyOf(rolled).tenor_days);
        throw new HeldError(
          `The ${side} side of ${market} was rolled${tenor === undefined ? '' : ` to ${days(tenor)}`} by another hedge process while this run waited for it (${safeText(describeHolder(holder))}): journal group ${safeText(rolled.group!)}, new hedge ${safeText(rolled.hedge_id ?? '?')}. This run sent nothing.`,
          {
            holder,
            details: { journal_group: rolled.group, hedge_id: rolled.hedge_id ?? null },
            hint: `See it with \`${ports.hedgeCommand('positions')}\`; to roll the new hedge once more, run the command again.`,
          },
        );
      },
    },
    req.held,
  );
}
