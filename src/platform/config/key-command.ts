// A credential helper named in the profile (`key_command`).
import { AuthError, InterruptedError } from '../../core/errors.js';
import { spawnBounded } from '../../core/process/bounded-child.js';
import { safeText } from '../../core/security/safe-text.js';
import type { Env } from './env.js';
import { formatSpan } from '../../core/duration.js';

/** Long enough for a helper that asks its own agent to unlock (1Password, gpg-agent), short of a hang. */
const KEY_COMMAND_BOUND_MS = 30_000;

/** A key is a line of at most a few hundred characters; more output than this is not a key. */
const MAX_OUTPUT_BYTES = 4096;

/** Runs the helper and returns the first line of its output (`pass show` prints the password on the first line and notes after it). */
export async function runKeyCommand(
  command: string,
  run: {
    env: Env;
    signal?: AbortSignal;
    /** What --timeout leaves; the helper's own bound caps it. */
    timeoutMs?: number;
    /** Who asked, for the messages: `profile "desk"` or `--key-command`. */
    owner: string;
  },
) {
  const bound = Math.max(0, Math.min(KEY_COMMAND_BOUND_MS, run.timeoutMs ?? Infinity));
  const hint = `Run \`${safeText(command)}\` yourself to see what it prints (its output's first line must be the key), or save a key another way with \`hedge login\`.`;
  const refusal = (what: string) => new AuthError(`The key command of ${run.owner} ${what}`, { hint });
  let started;
  try {
    started = spawnBounded(command, {
      env: run.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      boundMs: bound,
      late: () => refusal(`did not finish within ${formatSpan(bound)} and was stopped; nothing was sent.`),
    });
  } catch (error) {
    throw refusal(`could not start: ${safeText((error as Error).message)}.`);
  }
  const { child, stop, ended } = started;
  const stdout: Buffer[] = [];
  let stdoutBytes = 0;
  let stderr = '';
  const onAbort = () =>
    stop(new InterruptedError(`Interrupted while the key command of ${run.owner} ran; nothing was sent.`));
  if (run.signal?.aborted) onAbort();
  else run.signal?.addEventListener('abort', onAbort, { once: true });
  child.stdout!.on('data', (chunk: Buffer) => {
    stdoutBytes += chunk.length;
    if (stdoutBytes > MAX_OUTPUT_BYTES)
      return stop(refusal(`printed more than ${MAX_OUTPUT_BYTES} bytes: that is not an API key.`));
    stdout.push(chunk);
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk) => {
    // Only its last words are kept, for the message: a chatty helper cannot fill memory.
    stderr = (stderr + chunk).slice(-2000);
  });
  child.on('error', (error) => stop(refusal(`could not start: ${safeText(error.message)}.`)));
  const { code, signal, stopped } = await ended;
  run.signal?.removeEventListener('abort', onAbort);
  if (stopped) throw stopped;
  // Its last line that says something, cut short.
  const said = stderr
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .at(-1)
    ?.slice(0, 300);
  if (code !== 0) {
    const how = code === null ? `was stopped by ${signal}` : `exited ${code}`;
    throw refusal(`${how}${said ? `: ${safeText(said)}` : ''}; nothing was sent.`);
  }
  // The first line (`pass show` prints notes after it), a CR or spaces around it dropped.
  const key = Buffer.concat(stdout).toString('utf8').split('\n', 1)[0].trim();
  if (key === '') throw refusal('printed no key; nothing was sent.');
  return key;
}
