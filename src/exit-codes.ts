import {
  ApiError,
  AuthError,
  ConfigError,
  InterruptedError,
  InvalidResponseError,
  NetworkError,
  OrderFailedError,
  PreTradeCheckError,
  StillPendingError,
  UsageError,
} from './errors.js';

/** The one table of exit codes: printed by `hedge help exit-codes` and copied into the README. */
export const EXIT_CODES = [
  { code: 0, name: 'ok', meaning: 'the command did what was asked' },
  { code: 1, name: 'unexpected', meaning: 'an unexpected error (a bug, or a config store that cannot be used)' },
  { code: 2, name: 'usage', meaning: 'usage or invalid input; nothing was sent' },
  { code: 3, name: 'rejected', meaning: 'rejected by the API or a pre-trade check (4xx such as exposure_exceeded, no_open_hedge)' },
  { code: 4, name: 'auth', meaning: 'authentication: missing, malformed or refused API key' },
  { code: 5, name: 'network', meaning: 'network or server failure after retries (5xx, 429, timeouts, not the envelope)' },
  { code: 6, name: 'order-failed', meaning: 'the order failed on-chain (status failed); nothing was opened' },
  { code: 7, name: 'pending', meaning: 'still pending when the wait timed out; the action stands' },
  { code: 130, name: 'interrupted', meaning: 'interrupted (Ctrl-C)' },
] as const;

export type ExitCode = (typeof EXIT_CODES)[number]['code'];

export function exitCodeFor(error: unknown): ExitCode {
  if (error instanceof UsageError) return 2;
  if (error instanceof AuthError) return 4;
  if (error instanceof PreTradeCheckError) return 3;
  if (error instanceof ApiError) {
    if (error.status === 401 || error.status === 403) return 4;
    if (error.status >= 500 || error.status === 429) return 5;
    return 3;
  }
  if (error instanceof NetworkError) return 5;
  if (error instanceof InvalidResponseError) return 5;
  if (error instanceof OrderFailedError) return 6;
  if (error instanceof StillPendingError) return 7;
  if (error instanceof InterruptedError) return 130;
  if (error instanceof ConfigError) return 1;
  return 1;
}
