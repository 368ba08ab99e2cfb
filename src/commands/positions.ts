// `hedge positions`: one line per open market and side. The spec names only `net_margin_usd`
// (what closing now would return); the other names follow the wire contract, and any other field
// the server sends is shown after them.
import type { CommandContext } from '../runtime/context.js';
import { POSITION_FIELDS, POSITION_TABLE_OMITS } from '../ui/resource-fields.js';

export async function run(ctx: CommandContext): Promise<void> {
  const client = await ctx.client();
  const positions = await client.listPositions();
  // The terminal table keeps to what a desk watches; TSV and JSON carry every field.
  ctx.output.list(positions, POSITION_FIELDS, {
    empty: 'No open positions.',
    omit: ctx.output.isHuman ? POSITION_TABLE_OMITS : undefined,
  });
  if (ctx.output.isHuman && positions.length > 0) {
    ctx.output.note(
      ctx.output.chalk.dim(
        'Amounts in USD (carry and fee in USDC). Net margin: what closing now would return (margin + net P&L − close fee). All fields: --json.',
      ),
    );
  }
}
