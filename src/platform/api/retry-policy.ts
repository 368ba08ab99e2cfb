export const DEFAULT_RETRY_POLICY = {
  /** Attempts in all, the first included. */
  maxAttempts: 5,
  baseDelayMs: 300,
  maxDelayMs: 5_000,
  /** No retry is started once this much time has gone by since the first attempt. */
  maxTotalMs: 30_000,
  /** A Retry-After longer than this is not waited out: the error is reported instead. */
  maxRetryAfterMs: 30_000,
  /** How long a write refused for a conflict that names its Retry-After (another change landing on the side first) keeps being sent again: as long as a wait for its own landing would last. */
  maxConflictWaitMs: 120_000,
};

export type RetryPolicy = typeof DEFAULT_RETRY_POLICY;

/** Exponential backoff with "equal jitter": half fixed, half random, so clients spread out. */
export function backoffDelayMs(policy: RetryPolicy, attempt: number, random = Math.random) {
  const exponential = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.round(exponential / 2 + random() * (exponential / 2));
}

/** Retry-After is delta-seconds or an HTTP date (RFC 9110 §10.2.3); anything else (`-5`, `soon`) is taken as absent, so the
 * usual backoff applies: a date names its month (`Sun, 06 Nov 1994 08:49:37 GMT`), where Date.parse would read `-5` as a
 * year long gone and retry at once. */
export function parseRetryAfterMs(header: string | undefined, nowMs: number) {
  if (!header) return;
  const trimmed = header.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  if (!/\b(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b/i.test(trimmed)) return;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
}

export type RetryReason = 'network' | 'server-error' | 'rate-limited' | 'in-flight' | 'conflict';
