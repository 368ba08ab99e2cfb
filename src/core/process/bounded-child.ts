// A shell command hedge starts (a key helper, an alert hook): without hedge's secrets, in a process group of its own
// (POSIX), and stopped with everything it started when it is told to or outlasts its bound.
import { spawn, type StdioOptions } from 'node:child_process';
import { holdsSecret } from '../security/secrets.js';
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

// What it may see of hedge's environment: all of it but the secrets.
const SECRET_VARIABLES = new Set(['HEDGE_API_KEY', 'HEDGE_JOURNAL_URL', 'PGPASSWORD']);

export function childEnvironment(env: BoundedRun['env']) {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || SECRET_VARIABLES.has(name) || holdsSecret(value)) continue;
    // A proxy's address stays (a hook may need it to reach its chat service); its credentials do not.
    if (!PROXY_VARIABLES.has(name.toLowerCase())) kept[name] = value;
    else
      try {
        const url = new URL(value);
        const bare = !url.username && !url.password;
        url.username = url.password = '';
        kept[name] = bare ? value : url.toString();
      } catch {
        // Not a URL we can read: it may still hold a secret, so it is not passed on.
        kept[name] = '';
      }
  }
  return kept;
}

const PROXY_VARIABLES = new Set(['http_proxy', 'https_proxy', 'all_proxy']);
