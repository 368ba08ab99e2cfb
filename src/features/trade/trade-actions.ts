// The four state-changing actions of the API as data for the one write flow (write-flow.ts): each kind's words, the
// quote said before its question, what it reads before the send and the change it expects of its side; one set of
// stages carries every kind out, and one prove waits on the side model's verdict over every view of the side.
import type { HedgeClient, OpenRequest, SideRequest } from '../../platform/api/client.js';
import {
  changeVerdict,
  closeTakes,
  earlierOpen,
  cutRead,
  earlierChange,
  expectedAfterChange,
  expectedNotional,
  namedHedge,
  openSearchFrom,
  reconcileSide,
  recordStanding,
  reduceBeyondHeld,
  sideHolds,
  sizedByRecords,
  referenceInUse,
  shownFlat,
  sideContext,
  type AmountChange,
  type ChangeVerdict,
  type EarlierVerdict,
  type ExpectedChange,
  type HedgeRecord,
  type SideBook,
} from '../book/book.js';
import type { Hedge, Quote, SubmittedAction } from '../../platform/api/schemas.js';
import { cents } from '../../core/money.js';
import {
  isRejection,
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
import type { Trade } from '../../platform/runtime/settings.js';
import { tradedUsd } from '../write/row-trust.js';
import { formatMoney, formatRate, formatUsd, plural, readNumber, shortHash } from '../../core/number-format.js';
import {
  cutSide,
  hedgeRecord,
  ofSide,
  readableBook,
  readSideInStep,
  sideAfterOf,
  SideViews,
} from '../book/side-book.js';
import { findSide, readBook, type BookPosition } from '../book/positions.js';
import { findClosedRecord, waitForHedgeStatus, pollUntil, readSidesAsAnswered, ownRecentOf } from '../write/wait.js';
import { runWrite, settleWrite } from '../write/write-flow.js';
import type { PlannedRow, WriteAction, WriteOptions, WritePlan, WriteRecord, WriteStages } from '../write/write-run.js';
import type { Side } from '../../core/vocabulary.js';
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
import { stringOf, withoutUndefined, type JsonObject } from '../../core/objects.js';

/** A trade as data: its kind, its request, and what its caller adds. */
export interface TradeRecord extends WriteRecord {
  kind: TradeKind;
  request: SideRequest;
  /** What its caller asks for before the kind's own check and preview: the optional pre-trade checks, the duplicate
   * reference check, an open's quote said before the question. What a check could not read is named in the question. */
  checks?: { duplicateReference?: boolean; preTrade?: boolean; quote?: boolean };
  /** `--skip-checks`, and a plan's step: the server alone refuses a change or close of a flat side (nothing is refused
   * here). */
  serverDecides?: boolean;
  /** The question its caller showed with its own card in view (the wizard's), asked instead of the kind's. */
  question?: string;
}

/** What a question says of the quote it was shown with: its price and what it costs upfront. */
const atAbout = (quote?: Quote) =>
  quote
    ? ` at about ${formatRate(quote.pricing.execution_price)}, ${formatMoney(quote.upfront.total_upfront_usdc)} USDC upfront`
    : '';

export const days = (tenor: number) => plural(tenor, 'day');

type TradeKind = 'open' | 'add' | 'reduce' | 'close';

/** What a trade read before its send, kept for its later stages (write-flow.ts passes it from stage to stage). */
interface TradeKept {
  /** What its caller's checks could not read, named in its question. */
  unchecked?: readonly string[];
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

/** A kind as data: every difference between the four is a field of its row, and no stage asks which kind it runs.
 * Its endpoint and body are the client's plan of it (platform/api/client.ts: `POST /hedges` or `POST /hedges/{kind}`,
 * the body under the wire's names); its words; the quote said before its question (an open's when its caller asks:
 * `asked`, an add's always); its own check (a change's); what it reads before the send (`reads`: an add's or a
 * reduce's side and positions line, a close's side and what it returns); its plan on the side now (`planned`,
 * planWrite's: what it trades, what a confirmation binds); the change it expects of its side (book.ts ExpectedChange:
 * open 0→N with the answer's hedge, add +N, reduce −N, close →0), from what was journaled before the send under
 * `before`; its wait (`wait`) and a resume's reconcile (`reconcile`). */
interface Kind {
  verb: string;
  quote?: typeof quoteOpen | typeof quoteAddition;
  asked?: true;
  check?: typeof checkChange;
  reads?: typeof beforeChange | typeof beforeClose;
  /** The side's notional before the send, journaled under this name (the wait and a resume's reconcile read it); none:
   * the side held nothing (an open's). */
  before?: 'baseline_notional_usd' | 'notional_usd';
  /** The server names its new hedge (an open's): every view must show it, the wait's line names it, the request names
   * its tenor and deal, and landed it is `filled`. */
  names?: true;
  /** A change of the side by the request's amount (an add, a reduce), sent under the wire's name for it (read back from
   * a journaled body, and sent once more under the server's name when refused for it alone). */
  change?: true;
  /** A reduce: it releases margin (the balance read around it) and cannot take more than the side holds. */
  releases?: true;
  /** A close: it ends every hedge of its side (those journaled beside it must be gone), whatever its figure before; it
   * trades what the side holds when sent, and the request names no amount. */
  ends?: true;
  /** How the optional pre-trade checks judge it. */
  preTrade: 'open' | 'add';
  waitsFor(t: TradeAction): string;
  question(t: TradeAction, shown: readonly Trade[] | undefined, kept: TradeKept | undefined): string;
  planned: typeof openPlan | typeof sidePlan | typeof closePlan;
  wait: typeof waitOpen | typeof waitSide;
  /** What a change or a close learned once its side showed it (its wait's result). */
  learned?: typeof changeResult | typeof closeResult;
  reconcile: typeof reconcileOpen | typeof reconcileChange;
}

/** What an add and a reduce share: a hedge to change, the side read before the send, and the wait for the change. */
const CHANGE = {
  check: checkChange,
  reads: beforeChange,
  before: 'baseline_notional_usd',
  change: true,
  waitsFor: () => 'it to land',
  planned: sidePlan,
  wait: waitSide,
  learned: changeResult,
  reconcile: reconcileChange,
} as const;

/** Each kind once, read by the trades' stages (TRADE_STAGES) from the record's kind. (`hedge api`'s writes have their own
 * stages, api-call.ts: the request is the call, proven by the answer alone.) */
const KINDS: Record<TradeKind, Kind> = {
  open: {
    verb: 'open a hedge',
    quote: quoteOpen,
    asked: true,
    names: true,
    preTrade: 'open',
    waitsFor: () => 'the fill',
    question: ({ side, usd, market, tenorDays }, _shown, kept) =>
      `Open ${side} ${formatMoney(usd)} USD on ${market} for ${days(tenorDays)}${atAbout(kept?.quote)}?`,
    planned: openPlan,
    wait: waitOpen,
    reconcile: reconcileOpen,
  },
  add: {
    ...CHANGE,
    verb: 'add to a hedge',
    quote: quoteAddition,
    preTrade: 'add',
    question: (t, shown, kept) => `Add ${formatUsd(t.usd)} to ${changedHedge(t, shown)}${atAbout(kept?.quote)}?`,
  },
  reduce: {
    ...CHANGE,
    verb: 'reduce a hedge',
    releases: true,
    preTrade: 'open',
    question: (t, shown) => `Remove ${formatUsd(t.usd)} from ${changedHedge(t, shown)}?`,
  },
  close: {
    verb: 'close a position',
    reads: beforeClose,
    before: 'notional_usd',
    ends: true,
    preTrade: 'open',
    waitsFor: ({ side }) => `the ${side} position to close`,
    question: closeQuestion,
    planned: closePlan,
    wait: waitSide,
    learned: closeResult,
    reconcile: reconcileChange,
  },
};

/** The hedge an add or a reduce changes, in its question: the side's hedges as shown. */
function changedHedge({ market, side }: TradeAction, shown: readonly Trade[] | undefined) {
  const held = shown?.[0]?.held;
  return `the ${side} hedge on ${market}${held?.hedge_ids.length ? ` (${hedgesWords(held)})` : ''}`;
}

/** A close's question: what it trades and returns, as the side was read for it (the shown trade). */
function closeQuestion({ market, side }: TradeAction, shown: readonly Trade[] | undefined) {
  const [trade] = shown ?? [];
  const held = trade?.held;
  const traded = trade?.notionalUsd;
  const estimate = trade && 'returnsUsd' in trade ? readNumber(trade.returnsUsd) : undefined;
  const ids = held?.hedge_ids.length;
  const notes = [
    estimate !== undefined && `returns about ${formatMoney(estimate)} USD`,
    ids && `hedge${ids === 1 ? '' : 's'} ${hedgesWords(held!)}`,
  ].filter(Boolean);
  return `Close the ${side} position on ${market}${traded === undefined ? '' : ` of ${formatUsd(traded)}`}${notes.length ? ` (${notes.join('; ')})` : ''}?`;
}

/** The change a kind expects of its side, from what was journaled before its send and the hedge the server named (its
 * answer's, else the one the side's line named before): undefined when the side's notional before it was not read.
 * An add or a reduce of a side of several hedges names none (it may land on any of them, or end one). The wait and a
 * resume's reconcile build it alike. */
function expectedOf(t: TradeAction, before: JsonObject, namedId?: string | null) {
  const { kind, usd } = t;
  const { before: name, ends } = KINDS[kind];
  const figure = name === undefined ? 0 : before[name];
  if (typeof figure !== 'number') return;
  const several = heldIds(before);
  return withoutUndefined({
    kind,
    before: figure,
    hedgeId: !ends && several ? undefined : (namedId ?? stringOf(before.hedge_id)),
    ...(ends ? { gone: several } : { changeUsd: usd }),
  });
}

/** A hedge's record in the book's terms; null when it cannot be read. */
const recordOf = (hedge?: Hedge) => (hedge ? hedgeRecord(hedge) : null);

/** What the book shows about an earlier send, as a reconcile returns it (the answer followed when it landed). */
const found = (verdict: 'landed' | 'not-landed' | 'unknown', evidence: string, answer?: SubmittedAction) => ({
  verdict,
  evidence,
  answer,
});

/** An open's options on the command line it is journaled under (an open's, a roll's). */
export const openArgv = ({ tenor_days, client_reference }: OpenRequest) => [
  '--tenor',
  String(tenor_days),
  ...(client_reference ? ['--ref', client_reference] : []),
];

/** A trade's record: its kind's words, the request, the side it moves, and what its caller adds. */
export function tradeRecord(kind: TradeKind, request: SideRequest, fields: Partial<TradeRecord> = {}) {
  const { market, side, notional_usd } = request as OpenRequest;
  const { ends, names } = KINDS[kind];
  // The command line it is journaled under (and shown in hints) when its caller names none.
  const argv = [
    kind,
    market,
    side,
    ...(ends ? [] : [notional_usd]),
    ...(names ? openArgv(request as OpenRequest) : []),
  ];
  return {
    ...fields,
    kind,
    request,
    command: kind,
    verb: KINDS[kind].verb,
    argv: fields.argv ?? argv.map(String),
    moves: { market, side },
  };
}

/** A trade as the write flow carries it out: its record, the request's fields and the services its stages read, and
 * the trades' stages (TRADE_STAGES), which the flow calls with it. */
export function tradeAction(ports: WritePorts, client: HedgeClient, record: TradeRecord): TradeAction {
  const { market, side, notional_usd, tenor_days, client_reference } = record.request as OpenRequest;
  return {
    ...record,
    ports,
    client,
    market,
    side,
    usd: notional_usd,
    tenorDays: tenor_days,
    reference: client_reference,
    hedgeCommand: ports.hedgeCommand,
    notify: ports.notify,
    signal: ports.signal,
    stages: TRADE_STAGES,
  };
}

/** What a kind's stages act on: the record, its request's fields, and the services they read. */
interface TradeAction extends TradeRecord, WriteAction<SubmittedAction, unknown, TradeKept> {
  ports: WritePorts;
  client: HedgeClient;
  market: string;
  side: Side;
  usd: number;
  tenorDays: number;
  reference?: string;
  hedgeCommand: WritePorts['hedgeCommand'];
  notify: WritePorts['notify'];
  signal: WritePorts['signal'];
}

/** The stages of every trade, once (write-run.ts WriteStages): the caller's checks before the kind's own (what they
 * could not read named in its question), its endpoint, the reads before the send its kind names, one wait, and the ids
 * every kind journals; what differs between kinds is its row of KINDS. */
const TRADE_STAGES: WriteStages<TradeAction, SubmittedAction, unknown, TradeKept> = {
  plan: ({ client, kind, request }, key) => client.plan(kind, request, key),
  check: checkTrade,
  preview: async (t, kept) => {
    const { quote, asked } = KINDS[t.kind];
    return quote && (!asked || t.checks?.quote) ? quote(t, kept) : undefined;
  },
  before: async (t, kept) => KINDS[t.kind].reads?.(t, kept),
  question: (t, shown, kept) =>
    questionWithUnchecked(t.question ?? KINDS[t.kind].question(t, shown, kept), kept?.unchecked),
  planned: (t) => KINDS[t.kind].planned(t),
  send: ({ client, kind, request }, key, hooks) => client.send(kind, request, key, hooks),
  // What it closed, for an agent's daily cap: the largest of the server's word, the book's figure when last read
  // before the send and what a resumed entry recorded (a side already closed by it reads 0 in the book).
  submitted: (t, answer, { kept, shown: [trade] = [], earlier }) => {
    const inBook = trade && 'inBookUsd' in trade ? readNumber(trade.inBookUsd) : kept?.inBookUsd;
    const figures = [readNumber(answer.notional_usd), inBook, earlier?.traded_usd].filter((usd) => usd !== undefined);
    return {
      hedge_id: answer.hedge_id ?? kept?.hedgeBefore ?? undefined,
      order_tx_hash: answer.order_tx_hash ?? undefined,
      ...(KINDS[t.kind].ends && figures.length && { traded_usd: Math.max(...figures.map(Math.abs)) }),
    };
  },
  wait: waitFor,
  reconcile: (t, entry, changedSince) => KINDS[t.kind].reconcile(t, entry, changedSince),
  rowPlan: ({ client }, row) => rowPlan(client, row),
};

/** A trade's checks: its caller's (the duplicate reference, the optional pre-trade checks: what they could not read is
 * kept, for its question), then its kind's own. */
async function checkTrade(t: TradeAction): Promise<TradeKept | undefined> {
  const { client, reference, checks, market, side, usd } = t;
  const unchecked = uncheckedList(t.ports);
  if (reference && checks?.duplicateReference) await refuseDuplicateReference(t, reference, unchecked);
  if (checks?.preTrade)
    await runPreTradeChecks(client, { market, side, notionalUsd: usd, action: KINDS[t.kind].preTrade }, unchecked);
  const kept = await KINDS[t.kind].check?.(t);
  return unchecked.items.length ? { ...kept, unchecked: unchecked.items } : kept;
}

/** A trade as a plan value (pure): its kind and request, the side as read (its hedges and their sum; none: not read),
 * what it expects the side to hold after, and what is shown and bound — what it trades: the request's amount on the
 * side's hedges, or a close's what the side holds (`inBookUsd`, what the book holds of it when read apart from the
 * side's sum; `landingUsd`: with the adds still landing; `returnsUsd`: what it returns, as read). A confirmation binds
 * its hash (confirm.ts planHash), and so does the journal (`rowPlan`). */
export function planWrite(
  kind: TradeKind,
  request: SideRequest,
  held?: SideAfter,
  read: { inBookUsd?: number; landingUsd?: readonly number[]; returnsUsd?: number } = {},
): WritePlan {
  const { market, notional_usd: usd } = request as OpenRequest;
  const inBookUsd = held && (read.inBookUsd ?? held.notional_usd);
  const shown = KINDS[kind].ends
    ? [
        {
          market,
          notionalUsd: cents((read.landingUsd ?? []).reduce((sum, landing) => sum + landing, inBookUsd ?? 0)),
          held,
          returnsUsd: read.returnsUsd,
          inBookUsd,
        },
      ]
    : [{ market, notionalUsd: usd, ...(held && { held }) }];
  const expects = held && expectedNotional({ kind, before: held.notional_usd, changeUsd: usd });
  return withoutUndefined({ kind, request, side: held, expects, shown });
}

/** An add's or a reduce's plan, on its side as read now (a confirmation binds its hedges). */
async function sidePlan({ ports, client, kind, request, market, side }: TradeAction) {
  return planWrite(kind, request, sideAfterOf((await readSideInStep(ports, client, market, side)).book));
}

/** The plan a journal row records: its kind and request, and the side as journaled before its send (its hedges and the
 * notional its kind journals; none: not read), or undefined when the row is no trade. Its hash is journaled with the
 * row, and the plan rebuilt from the row before it is sent again (row-trust.ts requireOwnRow). */
export function rowPlan(client: HedgeClient, row: PlannedRow) {
  const record = recordFromJournal(client, row);
  if (!record) return;
  const context = row.context ?? {};
  const name = KINDS[record.kind].before;
  const figure = name && context[name];
  const named = stringOf(context.hedge_id);
  const held = heldIds(context) ?? (named ? [named] : []);
  return planWrite(
    record.kind,
    record.request,
    typeof figure === 'number' ? { hedge_ids: held, notional_usd: figure } : undefined,
  );
}

/** An open's plan: as a change's, but under an agent's limits alone judged by its notional, nothing read. */
async function openPlan(t: TradeAction) {
  return t.ports.tradeGate && !t.ports.planCheck ? planWrite(t.kind, t.request) : sidePlan(t);
}

/** A hedge's record; undefined when it has no id or cannot be read. */
const readHedge = ({ client }: TradeAction, id: string | null | undefined) =>
  id ? client.getHedge(id).catch(() => undefined) : undefined;

/** A change or a close of a side every view shows flat is refused before anything is journaled. */
function refuseFlat({ ports, market, side, kind }: TradeAction, book: SideBook, hint = '') {
  if (sideHolds(book).holds === 'flat')
    throw new PreTradeCheckError(
      'no_open_hedge',
      `There is no ${side} hedge on ${market} to ${kind}: its hedge records and the positions list both show the side flat. Nothing was sent.`,
      { market, side },
      `Check \`${ports.hedgeCommand('positions')}\`${hint}.`,
    );
}

/** A reduce larger than what every view agrees the side holds: the server would refuse it (notional_too_large), so it is
 * refused before it is journaled or sent, saying what is held. */
function refuseBeyondHeld({ ports, market, side, usd }: TradeAction, book: SideBook) {
  const beyond = reduceBeyondHeld(book, usd);
  if (!beyond) return;
  const { heldUsd, ids } = beyond;
  throw new PreTradeCheckError(
    'notional_too_large',
    `The ${side} side of ${market} holds ${formatUsd(heldUsd)} (${ids.join(', ')}): a reduce of ${formatUsd(usd)} is more than it holds. Nothing was sent.`,
    { market, side, notional_usd: usd, held_usd: heldUsd },
    `Reduce by ${formatUsd(heldUsd)} or less, or close the side: \`${ports.hedgeCommand('close', market, side)}\`.`,
  );
}

/** An add's or a reduce's side before it, read once (by whichever stage needs it first) once its views agree and show
 * this account's fresh opens of it (a fresh fill is not a missing side): its positions line, sized by its records. */
async function readPosition({ ports, client, market, side }: TradeAction, kept?: TradeKept) {
  if (kept?.position) return kept.position;
  // Its views agree: the line is the side's in step, or none.
  const { books, positions } = await readSidesAsAnswered(ports, client, [{ market, side }]);
  const line = findSide(positions, market, side);
  return { line: line && sizedByRecords(line, books[0]), book: books[0] };
}

/** A change needs a hedge to change: refused before anything is journaled when every view shows the side flat, and a
 * reduce beyond what the side holds. */
async function checkChange(t: TradeAction) {
  const { market, side, hedgeCommand } = t;
  if (t.serverDecides) return;
  const position = await readPosition(t);
  refuseFlat(
    t,
    position.book,
    `; open one with \`${hedgeCommand('open', market, side, '<usd>', '--tenor', '<days>')}\``,
  );
  if (KINDS[t.kind].releases) refuseBeyondHeld(t, position.book);
  return { position };
}

/** An open's quote, said (a card on a terminal) before its question; before it, the side already in the positions list
 * is said, pointing to `hedge add` (a note on stderr, never a refusal). */
async function quoteOpen(t: TradeAction, kept?: TradeKept) {
  const { ports, client, market, side, usd, tenorDays, hedgeCommand, notify, signal } = t;
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

/** An add is quoted for its cost before it is confirmed, at the hedge's own maturity (and the quote shown). */
async function quoteAddition(t: TradeAction, kept?: TradeKept) {
  const { client, market, side, usd, hedgeCommand, notify } = t;
  const position = await readPosition(t, kept);
  const { line } = position;
  if (!line) {
    notify({
      kind: 'addition-not-quoted',
      level: 'note',
      text: `No ${side} position on ${market} shows in the positions list, so the addition is not quoted; the server decides (\`${hedgeCommand('positions')}\`).`,
    });
    return { ...kept, position };
  }
  // The addition keeps the hedge's maturity; a position silent about it is completed from its hedge.
  const hedge = line.maturityAt === undefined ? await readHedge(t, line.hedgeId) : undefined;
  const maturityAt = line.maturityAt ?? hedge?.maturity_at ?? undefined;
  // Its days left on the server's clock, which its maturity is on.
  const now = client.transport.serverNow().bestMs;
  const tenor_days = additionQuoteTenor(maturityAt, now, hedge?.tenor_days);
  const quote = await client.createQuote({ market, side, notional_usd: usd, tenor_days });
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

/** A reduce's balance: what it released is the difference after (undefined: not read). */
const readBalance = ({ client, signal }: TradeAction) =>
  client.getAccount().then(
    (account) => account.balance_usdc,
    (error: unknown) => {
      if (signal.aborted) throw error;
      return undefined;
    },
  );

/** The notional before the change, journaled: the wait (and a resumed one) ends when every view shows the change. */
async function beforeChange(t: TradeAction, kept?: TradeKept) {
  const [position, balanceBeforeUsdc] = await Promise.all([
    readPosition(t, kept),
    KINDS[t.kind].releases ? readBalance(t) : undefined,
  ]);
  const { line } = position;
  const read = { kept: { ...kept, position, balanceBeforeUsdc } };
  if (line?.notionalUsd === undefined) return read;
  return {
    ...read,
    journaled: withoutUndefined({
      baseline_notional_usd: line.notionalUsd,
      hedge_id: line.hedgeId || undefined,
      // The deal it changes, for the journal's Ref (a change's request names none), and the side's hedges.
      ...sideContext(position.book),
    }),
  };
}

/** What closing is expected to return (the position's net margin right before the close) and what the side holds. */
async function beforeClose(t: TradeAction, kept?: TradeKept) {
  const { ports, client, market, side } = t;
  const views = await SideViews.read(client, ports.log);
  const book = readableBook(await views.book(market, side), market, side);
  const position = findSide(views.positions, market, side);
  const hedgeBefore = namedHedge(book);
  // A side read flat holds 0: journaled, a resume tells it from a side that was not read. Asked to close a side every
  // view shows flat, this account's fresh opens of it included (a fill still unlisted is no flat side): refused before
  // anything is journaled, as add and reduce are. Read here, after a dry run and the repeat guard, which say more; a
  // plan's step is its caller's to decide (the server's, for this run).
  if (sideHolds(book).holds === 'flat' && !t.serverDecides)
    refuseFlat(t, (await readSidesAsAnswered(ports, client, [{ market, side }])).books[0]);
  const notional = closeTakes(book);
  return {
    journaled: withoutUndefined({
      net_margin_usd: position?.netMarginUsd,
      hedge_id: hedgeBefore || undefined,
      notional_usd: notional,
      // The deal it closes, for the journal's Ref (a close's request names none), and the side's hedges.
      ...sideContext(book),
    }),
    kept: { ...kept, hedgeBefore, inBookUsd: notional },
  };
}

/** A close's plan: it trades what the side holds when sent, with every add still landing (read before each send). */
async function closePlan({ ports, client, kind, request, market, side }: TradeAction) {
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
  // What it returns, as the question says it: the side's net margin as read here.
  const returnsUsd = findSide(positions, market, side)?.netMarginUsd;
  return planWrite(kind, request, sideAfterOf(book), {
    inBookUsd: closeTakes(book) ?? 0,
    landingUsd: landing.map(tradedUsd),
    returnsUsd,
  });
}

/** The side as the prove stage last read it: its book, the positions list, and the model's verdict on the change. */
interface Seen {
  book: SideBook;
  positions: BookPosition[];
  proof: ChangeVerdict;
}

/** Each verdict of the side model on a write's change (book.ts changeVerdict), once: whether it ends the wait, and
 * either the journal's outcome when it resolves the write (an open that landed is `filled`), or the exit code of the
 * error `unproven` says it as: at once where the side ended before the change, at the wait's bound otherwise. */
const VERDICTS: Record<ChangeVerdict['verdict'], { ends: boolean; outcome?: 'done' | 'failed'; exit?: 3 | 7 | 12 }> = {
  landed: { ends: true, outcome: 'done' },
  failed: { ends: true, outcome: 'failed' },
  'ended-first': { ends: true, exit: 3 },
  'ended-untold': { ends: true, exit: 12 },
  'not-yet': { ends: false, exit: 7 },
  moved: { ends: false, exit: 12 },
  partly: { ends: false, exit: 12 },
  'cannot-tell': { ends: false, exit: 12 },
};

/** The journal's outcome of a write the verdict resolves. */
const outcomeOf = (kind: TradeKind, { verdict }: ChangeVerdict): 'filled' | 'done' | 'failed' =>
  VERDICTS[verdict].outcome === 'done' && KINDS[kind].names ? 'filled' : VERDICTS[verdict].outcome!;

/** What an unproven write is said as, by its last verdict's exit code: 7, a pending action; 3, ended before the change,
 * not applied; 12, a read that may be cut (how to read it whole), moved by another actor (or in part), or past telling. */
function unproven(t: TradeAction, expected: ExpectedChange, seen: Seen | undefined, waited: string) {
  const { kind, market, side, usd, hedgeCommand } = t;
  const verdict = seen?.proof.verdict ?? 'not-yet';
  const { exit } = VERDICTS[verdict];
  const shows = safeText(seen?.proof.evidence ?? 'its views could not be read');
  const details = { market, side, hedge_id: expected.hedgeId ?? null, before_usd: expected.before };
  if (exit === 7)
    return new StillPendingError(
      `The ${kind} was accepted but has not shown in the positions list and the hedge records of the ${side} side of ${market} after ${waited} (${shows}).`,
      hedgeCommand('positions'),
    );
  if (exit === 3)
    return new NotAppliedError(
      `The ${kind} of ${formatUsd(usd)} did not happen: the ${side} hedge on ${market} (${safeText(expected.hedgeId ?? '')}) settled or was closed at ${formatUsd(expected.before)} before the ${kind} reached it; its margin is back in the balance.`,
      {
        hint: `The side is flat now: see \`${hedgeCommand('positions')}\`; open a new hedge if it should be covered.`,
        details,
      },
    );
  if (seen && cutRead(seen.book)) return cutSide({ market, side }, seen.book, false);
  const moved = verdict === 'moved' || verdict === 'partly';
  const holds = seen && sideHolds(seen.book);
  const after = KINDS[kind].change && expectedAfterChange(kind as 'add' | 'reduce', expected.before, usd);
  const figures =
    holds?.holds === 'held' && after
      ? `the side shows ${formatUsd(holds.notionalUsd)} — neither ${formatUsd(expected.before)} (before it) nor ${formatUsd(after.notionalUsd)} (with it)`
      : shows;
  const why =
    verdict === 'ended-untold'
      ? `the ${side} side of ${market} left every view during it, and ${shows}: whether it happened before the side settled or closed`
      : moved
        ? `${figures}: something outside this run moved the side, so whether this ${kind} is in it`
        : `${shows}, so whether it landed`;
  return new UnresolvedError(
    `The ${kind}${after ? ` of ${formatUsd(usd)}` : ''} on the ${side} side of ${market} was accepted, but${waited && ` after ${waited}`} ${why} cannot be told.`,
    {
      hint: `Look at the side (\`${hedgeCommand('positions')}\`, \`${hedgeCommand('history')}\`, \`${hedgeCommand('journal')}\`), then record what happened.`,
      details,
    },
  );
}

/** The prove stage of every kind: the side's views (records, positions line, the history where they disagree) read at
 * the polling cadence within the write's bound until the side model's proof of the expected change ends the wait; past
 * the bound, the last proof says why. Records that may be cut are no proof either way, and reading again tells no more. */
async function prove(
  t: TradeAction,
  { expected, label, startedAt, othersSince }: Pick<Proving, 'expected' | 'label' | 'startedAt' | 'othersSince'>,
) {
  const { ports, client, market, side } = t;
  const named = KINDS[t.kind].names && expected.hedgeId ? [expected.hedgeId] : undefined;
  const seen = await pollUntil(ports, {
    label,
    startedAt,
    checkCommand: t.hedgeCommand('positions'),
    poll: async () => {
      const views = await SideViews.read(client, ports.log);
      const book = readableBook(await views.book(market, side, named), market, side);
      if (book.recordsCut !== undefined) throw cutSide({ market, side }, book, false);
      let proof = changeVerdict(book, expected);
      // Every view shows the side flat during a change that would not close it: its hedge's own record says more,
      // against every figure the side's other changes known since could add to it.
      if (proof.asks) {
        const [hedge, others] = await Promise.all([readHedge(t, expected.hedgeId), othersSince?.()]);
        proof = changeVerdict(book, { ...expected, others }, recordOf(hedge));
      }
      return { book, positions: views.positions, proof };
    },
    isDone: ({ proof }) => VERDICTS[proof.verdict].ends,
    timedOut: (last, waited) => unproven(t, expected, last, waited),
    interrupted: `The ${t.kind} stands: not every view of the ${side} side of ${market} shows it yet.`,
  });
  if (!VERDICTS[seen.proof.verdict].outcome) throw unproven(t, expected, seen, '');
  return seen;
}

/** The wait of every kind: what it expects of the side (unread before it, a close still waits for the side to be flat),
 * its line, then its kind's wait over the one prove; what it returns is the kind's result with the side as every view
 * showed it. */
async function waitFor(
  t: TradeAction,
  answer: SubmittedAction,
  context: {
    startedAt: number;
    before?: JsonObject;
    kept?: TradeKept;
    sentEarlier?: boolean;
    othersSince?: () => Promise<readonly AmountChange[]>;
  },
) {
  const { kind, market, side, hedgeCommand } = t;
  const { startedAt, before = {}, kept = {}, sentEarlier, othersSince } = context;
  const of = KINDS[kind];
  const expected = expectedOf(t, before, answer.hedge_id) ?? (of.ends ? { kind, before: 0 } : undefined);
  if (!expected)
    // Exit 0 rests on the change's own effect on the side: with no notional before it, there is none to see.
    throw new UnresolvedError(
      `The ${side} side of ${market} showed no notional hedge could read before the ${kind}, so whether the ${kind} landed cannot be told.`,
      {
        hint: `Look at \`${hedgeCommand('positions')}\` and \`${hedgeCommand('hedges')}\`, then record what happened:`,
        details: { market, side },
      },
    );
  // The wait's line: what was sent, by this run or earlier (a resume that found it landed sends nothing), and what it
  // waits for.
  const { order_tx_hash: hash } = answer;
  const label = `${sentEarlier ? 'Sent earlier:' : 'Submitted'} ${of.names ? answer.hedge_id! : kind}${typeof hash === 'string' && hash ? ` (tx ${shortHash(hash)})` : ''}, waiting for ${of.waitsFor(t)}`;
  return of.wait(t, { answer, before, kept, expected, label, startedAt, othersSince });
}

/** What a kind's wait is given: the answer, what was read before the send, the change it expects and its line. */
interface Proving {
  answer: SubmittedAction;
  before: JsonObject;
  kept: TradeKept;
  expected: ExpectedChange;
  label: string;
  startedAt: number;
  /** The side's other adds and reduces the journal knows since it began that `before` does not count. */
  othersSince?: () => Promise<readonly AmountChange[]>;
}

/** An open's wait: its hedge record first (its fill shows there first; a failed one is its outcome), then the other
 * views. */
async function waitOpen(t: TradeAction, { answer, expected, label, startedAt }: Proving) {
  const hedge = await waitForHedgeStatus(t.ports, answer.hedge_id!, { label, startedAt });
  // Ended on its record (failed, or closed since it filled): the model's verdict on its side of that record alone.
  if (recordStanding(hedge).standing !== 'filled')
    return {
      result: hedge,
      outcome: outcomeOf(t.kind, changeVerdict(reconcileSide([hedgeRecord(hedge)], undefined, 0), expected)),
    };
  // Its own record proves the open; the other views show the side after it, and one that cannot be read is said.
  const seen = await prove(t, { expected, label, startedAt }).catch((error: unknown) => {
    if (error instanceof UnresolvedError || t.signal.aborted) throw error;
    t.notify({
      kind: 'not-seen-everywhere',
      level: 'warn',
      text: `Hedge ${safeText(hedge.id)} is filled on its record; whether every other view shows it could not be read (${safeText(messageOf(error))}).`,
    });
  });
  return { result: hedge, sideAfter: seen ? sideAfterOf(seen.book) : undefined, outcome: 'filled' as const };
}

/** An add's, a reduce's or a close's wait: the one prove, then what its kind learned once the side showed it. */
async function waitSide(t: TradeAction, proving: Proving) {
  const seen = await prove(t, proving);
  return { ...(await KINDS[t.kind].learned!(t, proving, seen)), outcome: outcomeOf(t.kind, seen.proof) };
}

/** What an add or a reduce learned once it landed, as its wait returns it (`changeResult`). */
export type LandedChange = Awaited<ReturnType<typeof changeResult>>['result'];

/** What an add or a reduce learned once it landed: the side's line after it (none: the side left the list), its hedge
 * read once more to show it whole, a reduce's balance after, and what a reduce that closed the side realized. */
async function changeResult(t: TradeAction, { answer, before, kept }: Proving, seen: Seen) {
  const { ports, market, side, usd, notify } = t;
  const line = findSide(seen.positions, market, side);
  const position = line && sizedByRecords(line, seen.book);
  const closed = !position;
  if (seen.proof.endedSince)
    notify({
      kind: 'change-then-settled',
      level: 'note',
      text: `The ${side} hedge on ${market}: ${safeText(seen.proof.evidence)} (it settled or was closed since).`,
    });
  const hedgeId = answer.hedge_id ?? position?.hedgeId ?? stringOf(before.hedge_id);
  const { balanceBeforeUsdc, quote } = kept;
  const [hedge, balanceAfterUsdc, realized] = await Promise.all([
    readHedge(t, hedgeId),
    balanceBeforeUsdc !== undefined ? readBalance(t) : undefined,
    // A reduce of about the whole position closed it: its record says what it realized.
    closed && hedgeId ? findClosedRecord(ports, endedHedges(hedgeId, before)) : undefined,
  ]);
  return {
    result: {
      position,
      closed,
      // What it sent, as its request holds it (under whatever name the server gives the amount), and the side after.
      action: t.kind as 'add' | 'reduce',
      market,
      side,
      notionalUsd: usd,
      afterNotionalUsd: position?.notionalUsd,
      hedge,
      balanceAfterUsdc,
      realized,
      before: kept.position?.line,
      quotedPrice: quote?.pricing.execution_price,
      balanceBeforeUsdc,
    },
    sideAfter: sideAfterOf(seen.book),
  };
}

/** What a close waited for: what it is expected to return, the hedge it closed and what that realized, and the side's
 * hedges opened since, if any. */
async function closeResult(t: TradeAction, { answer, before }: Proving, seen: Seen) {
  const { ports, market, side } = t;
  const hedgeId = answer.hedge_id ?? stringOf(before.hedge_id);
  const after = sideAfterOf(seen.book);
  return {
    result: {
      market,
      side,
      estimate: readNumber(before.net_margin_usd),
      hedgeId,
      realized: hedgeId ? await findClosedRecord(ports, endedHedges(hedgeId, before, after)) : undefined,
      ...(!shownFlat(after) && { openNow: after }),
    },
    sideAfter: after,
  };
}

/** An open's earlier send, found again: its hedge by its id (when the answer gave one), else by its client reference;
 * what that says is the side model's (book.ts earlierOpen). A hedge made is followed to its end (its outcome says
 * whether it failed). */
async function reconcileOpen(t: TradeAction, entry: JournalEntry, changedSince: boolean) {
  const { client } = t;
  const answer = (hedge: Hedge, txHash?: string) => ({
    hedge_id: hedge.id,
    order_tx_hash: hedge.order_tx_hash ?? txHash,
    status: hedge.status,
  });
  if (entry.hedge_id) {
    const hedge = await readHedge(t, entry.hedge_id);
    const { verdict, why } = earlierOpen({ named: recordOf(hedge) }, changedSince);
    if (!hedge)
      return found(verdict, `hedge ${safeText(entry.hedge_id)}, named by the server's answer, cannot be read`);
    const words = why ?? `hedge ${safeText(hedge.id)} is ${safeText(hedge.status)}`;
    return found(verdict, safeText(words), verdict === 'landed' ? answer(hedge, entry.order_tx_hash) : undefined);
  }
  const body = bodyOf(entry);
  const onMarket = String(body.market ?? '').toUpperCase();
  const onSide = body.side;
  const from = openSearchFrom(
    Date.parse(entry.created_at),
    readNumber(entry.context?.server_time_ms),
    client.transport.serverNow(),
  );
  const reference = stringOf(body.client_reference) || undefined;
  const opened = (await client.listHedges({ clientReference: reference })).filter(
    (hedge) =>
      ofSide(hedge, onMarket, onSide) &&
      Date.parse(String(hedge.opened_at)) >= from &&
      (!reference || sameReference(hedge.client_reference, reference)),
  );
  const { verdict, why } = earlierOpen({ opened: opened.map(hedgeRecord), byReference: !!reference }, changedSince);
  const [hedge] = opened;
  if (reference)
    return found(
      verdict,
      why !== undefined
        ? safeText(why)
        : hedge
          ? `hedge ${safeText(hedge.id)} carries reference ${safeText(reference)} (${safeText(hedge.status)}, opened ${safeText(String(hedge.opened_at))})`
          : `no hedge carrying reference ${safeText(reference)} was opened since the entry was made`,
      verdict === 'landed' ? answer(hedge) : undefined,
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
    verdict,
    opened.length
      ? `${opened.length} ${onThe}${opened.length === 1 ? ' was' : 's were'} opened on ${safeText(onMarket)} since the entry was made: ${named}; any of them may be this one`
      : `no ${onThe} on ${safeText(onMarket)} was opened since the entry was made, but without a hedge id or a reference that does not prove the open never arrived`,
  );
}

/** An add's, a reduce's or a close's earlier send against the side now: the same proof as the wait's, of the change
 * its entry recorded before the send, on the same views, as the side model judges it (book.ts earlierChange), said in
 * the words of the side as it stands. Still settling at the read's bound and never answered: "cannot tell" (exit 12). */
async function reconcileChange(t: TradeAction, entry: JournalEntry, changedSince: boolean) {
  const { ports, client, market, side, signal, kind } = t;
  // Whether the server answered the entry's send (accepted it): an outcome past `pending` that is not `unknown`.
  const answered = entry.outcome !== 'pending' && entry.outcome !== 'unknown';
  const onSide = `the ${side} side of ${market}`;
  const expected = expectedOf(t, entry.context ?? {}, entry.hedge_id);
  const landed = (verdict: EarlierVerdict['verdict']) => (verdict === 'landed' ? submittedAnswer(entry) : undefined);
  let read;
  try {
    read = await readSideInStep(ports, client, market, side);
  } catch (error) {
    if (!answered || !(error instanceof UnresolvedError) || signal.aborted) throw error;
    const serverNow = { bestMs: 0 };
    const { verdict } = earlierChange(undefined, expected, { answered, changedSince, serverNow }) as EarlierVerdict;
    const why = safeText(String(error.details.why ?? 'its views disagree'));
    return found(
      verdict,
      `the server accepted this ${safeText(entry.command)}, and ${onSide} is settling (${why})`,
      landed(verdict),
    );
  }
  const { book, serverNow } = read;
  const holds = sideHolds(book);
  let hedge: HedgeRecord | null | undefined;
  let judged = earlierChange(book, expected, { answered, changedSince, hedge, serverNow });
  // The model asks for the hedge's own record where it decides (null: it cannot be read).
  while ('asks' in judged) {
    hedge = recordOf(await readHedge(t, expected?.hedgeId));
    judged = earlierChange(book, expected, { answered, changedSince, hedge, serverNow });
  }
  const { verdict, why } = judged;
  if (!expected)
    return found(
      verdict,
      `${onSide} is ${holds.holds === 'cannot-tell' ? 'not one its views agree on' : holds.holds}, and what it held when the ${kind} was sent was not read`,
    );
  const { before, hedgeId } = expected;
  if (why === 'held-nothing')
    return found(verdict, `${onSide} is flat, and it held nothing when the ${kind} was about to be sent`);
  // In the words of the side as it stands, against what it held before the send and would hold after it.
  const after = expectedNotional(expected);
  const shown =
    holds.holds === 'held'
      ? `the ${side} side is ${formatUsd(holds.notionalUsd)}${hedgeId && !holds.ids.includes(hedgeId) ? `, under other hedges than ${safeText(hedgeId)}` : ''}`
      : holds.holds === 'flat'
        ? `no ${side} position on ${market}`
        : `the ${side} side ${holds.holds === 'settling' ? 'is settling' : 'cannot be told'} (${safeText(holds.why)})`;
  const said = `${shown} now; it was ${formatUsd(before)} before the ${kind} was sent, and would be ${after ? formatUsd(after) : 'closed'} after it`;
  const but = { unread: 'cannot be read', 'no-maturity': 'shows no maturity', matured: 'may have matured and settled' };
  const evidence = `${said}${why && why in but ? `, but its hedge ${safeText(hedgeId ?? '')} ${but[why as keyof typeof but]}` : ''}`;
  return found(verdict, evidence, landed(verdict));
}

/** The hedges a close of the side ended: the one the answer named and those the side held before the send (journaled
 * with the entry, so that a resume names them too), less any open now. */
function endedHedges(hedgeId: string, before: JsonObject, open?: SideAfter) {
  return [...new Set([...(heldIds(before) ?? []).filter((id) => !open?.hedge_ids.includes(id)), hedgeId])];
}

/** The side's hedges journaled beside an action of several (sideContext), if any. */
const heldIds = ({ hedge_ids: ids }: JsonObject) =>
  Array.isArray(ids) ? ids.filter((id) => typeof id === 'string') : undefined;

/** `open --ref REF`: a client reference names one deal; an active hedge carrying it already refuses the open. */
async function refuseDuplicateReference({ ports, client }: TradeAction, reference: string, unchecked: Unchecked) {
  let hedges;
  try {
    // Every hedge carrying it, up to MAX_PAGE_SIZE in one request: the active one need not be the newest.
    hedges = await client.listHedges({ clientReference: reference, limit: MAX_PAGE_SIZE });
  } catch (error) {
    if (mustStop(error)) throw error;
    unchecked.items.push('the duplicate reference');
    unchecked.warn(
      `Could not check whether an active hedge already carries client reference ${JSON.stringify(reference)} (GET /hedges: ${safeText(messageOf(error))}); the open goes on.`,
    );
    return;
  }
  const carrying = hedges.filter((hedge) => sameReference(hedge.client_reference, reference));
  const byId = new Map(carrying.map((hedge) => [hedge.id, hedge]));
  // Whether it is in use is the side model's (book.ts): asked again with the sides' books where it needs them.
  const records = carrying.map(hedgeRecord);
  let judged = referenceInUse(records);
  if ('asks' in judged) {
    const books = await sideBooksOf(
      client,
      judged.of.map((id) => byId.get(id)!),
    );
    judged = referenceInUse(records, (record) => books.get(record.id));
  }
  if ('asks' in judged) return;
  if (judged.unknown.length)
    ports.notify({
      kind: 'reference-unknown-status',
      level: 'note',
      text: `Note: ${judged.unknown.map((record) => safeText(`${record.id} (${record.status})`)).join(', ')} carries this reference with a status hedge does not know; not counted as active.`,
    });
  const active = judged.active.map((record) => byId.get(record.id)!);
  const [first] = active;
  if (judged.historyCut !== undefined)
    throw new UnresolvedError(
      `Whether hedge ${safeText(first.id)}, which carries client reference ${JSON.stringify(reference)}, has ended cannot be told: it is filled on its record, and the history read may be cut at ${judged.historyCut} records (the server gave no next page; it may not read the page size hedge sends). Nothing was sent.`,
      {
        details: {
          client_reference: reference,
          hedge_ids: active.map((hedge) => hedge.id),
          history_read: judged.historyCut,
        },
        hint: `\`hedge doctor\` shows how the server pages; set HEDGE_WIRE_PAGE_SIZE_PARAM to its page-size parameter. Once it has ended, or to open another one anyway, add --allow-duplicate-ref.`,
      },
    );
  if (!first) return;
  throw new PreTradeCheckError(
    'duplicate_client_reference',
    `An active hedge already carries client reference ${JSON.stringify(reference)}: ${first.id} (${first.status}, ${first.side} ${formatUsd(first.notional_usd)} on ${first.market}). Nothing was sent.`,
    { client_reference: reference, hedge_ids: active.map((hedge) => hedge.id) },
    `Look at it with \`${ports.hedgeCommand('hedges', '--ref', shellWord(reference))}\`; to open another one anyway, add --allow-duplicate-ref.`,
  );
}

/** The book of each hedge's side by its id, as one read of its views shows it; none when they cannot be read. */
async function sideBooksOf(client: HedgeClient, hedges: readonly Hedge[]) {
  const books = new Map<string, SideBook>();
  try {
    const views = await SideViews.read(client);
    for (const hedge of hedges) books.set(hedge.id, await views.book(hedge.market, hedge.side));
  } catch (error) {
    if (mustStop(error)) throw error;
  }
  return books;
}

/** What a close waited for: what it is expected to return, the hedge it closed and what that realized, and the side's
 * hedges once the close was seen, when it is not flat (opened by another since). */
export type CloseResult = Awaited<ReturnType<typeof closeResult>>['result'];

/** One step of a plan (an apply's, the keeper's) as the record of the write that carries it out (and whose request a
 * live confirmation is bound to). */
export function stepRecord(step: PlanStep, group: string, leg: string) {
  const { action, market, side, tenorDays, clientReference } = step;
  const { ends, names } = KINDS[action];
  if (names && tenorDays === undefined)
    throw new UsageError(`step ${leg}: an ${action} of ${market} ${side} needs a tenor; give tenor_days on its row.`);
  return tradeRecord(
    action,
    withoutUndefined({
      market,
      side,
      notional_usd: ends ? undefined : Math.abs(step.deltaUsd),
      ...(names && { tenor_days: tenorDays, client_reference: clientReference }),
    }),
    { group, leg },
  );
}

/** The record a journal entry was, rebuilt from its recorded request (a resume); undefined when it is no trade. */
export function recordFromJournal(client: HedgeClient, entry: PlannedRow) {
  const { command, group, leg } = entry;
  const body = bodyOf(entry);
  // bodyOf gives the recorded body itself only when it is an object.
  if (!Object.hasOwn(KINDS, command) || body !== entry.request?.body) return;
  // An apply step stays a leg of its run: its journal entry is matched with its group and leg.
  return tradeRecord(
    command as TradeKind,
    KINDS[command as TradeKind].change ? client.changeRequestFromBody(body) : (body as unknown as SideRequest),
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

/** A trade through the write flow (a command's, an apply's step, a keeper's). An add or reduce refused only for the
 * amount's name did nothing, so it is sent once more under the server's name (a new key, the refused one noted) and
 * the name learned. */
export async function sendTrade(ports: WritePorts, record: TradeRecord, write: WriteOptions) {
  const client = await ports.client();
  const tried = await settleWrite(ports, tradeAction(ports, client, record), write);
  if (tried.kind !== 'failed') return tried;
  const { error } = tried;
  const planned = client.plan(record.kind, record.request, '');
  // Only a clear refusal of this action's own request (nothing happened) says anything of the amount's name.
  if (!KINDS[record.kind].change || !isRejection(error) || error.endpoint !== `${planned.method} ${planned.path}`)
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
    text: `Sending the ${record.command} again with \`${field}\` (a new idempotency key; the refused request did nothing).`,
  });
  const outcome = await runWrite(
    ports,
    tradeAction(ports, client, {
      ...record,
      // Checked on its first attempt; its confirmation (a person's "yes", an agent's token) goes with it, for the side as it was then.
      approved: { by: 'retry', plan: tried.approvedOn },
      context: { retry_of: entry?.id ?? null, learned: { notional_field: field } },
    }),
    { ...write, idempotencyKey: undefined, fresh: false },
  );
  if (entry && outcome.kind !== 'dry-run')
    await journal
      .update(entry.id, {
        message: `${error.message} — refused for the field name; sent again as ${outcome.entry.id} with \`${field}\``,
      })
      .catch(() => undefined);
  return outcome;
}
