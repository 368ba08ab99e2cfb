// A `hedge keep … --json` run as its own process for a soak: each line it prints is copied to the
// soak's log and, when it is an event, counted by name and handed to the soak; its stderr goes to
// the log too. Both soaks (keeper-soak.ts, exposures-soak.ts) start and kill keepers this way.
import { spawn, type ChildProcess } from 'node:child_process';
import type { WriteStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { HEDGE_BIN, ROOT } from '../support/hedge-cli.js';

export function spawnKeeper(options: {
  /** The arguments after `hedge`: `keep FILE … --json`. */
  args: readonly string[];
  env: NodeJS.ProcessEnv;
  /** Which keeper of the run this is (the log names it). */
  number: number;
  log: WriteStream | undefined;
  /** Events counted by name, across the run's keepers. */
  events: Record<string, number>;
  onEvent: (name: string, event: Record<string, unknown>) => void;
}): ChildProcess {
  const { number, log } = options;
  const child = spawn(process.execPath, [HEDGE_BIN, ...options.args], {
    env: options.env,
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  createInterface({ input: child.stdout }).on('line', (line) => {
    log?.write(`keeper ${number} ${line}\n`);
    let event: Record<string, unknown>;
    try {
      event = JSON.parse(line) as Record<string, unknown>;
    } catch {
      return;
    }
    const name = String(event.event);
    options.events[name] = (options.events[name] ?? 0) + 1;
    options.onEvent(name, event);
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => log?.write(`keeper ${number} stderr: ${chunk}`));
  return child;
}

/**
 * Sends `signal` (SIGTERM: the keeper finishes its step in flight and exits 0, as a supervisor
 * stops it) and waits until it has gone; SIGKILL if it has not within 30 s.
 */
export async function stopKeeper(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise((resolve) => child.once('exit', resolve));
  const bound = setTimeout(() => child.kill('SIGKILL'), 30_000);
  child.kill(signal);
  await gone;
  clearTimeout(bound);
}
