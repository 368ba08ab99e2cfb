// Global setup of the reliability suite: gives this run its own results folder (so concurrent
// runs never mix), and after the whole run writes the report to .tmp/ (scripts/reliability-report.mjs).
import { mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import { DEFAULT_RETRY_POLICY } from '../../src/platform/api/transport.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Folders of runs that never reached their teardown (interrupted) are removed after an hour. */
function removeAbandonedRuns(parent: string) {
  for (const name of readdirSync(parent)) {
    const path = join(parent, name);
    if (Date.now() - statSync(path).mtimeMs > 3_600_000) rmSync(path, { recursive: true, force: true });
  }
}

/** The tests this run failed, as "folder/file.test.ts › test" from test/; a file that failed outside its tests (a hook, an import) by its name alone. */
function failuresOf(project: TestProject) {
  const { state } = project.vitest;
  const failed = state.getTestModules().flatMap((module) => {
    const file = relative(join(ROOT, 'test'), module.moduleId);
    const tests = [...module.children.allTests('failed')].map((test) => `${file} › ${test.fullName}`);
    return tests.length > 0 || module.state() !== 'failed' ? tests : [file];
  });
  const unhandled = state.getUnhandledErrors().length;
  return unhandled > 0 ? [...failed, `${unhandled} error${unhandled === 1 ? '' : 's'} outside any test`] : failed;
}

export default function setup(project: TestProject): () => Promise<void> {
  const parent = join(ROOT, '.tmp', 'reliability');
  mkdirSync(parent, { recursive: true });
  removeAbandonedRuns(parent);
  const resultsDir = join(parent, `run-${process.pid}-${Date.now()}`);
  mkdirSync(resultsDir, { recursive: true });
  project.provide('reliabilityResultsDir', resultsDir);
  return async () => {
    try {
      // @ts-expect-error -- a plain .mjs script without type declarations
      const { generateReport } = (await import('../../scripts/reliability-report.mjs')) as {
        generateReport(options: { results: string; policy: typeof DEFAULT_RETRY_POLICY; failures: string[] }): {
          summary: string;
          stale: boolean;
        };
      };
      const failures = failuresOf(project);
      const { summary, stale } = generateReport({ results: resultsDir, policy: DEFAULT_RETRY_POLICY, failures });
      console.log(`\n${summary}`);
      // docs/reliability.md is the user's copy of a passing run's fault table: such a run that injects other faults fails until it is rewritten.
      if (stale) process.exitCode = 1;
    } finally {
      rmSync(resultsDir, { recursive: true, force: true });
    }
  };
}
