// The local file's locker (backend.ts, LockerClient). An entry's hold is its record's `holder`:
// taken by appending a holder event under the journal lock, ended by a final outcome (which the
// record shows) or a release. An account lock is a record file under `locks/` (account-locks.ts),
// taken and released under the journal lock too. A holder counts while its process lives
// (holder.ts), never judged by age.
import type { HoldResult, LockerClient } from './backend.js';
import { claimLock, dropLock, lockFile, readLock, removeOnExit } from './account-locks.js';
import { holdOf } from './client-journal.js';
import { foldJournal, isUnresolved, type JournalEntry, type SkippedLine } from './entry.js';
import {
  currentHolder,
  isAlive,
  isRecordedHolder,
  lastHolderOf,
  publicHolder,
  type Holder,
  type RecordedHolder,
} from './holder.js';
import { JournalError } from './journal-error.js';
import { DEFAULT_LOCK_STALE_MS, lockedAppend, withJournalLock, type LockedAppendOptions } from './locked-append.js';
import { entriesIn } from './segments.js';

/** How often a wait for an account lock looks again (each look takes the journal lock briefly). */
const LOCK_POLL_MS = 100;

/** Where a file journal lives and how it appends: what its records client and its locker share. */
export interface FilePlace {
  dir: string;
  /** The active segment. */
  file: string;
  appendOptions: LockedAppendOptions & { now: () => number };
  /** Tells about a line a read had to skip, with its file. */
  skipIn: (path: string) => (skip: SkippedLine) => void;
}

/** The active segment's entries, in creation order (every unresolved entry is there). */
export function activeEntries(place: FilePlace): JournalEntry[] {
  return entriesIn(place.file, place.skipIn(place.file));
}

/** Thrown inside the journal lock to leave it with a holder to report. */
class HeldBy {
  constructor(readonly holder: Holder) {}
}

export function fileLocker(place: FilePlace, session: string): LockerClient {
  const { now } = place.appendOptions;
  return {
    holderAt: (time) => currentHolder(time, session),
    take: (scope, waitMs) =>
      'entry' in scope ? holdEntry(scope.entry) : lockAccount(place, session, scope.lock, waitMs),
    async holderOf(scope) {
      const holder =
        'entry' in scope
          ? liveHolderIn(activeEntries(place).find((entry) => entry.id === scope.entry))
          : liveLockHolder(place.dir, scope.lock);
      return holder ? publicHolder(holder) : undefined;
    },
  };

  /** Takes the entry's hold by recording this process as its holder, unless a live other holds it or it is finished. */
  async function holdEntry(id: string): Promise<HoldResult> {
    try {
      await lockedAppend(
        place.file,
        (current) => {
          const entry = foldJournal(current).find((candidate) => candidate.id === id);
          if (!entry) throw new JournalError(`No journal entry ${id} to hold.`);
          // Finished meanwhile: nothing is left to resume; its last holder is who finished it.
          if (!isUnresolved(entry)) throw new HeldBy(lastHolderOf(entry));
          const holder = liveHolderIn(entry);
          if (holder && holder.session !== session) throw new HeldBy(publicHolder(holder));
          // Held by this session already (the run that began it): recorded once, not a line per hold.
          if (holder) return '';
          return JSON.stringify({ id, at: new Date(now()).toISOString(), holder: currentHolder(now(), session) });
        },
        place.appendOptions,
      );
    } catch (error) {
      if (error instanceof HeldBy) return { held: false, holder: error.holder };
      throw error;
    }
    return {
      held: true,
      hold: holdOf(
        () => releaseEntry(id),
        () => stillHolds(id),
      ),
    };
  }

  /** Lets go of this session's hold on an unresolved entry (a resolved one is held by nobody already). */
  async function releaseEntry(id: string): Promise<void> {
    await lockedAppend(
      place.file,
      (current) => {
        const entry = foldJournal(current).find((candidate) => candidate.id === id);
        if (!entry || !isUnresolved(entry) || !isRecordedHolder(entry.holder) || entry.holder.session !== session)
          return '';
        return JSON.stringify({ id, at: new Date(now()).toISOString(), holder: null });
      },
      place.appendOptions,
    ).catch(() => {
      // Letting go is a courtesy: a hold of a process that ends is let go by its end anyway.
    });
  }

  /** This session still holds the entry, or the entry was finished (which ends a hold, never loses it). */
  function stillHolds(id: string): boolean {
    const entry = activeEntries(place).find((candidate) => candidate.id === id);
    if (!entry || !isUnresolved(entry)) return true;
    return isRecordedHolder(entry.holder) && entry.holder.session === session;
  }
}

/** An account lock: its record file claimed under the journal lock, looked at again every LOCK_POLL_MS until waitMs is over. */
async function lockAccount(place: FilePlace, session: string, scope: string, waitMs: number): Promise<HoldResult> {
  const { dir, file } = place;
  const staleMs = place.appendOptions.lockStaleMs ?? DEFAULT_LOCK_STALE_MS;
  const holder = currentHolder(place.appendOptions.now(), session);
  removeOnExit(session);
  // Bounded in real (monotonic) time: this is a wait for another process, whatever clock the caller runs on.
  const started = performance.now();
  for (;;) {
    const answer = await withJournalLock(file, staleMs, () => claimLock(dir, scope, holder));
    if (answer.held) {
      return {
        held: true,
        hold: holdOf(
          () => withJournalLock(file, staleMs, () => dropLock(dir, scope, session)).catch(() => undefined),
          // Its record removed (by hand) or replaced by another holder's.
          () => readLock(lockFile(dir, scope))?.holder.session === session,
        ),
      };
    }
    const left = waitMs - (performance.now() - started);
    if (left <= 0) return answer;
    await new Promise((resolve) => setTimeout(resolve, Math.min(LOCK_POLL_MS, left)));
  }
}

/** The live holder an unresolved entry's record names. */
function liveHolderIn(entry: JournalEntry | undefined): RecordedHolder | undefined {
  if (!entry || !isUnresolved(entry)) return undefined;
  const holder = entry.holder;
  return isRecordedHolder(holder) && isAlive(holder) ? holder : undefined;
}

function liveLockHolder(dir: string, scope: string): RecordedHolder | undefined {
  const record = readLock(lockFile(dir, scope));
  return record && isAlive(record.holder) ? record.holder : undefined;
}
