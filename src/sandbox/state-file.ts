// The simulator's state on disk: one JSON document, replaced whole by hedge's one durable write (a reader, or a
// writer killed mid-save, never leaves half a file).

import { closeSync, openSync, readFileSync, readSync } from 'node:fs';
import { prepareDurableWrite, writeFileDurably } from '../core/files/durable-write.js';
import type { EngineState } from './engine-state.js';

const FORMAT = 3;
/** The file's first bytes hold its format and its save's token: they tell one save from another. */
const VERSION_BYTES = 48;
const ABSENT = '';

export interface StateFileContents {
  /** Sandbox time minus real time at save: reloading continues the clock where it was. */
  clockOffsetMs: number;
  engine: EngineState;
}

/**
 * Taken around each request's load → act → save of a file several processes share; resolves to its release, or
 * rejects with code ELOCKED when another process kept it past the lock's own bound.
 */
export type StateFileLock = (path: string) => Promise<() => Promise<void>>;

export function readStateFile(path: string) {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { version: ABSENT };
    throw error;
  }
  const version = bytes.subarray(0, VERSION_BYTES).toString('latin1');
  let file: Partial<StateFileContents> & { format?: unknown; version?: unknown };
  try {
    file = JSON.parse(bytes.toString('utf8'));
  } catch {
    // Format 2 was lines of JSON, the first a header.
    if (version.startsWith('{"version":2,')) return { version, earlier: true };
    throw new Error(`sandbox state file ${path} is not valid JSON; delete it to start afresh`);
  }
  if (file?.format === FORMAT && typeof file.clockOffsetMs === 'number' && file.engine?.version === 1)
    return { contents: { clockOffsetMs: file.clockOffsetMs, engine: file.engine }, version };
  if (file?.version === 1) return { version, earlier: true };
  throw new Error(`sandbox state file ${path} has an unknown format; delete it to start afresh`);
}

/** The file's version now: synchronous, so that nothing runs between this compare and a rename. */
function versionNow(path: string) {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return ABSENT;
    throw error;
  }
  try {
    const start = Buffer.alloc(VERSION_BYTES);
    return start.subarray(0, readSync(fd, start, 0, VERSION_BYTES, 0)).toString('latin1');
  } finally {
    closeSync(fd);
  }
}

/** The file's bytes for `contents`, as a new save (a token no other save has: Math.random spares loading node:crypto). */
function stateBytes(contents: StateFileContents) {
  const save = Math.random().toString(36).slice(2, 12).padEnd(10, '0');
  return Buffer.from(JSON.stringify({ format: FORMAT, save, ...contents }), 'utf8');
}

/** A sandbox that owns its file saves its state whole after each change. */
export function saveStateFile(path: string, contents: StateFileContents) {
  writeFileDurably(path, stateBytes(contents));
}

/** The lock could not be taken within its bound, or every save found the file moved on: nothing was done. */
export class StateFileBusyError extends Error {
  constructor(path: string, cause?: unknown) {
    super(`sandbox state file ${path} stayed locked by another process`, { cause });
  }
}

/** How many times a request runs when its save keeps finding the file moved on (each on what the file holds then). */
const ATTEMPTS = 3;

/**
 * `version`: that of the file as memory was loaded from it (readStateFile's), before the server starts. Hooks:
 * `adopt` the file's contents when it changed under us (another process saved, or it was removed); `saved` is called
 * after a save, so `changed` starts again from there; `beforeCommit` (tests only) inside a save, its new state written
 * beside the file, not yet committed.
 */
export function sharedStateFile(
  path: string,
  version: string,
  lock: StateFileLock,
  hooks: {
    adopt(contents: StateFileContents | undefined): void;
    snapshot(): StateFileContents;
    changed(): boolean;
    saved(): void;
    beforeCommit?(): void | Promise<void>;
  },
) {
  // From here on, the version of the file memory holds; a value no file has forces a reload.
  /** Requests under way, so flush() can wait for their saves. */
  const running = new Set<Promise<unknown>>();
  /** Locked runs of this process under way: memory may hold what one did and has not committed yet. */
  let lockedRuns = 0;

  async function attempts<T>(act: () => T) {
    if (lockedRuns === 0) {
      catchUp();
      let result: T | undefined;
      let changed = true;
      try {
        result = act();
        changed = hooks.changed();
      } finally {
        // What `act` changed is not on disk: memory goes back to the file, and the locked run acts anew.
        if (changed) reload();
      }
      if (!changed) return result;
    }
    for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
      const done = await locked(act);
      if (done) return done.result;
    }
    throw new StateFileBusyError(path);
  }

  /** Memory becomes what the file holds, if another process saved it since. */
  function catchUp() {
    if (versionNow(path) !== version) reload();
  }

  function reload() {
    const read = readStateFile(path);
    hooks.adopt(read.contents);
    version = read.version;
  }

  /** Under the lock: catch up, act, save; undefined when the save found the file moved on. */
  async function locked<T>(act: () => T) {
    lockedRuns += 1;
    try {
      let release: () => Promise<void>;
      try {
        release = await lock(path);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ELOCKED') throw new StateFileBusyError(path, error);
        throw error;
      }
      try {
        catchUp();
        const result = act();
        if (!hooks.changed() || (await commit())) return { result };
        return;
      } catch (error) {
        version = '?';
        throw error;
      } finally {
        await release();
      }
    } finally {
      lockedRuns -= 1;
    }
  }

  /** Writes memory as a new save, and commits it only on the file memory was loaded from. */
  async function commit() {
    const bytes = stateBytes(hooks.snapshot());
    const write = prepareDurableWrite(path, bytes);
    try {
      await hooks.beforeCommit?.();
      // Compare and swap, with no await from here to the rename.
      if (versionNow(path) !== version) {
        write.abandon();
        return false;
      }
      write.commit();
    } catch (error) {
      write.abandon();
      throw error;
    }
    version = bytes.subarray(0, VERSION_BYTES).toString('latin1');
    hooks.saved();
    return true;
  }

  return {
    /** Runs `act` on memory as the file holds it. */
    transact<T>(act: () => T) {
      const run = attempts(act);
      running.add(run);
      const forget = () => void running.delete(run);
      run.then(forget, forget);
      return run;
    },
    flush: () => Promise.allSettled([...running]),
  };
}
