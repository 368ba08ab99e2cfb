// A stored profile as data: the same fields for `profile list`, `login` and `whoami`, with the key always redacted.
import { UsageError } from '../../core/errors.js';
import { environmentOfKey, redactKey, type Environment } from '../../core/security/secrets.js';
import { redactStoreUrl } from '../../core/security/store-url.js';
import type { StoreData, StoredProfile } from './store-schema.js';
import { keyLocationOf, type KeyLocation } from './key-store.js';

export interface ProfileRow {
  name: string;
  current: boolean;
  /** null when logged out, or when the stored key is malformed. */
  environment: Environment | null;
  base_url: string;
  /** Redacted; null when logged out. */
  api_key: string | null;
  /** Where the key lives (config/key-store.ts): `file`, `keyring`, `command`; null when logged out. */
  key_store: KeyLocation['kind'] | null;
  ca_file: string | null;
  /** The team journal store, password redacted; null: this machine's local file. */
  journal_url: string | null;
  saved_at: string | null;
}

export function profileRow(name: string, profile: StoredProfile, current: boolean): ProfileRow {
  // A key in the keyring or behind a helper is described by what login noted of it.
  const location = keyLocationOf(profile);
  const environment =
    location?.kind === 'file'
      ? environmentOfKey(profile.api_key!)
      : location
        ? (profile.key_environment as Environment | undefined)
        : undefined;
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

export function profileRows(data: StoreData): ProfileRow[] {
  return Object.keys(data.profiles)
    .sort((a, b) => a.localeCompare(b))
    .map((name) => profileRow(name, data.profiles[name]!, data.current === name));
}

/** An unknown profile name is a usage error that lists the names there are. */
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
