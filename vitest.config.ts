import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The second one gives the reliability suite a results folder and, after the run, summarises
    // it; only `npm run reliability-report` regenerates docs/reliability.md.
    globalSetup: ['test/support/global-setup.ts', 'test/support/reliability-report.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // The tests mostly wait (child processes, simulated fills, polls), they do not compute: four
    // forks on a 2-core machine took the suite from 6 min 4 s (two, the default) to 2 min 0 s.
    maxWorkers: 4,
  },
});
