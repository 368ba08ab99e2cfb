// The one model of a side (no I/O, no clock of its own): its hedge records, the positions line, the history (read to
// its end or not) and the server's time, which need not agree, judged together — what the side holds, and whether an
// expected change landed. No decision reads one view alone; nothing acts on a settling side.
import { cents, toCents } from '../../core/money.js';
import { formatUsd } from '../../core/number-format.js';
import { statusStanding } from '../../core/vocabulary.js';
import type { ServerTime } from '../../core/server-clock.js';
import { onTarget } from '../../core/keep-rules.js';
import type { Trade } from '../../platform/runtime/settings.js';

/** A hedge as its record shows it, in the book's terms. */
export interface HedgeRecord {
  id: string;
  status: string;
  notionalUsd?: number;
  maturityAtMs?: number;
  /** When the server says it closed, on its clock. */
  closedAtMs?: number;
  clientReference?: string;
}

/** The positions list's line for the side, in the book's terms. */
export interface PositionLine {
  notionalUsd?: number;
  hedgeId?: string;
}

/** A side as the model judged it. What it holds is said by `sideHolds` (and the helpers below), never read off its
 * fields: a decision asks the model. */
export interface SideBook {
  /** Why its views disagree (or cannot be read), when they do: the side is settling. */
  why?: string;
  filled: HedgeRecord[];
  opening: HedgeRecord[];
  ended: string[];
  /** Of `ended`, those that failed (never held anything). */
  failed: string[];
  recordsUsd: number;
  line?: PositionLine;
  unreadable?: { endpoint: 'GET /positions' | 'GET /hedges'; notionalUsd: number };
  /** The filled hedges read, when that read may be cut short of the side's: reading again would not tell more. */
  recordsCut?: number;
  /** The history records read, when a filled hedge of the side may be listed ended past them: the side may still come
   * into step (a view that trails), so it is waited on; past the bound, said with how to read the history whole. */
  historyCut?: number;
  /** A hedge the server named in its answer to an open of the side that no view shows yet: a read that trails the write. */
  unseen?: string;
}

/** How a side's views stand: flat or in step when they agree, settling when not. The model's own word, read by the
 * views that show it (`positions --json`); what the side holds is `sideHolds`'. */
export const viewsState = (book: SideBook) => (book.why !== undefined ? 'settling' : book.line ? 'in-step' : 'flat');

/** The same amount to the cent: the difference rounds to 0 cents. */
const near = (a: number, b: number) => toCents(a - b) === 0;

/** The ids of hedge records, in their order. */
export const idsOf = (records: readonly HedgeRecord[]) => records.map((record) => record.id);

/** The side's book from its hedges' records (any order; other sides' are ignored by the caller) and its positions line. */
export function reconcileSide(
  records: readonly HedgeRecord[],
  line: PositionLine | undefined,
  nowMs: number,
): SideBook {
  const filled = records
    .filter((record) => record.status === 'filled')
    .sort((a, b) => (b.maturityAtMs ?? 0) - (a.maturityAtMs ?? 0));
  const opening = records.filter((record) => !['filled', 'ended'].includes(statusStanding(record.status)));
  // A record without a notional hedge can read says nothing about the side's size: the line's then stands for it.
  const recordsUsd =
    filled.some((record) => record.notionalUsd === undefined) && line?.notionalUsd !== undefined
      ? line.notionalUsd
      : cents(filled.reduce((sum, record) => sum + (record.notionalUsd ?? 0), 0));
  const ended = records.flatMap((record) => (statusStanding(record.status) === 'ended' ? [record.id] : []));
  const failed = records.flatMap((record) => (record.status === 'failed' ? [record.id] : []));
  const book = { filled, opening, ended, failed, recordsUsd, ...(line && { line }) };
  const one = filled.length === 1;
  // (An amount or a time not given compares false.)
  const bad = filled.find((record) => record.notionalUsd! <= 0);
  const matured = filled.find((record) => record.maturityAtMs! <= nowMs);
  const unreadable =
    line?.notionalUsd !== undefined && line.notionalUsd <= 0
      ? { endpoint: 'GET /positions' as const, notionalUsd: line.notionalUsd }
      : bad && { endpoint: 'GET /hedges' as const, notionalUsd: bad.notionalUsd! };
  // A status hedge does not know (`settling`, a server's own word) holds neither open nor ended: waited on.
  const unknown = opening.find((record) => statusStanding(record.status) === 'settling');
  const why = unreadable
    ? unreadable.endpoint === 'GET /positions'
      ? `the positions list gives the open side a notional of ${formatUsd(unreadable.notionalUsd)}, which cannot be`
      : `hedge ${bad!.id} is filled with a notional of ${formatUsd(unreadable.notionalUsd)} on its record, which cannot be`
    : unknown
      ? `hedge ${unknown.id} shows status "${unknown.status}", which hedge does not know (neither open nor ended)`
      : matured
        ? `hedge ${matured.id} is past its maturity and not settled yet`
        : !line
          ? filled.length
            ? `${one ? 'hedge' : 'hedges'} ${idsOf(filled).join(', ')} ${one ? 'is filled on its record' : 'are filled on their records'}, not in the positions list yet`
            : undefined
          : filled.length
            ? line.notionalUsd !== undefined && !near(line.notionalUsd, recordsUsd)
              ? `the positions list shows ${formatUsd(line.notionalUsd)}, the hedge records ${formatUsd(recordsUsd)}`
              : undefined
            : 'the positions list still shows the side, whose hedges are not filled on their records';
  // Settling while any view says something the others do not; flat or in step when they agree.
  return why === undefined ? book : { ...book, why, ...(unreadable && { unreadable }) };
}

/** The views of one side as read: its records, its positions line, and what a further read told (asked by judgeSide). */
export interface SideViewsRead {
  records: readonly HedgeRecord[];
  line?: PositionLine;
  /** The server's time (core/server-clock.ts), its uncertainty beside it: maturities are judged on `bestMs`. */
  serverNow: { bestMs: number; earliestMs?: number; latestMs?: number };
  /** Whether the filled records read may be cut short of the side's: the count read, or 0 when they are whole. */
  recordsCut?: number;
  /** The hedges the history lists ended; `cutAt`: the records read, when more may follow that hedge cannot read (null:
   * none may; undefined: not asked yet). */
  history?: { ended: ReadonlySet<string>; cutAt?: number | null };
  /** The hedges the server named in its answers to this account's opens of the side, which its views must show. */
  named?: readonly string[];
}

/** The side from its views: reconciled, then — only where they disagree — whether the records read may be cut, and the
 * history (a server may leave an early-closed hedge `filled`). A filled hedge on a side listed in step is held without
 * the history. What the model needs read before it can say (a further read, asked only when it decides) it asks for. */
export function judgeSide(views: SideViewsRead): SideBook | { asks: 'records-cut' | 'history' | 'history-cut' } {
  const { records, line, serverNow, recordsCut, history, named } = views;
  // A hedge the server named that no view shows settles a side only where its views agree otherwise.
  const unseen = named?.find((id) => !records.some((record) => record.id === id));
  const seen = (judged: SideBook): SideBook =>
    judged.why !== undefined || unseen === undefined
      ? judged
      : {
          ...judged,
          why: `it does not show hedge ${unseen} yet, which the server named in its answer to an open of it`,
          unseen,
        };
  const book = reconcileSide(records, line, serverNow.bestMs);
  // A line the records read fall short of (or cannot be checked against) may hold hedges past a cut read.
  const short =
    line !== undefined &&
    (line.notionalUsd === undefined ||
      toCents(line.notionalUsd - book.recordsUsd) > 0 ||
      (line.hedgeId !== undefined && !records.some((record) => record.id === line.hedgeId)));
  if (short && recordsCut === undefined) return { asks: 'records-cut' };
  if (short && recordsCut)
    return {
      ...book,
      why: `the hedge records may be cut at ${recordsCut} filled hedges (the server gave no next page; it may not read the page size hedge sends)${book.why ? `, and ${book.why}` : ''}`,
      recordsCut,
    };
  if (book.why === undefined || !book.filled.length || book.unreadable) return seen(book);
  if (!history) return { asks: 'history' };
  const reconciled = reconcileSide(
    records.map((record) =>
      record.status === 'filled' && history.ended.has(record.id) ? { ...record, status: 'closed' } : record,
    ),
    line,
    serverNow.bestMs,
  );
  // A filled hedge the history may list ended past what was read: said, and waited on (a trailing view may still bring
  // the side into step); past the bound, cannot tell.
  if (reconciled.why === undefined || !reconciled.filled.length || history.cutAt === null) return seen(reconciled);
  if (history.cutAt === undefined) return { asks: 'history-cut' };
  return {
    ...reconciled,
    why: `the history may be cut at ${history.cutAt} records (the server gave no next page; it may not read the page size hedge sends), so whether ${idsOf(reconciled.filled).join(', ')} ended cannot be read, and ${reconciled.why}`,
    historyCut: history.cutAt,
  };
}

/** What a side holds, in the model's words: flat; held (ids, notional); settling (why: wait; `opening`, on a side whose
 * views agree, the first of its hedges still being opened); cannot tell (why: a read that will not tell more, or an
 * amount that cannot be). */
export function sideHolds(book: SideBook) {
  if (book.unreadable || book.recordsCut !== undefined || book.historyCut !== undefined)
    return { holds: 'cannot-tell', why: book.why! } as const;
  if (book.why !== undefined) return { holds: 'settling', why: book.why } as const;
  // Opening hedges (submitted, not filled) are the side's too: neither flat nor settled yet.
  const [opening] = book.opening;
  if (opening)
    return {
      holds: 'settling',
      why: `hedge ${idsOf(book.opening).join(', ')} is not filled yet`,
      opening,
    } as const;
  if (!book.line) return { holds: 'flat' } as const;
  return { holds: 'held', ids: idsOf(book.filled).sort(), notionalUsd: book.recordsUsd } as const;
}

/** Why what a side holds waits on its views (they disagree, or a read cannot tell), when it does — not on a hedge being
 * opened on a side whose views agree: nothing is decided on such a side until they agree. */
export const disagreement = (holds: SideHolds) =>
  holds.holds === 'cannot-tell' || (holds.holds === 'settling' && !holds.opening) ? holds.why : undefined;

export type SideHolds = ReturnType<typeof sideHolds>;

/** The side's live hedges (filled or being opened) that are not a target row's: a row owns those carrying its reference
 * (none: those carrying none; compared without regard to case, as some servers keep references in upper case), and those
 * the user adopted for it by id or reference. Nothing is closed, reduced or counted as drift on a side holding others. */
export function notTheRows(book: SideBook, reference: string | undefined, adopted: readonly string[] = []) {
  const word = (text: string | undefined) => text?.toUpperCase() ?? '';
  const taken = new Set(adopted.map(word));
  return [...book.filled, ...book.opening].filter(
    (record) =>
      word(record.clientReference) !== word(reference) &&
      !taken.has(word(record.id)) &&
      !(record.clientReference !== undefined && taken.has(word(record.clientReference))),
  );
}

/** Whether the side's views show hedge `id` held: filled on its record, on a side listed in step (undefined: not read). */
const holdsHedge = (book: SideBook | undefined, id: string) => {
  const holds = book && sideHolds(book);
  return holds?.holds === 'held' && holds.ids.includes(id);
};

/** A side as it was shown or kept (a confirmation's, the journal's side_after): its hedges not final, and their sum. */
export interface SideShown {
  hedge_ids: readonly string[];
  notional_usd: number;
}

/** Whether two reads show a side with the same hedges (undefined: a side not read). */
export const sameHedges = (a?: SideShown, b?: SideShown) =>
  JSON.stringify(a?.hedge_ids) === JSON.stringify(b?.hedge_ids);

/** Whether two reads show a side alike: the same hedges, the same notional (to the cent). A confirmation holds, a repeat
 * is judged and a plan's step goes only while the side is as it was shown. */
export const sameSide = (a: SideShown, b: SideShown) => sameHedges(a, b) && near(a.notional_usd, b.notional_usd);

/** Whether a confirmation still holds: the same trades to the cent, each on a side that holds the same hedges and
 * notional as when shown. */
export function sameAsShown(shown: readonly Trade[] | undefined, now: readonly Trade[] | undefined) {
  if (shown === undefined || now === undefined) return shown === now;
  return (
    shown.length === now.length &&
    shown.every((trade, index) => {
      const other = now[index];
      return (
        trade.market.toUpperCase() === other.market.toUpperCase() &&
        toCents(trade.notionalUsd) === toCents(other.notionalUsd) &&
        (trade.held && other.held ? sameSide(trade.held, other.held) : trade.held === other.held)
      );
    })
  );
}

/** A change one actor expects of a side: open 0 → N, add +N, reduce −N (about the whole side closes it), close → 0;
 * `before`: the side's notional when it was sent; `hedgeId`: the hedge the server named in its answer (an open's own,
 * or the one an add, a reduce or a close was sent for); `gone`: hedges it must leave in no view (a roll's closed leg). */
export interface ExpectedChange {
  kind: 'open' | 'add' | 'reduce' | 'close';
  before: number;
  changeUsd?: number;
  hedgeId?: string;
  gone?: readonly string[];
  /** The side's other adds and reduces known since this one began that `before` does not count (the journal's; an
   * amount unset: not read): an ended hedge may carry any of them, so its figure is told only where no sum of them
   * explains it both with this change and without it. */
  others?: readonly AmountChange[];
}

/** An add or a reduce by its amount (unset: not read). */
export type AmountChange = { kind: 'add' | 'reduce'; changeUsd?: number };

/** What a change moves its side's notional by: up by an add, down by a reduce. */
const signedUsd = ({ kind, changeUsd = 0 }: AmountChange) => (kind === 'add' ? changeUsd : -changeUsd);

/** Whether `figure` is `base` moved by some of `others` (any figure, where an amount is unread or they are too many to
 * add up). */
function reaches(figure: number, base: number, others: readonly AmountChange[]) {
  if (others.length > 12 || others.some((change) => change.changeUsd === undefined)) return true;
  const sums = others.reduce((all, change) => [...all, ...all.map((sum) => sum + signedUsd(change))], [base]);
  return sums.some((sum) => near(figure, sum));
}

/** Whether a change of this kind moves its side by an amount (an add, a reduce): those add up (movedBefore). */
export const byAmount = (kind: string): kind is 'add' | 'reduce' => kind === 'add' || kind === 'reduce';

/** Whether a change of this kind ends its side, whatever it held (a close: → 0). */
export const endsSide = (kind: string) => kind === 'close';

/** A reduction covering roughly the whole position closes it fully (spec section 3): within 1 %. */
const WHOLE_REDUCE_SHARE = 0.01;

/** What an add or reduce leaves on the side: its notional, and whether it closes it (a reduce of about the whole). */
export function expectedAfterChange(action: 'add' | 'reduce', baselineUsd: number, changeUsd: number) {
  const notionalUsd = action === 'add' ? baselineUsd + changeUsd : baselineUsd - changeUsd;
  return { notionalUsd, closes: action === 'reduce' && notionalUsd <= baselineUsd * WHOLE_REDUCE_SHARE };
}

/** What the side should hold once the change landed (0: flat). */
export function expectedNotional({ kind, before, changeUsd = 0 }: ExpectedChange) {
  if (kind === 'close') return 0;
  if (kind === 'open') return before + changeUsd;
  const { notionalUsd, closes } = expectedAfterChange(kind, before, changeUsd);
  return closes ? 0 : notionalUsd;
}

/** Where one view's notional of a side stands against an actor's change of it, to the cent: landed (what the side
 * should hold after it), not yet (what it held before), moved by another actor (neither), or cannot tell (not read). */
export function notionalVerdict(nowUsd: number | undefined, beforeUsd: number, afterUsd: number) {
  if (nowUsd === undefined) return 'cannot-tell';
  return near(nowUsd, afterUsd) ? 'landed' : near(nowUsd, beforeUsd) ? 'not-yet' : 'moved';
}

export type ChangeVerdict = {
  verdict: 'landed' | 'not-yet' | 'partly' | 'moved' | 'failed' | 'ended-first' | 'ended-untold' | 'cannot-tell';
  evidence: string;
  /** A further read that may tell more: the record of the hedge the change was sent for (then given as `ended`). */
  asks?: 'hedge';
  /** Landed, and the side ended since (settled or was closed): only its hedge's own record shows the change. */
  endedSince?: true;
};

/** Whether an expected change shows in the side's views — the one verdict a write's wait, a resume's reconcile and the
 * keeper ask: landed (the side holds what it should), not yet (as it was before), partly (an add or a reduce that shows
 * in part: at the wait's bound, not told from another actor's move), moved by another actor (neither), failed (an
 * open's own hedge failed: it never will), or cannot be told (views that disagree past what a read tells). A change
 * sent for a named hedge is seen by it: an open's own hedge filled on a side in step (or ended since) has landed,
 * whatever else is still being opened there; the hedge an add or a reduce was sent for, no longer held on a side held
 * by other hedges, was moved by another actor (its notional alone could match by chance); a close whose side is held
 * only by hedges other than those it ended has landed (opened since), not while one it ended is still held. An add or
 * a reduce whose side every view shows flat, though the change would not close it, is judged by its hedge's own record
 * (`ended`; null: it cannot be read; undefined: not read, asked for): carrying the change, it landed and ended since;
 * at its figure before the change, it ended first and the change never happened (`ended-first`); otherwise whether it
 * happened before the side ended cannot be told (`ended-untold`), as where the side's other changes known since
 * (`others`) could make its figure both with the change and without it. */
export function changeVerdict(book: SideBook, expected: ExpectedChange, ended?: HedgeRecord | null): ChangeVerdict {
  const holds = sideHolds(book);
  if (holds.holds === 'cannot-tell') return { verdict: 'cannot-tell', evidence: holds.why };
  const { kind, before, changeUsd = 0, hedgeId: named, gone = [] } = expected;
  const filled = (id: string) => book.filled.some((record) => record.id === id);
  const stays = gone.find((id) => filled(id) || book.line?.hedgeId === id);
  if (kind === 'open' && named !== undefined && book.why === undefined) {
    if (book.failed.includes(named)) return { verdict: 'failed', evidence: `hedge ${named} failed` };
    const over = book.ended.includes(named);
    if (over || (book.line && filled(named) && !stays))
      return { verdict: 'landed', evidence: `hedge ${named} is ${over ? 'ended' : 'held'}` };
  }
  if (kind !== 'open' && named !== undefined && holds.holds === 'held' && !holds.ids.includes(named)) {
    const left = holds.ids.filter((id) => gone.includes(id));
    if (kind !== 'close')
      return {
        verdict: 'moved',
        evidence: `hedge ${named} is not held; the side is held by ${holds.ids.join(', ')} at ${formatUsd(holds.notionalUsd)}`,
      };
    return left.length
      ? { verdict: 'not-yet', evidence: `hedge ${left.join(', ')} is still held` }
      : {
          verdict: 'landed',
          evidence: `hedge ${named} is not held; the side is held by ${holds.ids.join(', ')}, opened since`,
        };
  }
  if (holds.holds === 'settling') return { verdict: 'not-yet', evidence: `the side is settling: ${holds.why}` };
  if (stays) return { verdict: 'not-yet', evidence: `hedge ${stays} is still shown` };
  const now = holds.holds === 'flat' ? 0 : holds.notionalUsd;
  const after = expectedNotional(expected);
  if (
    (kind === 'add' || kind === 'reduce') &&
    holds.holds === 'flat' &&
    !expectedAfterChange(kind, before, changeUsd).closes
  ) {
    const usd = ended?.notionalUsd;
    const { others = [] } = expected;
    const [carries, lacks] = [after, before].map((base) => usd !== undefined && reaches(usd, base, others));
    if (carries && !lacks)
      return {
        verdict: 'landed',
        evidence: `hedge ${ended!.id} carries the ${kind} (${formatUsd(usd!)}) and has ended`,
        endedSince: true,
      };
    if (lacks && !carries)
      return { verdict: 'ended-first', evidence: `hedge ${ended!.id} ended at ${formatUsd(before)}` };
    const shows = !ended
      ? 'its hedge cannot be read'
      : `its hedge shows ${usd === undefined ? 'no readable notional' : formatUsd(usd)}${carries ? ", which the side's other changes known since could make with it or without it" : ''}`;
    return { verdict: 'ended-untold', evidence: shows, ...(ended === undefined && { asks: 'hedge' as const }) };
  }
  const side = `the side is ${holds.holds === 'flat' ? 'flat' : `at ${formatUsd(now)}`}`;
  if (kind === 'open' && named !== undefined)
    return near(now, before)
      ? { verdict: 'not-yet', evidence: `hedge ${named} is not held yet; ${side}` }
      : { verdict: 'moved', evidence: `hedge ${named} is not held, and ${side}` };
  const words = `${side}; it was ${formatUsd(before)} before the ${kind} and would be ${after > 0 ? formatUsd(after) : 'flat'} after it`;
  const seen = notionalVerdict(now, before, after);
  if (seen !== 'moved') return { verdict: seen, evidence: words };
  // Part of the way, in the change's direction: landing in parts (an open's hedge is seen by its own record); a close
  // lands whole.
  if (kind !== 'close' && (now - before) * (after - now) > 0)
    return { verdict: kind === 'open' ? 'not-yet' : 'partly', evidence: `${words}: part of it shows` };
  return { verdict: 'moved', evidence: `${words}: something outside this action moved it` };
}

/** The hedge a held side is renewed by: the soonest to mature of its filled hedges (none unless the side is held). */
export function soonestHeld(book: SideBook) {
  return sideHolds(book).holds === 'held' ? book.filled.at(-1) : undefined;
}

/** What a roll of the side renews, as its views show it: a held side's filled hedges (`several` when more than one,
 * soonest to mature last), the first to mature and their sum; else the hedge still being opened it waits for
 * (`withFilled`: whether some are filled already); else nothing. */
export function rollTakes(book: SideBook) {
  const holds = sideHolds(book);
  if (holds.holds === 'held')
    return {
      held: {
        several: book.filled.length > 1 ? book.filled : undefined,
        first: book.filled.at(-1),
        notionalUsd: holds.notionalUsd,
      },
    };
  if (holds.holds === 'settling' && holds.opening)
    return { waitsFor: { opening: holds.opening, withFilled: book.filled.length > 0 } };
  return {};
}

/** The hedge the side's views name: its positions line's, else its filled hedge latest to mature. */
export const namedHedge = (book: SideBook) => book.line?.hedgeId ?? book.filled[0]?.id;

/** What the journal records of a side's filled hedges beside an action whose request names neither: the deal
 * references, and the hedges' ids when there are several (a close ends every one). */
export function sideContext({ filled }: SideBook) {
  const references = [...new Set(filled.flatMap((record) => record.clientReference ?? []))];
  return {
    ...(references.length && { client_reference: references.join(', ') }),
    ...(filled.length > 1 && { hedge_ids: idsOf(filled) }),
  };
}

/** Whether a side as shown or kept holds no hedge. */
export const shownFlat = (side: SideShown) => !side.hedge_ids.length;

/** The side's newest hedge when it ended before its maturity (judged at `nowMs`, the server's) and left the side flat:
 * closed early, by whoever. A server may leave such a hedge `filled` on its record: the book has it ended. */
export function closedEarly(book: SideBook, newest: HedgeRecord | undefined, nowMs: number) {
  const ended = newest?.status === 'closed' || (newest?.status === 'filled' && book.ended.includes(newest.id));
  return ended && sideHolds(book).holds === 'flat' && newest!.maturityAtMs! > nowMs ? newest : undefined;
}

/** Which read of the side may be cut short (reading again tells no more): its hedge records, or its history. */
export const cutRead = (book: SideBook) =>
  book.recordsCut !== undefined ? 'records' : book.historyCut !== undefined ? 'history' : undefined;

/** What one hedge's record says of it: being opened, filled (whether it holds its side is the side's to say:
 * sideHolds), ended (`failed`: without ever holding anything), or settling — a status hedge does not know, neither open nor ended, in the side model's words.
 * `historyEnded`: the hedges a history read lists ended; a filled one among them ended (a server may leave an
 * early-closed hedge `filled`), as judgeSide reads them. */
export function recordStanding(record: Pick<HedgeRecord, 'id' | 'status'>, historyEnded?: ReadonlySet<string>) {
  const standing = statusStanding(record.status);
  if (standing === 'ended' || (standing === 'filled' && historyEnded?.has(record.id)))
    return { standing: 'ended', ...(record.status === 'failed' && { failed: true }) } as const;
  return standing === 'settling'
    ? ({ standing, why: reconcileSide([record], undefined, 0).why! } as const)
    : ({ standing } as const);
}

/** Whether a hedge's record shows it still held or being opened (neither ended nor settling): a deal's live hedge, one
 * that can still mature. */
export const stillLive = (record: Pick<HedgeRecord, 'id' | 'status'>, historyEnded?: ReadonlySet<string>) =>
  ['opening', 'filled'].includes(recordStanding(record, historyEnded).standing);

/** What a plan bound of a side: the side as it was shown (its hedges and their sum), and of several hedges the first
 * to mature. */
export interface BoundSide {
  shown: SideShown;
  soonest?: { id: string; maturityAtMs?: number };
}

/** Whether a side is still what a roll's plan bound, as a later read `found` it, judged where the roll's close lands on
 * the server's clock (`serverNow`, its uncertainty beside it): before the close is sent, one request's bound `landingMs`
 * past `bestMs` (of several hedges, never before the latest the clock may read now); once sent, when it ended
 * (`closedAtLocalMs`, this machine's time; none: now) by the latest the clock may read. A bound hedge of several that
 * may have matured by then may settle on its own, and a close of the side would take the others alone; a lone one that
 * may mature before the close lands is left to settle (`settles`: not closed). Other hedges or another sum, the side
 * moved; a lone bound hedge that ended leaves nothing to split: that side is renewed anew. How it changed, or undefined. */
export function changedSincePlan(
  { shown, soonest }: BoundSide,
  found: SideShown,
  at: { serverNow: ServerTime; landingMs?: number; closedAtLocalMs?: number },
) {
  const { serverNow: now, landingMs, closedAtLocalMs = now.localMs } = at;
  const lone = shown.hedge_ids.length === 1;
  const latestMs =
    landingMs === undefined
      ? now.latestMs + closedAtLocalMs - now.localMs
      : Math.max(whenLanded(now, landingMs), lone ? -Infinity : now.latestMs);
  if (
    soonest &&
    (landingMs !== undefined || shown.hedge_ids.length > 1) &&
    mayHaveMatured(soonest.maturityAtMs, latestMs)
  )
    return { matured: soonest, settles: (lone && landingMs !== undefined) || undefined };
  if (sameSide(found, shown) || (lone && !found.hedge_ids.length)) return;
  return { moved: found };
}

/** The latest the server's clock may read at `at` (its reading; a number: an instant known exactly). What must act
 * early, or never late, is timed on it: a roll, an exposure's end, how long a wait has lasted. */
export const latestOf = (at: { latestMs: number } | number) => (typeof at === 'number' ? at : at.latestMs);

/** Whether a hedge maturing at `maturityAtMs` may have matured by `withinMs` past an instant the server's clock puts no
 * later than `at` (latestOf): a close landing then may have found it settled and taken the side without it; a roll is
 * due once its hedge may mature within roll_before. No time given: it may have. */
export function mayHaveMatured(maturityAtMs: number | undefined, at: { latestMs: number } | number, withinMs = 0) {
  return maturityAtMs === undefined || maturityAtMs <= latestOf(at) + withinMs;
}

/** The server's time by which a write sent at `at` has landed: within `landingMs`, one request's bound. Judged on
 * `bestMs`, as every maturity is (an assumed skew never makes a hedge settling). A roll's close landing after the
 * maturity would take a settling hedge. */
export const whenLanded = (at: ServerTime, landingMs: number) => at.bestMs + landingMs;

/** How far the server's clock is ahead of this machine's at `at` (negative: behind), by its best reading. */
export const offsetOf = (at: Pick<ServerTime, 'bestMs' | 'localMs'>) => at.bestMs - at.localMs;

/** The latest this machine's clock can have read when the server's read `serverMs` (NaN: a time not given, which
 * compares false), by the earliest the server's clock reads at `at`: a hedge the server closed then is after an
 * instant of ours only if so by this. */
export const latestHereAt = (serverMs: number, at: ServerTime) => serverMs - at.earliestMs + at.localMs;

/** Whether `record` is a hedge of the side that ended having held something (it did not fail) lately at the server's
 * time `at` (judged on `bestMs`, as every maturity is): its maturity at most `withinMs` past, or still ahead (closed
 * early). No time given: it did not. */
export function endedLately(
  book: SideBook,
  { id, maturityAtMs }: HedgeRecord,
  withinMs: number,
  at: { bestMs: number },
) {
  return (
    book.ended.includes(id) &&
    !book.failed.includes(id) &&
    maturityAtMs !== undefined &&
    maturityAtMs >= at.bestMs - withinMs
  );
}

/** Whether no view gives the side's size: a filled hedge's record shows no notional, nor does its positions line. */
export const unsized = (book: SideBook) =>
  book.line?.notionalUsd === undefined && book.filled.some((record) => record.notionalUsd === undefined);

/** How far a side is from a target notional, past a tolerance: the change that brings it there (an open of a flat side;
 * a held one's close for a target of 0, else an add or a reduce) and by how much; nothing on target (a flat side only
 * under a target of 0), or on a side neither flat nor held. What apply plans and the keeper brings back alike. */
export function towardTarget(book: SideBook, targetUsd: number, toleranceUsd: number) {
  const holds = sideHolds(book);
  const currentUsd = holds.holds === 'held' ? holds.notionalUsd : 0;
  if (
    holds.holds === 'flat' ? targetUsd === 0 : holds.holds !== 'held' || onTarget(currentUsd, targetUsd, toleranceUsd)
  )
    return undefined;
  const change =
    holds.holds === 'flat' ? 'open' : targetUsd === 0 ? 'close' : currentUsd < targetUsd ? 'add' : 'reduce';
  return { change, currentUsd, amountUsd: Math.abs(targetUsd - currentUsd) } as const;
}

/** What the side now says of an earlier send of a change (a resume's reconcile, before it is sent again), from the
 * same proof as the wait's and the views' clock: landed (followed, never sent again); not landed (sent again under its
 * key) only where nothing else can explain it: a side that held nothing and was never answered, or a close never
 * answered whose own hedge is still held as before; otherwise unknown (`why`). A close's hedge that may have matured by
 * the latest the server's clock reads (or cannot be read) leaves the side by settling: its absence proves nothing.
 * `book` undefined: its views still disagree at the read's bound, which an entry the server answered is that action
 * landing. `changedSince`: another change of the side is known since that the journal cannot attribute: a close shows
 * only as the side's absence, and a side as before proves nothing, so neither is told. `hedge`: the named hedge's
 * record (null: it cannot be read), asked for only where it decides. */
export function earlierChange(
  book: SideBook | undefined,
  expected: ExpectedChange | undefined,
  read: {
    answered: boolean;
    changedSince?: boolean;
    hedge?: HedgeRecord | null;
    serverNow: SideViewsRead['serverNow'];
  },
): EarlierVerdict | { asks: 'hedge' } {
  const judged = earlierOn(book, expected, read);
  if ('asks' in judged || !read.changedSince) return judged;
  return judged.verdict === 'not-landed' || (judged.verdict === 'landed' && expected?.kind === 'close')
    ? { verdict: 'unknown' }
    : judged;
}

export type EarlierVerdict = {
  verdict: 'landed' | 'not-landed' | 'unknown';
  why?: 'held-nothing' | 'unread' | 'no-maturity' | 'matured' | 'settling' | 'not-read-before';
};

function earlierOn(
  book: SideBook | undefined,
  expected: ExpectedChange | undefined,
  {
    answered,
    hedge,
    serverNow,
  }: { answered: boolean; hedge?: HedgeRecord | null; serverNow: SideViewsRead['serverNow'] },
): EarlierVerdict | { asks: 'hedge' } {
  if (!book) return { verdict: answered ? 'landed' : 'unknown', why: 'settling' };
  if (!expected) return { verdict: 'unknown', why: 'not-read-before' };
  const { kind, before, hedgeId } = expected;
  if (toCents(before) <= 0 && sideHolds(book).holds === 'flat')
    return { verdict: answered || hedgeId ? 'unknown' : 'not-landed', why: 'held-nothing' };
  const { verdict, asks } = changeVerdict(book, expected, hedge);
  if (asks) return { asks };
  if (verdict === 'landed' && kind === 'close' && hedgeId !== undefined) {
    if (hedge === undefined) return { asks: 'hedge' };
    if (!hedge) return { verdict: 'unknown', why: 'unread' };
    if (mayHaveMatured(hedge.maturityAtMs, serverNow.latestMs ?? serverNow.bestMs))
      return { verdict: 'unknown', why: hedge.maturityAtMs === undefined ? 'no-maturity' : 'matured' };
  }
  if (verdict === 'landed') return { verdict };
  const ownHeld = verdict === 'not-yet' && !answered && kind === 'close' && holdsHedge(book, hedgeId!);
  return { verdict: ownHeld ? 'not-landed' : 'unknown' };
}

/** What the hedges now say of an earlier open (a resume's reconcile): its hedge when the server named it (`named`: its
 * record; null: it cannot be read), else the side's hedges opened since it was made (`opened`, searched by the deal
 * reference it carries when `byReference`: an accepted open is listed at once, so none carrying it means none was made;
 * without one, any may be it). Landed names its hedge, followed to its end; a hedge in a status hedge does not know
 * cannot be told. `changedSince`: another change of the side is known since: none found proves nothing. */
export function earlierOpen(
  found: { named: HedgeRecord | null } | { opened: readonly HedgeRecord[]; byReference: boolean },
  changedSince?: boolean,
): { verdict: 'landed' | 'not-landed' | 'unknown'; hedge?: HedgeRecord; why?: string } {
  const hedge = 'named' in found ? found.named : found.byReference ? found.opened[0] : undefined;
  if (!hedge)
    return {
      verdict: 'opened' in found && found.byReference && !changedSince ? 'not-landed' : 'unknown',
    };
  const standing = recordStanding(hedge);
  return standing.standing === 'settling'
    ? { verdict: 'unknown', hedge, why: standing.why }
    : { verdict: 'landed', hedge };
}

/** The side's notional a change was sent on, moved by the changes of it known to have landed since (each an add +N or
 * a reduce −N): what a resume's reconcile judges its change against. */
export function movedBefore(before: number, since: readonly AmountChange[]) {
  const delta = since.reduce((sum, change) => sum + signedUsd(change), 0);
  return delta === 0 ? before : cents(before + delta);
}

/** A positions line without a notional hedge can read is sized by the side's records, when every filled one shows its
 * own (a line may aggregate several). */
export function sizedByRecords<Line extends { notionalUsd?: number; notionalFromHedge?: boolean }>(
  line: Line,
  book: SideBook,
) {
  if (
    (line.notionalUsd !== undefined && !line.notionalFromHedge) ||
    !book.filled.length ||
    book.filled.some((record) => record.notionalUsd === undefined)
  )
    return line;
  return { ...line, notionalUsd: book.recordsUsd };
}

/** What a close of the side takes, as its views show it: its filled hedges and those still being opened (undefined:
 * a side neither flat nor sized by its records, whose positions line gives no notional). */
export function closeTakes(book: SideBook) {
  if (!book.filled.length && !book.opening.length) return sideHolds(book).holds === 'flat' ? 0 : book.line?.notionalUsd;
  return cents(book.recordsUsd + book.opening.reduce((sum, record) => sum + (record.notionalUsd ?? 0), 0));
}

/** A little before an open's entry was made, two machines' clocks differing. */
const CLOCK_SKEW_MS = 5 * 60_000;

/** From when an open's hedge is looked for, on the server's clock: the earlier of its entry's creation (this machine's
 * time, put on the server's by the earliest the server's clock can read) and the server's time sealed at its first
 * send (a rewritten creation time cannot hide the hedge). */
export function openSearchFrom(createdAtMs: number, sentAtServerMs: number | undefined, serverNow: ServerTime) {
  return Math.min(createdAtMs + serverNow.earliestMs - serverNow.localMs, sentAtServerMs ?? Infinity) - CLOCK_SKEW_MS;
}

/** A reduce of `usd` beyond what every view agrees the side holds (to the cent): what it holds, which the server would
 * refuse the reduce for; undefined when it holds enough, or its views disagree or cannot size it (the server's to judge). */
export function reduceBeyondHeld(book: SideBook, usd: number) {
  const holds = sideHolds(book);
  if (holds.holds !== 'held' || unsized(book)) return;
  const heldUsd = Math.max(holds.notionalUsd, book.line?.notionalUsd ?? 0);
  return cents(usd - heldUsd) > 0 ? { heldUsd, ids: holds.ids } : undefined;
}

/** Whether a deal's reference is in use, from the hedges carrying it and their sides' books (`bookOf`; undefined: that
 * side not read): those a side's views show held; else those being opened, or filled and not ended on their side (a
 * server may leave an early-closed hedge `filled`, which the history lists); of filled ones alone, on a side whose
 * history may be cut, whether they ended cannot be told (`historyCut`). `unknown`: those in a status hedge does not
 * know, counted as neither. Asks for the books of the filled ones only, and only when there are some. */
export function referenceInUse(
  carrying: readonly HedgeRecord[],
  bookOf?: (record: HedgeRecord) => SideBook | undefined,
): { active: HedgeRecord[]; unknown: HedgeRecord[]; historyCut?: number } | { asks: 'books'; of: string[] } {
  const standing = (record: HedgeRecord) => recordStanding(record).standing;
  const filled = carrying.filter((record) => standing(record) === 'filled');
  if (filled.length && !bookOf) return { asks: 'books', of: idsOf(filled) };
  const held = filled.filter((record) => holdsHedge(bookOf?.(record), record.id));
  const active = held.length
    ? held
    : carrying.filter((record) => stillLive(record) && !bookOf?.(record)?.ended.includes(record.id));
  const cut = held.length || active.some((record) => standing(record) !== 'filled') ? undefined : active;
  const historyCut = cut?.map((record) => bookOf?.(record)?.historyCut).find((at) => at !== undefined);
  const unknown = carrying.filter((record) => standing(record) === 'settling');
  return historyCut === undefined ? { active, unknown } : { active, unknown, historyCut };
}
