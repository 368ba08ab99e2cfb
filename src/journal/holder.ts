// Who holds a journal entry or an account lock, and whether that process still lives.
//
// A hold is a record {pid, host, since, session} (plus, on Linux, the process's start time and
// the machine's boot id). It dies with its process, kill -9 included, because liveness is checked
// and never guessed from time: on the same host the pid must exist (kill(pid, 0)) and, where
// /proc tells it, have the same start time since the same boot, so a pid reused by another
// process is not taken for the holder. Nothing has to be refreshed while the holder runs, so a
// long wait (or a busy machine) never makes a live holder look dead. A holder on another host
// cannot be checked from here and counts as live.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { utcSecond } from '../domain/utc-text.js';

export interface Holder {
  pid: number;
  host: string;
  /** ISO time the hold was taken. */
  since: string;
  /** Random id of the holding process (one per process). */
  session: string;
}

/** What the local file journal stores: a Holder, plus the start token that tells a reused pid apart. */
export interface RecordedHolder extends Holder {
  /** `<boot id>:<start ticks>` from /proc, when the system has it. */
  start?: string;
}

/** A fresh session id: one per journal opened (each command in a process has its own). */
export function newSession(): string {
  return randomBytes(6).toString('hex');
}

let ownStart: string | undefined | null = null;

/** `<boot id>:<start time in clock ticks since boot>` of a process, or undefined where /proc does not say. */
export function processStart(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: count fields after its last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = fields[19];
    if (!ticks) return undefined;
    return `${bootId() ?? ''}:${ticks}`;
  } catch {
    return undefined;
  }
}

let boot: string | undefined | null = null;
function bootId(): string | undefined {
  if (boot === null) {
    try {
      boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    } catch {
      boot = undefined;
    }
  }
  return boot;
}

/** This process as a holder for `session`, the hold taken at `nowMs`. */
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

/** True while the holding process runs (or cannot be checked: another host). */
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
  // /proc gone (another system) says nothing either way: the pid exists, so it counts as live.
  return start === undefined || start === holder.start;
}

/** The public shape of a recorded holder (the start token stays inside the journal). */
export function publicHolder(holder: RecordedHolder): Holder {
  return { pid: holder.pid, host: holder.host, since: holder.since, session: holder.session };
}

/** "pid 4242 on desk-3 since 10:42:03 UTC" */
export function describeHolder(holder: Holder): string {
  const since =
    typeof holder.since === 'string' && holder.since.length >= 19
      ? `${utcSecond(holder.since)} UTC`
      : String(holder.since);
  return `pid ${holder.pid} on ${holder.host} since ${since}`;
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

/** Who last held an entry, as its record names them (for a finished one: who finished it); or nobody known. */
export function lastHolderOf(entry: { holder?: Holder | null; updated_at: string }): Holder {
  return isRecordedHolder(entry.holder)
    ? publicHolder(entry.holder)
    : { pid: 0, host: 'unknown', since: entry.updated_at, session: '' };
}
