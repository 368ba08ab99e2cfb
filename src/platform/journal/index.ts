import type { TeamJournalOptions } from './postgres/postgres-sessions.js';
import type { PostgresJournal } from './postgres/postgres-store.js';

export { canonicalJson } from './canonical-json.js';
export {
  bodyOf,
  changeOf,
  isUnresolved,
  JournalError,
  JournalStoreError,
  NOT_WAITED_MESSAGE,
  OUTCOMES,
  recordedUsd,
  resumeWithItsCredentials,
  sayEachSkipOnce,
  type BeginFields,
  type JournalEntry,
  type JournalPatch,
  type SideAfter,
  type SkippedLine,
} from './entry.js';
export type { Holder } from '../../core/files/file-lock.js';
export type { Journal, ListOptions } from './client-journal.js';
export { describeHolder, matchesRequest } from './client-journal.js';
export { openJournal } from './journal.js';
export { keyFingerprint } from './row-integrity.js';
export { journalDir } from './location.js';
export { ARCHIVE_DIR_NAME, ensureDir } from './journal.js';

/** Opens the PostgreSQL store; connects lazily (its code loads only then). */
export async function openTeamJournal(options: TeamJournalOptions) {
  return (await import('./postgres/postgres-store.js')).openPostgresJournal(options);
}

export function isTeamJournal<J extends object>(journal: J): journal is J & PostgresJournal {
  return (journal as { kind?: unknown }).kind === 'postgres';
}
