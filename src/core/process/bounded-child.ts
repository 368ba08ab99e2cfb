// A shell command hedge starts (a key helper, an alert hook): without hedge's secrets, in a process group of its own
// (POSIX), and stopped with everything it started when it is told to or outlasts its bound.
import { spawn, type StdioOptions } from 'node:child_process';
import { childEnvironment } from '../security/child-env.js';
import { within } from './timers.js';

interface BoundedRun {
  env: Readonly<Record<string, string | undefined>>;
  stdio: StdioOptions;
  boundMs: number;
  /** Why it was stopped once `boundMs` have passed. */
  late: () => Error;
}

/** `stop(reason)` kills the group; `ended` says how the shell ended and the first reason it was stopped for. */
export function spawnBounded(command: string, { env, stdio, boundMs, late }: BoundedRun) {
  const child = spawn(command, {
    shell: true,
    stdio,
    detached: process.platform !== 'win32',
    env: childEnvironment(env),
    windowsHide: true,
  });
  let stopped: Error | undefined;
  const stop = (reason: Error) => {
    stopped ??= reason;
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // No group (Windows) or gone already: the shell alone, if it still runs.
      child.kill('SIGKILL');
    }
  };
  const closed = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('close', (code, signal) => resolve({ code, signal })),
  );
  const ended = within(closed, boundMs, late)
    .catch((reason: Error) => {
      stop(reason);
      return closed;
    })
    .then((end) => ({ ...end, stopped }));
  return { child, stop, ended };
}
