// `hedge positions`: one line per open market and side. The spec names only `net_margin_usd`
// (what closing now would return); the other names follow the wire contract, and any other field
// the server sends is shown after them.
import type { CommandContext } from '../runtime/context.js';
import type { InputOf } from '../cli/command-spec.js';
import type { POSITIONS } from './positions.spec.js';
import { runWatch, watchAsked } from '../flows/watch.js';
import { POSITION_FIELDS } from '../ui/resource-fields.js';
import { positionForPeople, readBook } from '../flows/positions.js';

export async function run(ctx: CommandContext, input: InputOf<typeof POSITIONS>): Promise<number | void> {
  if (watchAsked(input.options)) return runWatch(ctx, { kind: 'positions' }, input.options);
  const client = await ctx.client();
  // People see the side and notional under the known names however the server names them (or
  // from the hedge); TSV and JSON stay as sent.
  const positions = ctx.output.isHuman
    ? (await readBook({ client, log: (line) => ctx.log(line) })).map(positionForPeople)
    : await client.listPositions();
  // The terminal table keeps what fits, most important first; TSV, CSV and JSON carry every field.
  ctx.output.list(positions, POSITION_FIELDS, { empty: 'No open positions.' });
  if (ctx.output.isHuman && positions.length > 0) {
    ctx.output.note(ctx.output.chalk.dim('Net margin: what closing now would return (margin + net P&L − close fee).'));
  }
}
