// The open book as the flows need it: each position's side and notional, whatever names the
// server gives them. A field the position does not carry under any known name is taken from the
// hedge it belongs to (GET /hedges/{id}); the raw records stay untouched for display and --json.
import type { HedgeClient } from '../../platform/api/client.js';
import { positionInOneShape, readPosition, type PositionFacts } from '../../platform/api/wire/fields.js';
import type { Position } from '../../platform/api/schemas.js';
import type { Side } from '../../core/vocabulary.js';
import { sameReference } from '../../core/input.js';
import { stringOf } from '../../core/objects.js';

export interface BookPosition extends PositionFacts {
  raw: Position;
  notionalFromHedge?: true;
}

const noted = new Set<string>();

/** GET /positions, each line completed from its hedge where the line itself is silent; each note logged once. */
export async function readBook(client: HedgeClient, log?: (line: string) => void) {
  const noteOnce = (line: string) => {
    if (!noted.has(line)) log?.(line);
    noted.add(line);
  };
  const raws = await client.listPositions();
  return Promise.all(
    raws.map(async (raw) => {
      const facts = readPosition(raw);
      for (const name of facts.synonymsUsed) noteOnce(`positions: read "${name}" (a name the spec does not show)`);
      let notionalFromHedge = false;
      if (
        (facts.side === undefined || facts.notionalUsd === undefined || facts.market === undefined) &&
        facts.hedgeId
      ) {
        const hedge = await client.getHedge(facts.hedgeId).catch(() => undefined);
        if (hedge) {
          noteOnce('positions: side, market or notional missing on a position; taken from its hedge');
          facts.side ??= hedge.side;
          facts.market ??= hedge.market.toUpperCase();
          // Several hedges may make up one side: the hedge's notional is the side's only when nothing better is known.
          notionalFromHedge = facts.notionalUsd === undefined;
          facts.notionalUsd ??= hedge.notional_usd;
          facts.maturityAt ??= hedge.maturity_at ?? undefined;
        }
      }
      return { ...facts, raw, ...(notionalFromHedge && { notionalFromHedge: true as const }) };
    }),
  );
}

/** Whether a positions line is of a market and side; a line without a market is taken as the account's only market. */
export const onSide = (
  position: Pick<PositionFacts, 'market' | 'side'>,
  { market, side }: { market: string; side: string },
) => position.side === side && (position.market === undefined || position.market === market.toUpperCase());

/** The position on a market and side (onSide). */
export function findSide(book: BookPosition[], market: string, side: Side) {
  const lines = book.filter((position) => onSide(position, { market, side }));
  if (lines.length <= 1) return lines[0];
  // Positions are "aggregated per side"; should a server still list several lines, they add up.
  const notional = lines.every((line) => line.notionalUsd !== undefined)
    ? lines.reduce((sum, line) => sum + line.notionalUsd!, 0)
    : undefined;
  return { ...lines[0], notionalUsd: notional };
}

/** A position under the known names whatever the server calls them; --raw keeps the raw records. */
export function positionForPeople(position: BookPosition) {
  return positionInOneShape(position.raw, position);
}

/** The deal reference a position itself sends, should a server send one: it wins over its hedges'. */
export const ownReference = ({ raw }: BookPosition) => stringOf(raw.client_reference) || undefined;

/** Whether a side's references, joined "A, B", carry `reference` (sameReference: case and space aside). */
export function carriesReference(joined: string | undefined, reference: string) {
  return (joined ?? '').split(', ').some((one) => sameReference(one, reference));
}
