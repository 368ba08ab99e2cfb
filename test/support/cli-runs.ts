// Running the binary the ways several e2e files do: reading its journal as a script would, and
// killing a run (SIGKILL) at a chosen moment to see what a crash leaves behind.
import type { ChildProcess } from 'node:child_process';
import { expect } from 'vitest';
import type { RunOptions, RunResult } from './hedge-cli.js';
import { until } from './polling.js';

/** A simulator or a team machine: whatever runs the binary with its own config. */
export interface HedgeRunner {
  hedge(args: string[], options?: RunOptions): Promise<RunResult>;
}

/** `hedge journal --json …`, which must exit 0: its entries. */
export async function journalEntries<Entry = Record<string, any>>(
  runner: HedgeRunner,
  ...flags: string[]
): Promise<Entry[]> {
  const result = await runner.hedge(['journal', '--json', ...flags]);
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as Entry[];
}

/** Runs the command and kills it (SIGKILL) once `ready` holds; fails if it ended first. */
export async function killWhen(
  runner: HedgeRunner,
  args: string[],
  ready: () => boolean,
  what: string,
): Promise<RunResult> {
  let child: ChildProcess | undefined;
  const running = runner.hedge(args, { onSpawn: (spawned) => (child = spawned) });
  await until(ready, what, { process: running });
  child!.kill('SIGKILL');
  return running;
}
