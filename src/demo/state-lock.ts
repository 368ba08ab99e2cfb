// The lock around each request of the demo simulator (load → act → save of demo-state.json), so
// parallel `hedge --demo` runs add up instead of the last save winning. The one file lock of hedge
// (files/file-lock.ts, proper-lockfile's, as the journal's): a directory created atomically beside
// the file, refreshed while held, taken over when its holder stopped refreshing it (older than STALE_MS).
//
// A holder that was stopped (SIGSTOP, a suspended laptop, a machine out of CPU) for longer than
// STALE_MS has lost the lock without knowing it: another process took it over. proper-lockfile
// only notices at its next refresh, from a timer, which may run after the stopped holder's save.
// So the holder asks `held()` synchronously right before its save commits (state-file.ts), and a
// lost lock aborts the save instead of overwriting what the new holder wrote; its release then
// leaves the new holder's directory alone.
import { type PathLike, mkdir, realpath, rmdir, stat, statSync, utimes } from 'node:fs';
import { lockFile } from '../files/file-lock.js';
import type { StateFileLockHold } from '../sandbox/state-file.js';

/** A holder that stopped refreshing the lock this long ago is dead (kill -9) and is taken over. */
const STALE_MS = 10_000;
/**
 * held() is false once the lock's last refresh is this close to STALE_MS: a save must not start
 * to commit on a lock another process may take over before the commit is done.
 */
const TAKEOVER_MARGIN_MS = 2_000;

type Callback = (error: NodeJS.ErrnoException | null) => void;

/** Resolves once the lock is this process's; rejects (ELOCKED) after waiting out a stale holder and more. */
export async function lockDemoState(path: string, now: () => number = Date.now): Promise<StateFileLockHold> {
  let compromised = false;
  /**
   * The lock directory's mtime as this holder last left it (proper-lockfile sets it on taking and at
   * each refresh), read back from the file system, which may keep it coarser than it was set.
   */
  let ownMtimeMs: number | undefined;
  /** Set when the directory is no longer ours: releasing then only stops the refreshes. */
  let leaveDirectory = false;
  // proper-lockfile's file system, watched: what it sets is what held() expects to find.
  const lockFs = {
    mkdir,
    stat,
    realpath,
    utimes: (target: PathLike, atime: Date, mtime: Date, callback: Callback) =>
      utimes(target, atime, mtime, (error) => {
        if (error) return callback(error);
        stat(target, (statError, stats) => {
          ownMtimeMs = statError ? undefined : stats.mtimeMs;
          callback(null);
        });
      }),
    rmdir: (target: PathLike, callback: Callback) => (leaveDirectory ? callback(null) : rmdir(target, callback)),
  };
  // The default wait (twice STALE_MS): a lock left by a killed run is waited out rather than failing the request.
  const release = await lockFile(path, {
    staleMs: STALE_MS,
    fs: lockFs,
    // Remembered: the save it guards aborts (held() is false from now on).
    onCompromised: () => {
      compromised = true;
    },
  });
  const directory = `${path}.lock`;
  // A takeover removes the directory and makes another: the inode tells ours from the next one.
  const ownInode = inodeOf(directory);
  /** Whether the directory is still the one this holder made, as it last left it. */
  const ours = (): boolean => {
    if (compromised || ownInode === undefined || ownMtimeMs === undefined) return false;
    let current: { ino: number; mtimeMs: number };
    try {
      current = statSync(directory);
    } catch {
      return false;
    }
    return current.ino === ownInode && current.mtimeMs === ownMtimeMs;
  };
  return {
    held: () => ours() && now() - ownMtimeMs! < STALE_MS - TAKEOVER_MARGIN_MS,
    release: async () => {
      // Removing a directory another process made would release *its* lock.
      if (!ours()) leaveDirectory = true;
      await release();
    },
  };
}

function inodeOf(directory: string): number | undefined {
  try {
    return statSync(directory).ino;
  } catch {
    return undefined;
  }
}
