import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

// The files that wait longest start first. Vitest orders by the durations of earlier runs, which a
// fresh clone has none of: it would start the largest files first and leave these for the end.
const LONGEST_FIRST = [
  'write/conformance-matrix',
  'api/dialects-lifecycle',
  'build/single-executable',
  'cli/exit-codes',
  'journal/replayed-rows',
  'write/attribution',
  'write/trailing-views',
  'keeper/keep',
  'docs/documented-examples',
  'api/wire-tolerance',
  'trade/roll',
  'journal/forged-rows',
  'reliability/faults-retry',
  'journal/journal-kill',
  'keeper/keeper-service-ops',
  'reliability/faults-idempotency',
  'journal/team-store-locks',
  'journal/journal-concurrency',
  'journal/team-store',
].map((name) => `/test/${name}.test.ts`);

class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]) {
    const rank = (file: TestSpecification) => {
      const at = LONGEST_FIRST.findIndex((name) => file.moduleId.endsWith(name));
      return at < 0 ? LONGEST_FIRST.length : at;
    };
    // A stable sort: the rest keep vitest's own order.
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // describe, it, expect and the hooks are globals (tsconfig's vitest/globals types): no import line per file.
    globals: true,
    // The second one gives the reliability suite a results folder and, after the run, summarises
    // it; its report goes to .tmp/reliability/.
    globalSetup: ['test/support/global-setup.ts', 'test/reliability/report-setup.ts'],
    // A bound on a hang, not a margin: tests wait for events and move the simulator's clock, never
    // a duration. It is what the tests of many processes (spawned runs, keepers, npm, PostgreSQL,
    // a keyring) take on two cores that another suite shares, with room; a test that needs longer
    // waits in real time for what a clock the test advances would show as well.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // A worker runs file after file without reloading what they share (the built CLI, vitest
    // itself); test/support/per-file.ts ends what a file leaves running.
    isolate: false,
    setupFiles: ['test/support/per-file.ts'],
    // A test file mostly waits (simulated fills, polls, the processes it spawns), so more forks
    // than cores pay; six keep the load low enough for tests that wait on a process.
    maxWorkers: 6,
    sequence: { sequencer: LongestFirst },
  },
});
