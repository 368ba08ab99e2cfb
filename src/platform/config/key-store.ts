import { AuthError } from '../../core/errors.js';
import { messageOf, safeText } from '../../core/security/safe-text.js';
import type { Env } from './env.js';
import type { StoredProfile } from './store-schema.js';

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

export interface KeyReading {
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
