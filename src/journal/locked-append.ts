// The only code that writes journal.jsonl. Each append is one write of whole lines, made under a
// lock and fsynced before the promise resolves: the caller may send its request only after that.
import { chmodSync, closeSync, fchmodSync, fsyncSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { lock } from 'proper-lockfile';
import { JournalError } from './journal-error.js';

export const DEFAULT_LOCK_STALE_MS = 10_000;
const RETRY_MAX_WAIT_MS = 50;

export interface LockedAppendOptions {
  /** A lock older than this belongs to a process that died holding it (kill -9) and is taken over. */
  lockStaleMs?: number;
}

/**
 * Under the lock: reads the file as it is now, lets `compose` turn that into the line to add
 * (or throw, and nothing is written), appends it, fsyncs. Returns the file's text after the write.
 */
export async function lockedAppend(
  file: string,
  compose: (current: string) => string,
  options: LockedAppendOptions = {},
): Promise<string> {
  const staleMs = options.lockStaleMs ?? DEFAULT_LOCK_STALE_MS;
  ensureDir(dirname(file));
  const release = await acquire(file, staleMs);
  try {
    const current = readIfPresent(file);
    const line = compose(current ?? '');
    if (line.includes('\n')) throw new JournalError('A journal event must be a single line.');
    // A crash mid-write can leave a last line without its newline: start on a fresh line, so
    // that only the torn line is lost and not this one too.
    const text = `${current && !current.endsWith('\n') ? '\n' : ''}${line}\n`;
    appendDurably(file, text, current === undefined);
    return `${current ?? ''}${text}`;
  } finally {
    await release().catch(() => {
      // Released already (the lock was judged stale and taken over): nothing left to release.
    });
  }
}

async function acquire(file: string, staleMs: number): Promise<() => Promise<void>> {
  try {
    return await lock(file, {
      realpath: false,
      stale: staleMs,
      // Many short waits, adding up to more than staleMs: a lock left by a killed process is
      // waited out and taken over instead of failing the action.
      retries: { retries: Math.ceil((staleMs * 1.5) / RETRY_MAX_WAIT_MS) + 20, minTimeout: 2, maxTimeout: RETRY_MAX_WAIT_MS, factor: 1.5 },
      // Default is to throw from a timer, which would crash the CLI mid-action. The lock guards
      // only a few milliseconds of work whose one O_APPEND write cannot tear a line anyway.
      onCompromised: () => {},
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOCKED') {
      throw new JournalError(`The journal ${file} stayed locked by another hedge process.`, {
        hint: `Try again; if no hedge process is running, remove ${file}.lock.`,
        cause: error,
      });
    }
    throw asJournalError(error, file, 'write');
  }
}

function ensureDir(dir: string): void {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    // The mode given to mkdir is reduced by the umask; chmod is not.
    chmodSync(dir, 0o700);
  } catch (error) {
    throw asJournalError(error, dir, 'write');
  }
}

function readIfPresent(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw asJournalError(error, file, 'read');
  }
}

function appendDurably(file: string, text: string, creating: boolean): void {
  const bytes = Buffer.from(text, 'utf8');
  let fd: number;
  try {
    fd = openSync(file, 'a', 0o600);
  } catch (error) {
    throw asJournalError(error, file, 'write');
  }
  try {
    fchmodSync(fd, 0o600);
    // One write normally; the loop only finishes a short write (a full disk, a signal).
    for (let done = 0; done < bytes.length; ) done += writeSync(fd, bytes, done, bytes.length - done);
    fsyncSync(fd);
  } catch (error) {
    throw asJournalError(error, file, 'write');
  } finally {
    closeSync(fd);
  }
  if (creating) syncDir(dirname(file));
}

/** A new file's name is durable only once its folder is synced too. */
function syncDir(dir: string): void {
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

export function asJournalError(error: unknown, path: string, action: 'read' | 'write'): JournalError {
  if (error instanceof JournalError) return error;
  const code = (error as NodeJS.ErrnoException).code;
  const reason =
    code === 'EACCES' || code === 'EPERM' || code === 'EROFS' ? 'permission denied' : code === 'ENOSPC' ? 'no space left on the disk' : (code ?? (error as Error).message);
  return new JournalError(`Cannot ${action} the action journal ${path}: ${reason}.`, {
    hint:
      action === 'write'
        ? 'Free the disk or fix the folder, or point HEDGE_CONFIG_DIR or XDG_STATE_HOME at a writable one.'
        : 'Check that this user can read the file.',
    cause: error,
  });
}
