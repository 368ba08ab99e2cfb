import type { TeamJournalOptions } from './postgres/postgres-sessions.js';
import type { PostgresJournal } from './postgres/postgres-store.js';

export { canonicalJson } from '../../core/files/canonical-json.js';
export * from './entry.js';
export type { Holder } from '../../core/files/file-lock.js';
export { describeHolder, matchesRequest, type Journal, type ListOptions } from './client-journal.js';
export { keyFingerprint } from './row-integrity.js';
export { journalDir } from './location.js';
export { ARCHIVE_DIR_NAME } from './archive.js';
export { ensureDir } from './journal-files.js';
export { openJournal } from './journal.js';

/** Opens the PostgreSQL store; connects lazily (its code loads only then). */
export async function openTeamJournal(options: TeamJournalOptions) {
  return (await import('./postgres/postgres-store.js')).openPostgresJournal(options);
}

export function isTeamJournal<J extends object>(journal: J): journal is J & PostgresJournal {
  return (journal as { kind?: unknown }).kind === 'postgres';
}
