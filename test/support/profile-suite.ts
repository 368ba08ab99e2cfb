// The set-up the profile suites (test/setup/profiles-*.test.ts) share: one simulator that accepts the
// three profile keys for the whole file, and a fresh config folder for each test (the simulator's
// request log emptied before it, so a test counts only its own requests).
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/index.js';
import { tempDir } from './hedge-cli.js';
import { startSimulator, type Simulator } from './simulator.js';

export type TempDir = ReturnType<typeof tempDir>;

/** Filled by the hooks: read it inside a test or a hook, never at the top of the file. */
export interface ProfileSuite {
  simulator: Simulator;
  sandbox: RunningSandbox;
  /** This test's own config folder, removed after it. */
  tmp: TempDir;
}

export function useProfileSuite(prefix: string) {
  const suite = {} as ProfileSuite;
  beforeAll(async () => {
    suite.simulator = await startSimulator({ preset: 'keys' });
    suite.sandbox = suite.simulator.sandbox;
  });
  afterAll(async () => {
    await suite.simulator?.close();
  });
  beforeEach(() => {
    suite.tmp = tempDir(prefix);
    suite.sandbox.requestLog.length = 0;
  });
  afterEach(() => suite.tmp.remove());
  return suite;
}
