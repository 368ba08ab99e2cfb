// "Does this key work against this base URL?" — one authenticated read (GET /account), used by
// `hedge login` before it saves anything and by `hedge whoami`. The answer is one of four words a
// script can branch on; the error behind it is kept so that login can report it in full.
import type { ClientSettings, CommandContext } from '../../platform/runtime/context.js';
import { ApiError, InvalidResponseError, NetworkError } from '../../core/errors.js';
import type { ResolvedCredentials } from '../../platform/config/credentials.js';

/** A check answers a person who is waiting: one retry for a blip, not the full trading budget. */
const CHECK_RETRY = { maxAttempts: 2, maxTotalMs: 5_000 };

/** What a key check uses of its command. */
export type CheckPorts = Pick<CommandContext, 'env' | 'clock' | 'signal' | 'log' | 'clientFor'>;

/** A check's client (login, whoami, doctor): the command's own but for a check's retry budget; `more`: what else the doctor watches. */
export const checkClient = (ports: CheckPorts, credentials: ResolvedCredentials, more?: ClientSettings) =>
  // A check names no --timeout in its errors.
  ports.clientFor(credentials, { timeoutSeconds: undefined, retry: CHECK_RETRY, ...more });

/** A refused key: 401 or 403. */
export const isRefusal = (error: unknown): error is ApiError =>
  error instanceof ApiError && (error.status === 401 || error.status === 403);

/** The key's status (ok: accepted; refused: 401/403; unreachable: no answer (connection, TLS, timeout, 5xx after retries); error: answered, but not as the API would, e.g. a 404 from a wrong base URL), and when not ok the API's error.code (or the network error's code), its message and the error itself. */
export async function checkKey(ports: CheckPorts, credentials: ResolvedCredentials) {
  const client = await checkClient(ports, credentials);
  try {
    await client.getAccount();
    return { status: 'ok' as const };
  } catch (error) {
    if (!(error instanceof ApiError || error instanceof NetworkError || error instanceof InvalidResponseError))
      throw error;
    const status = isRefusal(error) ? 'refused' : error instanceof NetworkError ? 'unreachable' : 'error';
    const code = error instanceof InvalidResponseError ? 'invalid_response' : error.code;
    return { status, code, message: error.message, error };
  }
}

/** What to do about a refused key: one from HEDGE_API_KEY is fixed there, as it comes before any profile `hedge login` saves. */
export function refusedKeyNext(credentials: ResolvedCredentials, login: string) {
  const check = `Check the key (a ${credentials.environment} key for this server?)`;
  return credentials.sources.apiKey === 'environment'
    ? `${check}: it is HEDGE_API_KEY, which comes before any saved profile; set the right key there, or unset it and save one with \`${login}\`.`
    : `${check} and save the right one with \`${login}\`.`;
}
