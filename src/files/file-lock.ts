// The one cross-process lock on a file, for the journal, the profile store and the demo state:
// proper-lockfile's — a `<file>.lock` folder made atomically beside the file, refreshed while held,
// taken over once its holder stopped refreshing it for `staleMs` (a process killed holding it).
// Waiting for it is asynchronous, never a sleep that blocks the process. proper-lockfile is loaded
// on the first lock, so a command that only reads never loads it (test/unit/startup-imports.test.ts).
//
// One retry formula for every lock: short waits growing from RETRY_MIN_WAIT_MS by RETRY_FACTOR up
// to RETRY_MAX_WAIT_MS (a lock is held for milliseconds, so a waiter must look again soon), then as
// many waits at the cap as make up `waitMs`. The bound is counted in attempts, not read from a
// clock, so a busy machine (where each wait runs long) only makes it longer, never shorter.

/** The first wait between two attempts, in ms. */
const RETRY_MIN_WAIT_MS = 1;
/** The longest wait between two attempts, in ms. */
const RETRY_MAX_WAIT_MS = 25;
/** Each wait is this much longer than the one before, up to the cap. */
const RETRY_FACTOR = 1.3;
/** The attempts the waits take to grow from the first to the cap (1 × 1.3^13 > 25); they add up to ~100 ms. */
const RAMP_ATTEMPTS = Math.ceil(Math.log(RETRY_MAX_WAIT_MS / RETRY_MIN_WAIT_MS) / Math.log(RETRY_FACTOR));

export interface FileLockOptions {
  /** A holder that stopped refreshing its lock this long ago is dead (kill -9) and is taken over. */
  staleMs: number;
  /**
   * How long to wait for a live holder before failing with ELOCKED. By default twice `staleMs`, so
   * that a lock left by a killed process is waited out and taken over instead of failing the action.
   */
  waitMs?: number;
}

/** Releases the lock; a lock already released (judged stale and taken over) is nothing left to release. */
export type ReleaseFileLock = () => Promise<void>;

/** Waits for and takes the lock on `file`. Rejects with proper-lockfile's ELOCKED after `waitMs`; callers name their own error. */
export async function lockFile(file: string, options: FileLockOptions): Promise<ReleaseFileLock> {
  // A CommonJS module: its functions are on the default export when imported dynamically.
  const { default: lockfile } = await import('proper-lockfile');
  const waitMs = options.waitMs ?? options.staleMs * 2;
  const release = await lockfile.lock(file, {
    realpath: false,
    stale: options.staleMs,
    retries: {
      retries: RAMP_ATTEMPTS + Math.ceil(waitMs / RETRY_MAX_WAIT_MS),
      minTimeout: RETRY_MIN_WAIT_MS,
      maxTimeout: RETRY_MAX_WAIT_MS,
      factor: RETRY_FACTOR,
    },
    // A lock found taken over while held: proper-lockfile's default throws from a timer, which would
    // crash the CLI mid-command; what a lock guards cannot tear a file either way.
    onCompromised: () => {},
  });
  return () =>
    release().catch(() => {
      // Released already (the lock was judged stale and taken over): nothing left to release.
    });
}

/** Whether `error` is the lock's "still held by another process after the wait". */
export function isLockedError(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === 'ELOCKED';
}
