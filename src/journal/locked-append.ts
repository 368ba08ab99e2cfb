// The only code that writes the active segment. Each append is one O_APPEND write of one whole
// line, made under the journal lock (proper-lockfile: a lock folder beside the file, taken over
// when a process died holding it), and fsynced before the promise resolves: the caller may send
// its request only after that.
//
// What the lock guards is kept short and independent of the journal's history: it reads only the
// bounded active segment (to keep ids unique and updates pointed at an entry), writes one line and
// releases; the fsync runs after the release (it makes every write made so far durable, so a
// writer's own line is on disk when its fsync returns), so writers under contention wait for each
// other's few syscalls, never for each other's disk flushes.
import { closeSync, fstatSync } from 'node:fs';
import { dirname } from 'node:path';
import { utcDay } from '../domain/utc-text.js';
import { syncDirectory } from '../files/durable-write.js';
import { isLockedError, lockFile } from '../files/file-lock.js';
import { JournalError } from './journal-error.js';
import {
  asJournalError,
  DEFAULT_KEEP_RESOLVED,
  DEFAULT_ROTATE_BYTES,
  ensureDir,
  MAX_LINE_BYTES,
  openForAppend,
  readSegment,
  rotate,
  syncFile,
  writeAll,
} from './segments.js';

export const DEFAULT_LOCK_STALE_MS = 10_000;

export interface LockedAppendOptions {
  /** A lock older than this belongs to a process that died holding it (kill -9) and is taken over. */
  lockStaleMs?: number;
  /** The active segment is rotated once it is larger than this many bytes. */
  rotateBytes?: number;
  /** Resolved entries kept in the active segment at a rotation. */
  keepResolved?: number;
  /** Milliseconds since the epoch (the day archives are named by for stray lines). */
  now?: () => number;
}

/** Runs `body` under the journal lock (creating the folder first). */
export async function withJournalLock<T>(file: string, staleMs: number, body: () => T): Promise<T> {
  ensureDir(dirname(file));
  const release = await acquire(file, staleMs);
  try {
    return body();
  } finally {
    await release();
  }
}

/**
 * Under the lock: reads the active segment as it is now, lets `compose` turn that into the line to
 * add (or throw, and nothing is written), appends it. After the lock: fsyncs. Returns the active
 * segment's text after the write.
 */
export async function lockedAppend(
  file: string,
  compose: (current: string) => string,
  options: LockedAppendOptions = {},
): Promise<string> {
  const staleMs = options.lockStaleMs ?? DEFAULT_LOCK_STALE_MS;
  const { fd, text } = await withJournalLock<{ fd: number | undefined; text: string }>(file, staleMs, () => {
    const current = readSegment(file);
    const line = compose(current ?? '');
    // Nothing to add (the caller found it was not needed).
    if (line === '') return { fd: undefined, text: current ?? '' };
    if (line.includes('\n')) throw new JournalError('A journal event must be a single line.');
    // What a reader would skip is never written: the action it records could not be read back.
    if (Buffer.byteLength(line) > MAX_LINE_BYTES)
      throw new JournalError(
        `A journal event over ${MAX_LINE_BYTES / 1024 / 1024} MiB is not written (a request that large is refused).`,
      );
    // A crash mid-write can leave a last line without its newline: start on a fresh line, so
    // that only the torn line is lost and not this one too.
    const added = `${current && !current.endsWith('\n') ? '\n' : ''}${line}\n`;
    const appendFd = openForAppend(file);
    try {
      writeAll(appendFd, Buffer.from(added, 'utf8'), file);
      if (current === undefined) syncDirectory(dirname(file));
      const after = `${current ?? ''}${added}`;
      const rotateBytes = options.rotateBytes ?? DEFAULT_ROTATE_BYTES;
      if (fstatSync(appendFd).size > rotateBytes) {
        // The line is in the page cache, so the rotation carries it; the rotation syncs what it writes.
        rotate(file, after, {
          keepResolved: options.keepResolved ?? DEFAULT_KEEP_RESOLVED,
          keepBytes: Math.floor(rotateBytes / 2),
          today: utcDay((options.now ?? Date.now)()),
        });
      }
      return { fd: appendFd, text: after };
    } catch (error) {
      closeSync(appendFd);
      throw error;
    }
  });
  if (fd === undefined) return text;
  try {
    syncFile(fd, file);
  } finally {
    closeSync(fd);
  }
  return text;
}

async function acquire(file: string, staleMs: number): Promise<() => Promise<void>> {
  try {
    // The default wait (twice staleMs): a lock left by a killed process is waited out and taken
    // over instead of failing the action. Taken over while held, nothing is lost: the lock guards
    // only a few milliseconds of work whose one O_APPEND write cannot tear a line anyway.
    return await lockFile(file, { staleMs });
  } catch (error) {
    if (isLockedError(error)) {
      throw new JournalError(`The journal ${file} stayed locked by another hedge process.`, {
        path: file,
        hint: `Try again; if no hedge process is running, remove ${file}.lock.`,
        cause: error,
      });
    }
    throw asJournalError(error, file, 'write');
  }
}
