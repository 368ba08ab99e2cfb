// Calls the engine the way the server does, with an explicit sandbox time, so engine tests read
// like HTTP exchanges without any socket or clock.
import type { EngineOptions } from '../../src/sandbox/engine-state.js';
import { createHttpEngine, type HttpSandboxEngine } from '../../src/sandbox/http/http-engine.js';
import type { Envelope, EngineResponse } from '../../src/sandbox/http/envelope.js';

export const KEY_A = 'hpk_test_AAAAAAAAAAAAAAAAAAAAAAAA';
export const KEY_B = 'hpk_test_BBBBBBBBBBBBBBBBBBBBBBBB';
export const DAY = 24 * 3_600_000;
/** A fixed sandbox start time: 2026-11-22T08:00:00Z. */
export const T0 = Date.UTC(2026, 10, 22, 8);

export function makeEngine(options: Partial<EngineOptions> = {}) {
  return createHttpEngine({ apiKeys: [KEY_A, KEY_B], fillDelayMs: 1000, seed: 'engine-tests', ...options });
}

/** A request's headers: `key` as its bearer (null: none) and its idempotency key, if any. */
export function requestHeaders(key: string | null, idempotencyKey?: string) {
  const headers: Record<string, string> = {};
  if (key !== null) headers.authorization = `Bearer ${key}`;
  if (idempotencyKey !== undefined) headers['idempotency-key'] = idempotencyKey;
  return headers;
}

export interface CallOptions {
  key?: string | null;
  body?: unknown;
  query?: Record<string, string>;
  idempotencyKey?: string;
  realTimeMs?: number;
}

interface CallResult extends EngineResponse {
  /** Test code reads arbitrary fields of the payload. */
  data: any;
  error: Envelope['error'];
}

export function call(
  engine: HttpSandboxEngine,
  nowMs: number,
  method: string,
  path: string,
  options: CallOptions = {},
): CallResult {
  const headers = requestHeaders(options.key === undefined ? KEY_A : options.key, options.idempotencyKey);
  const response = engine.handle({ method, path, query: options.query ?? {}, headers, body: options.body }, nowMs, {
    realTimeMs: options.realTimeMs,
  });
  return { ...response, data: response.body.data, error: response.body.error };
}

export function openBody(side: 'buy' | 'sell', notional: number, tenor = 7, extra: Record<string, unknown> = {}) {
  return { market: 'USDTNGN', side, notional_usd: notional, tenor_days: tenor, ...extra };
}

/** Opens a hedge and moves time past its fill; returns the filled hedge and the time after. */
export function openFilled(engine: HttpSandboxEngine, nowMs: number, side: 'buy' | 'sell', notional: number) {
  const opened = call(engine, nowMs, 'POST', '/hedges', { body: openBody(side, notional) });
  if (opened.status !== 200) throw new Error(`open failed: ${JSON.stringify(opened.body)}`);
  const now = nowMs + 1500;
  return { hedge: call(engine, now, 'GET', `/hedges/${opened.data.id}`).data, now };
}
