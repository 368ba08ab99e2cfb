// How hedge reads a file, and where it writes one a person named (an `--html` report): what it is handed to read (a target, exposures or policy file, stdin for `-`, an agent's target file, a key piped to `login`) and what it keeps or trusts (the config store, a CA file, the journal, the folders they live in): the one place that decides what may be read and how much of it.
import { OutputError, StateError, UsageError } from '../errors.js';
import {
  accessSync,
  closeSync,
  constants,
  fchmodSync,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readSync,
  realpathSync,
  statSync,
  type Stats,
} from 'node:fs';
import { userInfo } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { notRegularReason, whatItIs, writeFileDurably, type FileContent } from '../files/durable-write.js';

/** The most an input file of the CLI (target, exposures, policy; stdin for `-`), the config store or a CA file may hold: a target book of a few thousand rows is a few hundred KB; 4 MiB is some 180,000 target rows or 75,000 exposures, and still reads and checks in a few seconds. */
export const MAX_INPUT_FILE_BYTES = 4 * 1024 * 1024;

export class ReadRefused extends Error {
  constructor(
    readonly kind: 'not-regular' | 'too-large' | 'not-yours' | 'open-to-others',
    message: string,
  ) {
    super(message);
  }
}

const tooLarge = (maxBytes: number) => new ReadRefused('too-large', `it holds more than ${sizeInWords(maxBytes)}`);

export function sizeInWords(bytes: number) {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

const READ_ERRORS: Record<string, string> = {
  ENOENT: 'no such file',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  ELOOP: 'a symbolic link where a file was expected',
  EISDIR: 'it is a directory',
  ENOTDIR: 'a part of the path is not a directory',
  ENXIO: 'it is a socket or a device with nothing behind it, not a regular file',
  EROFS: 'the file system is read-only',
  ENOSPC: 'no space left on the disk',
  EEXIST: 'something is in the way of its temporary file',
};

export function describeReadError(error: unknown) {
  if (error instanceof ReadRefused) return error.message;
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === 'string' && Object.hasOwn(READ_ERRORS, code)
    ? READ_ERRORS[code]
    : String(code ?? (error as Error | undefined)?.message ?? 'unknown error');
}

export interface FileReading {
  maxBytes: number;
  noFollow?: boolean;
  /** `trusted`: the file steers hedge (a CA file, the journal), so only its owner, this user or root, may change it; `private`: it may hold a secret (the config store), so only its owner may read it; `steering`: it steers trades (a target, exposures or policy file, an `--input`), so it is trusted only as the journal is: this user's or root's, no other user may change it, and none its folder. */
  guard?: 'trusted' | 'private' | 'steering';
}

const PIECE_BYTES = 256 * 1024;

/** Throws why this file (judged by path, or already open: the journal to append) may not be read as `reading` asks. */
function refuseUnfit(stats: Stats, { maxBytes, guard }: FileReading, path: string) {
  if (!stats.isFile()) throw new ReadRefused('not-regular', `it is ${whatItIs(stats)}, not a regular file`);
  if (stats.size > maxBytes) throw tooLarge(maxBytes);
  if (guard) refuseOthers(stats, guard, path);
}

/** Whether this user (or root) owns the entry; anything is, where there are no owners (Windows). */
const mine = (stats: Stats) => {
  const uid = process.geteuid?.();
  return uid === undefined || stats.uid === uid || stats.uid === 0;
};

/** Throws unless only its owner, this user or root, may change it (and, `private`, read it): root too trusts no other user's file or folder. `what`: how messages name it. */
function refuseOthers(stats: Stats, guard: NonNullable<FileReading['guard']> | 'folder', path: string, what = 'it') {
  const uid = process.geteuid?.();
  // Windows has neither owners nor modes here.
  if (uid === undefined) return;
  const folder = guard === 'folder';
  if (!mine(stats))
    throw new ReadRefused(
      'not-yours',
      `${what} belongs to another user (uid ${stats.uid}), who may change it; ${folder || guard === 'steering' ? `run \`chown ${userName(uid)} ${path}\`` : "hedge trusts only files of yours or root's"}`,
    );
  const secret = guard === 'private';
  if (!(stats.mode & (secret ? 0o077 : 0o022))) return;
  const mode = `mode ${(stats.mode & 0o7777).toString(8).padStart(4, '0')}`;
  // A shared folder such as /tmp (sticky) stays open to all: the fix is another folder, not its mode.
  const fix =
    stats.isDirectory() && stats.mode & 0o1000
      ? 'use a folder only you can change'
      : `run \`chmod ${secret ? '600' : folder ? '700' : 'go-w'} ${path}\``;
  throw new ReadRefused(
    'open-to-others',
    `other users can ${secret ? 'read or change' : 'change'} ${what} (${mode}); ${fix}`,
  );
}

/** Throws (ReadRefused) unless the folder `path` is in is one a steering file may be read from or hedge may write a
 * file into: this user's or root's, and no other user may change it (whoever may could swap the file), or it is
 * sticky (/tmp) and what is at `path` is this user's or root's, or nothing yet (made with O_EXCL, or renamed into
 * place): there no other user may rename or remove it. A file read through a link is judged at both folders; a write
 * replaces what is there, so only its own folder counts. */
function refuseOpenFolderOf(path: string, followed = true) {
  const places = [{ folder: dirname(path), entry: lstatSync(path, { throwIfNoEntry: false }) }];
  if (followed)
    try {
      const real = realpathSync(path);
      places.push({ folder: dirname(real), entry: statSync(real) });
    } catch {
      // Its folder as named is the one.
    }
  for (const { folder, entry } of places) {
    const stats = statSync(folder);
    const named = `its folder ${folder}`;
    if (!(stats.mode & 0o1000 && mine(stats))) refuseOthers(stats, 'steering', folder, named);
    else if (entry && !mine(entry))
      throw new ReadRefused(
        'not-yours',
        `${named} is open to all (sticky) and what is there belongs to another user (uid ${entry.uid}); use a file of yours`,
      );
  }
}

/** Refuses (exit 2, naming `what`, the file and what is allowed) a file a person asked hedge to write (an `--html`
 * report) where the write is not safe or not possible: under /dev, /proc or /sys; over something that is not a
 * regular file (a link, a device, a FIFO, a socket) or a file of another user's; into a folder another user owns or
 * may change (they could plant a link there, or swap the file once written), a sticky one excepted; or one this user
 * may not write. */
export function refuseToWriteAt(path: string, what: string) {
  try {
    const area = systemAreaOf(path);
    if (area) throw new ReadRefused('not-regular', area);
    refuseOpenFolderOf(path, false);
    const notRegular = notRegularReason(path);
    if (notRegular) throw new ReadRefused('not-regular', notRegular);
    const there = lstatSync(path, { throwIfNoEntry: false });
    const uid = process.geteuid?.();
    if (there && uid !== undefined && there.uid !== uid)
      throw new ReadRefused('not-yours', `it belongs to another user (uid ${there.uid}); expected a file of yours`);
    accessSync(dirname(path), constants.W_OK);
  } catch (error) {
    throw new UsageError(`${what}: cannot write ${path}: ${describeReadError(error)}; nothing was written.`);
  }
}

/** Devices and the kernel's own views: no file a person names is written there, whatever link leads there. */
const SYSTEM_AREAS = ['/dev', '/proc', '/sys'];

/** Why `path` is no place for a file (under /dev, /proc or /sys, its folder's links followed), or undefined. */
function systemAreaOf(path: string) {
  const named = resolve(path);
  let real = named;
  try {
    real = join(realpathSync(dirname(named)), basename(named));
  } catch {
    // No such folder: the write itself says so.
  }
  const area = SYSTEM_AREAS.find((under) => [named, real].some((at) => `${at}/`.startsWith(`${under}/`)));
  return area && `it is under ${area}, where hedge writes no file; expected a path outside /dev, /proc and /sys`;
}

/** A file a person named that could not be written once judged fit (a full disk; another user's file planted there
 * since): one line, exit 1 as a lost stdout, never an unexpected failure. */
export function cannotWrite(path: string, what: string, error: unknown) {
  return new OutputError(`${what}: cannot write ${path}: ${describeReadError(error)}; nothing was written.`);
}

/** Writes a file a person named: judged as refuseToWriteAt does, then the one durable write (a temporary file beside
 * it, made with O_EXCL and O_NOFOLLOW, renamed over it), so that nothing planted there is followed. */
export function writeNamedFile(path: string, content: FileContent, what: string) {
  refuseToWriteAt(path, what);
  try {
    writeFileDurably(path, content);
  } catch (error) {
    throw cannotWrite(path, what, error);
  }
}

function userName(uid: number) {
  try {
    return userInfo().username;
  } catch {
    // A uid with no name in the password database.
    return String(uid);
  }
}

/** Refuses (exit 2, naming it and the fix) a folder that holds or steers the key — the config folder, the journal's, the state folder — when another user owns it or may change what is in it; one not there yet passes (makePrivateDir makes it). */
export function refuseUntrustedFolder(path: string) {
  let stats: Stats;
  try {
    // A link of this user's (a dotfiles link, HEDGE_CONFIG_DIR) is judged by the folder it names.
    stats = statSync(path);
  } catch {
    // Not there, or not reachable: whoever uses it next says why.
    return;
  }
  trustFolder(stats, path);
}

function trustFolder(stats: Stats, path: string) {
  try {
    refuseOthers(stats, 'folder', path);
  } catch (error) {
    throw new UsageError(`Cannot use the folder ${path}: ${describeReadError(error)}.`);
  }
}

/** Refuses (exit 13, one line naming it) a folder hedge keeps things in that is a file, or lies under one: nothing can be
 * kept there, and making it would fail on the runtime's words. `source`: where the folder's name comes from. */
export function refuseFileAsFolder(dir: string, source?: string) {
  let what: string | undefined;
  try {
    if (statSync(dir, { throwIfNoEntry: false })?.isDirectory() === false) what = 'is a file';
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOTDIR') return;
    // The file in its way: the nearest of its parents that is one.
    const isFile = (path: string) => {
      try {
        return statSync(path).isFile();
      } catch {
        return false;
      }
    };
    let file = dirname(dir);
    while (file !== dirname(file) && !isFile(file)) file = dirname(file);
    what = `lies under a file (${file})`;
  }
  if (what)
    throw new StateError(
      `Cannot use the folder ${dir}${source ? ` (${source})` : ''}: it ${what}, not a folder; name a folder (one that is missing is made).`,
    );
}

/** Makes `dir` (and its parents) 0700 where missing; one that is there is used only when refuseUntrustedFolder trusts it, then tightened to 0700. `inside`: made inside a folder hedge uses, which is judged too, and never through a link. */
export function makePrivateDir(dir: string, { inside }: { inside?: boolean } = {}) {
  // Judged before anything is made in it.
  if (inside) refuseUntrustedFolder(dirname(dir));
  refuseFileAsFolder(dir);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  // Windows has no modes, and opens no folder.
  if (process.platform === 'win32') return;
  // (Linux answers a link opened with O_DIRECTORY and O_NOFOLLOW with ENOTDIR, not ELOOP.)
  const fd = openSync(dir, constants.O_RDONLY | (inside ? constants.O_NOFOLLOW : constants.O_DIRECTORY));
  try {
    // Judged before the chmod: another user's folder is refused, never made to look private.
    trustFolder(fstatSync(fd), dir);
    fchmodSync(fd, 0o700);
  } finally {
    closeSync(fd);
  }
}

/** A regular file at `path`, judged before and after it is opened, open for reading: nothing it opens can block. `append`: open to append and read (the journal), created 0600 when missing, so judged only once open, then made 0600. */
export function openRegularFileSync(path: string, reading: FileReading, append?: boolean) {
  if (!append) {
    const before = (reading.noFollow ? lstatSync : statSync)(path);
    // A link not to be followed is refused by the open itself (ELOOP).
    if (!before.isSymbolicLink()) refuseUnfit(before, reading, path);
  }
  const fd = openSync(
    path,
    (append ? constants.O_RDWR | constants.O_APPEND | constants.O_CREAT : constants.O_RDONLY) |
      constants.O_NONBLOCK |
      (reading.noFollow ? constants.O_NOFOLLOW : 0),
    0o600,
  );
  try {
    refuseUnfit(fstatSync(fd), reading, path);
    if (reading.guard === 'steering') refuseOpenFolderOf(path);
    if (append) fchmodSync(fd, 0o600);
  } catch (error) {
    closeSync(fd);
    throw error;
  }
  return fd;
}

/** The bytes of a regular file at `path`, at most `maxBytes`, read at once: nothing it may open can block. */
export function readRegularFileSync(path: string, reading: FileReading) {
  const fd = openRegularFileSync(path, reading);
  try {
    const pieces = [];
    let total = 0;
    for (;;) {
      // One byte past the bound is enough to tell that the file is over it.
      const piece = Buffer.allocUnsafe(Math.min(PIECE_BYTES, reading.maxBytes + 1 - total));
      const bytesRead = readSync(fd, piece, 0, piece.length, null);
      if (bytesRead === 0) break;
      pieces.push(piece.subarray(0, bytesRead));
      total += bytesRead;
      if (total > reading.maxBytes) throw tooLarge(reading.maxBytes);
    }
    return Buffer.concat(pieces, total);
  } finally {
    closeSync(fd);
  }
}

/** A CA file's text (HEDGE_CA_FILE, a profile's ca_file, NODE_EXTRA_CA_CERTS beside them): it decides whom the key is sent to, so only its owner may change it, and a link (which another could point elsewhere) is not followed. */
export function readCaFile(path: string, what: string) {
  let text: string;
  try {
    text = readRegularFileSync(path, { maxBytes: MAX_INPUT_FILE_BYTES, noFollow: true, guard: 'trusted' }).toString(
      'utf8',
    );
  } catch (error) {
    throw new UsageError(`${what}: cannot read ${path}: ${describeReadError(error)}; nothing was sent.`);
  }
  // TLS ignores what is not a certificate: the server would then read as untrusted, a network failure.
  if (!text.includes('-----BEGIN CERTIFICATE-----'))
    throw new UsageError(
      `${what}: ${path} is not a PEM certificate file (no BEGIN CERTIFICATE block); nothing was sent.`,
    );
  return text;
}

/** The read is synchronous: a signal that fired before it starts stops it. */
export async function readRegularFile(path: string, options: FileReading & { signal?: AbortSignal }) {
  options.signal?.throwIfAborted();
  return readRegularFileSync(path, options);
}

/** A stream's bytes up to its end, at most `maxBytes`: past the bound it is refused (ReadRefused) and the stream destroyed, as it is when the signal fires (a pipe held open must not keep the process). */
export function readBoundedStream(
  stream: NodeJS.ReadableStream,
  { maxBytes, signal }: { maxBytes: number; signal?: AbortSignal },
) {
  const letGo = () => (stream as NodeJS.ReadableStream & { destroy?: () => void }).destroy?.();
  const read = async () => {
    const chunks = [];
    let total = 0;
    for await (const chunk of stream) {
      const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      total += buffer.length;
      if (total > maxBytes) {
        letGo();
        throw tooLarge(maxBytes);
      }
      chunks.push(buffer);
    }
    return Buffer.concat(chunks, total);
  };
  // The read, or the signal's reason as soon as it fires, letting go of the stream.
  return new Promise<Buffer>((resolve, reject) => {
    const stop = () => {
      letGo();
      reject(signal?.reason);
    };
    if (signal?.aborted) return stop();
    signal?.addEventListener('abort', stop, { once: true });
    read()
      .then(resolve, reject)
      .finally(() => signal?.removeEventListener('abort', stop));
  });
}
