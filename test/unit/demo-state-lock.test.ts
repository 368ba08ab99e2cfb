// The demo state's lock (src/demo/state-lock.ts) as the save that commits under it sees it:
// held() is what a save asks, synchronously, right before its rename. A lock taken over by another
// process (its directory removed and made afresh, as proper-lockfile does with a stale one) is no
// longer held, and releasing it leaves the new holder's directory alone.
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { lockDemoState } from '../../src/demo/state-lock.js';

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

function stateFile(): string {
  dir = mkdtempSync(join(tmpdir(), 'hedge-demo-lock-'));
  return join(dir, 'demo-state.json');
}

describe('the demo state lock', () => {
  it('is held once taken, and released removes its directory', async () => {
    const path = stateFile();
    const hold = await lockDemoState(path);
    expect(existsSync(`${path}.lock`)).toBe(true);
    expect(hold.held()).toBe(true);
    await hold.release();
    expect(existsSync(`${path}.lock`)).toBe(false);
    expect(hold.held()).toBe(false);
  });

  it("taken over by another process, is not held, and its release leaves the new holder's directory", async () => {
    const path = stateFile();
    const hold = await lockDemoState(path);
    // What a process that judged it stale does: remove it, and make its own.
    rmSync(`${path}.lock`, { recursive: true });
    mkdirSync(`${path}.lock`);
    const theirs = statSync(`${path}.lock`).ino;
    expect(hold.held()).toBe(false);
    await hold.release();
    expect(statSync(`${path}.lock`).ino).toBe(theirs);
  });

  it('removed by another process, is not held', async () => {
    const path = stateFile();
    const hold = await lockDemoState(path);
    rmSync(`${path}.lock`, { recursive: true });
    expect(hold.held()).toBe(false);
    await hold.release();
    expect(existsSync(`${path}.lock`)).toBe(false);
  });

  it('is not held once its last refresh is near the stale time (another may take it over any moment), yet still released', async () => {
    const path = stateFile();
    let nowMs = Date.now();
    const hold = await lockDemoState(path, () => nowMs);
    expect(hold.held()).toBe(true);
    // The directory's mtime is what the lock last set (up to a second ahead, where proper-lockfile
    // rounds it up); 10 s on, a process waiting for the lock would judge it stale.
    nowMs = statSync(`${path}.lock`).mtimeMs + 10_000;
    expect(hold.held()).toBe(false);
    await hold.release();
    expect(existsSync(`${path}.lock`)).toBe(false);
  });
});
