// A credential helper named in the profile (`key_command`).
import { spawn } from 'node:child_process';
import { AuthError, InterruptedError } from '../../core/errors.js';
import { childEnvironment } from '../../core/security/child-env.js';
import { safeText } from '../../core/security/safe-text.js';
import type { Env } from './env.js';

/** Long enough for a helper that asks its own agent to unlock (1Password, gpg-agent), short of a hang. */
export const KEY_COMMAND_BOUND_MS = 30_000;

/** A key is a line of at most a few hundred characters; more output than this is not a key. */
const MAX_OUTPUT_BYTES = 4096;

interface KeyCommandRun {
  env: Env;
  signal?: AbortSignal;
  timeoutMs?: number;
  /** Who asked, for the messages: `profile "desk"` or `--key-command`. */
  owner: string;
}

/** Runs the helper and returns the first line of its output (`pass show` prints the password on the first line and notes after it). */
export function runKeyCommand(command: string, run: KeyCommandRun) {
  const bound = run.timeoutMs ?? KEY_COMMAND_BOUND_MS;
  const shown = safeText(command);
  const hint = `Run \`${shown}\` yourself to see what it prints (its output's first line must be the key), or save a key another way with \`hedge login\`.`;
  return new Promise<string>((resolve, reject) => {
    let child: ReturnType<typeof spawn>;
    try {
      // detached: the shell leads its own process group, so a timeout stops what it started too.
      child = spawn(command, {
        shell: true,
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: process.platform !== 'win32',
        env: childEnvironment(run.env),
        windowsHide: true,
      });
    } catch (error) {
      reject(
        new AuthError(`The key command of ${run.owner} could not start: ${safeText((error as Error).message)}.`, {
          hint,
        }),
      );
      return;
    }
    const stdout: Buffer[] = [];
    let stdoutBytes = 0;
    let stderr = '';
    let failure: Error | undefined;
    const stop = (error: Error) => {
      failure ??= error;
      try {
        if (child.pid !== undefined && process.platform !== 'win32') process.kill(-child.pid, 'SIGKILL');
        else child.kill('SIGKILL');
      } catch {
        // Already gone.
      }
    };
    const timer = setTimeout(
      () =>
        stop(
          new AuthError(
            `The key command of ${run.owner} did not finish within ${bound >= 1000 ? `${Math.round(bound / 1000)} s` : `${bound} ms`} and was stopped; nothing was sent.`,
            { hint },
          ),
        ),
      bound,
    );
    const onAbort = () =>
      stop(new InterruptedError(`Interrupted while the key command of ${run.owner} ran; nothing was sent.`));
    if (run.signal?.aborted) onAbort();
    else run.signal?.addEventListener('abort', onAbort, { once: true });
    child.stdout!.on('data', (chunk) => {
      stdoutBytes += chunk.length;
      if (stdoutBytes > MAX_OUTPUT_BYTES) {
        stop(
          new AuthError(
            `The key command of ${run.owner} printed more than ${MAX_OUTPUT_BYTES} bytes: that is not an API key.`,
            { hint },
          ),
        );
        return;
      }
      stdout.push(chunk);
    });
    child.stderr!.setEncoding('utf8').on('data', (chunk) => {
      // Only its last words are kept, for the message: a chatty helper cannot fill memory.
      stderr = (stderr + chunk).slice(-2000);
    });
    child.on('error', (error) =>
      stop(new AuthError(`The key command of ${run.owner} could not start: ${safeText(error.message)}.`, { hint })),
    );
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      run.signal?.removeEventListener('abort', onAbort);
      if (failure) return reject(failure);
      const said = lastLine(stderr);
      if (code !== 0) {
        const how = code === null ? `was stopped by ${signal}` : `exited ${code}`;
        return reject(
          new AuthError(
            `The key command of ${run.owner} ${how}${said ? `: ${safeText(said)}` : ''}; nothing was sent.`,
            { hint },
          ),
        );
      }
      const key = firstLine(Buffer.concat(stdout).toString('utf8'));
      if (key === '')
        return reject(new AuthError(`The key command of ${run.owner} printed no key; nothing was sent.`, { hint }));
      resolve(key);
    });
  });
}

function firstLine(text: string) {
  return (text.split('\n', 1)[0] ?? '').replace(/\r$/, '').trim();
}

function lastLine(text: string) {
  const lines = text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
  return lines.at(-1)?.slice(0, 300) ?? '';
}
