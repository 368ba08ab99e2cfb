// One engine's requests at a given sandbox time, shorter: a GET's data (a hedge's by its id), a POST, an open (with an
// Idempotency-Key when given one), and an add, reduce or close of one USDTNGN side (a close has no notional).
// Given options rather than an engine, a new engine of makeEngine()'s.
import type { EngineOptions } from '../../src/sandbox/engine-state.js';
import type { HttpSandboxEngine } from '../../src/sandbox/http/http-engine.js';
import { call, makeEngine, openBody, openFilled, T0, type CallOptions } from '../support/engine.js';

export function on(from: HttpSandboxEngine | Partial<EngineOptions> = {}) {
  const engine = 'handle' in from ? from : makeEngine(from);
  const post = (t: number, path: string, body: unknown, options: CallOptions = {}) =>
    call(engine, t, 'POST', path, { body, ...options });
  return {
    engine,
    post,
    get: (t: number, path: string, options?: CallOptions) => call(engine, t, 'GET', path, options).data,
    hedgeAt: (t: number, id: string) => call(engine, t, 'GET', `/hedges/${id}`).data,
    open: (t: number, ...body: Parameters<typeof openBody>) => post(t, '/hedges', openBody(...body)),
    /** An open filled 1.5 s after `t`: the hedge then, and that time. */
    filled: (side: 'buy' | 'sell', notional: number, t = T0) => openFilled(engine, t, side, notional),
    keyed: (t: number, idempotencyKey: string, side: 'buy' | 'sell', notional: number, options: CallOptions = {}) =>
      post(t, '/hedges', openBody(side, notional), { idempotencyKey, ...options }),
    quoteFor: (t: number, ...body: Parameters<typeof openBody>) => post(t, '/quotes', openBody(...body)),
    change: (t: number, action: string, side: 'buy' | 'sell', notional?: number, options: CallOptions = {}) =>
      post(
        t,
        `/hedges/${action}`,
        { market: 'USDTNGN', side, ...(notional === undefined ? {} : { notional_usd: notional }) },
        options,
      ),
  };
}
