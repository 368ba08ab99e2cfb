// Acting as another local user (nobody), which only root can: the one way a test does it. The checkout may sit
// where that user cannot go (a 0700 home or temporary folder), so nothing they run is read from it: a process
// starts in `/`, and hedge runs from a copy of the built CLI (bin/ and dist/: dist/ loads no package at run
// time) in a folder anyone may enter, made once per test file.
import { chmodSync, cpSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The other user's ids. */
export const NOBODY = { uid: 65534, gid: 65534 } as const;

/** Only root may run a process as another user: a test that acts as one is skipped otherwise. */
export const NOT_ROOT = process.getuid?.() !== 0;

/** What a spawned process takes to run as `user` wherever the checkout is: its ids and a folder it may enter. */
export const asUser = (user: { uid: number; gid: number } = NOBODY) => ({ uid: user.uid, gid: user.gid, cwd: '/' });

const CHECKOUT = fileURLToPath(new URL('../..', import.meta.url));
let copy: string | undefined;

/** The launcher of a copy of the built CLI that every user can read, and the folder it runs in. */
export function reachableCli() {
  if (!copy) {
    const folder = tmpdir();
    for (let at = folder; ; at = dirname(at)) {
      if ((statSync(at).mode & 0o001) === 0)
        throw new Error(
          `Another user cannot enter ${at}, above the temporary folder ${folder}: set TMPDIR to one they can.`,
        );
      if (at === dirname(at)) break;
    }
    copy = mkdtempSync(join(folder, 'hedge-cli-copy-'));
    chmodSync(copy, 0o755);
    for (const part of ['bin', 'dist'])
      cpSync(join(CHECKOUT, part), join(copy, part), { recursive: true, filter: (from) => !from.endsWith('.map') });
  }
  return { launcher: join(copy, 'bin', 'hedge.js'), cwd: copy };
}

/** Removes this file's copy (test/support/per-file.ts, after each test file). */
export function removeReachableCli() {
  if (copy) rmSync(copy, { recursive: true, force: true });
  copy = undefined;
}
