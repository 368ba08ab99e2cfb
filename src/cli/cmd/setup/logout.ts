// hedge logout: forgets a profile's key only, so that `hedge login` only asks for a new one. A credential helper's
// own store is the person's to manage: the profile only forgets the command.
import {
  currentProfile,
  profileArgument,
  requestedProfile,
  describeKeyLocation,
  keyLocationOf,
  removeFromKeyring,
  type KeyLocation,
} from '../../../platform/config/credentials.js';
import { placeKey, requireProfile } from '../../../platform/config/profiles.js';
import { shellWord } from '../../../core/program.js';
import { type CommandContext, ConfigError, UsageError, safeText } from '../command-input.js';

/** What this command uses of its context. */
export type Options = Pick<CommandContext, 'env' | 'globals' | 'output' | 'store'>;

export async function run(ctx: Options) {
  // The demo is the profile in use: the current one's key is not this command's to remove.
  if (ctx.globals.demo)
    throw new UsageError('--demo: the demo has no login to end; leave out --demo to log out of a profile.');
  const { output } = ctx;
  const requested = requestedProfile(ctx.globals.profile, ctx.env);
  const store = await ctx.store();
  const data = store.read();
  const name = requested?.name ?? currentProfile(data);
  if (!name) {
    // Logging out of nothing is already the wanted state: say so, and succeed (scripts may repeat it).
    output.document({ profile: null, logged_out: false });
    output.note('No profile is current: nothing to log out of.');
    return;
  }
  requireProfile(data, name, requested ? profileArgument(requested) : '--profile');
  let had: KeyLocation | undefined;
  await store.update((latest) => {
    const profile = latest.profiles[name];
    if (!profile) return;
    had = keyLocationOf(profile);
    // Every trace of the key goes (the file's copy, the keyring's account, the helper's command).
    placeKey(profile, '', { kind: 'file' });
    delete profile.api_key;
  });
  const where = had ? describeKeyLocation(had, store.file) : undefined;
  if (had?.kind === 'keyring') {
    const removal = await removeFromKeyring(had.account, ctx.env);
    if (removal !== undefined)
      throw new ConfigError(
        `Profile "${name}" forgot its key, but the OS keyring entry could not be deleted (${safeText(removal)}): the key is still there.`,
        {
          hint: `Delete it by hand: service "hedge", account "${safeText(had.account)}" (on Linux: secret-tool clear service hedge username '…').`,
        },
      );
  }
  output.document({ profile: name, logged_out: had !== undefined, key_store: had?.kind ?? null });
  // The quote names its profile as the environment flag: asRun adds no second --profile.
  const renew = `its base URL stays; \`hedge --profile ${shellWord(name)} login\` asks for a new key`;
  if (!had) output.note(`Profile "${name}" has no stored key: already logged out.`);
  else if (had.kind === 'command')
    output.note(
      `Profile "${name}" no longer runs its ${where} (${renew}). The key itself stays in that helper's store: remove it there if it should go too.`,
    );
  else output.note(`Removed the API key of profile "${name}" from the ${where} (${renew}).`);
  if (ctx.env.HEDGE_API_KEY) output.warn('HEDGE_API_KEY is still set in this environment, and commands keep using it.');
}
