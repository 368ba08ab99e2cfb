import type { TeamJournalOptions } from './backend.js';

/** Opens the PostgreSQL store; connects lazily. */
export async function openTeamJournal(options: TeamJournalOptions) {
  const { PostgresJournal } = await import('./postgres/postgres-store.js');
  return new PostgresJournal(options);
}
