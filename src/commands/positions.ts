// `hedge positions`: one line per open market and side. The spec names only `net_margin_usd`
// (what closing now would return); the other names follow the wire contract, and any other field
// the server sends is shown after them.
import type { CommandContext } from '../context.js';
import { POSITION_FIELDS } from '../ui/resource-fields.js';


export async function run(ctx: CommandContext): Promise<void> {
  const client = await ctx.client();
  const positions = await client.listPositions();
  ctx.output.list(positions, POSITION_FIELDS, { empty: 'No open positions.' });
  if (ctx.output.isHuman && positions.length > 0) {
    ctx.output.note(ctx.output.chalk.dim('Net margin: what closing now would return to the balance (margin + net P&L - fee to close).'));
  }
}
