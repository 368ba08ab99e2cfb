// What both soaks (keeper-soak.ts, exposures-soak.ts) share: their settings, their output files, and
// their keepers: `hedge keep … --json` run as processes of their own, one after another (a restart
// after each kill). Each line a keeper prints is copied to the soak's log and, when it is an event,
// counted by name and handed to the soak; its stderr goes to the log too.
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { baseEnv, HEDGE_BIN, ROOT } from '../support/hedge-cli.js';
import type { Simulator } from '../support/simulator.js';

/** A soak's setting, which its runner (scripts/soak-*.mjs) always sets: the soaks run only through it. */
export function soakSetting(name: string) {
  const value = process.env[name];
  if (value === undefined)
    throw new Error(`${name} is not set: run the soaks with npm run soak or npm run soak:keeper.`);
  return value;
}

export const round2 = (value: number) => Math.round(value * 100) / 100;
export const iso = (ms: number) => new Date(ms).toISOString();

/** Lines written to `file` (appended to with `flags` 'a'); end() resolves once they are on disk, and ends it once. */
export function outFile(file: string, flags = 'w') {
  const stream = createWriteStream(file, { flags });
  return {
    write: (text: string) => stream.write(text),
    end: () => new Promise<void>((resolve) => (stream.writableEnded ? resolve() : stream.end(resolve))),
  };
}

/**
 * Every keeper started and not exited: killed when the test file ends, so a soak that times out
 * (its promise is then never finished) leaves no keeper running.
 */
const running = new Set<ChildProcess>();
afterAll(() => {
  for (const child of running) child.kill('SIGKILL');
});

/**
 * `number` is the newest keeper's (from 1), `current` its process, `events` the events counted by
 * name across them; `onEvent` gets each event with the number of the keeper that printed it.
 * close() kills the keeper still running and closes the log.
 */
export function soakKeepers(
  sim: Simulator,
  logFile: string,
  onEvent: (name: string, event: Record<string, unknown>, number: number) => void,
) {
  const log = outFile(logFile, 'a');
  const keepers = {
    number: 0,
    current: undefined as ChildProcess | undefined,
    events: {} as Record<string, number>,
    log,
    /** The arguments after `hedge`: `keep FILE … --json`. */
    start(args: readonly string[]) {
      const number = (keepers.number += 1);
      const child = spawn(process.execPath, [HEDGE_BIN, ...args], {
        env: { ...baseEnv(sim.configDir), ...sim.env },
        cwd: ROOT,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      running.add(child);
      child.once('exit', () => running.delete(child));
      createInterface({ input: child.stdout }).on('line', (line) => {
        log.write(`keeper ${number} ${line}\n`);
        let event: Record<string, unknown>;
        try {
          event = JSON.parse(line);
        } catch {
          return;
        }
        const name = String(event.event);
        keepers.events[name] = (keepers.events[name] ?? 0) + 1;
        onEvent(name, event, number);
      });
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => log.write(`keeper ${number} stderr: ${chunk}`));
      keepers.current = child;
      return child;
    },
    async close() {
      const child = keepers.current;
      if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await log.end();
    },
  };
  return keepers;
}

/**
 * Sends `signal` (SIGTERM: the keeper finishes its step in flight and exits 0, as a supervisor
 * stops it) and waits until it has gone; SIGKILL if it has not within 30 s.
 */
export async function stopKeeper(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM') {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise((resolve) => child.once('exit', resolve));
  const bound = setTimeout(() => child.kill('SIGKILL'), 30_000);
  child.kill(signal);
  await gone;
  clearTimeout(bound);
}
