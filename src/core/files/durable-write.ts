// The one way a file of hedge is replaced whole: a temporary file beside it, synced, renamed over it, the folder synced.
import {
  closeSync,
  constants,
  fchmodSync,
  fstatSync,
  fsyncSync,
  lstatSync,
  openSync,
  renameSync,
  unlinkSync,
  writeSync,
  type BigIntStats,
  type Stats,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';

/** A file's content: whole, or written piece by piece by a function handed `write` (a report too large to hold). */
export type FileContent = string | Uint8Array | ((write: (piece: string | Uint8Array) => void) => void);

export function writeFileDurably(target: string, data: FileContent) {
  prepareDurableWrite(target, data).commit();
}

/** What a file system entry is when it is not a regular file (`a FIFO (named pipe)`), for a line that refuses it. */
export function whatItIs(stats: Stats) {
  if (stats.isSymbolicLink()) return 'a symbolic link';
  if (stats.isFIFO()) return 'a FIFO (named pipe)';
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device';
  if (stats.isDirectory()) return 'a directory';
  return stats.isSocket() ? 'a socket' : 'a special file';
}

/** Why no file may be written at `target`, or undefined: something other than a regular file is there (a link, a
 * device, a FIFO, a socket), which the rename would replace — as root, a device others use. */
export function notRegularReason(target: string) {
  let stats: Stats | undefined;
  try {
    stats = lstatSync(target);
  } catch {
    // None there yet, or not to be looked at: the write says why.
  }
  return stats && !stats.isFile()
    ? `it is ${whatItIs(stats)}, not a regular file; expected the path of a regular file, or of none yet`
    : undefined;
}

/** Which file this is, as long as it exists and whatever is written to it: its device, inode and birth (an inode
 * freed is soon another file's). */
export const fileIdentity = ({ dev, ino, birthtimeNs }: BigIntStats) => `${dev}:${ino}:${birthtimeNs}`;

/** writeFileDurably in two steps, for a caller that checks something between the write and the rename (`identity`: the
 * file's fileIdentity, which it keeps once renamed). */
export function prepareDurableWrite(target: string, data: FileContent) {
  const notRegular = notRegularReason(target);
  if (notRegular) throw new Error(`cannot write ${target}: ${notRegular}`);
  // 0600: what hedge writes is private.
  const mode = 0o600;
  const dir = dirname(target);
  const temporary = join(dir, `.${basename(target)}.${process.pid}.tmp`);
  // Usually not there: one is left only by a process of this pid that died mid-write.
  unlinkQuietly(temporary);
  const fd = openSync(
    temporary,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
    mode,
  );
  try {
    // The mode given to open is reduced by the umask; fchmod is not.
    fchmodSync(fd, mode);
    const write = (piece: string | Uint8Array) =>
      writeAllSync(fd, typeof piece === 'string' ? Buffer.from(piece, 'utf8') : piece);
    if (typeof data === 'function') data(write);
    else write(data);
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    unlinkQuietly(temporary);
    throw error;
  }
  const identity = fileIdentity(fstatSync(fd, { bigint: true }));
  closeSync(fd);
  return {
    identity,
    commit() {
      try {
        renameSync(temporary, target);
      } catch (error) {
        unlinkQuietly(temporary);
        throw error;
      }
      syncDirectory(dir);
    },
    abandon: () => unlinkQuietly(temporary),
  };
}

/** Writes all of `bytes`: a short write (a full disk) is finished or fails. */
export function writeAllSync(fd: number, bytes: Uint8Array) {
  for (let done = 0; done < bytes.length;) done += writeSync(fd, bytes, done, bytes.length - done);
}

/** Makes a folder's entries durable (a new or renamed file's name is on disk only once its folder is synced). */
export function syncDirectory(dir: string) {
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch {
    // Some file systems cannot sync a folder; the file's own data is already on disk.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Removes a file that may be gone already. */
export function unlinkQuietly(path: string) {
  try {
    unlinkSync(path);
  } catch {
    // Gone already.
  }
}
