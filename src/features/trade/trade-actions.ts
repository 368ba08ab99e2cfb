// The four state-changing actions of the API as data for the one write flow (write-flow.ts): how each is
// planned, sent, waited for and shown.
import type { HedgeClient, OpenRequest, SideRequest } from '../../platform/api/client.js';
import {
  expectedAfterChange,
  mayHaveMatured,
  changeVerdict,
  holdsHedge,
  notionalVerdict,
  recordStanding,
  sideHolds,
  stillLive,
  type SideBook,
} from '../book/book.js';
import type { Hedge, HistoryRecord, Quote, SubmittedAction } from '../../platform/api/schemas.js';
import { cents } from '../../core/money.js';
import {
  NotAppliedError,
  PreTradeCheckError,
  StillPendingError,
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
import { safeText, messageOf } from '../../core/security/safe-text.js';
import type { WritePorts } from '../write/ports.js';
import { tradedUsd } from '../write/row-trust.js';
import { formatMoney, formatRate, formatUsd, plural, readNumber, shortHash } from '../../core/number-format.js';
import { cutSide, hedgeRecord, readableBook, readSideInStep, sideAfterOf, SideViews } from '../book/side-book.js';
import { findSide, readBook, type BookPosition } from '../book/positions.js';
import {
  findClosedRecord,
  waitForHedgeStatus,
  pollUntil,
  readSidesAsAnswered,
  ownRecentOf,
  sizedByRecords,
} from '../write/wait.js';
import {
  isRejection,
  runWrite,
  settleWrite,
  type WriteAction,
  type WriteKind,
  type WriteOptions,
  type WriteRecord,
} from '../write/write-flow.js';
import {
  notionalFieldFrom,
  refusedField,
  wireHint,
  WIRE_SETTING_SOURCES,
} from '../../platform/api/wire/unspecified.js';
import {
  additionQuoteTenor,
  daysUntil,
  mustStop,
  questionWithUnchecked,
  runPreTradeChecks,
  sideAlreadyOpenNote,
  uncheckedList,
  type Unchecked,
} from './pre-trade.js';
import { MAX_PAGE_SIZE } from '../../core/wire.js';
import { shellWord } from '../../core/program.js';
import { hedgesWords } from '../write/confirm.js';
import { sameReference } from '../../core/input.js';
import { withoutUndefined, type JsonObject } from '../../core/objects.js';

/** An open's hedge is looked for from a little before the entry was made (clocks of two machines differ). */
const CLOCK_SKEW_MS = 5 * 60_000;

/** A trade as data: its kind, its request, and what its caller adds. */
export interface TradeRecord extends WriteRecord {
  kind: TradeKind;
  request: SideRequest;
  /** What its caller asks for before the kind's own check and preview: the optional pre-trade checks, the duplicate
   * reference check, an open's quote said before the question. What a check could not read is named in the question. */
  checks?: { duplicateReference?: boolean; preTrade?: boolean; quote?: boolean };
  /** `--skip-checks`: the server alone refuses a change to a flat side (nothing is refused here). */
  serverDecides?: boolean;
  /** The question its caller showed with its own card in view (the wizard's), asked instead of the kind's. */
  question?: string;
}

/** A wait's line: what was sent, by this run or earlier (a resume that found it landed sends nothing), and what it waits for. */
function sentLine(what: string, hash: unknown, sentEarlier: boolean | undefined, waiting: string) {
  return `${sentEarlier ? 'Sent earlier:' : 'Submitted'} ${what}${typeof hash === 'string' && hash ? ` (tx ${shortHash(hash)})` : ''}, waiting for ${waiting}`;
}

/** What a question says of the quote it was shown with: its price and what it costs upfront. */
const atAbout = (quote?: Quote) =>
  quote
    ? ` at about ${formatRate(quote.pricing.execution_price)}, ${formatMoney(quote.upfront.total_upfront_usdc)} USDC upfront`
    : '';

export const days = (tenor: number) => plural(tenor, 'day');

type TradeKind = keyof typeof KINDS;

/** What a trade read before its send, kept for its later stages (write-flow.ts passes it from stage to stage). */
interface TradeKept {
  /** The quote its preview showed (an open's, an add's): its question and its card say it. */
  quote?: Quote;
  /** An add's or reduce's side as read once before it: its positions line (sized by its records) and its book. */
  position?: { line?: BookPosition; book: SideBook };
  /** A reduce's balance before it: what it released is the difference after. */
  balanceBeforeUsdc?: number;
  /** A close's hedge and the side's notional in the book, as read before it. */
  hedgeBefore?: string;
  inBookUsd?: number;
}

/** What a kind declares beyond its words and endpoints: the hooks that ask, wait for and reconcile it. */
type KindHooks = Partial<WriteKind<SubmittedAction, unknown, TradeKept>> &
  Pick<WriteKind<SubmittedAction, unknown, TradeKept>, 'question' | 'wait'>;

/** Each kind once, in words; tradeAction binds a record to its kind's hooks.
 * (`hedge api`'s writes are bound by api-call.ts apiAction: the request is the call, proven by the answer alone.) */
const KINDS = {
  open: { verb: 'open a hedge', hooks: openHooks },
  add: { verb: 'add to a hedge', hooks: changeHooks },
  reduce: { verb: 'reduce a hedge', hooks: changeHooks },
  close: { verb: 'close a position', hooks: closeHooks },
};

/** What the book shows about an earlier send, as a reconcile returns it (the answer followed when it landed). */
const found = (verdict: 'landed' | 'not-landed' | 'unknown', evidence: string, answer?: SubmittedAction) => ({
  verdict,
  evidence,
  answer,
});

/** A trade's record: its kind's words, the request, the side it moves, and what its caller adds. */
export function tradeRecord(kind: TradeKind, request: SideRequest, fields: Partial<TradeRecord> = {}) {
  const { market, side, notional_usd, tenor_days, client_reference } = request as OpenRequest;
  // The command line it is journaled under (and shown in hints) when its caller names none.
  const open = ['--tenor', tenor_days, ...(client_reference ? ['--ref', client_reference] : [])];
  const argv = [kind, market, side, ...(kind === 'close' ? [] : [notional_usd]), ...(kind === 'open' ? open : [])];
  return {
    ...fields,
    kind,
    request,
    command: kind,
    verb: KINDS[kind].verb,
    argv: fields.argv ?? argv.map(String),
    side: { market, side },
  };
}

/** The record's kind's behaviour bound to it, for the write flow: the caller's checks before the kind's own (what
 * they could not read named in its question), its endpoint, and the ids every kind journals. */
export function tradeAction(
  ports: WritePorts,
  client: HedgeClient,
  record: TradeRecord,
): WriteAction<SubmittedAction, unknown, TradeKept> {
  const t = scopeOf(ports, client, record);
  const { kind, request, checks, market, side, usd, reference } = t;
  const unchecked = uncheckedList(ports);
  // The kind's own hooks (below), over the side and amount this action trades.
  const own = KINDS[kind].hooks(t);
  return {
    ...record,
    submitted: (answer) => ({
      hedge_id: answer.hedge_id ?? undefined,
      order_tx_hash: answer.order_tx_hash ?? undefined,
    }),
    // The amount is the request's; the side's hedges are read (a confirmation binds them).
    trades: async () => [
      { market, notionalUsd: usd, held: sideAfterOf((await readSideInStep(ports, client, market, side)).book) },
    ],
    ...own,
    check: async () => {
      if (reference && checks?.duplicateReference) await refuseDuplicateReference(ports, client, reference, unchecked);
      if (checks?.preTrade)
        await runPreTradeChecks(
          client,
          { market, side, notionalUsd: usd, action: kind === 'add' ? 'add' : 'open' },
          unchecked,
        );
      return own.check?.();
    },
    question: (shown, kept) => questionWithUnchecked(record.question ?? own.question(shown, kept), unchecked),
    plan: (key) => client.plan(kind, request, key),
    send: (key, sendHooks) => client.send(kind, request, key, sendHooks),
  };
}

/** What a kind's hooks act on: the record, its request's fields, the reads every kind shares, and a change's or close's refusal of a flat side. */
function scopeOf(ports: WritePorts, client: HedgeClient, record: TradeRecord) {
  const { market, side, notional_usd, tenor_days, client_reference } = record.request as OpenRequest;
  return {
    ports,
    client,
    record,
    kind: record.kind,
    request: record.request,
    checks: record.checks,
    market,
    side,
    usd: notional_usd,
    tenorDays: tenor_days,
    reference: client_reference,
    hedgeCommand: ports.hedgeCommand,
    notify: ports.notify,
    signal: ports.signal,
    /** A hedge's record; undefined when it has no id or cannot be read. */
    readHedge: (id: string | null | undefined) => (id ? client.getHedge(id).catch(() => undefined) : undefined),
    /** A change or a close of a side every view shows flat is refused before anything is journaled. */
    refuseFlat: (book: SideBook, hint = '') => {
      if (sideHolds(book).holds === 'flat')
        throw new PreTradeCheckError(
          'no_open_hedge',
          `There is no ${side} hedge on ${market} to ${record.kind}: its hedge records and the positions list both show the side flat. Nothing was sent.`,
          { market, side },
          `Check \`${ports.hedgeCommand('positions')}\`${hint}.`,
        );
    },
  };
}

type TradeScope = ReturnType<typeof scopeOf>;

/** A reduce larger than what every view agrees the side holds: the server would refuse it (notional_too_large), so it is
 * refused before it is journaled or sent, saying what is held. A side whose views disagree is the server's to judge. */
function refuseBeyondHeld(
  { ports, market, side, usd }: TradeScope,
  { line, book }: { line?: { notionalUsd?: number }; book: SideBook },
) {
  const holds = sideHolds(book);
  if (holds.holds !== 'held' || line?.notionalUsd === undefined) return;
  const heldUsd = Math.max(holds.notionalUsd, line.notionalUsd);
  if (cents(usd - heldUsd) <= 0) return;
  throw new PreTradeCheckError(
    'notional_too_large',
    `The ${side} side of ${market} holds ${formatUsd(heldUsd)} (${holds.ids.join(', ')}): a reduce of ${formatUsd(usd)} is more than it holds. Nothing was sent.`,
    { market, side, notional_usd: usd, held_usd: heldUsd },
    `Reduce by ${formatUsd(heldUsd)} or less, or close the side: \`${ports.hedgeCommand('close', market, side)}\`.`,
  );
}

/** An open: quoted before its question, found again by its hedge's id or reference, waited for until it fills. */
function openHooks(t: TradeScope): KindHooks {
  const { ports, client, checks, market, side, usd, tenorDays, hedgeCommand, notify, signal, readHedge } = t;
  return {
    // The quote is said (a card on a terminal) before the question, unless the caller quoted already; before it, the
    // side already in the positions list is said, pointing to `hedge add` (a note on stderr, never a refusal).
    preview: checks?.quote
      ? async (kept) => {
          let open;
          try {
            open = findSide(await readBook(client, ports.log), market, side);
          } catch (error) {
            if (signal.aborted) throw error;
            ports.log(`positions: not read before the open (${messageOf(error)}); no "already open" note`);
          }
          if (open)
            notify({
              kind: 'side-already-open',
              level: 'warn',
              text: sideAlreadyOpenNote(
                { ...open, market: market.toUpperCase(), side },
                hedgeCommand('add', market, side, String(usd)),
              ),
            });
          const quote = await client.createQuote({ market, side, notional_usd: usd, tenor_days: tenorDays });
          notify({
            kind: 'open-quote',
            level: 'note',
            text: `The open of ${formatUsd(usd)} ${side} on ${market} quoted at ${formatRate(quote.pricing.execution_price)}.`,
            show: { card: 'open-quote', quote, nowMs: client.transport.serverNow().bestMs },
          });
          return { ...kept, quote };
        }
      : undefined,
    question: (_shown, kept) =>
      `Open ${side} ${formatMoney(usd)} USD on ${market} for ${days(tenorDays)}${atAbout(kept?.quote)}?`,
    // A confirmation (a person's yes, an agent's token) binds the side as shown, not one opened meanwhile; an agent's
    // limits alone judge the notional, and refuse with nothing read.
    ...(ports.tradeGate && !ports.planCheck && { trades: async () => [{ market, notionalUsd: usd }] }),
    // The hedge by its id (when the answer gave one), else by its client reference.
    // A hedge made is followed to its end (its outcome says whether it failed); one in a status hedge does not know
    // cannot be told (book.ts).
    reconcile: async (entry) => {
      const landed = (hedge: Hedge, evidence: string, txHash?: string) => {
        const standing = recordStanding(hedge);
        return standing.standing === 'settling'
          ? found('unknown', safeText(standing.why))
          : found('landed', evidence, {
              hedge_id: hedge.id,
              order_tx_hash: hedge.order_tx_hash ?? txHash,
              status: hedge.status,
            });
      };
      if (entry.hedge_id) {
        const hedge = await readHedge(entry.hedge_id);
        return hedge
          ? landed(hedge, `hedge ${safeText(hedge.id)} is ${safeText(hedge.status)}`, entry.order_tx_hash)
          : found('unknown', `hedge ${safeText(entry.hedge_id)}, named by the server's answer, cannot be read`);
      }
      const body = bodyOf(entry);
      const onMarket = String(body.market ?? '').toUpperCase();
      const onSide = body.side;
      // From the earlier of the entry's creation and the server's sealed time at its first send (a rewritten creation
      // time cannot hide the hedge).
      const sentAt = readNumber(entry.context?.server_time_ms) ?? Infinity;
      const time = client.transport.serverNow();
      const from = Math.min(Date.parse(entry.created_at) + time.earliestMs - time.localMs, sentAt) - CLOCK_SKEW_MS;
      const reference = stringOf(body.client_reference) || undefined;
      const opened = (await client.listHedges({ clientReference: reference })).filter(
        (hedge) =>
          hedge.market.toUpperCase() === onMarket &&
          hedge.side === onSide &&
          Date.parse(String(hedge.opened_at)) >= from &&
          (!reference || sameReference(hedge.client_reference, reference)),
      );
      const [hedge] = opened;
      // An accepted open is listed at once (submitted, then filled or failed), so none carrying its reference means none was made.
      if (reference)
        return hedge
          ? landed(
              hedge,
              `hedge ${safeText(hedge.id)} carries reference ${safeText(reference)} (${safeText(hedge.status)}, opened ${safeText(String(hedge.opened_at))})`,
            )
          : found(
              'not-landed',
              `no hedge carrying reference ${safeText(reference)} was opened since the entry was made`,
            );
      const named = opened
        .slice(0, 3)
        .map(
          (hedge) =>
            `${safeText(hedge.id)} (${formatUsd(hedge.notional_usd)}, opened ${safeText(String(hedge.opened_at))})`,
        )
        .join(', ');
      const onThe = `${safeText(String(onSide))} hedge`;
      return found(
        'unknown',
        opened.length
          ? `${opened.length} ${onThe}${opened.length === 1 ? ' was' : 's were'} opened on ${safeText(onMarket)} since the entry was made: ${named}; any of them may be this one`
          : `no ${onThe} on ${safeText(onMarket)} was opened since the entry was made, but without a hedge id or a reference that does not prove the open never arrived`,
      );
    },
    // The fill shows on the hedge's record first; exit 0 once the positions list shows the side with it too.
    wait: async (answer, { startedAt, sentEarlier }) => {
      const hedge = await waitForHedgeStatus(ports, answer.hedge_id!, {
        label: sentLine(answer.hedge_id!, answer.order_tx_hash, sentEarlier, 'the fill'),
        startedAt,
      });
      // Waited for in every view, or until its record shows it ended since (the side has moved on).
      const sideAfter =
        recordStanding(hedge).standing === 'filled'
          ? await alsoInEveryView(
              t,
              `Hedge ${safeText(hedge.id)} is filled on its record`,
              (book) => changeVerdict(book, { kind: 'open', before: 0, hedgeId: hedge.id }).verdict === 'landed',
            )
          : undefined;
      return { result: hedge, sideAfter };
    },
    outcome: (hedge) => ('failed' in recordStanding(hedge as Hedge) ? 'failed' : 'filled'),
  };
}

/** After a write's own view confirmed it, the other views are waited for too (side-book.ts): the side as they show it
 * (undefined: not read). */
function alsoInEveryView(
  t: TradeScope,
  confirmed: string,
  until: (book: SideBook) => boolean,
  polled?: BookPosition[],
) {
  const { ports, client, market, side, notify, signal } = t;
  return readSideInStep(ports, client, market, side, until, polled).then(
    ({ book }) => sideAfterOf(book),
    (error: unknown) => {
      if (error instanceof UnresolvedError || signal.aborted) throw error;
      notify({
        kind: 'not-seen-everywhere',
        level: 'warn',
        text: `${confirmed}; whether every other view shows it could not be read (${safeText(messageOf(error))}).`,
      });
      return undefined;
    },
  );
}

/** Add or reduce: one shape; an add is quoted before its question, a reduce reads what it released from the balance. */
function changeHooks(t: TradeScope): KindHooks {
  const { ports, client, record, market, side, usd, hedgeCommand, notify, signal, readHedge } = t;
  const action = t.kind as 'add' | 'reduce';
  const seePositions = `\`${hedgeCommand('positions')}\``;
  const readBalance = () =>
    client.getAccount().then(
      (account) => account.balance_usdc,
      (error: unknown) => {
        if (signal.aborted) throw error;
        return undefined;
      },
    );
  // The side's positions line before the change, read once (by whichever stage needs it first) once its views agree
  // and show this account's fresh opens of it (a fresh fill is not a missing side).
  const readPosition = async (kept?: TradeKept): Promise<NonNullable<TradeKept['position']>> => {
    if (kept?.position) return kept.position;
    const { books, positions } = await readSidesAsAnswered(ports, client, [{ market, side }]);
    const line = books[0].state === 'in-step' ? findSide(positions, market, side) : undefined;
    return { line: line && sizedByRecords(line, books[0]), book: books[0] };
  };
  return {
    check: async () => {
      if (record.serverDecides) return;
      // A hedge to change is needed: refused before anything is journaled when every view shows the side flat.
      const position = await readPosition();
      t.refuseFlat(
        position.book,
        `; open one with \`${hedgeCommand('open', market, side, '<usd>', '--tenor', '<days>')}\``,
      );
      if (action === 'reduce') refuseBeyondHeld(t, position);
      return { position };
    },
    // An add is quoted for its cost before it is confirmed, at the hedge's own maturity (and the quote shown).
    preview:
      action === 'add'
        ? async (kept) => {
            const position = await readPosition(kept);
            const { line } = position;
            if (!line) {
              notify({
                kind: 'addition-not-quoted',
                level: 'note',
                text: `No ${side} position on ${market} shows in the positions list, so the addition is not quoted; the server decides (${seePositions}).`,
              });
              return { ...kept, position };
            }
            // The addition keeps the hedge's maturity; a position silent about it is completed from its hedge.
            const hedge = line.maturityAt === undefined ? await readHedge(line.hedgeId) : undefined;
            const maturityAt = line.maturityAt ?? hedge?.maturity_at ?? undefined;
            // Its days left on the server's clock, which its maturity is on.
            const now = client.transport.serverNow().bestMs;
            const quote = await client.createQuote({
              market,
              side,
              notional_usd: usd,
              tenor_days: additionQuoteTenor(maturityAt, now, hedge?.tenor_days),
            });
            notify({
              kind: 'addition-quote',
              level: 'note',
              text: `The addition of ${formatUsd(usd)} to the ${side} hedge on ${market} quoted at ${formatRate(quote.pricing.execution_price)}.`,
              show: {
                card: 'addition-quote',
                quote,
                maturityAt,
                daysLeft: daysUntil(maturityAt, now),
                nowMs: now,
                position: line,
              },
            });
            return { ...kept, position, quote };
          }
        : undefined,
    // The notional before the change, journaled: the wait (and a resumed one) ends when the list shows another.
    before: async (kept) => {
      // A reduce: what it released, from the balance before and after.
      const [position, balanceBeforeUsdc] = await Promise.all([
        readPosition(kept),
        action === 'reduce' ? readBalance() : undefined,
      ]);
      const { line } = position;
      const read = { kept: { ...kept, position, balanceBeforeUsdc } };
      if (line?.notionalUsd === undefined) return read;
      const journaled = withoutUndefined({
        baseline_notional_usd: line.notionalUsd,
        hedge_id: line.hedgeId || undefined,
        // The deal it changes, for the journal's Ref (a change's request names none), and the side's hedges.
        ...sideContext(position.book),
      });
      return { ...read, journaled };
    },
    question: (shown, kept) => {
      const held = shown?.[0]?.held;
      const hedge = `the ${side} hedge on ${market}${held?.hedge_ids.length ? ` (${hedgesWords(held)})` : ''}`;
      return action === 'add'
        ? `Add ${formatUsd(usd)} to ${hedge}${atAbout(kept?.quote)}?`
        : `Remove ${formatUsd(usd)} from ${hedge}?`;
    },
    reconcile: (entry) => reconcileChange(t, entry),
    // Until the positions list shows the change, then the hedge is read (and a reduce's balance and record).
    wait: async (answer, { startedAt, before, kept = {}, sentEarlier }) => {
      const { balanceBeforeUsdc, quote } = kept;
      const baseline = before?.baseline_notional_usd;
      if (typeof baseline !== 'number') {
        // Exit 0 rests on the change's own effect on the side: with no notional before it, there is none to see.
        throw new UnresolvedError(
          `The ${side} side of ${market} showed no notional hedge could read before the ${action}, so whether the ${action} landed cannot be told.`,
          {
            hint: `Look at ${seePositions} and \`${hedgeCommand('hedges')}\`, then record what happened:`,
            details: { market, side },
          },
        );
      }
      const expected = expectedAfterChange(action, baseline, usd);
      const after = expected.notionalUsd;
      const checkCommand = hedgeCommand('positions');
      // Until GET /positions shows the change's own effect (baseline ± this change), never merely a move: the side's
      // line after it (undefined: gone).
      const position = await pollUntil(ports, {
        label: sentLine(action, answer.order_tx_hash, sentEarlier, 'it to land'),
        startedAt,
        checkCommand,
        poll: async () => {
          const positions = await readBook(client, ports.log);
          const line = findSide(positions, market, side);
          if (!line || (line.notionalUsd !== undefined && !line.notionalFromHedge)) return line;
          // A line without a notional is sized from all of the side's hedge records (a line may aggregate several);
          // records that may be cut are no proof either way.
          const book = await (await SideViews.read(client, ports.log, positions)).book(market, side);
          if (book.recordsCut !== undefined) throw cutSide({ market, side }, book, false);
          return sizedByRecords(line, book);
        },
        isDone: (line) => !line || notionalVerdict(line.notionalUsd, baseline, after) === 'landed',
        // At the bound, a side at neither figure was moved by another actor.
        timedOut: (last, waited) => {
          const seen = last?.notionalUsd;
          return seen !== undefined && notionalVerdict(seen, baseline, after) === 'moved'
            ? new UnresolvedError(
                `The ${action} of ${formatUsd(usd)} on the ${side} hedge of ${market} was accepted, but after ${waited} the side shows ${formatUsd(seen)} — neither ${formatUsd(baseline)} (before it) nor ${formatUsd(after)} (with it): something outside this run moved the side, so whether this ${action} is in it cannot be told.`,
                {
                  hint: `Look at the side (\`${checkCommand}\`, \`${hedgeCommand('journal')}\`), then record what happened.`,
                  details: { market, side, before_usd: baseline, expected_usd: after, seen_usd: seen },
                },
              )
            : new StillPendingError(
                `The ${action} on the ${side} hedge of ${market} was accepted but has not shown in the positions list after ${waited}.`,
                checkCommand,
              );
        },
        interrupted: `The ${action} stands: it has not shown in the positions list yet.`,
      });
      const outcome = { position, notionalUsd: position?.notionalUsd, closed: !position };
      // Confirmed by the positions list; the hedge itself is read once more to show it whole.
      const hedgeId = answer.hedge_id ?? position?.hedgeId ?? stringOf(before?.hedge_id);
      let sideAfter: SideAfter | undefined;
      if (outcome.closed && !expected.closes) {
        // The side left the positions list although this change would not close it: settled or closed.
        const ended = await readHedge(hedgeId);
        const notional = ended?.notional_usd;
        // The hedge's own notional, as the side model reads it against this change.
        const seen = notionalVerdict(notional, baseline, expected.notionalUsd);
        if (seen === 'landed' && notional !== undefined)
          notify({
            kind: 'change-then-settled',
            level: 'note',
            text: `The ${side} hedge on ${market} ${safeText(ended!.id)} carries the ${action} (${formatUsd(notional)}) and has since left the positions list (it settled or was closed).`,
          });
        else {
          const details = {
            market,
            side,
            hedge_id: hedgeId ?? null,
            before_usd: baseline,
            ...(notional !== undefined && { hedge_notional_usd: notional }),
          };
          if (seen === 'not-yet') {
            throw new NotAppliedError(
              `The ${action} of ${formatUsd(usd)} did not happen: the ${side} hedge on ${market} (${safeText(hedgeId!)}) settled or was closed at ${formatUsd(baseline)} before the ${action} reached it; its margin is back in the balance.`,
              {
                hint: `The side is flat now: see ${seePositions}; open a new hedge if it should be covered.`,
                details,
              },
            );
          }
          throw new UnresolvedError(
            `The ${side} side of ${market} left the positions list during the ${action}, and ${ended ? `its hedge shows ${notional === undefined ? 'no readable notional' : formatUsd(notional)}` : 'its hedge cannot be read'}: whether the ${action} happened before it settled or closed cannot be told.`,
            { hint: `See \`${hedgeCommand('history')}\`, then record what happened.`, details },
          );
        }
      }
      // ... and then on the hedge records: exit 0 once every view shows the change (domain/book.ts).
      else
        sideAfter = await alsoInEveryView(t, `The positions list shows the ${action}`, (seen) =>
          outcome.closed
            ? seen.state === 'flat'
            : notionalVerdict(seen.recordsUsd, baseline, expected.notionalUsd) === 'landed',
        );
      const [hedge, balanceAfterUsdc, realized] = await Promise.all([
        readHedge(hedgeId),
        balanceBeforeUsdc !== undefined ? readBalance() : undefined,
        // A reduce of about the whole position closed it: its record says what it realized.
        outcome.closed && hedgeId ? findClosedRecord(ports, endedHedges(hedgeId, before)) : undefined,
      ]);
      const result = {
        ...outcome,
        // What it sent, as its request holds it (under whatever name the server gives the amount), and the side after.
        action,
        market,
        side,
        notionalUsd: usd,
        afterNotionalUsd: outcome.notionalUsd,
        hedge,
        balanceAfterUsdc,
        realized,
        before: kept.position?.line,
        quotedPrice: quote?.pricing.execution_price,
        balanceBeforeUsdc,
      };
      return { result, sideAfter };
    },
  };
}

/** A close: asked with what it returns, trading what the side holds when sent, waited for until the side is flat. */
function closeHooks(t: TradeScope): KindHooks {
  const { ports, client, record, market, side, hedgeCommand } = t;
  return {
    // What closing is expected to return: the position's net margin right before the close.
    before: async (kept) => {
      const views = await SideViews.read(client, ports.log);
      const book = readableBook(await views.book(market, side), market, side);
      const position = findSide(views.positions, market, side);
      const hedgeBefore = position?.hedgeId ?? book.filled[0]?.id;
      // A side read flat holds 0: journaled, a resume tells it from a side that was not read.
      const flat = !position && sideHolds(book).holds === 'flat';
      // Asked to close a side every view shows flat, this account's fresh opens of it included (a fill still unlisted
      // is no flat side): refused before anything is journaled, as add and reduce are. Read here, after a dry run and
      // the repeat guard, which say more; a plan's step is its caller's to decide.
      if (flat && record.approved?.by !== 'plan')
        t.refuseFlat((await readSidesAsAnswered(ports, client, [{ market, side }])).books[0]);
      const notional = book.filled.length ? book.recordsUsd : flat ? 0 : position?.notionalUsd;
      const journaled = withoutUndefined({
        net_margin_usd: position?.netMarginUsd,
        hedge_id: hedgeBefore || undefined,
        notional_usd: notional,
        // The deal it closes, for the journal's Ref (a close's request names none), and the side's hedges.
        ...sideContext(book),
      });
      return { journaled, kept: { ...kept, hedgeBefore, inBookUsd: notional } };
    },
    // What it trades and returns, as the side was read for it (the shown trade).
    question: (shown) => {
      const [trade] = shown ?? [];
      const held = trade?.held;
      const traded = trade?.notionalUsd;
      const estimate = trade && 'returnsUsd' in trade ? readNumber(trade.returnsUsd) : undefined;
      const ids = held?.hedge_ids.length;
      const notes = [
        ...(estimate === undefined ? [] : [`returns about ${formatMoney(estimate)} USD`]),
        ...(ids ? [`hedge${ids === 1 ? '' : 's'} ${hedgesWords(held!)}`] : []),
      ];
      return `Close the ${side} position on ${market}${traded === undefined ? '' : ` of ${formatUsd(traded)}`}${notes.length ? ` (${notes.join('; ')})` : ''}?`;
    },
    // A close trades what the side holds when sent, with every add still landing (read before each send).
    trades: async () => {
      const [{ book, positions }, { since, of }] = await Promise.all([
        readSideInStep(ports, client, market, side),
        ownRecentOf(ports, 'add'),
      ]);
      // Adds the journal knows and the book may not show yet: unresolved ones, and --no-wait ones within a wait's bound.
      const landing = of(market, side).filter(
        (entry) =>
          (isUnresolved(entry) && entry.outcome !== 'planned') ||
          (entry.outcome === 'done' &&
            entry.message === NOT_WAITED_MESSAGE &&
            Date.parse(entry.resolved_at ?? entry.created_at) >= since),
      );
      const inBookUsd = cents(
        book.recordsUsd + book.opening.reduce((sum, record) => sum + (record.notionalUsd ?? 0), 0),
      );
      const traded = cents(inBookUsd + landing.reduce((sum, entry) => sum + tradedUsd(entry), 0));
      // What it returns, as the question says it: the side's net margin as read here.
      const returnsUsd = findSide(positions, market, side)?.netMarginUsd;
      return [{ market, notionalUsd: traded, held: sideAfterOf(book), returnsUsd, inBookUsd }];
    },
    reconcile: (entry) => reconcileChange(t, entry),
    // What it closed, for an agent's daily cap: the largest of the server's word, the book's figure when last read
    // before the send and what a resumed entry recorded (a side already closed by it reads 0 in the book).
    submitted: (answer, { kept, shown: [trade] = [], earlier }) => {
      const inBook = trade && 'inBookUsd' in trade ? readNumber(trade.inBookUsd) : kept?.inBookUsd;
      const figures = [readNumber(answer.notional_usd), inBook, earlier?.traded_usd].filter((usd) => usd !== undefined);
      return {
        hedge_id: answer.hedge_id ?? kept?.hedgeBefore,
        order_tx_hash: answer.order_tx_hash ?? undefined,
        ...(figures.length && { traded_usd: Math.max(...figures.map(Math.abs)) }),
      };
    },
    wait: async (answer, { startedAt, before = {}, sentEarlier }) => {
      const hedgeId = answer.hedge_id ?? stringOf(before.hedge_id);
      const checkCommand = hedgeCommand('positions');
      let polled: BookPosition[] = [];
      // Until the side no longer appears in GET /positions: the spec's confirmation of a close. Another hedge on the
      // side (a new open) is not this one: its own record says whether it ended.
      await pollUntil(ports, {
        label: sentLine('close', answer.order_tx_hash, sentEarlier, `the ${side} position to close`),
        startedAt,
        checkCommand,
        poll: async () => {
          const line = findSide((polled = await readBook(client, ports.log)), market, side);
          return (
            !line ||
            (hedgeId !== undefined &&
              line.hedgeId !== undefined &&
              line.hedgeId !== hedgeId &&
              recordStanding(await client.getHedge(hedgeId)).standing === 'ended')
          );
        },
        isDone: (closed) => closed,
        timedOut: (_last, waited) =>
          new StillPendingError(
            `The close was accepted, but the ${side} position on ${market} is still in the positions list after ${waited}.`,
            checkCommand,
          ),
        interrupted: `The close stands: the ${side} position on ${market} is still listed.`,
      });
      // The positions list confirms a close (the spec); exit 0 once the records (or the history) show it too.
      const after = await alsoInEveryView(
        t,
        `The ${side} side of ${market} has left the positions list`,
        (book) => {
          // Flat, or held only by hedges other than the one it closed (book.ts).
          const holds = sideHolds(book);
          return (
            holds.holds === 'flat' || (holds.holds === 'held' && hedgeId !== undefined && !holds.ids.includes(hedgeId))
          );
        },
        polled,
      );
      const result = {
        market,
        side,
        estimate: readNumber(before.net_margin_usd),
        hedgeId,
        realized: hedgeId ? await findClosedRecord(ports, endedHedges(hedgeId, before, after)) : undefined,
        ...(after?.hedge_ids.length && { openNow: after }),
      };
      return { result, sideAfter: after };
    },
  };
}

/** An add's, a reduce's or a close's earlier send against the side now, as the side model judges the change its entry
 * recorded before the send (book.ts). Still settling at the read's bound, an entry the server answered is that action
 * landing (followed, never sent again); an unanswered one, "cannot tell" (exit 12). */
async function reconcileChange(t: TradeScope, entry: JournalEntry) {
  const { ports, client, market, side, signal, kind, usd } = t;
  const answered = wasAnswered(entry);
  const onSide = `the ${side} side of ${market}`;
  let book: SideBook;
  try {
    ({ book } = await readSideInStep(ports, client, market, side));
  } catch (error) {
    if (!answered || !(error instanceof UnresolvedError) || signal.aborted) throw error;
    const why = safeText(String(error.details.why ?? 'its views disagree'));
    const settling = `the server accepted this ${safeText(entry.command)}, and ${onSide} is settling (${why})`;
    return found('landed', settling, submittedAnswer(entry));
  }
  const before = entry.context?.[kind === 'close' ? 'notional_usd' : 'baseline_notional_usd'];
  const hedgeId = stringOf(entry.context?.hedge_id);
  const holds = sideHolds(book);
  if (typeof before !== 'number')
    return found(
      'unknown',
      `${onSide} is ${holds.holds === 'cannot-tell' ? 'not one its views agree on' : holds.holds}, and what it held when the ${kind} was sent was not read`,
    );
  // A side that held nothing when the close was about to be sent: flat now proves nothing; unanswered, nothing was closed.
  if (before <= 0.005 && holds.holds === 'flat')
    return found(
      answered || hedgeId ? 'unknown' : 'not-landed',
      `${onSide} is flat, and it held nothing when the ${kind} was about to be sent`,
    );
  const expected = { kind, before, changeUsd: usd, hedgeId };
  const { verdict } = changeVerdict(book, expected);
  // In the words of the side as it stands, against what it held before the send and would hold after it.
  const after = expectedAfterChange(kind === 'add' ? 'add' : 'reduce', before, kind === 'close' ? before : usd);
  const shown =
    holds.holds === 'held'
      ? `the ${side} side is ${formatUsd(holds.notionalUsd)}${hedgeId && !holds.ids.includes(hedgeId) ? `, under other hedges than ${safeText(hedgeId)}` : ''}`
      : holds.holds === 'flat'
        ? `no ${side} position on ${market}`
        : `the ${side} side ${holds.holds === 'settling' ? 'is settling' : 'cannot be told'} (${safeText(holds.why)})`;
  const said = `${shown} now; it was ${formatUsd(before)} before the ${kind} was sent, and would be ${after.closes ? 'closed' : formatUsd(after.notionalUsd)} after it`;
  if (verdict === 'landed' && kind === 'close' && hedgeId) {
    // A hedge past its maturity (on the latest the server's clock can read) leaves the side by settling: its absence
    // says nothing of this close.
    const hedge = await t.readHedge(hedgeId);
    const maturity = hedge && hedgeRecord(hedge).maturityAtMs;
    if (!hedge || mayHaveMatured(maturity, client.transport.serverNow()))
      return found(
        'unknown',
        `${said}, but its hedge ${safeText(hedgeId)} ${!hedge ? 'cannot be read' : maturity === undefined ? 'shows no maturity' : `reached its maturity (${safeText(String(hedge.maturity_at))}) and may have settled`}`,
      );
  }
  if (verdict === 'landed') return found('landed', said, submittedAnswer(entry));
  // A close ends every hedge of the side: unanswered, its own hedge still held as before is proof it did not land (a
  // side not yet in step for another reason proves nothing).
  const ownHeld = hedgeId !== undefined && holdsHedge(book, hedgeId);
  return found(verdict === 'not-yet' && !answered && kind === 'close' && ownHeld ? 'not-landed' : 'unknown', said);
}

export const stringOf = (value: unknown) => (typeof value === 'string' ? value : undefined);

/** The hedges a close of the side ended: the one the answer named and those the side held before the send (journaled
 * with the entry, so that a resume names them too), less any open now. */
function endedHedges(hedgeId: string, before: JsonObject | undefined, open?: SideAfter) {
  const held = Array.isArray(before?.hedge_ids) ? before.hedge_ids.filter((id) => typeof id === 'string') : [];
  return [...new Set([...held.filter((id) => !open?.hedge_ids.includes(id)), hedgeId])];
}

/** What the journal records of a side's filled hedges beside an action whose request names neither: the deal
 * references, and the hedges' ids when there are several (a close ends every one). */
function sideContext(book: SideBook | undefined) {
  const filled = book?.filled ?? [];
  const references = [...new Set(filled.flatMap((record) => record.clientReference ?? []))];
  return {
    ...(references.length && { client_reference: references.join(', ') }),
    ...(filled.length > 1 && { hedge_ids: filled.map((record) => record.id) }),
  };
}

/** `open --ref REF`: a client reference names one deal; an active hedge carrying it already refuses the open. */
async function refuseDuplicateReference(
  ports: WritePorts,
  client: HedgeClient,
  reference: string,
  unchecked: Unchecked,
) {
  let hedges;
  try {
    // Every hedge carrying it, up to MAX_PAGE_SIZE in one request: the active one need not be the newest.
    hedges = await client.listHedges({ clientReference: reference, limit: MAX_PAGE_SIZE });
  } catch (error) {
    if (mustStop(error)) throw error;
    unchecked.items.push('the duplicate reference');
    unchecked.warn(
      `Could not check whether an active hedge already carries client reference ${JSON.stringify(reference)} (GET /hedges: ${messageOf(error)}); the open goes on.`,
    );
    return;
  }
  const carrying = hedges.filter((hedge) => sameReference(hedge.client_reference, reference));
  // What each status says is the side model's (book.ts): opening and filled are active, a status it does not know is not.
  const unknown = carrying.filter((hedge) => recordStanding(hedge).standing === 'settling');
  if (unknown.length) {
    ports.notify({
      kind: 'reference-unknown-status',
      level: 'note',
      text: `Note: ${unknown.map((hedge) => `${hedge.id} (${hedge.status})`).join(', ')} carries this reference with a status hedge does not know; not counted as active.`,
    });
  }
  let active = carrying.filter((hedge) => stillLive(hedge));
  // A filled hedge is as its side's views show it (book.ts): held on a side in step (the history unread), ended (a
  // server may leave an early-closed hedge `filled`, which the history lists), or neither when the history may be cut.
  const filled = active.filter((hedge) => recordStanding(hedge).standing === 'filled');
  const books = filled.length ? await sideBooksOf(client, filled) : [];
  const bookOf = (hedge: Hedge) => books[filled.indexOf(hedge)] as SideBook | undefined;
  const held = filled.filter((hedge) => bookOf(hedge) && holdsHedge(bookOf(hedge)!, hedge.id));
  if (held.length) active = held;
  else {
    active = active.filter((hedge) => !bookOf(hedge)?.ended.includes(hedge.id));
    // Only filled ones left, and a history that may list them past what was read: neither in use nor free.
    const count = active.every((hedge) => recordStanding(hedge).standing === 'filled')
      ? active.map((hedge) => bookOf(hedge)?.historyCut).find((cut) => cut !== undefined)
      : undefined;
    if (active.length && count !== undefined)
      throw new UnresolvedError(
        `Whether hedge ${safeText(active[0].id)}, which carries client reference ${JSON.stringify(reference)}, has ended cannot be told: it is filled on its record, and the history read may be cut at ${count} records (the server gave no next page; it may not read the page size hedge sends). Nothing was sent.`,
        {
          details: { client_reference: reference, hedge_ids: active.map((hedge) => hedge.id), history_read: count },
          hint: `\`hedge doctor\` shows how the server pages; set HEDGE_WIRE_PAGE_SIZE_PARAM to its page-size parameter. Once it has ended, or to open another one anyway, add --allow-duplicate-ref.`,
        },
      );
  }
  if (!active.length) return;
  const first = active[0];
  throw new PreTradeCheckError(
    'duplicate_client_reference',
    `An active hedge already carries client reference ${JSON.stringify(reference)}: ${first.id} (${first.status}, ${first.side} ${formatUsd(first.notional_usd)} on ${first.market}). Nothing was sent.`,
    { client_reference: reference, hedge_ids: active.map((hedge) => hedge.id) },
    `Look at it with \`${ports.hedgeCommand('hedges', '--ref', shellWord(reference))}\`; to open another one anyway, add --allow-duplicate-ref.`,
  );
}

/** The book of each hedge's side, as one read of its views shows it; none when they cannot be read. */
async function sideBooksOf(client: HedgeClient, filled: readonly Hedge[]) {
  try {
    const views = await SideViews.read(client);
    return await Promise.all(filled.map((hedge) => views.book(hedge.market, hedge.side)));
  } catch (error) {
    if (mustStop(error)) throw error;
    return [];
  }
}

/** What a close waited for: what it is expected to return, the hedge it closed and what that realized. */
export interface CloseResult {
  market: string;
  side: string;
  estimate?: number;
  hedgeId?: string;
  realized?: HistoryRecord;
  /** The side's hedges once the close was seen, when it is not flat (opened by another since). */
  openNow?: SideAfter;
}

/** One step of a plan (an apply's, the keeper's) as the record of the write that carries it out (and whose request a
 * live confirmation is bound to). */
export function stepRecord(step: PlanStep, group: string, leg: string) {
  const { action, market, side, tenorDays, clientReference } = step;
  if (action === 'open' && tenorDays === undefined)
    throw new UsageError(`step ${leg}: an open of ${market} ${side} needs a tenor; give tenor_days on its row.`);
  const request = withoutUndefined({
    market,
    side,
    notional_usd: action === 'close' ? undefined : Math.abs(step.deltaUsd),
    ...(action === 'open' && { tenor_days: tenorDays, client_reference: clientReference }),
  });
  return tradeRecord(action, request, { group, leg });
}

/** The record a journal entry was, rebuilt from its recorded request (a resume); undefined when it is no trade. */
export function recordFromJournal(client: HedgeClient, entry: JournalEntry) {
  const { command, group, leg } = entry;
  const body = bodyOf(entry);
  // bodyOf gives the recorded body itself only when it is an object.
  if (!Object.hasOwn(KINDS, command) || body !== entry.request?.body) return;
  // An apply step stays a leg of its run: its journal entry is matched with its group and leg.
  return tradeRecord(
    command as TradeKind,
    command === 'add' || command === 'reduce' ? client.changeRequestFromBody(body) : (body as unknown as SideRequest),
    { argv: Array.isArray(entry.argv) ? entry.argv.map(String) : [command], group, leg },
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

/** A trade through the write flow (a command's, an apply's step, a keeper's). An add or reduce refused only for the
 * amount's name did nothing, so it is sent once more under the server's name (a new key, the refused one noted) and
 * the name learned. */
export async function sendTrade(ports: WritePorts, record: TradeRecord, write: WriteOptions) {
  const client = await ports.client();
  const first = tradeAction(ports, client, record);
  const tried = await settleWrite(ports, first, write);
  if (tried.kind !== 'failed') return tried;
  const { error } = tried;
  const planned = first.plan('');
  // Only a clear refusal of this action's own request (nothing happened) says anything of the amount's name.
  if (
    (record.kind !== 'add' && record.kind !== 'reduce') ||
    !isRejection(error) ||
    error.endpoint !== `${planned.method} ${planned.path}`
  )
    throw error;
  // Sent again only when that is safe: not a dry run, not a resume of a given key (one request, never changed behind the user's back).
  const named = write.dryRun || write.idempotencyKey !== undefined ? undefined : notionalFieldFrom(error, planned.body);
  // A name in another unit or scale would make the same figure mean another amount: said, never sent or kept.
  if (named?.unit === 'other')
    throw error.withHint(
      `The server asks for the add/reduce amount as \`${named.field}\`, a name that counts it in another unit or scale than USD; hedge sends its amounts in USD, so nothing more was sent and the name is not kept. Only if the server's documentation says it takes USD: ${WIRE_SETTING_SOURCES.changeNotionalField.env}=${named.field}.`,
    );
  const field = named?.field;
  if (field === undefined || field === client.wire.changeNotionalField) {
    // A refusal at a field other than market and side is about the amount's name (the one guess in that body).
    const at = refusedField(error);
    throw error.status !== 400 || at === undefined || at === 'market' || at === 'side'
      ? error
      : error.withHint(
          `The server refused the add/reduce body at \`${at}\` (the amount's name is not shown in the spec). ${wireHint('changeNotionalField')}`,
        );
  }
  client.learnWire({
    setting: 'changeNotionalField',
    value: field,
    evidence: `${error.endpoint} refused \`${client.wire.changeNotionalField}\` with ${error.code} naming \`${field}\``,
  });
  const journal = await ports.journal();
  const [entry] = error.idempotencyKey ? await journal.list({ idempotencyKey: error.idempotencyKey }) : [];
  ports.notify({
    kind: 'sending-again',
    level: 'note',
    text: `Sending the ${first.command} again with \`${field}\` (a new idempotency key; the refused request did nothing).`,
  });
  const outcome = await runWrite(
    ports,
    tradeAction(ports, client, {
      ...record,
      // Checked on its first attempt; its confirmation (a person's "yes", an agent's token) goes with it, for the side as it was then.
      approved: { by: 'retry', trades: tried.approvedOn },
      context: { retry_of: entry?.id ?? null, learned: { notional_field: field } },
    }),
    { ...write, idempotencyKey: undefined, fresh: false },
  );
  if (entry && outcome.kind !== 'dry-run') {
    await journal
      .update(entry.id, {
        message: `${error.message} — refused for the field name; sent again as ${outcome.entry.id} with \`${field}\``,
      })
      .catch(() => undefined);
  }
  return outcome;
}
