// Shared by the reliability suite: a sandbox server per test with its own config dir, the real
// binary run against it, the server's own view of what happened (engine state and request log —
// the tests assert on that, never on the CLI's word alone), and the recorder that writes each
// case's outcome to a JSON file that scripts/reliability-report.mjs turns into the README table.
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { inject } from 'vitest';
import type { HedgeState } from '../../src/sandbox/engine-state.js';
import { startSandbox, type RequestLogEntry, type RunningSandbox, type SandboxOptions } from '../../src/sandbox/index.js';
import { ROOT, runHedge, tempDir, type RunOptions, type RunResult } from './hedge-cli.js';

// ---------------------------------------------------------------------------------------------
// Results

export type Suite = 'fault' | 'bad-input' | 'config';

export interface CaseMeta {
  suite: Suite;
  /** Short name shown in the table. */
  name: string;
  /** What was done to the CLI or the server. */
  injected: string;
  expected: string;
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

function resultsDir(): string {
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
    writeFileSync(join(dir, `${this.file}.json`), `${JSON.stringify({ file: this.file, cases: this.cases }, null, 2)}\n`);
  }
}

// ---------------------------------------------------------------------------------------------
// A sandbox and the binary pointed at it

export interface Rig {
  sandbox: RunningSandbox;
  configDir: string;
  env: Record<string, string>;
  hedge(args: string[], options?: RunOptions): Promise<RunResult>;
  /** Every hedge the server holds (one account per rig). */
  hedges(): HedgeState[];
  /** The server's hedges that are submitted or filled on that side. */
  active(side: 'buy' | 'sell', market?: string): HedgeState[];
  historyCount(): number;
  requests(method?: string, path?: string | RegExp): RequestLogEntry[];
  /** Opens a hedge directly in the engine (no HTTP, nothing in the request log) and lets it fill. */
  seedOpen(side: 'buy' | 'sell', notionalUsd: number): HedgeState;
  /** Lets sandbox time run on by `ms` and applies what became due (fills, landings). */
  advance(ms: number): void;
  close(): Promise<void>;
}

export const MARKET = 'USDTNGN';
export const FILL_DELAY_MS = 100;

export async function startRig(options: SandboxOptions = {}): Promise<Rig> {
  const sandbox = await startSandbox({ fillDelayMs: FILL_DELAY_MS, seed: 'reliability', ...options });
  const dir = tempDir('hedge-reliability-');
  const env = { HEDGE_BASE_URL: sandbox.baseUrl, HEDGE_API_KEY: sandbox.apiKey };
  const hedges = () => Object.values(sandbox.engine.state.accounts).flatMap((account) => Object.values(account.hedges));
  const advance = (ms: number) => {
    sandbox.clock.advance(ms);
    sandbox.engine.advanceTo(sandbox.clock.now());
  };
  return {
    sandbox,
    configDir: dir.path,
    env,
    hedge: (args, runOptions = {}) => runHedge(args, { ...runOptions, configDir: dir.path, env: { ...env, ...runOptions.env } }),
    hedges,
    active: (side, market = MARKET) =>
      hedges().filter((hedge) => hedge.side === side && hedge.market === market && (hedge.status === 'submitted' || hedge.status === 'filled')),
    historyCount: () => Object.values(sandbox.engine.state.accounts).reduce((sum, account) => sum + account.history.length, 0),
    requests: (method, path) =>
      sandbox.requestLog.filter(
        (entry) =>
          (method === undefined || entry.method === method) &&
          (path === undefined || (typeof path === 'string' ? entry.path === path : path.test(entry.path))),
      ),
    seedOpen: (side, notionalUsd) => {
      const response = sandbox.engine.handle(
        {
          method: 'POST',
          path: '/hedges',
          query: {},
          headers: { authorization: `Bearer ${sandbox.apiKey}`, 'idempotency-key': randomUUID() },
          body: { market: MARKET, side, notional_usd: notionalUsd, tenor_days: 7 },
        },
        sandbox.clock.now(),
      );
      if (response.status !== 200) throw new Error(`seed open failed: ${JSON.stringify(response.body)}`);
      advance((options.fillDelayMs ?? FILL_DELAY_MS) + 1);
      const id = (response.body.data as { id: string }).id;
      const hedge = hedges().find((candidate) => candidate.id === id)!;
      if (hedge.status !== 'filled') throw new Error(`seeded hedge is ${hedge.status}`);
      return hedge;
    },
    advance,
    close: async () => {
      await sandbox.close();
      dir.remove();
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Reading what the CLI printed

/** A stack frame line as Node prints them: "    at fn (file:line:col)". */
export const STACK_FRAME = /^\s+at .+(\(|:\d+:\d+)/m;

export function lines(text: string): string[] {
  return text.split('\n').filter((line) => line.trim() !== '');
}

/** The idempotency key a write printed when its outcome is unknown. */
export function resumeKeyFrom(stderr: string): string | undefined {
  return /--idempotency-key ([0-9a-f-]{36})/.exec(stderr)?.[1];
}

/** Gaps in ms between consecutive log entries. */
export function gaps(entries: RequestLogEntry[]): number[] {
  return entries.slice(1).map((entry, index) => entry.realTimeMs - entries[index]!.realTimeMs);
}

/**
 * The line that reports how the command ended: the last one not indented (the report's details
 * and its "→ what to do" are indented; progress notes come before it).
 */
export function errorLine(text: string, max = 200): string {
  const found = lines(text).filter((line) => !/^\s/.test(line)).at(-1);
  return found ? firstLine(found, max) : '';
}

export function firstLine(text: string, max = 160): string {
  const line = lines(text)[0] ?? '';
  return line.length > max ? `${line.slice(0, max)}…` : line;
}

/** Resolves once `predicate` holds (checked every 20 ms), or rejects after `timeoutMs`. */
export async function until(predicate: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const started = Date.now();
  while (!predicate()) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export type Spawned = (child: ChildProcess) => void;
