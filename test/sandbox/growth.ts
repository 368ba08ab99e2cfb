// Grows an engine by N hedges through the writes a client sends: open a hedge on each side, let
// the fills land, close both, let the closes land. Indexes, queues and idempotency records grow
// the way real traffic grows them (seedHedges writes past hedges directly and skips all that).
// test/sandbox/growth-check.mjs times it from outside (a call that adds 500 hedges to
// an engine already holding N is 1,000 writes at about N hedges); tests check the state it leaves.

import type { SandboxEngine } from '../../src/sandbox/engine.js';
import type { EngineResponse } from '../../src/sandbox/http/envelope.js';
import type { Side } from '../../src/sandbox/market-model.js';
import type { EngineRequest } from '../../src/sandbox/http/routes.js';

export interface GrowthOptions {
  apiKey: string;
  /** Hedges to add, each opened and then closed. */
  hedges: number;
  /** Sandbox time of the first write (not before the engine's); time then moves by the fill delay per step. */
  startMs: number;
  /** Idempotency keys and client references are `<keyPrefix>-<n>`, n from 1 (default 'grow'). */
  keyPrefix?: string;
  notionalUsd?: number;
}

export interface GrowthResult {
  /** Sandbox time after the last close landed. */
  nowMs: number;
  writes: number;
  /** Every hedge opened, in order, buy and sell alternating; the n-th has client_reference `<keyPrefix>-<n>`. */
  hedgeIds: string[];
  /** The Idempotency-Key of each write, in order: `<keyPrefix>-<n>`. */
  idempotencyKeys: string[];
}

const SIDES: readonly Side[] = ['buy', 'sell'];

export function growHedges(engine: SandboxEngine, options: GrowthOptions): GrowthResult {
  const prefix = options.keyPrefix ?? 'grow';
  const notionalUsd = options.notionalUsd ?? 1_000;
  const stepMs = Math.max(1, engine.fillDelayMs);
  const result: GrowthResult = { nowMs: options.startMs, writes: 0, hedgeIds: [], idempotencyKeys: [] };

  const send = (method: string, path: string, extra: Partial<EngineRequest> = {}): EngineResponse => {
    const headers = { authorization: `Bearer ${options.apiKey}`, ...extra.headers };
    const response = engine.handle({ method, path, query: {}, body: undefined, ...extra, headers }, result.nowMs);
    if (response.status !== 200)
      throw new Error(`${method} ${path} answered ${response.status}: ${JSON.stringify(response.body.error)}`);
    return response;
  };
  const write = (path: string, body: Record<string, unknown>): EngineResponse => {
    const key = `${prefix}-${++result.writes}`;
    result.idempotencyKeys.push(key);
    return send('POST', path, { body, headers: { 'idempotency-key': key } });
  };

  const markets = send('GET', '/markets').body.data as Array<{ market: string; status: string }>;
  const market = markets.find((listed) => listed.status === 'open')?.market;
  if (market === undefined) throw new Error('growHedges needs an open market');

  while (result.hedgeIds.length < options.hedges) {
    const sides = SIDES.slice(0, Math.min(SIDES.length, options.hedges - result.hedgeIds.length));
    for (const side of sides) {
      const clientReference = `${prefix}-${result.hedgeIds.length + 1}`;
      const opened = write('/hedges', {
        market,
        side,
        notional_usd: notionalUsd,
        tenor_days: 7,
        client_reference: clientReference,
      });
      result.hedgeIds.push((opened.body.data as { id: string }).id);
    }
    result.nowMs += stepMs;
    for (const side of sides) write('/hedges/close', { market, side });
    result.nowMs += stepMs;
  }
  // The last closes land at this time: a read now sees every hedge closed.
  send('GET', '/account');
  return result;
}
