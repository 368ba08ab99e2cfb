// The action journal: a record of every state-changing action, written before the request leaves
// and updated when its outcome is known; also the desk's audit log. `Journal` (backend.ts) is what
// every backend implements (this local file, or a shared database for a team); `openJournal` is
// the local file.
//
// An entry is held by the process that began it (or took hold of it to resume it) until its final
// outcome or that process's end: a second process never resumes an action a live one is still
// carrying out (holder.ts says how liveness is told). Account locks serialise "read the book →
// decide → send → see it land" across processes (account-locks.ts).
import { join } from 'node:path';
import { claimLock, dropLock, lockFile, readLock, removeOnExit } from './account-locks.js';
import type { Hold, LocalJournal, SameRequest } from './backend.js';
import { canonicalJson } from './canonical-json.js';
import { newEntryId } from './entry-id.js';
import { fileKeeperHeartbeats } from './heartbeat-file.js';
import { foldJournal, isOutcome, isUnresolved, type BeginFields, type JournalEntry, type SkippedLine } from './entry.js';
import { currentHolder, isAlive, isRecordedHolder, newSession, publicHolder, type Holder, type RecordedHolder } from './holder.js';
import { JournalError } from './journal-error.js';
import { findKeyShapedString } from './key-guard.js';
import { JOURNAL_FILE_NAME } from './location.js';
import { lockedAppend, withJournalLock, DEFAULT_LOCK_STALE_MS } from './locked-append.js';
import { archiveFiles, readSegment } from './segments.js';

export type { Holder } from './holder.js';

export interface OpenJournalOptions {
  /** The folder (journalDir(env) for the CLI). Created on the first write, never by a read. */
  dir: string;
  /** Milliseconds since the epoch; Date.now by default. */
  now?: () => number;
  /** Told about every line a read had to skip (a crash mid-write, a hand edit), with its file. */
  onSkip?: (skip: SkippedLine & { file?: string }) => void;
  /** See LockedAppendOptions; tests shorten it. */
  lockStaleMs?: number;
  /** The active segment is rotated past this size (bytes); tests lower it. */
  rotateBytes?: number;
  /** Resolved entries kept in the active segment at a rotation. */
  keepResolved?: number;
}

export type { Hold, Journal, ListOptions, LocalJournal, SameRequest } from './backend.js';

const FINAL_OUTCOMES = new Set(['filled', 'done', 'failed', 'rejected', 'abandoned']);
const MAX_CANDIDATES_NAMED = 10;
/** How often a wait for an account lock looks again (each look takes the journal lock briefly). */
const LOCK_POLL_MS = 100;

/** Thrown inside the journal lock to leave it with a holder to report. */
class HeldBy {
  constructor(readonly holder: Holder) {}
}

export function openJournal(options: OpenJournalOptions): LocalJournal {
  const { dir, now = Date.now, onSkip, lockStaleMs, rotateBytes, keepResolved } = options;
  const file = join(dir, JOURNAL_FILE_NAME);
  const at = (): string => new Date(now()).toISOString();
  const session = newSession();
  const appendOptions = { lockStaleMs, rotateBytes, keepResolved, now };
  const skipIn = (path: string) => (skip: SkippedLine) => onSkip?.({ ...skip, file: path });

  /** The active segment's entries, in creation order. */
  const activeEntries = (): JournalEntry[] => foldJournal(readSegment(file) ?? '', skipIn(file));

  /** Every entry (archives and active folded together: an entry caught mid-rotation is in both), newest first. */
  const allEntries = (filter: { since?: number; until?: number; limit?: number; pending?: boolean } = {}): JournalEntry[] => {
    const active = activeEntries();
    if (filter.pending) return newestFirst(active);
    const sinceDay = filter.since === undefined ? undefined : new Date(filter.since).toISOString().slice(0, 10);
    const untilDay = filter.until === undefined ? undefined : new Date(filter.until).toISOString().slice(0, 10);
    const archives = archiveFiles(dir)
      .filter((archive) => (sinceDay === undefined || archive.day >= sinceDay) && (untilDay === undefined || archive.day <= untilDay))
      .reverse();
    const byId = new Map<string, JournalEntry>(active.map((entry) => [entry.id, entry]));
    const chosen = (entry: JournalEntry) => inRange(entry, filter);
    for (const archive of archives) {
      if (filter.limit !== undefined) {
        // Archives are by creation day: once `limit` entries are newer than this archive's whole day, it cannot add any.
        const sorted = newestFirst([...byId.values()].filter(chosen));
        const cut = sorted[filter.limit - 1];
        if (cut !== undefined && cut.created_at.slice(0, 10) > archive.day) break;
      }
      for (const entry of foldJournal(readSegment(archive.path) ?? '', skipIn(archive.path))) {
        // The active segment's copy is the newer one (it may hold events added after a crash mid-rotation).
        if (!byId.has(entry.id)) byId.set(entry.id, entry);
      }
    }
    return newestFirst([...byId.values()]);
  };

  const holderIn = (entry: JournalEntry | undefined): RecordedHolder | undefined => {
    if (!entry || !isUnresolved(entry)) return undefined;
    const holder = entry.holder;
    return isRecordedHolder(holder) && isAlive(holder) ? holder : undefined;
  };

  /** This session still holds the entry, or the entry was finished (which ends a hold, never loses it). */
  const stillHeld = (id: string): boolean => {
    const entry = activeEntries().find((candidate) => candidate.id === id);
    if (!entry || !isUnresolved(entry)) return true;
    return isRecordedHolder(entry.holder) && entry.holder.session === session;
  };

  const release = (id: string) => async () => {
    await lockedAppend(
      file,
      (current) => {
        const entry = foldJournal(current).find((candidate) => candidate.id === id);
        // Only our own hold is let go; a resolved entry is held by nobody already.
        if (!entry || !isUnresolved(entry) || !isRecordedHolder(entry.holder) || entry.holder.session !== session) return '';
        return JSON.stringify({ id, at: at(), holder: null });
      },
      appendOptions,
    ).catch(() => {
      // Letting go is a courtesy: a hold of a process that ends is let go by its end anyway.
    });
  };

  const journal: LocalJournal = {
    dir,
    file,
    location: file,

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
          // The next place in this journal, under its lock: its clock plays no part (backend.ts).
          const stamp = { id, at: new Date(time).toISOString(), seq: highestSeq(current) + 1 };
          const holder = currentHolder(time, session);
          // Stamped again after the fields, so that nothing in them can replace the id, time or holder.
          event = JSON.stringify(
            Object.assign({ ...stamp }, fields, stamp, { host: holder.host, holder, outcome: fields.outcome === 'planned' ? 'planned' : 'pending' }),
          );
          return event;
        },
        appendOptions,
      );
      return foldJournal(event)[0]!;
    },

    async update(id, patch) {
      if (patch.outcome !== undefined && !isOutcome(patch.outcome)) throw new JournalError(`"${String(patch.outcome)}" is not a journal outcome.`);
      refuseKeys(patch);
      const text = await lockedAppend(
        file,
        (current) => {
          if (!current.includes(`{"id":"${id}"`) && !foldJournal(current).some((entry) => entry.id === id)) throw new JournalError(`No journal entry ${id} to update.`);
          const time = at();
          const resolvedAt = patch.outcome && FINAL_OUTCOMES.has(patch.outcome) && patch.resolved_at === undefined ? { resolved_at: time } : {};
          const stamp = { id, at: time };
          return JSON.stringify(Object.assign({ ...stamp }, patch, stamp, resolvedAt));
        },
        appendOptions,
      );
      return foldJournal(linesOf(text, id)).find((entry) => entry.id === id)!;
    },

    async list({ pending, since, until, limit } = {}) {
      const chosen = allEntries({ pending, since, until, limit }).filter((entry) => (!pending || isUnresolved(entry)) && inRange(entry, { since, until }));
      return limit === undefined ? chosen : chosen.slice(0, Math.max(0, limit));
    },

    async get(idOrPrefix) {
      const wanted = idOrPrefix.trim().toLowerCase();
      if (wanted === '') return undefined;
      const active = newestFirst(activeEntries());
      const quick = active.find((entry) => entry.id === wanted);
      if (quick) return quick;
      const entries = allEntries();
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
      // Unresolved entries never leave the active segment.
      return newestFirst(activeEntries()).find(
        (entry) =>
          isUnresolved(entry) &&
          // A planned leg is sent by its own multi-leg action (or `hedge resume`), never by a lone command.
          (entry.outcome !== 'planned' || match.group !== undefined) &&
          matchesRequest(entry, match),
      );
    },

    async hold(id) {
      try {
        await lockedAppend(
          file,
          (current) => {
            const entry = foldJournal(current).find((candidate) => candidate.id === id);
            if (!entry) throw new JournalError(`No journal entry ${id} to hold.`);
            // Finished meanwhile: there is nothing left to resume; its last holder is who finished it.
            if (!isUnresolved(entry)) {
              throw new HeldBy(isRecordedHolder(entry.holder) ? publicHolder(entry.holder) : { pid: 0, host: 'unknown', since: entry.updated_at, session: '' });
            }
            const holder = holderIn(entry);
            if (holder && holder.session !== session) throw new HeldBy(publicHolder(holder));
            return JSON.stringify({ id, at: at(), holder: currentHolder(now(), session) });
          },
          appendOptions,
        );
      } catch (error) {
        if (error instanceof HeldBy) return { held: false, holder: error.holder };
        throw error;
      }
      return { held: true, hold: fileHold(() => release(id)(), () => stillHeld(id)) };
    },

    async holderOf(id) {
      const entry = activeEntries().find((candidate) => candidate.id === id);
      const holder = holderIn(entry);
      return holder ? publicHolder(holder) : undefined;
    },

    async lockHolder(scope) {
      const record = readLock(lockFile(dir, scope));
      return record && isAlive(record.holder) ? publicHolder(record.holder) : undefined;
    },

    keeperHeartbeats: fileKeeperHeartbeats(dir),

    async lock(scope, { waitMs }) {
      const staleMs = lockStaleMs ?? DEFAULT_LOCK_STALE_MS;
      const holder = currentHolder(now(), session);
      removeOnExit(session);
      // Bounded in real (monotonic) time: this is a wait for another process, whatever clock the caller runs on.
      const started = performance.now();
      for (;;) {
        const answer = await withJournalLock(file, staleMs, () => claimLock(dir, scope, holder));
        if (answer.held) {
          return {
            held: true,
            hold: fileHold(
              () => withJournalLock(file, staleMs, () => dropLock(dir, scope, session)).catch(() => undefined),
              // Its record removed (by hand) or replaced by another holder's.
              () => readLock(lockFile(dir, scope))?.holder.session === session,
            ),
          };
        }
        const left = waitMs - (performance.now() - started);
        if (left <= 0) return answer;
        await new Promise((resolve) => setTimeout(resolve, Math.min(LOCK_POLL_MS, left)));
      }
    },
  };
  return journal;
}

/** A hold of this file journal: lost once its record no longer names this process, unless released first. */
function fileHold(release: () => Promise<unknown>, stillHeld: () => boolean): Hold {
  let released = false;
  return {
    release: async () => {
      released = true;
      await release();
    },
    lost: () => !released && !stillHeld(),
  };
}

/** The event lines of one entry (what folding it needs), without parsing the others. */
function linesOf(text: string, id: string): string {
  const marker = `"id":"${id}"`;
  return text
    .split('\n')
    .filter((line) => line.includes(marker))
    .join('\n');
}

function inRange(entry: JournalEntry, { since, until }: { since?: number; until?: number }): boolean {
  const created = Date.parse(entry.created_at);
  return (since === undefined || created >= since) && (until === undefined || created < until);
}

/**
 * Newest first by `seq`, the journal's own counter. Entries written before it had one are older
 * than every entry that has one, and among themselves go by creation time (then file order).
 */
function newestFirst(entries: JournalEntry[]): JournalEntry[] {
  return entries
    .map((entry, index) => ({ entry, index, time: Date.parse(entry.created_at) }))
    .sort((a, b) => {
      const [aSeq, bSeq] = [a.entry.seq, b.entry.seq];
      if (aSeq !== undefined && bSeq !== undefined) return bSeq - aSeq;
      if (aSeq !== undefined || bSeq !== undefined) return aSeq !== undefined ? -1 : 1;
      return b.time - a.time || b.index - a.index;
    })
    .map(({ entry }) => entry);
}

/** A begin event starts as begin writes it: `{"id":…,"at":…,"seq":N`. */
const BEGIN_SEQ = /^\{"id":"[^"\\]+","at":"[^"\\]+","seq":(\d+)[,}]/gm;

/**
 * The highest `seq` of the active segment (0 when none has one). The entry holding it is never
 * archived by a rotation (segments.ts), so the active segment always knows the journal's highest.
 */
export function highestSeq(text: string): number {
  let highest = 0;
  for (const match of text.matchAll(BEGIN_SEQ)) highest = Math.max(highest, Number(match[1]));
  return highest;
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

/** Every backend refuses an event holding anything shaped like an API key (the team store too). */
export function refuseKeys(event: object): void {
  const where = findKeyShapedString(event);
  if (where) {
    throw new JournalError(`Refused to journal an event holding something shaped like an API key (at ${where}); nothing was written.`, {
      hint: 'This is a bug: the journal stores keyFingerprint(key), never the key.',
    });
  }
}

/** The fields a reader relies on; TypeScript checks callers, this catches what slips past it. Shared by every backend. */
export function checkBeginFields(fields: BeginFields): void {
  const problems: string[] = [];
  if (fields.environment !== 'live' && fields.environment !== 'test') problems.push('environment must be live or test');
  for (const name of ['base_url_host', 'key_id', 'command', 'idempotency_key'] as const) {
    if (typeof fields[name] !== 'string' || fields[name] === '') problems.push(`${name} is required`);
  }
  if (typeof fields.request?.method !== 'string' || typeof fields.request?.path !== 'string') problems.push('request needs method and path');
  if (problems.length > 0) throw new JournalError(`Cannot journal this action: ${problems.join('; ')}.`);
}
