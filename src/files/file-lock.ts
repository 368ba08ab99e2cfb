// The one lock of hedge on a file (the journal, the profile store, the demo state): proper-lockfile's
// `<file>.lock` folder, taken over once its holder stopped refreshing it for `staleMs` (kill -9).
// Also who holds what, judged by liveness (the pid lives, with the same start since the same boot),
// never by age: a long wait or a busy machine never makes a live holder look dead.
// proper-lockfile, node:crypto and node:os load on first use, so a command that only reads pays for none.
import { readFileSync } from 'node:fs';

// Waits grow from 1 ms by ×1.3 to 25 ms (a lock is held for milliseconds), then stay at the cap
// until `waitMs`; counted in attempts, so a busy machine only makes the bound longer.
const RETRY_MIN_WAIT_MS = 1;
const RETRY_MAX_WAIT_MS = 25;
const RETRY_FACTOR = 1.3;
const RAMP_ATTEMPTS = Math.ceil(Math.log(RETRY_MAX_WAIT_MS / RETRY_MIN_WAIT_MS) / Math.log(RETRY_FACTOR));

export interface FileLockOptions {
  /** A holder that stopped refreshing its lock this long ago is dead and is taken over. */
  staleMs: number;
  /** The wait for a live holder before ELOCKED; twice `staleMs` by default, so a dead holder's lock is waited out. */
  waitMs?: number;
}

/** Waits for and takes the lock on `file`; rejects with proper-lockfile's ELOCKED after `waitMs`. Resolves to its release. */
export async function lockFile(file: string, options: FileLockOptions): Promise<() => Promise<void>> {
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
    // The default throws from a timer, crashing the CLI mid-command; what a lock guards cannot tear a file.
    onCompromised: () => {},
  });
  // Released already means taken over as stale: nothing left to release.
  return () => release().catch(() => {});
}

export function isLockedError(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === 'ELOCKED';
}

export interface Holder {
  pid: number;
  host: string;
  /** ISO time the hold was taken. */
  since: string;
  /** Random id of the holding session (one per journal opened). */
  session: string;
}

/** A Holder as the local files record it: with `<boot id>:<start ticks>`, which tells a reused pid apart. */
export interface RecordedHolder extends Holder {
  start?: string;
}

export function newSession(): string {
  return process.getBuiltinModule('node:crypto').randomBytes(6).toString('hex');
}

let boot: string | undefined;
let ownStart: string | undefined | null = null;

/** `<boot id>:<start time in clock ticks since boot>` of a process, or undefined where /proc does not say. */
export function processStart(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: count fields after its last ')'.
    const ticks = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
    if (!ticks) return undefined;
    boot ??= readOr('/proc/sys/kernel/random/boot_id');
    return `${boot}:${ticks}`;
  } catch {
    return undefined;
  }
}

function readOr(path: string): string {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return '';
  }
}

function hostname(): string {
  return process.getBuiltinModule('node:os').hostname();
}

/** This process as the holder for `session`, the hold taken at `nowMs`. */
export function currentHolder(nowMs: number, session: string): RecordedHolder {
  if (ownStart === null) ownStart = processStart(process.pid);
  return {
    pid: process.pid,
    host: hostname(),
    since: new Date(nowMs).toISOString(),
    session,
    ...(ownStart ? { start: ownStart } : {}),
  };
}

/** True while the holding process runs, or cannot be checked (another host). */
export function isAlive(holder: RecordedHolder): boolean {
  if (holder.host !== hostname()) return true;
  if (!Number.isSafeInteger(holder.pid) || holder.pid <= 0) return false;
  try {
    process.kill(holder.pid, 0);
  } catch (error) {
    // EPERM: it exists, under another user.
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  if (holder.start === undefined) return true;
  const start = processStart(holder.pid);
  // No /proc (another system) says nothing either way: the pid exists.
  return start === undefined || start === holder.start;
}

export function isRecordedHolder(value: unknown): value is RecordedHolder {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  return (
    typeof record.pid === 'number' &&
    typeof record.host === 'string' &&
    typeof record.session === 'string' &&
    typeof record.since === 'string'
  );
}

/** Without the start token, which stays in the files. */
export function publicHolder({ pid, host, since, session }: RecordedHolder): Holder {
  return { pid, host, since, session };
}
