// The book of a side as every decision reads it: the hedge records (GET /hedges) and the positions
// line (GET /positions) read together and reconciled by domain/book.ts — never one view alone.
import type { HedgeClient, HistoryPage } from '../../platform/api/client.js';
import { MAX_PAGE_SIZE } from '../../core/wire.js';
import type { Hedge } from '../../platform/api/schemas.js';
import { historyHedgeId } from '../../platform/api/wire/fields.js';
import { idsOf, judgeSide, sideHolds, disagreement, type SideBook, type SideViewsRead } from './book.js';
import type { Side } from '../../core/vocabulary.js';
import { InvalidResponseError, UnresolvedError } from '../../core/errors.js';
import type { CommandContext } from '../../platform/runtime/context.js';
import { safeText } from '../../core/security/safe-text.js';
import { findSide, readBook, type BookPosition } from './positions.js';
import { formatSpan } from '../../core/duration.js';

/** The side as a book shows it, as the journal keeps it after an action (its hedges not final, and their sum). */
export function sideAfterOf(book: SideBook) {
  return {
    hedge_ids: idsOf([...book.filled, ...book.opening]).sort(),
    notional_usd: book.recordsUsd,
  };
}

/** Whether a hedge is of the side (a market named in any case). */
export const ofSide = (hedge: Hedge, market: string, side: unknown) =>
  hedge.market.toUpperCase() === market.toUpperCase() && hedge.side === side;

export function hedgeRecord(hedge: Hedge) {
  // A maturity and a close as the book keeps them, in ms; none when they cannot be read.
  const maturityAtMs = Date.parse(hedge.maturity_at ?? '');
  const closedAtMs = typeof hedge.closed_at === 'string' ? Date.parse(hedge.closed_at) : NaN;
  return {
    id: hedge.id,
    status: hedge.status,
    // Read leniently by the hedge's schema, as every amount the spec types is (a decimal string is a number).
    notionalUsd: hedge.notional_usd,
    ...(Number.isFinite(maturityAtMs) && { maturityAtMs }),
    ...(Number.isFinite(closedAtMs) && { closedAtMs }),
    ...(hedge.client_reference && { clientReference: hedge.client_reference }),
  };
}

/** The hedges the history's newest page lists as ended (none when it cannot be read), asked at MAX_PAGE_SIZE: a server
 * may leave an early-closed hedge `filled`. `cutAt`: the records read, when more may follow (a next page, or a page
 * that may be one of more: asked only of a hedge it does not list). */
async function endedHedgeIds(client: HedgeClient) {
  let page: HistoryPage | undefined;
  try {
    for await (page of client.historyPages()) break;
  } catch {
    page = undefined;
  }
  const ids = new Set((page?.records ?? []).flatMap((record) => historyHedgeId(record) ?? []));
  let cut: Promise<boolean> | undefined;
  const cutAt = async () =>
    page && (page.next === 'page' || page.more || (await (cut ??= page.mayBeCut()))) ? page.records.length : undefined;
  return { ids, cutAt };
}

/** Both views read once, each side reconciled from them; the history is read only for a settling side with filled hedges, as a server may leave an early-closed hedge `filled`. */
export const SideViews = {
  /** `positions`: the positions list as a poll just read it (not read again: the spec's cadence). */
  async read(client: HedgeClient, log?: (line: string) => void, positions?: BookPosition[]) {
    const listed = positions ?? (await readBook(client, log));
    // Every filled hedge however old, and the newest page whatever their status; the filter is a hint.
    const [filled, newest] = await Promise.all([
      client.readHedges({ status: 'filled', limit: MAX_PAGE_SIZE }),
      client.listHedges(),
    ]);
    const hedges = [...new Map([...filled.items, ...newest].map((hedge) => [hedge.id, hedge])).values()];
    // The server's time as these views were read, its uncertainty beside it: the model judges on it.
    const serverNow = client.transport.serverNow();
    let history: ReturnType<typeof endedHedgeIds> | undefined;
    // Fewer filled hedges than the newest page of all is the whole of them, however the server pages; as many may be
    // one page of more (a server that ignores the page size), asked once, only for a side the records may not hold.
    let cut: Promise<boolean> | undefined;
    const filledMayBeCut = async () =>
      filled.more ||
      (filled.items.length > 1 && filled.items.length >= newest.length && (await (cut ??= filled.mayBeCut())));
    return {
      hedges,
      /** The newest page as the server lists it, newest first. */
      newest,
      positions: listed,
      serverNow,
      /** The side's book now (book.ts judgeSide), its maturities judged on the server's time; the reads it asks for
       * made only when it asks. */
      async book(market: string, side: Side, named?: readonly string[]): Promise<SideBook> {
        const records = hedges.filter((hedge) => ofSide(hedge, market, side)).map(hedgeRecord);
        const found = findSide(listed, market, side);
        const line = found && {
          ...(found.notionalUsd !== undefined && !found.notionalFromHedge && { notionalUsd: found.notionalUsd }),
          ...(found.hedgeId && { hedgeId: found.hedgeId }),
        };
        const views: SideViewsRead = { records, line, serverNow, named };
        for (;;) {
          const judged = judgeSide(views);
          if (!('asks' in judged)) return judged;
          if (judged.asks === 'records-cut') views.recordsCut = (await filledMayBeCut()) ? filled.items.length : 0;
          else {
            const { ids: ended, cutAt } = await (history ??= endedHedgeIds(client));
            views.history = { ended, cutAt: judged.asks === 'history-cut' ? ((await cutAt()) ?? null) : undefined };
          }
        }
      },
    };
  },
};
export type SideViews = Awaited<ReturnType<typeof SideViews.read>>;

/** A side whose book holds an amount that cannot be (domain/book.ts) is a reading problem (exit 14): never acted on. */
export function readableBook(book: SideBook, market: string, side: Side) {
  if (!book.unreadable) return book;
  throw new InvalidResponseError(`The ${side} side of ${market} is not acted on: ${safeText(book.why!)}.`, {
    endpoint: book.unreadable.endpoint,
    status: 200,
    field: 'notional_usd',
    received: String(book.unreadable.notionalUsd),
    hint: 'Nothing was sent for it. Compare `hedge positions` with `hedge hedges`, and report the answer with --verbose.',
  });
}

/** What reading a side in step uses of the command: its clock, deadline, log and signal. */
type BookPorts = Pick<CommandContext, 'clock' | 'deadline' | 'log' | 'signal'>;

const SETTLE_WAIT_MS = 60_000;
const SETTLE_POLL_MS = 1_500;

/** The side's book once its views agree, read again while settling up to SETTLE_WAIT_MS (or --timeout); past that "cannot tell" (exit 12), never a decision on one view alone. */
export async function readSideInStep(ports: BookPorts, client: HedgeClient, market: string, side: Side) {
  const { books, positions, serverNow } = await readSidesInStep(ports, client, [{ market, side }]);
  return { book: books[0], positions, serverNow };
}

/** A side whose records may be cut (`recordsCut`, or `historyCut` past the wait's bound): cannot be told; says how to
 * read them whole. Before a decision nothing was sent; after a write, the write flow says what was. */
export function cutSide({ market, side }: { market: string; side: Side }, book: SideBook, beforeSend: boolean) {
  return new UnresolvedError(
    `The ${side} side of ${market} cannot be told: ${safeText(book.why!)}${beforeSend ? '. Nothing was sent' : ''}.`,
    {
      details: { market, side, why: book.why!, hedges_read: book.recordsCut ?? book.historyCut! },
      hint: `\`hedge doctor\` shows how the server pages; set HEDGE_WIRE_PAGE_SIZE_PARAM to its page-size parameter, then compare \`hedge positions\` with ${book.recordsCut === undefined ? '`hedge history --all`' : '`hedge hedges --status filled --all`'}.`,
    },
  );
}

/** readSideInStep for several sides at once (a plan's): every one of them in step, or flat, in the same read, before a
 * decision (nothing sent yet). */
export async function readSidesInStep(
  ports: BookPorts,
  client: HedgeClient,
  /** `opened`: hedges the server named in its answers to this account's opens of a side, which its views must show. */
  sides: ReadonlyArray<{ market: string; side: Side; opened?: readonly string[] }>,
  /** `settled`: the decision waits besides for the hedges being opened on a side: until it holds, or is flat. */
  settled?: boolean,
) {
  const started = ports.clock.now();
  const bound = Math.min(SETTLE_WAIT_MS, (ports.deadline ?? Infinity) - started);
  for (;;) {
    const views = await SideViews.read(client, ports.log);
    const books = await Promise.all(
      sides.map(async ({ market, side, opened }) => readableBook(await views.book(market, side, opened), market, side)),
    );
    const cut = books.find((book) => book.recordsCut !== undefined);
    if (cut) throw cutSide(sides[books.indexOf(cut)], cut, true);
    const waiting = books.findIndex((book) => {
      const holds = sideHolds(book);
      return settled ? holds.holds !== 'flat' && holds.holds !== 'held' : disagreement(holds) !== undefined;
    });
    if (waiting < 0) return { books, ...views };
    const { market, side } = sides[waiting];
    const book = books[waiting];
    const waited = ports.clock.now() - started;
    if (waited + SETTLE_POLL_MS > bound) {
      if (book.historyCut !== undefined) throw cutSide(sides[waiting], book, true);
      const why =
        book.why !== undefined
          ? `is settling: ${safeText(book.why ?? 'its views disagree')}`
          : 'does not show in every view what this command waits for (a change landing, a hedge being opened)';
      throw new UnresolvedError(
        `The ${side} side of ${market} ${why}; still so after ${formatSpan(waited)}, so what it holds cannot be told. Nothing was sent.`,
        {
          details: { market, side, why: book.why ?? null, ...(book.unseen !== undefined && { hedge_id: book.unseen }) },
          hint: 'Compare `hedge positions` with `hedge hedges`, and run the command again once both show the same book.',
        },
      );
    }
    ports.log(
      `${market} ${side}: ${book.why !== undefined ? `settling (${safeText(book.why ?? '')})` : 'not there yet'}; reading again in ${formatSpan(SETTLE_POLL_MS)}`,
    );
    await ports.clock.sleep(SETTLE_POLL_MS, ports.signal);
  }
}
