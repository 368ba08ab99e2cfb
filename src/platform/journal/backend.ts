// The journal's one interface, split as Terraform splits a backend's state.
import type { BeginFields, JournalEntry, JournalEnvironment, JournalPatch, Skipped } from './entry.js';
import type { Holder } from '../../core/files/file-lock.js';

/** Signs a new row as it is stored: its `seal`. */
export type RowSeal = (entry: JournalEntry) => string;

/** `pending`: only entries still unresolved (planned, pending, submitted, unknown). */
export type ListOptions = Pick<RowFilter, 'idempotencyKey' | 'since' | 'until' | 'limit'> & { pending?: boolean };

/** The "same request" rule: what must agree for an earlier unresolved entry to be resumed. */
export interface SameRequest {
  environment: JournalEnvironment;
  base_url_host: string;
  key_id: string;
  command: string;
  /** The normalised request body; compared as canonicalJson. */
  body: unknown;
  /** Compared only when given. */
  group?: string;
  leg?: string;
}

/** The store half: the records. */
interface JournalRecords {
  /** For messages: the file path, or the store URL with any password redacted. */
  readonly location: string;
  /** Records a new action (outcome pending, or planned when asked), held by this process. */
  begin(fields: BeginFields, seal?: RowSeal): Promise<JournalEntry>;
  /** Records what became of an action (its revision goes up by one); a final outcome ends this process's hold. Returns the entry with every change folded in. */
  update(id: string, patch: JournalPatch): Promise<JournalEntry>;
  /** Newest first: by `seq`, the order the journal took them in (never by a machine's clock). */
  list(options?: ListOptions): Promise<JournalEntry[]>;
  /** By full id, or a unique part of one (its start, its end, or both around `…`); an ambiguous part throws, naming the candidates. */
  get(idOrPrefix: string): Promise<JournalEntry | undefined>;
  findUnresolvedMatch(match: SameRequest): Promise<JournalEntry | undefined>;
  close?(): Promise<void>;
}

/** A hold on an entry or a lock on an account scope, taken by this process. */
export interface Hold {
  release(): Promise<void>;
  /** True once the hold is gone without a release. */
  lost(): boolean;
}

export type HoldResult = { held: true; hold: Hold } | { held: false; holder: Holder };

/** The locker half: who is acting. A hold dies with its process (kill -9 included), never by age. */
interface JournalLocker {
  /** Take hold of an existing unresolved entry (to resume it); an entry resolved meanwhile is not taken (held: false, its last holder). */
  hold(id: string): Promise<HoldResult>;
  holderOf(id: string): Promise<Holder | undefined>;
  /** A per-account lock. */
  lock(scope: string, options: { waitMs: number }): Promise<HoldResult>;
  lockHolder(scope: string): Promise<Holder | undefined>;
}

/** The optional part of a backend for `hedge keep`. */
export interface KeeperHeartbeats {
  /** Replaces the scope's heartbeat; resolves with its new revision once durable. */
  write(scope: string, body: object): Promise<{ revision: number }>;
  /** The scope's heartbeat, or undefined when none was ever written (or it cannot be read as one). */
  read(scope: string): Promise<
    | {
        body: unknown;
        /** How many times it was written (1 at the first write); 0 for a heartbeat file an older hedge wrote. */
        revision: number;
        /** Its age by the backend's own clock (the team store's: now() minus the time of its write). */
        ageMs?: number;
      }
    | undefined
  >;
}

/** Which rows a read wants; a client applies every field but `request`, which only narrows. */
export interface RowFilter {
  id?: string;
  idPrefix?: string;
  idSuffix?: string;
  /** Only rows whose outcome is unresolved (entry.ts's UNRESOLVED_OUTCOMES, the one list). */
  unresolved?: boolean;
  idempotencyKey?: string;
  /** Only rows created at or after / before these times (ms since the epoch; the row's own created_at). */
  since?: number;
  until?: number;
  limit?: number;
  /** A client may read only rows of this request's identity and body (the journal checks the rule itself). */
  request?: SameRequest;
}

/** The rows of a journal: read, appended, changed — each atomically. */
export interface RecordsClient {
  readonly location: string;
  append(entry: JournalEntry, seal?: RowSeal): Promise<JournalEntry | undefined>;
  /** Folds `patch` into the row (later fields win, updated_at = at, revision + 1); undefined when there is no such row. */
  change(id: string, patch: JournalPatch, at: string): Promise<JournalEntry | undefined>;
  read(filter: RowFilter): Promise<JournalEntry[]>;
  /** The keeper's heartbeats, stored as given (the journal refuses a key before). */
  readonly heartbeats?: KeeperHeartbeats;
  close?(): Promise<void>;
}

/** What a hold is on: an entry being carried out, or a per-account lock's scope. */
export type HoldScope = { entry: string } | { lock: string };

/** Holds on a scope, each dying with its process. */
export interface LockerClient {
  /** This process as the holder of a hold taken at `time` (a new row carries it). */
  holderAt(time: number): Holder;
  /** Takes the scope's hold, waiting up to waitMs; or names its live holder. (The journal asks for an entry's only while it is unresolved, and looks again after.) */
  take(scope: HoldScope, waitMs: number): Promise<HoldResult>;
  holderOf(scope: HoldScope): Promise<Holder | undefined>;
  /** Lets go of every hold this process has on the scope: an entry's, once its outcome is final (absent where the outcome itself ends it). */
  letGo?(scope: HoldScope): Promise<void>;
}

export interface Journal extends JournalRecords, JournalLocker {
  readonly keeperHeartbeats?: KeeperHeartbeats;
}

export interface LocalJournal extends Journal {
  readonly dir: string;
  readonly file: string;
}

/** What `hedge journal migrate` did with one local entry. */
export type ImportOutcome =
  | 'added'
  /** In the store, and the local record knew more (a later revision, or a fallback record): merged in. */
  | 'merged'
  | 'present'
  /** The store holds another action under this id (a different idempotency key): left alone. */
  | 'conflict';

/** Its `dir` is the local journal's folder (where fallback records go), its `file` the store as shown. */
export interface TeamJournal extends LocalJournal {
  readonly kind: 'postgres';
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
