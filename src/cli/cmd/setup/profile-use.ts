// hedge profile use NAME — makes a stored profile the current one.
import { environmentLabel, profileRow, requireProfile } from '../../../platform/config/profiles.js';
import type { CommandContext, In } from '../command-input.js';

/** What this command uses of its context. */
export type Options = Pick<CommandContext, 'env' | 'output' | 'store'>;

export async function run(ctx: Options, { args: { name } }: In<'PROFILE_USE'>) {
  // Whether it exists only the store can say.
  const { output } = ctx;
  const store = await ctx.store();
  requireProfile(store.read(), name, 'name');
  const data = await store.update((latest) => {
    requireProfile(latest, name, 'name');
    latest.current = name;
  });
  const row = profileRow(name, data.profiles[name], true);
  output.document(row);
  const c = output.chalk;
  output.note(
    `Now using profile "${name}": ${environmentLabel(row.environment, c)}, ${row.base_url}${row.api_key ? `, key ${row.api_key}` : c.dim(' (logged out)')}.`,
  );
  if (row.environment === 'live') output.note(c.red('LIVE: commands now trade in production, with real money.'));
  if (ctx.env.HEDGE_PROFILE && ctx.env.HEDGE_PROFILE !== name)
    output.warn(
      `HEDGE_PROFILE=${ctx.env.HEDGE_PROFILE} is set in this environment and takes precedence over the current profile.`,
    );
}
