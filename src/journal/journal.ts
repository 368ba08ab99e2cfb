// The action journal: a local, append-only record of every state-changing action, written before
// the request leaves and updated when its outcome is known. It is also the desk's audit log.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { canonicalJson } from './canonical-json.js';
import { newEntryId } from './entry-id.js';
import { foldJournal, isOutcome, isUnresolved, type BeginFields, type JournalEntry, type JournalEnvironment, type JournalPatch, type SkippedLine } from './entry.js';
import { JournalError } from './journal-error.js';
import { findKeyShapedString } from './key-guard.js';
import { JOURNAL_FILE_NAME } from './location.js';
import { asJournalError, lockedAppend } from './locked-append.js';

export interface OpenJournalOptions {
  /** The folder (journalDir(env) for the CLI). Created on the first write, never by a read. */
  dir: string;
  /** Milliseconds since the epoch; Date.now by default. */
  now?: () => number;
  /** Told about every line a read had to skip (a crash mid-write, a hand edit). */
  onSkip?: (skip: SkippedLine) => void;
  /** See LockedAppendOptions; tests shorten it. */
  lockStaleMs?: number;
}

export interface ListOptions {
  /** Only entries still unresolved (planned, pending, submitted, unknown). */
  pending?: boolean;
  /** Only entries created at or after this time (ms since the epoch). */
  since?: number;
  /** At most this many, the newest. */
  limit?: number;
}

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

export interface Journal {
  readonly dir: string;
  readonly file: string;
  /** Records a new action (outcome pending, or planned when asked); resolves once the record is on disk. */
  begin(fields: BeginFields): Promise<JournalEntry>;
  /** Records what became of an action; returns the entry with every event folded in. */
  update(id: string, patch: JournalPatch): Promise<JournalEntry>;
  /** Newest first. */
  list(options?: ListOptions): Promise<JournalEntry[]>;
  /** By full id or a unique prefix of one; an ambiguous prefix throws, naming the candidates. */
  get(idOrPrefix: string): Promise<JournalEntry | undefined>;
  /** The newest unresolved entry for the same request, if any. */
  findUnresolvedMatch(match: SameRequest): Promise<JournalEntry | undefined>;
}

const FINAL_OUTCOMES = new Set(['filled', 'done', 'failed', 'rejected', 'abandoned']);
const MAX_CANDIDATES_NAMED = 10;

export function openJournal(options: OpenJournalOptions): Journal {
  const { dir, now = Date.now, onSkip, lockStaleMs } = options;
  const file = join(dir, JOURNAL_FILE_NAME);
  const at = (): string => new Date(now()).toISOString();

  const readEntries = (): JournalEntry[] => foldJournal(readJournalText(file), onSkip);
  const newestFirst = (): JournalEntry[] => readEntries().reverse();

  return {
    dir,
    file,

    async begin(fields) {
      checkBeginFields(fields);
      refuseKeys(fields);
      let event = '';
      await lockedAppend(
        file,
        (current) => {
          const time = now();
          let id = newEntryId(time);
          while (current.includes(`{"id":"${id}"`)) id = newEntryId(time);
          const stamp = { id, at: new Date(time).toISOString() };
          // Stamped again after the fields, so that nothing in them can replace the id or time.
          event = JSON.stringify(Object.assign({ ...stamp }, fields, stamp, { outcome: fields.outcome === 'planned' ? 'planned' : 'pending' }));
          return event;
        },
        { lockStaleMs },
      );
      return foldJournal(event)[0]!;
    },

    async update(id, patch) {
      if (patch.outcome !== undefined && !isOutcome(patch.outcome)) throw new JournalError(`"${String(patch.outcome)}" is not a journal outcome.`);
      refuseKeys(patch);
      const text = await lockedAppend(
        file,
        (current) => {
          if (!foldJournal(current).some((entry) => entry.id === id)) throw new JournalError(`No journal entry ${id} to update.`);
          const time = at();
          const resolvedAt = patch.outcome && FINAL_OUTCOMES.has(patch.outcome) && patch.resolved_at === undefined ? { resolved_at: time } : {};
          const stamp = { id, at: time };
          return JSON.stringify(Object.assign({ ...stamp }, patch, stamp, resolvedAt));
        },
        { lockStaleMs },
      );
      return foldJournal(text).find((entry) => entry.id === id)!;
    },

    async list({ pending, since, limit } = {}) {
      const chosen = newestFirst().filter(
        (entry) => (!pending || isUnresolved(entry)) && (since === undefined || Date.parse(entry.created_at) >= since),
      );
      return limit === undefined ? chosen : chosen.slice(0, Math.max(0, limit));
    },

    async get(idOrPrefix) {
      const wanted = idOrPrefix.trim().toLowerCase();
      if (wanted === '') return undefined;
      const entries = newestFirst();
      const exact = entries.find((entry) => entry.id === wanted);
      if (exact) return exact;
      const candidates = entries.filter((entry) => entry.id.startsWith(wanted));
      if (candidates.length <= 1) return candidates[0];
      const named = candidates.slice(0, MAX_CANDIDATES_NAMED).map((entry) => entry.id);
      const more = candidates.length > named.length ? ` and ${candidates.length - named.length} more` : '';
      throw new JournalError(`"${idOrPrefix}" matches ${candidates.length} journal entries: ${named.join(', ')}${more}.`, {
        hint: 'Type more of the id.',
      });
    },

    async findUnresolvedMatch(match) {
      return newestFirst().find(
        (entry) =>
          isUnresolved(entry) &&
          // A planned leg is sent by its own multi-leg action (or `hedge resume`), never by a lone command.
          (entry.outcome !== 'planned' || match.group !== undefined) &&
          matchesRequest(entry, match),
      );
    },
  };
}

/** The entry was made for this request: same environment, host, key, command and normalised body. */
export function matchesRequest(entry: JournalEntry, match: SameRequest): boolean {
  return (
    entry.environment === match.environment &&
    entry.base_url_host === match.base_url_host &&
    entry.key_id === match.key_id &&
    entry.command === match.command &&
    (match.group === undefined || entry.group === match.group) &&
    (match.leg === undefined || entry.leg === match.leg) &&
    canonicalJson(entry.request.body) === canonicalJson(match.body)
  );
}

/** The file's text; an absent file is an empty journal. */
function readJournalText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'ENOTDIR') return '';
    throw asJournalError(error, file, 'read');
  }
}

function refuseKeys(event: object): void {
  const where = findKeyShapedString(event);
  if (where) {
    throw new JournalError(`Refused to journal an event holding something shaped like an API key (at ${where}); nothing was written.`, {
      hint: 'This is a bug: the journal stores keyFingerprint(key), never the key.',
    });
  }
}

/** The fields a reader relies on; TypeScript checks callers, this catches what slips past it. */
function checkBeginFields(fields: BeginFields): void {
  const problems: string[] = [];
  if (fields.environment !== 'live' && fields.environment !== 'test') problems.push('environment must be live or test');
  for (const name of ['base_url_host', 'key_id', 'command', 'idempotency_key'] as const) {
    if (typeof fields[name] !== 'string' || fields[name] === '') problems.push(`${name} is required`);
  }
  if (typeof fields.request?.method !== 'string' || typeof fields.request?.path !== 'string') problems.push('request needs method and path');
  if (problems.length > 0) throw new JournalError(`Cannot journal this action: ${problems.join('; ')}.`);
}
