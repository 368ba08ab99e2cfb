// `hedge positions`: one line per open market and side, with the deal reference of the hedge
// behind it (joined from the hedges list). The spec names only `net_margin_usd` (what closing now
// would return); the other names follow the wire contract, and any other field the server sends
// is shown after them.
import type { CommandContext } from '../runtime/context.js';
import type { InputOf } from '../cli/command-spec.js';
import type { POSITIONS } from './positions.spec.js';
import { parseClientReference } from '../domain/input.js';
import { watchAsked } from '../flows/watch.js';
import { watchCommand } from './watch-outcome.js';
import { JOINED_REFERENCE, POSITION_RESOURCE } from '../ui/resource-fields.js';
import { positionForPeople, positionReferences, readBook } from '../flows/positions.js';

export interface PositionsOptions {
  /** --ref: only positions whose hedge carries this reference. */
  ref?: string;
}

export function parsePositionsOptions(input: InputOf<typeof POSITIONS>): PositionsOptions {
  return { ref: parseClientReference(input.options.ref) };
}

export async function run(ctx: CommandContext, input: InputOf<typeof POSITIONS>): Promise<number | void> {
  if (watchAsked(input.options)) return watchCommand(ctx, { kind: 'positions', ref: input.options.ref }, input.options);
  return runPositions(ctx, parsePositionsOptions(input));
}

export async function runPositions(ctx: CommandContext, options: PositionsOptions): Promise<void> {
  const client = await ctx.client();
  const book = await readBook({ client, log: (line) => ctx.log(line) });
  // JSON stays the server's data as sent: the reference is joined only where it is shown or asked for.
  const joined = !ctx.output.isJson || options.ref !== undefined || (ctx.globals.fields ?? []).includes('client_reference');
  let references: Array<string | undefined> = [];
  if (joined) {
    try {
      references = await positionReferences(client, book);
    } catch (error) {
      // The reference is joined from GET /hedges: without --ref, the positions are still worth showing.
      if (options.ref !== undefined) throw error;
      ctx.output.warn(`Deal references not shown: GET /hedges failed (${error instanceof Error ? error.message : String(error)}).`);
    }
  }
  // People and JSON see the side and notional under the known names however the server names
  // them (or from the hedge); TSV, CSV and --raw stay as sent.
  const known = ctx.output.isHuman || ctx.output.inOneShape;
  const rows = book.flatMap((position, index) => {
    const reference = references[index];
    if (options.ref !== undefined && !(reference ?? '').split(', ').includes(options.ref)) return [];
    const row = known ? positionForPeople(position) : position.raw;
    if (reference !== undefined) (row as Record<PropertyKey, unknown>)[JOINED_REFERENCE] = reference;
    return [row];
  });
  // The terminal table keeps what fits, most important first; TSV, CSV and JSON carry every field.
  await ctx.output.list(rows, POSITION_RESOURCE, { empty: options.ref === undefined ? 'No open positions.' : `No open position carries the reference ${options.ref}.` });
  if (ctx.output.isHuman && rows.length > 0) {
    ctx.output.note(ctx.output.chalk.dim('Net margin: what closing now would return (margin + net P&L − close fee).'));
  }
}
