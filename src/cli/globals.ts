// The global options as the front reads them. Bad values are returned as a problem sentence,
// not thrown: the front holds no error classes (they live once, on the lazily loaded side).
import type { GlobalOptions } from '../runtime/globals.js';

export type GlobalsResult = { globals: GlobalOptions } | { problem: string };

function positiveSeconds(name: string, raw: unknown): number | string | undefined {
  if (raw === undefined) return undefined;
  const value = Number(raw);
  // Plain decimals only: Number() would also take "0x10" or "1e3".
  if (typeof raw !== 'string' || !/^\s*\d*\.?\d+\s*$/.test(raw) || value < 0 || value > 86_400) {
    return `${name}: expected a number of seconds from 0 to 86400 (got "${String(raw)}").`;
  }
  return value;
}

export function parseGlobals(all: Record<string, unknown>): GlobalsResult {
  const timeout = positiveSeconds('--timeout', all.timeout);
  const requestTimeout = positiveSeconds('--request-timeout', all.requestTimeout);
  if (typeof timeout === 'string') return { problem: timeout };
  if (typeof requestTimeout === 'string') return { problem: requestTimeout };
  if (requestTimeout === 0) return { problem: '--request-timeout: expected a number of seconds greater than 0 and at most 86400 (got "0").' };
  return {
    globals: {
      json: all.json === true,
      profile: typeof all.profile === 'string' ? all.profile : undefined,
      demo: all.demo === true,
      yes: all.yes === true,
      input: all.input !== false,
      color: all.color !== false,
      verbose: all.verbose === true,
      timeout,
      requestTimeout,
    },
  };
}
