// Every hold on this machine (an account's, a side's, a keeper's, a journal entry's) is taken one way:
// its holder record is written under the one file lock, read back by zod, and counts while its process
// lives (file-lock.ts, isAlive). A wait looks again on the injected sleep. The team store's holds are
// its PostgreSQL advisory locks (postgres/postgres-sessions.ts).
import * as z from 'zod/mini';
import { dirname, join } from 'node:path';
import { poll } from '../../core/process/timers.js';
import { issueWords } from '../../core/security/json-keys.js';
import {
  currentHolder,
  HOLDER,
  isAlive,
  isLockedError,
  lockFile,
  type RecordedHolder,
} from '../../core/files/file-lock.js';
import { holdOf, type HoldResult } from './client-journal.js';
import { readRow } from './entry.js';
import { JournalError } from './journal-error.js';
import { sha256Hex } from './row-integrity.js';
import { asJournalError, ensureDir, readSegment, replaceFileDurably } from './segments.js';
import { unlinkQuietly } from '../../core/files/durable-write.js';

export interface HoldsOptions {
  /** The folder whose `locks/` keeps the records (the journal's, or the keepers'). */
  dir: string;
  /** This process's id for its holds (one per opened journal). */
  session: string;
  now: () => number;
  /** A file lock older than this belongs to a process that died holding it (kill -9) and is taken over; tests shorten it. */
  lockStaleMs?: number;
  sleep?: (ms: number) => Promise<unknown>;
  /** Told, once per file and problem (in one line naming the file), of a lock record or an entry's holder that names no holder. */
  notice?: (text: string) => void;
}

const DEFAULT_LOCK_STALE_MS = 10_000;
const LOCKS_DIR_NAME = 'locks';
/** The longest sleep of a wait for a held lock between two looks (each takes the record's file lock briefly). */
const LOOK_CAP_MS = 100;

// The holder as recorded, `start` and all: its liveness is judged by it.
const RECORD = z.looseObject({ scope: z.string(), holder: z.looseObject(HOLDER.shape) });

/** Runs `body` under the file lock of `file`; still locked past its bound is exit 13, naming the file. */
export async function exclusively<T>(
  file: string,
  options: Pick<HoldsOptions, 'lockStaleMs' | 'sleep'>,
  body: () => T,
) {
  const release = await lockFile(file, {
    staleMs: options.lockStaleMs ?? DEFAULT_LOCK_STALE_MS,
    sleep: options.sleep,
  }).catch((error: unknown) => {
    if (!isLockedError(error)) throw asJournalError(error, file, 'write');
    throw new JournalError(`${file} stayed locked by another hedge process.`, {
      path: file,
      hint: `Try again; if no hedge process is running, remove ${file}.lock.`,
      cause: error,
    });
  });
  try {
    return body();
  } finally {
    await release();
  }
}

/** Says each record that names no holder once per instance; such a record holds nothing. */
export function holderReader(notice: HoldsOptions['notice'] = () => {}) {
  const said = new Set<string>();
  const skipped = (where: string, problem: string) => {
    const text = `Lock record skipped: ${where} (${problem}); taken as held by nobody.`;
    if (said.has(text)) return;
    said.add(text);
    notice(text);
  };
  return {
    skipped,
    /** The live holder `recorded` names, as others are told of it (absent or null: nobody). */
    live(recorded: unknown, where: string) {
      if (recorded == null) return;
      const read = HOLDER.safeParse(recorded);
      if (!read.success) {
        skipped(where, issueWords(read.error));
        return;
      }
      return isAlive(recorded as RecordedHolder) ? read.data : undefined;
    },
  };
}

/** Named holds (an account, a side, a keeper): a record `locks/<hash of the name>.json` each, under its own file lock. */
export function namedHolds(options: HoldsOptions) {
  const { dir, session } = options;
  const holders = holderReader(options.notice);
  const pathOf = (name: string) => join(dir, LOCKS_DIR_NAME, `${sha256Hex(name, 24)}.json`);

  function recorded(path: string) {
    const text = readSegment(path);
    if (text === undefined) return;
    const record = readRow(text, RECORD);
    if (typeof record !== 'string') return record.holder as RecordedHolder;
    holders.skipped(path, record);
  }

  async function take(name: string, waitMs: number): Promise<HoldResult> {
    const path = pathOf(name);
    const me = currentHolder(options.now(), session);
    ensureDir(dir);
    // A `locks` that is a link is refused before anything is read or written through it.
    ensureDir(dirname(path), { inside: true });
    const answer = await poll(
      () =>
        exclusively(path, options, () => {
          // Under the record's file lock: the live holder it names, else this process, written in.
          const holder = holders.live(recorded(path), path);
          if (holder) return { held: false, holder } as const;
          replaceFileDurably(path, JSON.stringify({ scope: name, holder: me }));
          return { held: true } as const;
        }),
      (verdict) => verdict.held,
      { waitMs, capMs: LOOK_CAP_MS, sleep: options.sleep },
    );
    if (!answer.held) return answer;
    // Records this process holds are removed when it exits normally (after a crash, liveness frees them).
    heldHere.set(path, drop);
    if (!exitHook)
      process.once('exit', () => {
        for (const [held, dropOne] of heldHere) {
          try {
            dropOne(held);
          } catch {
            // Best effort: a record left behind names a dead process, which the next taker replaces.
          }
        }
      });
    exitHook = true;
    return {
      held: true,
      hold: holdOf(
        () => exclusively(path, options, () => drop(path)).catch(() => undefined),
        // Its record removed (by hand) or replaced by another holder's.
        () => recorded(path)?.session === session,
      ),
    };
  }

  /** Removes the record when this instance (its session, which no other process has) holds it. */
  function drop(path: string) {
    if (recorded(path)?.session !== session) return;
    unlinkQuietly(path);
    heldHere.delete(path);
  }

  return {
    take,
    async holderOf(name: string) {
      const path = pathOf(name);
      return holders.live(recorded(path), path);
    },
  };
}

const heldHere = new Map<string, (path: string) => void>();
let exitHook = false;
