import type { TeamJournalOptions } from './backend.js';

export { canonicalJson } from './canonical-json.js';
export {
  bodyOf,
  isUnresolved,
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
export type { Journal } from './client-journal.js';
export { describeHolder, matchesRequest } from './client-journal.js';
export { openJournal } from './journal.js';
export { JournalError, JournalStoreError } from './journal-error.js';
export { keyFingerprint } from './key-guard.js';
export { journalDir } from './location.js';
export { ARCHIVE_DIR_NAME, ensureDir } from './segments.js';

/** Opens the PostgreSQL store; connects lazily (its code loads only then). */
export async function openTeamJournal(options: TeamJournalOptions) {
  const { PostgresJournal } = await import('./postgres/postgres-store.js');
  return new PostgresJournal(options);
}
