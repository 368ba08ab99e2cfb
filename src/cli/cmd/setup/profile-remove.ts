// hedge profile remove NAME — deletes a stored profile (key included). When it was the current
// one, no profile is current afterwards: the next command asks the operator to choose. A key kept
// in the OS keyring goes with it (the keyring module is loaded only then).
import { requireProfile } from '../../../platform/config/profiles.js';
import { keyLocationOf, removeFromKeyring, type KeyLocation } from '../../../platform/config/credentials.js';
import { type CommandContext, type In, safeText } from '../command-input.js';

/** What this command uses of its context. */
export type Options = Pick<CommandContext, 'env' | 'output' | 'store'>;

export async function run(ctx: Options, { args: { name } }: In<'PROFILE_REMOVE'>) {
  // Whether it exists only the store can say.
  const { output } = ctx;
  const store = await ctx.store();
  requireProfile(store.read(), name, 'name');
  let wasCurrent = false;
  let keyAt: KeyLocation | undefined;
  const data = await store.update((latest) => {
    keyAt = keyLocationOf(requireProfile(latest, name, 'name'));
    delete latest.profiles[name];
    if (latest.current === name) {
      wasCurrent = true;
      delete latest.current;
    }
  });
  output.document({ removed: name, current: data.current ?? null });
  output.note(`Removed profile "${name}".`);
  if (keyAt?.kind === 'keyring') {
    const removal = await removeFromKeyring(keyAt.account, ctx.env);
    if (removal !== undefined)
      output.warn(
        `Its key stays in the OS keyring (${removal}): delete service "hedge", account "${safeText(keyAt.account)}" by hand.`,
      );
  } else if (keyAt?.kind === 'command')
    output.note("Its key stays in its credential helper's store: remove it there if it should go too.");
  const others = Object.keys(data.profiles).sort();
  if (wasCurrent)
    output.note(
      others.length
        ? `No profile is current now; choose one with: hedge profile use ${others[0]}  (profiles: ${others.join(', ')})`
        : 'No profiles are left; run `hedge login` to add one.',
    );
}
