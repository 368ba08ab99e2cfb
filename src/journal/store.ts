// Opens the team's PostgreSQL store (the journal interface is backend.ts). Its client is loaded
// here, on first use, so that nobody using the local file pays for it; postgres-store.ts imports
// only the interface, never this module, so the two make no circle.
import type { TeamJournal, TeamJournalOptions } from './backend.js';

export { isTeamJournal, type ImportOutcome, type TeamJournal, type TeamJournalOptions } from './backend.js';

/** Opens the PostgreSQL store; connects lazily. */
export async function openTeamJournal(options: TeamJournalOptions): Promise<TeamJournal> {
  const { PostgresJournal } = await import('./postgres/postgres-store.js');
  return new PostgresJournal(options);
}
