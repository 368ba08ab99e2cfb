// The action journal on a local file, the embedded default backend.
import { join } from 'node:path';
import { utcDay } from '../../core/utc-text.js';
import type { LocalJournal, RecordsClient, RowFilter, RowSeal } from './backend.js';
import { ClientJournal } from './client-journal.js';
import { foldJournal, isUnresolved, type JournalEntry, type JournalPatch, type SkippedLine } from './entry.js';
import { newSession } from '../../core/files/file-lock.js';
import { fileKeeperHeartbeats } from './heartbeat-file.js';
import { JOURNAL_FILE_NAME } from './location.js';
import { activeEntries, fileLocker, lockedAppend, type FilePlace } from './locks.js';
import { archiveFiles, entriesIn } from './segments.js';

export interface OpenJournalOptions extends Partial<Pick<FilePlace, 'lockStaleMs' | 'rotateBytes' | 'keepResolved'>> {
  dir: string;
  /** Milliseconds since the epoch; Date.now by default. */
  now?: () => number;
  /** Told about every line a read had to skip (a crash mid-write, a hand edit), with its file. */
  onSkip?: (skip: SkippedLine & { file?: string }) => void;
}

export function openJournal(options: OpenJournalOptions): LocalJournal {
  const { dir, now = Date.now, onSkip } = options;
  const file = join(dir, JOURNAL_FILE_NAME);
  const place: FilePlace = { ...options, file, now, skipIn: (path) => (skip) => onSkip?.({ ...skip, file: path }) };
  // The records: events appended to the active segment under its lock, folded into entries when read.
  const records: RecordsClient = {
    location: file,
    heartbeats: fileKeeperHeartbeats(dir),
    append: (entry, seal) => appendEntry(place, entry, seal),
    change: (id, patch, at) => changeEntry(place, id, patch, at),
    read: async (filter) => readEntries(place, filter),
  };
  return Object.assign(new ClientJournal(records, fileLocker(place, newSession()), { now }), { dir, file });
}

/** A begin event: `{"id":…,"at":…,"seq":N, …}`, its seq the next of this journal, given under its lock (its clock plays no part). */
async function appendEntry(place: FilePlace, entry: JournalEntry, seal?: RowSeal) {
  const { id, created_at: at, updated_at: _updated, ...fields } = entry;
  let event = '';
  await lockedAppend(place, (current) => {
    if (current.includes(`{"id":"${id}"`)) return '';
    const stamp = { id, at, seq: highestSeq(current) + 1 };
    // Stamped again after the fields, so that nothing in them can replace the id, time or seq.
    const sealed = seal ? { seal: seal({ ...entry, seq: stamp.seq }) } : {};
    event = JSON.stringify(Object.assign({ ...stamp }, fields, sealed, stamp));
    return event;
  });
  return event === '' ? undefined : foldJournal(event)[0];
}

/** An update event `{"id":…,"at":…, …patch}`, appended only when the active segment has the entry. */
async function changeEntry(place: FilePlace, id: string, patch: JournalPatch, at: string) {
  let found = false;
  const text = await lockedAppend(place, (current) => {
    found = current.includes(`{"id":"${id}"`) || foldJournal(current).some((entry) => entry.id === id);
    if (!found) return '';
    const stamp = { id, at };
    return JSON.stringify(Object.assign({ ...stamp }, patch, stamp));
  });
  return found ? foldJournal(linesOf(text, id)).find((entry) => entry.id === id) : undefined;
}

/** The entries the filter picks, newest first. Unresolved entries never leave the active segment; an id is looked for there first. */
function readEntries(place: FilePlace, filter: RowFilter) {
  const { id, idPrefix, idSuffix, unresolved, idempotencyKey, limit } = filter;
  const chosen = (entry: JournalEntry) =>
    (id === undefined || entry.id === id) &&
    (idPrefix === undefined || entry.id.startsWith(idPrefix)) &&
    (idSuffix === undefined || entry.id.endsWith(idSuffix)) &&
    (idempotencyKey === undefined || entry.idempotency_key === idempotencyKey) &&
    (!unresolved || isUnresolved(entry)) &&
    inRange(entry, filter);
  const segment = activeEntries(place);
  const active = newestFirst(segment).filter(chosen);
  const found =
    unresolved || (id !== undefined && active.length > 0)
      ? active
      : withArchives(place, segment, filter, chosen).filter(chosen);
  return limit === undefined ? found : found.slice(0, limit);
}

/** The active segment's entries and the archives' the filter may want (an entry caught mid-rotation is in both: the active copy wins), newest first. */
function withArchives(
  place: FilePlace,
  segment: JournalEntry[],
  filter: RowFilter,
  chosen: (entry: JournalEntry) => boolean,
) {
  const day = (ms: number | undefined) => (ms === undefined ? undefined : utcDay(ms));
  const [sinceDay, untilDay] = [day(filter.since), day(filter.until)];
  const archives = archiveFiles(place.dir)
    .filter(
      (archive) =>
        (sinceDay === undefined || archive.day >= sinceDay) && (untilDay === undefined || archive.day <= untilDay),
    )
    .reverse();
  const byId = new Map<string, JournalEntry>(segment.map((entry) => [entry.id, entry]));
  for (const archive of archives) {
    if (filter.limit !== undefined) {
      // Archives are by creation day: once `limit` entries are newer than this archive's whole day, it cannot add any.
      const cut = newestFirst([...byId.values()].filter(chosen))[filter.limit - 1];
      if (cut !== undefined && utcDay(cut.created_at) > archive.day) break;
    }
    for (const entry of entriesIn(archive.path, place.skipIn(archive.path))) {
      // The active segment's copy is the newer one (it may hold events added after a crash mid-rotation).
      if (!byId.has(entry.id)) byId.set(entry.id, entry);
    }
  }
  return newestFirst([...byId.values()]);
}

/** The event lines of one entry (what folding it needs), without parsing the others. */
function linesOf(text: string, id: string) {
  const marker = `"id":"${id}"`;
  return text
    .split('\n')
    .filter((line) => line.includes(marker))
    .join('\n');
}

function inRange(entry: JournalEntry, { since, until }: { since?: number; until?: number }) {
  const created = Date.parse(entry.created_at);
  return (since === undefined || created >= since) && (until === undefined || created < until);
}

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

/** The highest `seq` of the active segment (0 when none has one). */
function highestSeq(text: string) {
  let highest = 0;
  for (const match of text.matchAll(BEGIN_SEQ)) highest = Math.max(highest, Number(match[1]));
  return highest;
}
