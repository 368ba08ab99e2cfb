import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The second one gives the reliability suite a results folder and, after the run, summarises
    // it; its report goes to .tmp/reliability/.
    globalSetup: ['test/support/global-setup.ts', 'test/support/reliability-report.ts'],
    // A bound on a failure, not a margin: on a slow day (node -e 0 at ~3× its usual CPU, the suite
    // at ~7 minutes) a test of five spawned `keep --once` runs took 30.2 s under the suite's load
    // and 3.3 s alone; at 30 s it failed there (docs/performance.md, "The test suite's time").
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // A test file mostly waits (simulated fills, polls, the processes it spawns), so more forks
    // than cores pay: with hedge's runs in-process (test/support/hedge-in-process.ts), on 2 cores
    // vitest took 287.9 s with 4 forks, 228.5 s with 6 and 216.4 s with 8 (docs/performance.md,
    // "The test suite's time"). Six: most of the gain, less load on tests that wait for a process.
    maxWorkers: 6,
  },
});
