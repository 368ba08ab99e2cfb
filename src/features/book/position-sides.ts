// `hedge positions` as one book from every view (book.ts): never the positions list alone, never
// the records alone; unreadable records leave the positions as they are, with the reason.
import type { HedgeClient } from '../../platform/api/client.js';
import { recordStanding, viewsState } from './book.js';
import type { Side } from '../../core/vocabulary.js';
import { rowKey } from '../../core/keep-rules.js';
import type { BookPosition } from './positions.js';
import { SideViews } from './side-book.js';
import { messageOf, safeText } from '../../core/security/safe-text.js';

/** The positions just read with their sides' hedge records. */
export async function readPositionSides(client: HedgeClient, positions: BookPosition[], log?: (line: string) => void) {
  type PositionSide = Awaited<ReturnType<typeof sideOf>>;
  const nothing = { lines: positions.map((): PositionSide | undefined => undefined), unlisted: [] as PositionSide[] };
  let views: SideViews;
  try {
    views = await SideViews.read(client, log, positions);
  } catch (error) {
    return { ...nothing, recordsProblem: `GET /hedges failed (${safeText(messageOf(error))})`, recordsError: error };
  }
  // Every open line stands for hedges on their records, which lead the positions list: none at all is a
  // server that does not list them (or not to this key), not a book to judge every side settling on.
  if (!views.hedges.length && positions.length)
    return { ...nothing, recordsProblem: 'GET /hedges returned no hedge records', recordsError: undefined };
  const byId = new Map(views.hedges.map((hedge) => [hedge.id, hedge]));
  /** A side as every view shows it: its book, with its hedges' records and their deal references (`lineHedgeId`: the
   * hedge the side's positions line names). */
  const sideOf = async (market: string, side: Side, lineHedgeId?: string) => {
    const book = await views.book(market, side);
    const soonest = book.filled.toSorted((a, b) => (a.maturityAtMs ?? Infinity) - (b.maturityAtMs ?? Infinity));
    const records = (list: typeof soonest) => list.flatMap((record) => byId.get(record.id) ?? []);
    const held = records(soonest);
    const hedges = [...held, ...records(book.opening)];
    const named = byId.get(lineHedgeId!);
    // The references of the filled hedges, else of those being opened, else of the line's own hedge.
    const behind = [held, hedges, named ? [named] : []].find((list) => list.length);
    return {
      ...book,
      // How its views stand, as the model says it for a view to show.
      state: viewsState(book),
      market,
      side,
      hedges,
      references: [...new Set(behind?.flatMap((hedge) => hedge.client_reference || []))],
    };
  };

  const lines = await Promise.all(
    // A line without a market is the account's only market (positions.ts findSide): its hedges say which.
    positions.map(async ({ side, market, hedgeId }) => {
      const markets = new Set(
        views.hedges.filter((hedge) => hedge.side === side).map((hedge) => hedge.market.toUpperCase()),
      );
      market ??= markets.size === 1 ? [...markets][0] : undefined;
      return side === undefined || market === undefined ? undefined : sideOf(market, side, hedgeId);
    }),
  );
  // The sides the lines show, and those looked at since.
  const seen = new Set(lines.map((line) => line && rowKey(line)));
  const unlisted: PositionSide[] = [];
  for (const hedge of views.hedges) {
    const key = rowKey(hedge);
    if (seen.has(key) || recordStanding(hedge).standing === 'ended') continue;
    seen.add(key);
    // A line without a market stands for this side when the hedge's market is the only one there.
    if (positions.some((position) => position.side === hedge.side && position.market === undefined)) continue;
    const side = await sideOf(hedge.market.toUpperCase(), hedge.side);
    // Only a side the views disagree on is a position to come: one whose hedges are all still being
    // opened holds nothing yet (`hedge hedges` lists them), and one flat in every view (an early
    // close a server leaves `filled`, which the history shows ended) holds nothing at all.
    if (side.state === 'settling') unlisted.push(side);
  }
  return { lines, unlisted, recordsProblem: undefined, recordsError: undefined };
}

/** A side's references as a table cell shows them ("A, B"); undefined when none. */
export function sideReferences(side: { references: string[] } | undefined) {
  return side?.references.join(', ') || undefined;
}
