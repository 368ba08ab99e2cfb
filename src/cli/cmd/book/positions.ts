// `hedge positions`: one line per open market and side, with the side's hedges from their records
// and the deal references they carry (one book from every view, features/book/position-sides.ts).
// The spec names only `net_margin_usd` (what closing now would return); the other names follow the
// wire contract, and any other field the server sends is shown after them.
import { type CommandContext, type In, parseClientReference } from '../command-input.js';
import { watchAsked } from '../../../features/book/watch.js';
import { watchCommand, type Watching } from './watch-outcome.js';
import { JOINED_REFERENCE, POSITION_RESOURCE } from '../../../platform/fields/resource-fields.js';
import { fieldTable } from '../../../platform/fields/fields.js';
import { carriesReference, ownReference, positionForPeople, readBook } from '../../../features/book/positions.js';
import { readPositionSides, sideReferences } from '../../../features/book/position-sides.js';
import { settlingSentence, sideLines } from '../../../features/book/positions-view.js';

/** What this command uses of its context. */
export type Options = Watching;

export async function run(ctx: Options, { options }: In<'POSITIONS'>) {
  const { output } = ctx;
  if (watchAsked(options)) return watchCommand(ctx, { kind: 'positions', ref: options.ref }, options);
  const ref = parseClientReference(options.ref);
  const { book, sides, nowMs } = await readSides(
    ctx,
    ref,
    (problem) => `Hedges not shown: ${problem}; the positions are the positions list's alone.`,
  );
  const carries = (reference: string | undefined) => ref === undefined || carriesReference(reference, ref);
  const listed = book.flatMap((position, index) => {
    const side = sides.lines[index];
    const own = ownReference(position);
    const references = own !== undefined ? [own] : (side?.references ?? []);
    const reference = references.join(', ') || undefined;
    if (!carries(reference)) return [];
    // The side and notional under the known names (or from the hedge) where the output shows them so.
    const row = output.named(position.raw, () => positionForPeople(position));
    if (reference !== undefined) (row as Record<PropertyKey, unknown>)[JOINED_REFERENCE] = reference;
    return [{ row, side, references }];
  });
  const unlisted = sides.unlisted.filter((side) => carries(sideReferences(side)));

  // The positions list is the server's: a side it does not show yet is a row of its own only in a
  // person's table, where the line under it says why; a script is told of every settling side on stderr.
  // A side only the records show, as a row of the terminal's table: the records' notional, its soonest maturity.
  const shown = [
    ...listed,
    ...unlisted.map((side) => {
      const filled = side.hedges.filter((hedge) => side.filled.some((record) => record.id === hedge.id));
      const soonest = filled.find((hedge) => typeof hedge.maturity_at === 'string');
      const reference = sideReferences(side);
      return {
        row: {
          market: side.market,
          side: side.side,
          ...(filled.length > 0 && { notional_usd: side.recordsUsd }),
          ...(soonest && { maturity_at: soonest.maturity_at }),
          ...(side.hedges.length === 1 && { hedge_id: side.hedges[0].id }),
          ...(reference !== undefined && { [JOINED_REFERENCE]: reference }),
        },
        side,
      };
    }),
  ];
  // A side's market is its line's, or the one its hedges give a line without one.
  for (const { side } of shown) if (side?.state === 'settling') output.scriptWarn(settlingSentence(side));
  const empty = unlisted.length
    ? 'The positions list shows no line yet.'
    : ref === undefined
      ? 'No open positions.'
      : `No open position carries the reference ${ref}.`;
  await output.list(
    listed.map(({ row }) => row),
    POSITION_RESOURCE,
    {
      empty,
      // JSON: the server's position objects as they are, with the side's references at the top and its book
      // beside them (--raw: as sent, nothing added). A `client_reference` the server sent stays as sent.
      // `side_book`: the side's state as every view shows it, and its live hedges as the server sent them (docs/output.md).
      ...(output.inOneShape && {
        json: listed.map(({ row, side, references }) => ({
          client_reference: references.length === 1 ? references[0] : null,
          client_references: references,
          ...row,
          // A line has a side only when the records were read: null otherwise.
          side_book: side
            ? { state: side.state, why: side.why ?? null, records_notional_usd: side.recordsUsd, hedges: side.hedges }
            : null,
        })),
        jsonFields: fieldTable(`
          client_references  Refs       json
          side_book          Side book  json`),
      }),
      people: (table) => {
        const { sections, parts } = sideLines(
          shown.map(({ side }) => side),
          { width: table.columns, chalk: table.chalk, nowMs },
        );
        return table.list(
          shown.map(({ row }) => row),
          POSITION_RESOURCE,
          {
            empty,
            sections,
            nowMs,
            columnNotes: [
              {
                columns: ['net_margin_usd'],
                text: 'Net margin: what closing now would return (margin + net P&L − close fee).',
              },
              // Said under the table only about what it shows: the net margin when its column is
              // there, the parts of the lines under each side that the width kept.
              ...(shown.some(({ side }) => side)
                ? [{ text: `Under each side: its hedges as their records show them (${parts.join(', ')}).` }]
                : []),
            ],
          },
        );
      },
    },
  );
}

/**
 * The positions list, and each side as every view shows it: the line, with the side's hedges from
 * their records. --ref filters on the records' references: without them it cannot say which
 * positions carry it; otherwise a side is shown from its line alone, as `without` says.
 */
export async function readSides(
  ctx: Pick<CommandContext, 'client' | 'log' | 'output'>,
  ref: string | undefined,
  without: (problem: string) => string,
) {
  const client = await ctx.client();
  const book = await readBook(client, ctx.log);
  const sides = await readPositionSides(client, book, ctx.log);
  if (sides.recordsProblem !== undefined) {
    if (ref !== undefined && sides.recordsError !== undefined) throw sides.recordsError;
    ctx.output.warn(without(sides.recordsProblem));
  }
  // Time left is shown on the clock the sides' maturities were judged on: a side is never due in one and not the other.
  return { book, sides, nowMs: client.transport.serverNow().bestMs };
}
