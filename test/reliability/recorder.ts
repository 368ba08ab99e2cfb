// The recorder of the reliability suite (test/reliability/): each case's outcome goes to a JSON
// file in this run's results folder (report-setup.ts), which scripts/reliability-report.mjs
// turns into the report in .tmp/reliability/ when `npm run reliability-report` asks it to.
import { mkdirSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { inject } from 'vitest';
import { ROOT } from '../support/hedge-cli.js';
import { withSimulator, type Simulator, type SimulatorOptions } from '../support/simulator.js';

export type Suite = 'fault' | 'bad-input' | 'config';

export interface CaseMeta {
  suite: Suite;
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

export interface CaseResult extends CaseMeta, CaseObservation {
  file: string;
  pass: boolean;
  durationMs: number;
  order: number;
}

function resultsDir() {
  let dir: string | undefined;
  try {
    dir = inject('reliabilityResultsDir');
  } catch {
    dir = undefined;
  }
  return dir || process.env.HEDGE_RELIABILITY_DIR || join(ROOT, '.tmp', 'reliability', 'adhoc');
}

/**
 * One recorder per test file (vitest runs files in separate processes): cases are collected in
 * memory and written once, in afterAll, to `<results dir>/<file>.json`.
 */
export class ResultRecorder {
  private readonly cases: CaseResult[] = [];
  private readonly file: string;

  constructor(testFileUrl: string) {
    this.file = basename(new URL(testFileUrl).pathname).replace(/\.test\.ts$/, '');
  }

  /** A case (of the fault suite unless said) run on a `reliability` simulator of its own (`options` on top). */
  onSimulator(
    meta: Omit<CaseMeta, 'suite'> & { suite?: Suite },
    body: (sim: Simulator, observation: CaseObservation) => Promise<void>,
    options: SimulatorOptions = {},
  ): Promise<void> {
    return this.track({ suite: 'fault', ...meta }, (observation) =>
      withSimulator({ preset: 'reliability', ...options }, (sim) => body(sim, observation)),
    );
  }

  /**
   * Runs one case: `body` fills in what it observed as it goes (so a failed assertion still leaves
   * the observation), and the case is recorded as passed only when `body` returns without throwing.
   */
  async track(meta: CaseMeta, body: (observation: CaseObservation) => Promise<void>): Promise<void> {
    const observation: CaseObservation = {};
    const started = Date.now();
    let pass = false;
    try {
      await body(observation);
      pass = true;
    } catch (error) {
      const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
      observation.observed = `${observation.observed ? `${observation.observed}; ` : ''}FAILED: ${message}`;
      throw error;
    } finally {
      this.cases.push({
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

  flush(): void {
    const dir = resultsDir();
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, `${this.file}.json`),
      `${JSON.stringify({ file: this.file, cases: this.cases }, null, 2)}\n`,
    );
  }
}
