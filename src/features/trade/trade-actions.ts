// The four state-changing actions of the API as data for the one write flow (write-flow.ts): how each is
// planned, sent, waited for and shown.
import type { ChangeRequest, HedgeClient, OpenRequest, SideRequest } from '../../platform/api/client.js';
import type { SideBook } from '../book/book.js';
import type { Hedge, OpenedHedge, Quote, SubmittedAction } from '../../platform/api/schemas.js';
import { cents } from '../../core/money.js';
import { additionQuoteTenor, daysUntil } from './pre-trade-rules.js';
import {
  NotAppliedError,
  OrderFailedError,
  PreTradeCheckError,
  UnresolvedError,
  UsageError,
} from '../../core/errors.js';
import type { PlanStep } from '../../core/plan.js';
import {
  bodyOf,
  isUnresolved,
  NOT_WAITED_MESSAGE,
  type JournalEntry,
  type SideAfter,
} from '../../platform/journal/index.js';
import type { Side } from '../../core/vocabulary.js';
import { safeText, messageOf } from '../../core/security/safe-text.js';
import type { WritePorts } from '../write/ports.js';
import type { CommandContext } from '../../platform/runtime/context.js';
import { tradedUsd } from '../write/send-gate.js';
import { formatMoney, formatRate, formatUsd, readNumber, shortHash } from '../../core/number-format.js';
import type { TradeView } from '../../platform/results/trade-outcome-types.js';
import { readableBook, readSideInStep, sideAfterOf, SideViews } from '../book/side-book.js';
import { findSide, type BookPosition } from '../book/positions.js';
import {
  expectedAfterChange,
  findClosedRecord,
  near,
  waitForHedgeStatus,
  waitForOwnChange,
  waitForSideClosed,
  readSidesAsAnswered,
  ownRecentOf,
  sizedByRecords,
} from '../write/wait.js';
import type { WriteAction, WriteKind, WriteOutcome, WriteRecord } from '../write/write-flow.js';
import {
  questionWithUnchecked,
  quoteOpen,
  refuseDuplicateReference,
  runPreTradeChecks,
  uncheckedList,
} from './pre-trade.js';
import { hedgesWords } from '../write/as-shown.js';
import { sameReference } from '../../core/input.js';
import { withoutUndefined, type JsonObject } from '../../core/objects.js';

/** An open's hedge is looked for from a little before the entry was made (clocks of two machines differ). */
const CLOCK_SKEW_MS = 5 * 60_000;

/** A trade as data: its kind, its request, and what its caller adds. */
export interface TradeRecord<Q extends SideRequest = SideRequest> extends WriteRecord<Q> {
  kind: TradeKind;
  /** The quote shown before an open (the wizard's, else the one its preview read): its price is compared with the struck rate. */
  quote?: Quote;
  /** What its caller asks for before the kind's own check and preview: the optional pre-trade checks, the duplicate
   * reference check, an open's quote said before the question. What a check could not read is named in the question. */
  checks?: { duplicateReference?: boolean; preTrade?: boolean; quote?: boolean };
  /** `--skip-checks`: the server alone refuses a change to a flat side (nothing is refused here). */
  serverDecides?: boolean;
  /** The question its caller showed with its own card in view (the wizard's), asked instead of the kind's. */
  question?: string;
}

/** The command line a trade is journaled under (and shown in hints) when its caller names none. */
function argvOf(kind: TradeKind, { market, side, notional_usd, tenor_days, client_reference }: Partial<OpenRequest>) {
  const open = ['--tenor', String(tenor_days), ...(client_reference ? ['--ref', client_reference] : [])];
  return [
    kind,
    String(market),
    String(side),
    ...(kind === 'close' ? [] : [String(notional_usd)]),
    ...(kind === 'open' ? open : []),
  ];
}

/** A wait's line: what was sent, by this run or earlier (a resume that found it landed sends nothing), and what it waits for. */
function sentLine(what: string, hash: unknown, sentEarlier: boolean | undefined, waiting: string) {
  return `${sentEarlier ? 'Sent earlier:' : 'Submitted'} ${what}${typeof hash === 'string' && hash ? ` (tx ${shortHash(hash)})` : ''}, waiting for ${waiting}`;
}

export function days(tenor: number) {
  return tenor === 1 ? '1 day' : `${tenor} days`;
}

type TradeKind = keyof typeof KINDS;

/** One write as its kind's hooks are handed it: its record, and what its run saw. */
interface Turn<Q extends SideRequest = SideRequest, K extends TradeKind = TradeKind> {
  ports: WritePorts;
  client: HedgeClient;
  kind: K;
  request: Q;
  record: TradeRecord<Q>;
  /** The side as every view showed it once the action was seen to land (journaled: a later identical run is judged by it). */
  after?: SideAfter;
  /** The side's hedges as last read for what it trades (the confirmation question names them). */
  held?: SideAfter;
}

/** What a kind declares beyond its words and endpoints: the hooks that ask, wait for and reconcile it. */
type KindHooks<S, R> = Omit<Partial<WriteKind<S, R>>, 'question' | 'wait'> & Pick<WriteKind<S, R>, 'question' | 'wait'>;

/** Each kind once: its words and the hooks that ask, wait for and reconcile it.
 * (`hedge api`'s writes are bound by api-call.ts apiAction: the request is the call, proven by the answer alone.) */
const KINDS = {
  open: { verb: 'open a hedge', hooks: openHooks },
  add: { verb: 'add to a hedge', hooks: changeHooks },
  reduce: { verb: 'reduce a hedge', hooks: changeHooks },
  close: { verb: 'close a position', hooks: closeHooks },
} as const;

/** A trade's record: its kind's words, the request, the side it moves, and what its caller adds. */
export function tradeRecord(
  kind: TradeKind,
  request: SideRequest,
  fields: Partial<Omit<TradeRecord, 'kind' | 'request' | 'command' | 'verb' | 'side'>> = {},
) {
  const { market, side } = request;
  const { verb } = KINDS[kind];
  return {
    ...fields,
    kind,
    request,
    command: kind,
    verb,
    argv: fields.argv ?? argvOf(kind, request),
    side: { market, side },
  };
}

/** The record's kind's behaviour bound to it, for the write flow: the caller's checks before the kind's own (what
 * they could not read named in its question), its endpoint, and the ids every kind journals. */
export function tradeAction(ports: WritePorts, client: HedgeClient, record: TradeRecord) {
  const { kind, request } = record;
  const turn: Turn = { ports, client, kind, request, record };
  const own = (KINDS[kind].hooks as (turn: Turn) => KindHooks<SubmittedAction, unknown>)(turn);
  const unchecked = uncheckedList(ports);
  const { market, side, notional_usd: notionalUsd, client_reference: reference } = request as OpenRequest;
  const action: WriteAction<SubmittedAction, unknown> = {
    ...record,
    submitted: (answer) => ({
      hedge_id: answer.hedge_id ?? undefined,
      order_tx_hash: answer.order_tx_hash ?? undefined,
    }),
    // The amount is the request's; the side's hedges are read (a confirmation binds them).
    trades: async () => {
      turn.held = sideAfterOf((await readSideInStep(ports, client, market, side)).book);
      return [{ market, notionalUsd, held: turn.held }];
    },
    ...own,
    check: async () => {
      if (reference && record.checks?.duplicateReference)
        await refuseDuplicateReference(ports, client, reference, unchecked);
      const verb = kind === 'add' ? 'add' : 'open';
      if (record.checks?.preTrade)
        await runPreTradeChecks(client, { market, side, notionalUsd, action: verb }, unchecked);
      await own.check?.();
    },
    question: () => questionWithUnchecked(record.question ?? own.question(), unchecked),
    plan: (key) => client.plan(kind, request, key),
    send: (key, sendHooks) => client.send(kind, request, key, sendHooks),
    sideAfter: () => turn.after,
  };
  return action;
}

function openHooks(turn: Turn<OpenRequest>): KindHooks<OpenedHedge, Hedge> {
  const { ports, client, request, record } = turn;
  const { market, side, notional_usd: notionalUsd } = request;
  return {
    // The quote is said (a card on a terminal) before the question, unless the caller quoted already.
    preview: record.checks?.quote
      ? async () => {
          record.quote = await quoteOpen(ports, client, request);
        }
      : undefined,
    question: () =>
      `Open ${side} ${formatMoney(notionalUsd)} USD on ${market} for ${days(request.tenor_days)}` +
      (record.quote
        ? ` at about ${formatRate(record.quote.pricing.execution_price)}, ${formatMoney(record.quote.upfront.total_upfront_usdc)} USDC upfront?`
        : '?'),
    // A confirmation (a person's yes, an agent's token) binds the side as shown, not one opened meanwhile; an agent's
    // limits alone judge the notional, and refuse with nothing read.
    ...(ports.tradeGate && !ports.planCheck && { trades: async () => [{ market, notionalUsd }] }),
    // The hedge by its id (when the answer gave one), else by its client reference.
    reconcile: async (entry) => {
      const landed = (hedge: Hedge, evidence: string, txHash?: string) => ({
        verdict: 'landed' as const,
        evidence,
        answer: { hedge_id: hedge.id, order_tx_hash: hedge.order_tx_hash ?? txHash, status: hedge.status },
      });
      if (entry.hedge_id) {
        const hedge = await client.getHedge(entry.hedge_id).catch(() => undefined);
        if (hedge)
          return landed(hedge, `hedge ${safeText(hedge.id)} is ${safeText(hedge.status)}`, entry.order_tx_hash);
        return {
          verdict: 'unknown',
          evidence: `hedge ${safeText(entry.hedge_id)}, named by the server's answer, cannot be read`,
        };
      }
      const body = bodyOf(entry);
      const onMarket = String(body.market ?? '').toUpperCase();
      const onSide = body.side;
      // From the earlier of the entry's creation and the server's sealed time at its first send (a rewritten creation
      // time cannot hide the hedge).
      const sentAt = typeof entry.context?.server_time_ms === 'number' ? entry.context.server_time_ms : Infinity;
      const time = client.transport.serverNow();
      const from = Math.min(Date.parse(entry.created_at) + time.earliestMs - time.localMs, sentAt) - CLOCK_SKEW_MS;
      const since = (hedge: Hedge) =>
        hedge.market.toUpperCase() === onMarket &&
        hedge.side === onSide &&
        Date.parse(String(hedge.opened_at ?? '')) >= from;
      const reference =
        typeof body.client_reference === 'string' && body.client_reference !== '' ? body.client_reference : undefined;
      if (reference) {
        const carrying = (await client.listHedges({ clientReference: reference })).filter(
          (hedge) => sameReference(hedge.client_reference, reference) && since(hedge),
        );
        const hedge = carrying[0];
        if (hedge)
          return landed(
            hedge,
            `hedge ${safeText(hedge.id)} carries reference ${safeText(reference)} (${safeText(hedge.status)}, opened ${safeText(String(hedge.opened_at))})`,
          );
        // An accepted open is listed at once (submitted, then filled or failed), so none carrying its reference means none was made.
        return {
          verdict: 'not-landed',
          evidence: `no hedge carrying reference ${safeText(reference)} was opened since the entry was made`,
        };
      }
      const opened = (await client.listHedges()).filter(since);
      const named = opened
        .slice(0, 3)
        .map(
          (hedge) =>
            `${safeText(hedge.id)} (${formatUsd(hedge.notional_usd)}, opened ${safeText(String(hedge.opened_at))})`,
        )
        .join(', ');
      return {
        verdict: 'unknown',
        evidence: opened.length
          ? `${opened.length} ${safeText(String(onSide))} hedge${opened.length === 1 ? ' was' : 's were'} opened on ${safeText(onMarket)} since the entry was made: ${named}; any of them may be this one`
          : `no ${safeText(String(onSide))} hedge on ${safeText(onMarket)} was opened since the entry was made, but without a hedge id or a reference that does not prove the open never arrived`,
      };
    },
    // The fill shows on the hedge's record first; exit 0 once the positions list shows the side with it too.
    wait: async (answer, { startedAt, sentEarlier }) => {
      const hedge = await waitForHedgeStatus(ports, answer.hedge_id, {
        label: sentLine(answer.hedge_id, answer.order_tx_hash, sentEarlier, 'the fill'),
        startedAt,
      });
      if (hedge.status === 'filled') {
        // Waited for in every view, or until its record shows it ended since (the side has moved on).
        await alsoInEveryView(
          turn,
          `Hedge ${safeText(hedge.id)} is filled on its record`,
          (book) => book.filled.some((record) => record.id === hedge.id) || book.ended.includes(hedge.id),
        );
      }
      return hedge;
    },
    outcome: (hedge) => (hedge.status === 'failed' ? 'failed' : 'filled'),
  };
}

/** After a write's own view confirmed it, the other views are waited for too (side-book.ts): the side as they show it. */
async function alsoInEveryView(
  turn: Turn,
  confirmed: string,
  until: (book: SideBook) => boolean,
  polled?: BookPosition[],
) {
  const { ports, client, request } = turn;
  turn.after = await readSideInStep(ports, client, request.market, request.side, until, polled).then(
    ({ book }) => sideAfterOf(book),
    (error: unknown) => {
      if (error instanceof UnresolvedError || ports.signal.aborted) throw error;
      ports.notify({
        kind: 'not-seen-everywhere',
        level: 'warn',
        text: `${confirmed}; whether every other view shows it could not be read (${safeText(messageOf(error))}).`,
      });
      return undefined;
    },
  );
  return turn.after;
}

/** What an add or reduce waited for: the positions list's answer, the hedge, what a reduce realized and the balance
 * around it, the position read before the send (a resumed run did not read it), and an add's quoted price. */
type ChangeResult = Awaited<ReturnType<ReturnType<typeof changeHooks>['wait']>>;

/** What one change learns before it is sent, kept for its wait and its rendering. */
interface ChangeSeen {
  /** The side's position, read once by whichever needs it first (the wait's baseline, or the quote). */
  position?: Promise<BookPosition | undefined>;
  book?: SideBook;
  before?: BookPosition;
  balanceBeforeUsdc?: number;
  quote?: Quote;
}

/** Add or reduce: one shape; an add is quoted before its question, a reduce reads what it released from the balance. */
function changeHooks(turn: Turn<ChangeRequest, 'add' | 'reduce'>) {
  const { ports, client, kind: action, request, record } = turn;
  const { market, side, notional_usd: notionalUsd } = request;
  const seen: ChangeSeen = {};
  const seePositions = `\`${ports.hedgeCommand('positions')}\``;
  const readBalance = () =>
    client.getAccount().then(
      (account) => account.balance_usdc,
      (error: unknown) => {
        if (ports.signal.aborted) throw error;
        return undefined;
      },
    );
  // The side's positions line before the change, read once its views agree and show this account's fresh opens of it
  // (a fresh fill is not a missing side).
  const positionBefore = () =>
    (seen.position ??= readSidesAsAnswered(ports, client, [{ market, side }]).then(({ books: [book], positions }) => {
      seen.book = book;
      const position = book.state === 'in-step' ? findSide(positions, market, side) : undefined;
      return position && sizedByRecords(position, book);
    }));
  // The side left the positions list although this change would not close it: settled or closed.
  const sideGoneFirst = async (baseline: number, expected: number, hedgeId: string | undefined) => {
    const hedge = hedgeId ? await client.getHedge(hedgeId).catch(() => undefined) : undefined;
    const notional = hedge?.notional_usd;
    if (notional !== undefined && near(notional, expected)) {
      ports.notify({
        kind: 'change-then-settled',
        level: 'note',
        text: `The ${side} hedge on ${market} ${safeText(hedge!.id)} carries the ${action} (${formatUsd(notional)}) and has since left the positions list (it settled or was closed).`,
      });
      return;
    }
    const details = {
      market,
      side,
      hedge_id: hedgeId ?? null,
      before_usd: baseline,
      ...(notional !== undefined && { hedge_notional_usd: notional }),
    };
    if (notional !== undefined && near(notional, baseline)) {
      throw new NotAppliedError(
        `The ${action} of ${formatUsd(notionalUsd)} did not happen: the ${side} hedge on ${market} (${safeText(hedgeId!)}) settled or was closed at ${formatUsd(baseline)} before the ${action} reached it; its margin is back in the balance.`,
        {
          hint: `The side is flat now: see ${seePositions}; open a new hedge if it should be covered.`,
          details,
        },
      );
    }
    throw new UnresolvedError(
      `The ${side} side of ${market} left the positions list during the ${action}, and ${hedge ? `its hedge shows ${notional === undefined ? 'no readable notional' : formatUsd(notional)}` : 'its hedge cannot be read'}: whether the ${action} happened before it settled or closed cannot be told.`,
      { hint: `See \`${ports.hedgeCommand('history')}\`, then record what happened.`, details },
    );
  };

  return {
    check: async () => {
      if (record.serverDecides) return;
      // A hedge to change is needed: refused before anything is journaled when every view shows the side flat.
      await positionBefore();
      const book = seen.book;
      if (book?.state !== 'flat' || book.opening.length) return;
      throw new PreTradeCheckError(
        'no_open_hedge',
        `There is no ${side} hedge on ${market} to ${action}: its hedge records and the positions list both show the side flat. Nothing was sent.`,
        { market, side },
        `Check ${seePositions}; open one with \`${ports.hedgeCommand('open', market, side, '<usd>', '--tenor', '<days>')}\`.`,
      );
    },
    // An add is quoted for its cost before it is confirmed, at the hedge's own maturity (and the quote shown).
    preview:
      action === 'add'
        ? async () => {
            const position = await positionBefore();
            if (!position) {
              ports.notify({
                kind: 'addition-not-quoted',
                level: 'note',
                text: `No ${side} position on ${market} shows in the positions list, so the addition is not quoted; the server decides (${seePositions}).`,
              });
              return;
            }
            // The addition keeps the hedge's maturity; a position silent about it is completed from its hedge.
            const hedge =
              position.maturityAt === undefined && position.hedgeId
                ? await client.getHedge(position.hedgeId).catch(() => undefined)
                : undefined;
            const maturityAt = position.maturityAt ?? hedge?.maturity_at ?? undefined;
            // Its days left on the server's clock, which its maturity is on.
            const now = client.transport.serverNow().bestMs;
            const quote = (seen.quote = await client.createQuote({
              market,
              side,
              notional_usd: notionalUsd,
              tenor_days: additionQuoteTenor(maturityAt, now, hedge?.tenor_days),
            }));
            ports.notify({
              kind: 'addition-quote',
              level: 'note',
              text: `The addition of ${formatUsd(notionalUsd)} to the ${side} hedge on ${market} quoted at ${formatRate(quote.pricing.execution_price)}.`,
              show: { card: 'addition-quote', quote, maturityAt, daysLeft: daysUntil(maturityAt, now), position },
            });
          }
        : undefined,
    // The notional before the change, journaled: the wait (and a resumed one) ends when the list shows another.
    before: async () => {
      const [position, balance] = await Promise.all([
        positionBefore(),
        // A reduce: what it released, from the balance before and after.
        action === 'reduce' ? readBalance() : undefined,
      ]);
      seen.before = position;
      seen.balanceBeforeUsdc = balance;
      if (position?.notionalUsd === undefined) return;
      return {
        baseline_notional_usd: position.notionalUsd,
        ...(position.hedgeId && { hedge_id: position.hedgeId }),
        // The deal it changes, for the journal's Ref (a change's request names none), and the side's hedges.
        ...sideContext(seen.book),
      };
    },
    question: () => {
      const hedge = `the ${side} hedge on ${market}${turn.held?.hedge_ids.length ? ` (${hedgesWords(turn.held)})` : ''}`;
      return action === 'add'
        ? `Add ${formatUsd(notionalUsd)} to ${hedge}${seen.quote ? ` at about ${formatRate(seen.quote.pricing.execution_price)}, ${formatMoney(seen.quote.upfront.total_upfront_usdc)} USDC upfront` : ''}?`
        : `Remove ${formatUsd(notionalUsd)} from ${hedge}?`;
    },
    // The side's notional now, against the one recorded before the send.
    reconcile: async (entry) => {
      const answer = submittedAnswer(entry);
      const baseline = entry.context?.baseline_notional_usd;
      // The side once its records and positions line agree: a list lagging a landed change is never taken as not landed.
      const { position, settling } = await sideInStep(ports, client, market, side, entry);
      if (settling) return { verdict: 'landed', evidence: settling, answer };
      const now = position?.notionalUsd;
      const shown =
        position === undefined
          ? `no ${side} position on ${market}`
          : now === undefined
            ? `a ${side} position without a readable notional`
            : `the ${side} side is ${formatUsd(now)}`;
      if (typeof baseline !== 'number') {
        return {
          verdict: 'unknown',
          evidence: `${shown} now, and the side was not in the positions list before the ${action} was sent, so there is nothing to compare with`,
        };
      }
      const before = entry.context?.hedge_id;
      if (typeof before === 'string' && position?.hedgeId !== undefined && position.hedgeId !== before) {
        return {
          verdict: 'unknown',
          evidence: `${shown} now, under another hedge (${safeText(position.hedgeId)}) than before the ${action} (${safeText(before)})`,
        };
      }
      const expected = expectedAfterChange(action, baseline, notionalUsd);
      const evidence = `${shown} now; it was ${formatUsd(baseline)} before the ${action} was sent, and would be ${expected.notionalUsd > 0.005 ? formatUsd(expected.notionalUsd) : 'closed'} after it`;
      if ((now !== undefined && near(now, expected.notionalUsd)) || (position === undefined && expected.closes))
        return { verdict: 'landed', evidence, answer };
      // The notional it had before is no proof: a change outside the journal may have moved it back.
      return { verdict: 'unknown', evidence };
    },
    // Until the positions list shows the change, then the hedge is read (and a reduce's balance and record).
    wait: async (answer, { startedAt, before, sentEarlier }) => {
      const baseline = typeof before?.baseline_notional_usd === 'number' ? before.baseline_notional_usd : undefined;
      if (baseline === undefined) {
        // Exit 0 rests on the change's own effect on the side: with no notional before it, there is none to see.
        throw new UnresolvedError(
          `The ${side} side of ${market} showed no notional hedge could read before the ${action}, so whether the ${action} landed cannot be told.`,
          {
            hint: `Look at ${seePositions} and \`${ports.hedgeCommand('hedges')}\`, then record what happened:`,
            details: { market, side },
          },
        );
      }
      const outcome = await waitForOwnChange(ports, {
        label: sentLine(action, answer.order_tx_hash, sentEarlier, 'it to land'),
        startedAt,
        market,
        side,
        baselineNotionalUsd: baseline,
        changeUsd: notionalUsd,
        action,
      });
      // Confirmed by the positions list; the hedge itself is read once more to show it whole.
      const hedgeId =
        answer.hedge_id ??
        outcome.position?.hedgeId ??
        (typeof before?.hedge_id === 'string' ? before.hedge_id : undefined);
      const expected = expectedAfterChange(action, baseline, notionalUsd);
      if (outcome.closed && !expected.closes) await sideGoneFirst(baseline, expected.notionalUsd, hedgeId);
      // ... and then on the hedge records: exit 0 once every view shows the change (domain/book.ts).
      else {
        await alsoInEveryView(turn, `The positions list shows the ${action}`, (book) =>
          outcome.closed ? book.state === 'flat' : near(book.recordsUsd, expected.notionalUsd),
        );
      }
      const [hedge, balanceAfterUsdc, realized] = await Promise.all([
        hedgeId ? client.getHedge(hedgeId).catch(() => undefined) : undefined,
        seen.balanceBeforeUsdc !== undefined ? readBalance() : undefined,
        // A reduce of about the whole position closed it: its record says what it realized.
        outcome.closed && hedgeId && ports.forPeople
          ? findClosedRecord(ports, endedHedges(hedgeId, before))
          : undefined,
      ]);
      return {
        ...outcome,
        // What it sent, as its request holds it (under whatever name the server gives the amount), and the side after.
        action,
        market,
        side,
        notionalUsd,
        afterNotionalUsd: outcome.notionalUsd,
        hedge,
        balanceAfterUsdc,
        realized,
        before: seen.before,
        quotedPrice: seen.quote?.pricing.execution_price,
        balanceBeforeUsdc: seen.balanceBeforeUsdc,
      };
    },
  } satisfies KindHooks<SubmittedAction, unknown>;
}

/** The hedges a close of the side ended: the one the answer named and those the side held before the send (journaled
 * with the entry, so that a resume names them too), less any open now. */
function endedHedges(hedgeId: string, before: JsonObject | undefined, open?: SideAfter) {
  const held = Array.isArray(before?.hedge_ids) ? before.hedge_ids.filter((id) => typeof id === 'string') : [];
  return [...new Set([...held.filter((id) => !open?.hedge_ids.includes(id)), hedgeId])];
}

/** What the journal records of a side's filled hedges beside an action whose request names neither: the deal
 * references, and the hedges' ids when there are several (a close ends every one). */
function sideContext(book: { filled: ReadonlyArray<{ id: string; clientReference?: string }> } | undefined) {
  const filled = book?.filled ?? [];
  const references = [...new Set(filled.flatMap((record) => record.clientReference ?? []))];
  return {
    ...(references.length && { client_reference: references.join(', ') }),
    ...(filled.length > 1 && { hedge_ids: filled.map((record) => record.id) }),
  };
}

/** What a close waited for: what it is expected to return, the hedge it closed and what that realized. */
export type CloseResult = Extract<TradeView, { kind: 'close-landed' }>['closed'];

function closeHooks(turn: Turn<SideRequest>): KindHooks<SubmittedAction, CloseResult> {
  const {
    ports,
    client,
    request: { market, side },
  } = turn;
  let estimate: number | undefined;
  let hedgeBefore: string | undefined;
  /** The side's notional in the book when last read before a send (by an agent's limits, or the wait's read). */
  let inBook: number | undefined;
  /** What it trades, as last read (the confirmation question shows it). */
  let traded: number | undefined;
  /** What a resumed close's entry recorded it trades: a side already closed by it reads 0 in the book. */
  let tradedBefore: number | undefined;
  return {
    // What closing is expected to return: the position's net margin right before the close.
    before: async () => {
      const views = await SideViews.read(client, (line) => ports.log(line));
      const book = readableBook(await views.book(market, side), market, side);
      const position = findSide(views.positions, market, side);
      estimate = position?.netMarginUsd;
      hedgeBefore = position?.hedgeId ?? book.filled[0]?.id;
      // A side read flat holds 0: journaled, a resume tells it from a side that was not read.
      const flat = !position && book.state === 'flat' && !book.opening.length;
      const notional = book.filled.length ? book.recordsUsd : flat ? 0 : position?.notionalUsd;
      inBook ??= notional;
      return withoutUndefined({
        net_margin_usd: estimate,
        ...(hedgeBefore && { hedge_id: hedgeBefore }),
        notional_usd: notional,
        // The deal it closes, for the journal's Ref (a close's request names none), and the side's hedges.
        ...sideContext(book),
      });
    },
    question: () => {
      const notes = [
        ...(estimate === undefined ? [] : [`returns about ${formatMoney(estimate)} USD`]),
        ...(turn.held?.hedge_ids.length
          ? [`hedge${turn.held.hedge_ids.length === 1 ? '' : 's'} ${hedgesWords(turn.held)}`]
          : []),
      ];
      return `Close the ${side} position on ${market}${traded === undefined ? '' : ` of ${formatUsd(traded)}`}${notes.length ? ` (${notes.join('; ')})` : ''}?`;
    },
    // A close trades what the side holds when sent, with every add still landing (read before each send).
    trades: async () => {
      const [{ book }, landing] = await Promise.all([
        readSideInStep(ports, client, market, side),
        addsStillLanding(ports, market, side),
      ]);
      inBook = cents(book.recordsUsd + book.opening.reduce((sum, record) => sum + (record.notionalUsd ?? 0), 0));
      traded = cents(inBook + landing);
      turn.held = sideAfterOf(book);
      return [{ market, notionalUsd: traded, held: turn.held }];
    },
    // The side's presence in the positions list.
    reconcile: async (entry) => {
      tradedBefore = entry.traded_usd;
      const { position, filled, settling } = await sideInStep(ports, client, market, side, entry);
      const answer = submittedAnswer(entry);
      if (settling) return { verdict: 'landed', evidence: settling, answer };
      const neverAnswered = !wasAnswered(entry);
      if (!position) {
        const gone = `the ${side} side of ${market} is no longer in the positions list`;
        const context = entry.context;
        const hedgeAtSend = typeof context?.hedge_id === 'string' ? context.hedge_id : undefined;
        // What the side held at the send, as read before it (journaled with the entry): not read (a run that did not
        // wait), its absence proves nothing; read empty, a gone side is not this close's doing.
        if (hedgeAtSend === undefined && typeof context?.notional_usd !== 'number')
          return { verdict: 'unknown', evidence: `${gone}, and what it held when the close was sent was not read` };
        if (hedgeAtSend === undefined && context?.notional_usd === 0) {
          const evidence = `${gone}, and it was not open when the close was about to be sent`;
          return { verdict: neverAnswered ? 'not-landed' : 'unknown', evidence };
        }
        // The journal's own reduces since emptied the side: its absence is theirs, not necessarily this close's.
        if (typeof context?.notional_usd === 'number' && context.notional_usd <= 0.005) {
          return {
            verdict: 'unknown',
            evidence: `${gone}, but the changes the journal knows landed since this close began had already emptied it`,
          };
        }
        // A hedge past its maturity leaves the list by settling: its absence says nothing of this close.
        if (hedgeAtSend !== undefined) {
          const hedge = await client.getHedge(hedgeAtSend).catch(() => undefined);
          const maturity = hedge?.maturity_at ? Date.parse(String(hedge.maturity_at)) : Number.NaN;
          // The latest the server's clock can read: a hedge that may have matured may have settled.
          const now = client.transport.serverNow().latestMs;
          if (!hedge || !Number.isFinite(maturity) || maturity <= now) {
            const why = !hedge
              ? `its hedge ${safeText(hedgeAtSend)} cannot be read`
              : !Number.isFinite(maturity)
                ? `its hedge ${safeText(hedgeAtSend)} shows no maturity`
                : `its hedge ${safeText(hedgeAtSend)} reached its maturity (${safeText(String(hedge.maturity_at))}) and may have settled`;
            return { verdict: 'unknown', evidence: `${gone}, but ${why}` };
          }
        }
        return { verdict: 'landed', evidence: gone, answer };
      }
      const before = entry.context?.hedge_id;
      if (typeof before === 'string' && position.hedgeId !== undefined && position.hedgeId !== before) {
        return {
          verdict: 'unknown',
          evidence: `the ${side} side of ${market} is open under another hedge (${safeText(position.hedgeId)}) than the one it was to close (${safeText(before)})`,
        };
      }
      const evidence = `the ${side} side of ${market} is still open${position.notionalUsd === undefined ? '' : ` (${formatUsd(position.notionalUsd)})`}`;
      // A close ends every hedge of the side: the one it was to close still filled is proof it did not land.
      if (neverAnswered && typeof before === 'string' && filled.includes(before))
        return { verdict: 'not-landed', evidence: `${evidence}, and its hedge ${safeText(before)} is still filled` };
      return { verdict: 'unknown', evidence };
    },
    // What it closed, for an agent's daily cap: the largest of the server's word, the book's figure and what a resumed
    // entry recorded.
    submitted: (answer) => {
      const figures = [readNumber(answer.notional_usd), inBook, tradedBefore].filter((usd) => usd !== undefined);
      const closed = figures.length ? Math.max(...figures.map(Math.abs)) : undefined;
      return {
        hedge_id: answer.hedge_id ?? hedgeBefore,
        order_tx_hash: answer.order_tx_hash ?? undefined,
        ...(closed !== undefined && { traded_usd: Math.abs(closed) }),
      };
    },
    wait: async (answer, { startedAt, before, sentEarlier }) => {
      const kept = before ?? {};
      const hedgeId = answer.hedge_id ?? (typeof kept.hedge_id === 'string' ? kept.hedge_id : undefined);
      const polled = await waitForSideClosed(ports, {
        label: sentLine('close', answer.order_tx_hash, sentEarlier, `the ${side} position to close`),
        startedAt,
        market,
        side,
        hedgeId,
      });
      // The positions list confirms a close (the spec); exit 0 once the records (or the history) show it too.
      const after = await alsoInEveryView(
        turn,
        `The ${side} side of ${market} has left the positions list`,
        (book) =>
          book.state === 'flat' ||
          (hedgeId !== undefined && !book.filled.some((record) => record.id === hedgeId) && book.state === 'in-step'),
        polled,
      );
      const realized = hedgeId ? await findClosedRecord(ports, endedHedges(hedgeId, kept, after)) : undefined;
      return {
        market,
        side,
        estimate: typeof kept.net_margin_usd === 'number' ? kept.net_margin_usd : undefined,
        hedgeId,
        realized,
        ...(after?.hedge_ids.length && { openNow: after }),
      };
    },
  };
}

/** Adds the journal knows and the book may not show yet: unresolved ones, and --no-wait ones within a wait's bound. */
async function addsStillLanding(ports: WritePorts, market: string, side: string) {
  const { since, of } = await ownRecentOf(ports, 'add');
  const landing = of(market, side).filter(
    (entry) =>
      (isUnresolved(entry) && entry.outcome !== 'planned') ||
      (entry.outcome === 'done' &&
        entry.message === NOT_WAITED_MESSAGE &&
        Date.parse(entry.resolved_at ?? entry.created_at) >= since),
  );
  return landing.reduce((sum, entry) => sum + tradedUsd(entry), 0);
}

/** One step of a plan (an apply's, the keeper's) as the record of the write that carries it out (and whose request a
 * live confirmation is bound to). */
export function stepRecord(step: PlanStep, group: string, leg: string) {
  const { action, market, side, tenorDays, clientReference } = step;
  if (action === 'open' && tenorDays === undefined)
    throw new UsageError(`step ${leg}: an open of ${market} ${side} needs a tenor; give tenor_days on its row.`);
  const open = action === 'open' && {
    tenor_days: tenorDays,
    ...(clientReference !== undefined && { client_reference: clientReference }),
  };
  const request =
    action === 'close' ? { market, side } : { market, side, notional_usd: Math.abs(step.deltaUsd), ...open };
  return tradeRecord(action, request, { group, leg });
}

/** The record a journal entry was, rebuilt from its recorded request (a resume); undefined when it is no trade. */
export function recordFromJournal(client: HedgeClient, entry: JournalEntry) {
  const { command, request, group, leg } = entry;
  const body = request?.body;
  if (!Object.hasOwn(KINDS, command) || typeof body !== 'object' || !body || Array.isArray(body)) return;
  const change = command === 'add' || command === 'reduce';
  const argv = Array.isArray(entry.argv) ? entry.argv.map(String) : [command];
  // An apply step stays a leg of its run: its journal entry is matched with its group and leg.
  return tradeRecord(
    command as TradeKind,
    change ? client.changeRequestFromBody(body as JsonObject) : (body as SideRequest),
    {
      argv,
      group,
      leg,
    },
  );
}

/** What a trade's outcome shows; undefined for a dry run or an action recorded without sending. What a change sent
 * comes from its own result, never from a body (a journaled one names the amount as the server does). */
export function tradeView(command: string, outcome: WriteOutcome<unknown, unknown>): TradeView | undefined {
  if (outcome.kind === 'dry-run' || outcome.kind === 'recorded') return;
  const submitted = outcome.kind === 'submitted';
  const answer = outcome.answer as SubmittedAction;
  if (command === 'open')
    return submitted
      ? { kind: 'open-submitted', answer: outcome.answer as OpenedHedge }
      : { kind: 'open-resolved', hedge: outcome.result as Hedge };
  if (command === 'close')
    return submitted
      ? { kind: 'close-submitted', answer }
      : { kind: 'close-landed', closed: outcome.result as CloseResult, answer };
  if (command !== 'add' && command !== 'reduce') return;
  const result = submitted ? undefined : (outcome.result as ChangeResult | undefined);
  if (!result) return { kind: 'change-submitted', action: command, answer };
  const baseline = outcome.entry.context?.baseline_notional_usd;
  const change = { ...result, baselineUsd: typeof baseline === 'number' ? baseline : undefined };
  return { kind: 'change-landed', change, answer };
}

/** An open that failed on-chain is an error once shown (exit code from errors.ts, as any failure). */
export function tradeFailure(ports: Pick<CommandContext, 'hedgeCommand'>, view: TradeView | undefined) {
  if (view?.kind !== 'open-resolved' || view.hedge.status !== 'failed') return;
  const hedge = view.hedge;
  return new OrderFailedError(
    `The order for hedge ${hedge.id} failed on-chain: nothing was opened, and the reserved margin and fee were released.`,
    hedge.id,
    `Check the market with \`${ports.hedgeCommand('markets')}\`, then open again (a new run uses a new idempotency key).`,
  );
}

// Before an earlier action is sent again, the book is compared with what its journal entry recorded before it
// was first sent.

/** What the server answered an add, a reduce or a close with, as the entry recorded it. */
function submittedAnswer(entry: JournalEntry) {
  return {
    status: 'submitted',
    ...(entry.hedge_id && { hedge_id: entry.hedge_id }),
    ...(entry.order_tx_hash && { order_tx_hash: entry.order_tx_hash }),
  };
}

/** Whether the server answered the entry's send (accepted it): an outcome past `pending` that is not `unknown`. */
const wasAnswered = (entry: JournalEntry) => entry.outcome !== 'pending' && entry.outcome !== 'unknown';

/** The side once its views agree, for a resume's reconcile: in step, its positions line and the ids of its filled
 * hedges; flat, none. Still settling at the read's bound, an entry the server answered is that action landing
 * (`settling` says so: followed, never sent again); an unanswered one, "cannot tell" (exit 12). */
async function sideInStep(ports: WritePorts, client: HedgeClient, market: string, side: Side, entry: JournalEntry) {
  try {
    const { book, positions } = await readSideInStep(ports, client, market, side);
    if (book.state !== 'in-step') return { filled: [] };
    return { position: findSide(positions, market, side), filled: book.filled.map((record) => record.id) };
  } catch (error) {
    if (!wasAnswered(entry) || !(error instanceof UnresolvedError) || ports.signal.aborted) throw error;
    const why = safeText(String(error.details.why ?? 'its views disagree'));
    return {
      filled: [],
      settling: `the server accepted this ${safeText(entry.command)}, and the ${side} side of ${market} is settling (${why})`,
    };
  }
}
