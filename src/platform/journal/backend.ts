// The journal's one interface, split as Terraform splits a backend's state: its records client and its locker
// (client-journal.ts), and what the team store adds.
import type { JournalEntry, Skipped } from './entry.js';

export type { Journal, ListOptions } from './client-journal.js';

/** What `hedge journal migrate` did with one local entry. */
export type ImportOutcome =
  | 'added'
  /** In the store, and the local record knew more (a later revision, or a fallback record): merged in. */
  | 'merged'
  | 'present'
  /** The store holds another action under this id (a different idempotency key): left alone. */
  | 'conflict';

/** What the team store adds to a journal (postgres-store.ts). */
export interface TeamJournal {
  readonly kind: 'postgres';
  /** Brings the schema up to date (also done on first use); the versions applied. */
  migrateSchema(): Promise<number[]>;
  /** Adds or merges one entry of a local journal (idempotent: importing it again changes nothing). */
  importEntry(entry: JournalEntry): Promise<{ outcome: ImportOutcome; id: string }>;
}

export function isTeamJournal<J extends object>(journal: J): journal is J & TeamJournal {
  return (journal as { kind?: unknown }).kind === 'postgres';
}

export interface TeamJournalOptions {
  /** The full URL (password included); used for the connection only. */
  url: string;
  shown: string;
  /** Where the URL came from (HEDGE_JOURNAL_URL, `profile "desk"`), for hints. */
  source: string;
  /** The local journal's folder: where a fallback record goes when the store fails after a send. */
  fallbackDir: string;
  now?: () => number;
  /** The context clock's sleep (the one sleep when none is given). */
  sleep?: (ms: number) => Promise<void>;
  log?: (line: string) => void;
  /** Told about every row a read had to skip (one that cannot be read as an entry), and every line of the local file's. */
  onSkip?: (skip: Skipped) => void;
}
