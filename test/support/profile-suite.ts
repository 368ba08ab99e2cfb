// The set-up the profile suites (test/setup/profiles-*.test.ts) share: one simulator that accepts the
// three profile keys for the whole file, and a fresh config folder for each test (the simulator's
// request log emptied before it, so a test counts only its own requests).
import { type RunningSandbox } from '../../src/sandbox/http/server.js';
import { hedgeIn, tempDir, type HedgeArgs, type RunOptions } from './hedge-cli.js';
import { startSimulator, type Simulator } from './simulator.js';

export type TempDir = ReturnType<typeof tempDir>;

/** Filled by the hooks: read its fields inside a test or a hook, never at the top of the file. */
export function useProfileSuite(prefix: string) {
  /** `tmp`: this test's own config folder, removed after it. */
  const suite = {} as { simulator: Simulator; sandbox: RunningSandbox; tmp: TempDir };
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
  return Object.assign(suite, {
    /** hedge in this test's config folder. */
    run: (args: HedgeArgs, options?: RunOptions) => hedgeIn(suite.tmp.path, args, options),
    /** The sandbox saw no request (since its log was last emptied). */
    nothingSent: () => expect(suite.sandbox.requestLog).toEqual([]),
  });
}
