// A stored profile as data: the same fields for `profile list`, `login` and `whoami`, with the key
// always redacted. How it reads on a screen (LIVE in red) is ui/profile-view.ts.
import { UsageError } from '../errors.js';
import { environmentOfKey, redactKey, type Environment } from '../security/secrets.js';
import { redactStoreUrl } from '../security/store-url.js';
import type { StoreData, StoredProfile } from './store-schema.js';

export interface ProfileRow {
  name: string;
  current: boolean;
  /** null when logged out, or when the stored key is malformed. */
  environment: Environment | null;
  base_url: string;
  /** Redacted; null when logged out. */
  api_key: string | null;
  ca_file: string | null;
  /** The team journal store, password redacted; null: this machine's local file. */
  journal_url: string | null;
  saved_at: string | null;
}

export function profileRow(name: string, profile: StoredProfile, current: boolean): ProfileRow {
  return {
    name,
    current,
    environment: profile.api_key ? (environmentOfKey(profile.api_key) ?? null) : null,
    base_url: profile.base_url,
    api_key: profile.api_key ? redactKey(profile.api_key) : null,
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
export function requireProfile(data: StoreData, name: string, argument: string): StoredProfile {
  const profile = data.profiles[name];
  if (!profile) {
    const known = Object.keys(data.profiles).sort();
    throw new UsageError(
      `${argument}: no profile named "${name}" (${known.length ? `profiles: ${known.join(', ')}` : 'none saved yet; run `hedge login`'}).`,
    );
  }
  return profile;
}
