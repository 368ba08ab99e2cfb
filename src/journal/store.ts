// The journal as every backend offers it (BRIEF "The journal interface"): the local file (the
// embedded default, journal.ts) and the team's PostgreSQL store (postgres-store.ts, loaded only
// when a store is configured, so that nobody else pays for its client).
import type { BeginFields, Holder, JournalEntry, JournalPatch } from './entry.js';
import type { ListOptions, SameRequest } from './journal.js';

export type { Holder } from './entry.js';

export type Hold = {
  release(): Promise<void>;
  /** True once the hold is gone without a release (the team store's session that held it ended). */
  lost?(): boolean;
};

export type HoldResult = { held: true; hold: Hold } | { held: false; holder: Holder };

export interface StoreListOptions extends ListOptions {
  /** Only entries created before this time (ms since the epoch). */
  until?: number;
}

export interface JournalStore {
  /** For messages: the file path, or the store URL with any password redacted. */
  readonly location: string;
  /** The new entry is held by this process until a final outcome or process exit. */
  begin(fields: BeginFields): Promise<JournalEntry>;
  /** A final outcome releases this process's hold. */
  update(id: string, patch: JournalPatch): Promise<JournalEntry>;
  /** Newest first. */
  list(options?: StoreListOptions): Promise<JournalEntry[]>;
  get(idOrPrefix: string): Promise<JournalEntry | undefined>;
  findUnresolvedMatch(match: SameRequest): Promise<JournalEntry | undefined>;
  /** Take hold of an existing unresolved entry (to resume it). */
  hold(id: string): Promise<HoldResult>;
  /** The live holder of an entry, or undefined (finished, or its process died). */
  holderOf(id: string): Promise<Holder | undefined>;
  /** A per-account lock, released when the process dies; waits up to waitMs (0: answer at once). */
  lock(scope: string, options: { waitMs: number }): Promise<HoldResult>;
  close?(): Promise<void>;
}

/** What `hedge journal migrate` did with one local entry. */
export type ImportOutcome =
  /** Not in the store: added, under its own id. */
  | 'added'
  /** In the store, and the local record knew more (a later outcome, or a fallback record): merged in. */
  | 'merged'
  /** Already in the store with everything the local record says. */
  | 'present'
  /** The store holds another action under this id (a different idempotency key): left alone. */
  | 'conflict';

/** The team store: the interface, plus what moving a local journal into it needs. */
export interface TeamJournal extends JournalStore {
  readonly kind: 'postgres';
  /** The local journal's folder (where fallback records go); the file journal's name for its own. */
  readonly dir: string;
  /** The store as shown (password redacted): the file journal's name for its path. */
  readonly file: string;
  /** Brings the schema up to date (also done on first use); the versions applied. */
  migrateSchema(): Promise<number[]>;
  /** Adds or merges one entry of a local journal (idempotent: importing it again changes nothing). */
  importEntry(entry: JournalEntry): Promise<{ outcome: ImportOutcome; id: string }>;
}

export function isTeamJournal(journal: object): journal is TeamJournal {
  return (journal as { kind?: unknown }).kind === 'postgres';
}

export interface TeamJournalOptions {
  /** The full URL (password included); used for the connection only. */
  url: string;
  /** The URL as shown: password redacted. */
  shown: string;
  /** Where the URL came from (HEDGE_JOURNAL_URL, `profile "desk"`), for hints. */
  source: string;
  /** The local journal's folder: where a fallback record goes when the store fails after a send. */
  fallbackDir: string;
  now?: () => number;
  /** --verbose lines (never the URL whole). */
  log?: (line: string) => void;
  /** Bounds, in ms: connecting, and each statement (a lock wait gets its own wait on top). */
  connectTimeoutMs?: number;
  queryTimeoutMs?: number;
}

/** Opens the PostgreSQL store; its client is loaded here, on first use. Connects lazily. */
export async function openTeamJournal(options: TeamJournalOptions): Promise<TeamJournal> {
  const { PostgresJournal } = await import('./postgres-store.js');
  return new PostgresJournal(options);
}
