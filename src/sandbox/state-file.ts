// Persistence of the engine state for the demo, which starts a fresh process per CLI command.
// Writes go to a temp file and are renamed over the target, so a crash mid-write never leaves a
// half-written state behind; saves are coalesced so a burst of writes costs at most two writes.

import { readFile, rename, writeFile } from 'node:fs/promises';

import type { EngineState } from './engine-state.js';

export interface StateFileContents {
  version: 1;
  /** Sandbox time minus real time at save: reloading continues the clock where it was. */
  clockOffsetMs: number;
  engine: EngineState;
}

export async function loadStateFile(path: string): Promise<StateFileContents | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
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
        const text = JSON.stringify(this.snapshot());
        const temporary = `${this.path}.${process.pid}.tmp`;
        try {
          await writeFile(temporary, text, { mode: 0o600 });
          await rename(temporary, this.path);
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
