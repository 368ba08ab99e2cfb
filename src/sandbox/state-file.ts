// Persistence of the engine state for the demo, which starts a fresh process per CLI command.
// Writes go to a temp file and are renamed over the target, so a crash mid-write never leaves a
// half-written state behind.
//
// Two ways to keep it:
//   - StateFileWriter: one process owns the file (saves coalesced, a burst costs at most two writes);
//   - SharedStateFile: several processes use the file at once (parallel `hedge --demo` runs). Each
//     request is load → act → save under a lock the caller supplies, so no process acts on a state
//     another one has moved on from, and no save overwrites another's (the last save used to win).

import { randomBytes } from 'node:crypto';
import { open, rename, stat, unlink, writeFile } from 'node:fs/promises';

import type { EngineState } from './engine-state.js';

export interface StateFileContents {
  version: 1;
  /** Sandbox time minus real time at save: reloading continues the clock where it was. */
  clockOffsetMs: number;
  engine: EngineState;
}

/**
 * Taken around each request's load → act → save of a state file several processes share; resolves
 * to the function that releases it, or rejects with code ELOCKED when another process kept it past
 * the lock's own bound. Injected (the demo uses proper-lockfile) so that the simulator imports
 * nothing outside itself.
 */
export type StateFileLock = (path: string) => Promise<() => Promise<void>>;

/** What tells one version of the file from another: a rename makes a new inode. */
type FileIdentity = string;
const ABSENT: FileIdentity = 'absent';

interface ReadResult {
  contents: StateFileContents | undefined;
  identity: FileIdentity;
}

async function readStateFile(path: string): Promise<ReadResult> {
  let text: string;
  let identity: FileIdentity;
  try {
    // One open file for both: the identity is that of the bytes read, even if a rename follows.
    const handle = await open(path, 'r');
    try {
      identity = identityOf(await handle.stat());
      text = await handle.readFile('utf8');
    } finally {
      await handle.close();
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { contents: undefined, identity: ABSENT };
    throw error;
  }
  return { contents: parseStateFile(path, text), identity };
}

function parseStateFile(path: string, text: string): StateFileContents {
  let contents: StateFileContents;
  try {
    contents = JSON.parse(text) as StateFileContents;
  } catch {
    throw new Error(`sandbox state file ${path} is not valid JSON; delete it to start afresh`);
  }
  if (contents?.version !== 1 || typeof contents.engine !== 'object' || contents.engine === null) {
    throw new Error(`sandbox state file ${path} has an unknown format; delete it to start afresh`);
  }
  return contents;
}

function identityOf(stats: { ino: number; size: number; mtimeMs: number }): FileIdentity {
  return `${stats.ino}:${stats.size}:${stats.mtimeMs}`;
}

async function currentIdentity(path: string): Promise<FileIdentity> {
  try {
    return identityOf(await stat(path));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return ABSENT;
    throw error;
  }
}

async function writeAtomically(path: string, text: string): Promise<void> {
  // Unique per writer: two processes never share a temp file even if one was killed mid-write.
  const temporary = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    await writeFile(temporary, text, { mode: 0o600 });
    await rename(temporary, path);
  } catch (error) {
    await unlink(temporary).catch(() => {});
    throw error;
  }
}

export async function loadStateFile(path: string): Promise<StateFileContents | undefined> {
  return (await readStateFile(path)).contents;
}

export class StateFileWriter {
  private writing: Promise<void> | null = null;
  private dirty = false;
  private lastError: unknown = null;

  constructor(
    private readonly path: string,
    private readonly snapshot: () => StateFileContents,
  ) {}

  /** Schedules a save of the current state; resolves when a save covering it has finished. */
  save(): Promise<void> {
    this.dirty = true;
    this.writing ??= this.drain();
    return this.writing;
  }

  /** Waits for any save in progress (used on close). Rejects if the last save failed. */
  async flush(): Promise<void> {
    if (this.writing) await this.writing;
    if (this.lastError) throw this.lastError;
  }

  private async drain(): Promise<void> {
    try {
      while (this.dirty) {
        this.dirty = false;
        try {
          await writeAtomically(this.path, JSON.stringify(this.snapshot()));
          this.lastError = null;
        } catch (error) {
          this.lastError = error;
        }
      }
    } finally {
      this.writing = null;
    }
  }
}

/** The lock could not be taken within its bound: nothing was read, done or written. */
export class StateFileBusyError extends Error {
  constructor(
    readonly path: string,
    cause: unknown,
  ) {
    super(`sandbox state file ${path} stayed locked by another process`, { cause });
    this.name = 'StateFileBusyError';
  }
}

export interface SharedStateFileHooks {
  /** The file changed under us (another process saved, or it was removed): adopt its contents. */
  adopt(contents: StateFileContents | undefined): void;
  /** What to save now. */
  snapshot(): StateFileContents;
  /** Whether anything changed since the last adopt or save. */
  changed(): boolean;
  /** Called after a save, so changed() starts again from here. */
  saved(): void;
}

export class SharedStateFile {
  /** The version of the file this process's memory holds; undefined forces a reload. */
  private identity: FileIdentity | undefined;
  /** Transactions under way, so close() can wait for their saves. */
  private readonly running = new Set<Promise<unknown>>();

  constructor(
    private readonly path: string,
    private readonly lock: StateFileLock,
    private readonly hooks: SharedStateFileHooks,
  ) {}

  /** The first read, before the server starts: what it finds is what memory holds. */
  async load(): Promise<StateFileContents | undefined> {
    const { contents, identity } = await readStateFile(this.path);
    this.identity = identity;
    return contents;
  }

  /**
   * Under the lock: reload if another process saved since, run `act`, save if it changed the
   * state, then release. The save is done before this resolves, so an answer sent after it
   * describes a state that is on disk. If the save fails, memory is dropped (the next request
   * reloads) and the error is thrown: what `act` did is not kept.
   */
  transact<T>(act: () => T): Promise<T> {
    const run = this.locked(act);
    this.running.add(run);
    const forget = (): void => {
      this.running.delete(run);
    };
    run.then(forget, forget);
    return run;
  }

  /** Waits for the transactions under way (their saves included). */
  async flush(): Promise<void> {
    await Promise.allSettled([...this.running]);
  }

  private async locked<T>(act: () => T): Promise<T> {
    let release: () => Promise<void>;
    try {
      release = await this.lock(this.path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ELOCKED') throw new StateFileBusyError(this.path, error);
      throw error;
    }
    try {
      const identity = await currentIdentity(this.path);
      if (identity !== this.identity) {
        const read = await readStateFile(this.path);
        this.hooks.adopt(read.contents);
        this.identity = read.identity;
      }
      const result = act();
      if (this.hooks.changed()) {
        try {
          await writeAtomically(this.path, JSON.stringify(this.hooks.snapshot()));
          this.identity = await currentIdentity(this.path);
          this.hooks.saved();
        } catch (error) {
          this.identity = undefined;
          throw error;
        }
      }
      return result;
    } finally {
      await release().catch(() => {
        // Already released (judged stale and taken over): nothing left to release.
      });
    }
  }
}
