// Running `hedge keep` as a real process against a simulator, for the end-to-end keep tests: a
// target file, the keeper started with its NDJSON events parsed as they come, and waits on them.
import type { ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunResult } from './hedge-cli.js';
import { until } from './polling.js';
import type { Simulator } from './simulator.js';

export const HOUR = 3_600_000;

export interface KeeperRun {
  events: Array<Record<string, any>>;
  child: () => ChildProcess;
  done: Promise<RunResult>;
  ended: () => RunResult | undefined;
}

export function writeTarget(simulator: Simulator, rows: string[], name = 'target.csv'): string {
  const file = join(simulator.configDir, name);
  writeFileSync(file, ['market,side,notional_usd,tenor_days,until,roll_before', ...rows].join('\n') + '\n');
  return file;
}

/**
 * Follows a keeper started by `start` (any machine's `hedge`, handed the spawn hook): its NDJSON
 * events on stdout parsed as they come.
 */
export function followKeeper(start: (onSpawn: (spawned: ChildProcess) => void) => Promise<RunResult>): KeeperRun {
  const events: Array<Record<string, any>> = [];
  let child: ChildProcess | undefined;
  let ended: RunResult | undefined;
  let buffer = '';
  const done = start((spawned) => {
    child = spawned;
    spawned.stdout!.on('data', (chunk: string) => {
      buffer += chunk;
      const lines = buffer.split('\n');
      buffer = lines.pop()!;
      for (const line of lines) if (line.trim() !== '') events.push(JSON.parse(line));
    });
  });
  void done.then((result) => (ended = result)).catch(() => undefined);
  return { events, child: () => child!, done, ended: () => ended };
}

/** Starts `hedge keep FILE` (NDJSON on stdout: not a terminal); every line is parsed as it comes. */
export function startKeeper(simulator: Simulator, file: string, extra: string[] = [], configDir?: string): KeeperRun {
  return followKeeper((onSpawn) =>
    simulator.hedge(['keep', file, '--interval', '2', ...extra], { configDir, onSpawn }),
  );
}

/** Waits until the keeper printed an event matching `match` (after `from` events); fails at once if it exited. */
export async function eventAfter(
  run: KeeperRun,
  from: number,
  match: (event: Record<string, any>) => boolean,
  what: string,
  timeoutMs?: number,
): Promise<Record<string, any>> {
  let found: Record<string, any> | undefined;
  await until(
    () => {
      const result = run.ended();
      found = run.events.slice(from).find(match);
      if (!found && result)
        throw new Error(`the keeper exited (${result.code}) before ${what}:\n${result.stderr}\n${result.stdout}`);
      return found !== undefined;
    },
    what,
    timeoutMs,
  );
  return found!;
}

export function activeNotional(simulator: Simulator, side: 'buy' | 'sell'): number {
  return simulator.active(side).reduce((sum, hedge) => sum + hedge.notionalUsd, 0);
}

export function filledActive(simulator: Simulator, side: 'buy' | 'sell') {
  return simulator.active(side).filter((hedge) => hedge.status === 'filled');
}

export function lines(text: string): Array<Record<string, any>> {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line));
}
