// `hedge price [MARKET]`: the indicative mid rate (GET /prices). It is a reference, not what a
// hedge executes at — that comes from `hedge quote`.
import type { CommandContext } from '../runtime/context.js';
import { parseMarket } from '../domain/input.js';
import { requireListedMarket } from '../flows/markets.js';
import type { FieldSpec } from '../ui/fields.js';
import type { InputOf } from '../cli/command-spec.js';
import type { PRICE } from '../cli/manifest.js';

const PRICE_FIELDS: FieldSpec[] = [
  { key: 'market', label: 'Market' },
  { key: 'price', label: 'Mid price', kind: 'rate' },
  { key: 'timestamp', label: 'As of', kind: 'time' },
];

export async function run(ctx: CommandContext, input: InputOf<typeof PRICE>): Promise<void> {
  const market = input.args.market === undefined ? undefined : parseMarket(input.args.market);
  const client = await ctx.client();
  // The live markets list decides what exists: an unlisted market is named against it (exit 2),
  // and "every market" means every listed one, even on a server that needs `symbols`.
  if (market) {
    await requireListedMarket(client, market);
    const [price] = await client.getPrices([market]);
    ctx.output.record(price!, PRICE_FIELDS, { title: `${market} indicative mid price` });
    if (ctx.output.isHuman) ctx.output.note(ctx.output.chalk.dim('A reference rate, not an execution price: `hedge quote` shows what a hedge would cost.'));
    return;
  }
  const { markets } = await client.listMarkets();
  const prices = markets.length === 0 ? [] : await client.getPrices(markets.map((entry) => entry.market));
  ctx.output.list(prices, PRICE_FIELDS, { empty: 'No markets are available to this account.' });
}
