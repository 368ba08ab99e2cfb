import { checkStoreUrl } from '../../core/security/store-url.js';
import { hasStoreFile, profileInUse, requestedProfile } from './credentials.js';

const FILE = { kind: 'file' } as const;

export async function chooseJournalStore(
  input: Parameters<typeof profileInUse>[0] & { demo: boolean; configDir: string },
) {
  if (input.demo) return FILE;
  const wanted = requestedProfile(input.profileFlag, input.env);
  const fromEnv = input.env.HEDGE_JOURNAL_URL?.trim();
  if (wanted?.source !== 'flag' && fromEnv) return postgresChoice(fromEnv, 'HEDGE_JOURNAL_URL');
  // A profile's journal_url counts only when that profile is the one in use; a machine without profiles pays nothing.
  if (!hasStoreFile(input.configDir)) return FILE;
  const { name, profile } = await profileInUse(input);
  // An unknown --profile is reported by the credentials, with the names there are.
  const url = profile?.journal_url?.trim();
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
