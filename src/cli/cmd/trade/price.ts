// `hedge price [MARKET]`: the indicative mid rate (GET /prices). It is a reference, not what a
// hedge executes at — that comes from `hedge quote`.
import { watchAsked } from '../../../features/book/watch.js';
import { watchCommand, type Watching } from '../book/watch-outcome.js';
import { requireListedMarket } from '../../../features/book/markets.js';
import { type In, parseMarket } from '../command-input.js';

import { PRICE_RESOURCE } from '../../../platform/fields/resource-fields.js';
import { pricesInOneShape } from '../../../platform/api/wire/fields.js';
import { isObject } from '../../../core/objects.js';

/** What this command uses of its context. */
export type Options = Watching;

export async function run(ctx: Options, { args, options }: In<'PRICE'>) {
  const { output } = ctx;
  if (watchAsked(options)) return watchCommand(ctx, { kind: 'price', market: args.market }, options);
  // One market; absent: every listed market.
  const market = args.market === undefined ? undefined : parseMarket(args.market);
  const client = await ctx.client();
  // The live markets list decides what exists: an unlisted market is named against it (exit 2),
  // and "every market" means every listed one, even on a server that needs `symbols`.
  const empty = 'No markets are available to this account.';
  if (market) await requireListedMarket(client, market);
  const names = market ? [market] : (await client.listMarkets()).markets.map((entry) => entry.market);
  if (!names.length) return output.list([], PRICE_RESOURCE, { empty });
  const { data, quotes, problem } = await client.readPrices(names);
  // --raw (JSON only) is the server's data as it came, whatever its shape (a list, or keyed by market).
  if (output.raw) return output.json(data);
  if (problem) {
    // A prices shape hedge cannot read is shown as it came (an unknown shape is shown, not refused), then reported:
    // no price could be read from it (exit 14).
    output.record(isObject(data) ? data : { data }, [], { title: 'GET /prices, as the server sent it' });
    throw problem;
  }
  const json = pricesInOneShape(quotes);
  if (!market) return output.list(quotes, PRICE_RESOURCE, { empty, json });
  output.record(quotes[0], PRICE_RESOURCE.fields, { title: `${market} indicative mid price`, json });
  output.tableNote(
    output.chalk.dim('A reference rate, not an execution price: `hedge quote` shows what a hedge would cost.'),
  );
}
