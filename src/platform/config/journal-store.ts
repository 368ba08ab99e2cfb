import { existsSync } from 'node:fs';
import type { Env } from './env.js';
import { join } from 'node:path';
import { checkStoreUrl } from '../../core/security/store-url.js';
import { currentProfile, needsProfileStore, requestedProfile } from './credentials.js';
import type { ProfileStore } from './profile-store.js';

type JournalStoreChoice =
  | { kind: 'file' }
  | {
      kind: 'postgres';
      /** The full URL, password included: handed to the database client, never printed. */
      url: string;
      /** For messages: the URL with its password redacted. */
      shown: string;
      /** HEDGE_JOURNAL_URL, or `profile "desk"`. */
      source: string;
    };

export async function chooseJournalStore(input: {
  demo: boolean;
  profileFlag?: string;
  env: Env;
  configDir: string;
  store: () => Promise<ProfileStore>;
}): Promise<JournalStoreChoice> {
  if (input.demo) return { kind: 'file' };
  const wanted = requestedProfile(input.profileFlag, input.env);
  const fromEnv = input.env.HEDGE_JOURNAL_URL?.trim();
  if (wanted?.source !== 'flag' && fromEnv) return postgresChoice(fromEnv, 'HEDGE_JOURNAL_URL');
  // A profile's journal_url counts only when that profile is the one in use.
  if (!needsProfileStore(input.profileFlag, input.env)) return { kind: 'file' };
  // A machine without profiles pays nothing.
  if (!existsSync(join(input.configDir, 'config.json'))) return { kind: 'file' };
  const data = (await input.store()).read();
  const name = wanted?.name ?? currentProfile(data);
  // An unknown --profile is reported by the credentials, with the names there are.
  const url = name === undefined ? undefined : data.profiles[name]?.journal_url?.trim();
  return url ? postgresChoice(url, `profile "${name}"`) : { kind: 'file' };
}

function postgresChoice(url: string, source: string): JournalStoreChoice {
  const shown = checkStoreUrl(url, source, {
    notStore: 'is not a journal store; expected postgres://USER@HOST:PORT/DATABASE (or postgresql://…)',
    write: 'postgres://USER:PASSWORD@HOST:PORT/DATABASE',
  });
  return { kind: 'postgres', url, shown, source };
}
