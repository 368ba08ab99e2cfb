import { closeSync, fsyncSync, readdirSync, readSync, fstatSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { utcDay } from '../../core/utc-text.js';
import { syncDirectory, writeAllSync, writeFileDurably } from '../../core/files/durable-write.js';
import {
  describeReadError,
  makePrivateDir,
  openRegularFileSync,
  ReadRefused,
  type FileReading,
} from '../../core/security/bounded-read.js';
import { EVENT, foldJournal, isUnresolved, readRow, ROW_BOUNDS, type SkippedLine } from './entry.js';
import { JournalError } from './journal-error.js';
import { HedgeError } from '../../core/errors.js';

export const ARCHIVE_DIR_NAME = 'journal-archive';
const ARCHIVE_FILE = /^journal-(\d{4}-\d{2}-\d{2})\.jsonl$/;

export const DEFAULT_ROTATE_BYTES = 1024 * 1024;
/** Resolved entries kept in the active segment at a rotation (the newest), besides the unresolved ones. */
export const DEFAULT_KEEP_RESOLVED = 200;

/** `act` on a journal file or folder, any failure in the journal's terms; a read of one that is not there is undefined. */
function journalIo<T>(path: string, action: 'read' | 'write', act: () => T) {
  try {
    return act();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (action === 'read' && (code === 'ENOENT' || code === 'ENOTDIR')) return;
    throw asJournalError(error, path, action);
  }
}

/** The folder's archive files, oldest day first. */
export function archiveFiles(dir: string) {
  const folder = join(dir, ARCHIVE_DIR_NAME);
  return (journalIo(folder, 'read', () => readdirSync(folder)) ?? []).sort().flatMap((name) => {
    const day = ARCHIVE_FILE.exec(name)?.[1];
    return day ? [{ day, path: join(folder, name) }] : [];
  });
}

const JOURNAL_FILE: FileReading = { maxBytes: Infinity, noFollow: true, guard: 'trusted' };

/** A line longer than a row may be is skipped, never read whole. */
const MAX_LINE_BYTES = ROW_BOUNDS.maxBytes;
const CHUNK_BYTES = 64 * 1024;
const NEWLINE = Buffer.from('\n');

/** A file's text, never through a symbolic link; undefined when it does not exist. */
export function readSegment(file: string, onLong: (line: number) => void = () => {}) {
  const fd = journalIo(file, 'read', () => openRegularFileSync(file, JOURNAL_FILE));
  if (fd === undefined) return;
  try {
    const kept: Buffer[] = [];
    const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
    let line: Buffer[] = [];
    let lineBytes = 0;
    let number = 1;
    const endLine = () => {
      if (lineBytes > MAX_LINE_BYTES) onLong(number);
      else kept.push(...line);
      [line, lineBytes] = [[], 0];
    };
    for (let read; (read = readSync(fd, chunk, 0, CHUNK_BYTES, null)) > 0;)
      for (let from = 0; from < read;) {
        const newline = chunk.subarray(from, read).indexOf(0x0a);
        const end = newline < 0 ? read : from + newline;
        lineBytes += end - from;
        // Past the bound the rest of a line is only counted, never kept.
        if (lineBytes <= MAX_LINE_BYTES) line.push(Buffer.from(chunk.subarray(from, end)));
        if (newline < 0) break;
        endLine();
        kept.push(NEWLINE);
        number += 1;
        from = end + 1;
      }
    endLine();
    return Buffer.concat(kept).toString('utf8');
  } catch (error) {
    throw asJournalError(error, file, 'read');
  } finally {
    closeSync(fd);
  }
}

/** The entries of a journal file; a line that is too long or is not an event is skipped and told, naming the file. */
export function entriesIn(file: string, onSkip: (skip: SkippedLine & { file: string }) => void = () => {}) {
  const skipped = (skip: SkippedLine) => onSkip({ ...skip, file });
  const tooLong = (line: number) =>
    skipped({ line, reason: `longer than ${MAX_LINE_BYTES / 1024 / 1024} MiB: not read` });
  return foldJournal(readSegment(file, tooLong) ?? '', skipped);
}

/** The journal's folder, or (`inside`) one it makes inside it: files/durable-write.ts. */
export function ensureDir(dir: string, options: { inside?: boolean } = {}) {
  journalIo(dir, 'write', () => makePrivateDir(dir, options));
}

/** Opens a journal file to append (created 0600), never through a symbolic link. */
export function openForAppend(file: string) {
  // Read access too: a rotation checks an archive's last byte through the same descriptor.
  return journalIo(file, 'write', () => openRegularFileSync(file, JOURNAL_FILE, true))!;
}

/** Writes all of `text` as UTF-8 (durable-write.ts), in the journal's terms when it fails. */
export function writeAll(fd: number, text: string, file: string) {
  journalIo(file, 'write', () => writeAllSync(fd, Buffer.from(text, 'utf8')));
}

export function syncFile(fd: number, file: string) {
  journalIo(file, 'write', () => fsyncSync(fd));
}

/** Replaces `target` with `text` whole and durably (files/durable-write.ts), in the journal's terms when it fails. */
export function replaceFileDurably(target: string, text: string) {
  journalIo(target, 'write', () => writeFileDurably(target, text));
}

/** Moves the resolved entries of the active segment (all but the newest `keepResolved`, and any of a group with an unresolved entry) into the archive of their creation day, then replaces the active segment with what stays. */
export function rotate(
  file: string,
  text: string,
  {
    keepResolved,
    keepBytes,
    today,
  }: {
    keepResolved: number;
    /** The resolved entries kept take at most this many bytes (so a rotation always leaves room to grow). */
    keepBytes: number;
    /** UTC day for lines that are not events (kept, in that day's archive). */
    today: string;
  },
) {
  const linesOf = new Map<string, string[]>();
  const archived = new Map<string, string[]>();
  const add = (map: Map<string, string[]>, key: string, lines: string[]) =>
    (map.get(key) ?? map.set(key, []).get(key)!).push(...lines);
  const stray: string[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    const id = idOf(line);
    if (id === undefined) stray.push(line);
    else add(linesOf, id, [line]);
  }
  const entries = foldJournal(text);
  /** Each entry's creation day: its archive's. */
  const dayOf = new Map(entries.map((entry) => [entry.id, utcDay(entry.created_at)]));
  // The groups of unresolved entries; an ungrouped entry's undefined group is in none of them.
  const openGroups = new Set(entries.filter(isUnresolved).flatMap((entry) => entry.group ?? []));
  const keep = new Set(
    entries.filter((entry) => isUnresolved(entry) || openGroups.has(entry.group!)).map((entry) => entry.id),
  );
  // The newest resolved entries stay (the journal's default listing reads only the active segment).
  const resolved = entries.filter((candidate) => !isUnresolved(candidate)).reverse();
  let keptBytes = 0;
  for (const entry of resolved.slice(0, keepResolved)) {
    keptBytes += (linesOf.get(entry.id) ?? []).reduce((sum, line) => sum + line.length + 1, 0);
    if (keptBytes > keepBytes) break;
    keep.add(entry.id);
  }
  // The entry with the journal's highest seq stays, so that the next begin counts on from it.
  const highest = entries.filter((entry) => entry.seq !== undefined).sort((a, b) => b.seq! - a.seq!)[0];
  if (highest) keep.add(highest.id);

  const kept: string[] = [];
  for (const [id, idLines] of linesOf) {
    if (keep.has(id)) kept.push(...idLines);
    // An entry without a creation event (its lines damaged) goes with the stray lines of today.
    else add(archived, dayOf.get(id) ?? today, idLines);
  }
  if (stray.length) add(archived, today, stray);
  if (archived.size === 0) return;

  const folder = join(dirname(file), ARCHIVE_DIR_NAME);
  ensureDir(folder, { inside: true });
  for (const [day, dayLines] of archived) {
    const path = join(folder, `journal-${/^\d{4}-\d{2}-\d{2}$/.test(day) ? day : today}.jsonl`);
    const fd = openForAppend(path);
    try {
      const size = fstatSync(fd).size;
      const last = Buffer.alloc(1);
      // A torn last line in the archive (a crash mid-rotation) must not swallow the first one added.
      const lead = size > 0 && readSync(fd, last, 0, 1, size - 1) && last[0] !== 0x0a ? '\n' : '';
      writeAll(fd, `${lead}${dayLines.join('\n')}\n`, path);
      syncFile(fd, path);
    } finally {
      closeSync(fd);
    }
  }
  syncDirectory(folder);
  replaceFileDurably(file, kept.length ? `${kept.join('\n')}\n` : '');
}

/** The id of an event line, without parsing all of it when it starts as the journal writes it. */
function idOf(line: string) {
  const fast = /^\{"id":"([^"\\]+)"/.exec(line);
  if (fast) return fast[1];
  const event = readRow(line, EVENT);
  return typeof event === 'string' ? undefined : event.id;
}

export function asJournalError(error: unknown, path: string, action: 'read' | 'write') {
  // A folder refused as the user's setting (exit 2) is said as it is.
  if (error instanceof HedgeError) return error;
  const [message, hint] =
    (error as NodeJS.ErrnoException).code === 'ELOOP'
      ? [
          `The action journal's ${path} is a symbolic link; hedge does not follow it (it would ${action} wherever it points).`,
          `Replace the link with the file or folder itself (or remove it), or point HEDGE_CONFIG_DIR or XDG_STATE_HOME at a folder of your own.`,
        ]
      : [
          `Cannot ${action} the action journal ${path}: ${describeReadError(error)}.`,
          error instanceof ReadRefused
            ? 'hedge uses a journal file only when it is a regular file that no one but you (or root) may change.'
            : action === 'write'
              ? `Make ${path} writable by this user (or free the disk), or point HEDGE_CONFIG_DIR or XDG_STATE_HOME at a writable folder.`
              : `Check that this user can read ${path}.`,
        ];
  return new JournalError(message, { path, hint, cause: error });
}
