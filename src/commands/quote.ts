// `hedge quote MARKET SIDE NOTIONAL --tenor D`: an indicative quote (POST /quotes). Everything
// typed is checked before the first request; the market is then checked against the live list.
import type { CommandContext } from '../runtime/context.js';
import { parseMarket, parseNotional, parseSide, parseTenor } from '../domain/input.js';
import { requireListedMarket } from '../flows/markets.js';
import { QUOTE_INDICATIVE_NOTE, renderQuoteCard } from '../ui/quote-card.js';
import type { InputOf } from '../cli/command-spec.js';
import type { QUOTE } from '../cli/manifest.js';

export async function run(ctx: CommandContext, input: InputOf<typeof QUOTE>): Promise<void> {
  const market = parseMarket(input.args.market);
  const side = parseSide(input.args.side);
  const notional = parseNotional(input.args.notional);
  const tenor = parseTenor(input.options.tenor === undefined ? undefined : String(input.options.tenor));
  const client = await ctx.client();
  await requireListedMarket(client, market);
  const quote = await client.createQuote({ market, side, notional_usd: notional, tenor_days: tenor });
  if (ctx.output.isJson) {
    ctx.output.json(quote);
    return;
  }
  ctx.output.write(renderQuoteCard(ctx.output, quote, ctx.clock.now()));
  if (ctx.output.mode === 'plain') ctx.output.note(QUOTE_INDICATIVE_NOTE);
}
