// A stored profile as data: the same fields for `profile list`, `login` and `whoami`, with the key always redacted;
// and its environment as a screen shows it.
import type { ChalkInstance } from 'chalk';
import { UsageError } from '../../core/errors.js';
import { environmentOfKey, redactKey, type Environment } from '../../core/security/secrets.js';
import { redactStoreUrl } from '../../core/security/store-url.js';
import type { StoreData, StoredProfile } from './store-schema.js';
import { keyLocationOf } from './key-store.js';

/** A profile's row: the key redacted, null for what it lacks (logged out: no environment, key or key store). */
export function profileRow(name: string, profile: StoredProfile, current: boolean) {
  // A key in the keyring or behind a helper is described by what login noted of it.
  const location = keyLocationOf(profile);
  const environment =
    location?.kind === 'file'
      ? environmentOfKey(profile.api_key!)
      : location && (profile.key_environment as Environment | undefined);
  return {
    name,
    current,
    environment: environment === 'live' || environment === 'test' ? environment : null,
    base_url: profile.base_url,
    api_key: location?.kind === 'file' ? redactKey(profile.api_key!) : location ? (profile.key_shown ?? '…') : null,
    key_store: location?.kind ?? null,
    ca_file: profile.ca_file ?? null,
    journal_url: profile.journal_url ? redactStoreUrl(profile.journal_url) : null,
    saved_at: profile.saved_at ?? null,
  };
}

export function profileRows(data: StoreData) {
  return Object.keys(data.profiles)
    .sort((a, b) => a.localeCompare(b))
    .map((name) => profileRow(name, data.profiles[name], data.current === name));
}

export function requireProfile(data: StoreData, name: string, argument: string) {
  const profile = data.profiles[name];
  if (!profile) {
    const known = Object.keys(data.profiles).sort();
    throw new UsageError(
      `${argument}: no profile named "${name}" (${known.length ? `profiles: ${known.join(', ')}` : 'none saved yet; run `hedge login`'}).`,
    );
  }
  return profile;
}

/** LIVE in bold red (real money), test in plain words, a dim dash when there is no key. */
export function environmentLabel(environment: Environment | null | undefined, chalk: ChalkInstance) {
  return environment === 'live' ? chalk.bold.red('LIVE') : environment === 'test' ? 'test' : chalk.dim('—');
}
