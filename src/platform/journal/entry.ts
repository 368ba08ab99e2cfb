// What a journal entry is, and how the file's events fold into entries. Pure: no file access.
import type { Holder } from '../../core/files/file-lock.js';
import { isObject, type JsonObject } from '../../core/objects.js';
import * as z from 'zod/mini';
import { readBoundedJson, type JsonBounds } from '../../core/security/json-keys.js';
import { StateError } from '../../core/errors.js';
import { safeText } from '../../core/security/safe-text.js';
import { shellWord } from '../../core/program.js';
import { SIDES, type Side } from '../../core/vocabulary.js';
import { rowKey } from '../../core/keep-rules.js';

export const OUTCOMES = [
  'planned',
  'pending',
  'submitted',
  'filled',
  'done',
  'failed',
  'rejected',
  'unknown',
  'abandoned',
] as const;

/** planned: a later leg of a multi-leg action (roll). */
export type Outcome = (typeof OUTCOMES)[number];

/** The outcomes of an action not finished yet: the one list (a backend's query is built from it, never re-declared). */
export const UNRESOLVED_OUTCOMES: readonly Outcome[] = ['planned', 'pending', 'submitted', 'unknown'];

export interface JournalEntry {
  id: string;
  /** The record's place in its journal: a counter per journal, given at begin (client-journal.ts). Absent on records older than it. */
  seq?: number;
  /** How many times the record was written: 1 at begin, one more per change. Decides which copy of a record knows more. */
  revision?: number;
  /** When the machine that wrote it says it was made (its clock: never used to order records). */
  created_at: string;
  updated_at: string;
  profile?: string;
  environment: 'live' | 'test';
  base_url_host: string;
  /** keyFingerprint(apiKey): never the key itself. */
  key_id: string;
  account?: string;
  command: string;
  /** The command as the user could type it again (shown by `hedge resume`). */
  argv?: string[];
  request: {
    method: string;
    path: string;
    /** The normalised body, as sent. */
    body: unknown;
    /** Extra headers (`hedge api -H`), scrubbed: recorded, never sent again. */
    headers?: Record<string, string>;
  };
  idempotency_key: string;
  /** The row's seal (row-integrity.ts): an HMAC over what it would send and as whom. */
  seal?: string;
  /** The id of the parent action when one action has several legs (roll, apply). */
  group?: string;
  leg?: string;
  /** `agent` when the write came through `hedge mcp`, `keeper` when a keeper sent it (absent: a person or script at the CLI). */
  via?: 'agent' | 'keeper';
  /** Facts the caller read before sending that a resumed wait needs (e.g. the notional before an add). */
  context?: JsonObject;
  host?: string;
  /** The process holding it while unresolved (as recorded at begin, or by the last hold); null once let go. */
  holder?: Holder | null;
  outcome: Outcome;
  hedge_id?: string;
  order_tx_hash?: string;
  error_code?: string;
  /** Sanitised by the caller; stored as given. */
  message?: string;
  resolved_at?: string;
  /** The notional the action moved on the server, in USD, when its request does not say it. */
  traded_usd?: number;
  /** The side as every view showed it once this action was seen to land (its hedges not final, and what they add up to): a run of the same request later is a repeat only while the side still shows exactly this (write-flow.ts). */
  side_after?: SideAfter;
  /** Set on a local record written because the team store failed after the request was sent. */
  fallback_for?: {
    id: string;
    store: string;
    /** The team record's revision this process last knew: the fallback continues from it. */
    revision?: number;
  };
}

/** What `begin` needs: everything the caller knows before the request leaves (of what an update may change, only the account). */
export type BeginFields = Omit<
  JournalEntry,
  'id' | 'seq' | 'revision' | 'created_at' | 'updated_at' | 'host' | 'holder' | Exclude<PatchField, 'account'>
> & {
  /** pending (the default): about to be sent; planned: a later leg, journaled ahead of the action's first send. */
  outcome?: 'pending' | 'planned';
};

/** The fields an update may change: the outcome and what the answer told us (what a fallback record or a migration carries over). */
export const PATCH_FIELDS = [
  'outcome',
  'hedge_id',
  'order_tx_hash',
  'error_code',
  'message',
  'resolved_at',
  'account',
  'traded_usd',
  'side_after',
] as const;

type PatchField = (typeof PATCH_FIELDS)[number];

export type JournalPatch = Partial<Pick<JournalEntry, PatchField>>;

/** A side as an action left it: the ids of its hedges not final, sorted, and the USD they hold. */
export interface SideAfter {
  hedge_ids: string[];
  notional_usd: number;
}

/** The message of a write sent and not waited for (--no-wait): journaled done, its landing never seen. */
export const NOT_WAITED_MESSAGE = 'submitted; not waited (--no-wait)';

export function isUnresolved(entry: Pick<JournalEntry, 'outcome'>) {
  return UNRESOLVED_OUTCOMES.includes(entry.outcome);
}

/** An action the journal knows landed: a change done, or an open filled. */
export const hasLanded = (entry: Pick<JournalEntry, 'outcome'>) =>
  entry.outcome === 'done' || entry.outcome === 'filled';

/** The resume of an entry under the credentials it was sent with: its own profile (or the demo), quoted; else the key and server to set. */
export function resumeWithItsCredentials(entry: JournalEntry) {
  const again = `resume ${entry.id}`;
  // Quoted with its own environment flag, which the runner keeps (not this run's).
  if (entry.profile === 'demo' || entry.base_url_host === 'demo') return `\`hedge --demo ${again}\``;
  if (entry.profile) return `\`hedge --profile ${safeText(shellWord(entry.profile))} ${again}\``;
  return `HEDGE_API_KEY=<the key with fingerprint ${safeText(entry.key_id)}> HEDGE_BASE_URL=<https://${safeText(entry.base_url_host)}/…> hedge ${again}`;
}

/** The request body an entry recorded, as fields; empty when it recorded none (or not an object). */
export function bodyOf(entry: Pick<JournalEntry, 'request'>) {
  const body = entry.request?.body;
  return isObject(body) ? body : {};
}

/** The endpoints of the four writes, by their path under the base URL. */
const WRITE_KINDS: Readonly<Record<string, string>> = {
  '/hedges': 'open',
  '/hedges/add': 'add',
  '/hedges/reduce': 'reduce',
  '/hedges/close': 'close',
};

/** The change a write row makes: its kind (by its endpoint, whichever command sent it: `add` or `hedge api -X POST
 * /hedges/add`) on a market's side (from its body); undefined for a request that changes no side hedge can name. */
export function changeOf(entry: Pick<JournalEntry, 'request'>) {
  const { method, path } = entry.request ?? {};
  if (String(method).toUpperCase() !== 'POST') return;
  let endpoint = String(path).split(/[?#]/)[0];
  try {
    // A server reads `/hedges/%61dd` as `/hedges/add`.
    endpoint = decodeURIComponent(endpoint);
  } catch {
    // Not percent-encoded text: taken as written.
  }
  const kind = WRITE_KINDS[endpoint.replace(/\/+$/, '').toLowerCase()];
  const { market, side } = bodyOf(entry);
  if (kind === undefined || typeof market !== 'string' || typeof side !== 'string') return;
  const named = side.trim().toLowerCase();
  if (!(SIDES as readonly string[]).includes(named)) return;
  return { kind, market: market.trim().toUpperCase(), side: named as Side };
}

export type Change = NonNullable<ReturnType<typeof changeOf>>;

/** The side a row changes (changeOf), keyed as a keeper's row is (`MARKET side`); undefined for a row that changes none. */
export function sideOf(entry: Pick<JournalEntry, 'request'>) {
  const change = changeOf(entry);
  return change && rowKey(change);
}

/** The USD amount a recorded body names: its notional, else its one number other than the tenor. */
export function recordedUsd(body: JsonObject) {
  if (typeof body.notional_usd === 'number') return body.notional_usd;
  const amounts = Object.entries(body).filter(([key, value]) => key !== 'tenor_days' && typeof value === 'number');
  return amounts.length === 1 ? (amounts[0][1] as number) : undefined;
}

export interface SkippedLine {
  /** 1-based line number in journal.jsonl. */
  line: number;
  reason: string;
}

/** What a read skipped: a file's line, or a team store's row (named by its id). */
export type Skipped = (SkippedLine & { file?: string }) | { store: string; row: string; reason: string };

/** A row hedge reads (a file's line, a store's entry): larger or deeper than any it writes (a row is a few KiB, a request a few fields), and shallow enough for every walk of it. */
export const ROW_BOUNDS: JsonBounds = { maxBytes: 1024 * 1024, maxDepth: 64 };

/** What every entry has; other fields are kept as they came. */
export const ENTRY = z.looseObject({
  id: z.string(),
  command: z.string(),
  outcome: z.enum(OUTCOMES),
  request: z.looseObject({}),
});

/** A journal file's line: its entry, when, and what it changes. */
export const EVENT = z.looseObject({
  ...z.partial(ENTRY).shape,
  id: z.string().check(z.minLength(1)),
  at: z.string(),
});

export const ANY_ROW = z.record(z.string(), z.unknown());

/** A row's JSON as `schema` reads it, or why it is skipped. */
export function readRow<S extends z.ZodMiniType<object>>(text: string, schema: S, bounds = ROW_BOUNDS) {
  return readBoundedJson(text, bounds, schema);
}

/** What a reader would skip is never written: the action it records could not be read back. */
export function refuseUnreadable(row: string) {
  const read = readRow(row, ANY_ROW);
  if (typeof read === 'string')
    throw new JournalError(`A journal event ${read} is not written (a request like that is refused).`);
}

/** A line as an event, or why it is not one. */
export type EventReader = (line: string) => z.infer<typeof EVENT> | string;

/** The entries a journal's events make, in the order each began; `read` reads a line (readRow by default; one that
 * remembers the lines it read already, for a segment read again and again). */
export function foldJournal(
  text: string,
  onSkip: (skip: SkippedLine) => void = () => {},
  read: EventReader = (line) => readRow(line, EVENT),
) {
  const folded = new Map<string, { firstLine: number; events: number; fields: JsonObject }>();
  const lines = text.split('\n');
  lines.forEach((line, index) => {
    if (!line.trim()) return;
    const event = read(line);
    if (typeof event === 'string') {
      // The text after the last newline is a write still under way or cut short by a crash.
      const unterminated = index === lines.length - 1;
      onSkip({ line: index + 1, reason: unterminated ? `incomplete last line (${event})` : event });
      return;
    }
    const { at, ...fields } = event;
    const entry = folded.get(event.id);
    if (entry) {
      Object.assign(entry.fields, fields, { updated_at: at });
      entry.events += 1;
    } else
      folded.set(event.id, { firstLine: index + 1, events: 1, fields: { ...fields, created_at: at, updated_at: at } });
  });
  const entries: JournalEntry[] = [];
  for (const { firstLine, events, fields } of folded.values()) {
    fields.revision = events;
    if (ENTRY.safeParse(fields).success) entries.push(fields as unknown as JournalEntry);
    else onSkip({ line: firstLine, reason: `entry ${fields.id} has no creation event` });
  }
  return entries;
}

/** What a command says about rows it had to skip (a crash mid-write, a hand edit, a row no hedge wrote): each place once. */
export function sayEachSkipOnce(warn: (text: string) => void) {
  const said = new Set<string>();
  return (skip: Skipped) => {
    if (skip.reason.startsWith('incomplete last line')) return;
    // A store's row id is whatever its writer put there: only its start is named.
    const where =
      'row' in skip ? `${skip.store} row ${safeText(skip.row.slice(0, 64))}` : `${skip.file ?? 'journal'}:${skip.line}`;
    if (said.has(where)) return;
    said.add(where);
    warn(`Journal ${'row' in skip ? 'row' : 'line'} skipped: ${where} (${skip.reason}).`);
  };
}

/** The journal cannot be read or written (unwritable, a symbolic link, a lock held too long). */
export class JournalError extends StateError {}

/** The team store failed: named by its address (password redacted) rather than a path. */
export class JournalStoreError extends JournalError {
  /** The store's address with any password redacted. */
  readonly store: string;
  constructor(message: string, init: { store: string; hint?: string; cause?: unknown }) {
    super(message, init);
    this.store = init.store;
  }

  /** A state error that names the store (redacted) rather than a path. */
  override facts() {
    return { exitCode: 13, details: { store: this.store } };
  }
}
