// The action journal on a local file, the embedded default backend: its records under its one append lock, its holds as holds.ts takes every one.
import { closeSync, fstatSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { utcDay, utcIso } from '../../core/utc-text.js';
import { syncDirectory } from '../../core/files/durable-write.js';
import { refuseUntrustedFolder } from '../../core/security/bounded-read.js';
import { currentHolder, newSession, type Holder, type RecordedHolder } from '../../core/files/file-lock.js';
import {
  clientJournal,
  holdOf,
  lastHolderOf,
  type HoldResult,
  type LockerClient,
  type RowFilter,
  type RowSeal,
} from './client-journal.js';
import {
  foldJournal,
  isUnresolved,
  refuseUnreadable,
  type JournalEntry,
  type JournalPatch,
  type SkippedLine,
} from './entry.js';
import { exclusively, holderReader, namedHolds, type HoldsOptions } from './holds.js';
import { JournalError } from './journal-error.js';
import { JOURNAL_FILE_NAME } from './location.js';
import {
  archiveFiles,
  DEFAULT_KEEP_RESOLVED,
  DEFAULT_ROTATE_BYTES,
  ensureDir,
  entriesIn,
  openForAppend,
  readSegment,
  rotate,
  syncFile,
  writeAll,
} from './segments.js';

/** `dir`: journalDir(env) for the CLI, created on the first write, never by a read; the rest as its holds take them (holds.ts). */
type OpenJournalOptions = Omit<HoldsOptions, 'session' | 'now'> & {
  /** The active segment is rotated past this size (bytes); tests lower it. */
  rotateBytes?: number;
  /** Resolved entries kept in the active segment at a rotation. */
  keepResolved?: number;
  now?: () => number;
  /** Told about every line a read had to skip (a crash mid-write, a hand edit), with its file. */
  onSkip?: (skip: SkippedLine & { file?: string }) => void;
};

export function openJournal(options: OpenJournalOptions) {
  const {
    dir,
    now = Date.now,
    onSkip,
    notice,
    rotateBytes = DEFAULT_ROTATE_BYTES,
    keepResolved = DEFAULT_KEEP_RESOLVED,
  } = options;
  // Whoever may change the folder may move a row away, and a resume would not know its action.
  refuseUntrustedFolder(dir);
  const file = join(dir, JOURNAL_FILE_NAME);
  /** Where it lives and how its holds are taken (holds.ts). */
  const place = { ...options, now };

  /** A begin event: `{"id":…,"at":…,"seq":N, …}`, its seq the next of this journal, given under its lock (its clock plays no part). */
  async function appendEntry(entry: JournalEntry, seal?: RowSeal) {
    const { id, created_at: at, updated_at, ...fields } = entry;
    let event = '';
    await lockedAppend((current) => {
      if (current.includes(`{${idField(id)}`)) return '';
      const highest = [...current.matchAll(BEGIN_SEQ)].reduce((seq, match) => Math.max(seq, Number(match[1])), 0);
      const stamp = { id, at, seq: highest + 1 };
      event = eventLine(stamp, fields, seal ? { seal: seal({ ...entry, seq: stamp.seq }) } : {});
      return event;
    });
    // Nothing written ('' folds to no entry): undefined.
    return foldJournal(event)[0];
  }

  /** An update event `{"id":…,"at":…, …patch}`, appended only when the active segment has the entry. */
  async function changeEntry(id: string, patch: JournalPatch, at: string) {
    const byId = (events: string) => foldJournal(events).find((entry) => entry.id === id);
    const text = await lockedAppend((current) =>
      current.includes(`{${idField(id)}`) || byId(current) ? eventLine({ id, at }, patch) : '',
    );
    // A row spelled otherwise by hand (`\u0061_…`) is not among its marked lines: then it is read whole.
    const marked = text.split('\n').filter((line) => line.includes(idField(id)));
    return byId(marked.join('\n')) ?? byId(text);
  }

  /** The entries the filter picks, newest first. Unresolved entries never leave the active segment; an id is looked for there first. */
  async function readEntries(filter: RowFilter) {
    const { id, idPrefix = '', idSuffix = '', pending, idempotencyKey, since, until, limit } = filter;
    const chosen = (entry: JournalEntry) =>
      (id === undefined || entry.id === id) &&
      entry.id.startsWith(idPrefix) &&
      entry.id.endsWith(idSuffix) &&
      (idempotencyKey === undefined || entry.idempotency_key === idempotencyKey) &&
      (!pending || isUnresolved(entry)) &&
      // The record's own created_at, at or after `since` and before `until`.
      (since === undefined || Date.parse(entry.created_at) >= since) &&
      (until === undefined || Date.parse(entry.created_at) < until);
    // The active segment's entries, in creation order (every unresolved entry is there).
    const segment = entriesIn(file, onSkip);
    const active = newestFirst(segment).filter(chosen);
    if (pending || (id !== undefined && active.length)) return active.slice(0, limit);
    // Then the archives the filter may want (an entry caught mid-rotation is in both: the active copy wins).
    const byId = new Map(segment.map((entry) => [entry.id, entry]));
    const archives = archiveFiles(dir)
      .filter(
        ({ day }) => (since === undefined || day >= utcDay(since)) && (until === undefined || day <= utcDay(until)),
      )
      .reverse();
    for (const archive of archives) {
      if (limit !== undefined) {
        // Archives are by creation day: once `limit` entries are newer than this archive's whole day, it cannot add any.
        const cut = newestFirst([...byId.values()].filter(chosen))[limit - 1];
        if (cut !== undefined && utcDay(cut.created_at) > archive.day) break;
      }
      // The active segment's copy is the newer one (it may hold events added after a crash mid-rotation).
      for (const entry of entriesIn(archive.path, onSkip)) if (!byId.has(entry.id)) byId.set(entry.id, entry);
    }
    return newestFirst([...byId.values()])
      .filter(chosen)
      .slice(0, limit);
  }

  /** The only writer of the active segment: `compose` turns it into one line, JSON as eventLine writes it ('' adds nothing). */
  async function lockedAppend(compose: (current: string) => string) {
    ensureDir(dirname(file));
    // Taken over while held, nothing is lost: it guards milliseconds of work whose one O_APPEND write cannot tear a line.
    const { fd, text } = await exclusively(file, place, () => {
      const current = readSegment(file);
      const line = compose(current ?? '');
      if (line === '') return { text: current ?? '' };
      refuseUnreadable(line);
      // After a crash mid-write the last line may lack its newline: only that torn line is lost.
      const added = `${current && !current.endsWith('\n') ? '\n' : ''}${line}\n`;
      const appendFd = openForAppend(file);
      try {
        writeAll(appendFd, added, file);
        if (current === undefined) syncDirectory(dirname(file));
        const after = `${current ?? ''}${added}`;
        // The line is in the page cache, so the rotation carries it; the rotation syncs what it writes.
        if (fstatSync(appendFd).size > rotateBytes)
          rotate(file, after, {
            keepResolved: keepResolved,
            keepBytes: Math.floor(rotateBytes / 2),
            today: utcDay(now()),
          });
        return { fd: appendFd, text: after };
      } catch (error) {
        closeSync(appendFd);
        throw error;
      }
    });
    if (fd !== undefined)
      try {
        syncFile(fd, file);
      } finally {
        closeSync(fd);
      }
    return text;
  }

  function fileLocker(): LockerClient {
    const session = newSession();
    const event = (id: string, holder: RecordedHolder | null) => eventLine({ id, at: utcIso(now()) }, { holder });
    /** The entry in the active segment, or in `text` (its contents under its lock). */
    const entryOf = (id: string, text?: string) =>
      (text === undefined ? entriesIn(file, onSkip) : foldJournal(text)).find((entry) => entry.id === id);
    const ours = (entry: JournalEntry) => entry.holder?.session === session;
    const holders = holderReader(notice);
    const named = namedHolds({ ...place, session });
    /** An unresolved entry's live holder, as its record names it. */
    const liveHolderIn = (entry: JournalEntry | undefined) =>
      entry && isUnresolved(entry) ? holders.live(entry.holder, `${file} entry ${entry.id}`) : undefined;
    return {
      holderAt: (time) => currentHolder(time, session),
      take: (scope, waitMs) => ('entry' in scope ? holdEntry(scope.entry) : named.take(scope.lock, waitMs)),
      holderOf: async (scope) => ('entry' in scope ? liveHolderIn(entryOf(scope.entry)) : named.holderOf(scope.lock)),
    };

    /** Records this process as the entry's holder, unless a live other holds it or it is finished. */
    async function holdEntry(id: string): Promise<HoldResult> {
      let heldBy: Holder | undefined;
      await lockedAppend((current) => {
        const entry = entryOf(id, current);
        if (!entry) throw new JournalError(`No journal entry ${id} to hold.`);
        // Finished meanwhile: its last holder is who finished it (and the journal says so, whoever it was).
        const holder = isUnresolved(entry) ? liveHolderIn(entry) : lastHolderOf(entry);
        // Held by this session already (the run that began it): not a line per hold.
        if (holder?.session !== session) heldBy = holder;
        return holder ? '' : event(id, currentHolder(now(), session));
      });
      if (heldBy) return { held: false, holder: heldBy };
      const release = () =>
        lockedAppend((current) => {
          const entry = entryOf(id, current);
          return entry && isUnresolved(entry) && ours(entry) ? event(id, null) : '';
        }).catch(() => {
          // Letting go is a courtesy: a hold of a process that ends is let go by its end anyway.
        });
      // Still held while this session holds the entry, or the entry was finished (which ends a hold, never loses it).
      const stillHolds = () => {
        const entry = entryOf(id);
        return !entry || !isUnresolved(entry) || ours(entry);
      };
      return { held: true, hold: holdOf(release, stillHolds) };
    }
  }

  return Object.assign(
    clientJournal(
      // The records: events appended to the active segment under its lock, folded into entries when read.
      { location: file, append: appendEntry, change: changeEntry, read: readEntries },
      fileLocker(),
      { now },
    ),
    { dir, file },
  );
}

/** An event's line: stamped again after its fields, so that nothing in them can replace its stamp. */
const eventLine = (stamp: { id: string; at: string; seq?: number }, ...fields: object[]) =>
  JSON.stringify(Object.assign({ ...stamp }, ...fields, stamp));

/** An id as JSON writes it: a hand-written row's id may hold a quote or a control character. */
const idField = (id: string) => `"id":${JSON.stringify(id)}`;

/** Newest first by `seq`, the journal's own counter; records older than it after, newest first by their time (the later written first on a tie). */
function newestFirst(entries: JournalEntry[]) {
  return entries
    .map((entry, index) => ({ entry, index }))
    .sort(({ entry: a, index: i }, { entry: b, index: j }) =>
      a.seq !== undefined || b.seq !== undefined
        ? (b.seq ?? -Infinity) - (a.seq ?? -Infinity)
        : Date.parse(b.created_at) - Date.parse(a.created_at) || j - i,
    )
    .map(({ entry }) => entry);
}

/** A begin event starts as begin writes it: `{"id":…,"at":…,"seq":N`. */
const BEGIN_SEQ = /^\{"id":"[^"\\]+","at":"[^"\\]+","seq":(\d+)[,}]/gm;
