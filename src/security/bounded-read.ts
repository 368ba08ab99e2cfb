// How hedge reads what it is handed to read (a target, exposures or policy file, stdin for `-`, an
// agent's target file, a key piped to `login`): the one place that decides what may be read and how
// much of it.
//   - A path must name a regular file. A FIFO would block the open and then wait for a writer that
//     may never come; a device never ends (/dev/zero); a directory or a socket is not text. It is
//     judged before it is opened (stat), opened without blocking (O_NONBLOCK: a FIFO swapped in
//     after the stat opens at once) and judged again on the opened handle, which must be the file
//     that was judged (same inode).
//   - At most `maxBytes` are read: a file that says it is larger is refused before it is opened, and
//     one that grows (or lies about its size) is refused when the read passes the bound, never read
//     whole. A stream (stdin) is read to the same kind of bound, then let go.
//   - Every read stops when its AbortSignal fires (--timeout, Ctrl-C, SIGTERM): the promise rejects
//     with the signal's reason at once, and a stream is destroyed so that the process can end.
import { constants, type Stats } from 'node:fs';
import { lstat, open, stat } from 'node:fs/promises';

/**
 * The most an input file of the CLI (target, exposures, policy; stdin for `-`) may hold: a target
 * book of a few thousand rows is a few hundred KB; 4 MiB is some 180,000 target rows or 75,000
 * exposures, and still reads and checks in a few seconds.
 */
export const MAX_INPUT_FILE_BYTES = 4 * 1024 * 1024;

/** Why a read was refused; `describeRefusal` says it in words. */
export type ReadRefusal =
  | {
      kind: 'not-regular';
      found: 'a FIFO (named pipe)' | 'a device' | 'a directory' | 'a socket' | 'not a regular file';
    }
  | { kind: 'too-large'; maxBytes: number }
  | { kind: 'changed' };

export class ReadRefused extends Error {
  constructor(readonly refusal: ReadRefusal) {
    super(describeRefusal(refusal));
  }
}

/** `it is a FIFO (named pipe), not a regular file`, `it holds more than 4 MiB`, … */
function describeRefusal(refusal: ReadRefusal): string {
  switch (refusal.kind) {
    case 'not-regular':
      return refusal.found === 'not a regular file'
        ? 'it is not a regular file'
        : `it is ${refusal.found}, not a regular file`;
    case 'too-large':
      return `it holds more than ${sizeInWords(refusal.maxBytes)}`;
    case 'changed':
      return 'it changed while it was being opened';
  }
}

/** 4194304 → `4 MiB`, 1048576 → `1 MiB`, 4096 → `4 KiB`, 100 → `100 bytes`. */
export function sizeInWords(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

/** An errno as a person reads it: `no such file`, `permission denied`, … */
export function describeReadError(error: unknown): string {
  if (error instanceof ReadRefused) return error.message;
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case 'ENOENT':
      return 'no such file';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'ELOOP':
      return 'a symbolic link where a file was expected';
    case 'EISDIR':
      return 'it is a directory';
    case 'ENOTDIR':
      return 'a part of the path is not a directory';
    case 'ENXIO':
      return 'it is a socket or a device with nothing behind it, not a regular file';
    default:
      return String(code ?? 'unknown error');
  }
}

export interface BoundedReadOptions {
  maxBytes: number;
  /** Stops the read: the promise rejects with the signal's reason. */
  signal?: AbortSignal;
}

function kindOf(stats: Stats): ReadRefusal | undefined {
  if (stats.isFile()) return undefined;
  const found = stats.isFIFO()
    ? 'a FIFO (named pipe)'
    : stats.isCharacterDevice() || stats.isBlockDevice()
      ? 'a device'
      : stats.isDirectory()
        ? 'a directory'
        : stats.isSocket()
          ? 'a socket'
          : 'not a regular file';
  return { kind: 'not-regular', found };
}

/** The read, or the signal's reason as soon as it fires; `onAbort` lets go of what the read holds. */
function untilAborted<T>(signal: AbortSignal | undefined, work: () => Promise<T>, onAbort?: () => void): Promise<T> {
  if (!signal) return work();
  if (signal.aborted) {
    onAbort?.();
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const stop = () => {
      onAbort?.();
      reject(signal.reason);
    };
    signal.addEventListener('abort', stop, { once: true });
    work()
      .then(resolve, reject)
      .finally(() => signal.removeEventListener('abort', stop));
  });
}

/** Reads in pieces of this size, so that a signal is seen between them. */
const PIECE_BYTES = 256 * 1024;

/**
 * The bytes of a regular file at `path`, at most `maxBytes`. `noFollow`: a symbolic link at the
 * last step is refused (ELOOP) instead of followed (the agent's reader, which judged the real path).
 * Rejects with ReadRefused, an errno error, or the signal's reason.
 */
export function readRegularFile(path: string, options: BoundedReadOptions & { noFollow?: boolean }): Promise<Buffer> {
  const { maxBytes, signal } = options;
  return untilAborted(signal, async () => {
    const before = await (options.noFollow ? lstat : stat)(path);
    const refusal = kindOf(before) ?? (before.size > maxBytes ? { kind: 'too-large' as const, maxBytes } : undefined);
    if (refusal) throw new ReadRefused(refusal);
    const handle = await open(
      path,
      constants.O_RDONLY | constants.O_NONBLOCK | (options.noFollow ? constants.O_NOFOLLOW : 0),
    );
    try {
      const opened = await handle.stat();
      const openedRefusal = kindOf(opened);
      if (openedRefusal) throw new ReadRefused(openedRefusal);
      if (opened.ino !== before.ino || opened.dev !== before.dev) throw new ReadRefused({ kind: 'changed' });
      const pieces: Buffer[] = [];
      let total = 0;
      for (;;) {
        signal?.throwIfAborted();
        // One byte past the bound is enough to tell that the file is over it.
        const piece = Buffer.allocUnsafe(Math.min(PIECE_BYTES, maxBytes + 1 - total));
        const { bytesRead } = await handle.read(piece, 0, piece.length, null);
        if (bytesRead === 0) break;
        pieces.push(piece.subarray(0, bytesRead));
        total += bytesRead;
        if (total > maxBytes) throw new ReadRefused({ kind: 'too-large', maxBytes });
      }
      return Buffer.concat(pieces, total);
    } finally {
      await handle.close();
    }
  });
}

/**
 * A stream's bytes up to its end, at most `maxBytes`: past the bound it is refused (ReadRefused) and
 * the stream destroyed, as it is when the signal fires (a pipe held open must not keep the process).
 */
export function readBoundedStream(stream: NodeJS.ReadableStream, options: BoundedReadOptions): Promise<Buffer> {
  const { maxBytes, signal } = options;
  const letGo = () => (stream as NodeJS.ReadableStream & { destroy?: () => void }).destroy?.();
  return untilAborted(
    signal,
    async () => {
      const chunks: Buffer[] = [];
      let total = 0;
      for await (const chunk of stream) {
        const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
        total += buffer.length;
        if (total > maxBytes) {
          letGo();
          throw new ReadRefused({ kind: 'too-large', maxBytes });
        }
        chunks.push(buffer);
      }
      return Buffer.concat(chunks, total);
    },
    letGo,
  );
}
