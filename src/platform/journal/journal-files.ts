// The journal's files (its active segment, archives and index) read and written in the journal's terms: never through a
// link, each failure a JournalError naming the path, a line longer than a row may be skipped and never read whole.
import { closeSync, fstatSync, fsyncSync, readSync } from 'node:fs';
import { fileIdentity, writeAllSync, writeFileDurably } from '../../core/files/durable-write.js';
import { HedgeError } from '../../core/errors.js';
import {
  describeReadError,
  makePrivateDir,
  openRegularFileSync,
  ReadRefused,
  type FileReading,
} from '../../core/security/bounded-read.js';
import { foldJournal, JournalError, ROW_BOUNDS, type SkippedLine } from './entry.js';

export const JOURNAL_FILE: FileReading = { maxBytes: Infinity, noFollow: true, guard: 'trusted' };

/** A line longer than a row may be is skipped, never read whole. */
export const MAX_LINE_BYTES = ROW_BOUNDS.maxBytes;
const CHUNK_BYTES = 64 * 1024;
const NEWLINE = Buffer.from('\n');

/** `act` on a journal file or folder, any failure in the journal's terms; a read of one that is not there is undefined. */
export function journalIo<T>(path: string, action: 'read' | 'write', act: () => T) {
  try {
    return act();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (action === 'read' && (code === 'ENOENT' || code === 'ENOTDIR')) return;
    throw asJournalError(error, path, action);
  }
}

/** A journal file opened to read, never through a symbolic link; undefined when it does not exist. */
export const openForRead = (file: string) => journalIo(file, 'read', () => openRegularFileSync(file, JOURNAL_FILE));

/** A file's text, never through a symbolic link; undefined when it does not exist. `opened` is told the file's identity
 * as opened (the active segment's, which a rotation changes). */
export function readSegment(
  file: string,
  onLong: (line: number) => void = () => {},
  opened?: (identity: string) => void,
) {
  const fd = openForRead(file);
  if (fd === undefined) return;
  try {
    if (opened) opened(fileIdentity(fstatSync(fd, { bigint: true })));
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
