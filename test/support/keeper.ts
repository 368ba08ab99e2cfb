// Running `hedge keep` as a real process against a simulator, for the end-to-end keep tests: a
// target file, the keeper started with its NDJSON events parsed as they come, and waits on them.
// `keeperTest` gives each test a rig of its own (simulators, keepers, clean-ups), so the keeper
// tests, which mostly wait for the keeper's 2 s cycles, can run concurrently.
import type { ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { ok, type HedgeRunner } from './cli-runs.js';
import type { RunOptions, RunResult } from './hedge-cli.js';
import { lines as printed } from './output/text.js';
import { until } from './polling.js';
import { startSimulator, type Simulator } from './simulator.js';

export const HOUR = 3_600_000;

export type KeeperRun = ReturnType<typeof followKeeper>;

/** One NDJSON event the keeper printed (test code reads arbitrary fields). */
type KeeperEvent = Record<string, any>;

/** A target file in that config folder (a simulator's, or a team machine's). */
export function writeTarget(place: { configDir: string }, rows: string[], name = 'target.csv') {
  const file = join(place.configDir, name);
  writeFileSync(file, ['market,side,notional_usd,tenor_days,until,roll_before', ...rows].join('\n') + '\n');
  return file;
}

/**
 * Follows a keeper started by `start` (any machine's `hedge`, handed the spawn hook): its NDJSON
 * events on stdout parsed as they come.
 */
export function followKeeper(start: (onSpawn: (spawned: ChildProcess) => void) => Promise<RunResult>) {
  const events: KeeperEvent[] = [];
  let child: ChildProcess | undefined;
  let ended: RunResult | undefined;
  const done = start((spawned) => {
    child = spawned;
    createInterface({ input: spawned.stdout! }).on('line', (line) => line.trim() && events.push(JSON.parse(line)));
  });
  void done.then((result) => (ended = result)).catch(() => undefined);
  return { events, child: () => child!, done, ended: () => ended };
}

/** `hedge keep FILE --interval 2 …` as a process of its own (NDJSON on stdout: not a terminal), followed. */
export function startKeeper(runner: HedgeRunner, file: string, extra: string[] = [], options?: RunOptions) {
  return followKeeper((onSpawn) => runner.hedge(['keep', file, '--interval', '2', ...extra], { ...options, onSpawn }));
}

export interface KeeperRig {
  /** A simulator of this test's own (preset `trading` unless given), closed after it. */
  start: typeof startSimulator;
  /** `hedge keep FILE --interval 2 …` as a process of its own, followed; killed after the test if still running. */
  keep: typeof startKeeper;
  /** Run after the test, the last given first. */
  later(cleanup: () => unknown): void;
}

/** `it` with a `rig` of the test's own: what it started ends with it, whichever test runs beside it. */
export const keeperTest = test.extend<{ rig: KeeperRig }>({
  // eslint-disable-next-line no-empty-pattern
  rig: async ({}, use) => {
    const cleanups: Array<() => unknown> = [];
    try {
      await use({
        async start(options) {
          const simulator = await startSimulator(options);
          cleanups.push(() => simulator.close());
          return simulator;
        },
        keep(runner, file, extra, options) {
          const run = startKeeper(runner, file, extra, options);
          cleanups.push(() => {
            const child = run.child();
            if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
            return run.done.catch(() => undefined);
          });
          return run;
        },
        later: (cleanup) => cleanups.push(cleanup),
      });
    } finally {
      for (const cleanup of cleanups.reverse()) await cleanup();
    }
  },
});

/**
 * Keeper tests side by side, a few at a time (two unless given): each mostly waits for the keeper's
 * cycles, but its keeper and simulator want the CPU now and then, and every test keeps its own 20 s.
 */
export function describeKeepers(name: string, ...rest: [body: () => void] | [atOnce: number, body: () => void]) {
  const [atOnce, body] = rest.length === 2 ? rest : [2, rest[0]];
  vi.setConfig({ maxConcurrency: atOnce });
  describe.concurrent(name, body);
}

/** The events of that kind the keeper printed so far. */
export function eventsOf(run: KeeperRun, kind: string) {
  return run.events.filter((event) => event.event === kind);
}

/**
 * Waits until the keeper printed an event matching `match` (an event kind, or a test) after `from`
 * events; fails at once if it exited.
 */
export async function eventAfter(
  run: KeeperRun,
  from: number,
  match: string | ((event: KeeperEvent) => boolean),
  what: string,
) {
  const test = typeof match === 'string' ? (event: KeeperEvent) => event.event === match : match;
  let found: KeeperEvent | undefined;
  await until(() => {
    const result = run.ended();
    found = run.events.slice(from).find(test);
    if (!found && result)
      throw new Error(`the keeper exited (${result.code}) before ${what}:\n${result.stderr}\n${result.stdout}`);
    return found !== undefined;
  }, what);
  return found!;
}

export function activeNotional(simulator: Simulator, side: 'buy' | 'sell') {
  return simulator.active(side).reduce((sum, hedge) => sum + hedge.notionalUsd, 0);
}

export function filledActive(simulator: Simulator, side: 'buy' | 'sell') {
  return simulator.active(side).filter((hedge) => hedge.status === 'filled');
}

/** The side's open hedges as [id, notional] pairs. */
export function activeSizes(simulator: Simulator, side: 'buy' | 'sell') {
  return simulator.active(side).map((hedge) => [hedge.id, hedge.notionalUsd]);
}

/** `hedge keep FILE --once …`: its exit code must be `code`; its events, parsed. */
export async function keepOnce(runner: HedgeRunner, file: string, code = 0, ...extra: string[]) {
  const result = await runner.hedge(['keep', file, '--once', ...extra]);
  expect(result.code, result.stderr + result.stdout).toBe(code);
  return lines(result.stdout);
}

/** SIGTERM: the keeper finishes its steps and exits 0; what it printed, parsed. */
export async function stopKeeper(run: KeeperRun) {
  run.child().kill('SIGTERM');
  return lines(ok(await run.done).stdout);
}

/** The server's hedge of that id. */
export function hedgeOf(simulator: Simulator, id: string) {
  return simulator.hedges().find((hedge) => hedge.id === id)!;
}

export const lines = (text: string): KeeperEvent[] => printed(text).map((line) => JSON.parse(line));
