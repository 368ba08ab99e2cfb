// Per-account locks of the local journal: "read the book → decide → send → see it land" runs
// while holding one (apply, roll, open --ref). A lock is a small record file under
// `<journal dir>/locks/`, named by a hash of its scope, holding the Holder; it is taken, checked
// and released only under the journal lock, so two processes never both take it, and a holder
// that died (kill -9 included) is replaced at once (holder.ts decides liveness from the pid, the
// process's start time and the host — never from age). The file of a process that exits normally
// is removed on exit.
import { createHash } from 'node:crypto';
import { unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { isAlive, isRecordedHolder, publicHolder, type Holder, type RecordedHolder } from './holder.js';
import { ensureDir, readSegment, replaceFileDurably } from './segments.js';

export const LOCKS_DIR_NAME = 'locks';

export interface LockRecord {
  scope: string;
  holder: RecordedHolder;
}

export function lockFile(dir: string, scope: string): string {
  return join(dir, LOCKS_DIR_NAME, `${createHash('sha256').update(scope, 'utf8').digest('hex').slice(0, 24)}.json`);
}

export function readLock(path: string): LockRecord | undefined {
  const text = readSegment(path);
  if (text === undefined || text.trim() === '') return undefined;
  try {
    const value = JSON.parse(text) as Partial<LockRecord>;
    return typeof value.scope === 'string' && isRecordedHolder(value.holder) ? (value as LockRecord) : undefined;
  } catch {
    // A record cut short by a crash holds nobody.
    return undefined;
  }
}

/** Under the journal lock: takes the lock for `holder`, or names the live holder that has it. */
export function claimLock(
  dir: string,
  scope: string,
  holder: RecordedHolder,
): { held: true } | { held: false; holder: Holder } {
  // First: a `locks` that is a link is refused before anything is read or written through it.
  ensureDir(join(dir, LOCKS_DIR_NAME), { inside: true });
  const path = lockFile(dir, scope);
  const existing = readLock(path);
  if (existing && isAlive(existing.holder)) return { held: false, holder: publicHolder(existing.holder) };
  replaceFileDurably(path, JSON.stringify({ scope, holder } satisfies LockRecord));
  heldHere.add(path);
  return { held: true };
}

/** Under the journal lock (or at exit): removes the lock if `session` still holds it. */
export function dropLock(dir: string, scope: string, session: string): void {
  const path = lockFile(dir, scope);
  const existing = readLock(path);
  if (existing?.holder.session !== session || existing.holder.pid !== process.pid) return;
  try {
    unlinkSync(path);
  } catch {
    // Gone already.
  }
  heldHere.delete(path);
}

// Lock files this process holds, removed when it exits normally (a crash is caught by liveness).
const heldHere = new Set<string>();
const sessionsHere = new Set<string>();
let exitHook = false;

export function removeOnExit(session: string): void {
  sessionsHere.add(session);
  if (exitHook) return;
  exitHook = true;
  process.once('exit', () => {
    for (const path of heldHere) {
      try {
        const existing = readLock(path);
        if (existing && existing.holder.pid === process.pid && sessionsHere.has(existing.holder.session))
          unlinkSync(path);
      } catch {
        // Best effort: a file left behind names a dead process, which the next taker replaces.
      }
    }
  });
}
