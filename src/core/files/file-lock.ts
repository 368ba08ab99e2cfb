// The one file lock (proper-lockfile, waited for with the one poll), and a hold's holder judged by liveness,
// never by age. Every hold is taken through platform/journal/journal.ts (namedHolds).
import * as z from 'zod/mini';
import { readFileSync } from 'node:fs';
import { poll } from '../process/timers.js';

/** The longest sleep between two tries of a busy file lock: what it guards takes milliseconds. */
const RETRY_CAP_MS = 25;

interface FileLockOptions {
  staleMs: number;
  /** The wait for a live holder before ELOCKED; twice `staleMs` by default, so a dead holder's lock is waited out. */
  waitMs?: number;
  /** The injected clock's sleep (the one sleep when none is given). */
  sleep?: (ms: number) => Promise<unknown>;
}

export async function lockFile(file: string, options: FileLockOptions) {
  const { default: lockfile } = await import('proper-lockfile');
  let busy: unknown;
  const release = await poll(
    () =>
      lockfile
        // The default onCompromised throws from a timer, crashing the CLI mid-command; what a lock guards cannot tear a file.
        .lock(file, { realpath: false, stale: options.staleMs, retries: 0, onCompromised: () => {} })
        .catch((error: unknown) => {
          if (!isLockedError(error)) throw error;
          busy = error;
          return undefined;
        }),
    (taken) => taken !== undefined,
    { waitMs: options.waitMs ?? options.staleMs * 2, capMs: RETRY_CAP_MS, sleep: options.sleep },
  );
  if (!release) throw busy;
  // Released already means taken over as stale: nothing left to release.
  return () => release().catch(() => {});
}

export function isLockedError(error: unknown) {
  return (error as NodeJS.ErrnoException | undefined)?.code === 'ELOCKED';
}

/** A holder as others are told of it: parsing one drops what its record keeps besides (file records' `start`). */
export const HOLDER = z.object({ pid: z.number(), host: z.string(), since: z.string(), session: z.string() });

export type Holder = z.infer<typeof HOLDER>;

/** A Holder as the local files record it: with `<boot id>:<start ticks>`, which tells a reused pid apart. */
export interface RecordedHolder extends Holder {
  start?: string;
}

export function newSession() {
  return process.getBuiltinModule('node:crypto').randomBytes(6).toString('hex');
}

let boot: string | undefined;
let ownStart: string | undefined | null = null;

/** `<boot id>:<start ticks>`, or undefined where /proc does not say. */
export function processStart(pid: number) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: count fields after its last ')'.
    const ticks = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
    if (!ticks) return;
    boot ??= readOr('/proc/sys/kernel/random/boot_id');
    return `${boot}:${ticks}`;
  } catch {
    // No /proc to read (not Linux), or the process is gone: nothing to say.
  }
}

function readOr(path: string) {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return '';
  }
}

function hostname() {
  return process.getBuiltinModule('node:os').hostname();
}

export function currentHolder(nowMs: number, session: string) {
  if (ownStart === null) ownStart = processStart(process.pid);
  return {
    pid: process.pid,
    host: hostname(),
    since: new Date(nowMs).toISOString(),
    session,
    ...(ownStart && { start: ownStart }),
  };
}

/** The one liveness: true while the holding process runs, or cannot be checked (another host). */
export function isAlive({ pid, host, start }: Pick<RecordedHolder, 'pid' | 'host' | 'start'>) {
  if (host !== hostname()) return true;
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: it runs, as another user.
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  if (start === undefined) return true;
  const running = processStart(pid);
  // No /proc (another system) says nothing either way: the pid exists.
  return running === undefined || running === start;
}
