// The asking half of `hedge login`: the base URL and the key, from prompts on a terminal (the key
// hidden) or from flags, the environment and stdin otherwise. Nothing is checked against a server here.
import { checkBaseUrl } from '../../core/security/base-url.js';
import { environmentOfKey } from '../../core/security/secrets.js';
import type { Source } from '../../platform/config/credentials.js';
import { readKeyFromStdin } from '../../platform/config/profiles.js';
import type { CommandContext, GlobalOptions } from '../../platform/runtime/context.js';
import { UsageError } from '../../core/errors.js';

const KEY_SHAPE_HINT =
  'Expected <prefix>_live_… or <prefix>_test_… (copy it from the settings area of the partner desk).';

/** The time --timeout leaves, undefined without one. */
const msLeft = (ports: Pick<CommandContext, 'clock' | 'deadline'>) =>
  ports.deadline === undefined ? undefined : ports.deadline - ports.clock.now();

/** The key from a credential helper (`--key-command`), bounded by --timeout like a key read from stdin. */
export function keyFromCommand(
  ports: Pick<CommandContext, 'clock' | 'signal' | 'deadline' | 'env'>,
  keyCommand: string,
) {
  return async () =>
    (await import('../../platform/config/key-command.js')).runKeyCommand(keyCommand, {
      env: ports.env,
      signal: ports.signal,
      timeoutMs: msLeft(ports),
      owner: '--key-command',
    });
}

/** The base URL (the flag's, or asked with the one offered as default) and the key: asked on a terminal, read from stdin otherwise (bounded by --timeout). Refuses to ask with --no-input. */
export async function askLogin(
  ports: Pick<CommandContext, 'clock' | 'signal' | 'deadline' | 'env' | 'prompter'> & {
    io: Pick<CommandContext['io'], 'stdin' | 'stdinIsTTY'>;
    globals: Pick<GlobalOptions, 'input'>;
  },
  given: {
    name: string;
    flagBaseUrl?: string;
    offeredBaseUrl?: string;
    /** Where the key comes from instead of the prompt or stdin (a credential helper, `--key-command`). */
    fetchKey?: () => Promise<string>;
  },
) {
  const { name, flagBaseUrl, offeredBaseUrl, fetchKey } = given;
  if (ports.globals.input && ports.io.stdinIsTTY) {
    const prompter = await ports.prompter();
    const baseUrl =
      flagBaseUrl !== undefined
        ? checkBaseUrl(flagBaseUrl, '--base-url')
        : checkBaseUrl(
            await prompter.input({
              message: 'Base URL of the API (https://…/v2)',
              default: offeredBaseUrl,
              // A key pasted here by mistake is neither echoed back nor left on the screen: the key is asked next, hidden.
              wipeRefused: true,
              validate: (value) => {
                if (environmentOfKey(value.trim()))
                  return 'That is an API key, not a URL: the key is asked next, hidden. Type the base URL here (https://…/v2).';
                try {
                  checkBaseUrl(value, 'the answer');
                  return true;
                } catch (error) {
                  return (error as Error).message;
                }
              },
            }),
            'the answer',
          );
    const apiKey = fetchKey
      ? await fetchKey()
      : (
          await prompter.password({
            message: `API key for profile "${name}" (hidden)`,
            validate: (value) => (environmentOfKey(value.trim()) ? true : KEY_SHAPE_HINT),
          })
        ).trim();
    return { baseUrl, baseUrlSource: (flagBaseUrl !== undefined ? 'flag' : 'profile') as Source, apiKey };
  }
  if (ports.io.stdinIsTTY && !fetchKey)
    throw new UsageError(
      '--no-input: login cannot ask for the key; pipe it in instead: printf %s "$KEY" | hedge login --profile NAME --base-url URL',
    );
  if (!offeredBaseUrl)
    throw new UsageError(
      `--base-url: profile "${name}" has no base URL yet; pass --base-url https://…/v2 (the partner desk gives it) or set HEDGE_BASE_URL.`,
    );
  const baseUrlSource: Source = flagBaseUrl ? 'flag' : ports.env.HEDGE_BASE_URL?.trim() ? 'environment' : 'profile';
  const sourceName =
    baseUrlSource === 'flag' ? '--base-url' : baseUrlSource === 'environment' ? 'HEDGE_BASE_URL' : `profile "${name}"`;
  // The base URL is checked before the key is read, so a typo fails fast and reads nothing.
  const baseUrl = checkBaseUrl(offeredBaseUrl, sourceName);
  // --timeout bounds the wait for a key too: a pipe that never closes must not hang a script.
  const left = msLeft(ports);
  const signal =
    left === undefined ? ports.signal : AbortSignal.any([ports.signal, AbortSignal.timeout(Math.max(0, left))]);
  const apiKey = fetchKey ? await fetchKey() : await readKeyFromStdin(ports.io.stdin, signal);
  return { baseUrl, baseUrlSource, apiKey };
}
