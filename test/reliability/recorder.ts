// The recorder of the reliability suite (test/reliability/): each case's outcome goes to a JSON
// file in this run's results folder (report-setup.ts), which scripts/reliability-report.mjs
// turns into the report in .tmp/reliability/ when `npm run reliability-report` asks it to.
import { mkdirSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { inject } from 'vitest';
import { exits } from '../support/cli-runs.js';
import { ROOT, type RunResult } from '../support/hedge-cli.js';
import { STACK_FRAME, errorLine, resumeKeyFrom } from '../support/output/text.js';
import { withSimulator, type Simulator, type SimulatorOptions } from '../support/simulator.js';

export interface CaseMeta {
  /** Default `fault`. */
  suite?: 'fault' | 'bad-input' | 'config';
  /** Short name shown in the table. */
  name: string;
  /** What was done to the CLI or the server. */
  injected: string;
  expected: string;
  /** The fault class docs/reliability.md groups it under, where it is not its file's. */
  kind?: 'network' | 'server' | 'process' | 'clock' | 'disk' | 'concurrency';
  /** Sort key inside its suite (the order of the table); defaults to the order of recording. */
  order?: number;
}

export interface CaseObservation {
  /** What actually happened, in a few words (exit code, server-side counts…). */
  observed?: string;
  /** What the CLI printed that the table shows verbatim (the one stderr line of a bad-input row). */
  output?: string;
  attempts?: number;
  /** Timings worth publishing, e.g. "gaps 212, 431, 905 ms". */
  timings?: string;
}

/** This run's results folder (report-setup.ts), or else HEDGE_RELIABILITY_DIR, or else .tmp/reliability/adhoc. */
function resultsDir() {
  try {
    const dir = inject('reliabilityResultsDir');
    if (dir) return dir;
  } catch {
    // Not under the reliability suite's global setup.
  }
  return process.env.HEDGE_RELIABILITY_DIR || join(ROOT, '.tmp', 'reliability', 'adhoc');
}

/**
 * One recorder per test file (vitest runs files in separate processes): cases are collected in
 * memory and written once, in the file's afterAll, to `<results dir>/<file>.json`.
 */
export class ResultRecorder {
  private readonly cases: unknown[] = [];
  private readonly file;

  constructor(testFileUrl: string) {
    this.file = basename(new URL(testFileUrl).pathname).replace(/\.test\.ts$/, '');
    afterAll(() => this.flush());
  }

  /**
   * Runs one case (of the fault suite unless said) on a `reliability` simulator of its own (`options` on top):
   * `body` fills in what it observed as it goes (so a failed assertion still leaves the observation), and the
   * case is recorded as passed only when `body` returns without throwing.
   */
  async onSimulator(
    meta: CaseMeta,
    body: (sim: Simulator, observation: CaseObservation) => Promise<void>,
    options: SimulatorOptions = {},
  ) {
    const observation: CaseObservation = {};
    const started = Date.now();
    let pass = false;
    try {
      await withSimulator({ preset: 'reliability', ...options }, (sim) => body(sim, observation));
      pass = true;
    } catch (error) {
      const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
      observation.observed = `${observation.observed ? `${observation.observed}; ` : ''}FAILED: ${message}`;
      throw error;
    } finally {
      this.cases.push({
        suite: 'fault',
        ...meta,
        ...observation,
        observed: observation.observed ?? '',
        order: meta.order ?? this.cases.length,
        file: this.file,
        pass,
        durationMs: Date.now() - started,
      });
    }
  }

  private flush() {
    const dir = resultsDir();
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, `${this.file}.json`),
      `${JSON.stringify({ file: this.file, cases: this.cases }, null, 2)}\n`,
    );
  }
}

/**
 * A write whose answer was lost: the `first` run (under the fault the case set) exits `code`, says the outcome is
 * `unknown` with the key of its first POST to `path`, no stack trace; then, the stall cleared, `resume` with that
 * `--idempotency-key` exits 0, every POST under that one key, and the server holds one hedge.
 */
export async function lostThenResumed(
  sim: Simulator,
  observation: CaseObservation,
  path: string,
  lost: { first: () => Promise<RunResult>; code: number; unknown?: RegExp; resume: string },
) {
  const first = await lost.first();
  const key = resumeKeyFrom(first.stderr);
  observation.observed = `first run: exit ${first.code}: "${errorLine(first.stderr)}", ${key ? 'the key printed' : 'NO key printed'}`;
  exits(first, lost.code);
  expect(first.stderr).toMatch(lost.unknown ?? /outcome is unknown/i);
  expect(first.stderr).not.toMatch(STACK_FRAME);
  expect(key).toBe(sim.requests('POST', path)[0].idempotencyKey);
  sim.sandbox.setFaults({ stall: null, match: null });
  const resumed = await sim.hedge(`${lost.resume} --idempotency-key ${key}`);
  const posts = sim.requests('POST', path);
  observation.attempts = posts.length;
  observation.observed += `; resumed: exit ${resumed.code}; ${posts.length} × POST ${path}; server: ${sim.hedges().length} hedge`;
  exits(resumed, 0);
  expect(new Set(posts.map((entry) => entry.idempotencyKey))).toEqual(new Set([key]));
  expect(sim.hedges()).toHaveLength(1);
  return { first, resumed, posts };
}
