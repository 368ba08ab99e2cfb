// hedge logout [--profile NAME] — forgets the stored key of a profile and keeps the rest of it
// (base URL, CA file), so that `hedge login --profile NAME` only asks for a new key.
import { requestedProfile } from '../config/credentials.js';
import { requireProfile } from '../config/profile-view.js';
import type { CommandContext } from '../runtime/context.js';
import type { InputOf } from '../cli/command-spec.js';
import type { LOGOUT } from './logout.spec.js';

/** `hedge logout` takes no options of its own: the profile is the global --profile (or HEDGE_PROFILE). */
export interface LogoutOptions {}

export function parseLogoutOptions(_input: InputOf<typeof LOGOUT>): LogoutOptions {
  return {};
}

export function run(ctx: CommandContext, input: InputOf<typeof LOGOUT>): Promise<number> {
  return runLogout(ctx, parseLogoutOptions(input));
}

export async function runLogout(ctx: CommandContext, _opts: LogoutOptions): Promise<number> {
  const requested = requestedProfile(ctx.globals.profile, ctx.env);
  const store = await ctx.store();
  const data = store.read();
  const name = requested?.name ?? (data.current && data.profiles[data.current] ? data.current : undefined);
  if (!name) {
    // Logging out of nothing is already the wanted state: say so, and succeed (scripts may repeat it).
    if (ctx.output.isJson) ctx.output.json({ profile: null, logged_out: false });
    ctx.output.note('No profile is current: nothing to log out of.');
    return 0;
  }
  requireProfile(data, name, requested?.source === 'environment' ? 'HEDGE_PROFILE' : '--profile');
  let hadKey = false;
  store.update((latest) => {
    const profile = latest.profiles[name];
    if (!profile) return;
    hadKey = profile.api_key !== undefined;
    delete profile.api_key;
  });
  if (ctx.output.isJson) ctx.output.json({ profile: name, logged_out: hadKey });
  ctx.output.note(
    hadKey
      ? `Removed the API key of profile "${name}" (its base URL stays; \`hedge login --profile ${name}\` asks for a new key).`
      : `Profile "${name}" has no stored key: already logged out.`,
  );
  if (ctx.env.HEDGE_API_KEY) ctx.output.warn('HEDGE_API_KEY is still set in this environment, and commands keep using it.');
  return 0;
}
