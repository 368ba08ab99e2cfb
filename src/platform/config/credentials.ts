// Where the key, base URL and profile come from: flag > environment > stored profile.
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { checkBaseUrl } from '../../core/security/base-url.js';
import { AuthError, UsageError } from '../../core/errors.js';
import { registerSecret, validateApiKey, type Environment } from '../../core/security/secrets.js';
import type { ProfileStore } from './profile-store.js';
import type { StoreData } from './store-schema.js';
import { PROFILE_NAME } from './profile-name.js';
import { keyLocationOf, readProfileKey, type KeyLocation, type KeyReading } from './key-store.js';
import type { Env } from './env.js';

export type Source = 'flag' | 'environment' | 'profile' | 'demo';

export interface ResolvedCredentials {
  apiKey: string;
  baseUrl: string;
  /** The demo's simulator: the local socket its base URL is served on (api/transport.ts). */
  localSocket?: string;
  caFile?: string;
  /** The profile's answers to the spec's "not shown" request names (api/wire/unspecified.ts). */
  profileWire?: Record<string, string>;
  environment: Environment;
  profileName?: string;
  sources: { apiKey: Source; baseUrl: Source; profile?: Source; caFile?: Source };
  /** Where a profile's key was read from (the file, the OS keyring, a helper); absent when it came from the environment or the demo. */
  keyLocation?: KeyLocation;
}

/** $HEDGE_CONFIG_DIR, else $XDG_CONFIG_HOME/hedge, else ~/.config/hedge. */
export function configDir(env: Env) {
  // A relative XDG value is invalid by the base-directory spec and ignored: the key's folder never follows the working folder.
  const xdg = env.XDG_CONFIG_HOME && isAbsolute(env.XDG_CONFIG_HOME) ? env.XDG_CONFIG_HOME : undefined;
  return env.HEDGE_CONFIG_DIR || join(xdg ?? join(env.HOME || homedir(), '.config'), 'hedge');
}

/** Whether the profile store in `dir` has its file yet: a machine without profiles reads (and loads) nothing. */
export const hasStoreFile = (dir: string) => existsSync(join(dir, 'config.json'));

/** --profile, then HEDGE_PROFILE; the store's current profile is looked up only when neither is set. */
export function requestedProfile(flag: string | undefined, env: Env) {
  const pick =
    flag !== undefined
      ? { name: flag, source: 'flag' as const }
      : env.HEDGE_PROFILE
        ? { name: env.HEDGE_PROFILE, source: 'environment' as const }
        : undefined;
  if (pick && !PROFILE_NAME.test(pick.name))
    throw new UsageError(
      `${profileArgument(pick)}: "${pick.name}" is not a profile name (letters, digits, ".", "_" and "-", at most 64).`,
    );
  return pick;
}

/** What named the profile, as a refusal names it: the flag, or the variable. */
export function profileArgument(requested: { source: Source }) {
  return requested.source === 'flag' ? '--profile' : 'HEDGE_PROFILE';
}

/** The store's current profile, when it names one there is. */
export function currentProfile(data: StoreData) {
  return data.current && data.profiles[data.current] ? data.current : undefined;
}

/** The profile in use: --profile, then HEDGE_PROFILE, then the store's current one. With key and base URL both in the
 * environment and no profile asked for, the store is not even opened (`data` undefined). */
export async function profileInUse({
  profileFlag,
  env,
  store,
}: {
  profileFlag?: string;
  env: Env;
  /** Opened only when the store is read. */
  store: () => ProfileStore | Promise<ProfileStore>;
}) {
  const wanted = requestedProfile(profileFlag, env);
  const needed = wanted || !env.HEDGE_API_KEY?.trim() || !env.HEDGE_BASE_URL?.trim();
  const data = needed ? (await store()).read() : undefined;
  const name = wanted?.name ?? (data && currentProfile(data));
  return { wanted, data, name, profile: name === undefined ? undefined : data?.profiles[name] };
}

export async function resolveCredentials(
  input: Parameters<typeof profileInUse>[0] & {
    /** Bounds and cancels reading a key from a helper or the keyring. */
    reading?: Omit<KeyReading, 'env'>;
  },
): Promise<ResolvedCredentials> {
  const { env } = input;
  const { wanted, data, name: profileName, profile } = await profileInUse(input);
  // `--profile NAME` on the command line is the strongest word there is.
  const explicit = wanted?.source === 'flag';
  const envKey = explicit ? undefined : env.HEDGE_API_KEY?.trim() || undefined;
  const envBaseUrl = explicit ? undefined : env.HEDGE_BASE_URL?.trim() || undefined;
  const envCaFile = explicit ? undefined : env.HEDGE_CA_FILE || undefined;
  if (wanted && !profile) {
    const known = Object.keys(data!.profiles);
    throw new UsageError(
      `${profileArgument(wanted)}: no profile named "${wanted.name}"${known.length ? ` (profiles: ${known.join(', ')})` : ' (none saved yet)'}.`,
    );
  }

  // The profile's key is fetched (a helper run, the keyring asked) only when the environment's does not win.
  const keyLocation = envKey || !profile ? undefined : keyLocationOf(profile);
  const apiKey =
    envKey ??
    (profile && profileName ? await readProfileKey(profileName, profile, { ...input.reading, env }) : undefined);
  const rawBaseUrl = envBaseUrl ?? profile?.base_url;
  const stored = `profile "${profileName}"`;
  if (!apiKey)
    throw new AuthError(
      profileName ? `Profile "${profileName}" has no API key (logged out).` : 'No API key is configured.',
      {
        hint: 'Run `hedge login` (or set HEDGE_API_KEY and HEDGE_BASE_URL), or try it out with `hedge --demo markets`.',
      },
    );
  registerSecret(apiKey);
  const environment = validateApiKey(apiKey, envKey ? 'HEDGE_API_KEY' : stored);
  if (!rawBaseUrl)
    throw new AuthError('No base URL is configured for the API.', {
      hint: 'Run `hedge login --base-url https://…` or set HEDGE_BASE_URL (the partner desk gives the address).',
    });
  const baseUrl = checkBaseUrl(rawBaseUrl, envBaseUrl ? 'HEDGE_BASE_URL' : stored, environment);
  const caFile = envCaFile ?? (profile?.ca_file || undefined);
  return {
    apiKey,
    baseUrl,
    caFile,
    profileWire: profile?.wire,
    environment,
    profileName,
    sources: {
      apiKey: envKey ? 'environment' : 'profile',
      baseUrl: envBaseUrl ? 'environment' : 'profile',
      profile: wanted?.source ?? (profile && 'profile'),
      caFile: envCaFile ? 'environment' : profile?.ca_file ? 'profile' : undefined,
    },
    ...(keyLocation && { keyLocation }),
  };
}
