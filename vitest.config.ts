import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The second one gives the reliability suite a results folder and, after the run, summarises
    // it; its report goes to .tmp/reliability/.
    globalSetup: ['test/support/global-setup.ts', 'test/reliability/report-setup.ts'],
    // A bound on a hang, not a margin: a test that needs longer waits in real time for what a
    // clock the test advances (the simulator's) or a shorter lag would show as well.
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: 'forks',
    // A worker runs file after file without reloading what they share (the built CLI, vitest
    // itself); test/support/per-file.ts ends what a file leaves running.
    isolate: false,
    setupFiles: ['test/support/per-file.ts'],
    // A test file mostly waits (simulated fills, polls, the processes it spawns), so more forks
    // than cores pay; six keep the load low enough for tests that wait on a process.
    maxWorkers: 6,
  },
});
