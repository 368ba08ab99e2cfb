// One engine's requests at a given sandbox time, shorter: a GET's data, an open, and an add,
// reduce or close of one USDTNGN side (a close has no notional).
import type { SandboxEngine } from '../../src/sandbox/engine.js';
import { call, openBody, type CallOptions } from '../support/engine.js';

export function on(engine: SandboxEngine) {
  return {
    engine,
    get: (t: number, path: string, options?: CallOptions) => call(engine, t, 'GET', path, options).data,
    open: (t: number, ...body: Parameters<typeof openBody>) =>
      call(engine, t, 'POST', '/hedges', { body: openBody(...body) }),
    quoteFor: (t: number, ...body: Parameters<typeof openBody>) =>
      call(engine, t, 'POST', '/quotes', { body: openBody(...body) }),
    change: (t: number, action: string, side: 'buy' | 'sell', notional?: number, options: CallOptions = {}) =>
      call(engine, t, 'POST', `/hedges/${action}`, {
        body: { market: 'USDTNGN', side, ...(notional === undefined ? {} : { notional_usd: notional }) },
        ...options,
      }),
  };
}
