// `hedge account`: the balance and how much of the exposure cap is used. The spec names only
// `balance_usdc` and `available_exposure_usd`; the other names follow the wire contract, and any
// other field the server sends is shown after them.
import type { CommandContext, In } from '../command-input.js';
import { watchAsked } from '../../../features/book/watch.js';
import { watchCommand, type Watching } from './watch-outcome.js';
import { ACCOUNT_FIELDS } from '../../../platform/fields/resource-fields.js';
import { accountForPeople } from '../../../platform/api/wire/fields.js';

/** What this command uses of its context. */
export type Options = Watching & Pick<CommandContext, 'credentials'>;

export async function run(ctx: Options, input: In<'ACCOUNT'>) {
  if (watchAsked(input.options)) return watchCommand(ctx, { kind: 'account' }, input.options);
  const account = await (await ctx.client()).getAccount();
  const title =
    (await ctx.credentials()).environment === 'live'
      ? `Account ${ctx.output.chalk.red.bold('LIVE')}`
      : 'Account (test funds)';
  ctx.output.record(ctx.output.named(account, accountForPeople), ACCOUNT_FIELDS, { title });
}
