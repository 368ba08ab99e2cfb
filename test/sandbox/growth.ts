// Grows an engine by N hedges through the writes a client sends: open a hedge on each side, let
// the fills land, close both, let the closes land. Indexes, queues and idempotency records grow
// the way real traffic grows them (seedHedges writes past hedges directly and skips all that).
// test/sandbox/growth-check.mjs times it from outside (a call that adds 500 hedges to
// an engine already holding N is 1,000 writes at about N hedges); tests check the state it leaves.

import type { HttpSandboxEngine } from '../../src/sandbox/http/http-engine.js';

/**
 * Adds `hedges` hedges of 1,000 USD, each opened and then closed, from `startMs` (not before the
 * engine's time); time then moves by the fill delay per step. Keys and references are
 * `<keyPrefix>-<n>`, n from 1 (keyPrefix 'grow' by default).
 */
export function growHedges(
  engine: HttpSandboxEngine,
  options: { apiKey: string; hedges: number; startMs: number; keyPrefix?: string },
) {
  const prefix = options.keyPrefix ?? 'grow';
  const stepMs = Math.max(1, engine.fillDelayMs);
  const result = {
    /** Sandbox time after the last close landed. */
    nowMs: options.startMs,
    writes: 0,
    /** Every hedge opened, in order, buy and sell alternating; the n-th has client_reference `<keyPrefix>-<n>`. */
    hedgeIds: [] as string[],
    /** The Idempotency-Key of each write, in order: `<keyPrefix>-<n>`. */
    idempotencyKeys: [] as string[],
  };
  /** A request's data; a write under the next idempotency key. Anything but 200 throws. */
  const send = (method: string, path: string, body?: Record<string, unknown>) => {
    const headers: Record<string, string> = { authorization: `Bearer ${options.apiKey}` };
    if (body) result.idempotencyKeys.push((headers['idempotency-key'] = `${prefix}-${++result.writes}`));
    const response = engine.handle({ method, path, query: {}, headers, body }, result.nowMs);
    if (response.status !== 200)
      throw new Error(`${method} ${path} answered ${response.status}: ${JSON.stringify(response.body.error)}`);
    return response.body.data as any;
  };

  const market = send('GET', '/markets').find((listed: any) => listed.status === 'open')?.market;
  if (market === undefined) throw new Error('growHedges needs an open market');

  while (result.hedgeIds.length < options.hedges) {
    const sides = (['buy', 'sell'] as const).slice(0, options.hedges - result.hedgeIds.length);
    for (const side of sides) {
      const client_reference = `${prefix}-${result.hedgeIds.length + 1}`;
      result.hedgeIds.push(
        send('POST', '/hedges', { market, side, notional_usd: 1_000, tenor_days: 7, client_reference }).id,
      );
    }
    result.nowMs += stepMs;
    for (const side of sides) send('POST', '/hedges/close', { market, side });
    result.nowMs += stepMs;
  }
  // The last closes land at this time: a read now sees every hedge closed.
  send('GET', '/account');
  return result;
}
