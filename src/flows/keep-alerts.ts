// `hedge keep --alert-cmd CMD`: each error and drift event as JSON on the command's stdin, through
// /bin/sh. Bounded (its whole process group is killed at the bound), a few at once, a streak of the
// same error sent once, and never fatal to the keeper: a problem with the hook is an event of its
// own. (Alert dedup, "recovered" and --alert-url are built beside this, in their own module.)
import { spawn } from 'node:child_process';
import { childEnvironment } from '../security/child-env.js';
import { safeJson, safeText } from '../security/safe-text.js';
import type { KeepEvent } from '../ui/keep-view.js';

/** An --alert-cmd that has not finished by then is stopped (its whole process group): a hook must never hold the keeper up. */
const ALERT_COMMAND_BOUND_MS = 10_000;
/** At most this many hooks run at once; an event past that is not sent to the hook (it is still in the events). */
const ALERTS_AT_ONCE = 4;

export interface AlertHook {
  send(event: KeepEvent, onProblem: (message: string) => void): void;
  /** Waits for the hooks still running (each bounded). */
  settle(): Promise<void>;
}

/**
 * --alert-cmd: each error and drift event as JSON on the command's stdin, through /bin/sh. Bounded
 * (its whole process group is killed at the bound), a few at once, a streak of the same error sent
 * once, and never fatal to the keeper: a problem with the hook is an event of its own.
 */
export function alertHook(command: string | undefined): AlertHook {
  const running = new Set<Promise<void>>();
  let lastErrorCode: string | undefined;
  return {
    send(event, onProblem) {
      if (!command) return;
      if (event.event === 'error') {
        const streak = `${String(event.code)}|${String(event.market ?? '')}|${String(event.side ?? '')}|${String(event.phase ?? '')}`;
        if (streak === lastErrorCode) return;
        lastErrorCode = streak;
      }
      if (running.size >= ALERTS_AT_ONCE) {
        onProblem(`--alert-cmd: ${ALERTS_AT_ONCE} hooks are still running; this ${event.event} event was not sent to it.`);
        return;
      }
      const hook = runAlertCommand(command, event, onProblem).finally(() => running.delete(hook));
      running.add(hook);
    },
    async settle() {
      await Promise.all(running);
    },
  };
}

function runAlertCommand(command: string, event: KeepEvent, onProblem: (message: string) => void): Promise<void> {
  return new Promise((resolve) => {
    // The hook gets the event, not the keeper's secrets: the key and the store URL are left out of its environment.
    const child = spawn('/bin/sh', ['-c', command], { stdio: ['pipe', 'ignore', 'ignore'], detached: true, env: hookEnvironment(process.env) });
    const timer = setTimeout(() => {
      try {
        // detached: the shell leads its own process group, so everything it started stops too.
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
      onProblem(`--alert-cmd did not finish within ${ALERT_COMMAND_BOUND_MS / 1000} s and was stopped.`);
    }, ALERT_COMMAND_BOUND_MS);
    child.on('error', (error) => onProblem(`--alert-cmd could not run: ${safeText(error.message)}`));
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code !== 0 && code !== null) onProblem(`--alert-cmd exited ${code} for a ${event.event} event.`);
      resolve();
    });
    child.stdin?.on('error', () => {});
    child.stdin?.end(`${safeJson(event)}\n`);
  });
}

/** The keeper's environment less what carries a secret (the API key, the team store's URL, a PostgreSQL password). */
export function hookEnvironment(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return childEnvironment(env);
}
