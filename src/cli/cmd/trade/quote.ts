// `hedge quote`: the live markets list is read first, and a market it does not show is refused before the quote is
// sent; a refusal is explained from the list. A size an open would be refused for (capacity, headroom) is said on
// stderr, and the quote is still printed.
import { explainMarketRefusal } from '../../../features/book/markets.js';
import { quotedSizeProblem, readListedMarkets } from '../../../features/trade/pre-trade.js';
import { QUOTE_INDICATIVE_NOTE, renderQuoteCard } from '../../../platform/results/quote-card.js';
import { type CommandContext, type In, parseMarket, parseNotional, parseSide, parseTenor } from '../command-input.js';

/** What this command uses of its context. */
export type Options = Pick<CommandContext, 'client' | 'clock' | 'globals' | 'output'>;

export async function run(ctx: Options, { args, options }: In<'QUOTE'>) {
  const { output } = ctx;
  const market = parseMarket(args.market);
  const side = parseSide(args.side);
  const notionalUsd = parseNotional(args.notional);
  const tenorDays = parseTenor(options.tenor);
  const client = await ctx.client();
  const listed = await readListedMarkets(client, market);
  const sizeProblem = quotedSizeProblem(client, { market, side, notionalUsd }, listed);
  const quote = await client
    .createQuote({ market, side, notional_usd: notionalUsd, tenor_days: tenorDays })
    .catch(async (error: unknown) => {
      await sizeProblem;
      throw await explainMarketRefusal(client, market, error);
    });
  const problem = await sizeProblem;
  if (problem) output.warn(`${problem.message} An open of this size would be refused.`);
  // --fields to a person: a card of just those fields (dotted names reach into the groups).
  const fieldsCard = ctx.globals.fields
    ? () => output.record(quote, [], { title: `Quote ${quote.market} ${quote.side}` })
    : undefined;
  output.document(quote, () => renderQuoteCard(output, quote, ctx.clock.now()), fieldsCard);
  output.plainNote(QUOTE_INDICATIVE_NOTE);
}
