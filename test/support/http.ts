// Plain fetch against a running sandbox, plus a registry that closes every sandbox a test
// started, so no server outlives its test.
import { afterEach } from 'vitest';

import { startSandbox, type RunningSandbox, type SandboxOptions } from '../../src/sandbox/index.js';

export interface ApiResult {
  status: number;
  headers: Headers;
  /** The parsed envelope (test code reads arbitrary fields). */
  body: any;
}

export interface ApiCall {
  body?: unknown;
  /** Sent as is, instead of JSON-encoding `body`. */
  rawBody?: string;
  key?: string | null;
  idempotencyKey?: string;
  signal?: AbortSignal;
}

export async function api(sandbox: RunningSandbox, method: string, path: string, call: ApiCall = {}): Promise<ApiResult> {
  const headers: Record<string, string> = {};
  const key = call.key === undefined ? sandbox.apiKey : call.key;
  if (key !== null) headers.authorization = `Bearer ${key}`;
  if (call.idempotencyKey) headers['idempotency-key'] = call.idempotencyKey;
  let body: string | undefined;
  if (call.rawBody !== undefined) body = call.rawBody;
  else if (call.body !== undefined) body = JSON.stringify(call.body);
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${sandbox.baseUrl}${path}`, { method, headers, body, signal: call.signal });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
}

/** Starts sandboxes that are closed after each test. */
export function useSandboxes(): (options?: SandboxOptions) => Promise<RunningSandbox> {
  const started: RunningSandbox[] = [];
  afterEach(async () => {
    await Promise.all(started.splice(0).map((sandbox) => sandbox.close()));
  });
  return async (options = {}) => {
    const sandbox = await startSandbox({ fillDelayMs: 50, ...options });
    started.push(sandbox);
    return sandbox;
  };
}

export async function waitFor(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

export const openBody = (side: 'buy' | 'sell', notional: number, tenor = 7) => ({
  market: 'USDTNGN',
  side,
  notional_usd: notional,
  tenor_days: tenor,
});
