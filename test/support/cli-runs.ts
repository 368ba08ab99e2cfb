// Running the binary the ways several e2e files do: reading its journal and its errors as a script
// would, and killing a run (SIGKILL) at a chosen moment to see what a crash leaves behind.
import type { ChildProcess } from 'node:child_process';
import type { HedgeArgs, RunOptions, RunResult } from './hedge-cli.js';
import { until } from './polling.js';
import type { Simulator } from './simulator.js';

/** A simulator or a team machine: whatever runs the binary with its own config. */
export interface HedgeRunner {
  hedge(args: HedgeArgs, options?: RunOptions): Promise<RunResult>;
}

/** A run that must exit `code` (its stderr the message when it does not), its stderr saying each of `said`: the run, to read on. */
export function exits<Run extends { code: number | null; stderr?: string }>(
  result: Run,
  code: number | null,
  ...said: string[]
): Run {
  expect(result.code, result.stderr).toBe(code);
  for (const text of said) expect(result.stderr).toContain(text);
  return result;
}

/** A run that must exit 0: the run, to read on. */
export const ok = (result: RunResult) => exits(result, 0);

/** A run that must exit 0: its stdout read as JSON. */
export const okJson = (result: RunResult) => JSON.parse(ok(result).stdout);

/** `hedge journal --json …`, which must exit 0: its entries. */
export async function journalEntries(runner: HedgeRunner, ...flags: string[]): Promise<Record<string, any>[]> {
  return okJson(await runner.hedge(['journal', '--json', ...flags]));
}

/** Runs the command and sends it `signal` (SIGKILL) once `ready` holds; fails if it ended first. */
export async function killWhen(
  runner: HedgeRunner,
  args: string[],
  ready: () => boolean,
  what: string,
  { signal = 'SIGKILL', ...options }: RunOptions & { signal?: NodeJS.Signals } = {},
) {
  let child: ChildProcess | undefined;
  const running = runner.hedge(args, { ...options, onSpawn: (spawned) => (child = spawned) });
  await until(ready, what, { process: running, timeoutMs: options.timeoutMs });
  child!.kill(signal);
  return running;
}

/** The --json error document: the last line of stderr (notes may come before it). */
export const lastJson = (stderr: string) => JSON.parse(stderr.trim().split('\n').at(-1)!);

/** The write on `path` was answered and the wait has polled (by default /positions) after it. */
export function waitingAfter(t: Simulator, path: string, poll = (polled: string): boolean => polled === '/positions') {
  return () => {
    const log = t.sandbox.requestLog;
    const sent = log.findIndex((entry) => entry.method === 'POST' && entry.path === path && entry.status === 200);
    return (
      sent >= 0 &&
      log.slice(sent + 1).some((entry) => entry.method === 'GET' && poll(entry.path) && entry.status === 200)
    );
  };
}

/**
 * An in-process run's clock (RunOptions.clock) whose pauses end at once until `from` holds; from then
 * each lasts until `wake()`: the test acts (moves the server's clock, stops a store) while the run surely waits.
 */
export function heldPauses(from: () => boolean) {
  let held: (() => void) | undefined;
  let count = 0;
  const sleep = () => (from() ? new Promise<void>((resolve) => ((held = resolve), (count += 1))) : Promise.resolve());
  // `paused`: since the first held pause; `held`: how many were held so far (to await the next); waking one already
  // ended does nothing.
  return { clock: { now: Date.now, sleep }, paused: () => held !== undefined, held: () => count, wake: () => held?.() };
}

/** The trade log marked now; the mark's check: nothing was sent since. */
export function markTrades(t: Simulator) {
  const before = t.trades().length;
  return () => expect(t.trades().slice(before)).toEqual([]);
}

/** The idempotency keys the server answered with 200 on `path`. */
export const keysAnswered = (t: Simulator, path: string) => [
  ...new Set(
    t
      .requests('POST', path)
      .filter((entry) => entry.status === 200)
      .map((entry) => entry.idempotencyKey!),
  ),
];
