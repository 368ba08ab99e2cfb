// The action journal on a local file, the embedded default backend: its records under its one append lock, its holds as namedHolds (below) takes every one, its active segment (archive.ts keeps the rest).
import * as z from 'zod/mini';
import { closeSync, fstatSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { utcDay, utcIso } from '../../core/utc-text.js';
import { syncDirectory, unlinkQuietly, writeFileDurably } from '../../core/files/durable-write.js';
import {
  MAX_INPUT_FILE_BYTES,
  ReadRefused,
  readRegularFileSync,
  refuseUntrustedFolder,
  describeReadError,
} from '../../core/security/bounded-read.js';
import {
  currentHolder,
  HOLDER,
  isAlive,
  isLockedError,
  lockFile,
  newSession,
  type Holder,
  type RecordedHolder,
} from '../../core/files/file-lock.js';
import { UsageError } from '../../core/errors.js';
import { poll } from '../../core/process/timers.js';
import { issueWords } from '../../core/security/json-keys.js';
import {
  clientJournal,
  holdOf,
  lastHolderOf,
  type HoldResult,
  type LockerClient,
  rowTest,
  type RowFilter,
  type RowSeal,
} from './client-journal.js';
import {
  ANY_ROW,
  JournalError,
  EVENT,
  foldJournal,
  isUnresolved,
  readRow,
  refuseUnreadable,
  ROW_BOUNDS,
  type JournalEntry,
  type JournalPatch,
  type SkippedLine,
} from './entry.js';
import { refuseKeyShaped, sha256Hex } from './row-integrity.js';
import { journalArchive, rotate } from './archive.js';
import {
  asJournalError,
  ensureDir,
  entriesIn,
  JOURNAL_FILE,
  MAX_LINE_BYTES,
  openForAppend,
  readSegment,
  replaceFileDurably,
  syncFile,
  writeAll,
} from './journal-files.js';

/** `dir`: journalDir(env) for the CLI, created on the first write, never by a read; the rest as its holds take them (namedHolds). */
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
  const file = join(dir, 'journal.jsonl');
  /** Where it lives and how its holds are taken (namedHolds). */
  const place = { ...options, now };
  const archive = journalArchive(dir, { underLock: (body) => exclusively(file, place, body), onSkip });
  /** The active segment's lines read so far, each as an event or why it is none. */
  let checked = new Map<string, string | true>();

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

  /** The entries the filter picks, newest first. Unresolved entries never leave the active segment, where an id is
   * looked for first; the archives are read through their index where the filter names a row (an id, a key, a group, a
   * hedge) or a side or a request since a time, else by day, from the newest, as far as `since` or `limit` need. */
  async function readEntries(filter: RowFilter, tries = 3): Promise<JournalEntry[]> {
    const { pending, id, since, until, limit } = filter;
    const chosen = rowTest(filter);
    const { entries, segment } = activeEntries();
    // The active segment's entries, in creation order (every unresolved entry is there).
    const byId = new Map(entries.map((entry) => [entry.id, entry]));
    const picked = () => newestFirst([...byId.values()]).filter(chosen);
    const active = picked();
    if (pending || (id !== undefined && active.length)) return active.slice(0, limit);
    // The index after the segment: when a rotation moved entries out of it meanwhile, the segment is read again.
    const current = await archive.current(segment);
    if (current === 'again' && tries > 1) return readEntries(filter, tries - 1);
    // Rotated under every read: each archive of the time asked is read whole.
    const manifest = current === 'again' ? undefined : current;
    // An entry caught mid-rotation is in both places: the active copy is the newer one.
    const take = (entry: JournalEntry) => {
      if (!byId.has(entry.id) && chosen(entry)) byId.set(entry.id, entry);
    };
    const terms = manifest && archive.termsFor(manifest, filter);
    if (manifest && terms) {
      const found = archive.lookup(manifest, terms);
      // A bucket that lost writes (the machine crashed) is made again from the archives, and read again.
      const again = found === 'damaged' ? archive.lookup(await archive.repair(), terms) : found;
      if (again === 'damaged') throw new JournalError(`The index of ${archive.folder} could not be made again.`);
      again.forEach(take);
      return picked().slice(0, limit);
    }
    for (const { day, path } of archive.days(manifest, { since, until })) {
      if (limit !== undefined) {
        // Archives are by creation day: once `limit` entries are newer than this archive's whole day, it cannot add any.
        const cut = picked()[limit - 1];
        if (cut !== undefined && utcDay(cut.created_at) > day) break;
      }
      entriesIn(path, onSkip).forEach(take);
    }
    return picked().slice(0, limit);
  }

  /** The entries the filter picks, newest first: the active segment's, then each archive of its time, a day at a time,
   * newest first (an active entry before the archives of days before it began). */
  async function* eachEntry(filter: RowFilter) {
    const chosen = rowTest(filter);
    const { entries } = activeEntries();
    const active = newestFirst(entries).filter(chosen);
    // An entry caught mid-rotation is in both places: the active copy is the newer one.
    const inActive = new Set(entries.map((entry) => entry.id));
    let next = 0;
    if (!filter.pending)
      for (const { day, path } of archive.days(undefined, filter)) {
        while (next < active.length && utcDay(active[next].created_at) >= day) yield active[next++];
        yield* newestFirst(entriesIn(path, onSkip).filter((entry) => !inActive.has(entry.id) && chosen(entry)));
      }
    yield* active.slice(next);
  }

  /** The active segment's entries and identity. */
  function activeEntries() {
    let segment = 'none';
    const tooLong = (line: number) =>
      onSkip?.({ file, line, reason: `longer than ${MAX_LINE_BYTES / 1024 / 1024} MiB: not read` });
    const text = readSegment(file, tooLong, (identity) => (segment = identity)) ?? '';
    return { entries: foldActive(text, true), segment };
  }

  /** The entries of the active segment's `text` (`told`: each line skipped told); a line read once is not checked
   * again while it stays there. */
  function foldActive(text: string, told = false) {
    const seen = new Map<string, string | true>();
    const entries = foldJournal(
      text,
      (skip) => told && onSkip?.({ ...skip, file }),
      (line) => {
        const known = checked.get(line);
        const event = known === true ? JSON.parse(line) : (known ?? readRow(line, EVENT));
        seen.set(line, typeof event === 'string' ? event : true);
        return event;
      },
    );
    checked = seen;
    return entries;
  }

  /** The only writer of the active segment: `compose` turns it into one line, JSON as eventLine writes it ('' adds nothing). */
  async function lockedAppend(compose: (current: string) => string) {
    ensureDir(dirname(file));
    // Taken over while held, nothing is lost: it guards milliseconds of work whose one O_APPEND write cannot tear a line
    // (and a rotation that indexes the archives, which awaits as it goes: the lock is kept fresh meanwhile).
    const { fd, text } = await exclusively(file, place, async () => {
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
          await rotate(file, after, {
            keepResolved,
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
      (text === undefined ? activeEntries().entries : foldActive(text)).find((entry) => entry.id === id);
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
      { location: file, append: appendEntry, change: changeEntry, read: readEntries, each: eachEntry },
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

// Every hold on this machine (an account's, a side's, a keeper's, a journal entry's) is taken one way:
// its holder record is written under the one file lock, read back by zod, and counts while its process
// lives (file-lock.ts, isAlive). A wait looks again on the injected sleep. The team store's holds are
// its PostgreSQL advisory locks (postgres/postgres-sessions.ts).
interface HoldsOptions {
  /** The folder whose `locks/` keeps the records (the journal's, or the keepers'). */
  dir: string;
  /** This process's id for its holds (one per opened journal). */
  session: string;
  now: () => number;
  /** A file lock older than this belongs to a process that died holding it (kill -9) and is taken over; tests shorten it. */
  lockStaleMs?: number;
  sleep?: (ms: number) => Promise<unknown>;
  /** Told, once per file and problem (in one line naming the file), of a lock record or an entry's holder that names no holder. */
  notice?: (text: string) => void;
}

const DEFAULT_LOCK_STALE_MS = 10_000;
const LOCKS_DIR_NAME = 'locks';
/** The longest sleep of a wait for a held lock between two looks (each takes the record's file lock briefly). */
const LOOK_CAP_MS = 100;

// The holder as recorded, `start` and all: its liveness is judged by it.
const RECORD = z.looseObject({ scope: z.string(), holder: z.looseObject(HOLDER.shape) });

/** Runs `body` under the file lock of `file`; still locked past its bound is exit 13, naming the file. */
async function exclusively<T>(
  file: string,
  options: Pick<HoldsOptions, 'lockStaleMs' | 'sleep'>,
  body: () => T | Promise<T>,
) {
  const release = await lockFile(file, {
    staleMs: options.lockStaleMs ?? DEFAULT_LOCK_STALE_MS,
    sleep: options.sleep,
  }).catch((error: unknown) => {
    if (!isLockedError(error)) throw asJournalError(error, file, 'write');
    throw new JournalError(`${file} stayed locked by another hedge process.`, {
      path: file,
      hint: `Try again; if no hedge process is running, remove ${file}.lock.`,
      cause: error,
    });
  });
  try {
    // A body that takes long (the archives indexed) lets the lock's holder record be kept fresh as it goes.
    return await body();
  } finally {
    await release();
  }
}

/** Says each record that names no holder once per instance; such a record holds nothing. */
function holderReader(notice: HoldsOptions['notice'] = () => {}) {
  const said = new Set<string>();
  const skipped = (where: string, problem: string) => {
    const text = `Lock record skipped: ${where} (${problem}); taken as held by nobody.`;
    if (said.has(text)) return;
    said.add(text);
    notice(text);
  };
  return {
    skipped,
    /** The live holder `recorded` names, as others are told of it (absent or null: nobody). */
    live(recorded: unknown, where: string) {
      if (recorded == null) return;
      const read = HOLDER.safeParse(recorded);
      if (!read.success) {
        skipped(where, issueWords(read.error));
        return;
      }
      return isAlive(recorded as RecordedHolder) ? read.data : undefined;
    },
  };
}

/** Named holds (an account, a side, a keeper): a record `locks/<hash of the name>.json` each, under its own file lock. */
export function namedHolds(options: HoldsOptions) {
  const { dir, session } = options;
  const holders = holderReader(options.notice);
  const pathOf = (name: string) => join(dir, LOCKS_DIR_NAME, `${sha256Hex(name, 24)}.json`);

  function recorded(path: string) {
    const text = readSegment(path);
    if (text === undefined) return;
    const record = readRow(text, RECORD);
    if (typeof record !== 'string') return record.holder as RecordedHolder;
    holders.skipped(path, record);
  }

  async function take(name: string, waitMs: number): Promise<HoldResult> {
    const path = pathOf(name);
    const me = currentHolder(options.now(), session);
    ensureDir(dir);
    // A `locks` that is a link is refused before anything is read or written through it.
    ensureDir(dirname(path), { inside: true });
    const answer = await poll(
      () =>
        exclusively(path, options, () => {
          // Under the record's file lock: the live holder it names, else this process, written in.
          const holder = holders.live(recorded(path), path);
          if (holder) return { held: false, holder } as const;
          replaceFileDurably(path, JSON.stringify({ scope: name, holder: me }));
          return { held: true } as const;
        }),
      (verdict) => verdict.held,
      { waitMs, capMs: LOOK_CAP_MS, sleep: options.sleep },
    );
    if (!answer.held) return answer;
    // Records this process holds are removed when it exits normally (after a crash, liveness frees them).
    heldHere.set(path, drop);
    if (!exitHook)
      process.once('exit', () => {
        for (const [held, dropOne] of heldHere) {
          try {
            dropOne(held);
          } catch {
            // Best effort: a record left behind names a dead process, which the next taker replaces.
          }
        }
      });
    exitHook = true;
    return {
      held: true,
      hold: holdOf(
        () => exclusively(path, options, () => drop(path)).catch(() => undefined),
        // Its record removed (by hand) or replaced by another holder's.
        () => recorded(path)?.session === session,
      ),
    };
  }

  /** Removes the record when this instance (its session, which no other process has) holds it. */
  function drop(path: string) {
    if (recorded(path)?.session !== session) return;
    unlinkQuietly(path);
    heldHere.delete(path);
  }

  return {
    take,
    async holderOf(name: string) {
      const path = pathOf(name);
      return holders.live(recorded(path), path);
    },
  };
}

const heldHere = new Map<string, (path: string) => void>();
let exitHook = false;

/** Small, so that a write reads little: every write reads the active segment several times, and nothing more of history
 * than the index finds. */
const DEFAULT_ROTATE_BYTES = 16 * 1024;
/** Resolved entries kept in the active segment at a rotation (the newest), besides the unresolved ones. */
const DEFAULT_KEEP_RESOLVED = 10;

// A keeper's heartbeat file, in its per-user keeper folder (the team store keeps its own: postgres-store.ts).
const REVISION_FIELD = 'heartbeat_revision';

/** A heartbeat names each row a keeper keeps, so it may be larger than a journal row, never deeper. */
export const HEARTBEAT_BOUNDS = { ...ROW_BOUNDS, maxBytes: MAX_INPUT_FILE_BYTES };

export function heartbeatFile(dir: string, scope: string) {
  return join(dir, `${sha256Hex(scope, 24)}.heartbeat.json`);
}

/** The file's body (without the revision field) and revision, or undefined when absent or unreadable (`skipped` is told why a file there is not JSON). */
export function readHeartbeatFile(path: string, skipped?: (problem: string) => void) {
  // Read as the journal is: its folder and the file only when this user's (or root's) and no other may change them.
  refuseUntrustedFolder(dirname(path));
  let text;
  try {
    text = readRegularFileSync(path, { ...JOURNAL_FILE, maxBytes: HEARTBEAT_BOUNDS.maxBytes }).toString('utf8');
  } catch (error) {
    if (error instanceof ReadRefused && (error.kind === 'not-yours' || error.kind === 'open-to-others'))
      throw new UsageError(`Cannot use the keeper heartbeat ${path}: ${describeReadError(error)}.`);
    return;
  }
  const value = readRow(text, ANY_ROW, HEARTBEAT_BOUNDS);
  // A file cut short by a crash of an older writer, or edited by hand: no heartbeat.
  if (typeof value === 'string') {
    skipped?.(value);
    return;
  }
  const { [REVISION_FIELD]: revision, ...body } = value;
  return {
    body,
    revision: typeof revision === 'number' && Number.isSafeInteger(revision) && revision > 0 ? revision : 0,
  };
}

/** Replaces the file whole; the revision is one more than the file's. Only the keeper holding the scope's lock writes it. */
export function writeHeartbeatFile(path: string, body: object) {
  refuseKeyShaped(body, 'write a keeper heartbeat');
  const revision = (readHeartbeatFile(path)?.revision ?? 0) + 1;
  ensureDir(dirname(path));
  writeFileDurably(path, `${JSON.stringify({ ...body, [REVISION_FIELD]: revision })}\n`);
  return { revision };
}
