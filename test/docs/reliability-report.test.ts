// What the reliability suite's teardown says after a run (scripts/reliability-report.mjs): a run with failures names
// the cases that failed and never asks for docs/reliability.md to be rewritten; only a complete run that passed and
// whose faults differ from the page does. The results are written here by hand, as the suite's files write them.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ROOT, tempDir } from '../support/hedge-cli.js';

// @ts-expect-error -- a plain .mjs script without type declarations
const { generateReport } = (await import('../../scripts/reliability-report.mjs')) as {
  generateReport(options: { results: string; policy: object; failures?: string[]; report: string }): {
    summary: string;
    stale: boolean;
  };
};

const POLICY = { maxAttempts: 5, baseDelayMs: 300, maxTotalMs: 30_000 };
const FILES = readdirSync(join(ROOT, 'test', 'reliability'))
  .filter((name) => name.endsWith('.test.ts'))
  .map((name) => name.replace(/\.test\.ts$/, ''));
const PAGE = join(ROOT, 'docs', 'reliability.md');

const work = tempDir('hedge-reliability-report-');
afterAll(() => work.remove());
// The page is compared, never rewritten, whatever the environment of this run says.
beforeEach(() => void vi.stubEnv('HEDGE_WRITE_DOCS', ''));
afterEach(() => void vi.unstubAllEnvs());

let runs = 0;
/** A results folder with one case per file of `files` (its `pass` from `failing`), and where its report goes. */
function run(files: string[], failing: string[] = []) {
  const results = join(work.path, `run-${++runs}`);
  mkdirSync(results);
  for (const file of files)
    writeFileSync(
      join(results, `${file}.json`),
      JSON.stringify({
        file,
        cases: [
          {
            suite: 'fault',
            name: `a fault of ${file}`,
            injected: 'something the page does not show',
            expected: 'what hedge does',
            observed: '',
            order: 0,
            file,
            pass: !failing.includes(file),
          },
        ],
      }),
    );
  return { results, policy: POLICY, report: join(results, 'report.md') };
}

it('a complete run that passed, whose faults differ from the page: asks for the page to be rewritten (and fails)', () => {
  const page = readFileSync(PAGE, 'utf8');
  const done = run(FILES);
  const { summary, stale } = generateReport({ ...done, failures: [] });
  expect(stale).toBe(true);
  expect(summary.split('\n')[0]).toBe(
    `reliability report: ${FILES.length}/${FILES.length} cases passed; the table is in ${relative(ROOT, done.report)}.`,
  );
  expect(summary).toContain('docs/reliability.md does not show the faults this suite injects');
  expect(readFileSync(PAGE, 'utf8')).toBe(page);
});

it('a run with a failure elsewhere: the table is written, the page is not judged', () => {
  const { summary, stale } = generateReport({ ...run(FILES), failures: ['keeper/keep.test.ts › a keeper test'] });
  expect(stale).toBe(false);
  expect(summary).not.toContain('HEDGE_WRITE_DOCS');
  expect(summary.split('\n').at(-1)).toBe('1 other test of this run failed.');
});

it("a run whose reliability case failed (recorded or not, as the run's failures name it): says which, never the page", () => {
  const timedOut = 'reliability/faults-wait.test.ts › a case that timed out before it recorded itself';
  const recorded = 'reliability/faults-retry.test.ts › a case that failed';
  const { summary, stale } = generateReport({
    ...run(FILES, ['faults-retry']),
    failures: [recorded, timedOut, 'api/tls.test.ts › another'],
  });
  expect(stale).toBe(false);
  expect(summary.split('\n').slice(1)).toEqual([
    `failed: ${recorded}; ${timedOut}.`,
    '1 other test of this run failed.',
  ]);
  expect(summary).toMatch(new RegExp(`^reliability report: ${FILES.length - 1}/${FILES.length} cases passed`));
});

it('without the run (the script alone): the recorded cases that failed are named; a partial run writes no report', () => {
  const alone = generateReport(run(FILES, ['bad-input']));
  expect([alone.stale, alone.summary.split('\n').at(-1)]).toEqual([false, 'failed: bad-input › a fault of bad-input.']);

  const partial = run(FILES.slice(1), [FILES[1]]);
  const { summary, stale } = generateReport({ ...partial, failures: [`reliability/${FILES[1]}.test.ts › x`] });
  expect(stale).toBe(false);
  expect(summary.split('\n')).toEqual([
    `reliability report: ${FILES.length - 2}/${FILES.length - 1} cases passed; no report (no results from ${FILES[0]}: run the whole suite).`,
    `failed: reliability/${FILES[1]}.test.ts › x.`,
  ]);
  expect(existsSync(partial.report)).toBe(false);
});
