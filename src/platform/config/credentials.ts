// Where the key, base URL and profile come from: flag > environment > stored profile.
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { checkBaseUrl } from '../../core/security/base-url.js';
import { AuthError, UsageError } from '../../core/errors.js';
import { messageOf, safeText } from '../../core/security/safe-text.js';
import { registerSecret, validateApiKey, type Environment } from '../../core/security/secrets.js';
import type { ProfileStore } from './profile-store.js';
import type { StoreData, StoredProfile } from './store-schema.js';
import { PROFILE_NAME } from './profile-name.js';
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

// Where a profile's key lives: the config file, the OS keyring, or a credential helper.
export type KeyLocation =
  { kind: 'command'; command: string } | { kind: 'keyring'; account: string } | { kind: 'file' };

/** Where the profile's key is; undefined when it has none (logged out). A helper wins over the others: it is the one a person names on purpose. */
export function keyLocationOf(profile: StoredProfile): KeyLocation | undefined {
  if (profile.key_command) return { kind: 'command', command: profile.key_command };
  if (profile.key_keyring) return { kind: 'keyring', account: profile.key_keyring };
  if (profile.api_key) return { kind: 'file' };
}

/** The keyring account of a profile: its name and config folder, so that two config folders on one machine never share an entry. */
export function keyringAccount(profileName: string, configDir: string) {
  return `${profileName}@${configDir}`;
}

interface KeyReading {
  env: Env;
  signal?: AbortSignal;
  /** Absolute clock time when --timeout runs out, and the clock it is on. */
  deadline?: number;
  now?: () => number;
}

/** The key of a profile, from wherever it lives; AuthError (exit 4, nothing sent) when it cannot be had. */
export async function readProfileKey(profileName: string, profile: StoredProfile, reading: KeyReading) {
  const location = keyLocationOf(profile);
  if (!location) return;
  if (location.kind === 'file') return profile.api_key;
  if (location.kind === 'command') {
    const { runKeyCommand } = await import('./key-command.js');
    return runKeyCommand(location.command, {
      ...reading,
      timeoutMs: reading.deadline === undefined || !reading.now ? undefined : reading.deadline - reading.now(),
      owner: `profile "${profileName}"`,
    });
  }
  const opening = await osKeyring(reading.env);
  const renew = `save the key again with \`hedge login --profile ${profileName}\` (it goes to the file where no keyring answers), or set HEDGE_API_KEY`;
  const hint = `${renew[0].toUpperCase()}${renew.slice(1)}.`;
  if (!opening.ok)
    throw new AuthError(
      `The key of profile "${profileName}" is in the OS keyring, but ${opening.reason}; nothing was sent.`,
      { hint },
    );
  const key = await opening.keyring.get(location.account).catch((error) => {
    throw new AuthError(
      `The key of profile "${profileName}" is in ${opening.keyring.name}, which did not answer (${keyringReason(error)}); nothing was sent.`,
      { hint: `Unlock the keyring (or start its service) and try again; or ${renew}.` },
    );
  });
  if (key === null)
    throw new AuthError(
      `The key of profile "${profileName}" is no longer in ${opening.keyring.name} (someone removed the entry); nothing was sent.`,
      { hint },
    );
  return key;
}

export function describeKeyLocation(location: KeyLocation, storeFile: string) {
  return safeText(
    location.kind === 'command'
      ? `credential helper \`${location.command}\``
      : location.kind === 'keyring'
        ? `OS keyring (service "hedge", account "${location.account}")`
        : `config file ${storeFile} (0600, plain text)`,
  );
}

/** `choice` is `--key-store`: where login keeps a key; `auto` is the keyring where one answers, else the file (`fallbackReason`: why). */
export async function keepKey(choice: 'auto' | 'keyring' | 'file', account: string, apiKey: string, env: Env) {
  const file: KeyLocation = { kind: 'file' };
  if (choice === 'file') return { ok: true as const, at: file };
  const opening = await osKeyring(env);
  let reason: string;
  if (opening.ok) {
    try {
      await opening.keyring.set(account, apiKey);
      // Read back: a keyring that accepts and drops the entry (a locked collection, a stub) is no keyring.
      if ((await opening.keyring.get(account)) === apiKey)
        return { ok: true as const, at: { kind: 'keyring', account } as KeyLocation };
      reason = `${opening.keyring.name} did not keep the entry`;
    } catch (error) {
      reason = `${opening.keyring.name} refused it, ${keyringReason(error)}`;
    }
  } else {
    reason = opening.reason;
  }
  return choice === 'keyring'
    ? { ok: false as const, reason }
    : { ok: true as const, at: file, fallbackReason: reason };
}

/** Deletes the profile's entry from the keyring (logout, or a key that moved elsewhere): why it could not, else nothing. */
export async function removeFromKeyring(account: string, env: Env) {
  const opening = await osKeyring(env);
  if (!opening.ok) return opening.reason;
  try {
    await opening.keyring.delete(account);
  } catch (error) {
    return `${opening.keyring.name} did not answer (${keyringReason(error)})`;
  }
}

/** The OS keyring, its module loaded only when a key lives there. */
async function osKeyring(env: Env) {
  return (await import('./os-keyring.js')).openOsKeyring(env);
}

/** What a keyring's failure says, in a line. */
function keyringReason(error: unknown) {
  return messageOf(error).split('\n')[0].slice(0, 300);
}
