// hedge profile list — every stored profile with its environment, base URL and redacted key; the
// current one marked. --json gives the same rows as an array (never a whole key).
import { environmentLabel, profileRows } from '../../../platform/config/profiles.js';
import type { CommandContext } from '../command-input.js';
import { profilesResource } from '../../../platform/fields/resource-fields.js';

/** What this command uses of its context. */
export type Options = Pick<CommandContext, 'output' | 'store'>;

export async function run(ctx: Options) {
  const store = await ctx.store();
  const rows = profileRows(store.read());
  const c = ctx.output.chalk;
  await ctx.output.list(
    rows,
    profilesResource(c, (environment) => environmentLabel(environment, c)),
    {
      empty: 'No profiles saved yet. Run `hedge login` to add one (or try `hedge --demo markets`).',
    },
  );
  if (rows.some((row) => row.environment === 'live'))
    ctx.output.tableNote(c.red('LIVE profiles trade in production, with real money.'));
}
