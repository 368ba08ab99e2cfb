// The checking and saving half of `hedge login`: nothing is saved unless the key check, the team
// store and keeping the key all held.
import { redactKey, registerSecret, validateApiKey } from '../../core/security/secrets.js';
import { checkBaseUrl } from '../../core/security/base-url.js';
import {
  currentProfile,
  type Source,
  type ResolvedCredentials,
  keepKey,
  keyLocationOf,
  keyringAccount,
  readProfileKey,
  removeFromKeyring,
  describeKeyLocation,
  type KeyLocation,
} from '../../platform/config/credentials.js';
import { placeKey, requireProfile } from '../../platform/config/profiles.js';
import type { ProfileStore } from '../../platform/config/profile-store.js';
import type { StoredProfile } from '../../platform/config/store-schema.js';
import { checkClient, isRefusal, type CheckPorts } from './key-check.js';
import type { askLogin } from './login.js';
import type { CommandContext } from '../../platform/runtime/context.js';
import { ApiError, AuthError, ConfigError, HedgeError, NetworkError, UsageError } from '../../core/errors.js';
import { redactStoreUrl } from '../../core/security/store-url.js';

/** The flags that say how a login is checked and kept. */
export interface LoginFlags {
  caFile?: string;
  /** undefined: keep what the profile has; null: back to the local file. */
  journalUrl?: string | null;
  /** A credential helper whose output is the key: stored instead of the key. */
  keyCommand?: string;
  /** Where to keep the key; undefined: the keyring where one answers, the file otherwise. */
  keyStore?: 'keyring' | 'file';
}

/** What login was given besides the answers: the flags, and the profile as it was before. */
interface LoginGiven extends LoginFlags {
  name: string;
  /** The profile asked for by --profile or HEDGE_PROFILE (config/credentials.ts requestedProfile). */
  requested?: { name: string; source: Source };
  existing?: StoredProfile;
}

/** The answers as credentials to check; the key is registered as a secret and its shape checked first. */
export function loginCredentials(
  ports: Pick<CommandContext, 'env'> & { io: Pick<CommandContext['io'], 'stdinIsTTY'> },
  answers: Awaited<ReturnType<typeof askLogin>>,
  given: LoginGiven,
): ResolvedCredentials {
  const { baseUrl, baseUrlSource, apiKey } = answers;
  registerSecret(apiKey);
  const environment = validateApiKey(
    apiKey,
    given.keyCommand !== undefined ? '--key-command' : ports.io.stdinIsTTY ? 'the prompt' : 'stdin',
  );
  const from =
    { flag: '--base-url', environment: 'HEDGE_BASE_URL' }[baseUrlSource as string] ?? `profile "${given.name}"`;
  return {
    apiKey,
    baseUrl: checkBaseUrl(baseUrl, from, environment),
    caFile: given.caFile ?? (ports.env.HEDGE_CA_FILE || given.existing?.ca_file || undefined),
    environment,
    profileName: given.name,
    sources: { apiKey: 'profile', baseUrl: baseUrlSource, profile: given.requested?.source ?? 'profile' },
  };
}

/** A keyring entry the key left that could not be removed: the person deletes it by hand. */
async function dropKeyringEntry(ports: Pick<CommandContext, 'env'>, account: string) {
  const error = await removeFromKeyring(account, ports.env);
  return error === undefined ? undefined : { account, error };
}

/** Checks the key (and the team store), keeps the key, saves the profile: nothing is saved unless all held. What it did is data: commands/login.ts renders it. */
export async function checkAndSaveLogin(
  ports: CheckPorts,
  store: ProfileStore,
  credentials: ResolvedCredentials,
  given: LoginGiven,
) {
  const { apiKey, baseUrl } = credentials;
  // The key checked, and the team store when one is named; a failure says that nothing was saved.
  try {
    await (await checkClient(ports, credentials)).getAccount();
  } catch (error) {
    if (isRefusal(error))
      throw new AuthError(`The server refused this key (${error.code}, ${redactKey(apiKey)}): nothing was saved.`, {
        hint: 'Check the key (copy it again from the partner desk) and that it belongs to this base URL — a test key for the sandbox, a live key for production — then run `hedge login` again.',
      });
    // Another answer, or none: its own error, saying that nothing was saved and what to check; one hedge cannot read, as it is.
    if (error instanceof ApiError || error instanceof NetworkError) {
      error.message += ' Nothing was saved.';
      Object.assign(error, {
        hint:
          error instanceof ApiError
            ? 'Check the base URL: it is the API address the partner desk gives, ending in its version segment (…/v2).'
            : (error.hint ?? 'Check the base URL and the network, then run `hedge login` again.'),
      });
    }
    throw error;
  }
  // The team store is checked like the key: reached, and its schema made, before anything is saved.
  const { journalUrl } = given;
  if (journalUrl) {
    const { journalDir, openTeamJournal } = await import('../../platform/journal/index.js');
    const team = await openTeamJournal({
      url: journalUrl,
      shown: redactStoreUrl(journalUrl),
      source: '--journal-url',
      fallbackDir: journalDir(ports.env),
      now: ports.clock.now,
      log: (line) => ports.log(line),
    });
    try {
      await team.migrateSchema();
    } catch (failure) {
      if (failure instanceof HedgeError) failure.message += ' Nothing was saved.';
      throw failure;
    } finally {
      await team.close();
    }
  }
  // Where the key goes: nowhere (a helper gives it), the keyring (written now), or the file.
  let keyAt: KeyLocation = { kind: 'command', command: given.keyCommand! };
  let fallbackReason: string | undefined;
  if (given.keyCommand === undefined) {
    const keeping = await keepKey(given.keyStore ?? 'auto', keyringAccount(given.name, store.dir), apiKey, ports.env);
    if (!keeping.ok)
      throw new ConfigError(`--key-store keyring: ${keeping.reason}; nothing was saved.`, {
        hint: 'Leave out --key-store to keep the key in the 0600 config file instead, or name a credential helper with --key-command.',
      });
    ({ at: keyAt, fallbackReason } = keeping);
  }
  const before = given.existing && keyLocationOf(given.existing);
  // The profile is written under the store's lock; it becomes the current one when none is.
  let previousCurrent: string | undefined;
  const saved = await store.update((data) => {
    const profile = {
      ...data.profiles[given.name],
      base_url: baseUrl,
      saved_at: new Date(ports.clock.now()).toISOString(),
    };
    placeKey(profile, apiKey, keyAt);
    if (given.caFile) profile.ca_file = given.caFile;
    if (given.journalUrl === null) delete profile.journal_url;
    else if (given.journalUrl !== undefined) profile.journal_url = given.journalUrl;
    data.profiles[given.name] = profile;
    if (!currentProfile(data)) data.current = given.name;
    else if (data.current !== given.name) previousCurrent = data.current;
  });
  const profile = saved.profiles[given.name];
  // The key now lives in one place: an older keyring entry of this profile goes.
  const oldKeyringLeft =
    before?.kind === 'keyring' && !(keyAt.kind === 'keyring' && keyAt.account === before.account)
      ? await dropKeyringEntry(ports, before.account)
      : undefined;
  return {
    environment: credentials.environment,
    baseUrl,
    /** The key as it may be shown (redactKey): the key itself is never part of what login says. */
    shownKey: redactKey(apiKey),
    keyAt,
    /** Why the key is in the file although no --key-store was given: no keyring answered. */
    keyringFallback: fallbackReason,
    caFile: profile.ca_file ?? null,
    /** The profile's team store as it may be shown (password hidden); null: the local file. */
    journalShown: profile.journal_url ? redactStoreUrl(profile.journal_url) : null,
    /** The profile is the current one after saving. */
    current: saved.current === given.name,
    /** Another profile was current and stays so. */
    previousCurrent,
    /** The profile's older keyring entry, when it could not be removed. */
    oldKeyringLeft,
  };
}

/** `hedge login --move-key`: the stored key moves between file and keyring without asking for it or sending anything (it was checked when saved); it answers whether the key was already there or moved. */
export async function moveProfileKey(
  ports: Pick<CommandContext, 'signal' | 'env'>,
  store: ProfileStore,
  name: string,
  target: 'keyring' | 'file',
) {
  const profile = requireProfile(store.read(), name, '--profile');
  const from = keyLocationOf(profile);
  if (!from)
    throw new UsageError(
      `--move-key: profile "${name}" has no stored key (logged out); log in first with \`hedge login --profile ${name}\`.`,
    );
  if (from.kind === 'command')
    throw new UsageError(
      `--move-key: the key of profile "${name}" comes from its credential helper, and hedge keeps no copy to move; run \`hedge login --profile ${name}\` to store one instead.`,
    );
  if (from.kind === target) return { moved: false as const, at: from };
  const apiKey = await readProfileKey(name, profile, { env: ports.env, signal: ports.signal });
  if (!apiKey) throw new UsageError(`--move-key: profile "${name}" has no stored key (logged out).`);
  registerSecret(apiKey);
  let to: KeyLocation = { kind: 'file' };
  if (target === 'keyring') {
    const keeping = await keepKey('keyring', keyringAccount(name, store.dir), apiKey, ports.env);
    if (!keeping.ok)
      throw new ConfigError(
        `--move-key: ${keeping.reason}; the key stays where it was (the ${describeKeyLocation(from, store.file)}).`,
        {
          hint: 'Start or unlock the OS keyring (on Linux a Secret Service such as gnome-keyring or KeePassXC), then try again; or name a credential helper with `hedge login --key-command`.',
        },
      );
    to = keeping.at;
  }
  await store.update((data) => {
    const latest = data.profiles[name];
    if (latest) placeKey(latest, apiKey, to);
  });
  const oldKeyringLeft = from.kind === 'keyring' ? await dropKeyringEntry(ports, from.account) : undefined;
  return { moved: true as const, from, to, oldKeyringLeft };
}
