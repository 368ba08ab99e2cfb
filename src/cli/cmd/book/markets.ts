// `hedge markets`: the live market list — status, indicative price, capacity and carry per side.
import type { CommandContext } from '../command-input.js';
import { toAccountSide } from '../../../core/money.js';
import { marketsResource } from '../../../platform/fields/resource-fields.js';
import { formatPercent } from '../../../platform/terminal/format.js';

/** What this command uses of its context. */
export type Options = Pick<CommandContext, 'client' | 'output'>;

/**
 * Carry on the account's side (docs/output.md "Sign convention"): the server's positive rate is
 * paid by the account, so it reads "-0.0405% pay"; a rate the account earns reads "+0.0279% earn".
 */
function carryText(rate: number) {
  const forAccount = toAccountSide(rate);
  const text = formatPercent(forAccount);
  return forAccount === 0 ? text : `${text} ${forAccount < 0 ? 'pay' : 'earn'}`;
}

export async function run(ctx: Options) {
  const { markets } = await (await ctx.client()).listMarkets();
  await ctx.output.list(markets, marketsResource(carryText), {
    empty: 'No markets are available to this account.',
    columnNotes: [
      {
        columns: ['carry_buy_daily_pct', 'carry_sell_daily_pct'],
        text: "Carry per day of the notional, on the account's side: - you pay, + you earn.",
      },
    ],
  });
}
