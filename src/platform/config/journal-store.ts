import { existsSync } from 'node:fs';
import type { Env } from './env.js';
import { join } from 'node:path';
import { checkStoreUrl } from '../../core/security/store-url.js';
import { currentProfile, needsProfileStore, requestedProfile } from './credentials.js';
import type { ProfileStore } from './profile-store.js';

const FILE = { kind: 'file' } as const;

export async function chooseJournalStore(input: {
  demo: boolean;
  profileFlag?: string;
  env: Env;
  configDir: string;
  store: () => Promise<ProfileStore>;
}) {
  if (input.demo) return FILE;
  const wanted = requestedProfile(input.profileFlag, input.env);
  const fromEnv = input.env.HEDGE_JOURNAL_URL?.trim();
  if (wanted?.source !== 'flag' && fromEnv) return postgresChoice(fromEnv, 'HEDGE_JOURNAL_URL');
  // A profile's journal_url counts only when that profile is the one in use; a machine without profiles pays nothing.
  if (!needsProfileStore(input.profileFlag, input.env) || !existsSync(join(input.configDir, 'config.json')))
    return FILE;
  const data = (await input.store()).read();
  const name = wanted?.name ?? currentProfile(data);
  // An unknown --profile is reported by the credentials, with the names there are.
  const url = name === undefined ? undefined : data.profiles[name]?.journal_url?.trim();
  return url ? postgresChoice(url, `profile "${name}"`) : FILE;
}

/** `url` whole, password included, for the database client only; `shown` with it redacted, for messages; `source`: HEDGE_JOURNAL_URL, or `profile "desk"`. */
function postgresChoice(url: string, source: string) {
  const shown = checkStoreUrl(url, source, {
    notStore: 'is not a journal store; expected postgres://USER@HOST:PORT/DATABASE (or postgresql://…)',
    write: 'postgres://USER:PASSWORD@HOST:PORT/DATABASE',
  });
  return { kind: 'postgres' as const, url, shown, source };
}
