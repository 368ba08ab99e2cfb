// Grows an engine to N hedges through the writes a client sends: open a hedge on each side, let
// the fills land, close both, let the closes land. Indexes, queues and idempotency records grow
// the way real traffic grows them (seedHedges writes past hedges directly and skips all that).
// Around each checkpoint it times the writes and a burst of `GET /hedges` one-item pages, for
// bench/ and test/sandbox/growth-check.mjs; tests use the state it leaves, never its timings.

import { performance } from 'node:perf_hooks';

import { wireDialect } from './dialects.js';
import type { SandboxEngine } from './engine.js';
import type { EngineResponse } from './envelope.js';
import type { Side } from './market-model.js';
import type { EngineRequest } from './routes.js';

export interface GrowthOptions {
  apiKey: string;
  /** Hedges to end with, each opened and then closed. */
  hedges: number;
  /** Sandbox time of the first write; time then moves by the fill delay between steps. */
  startMs: number;
  /** Hedge counts at which to report rates, e.g. [100, 10_000]. */
  checkpoints?: readonly number[];
  /** Writes timed before each checkpoint, and list reads timed at it (default 400). */
  sampleSize?: number;
  notionalUsd?: number;
  /** Milliseconds, for the rates only (default performance.now). */
  timer?: () => number;
}

export interface GrowthCheckpoint {
  hedges: number;
  /** Open and close writes per second over the last `sampleSize` writes before the checkpoint. */
  writesPerSecond: number;
  /** `GET /hedges` with a page size of 1, per second, at the checkpoint. */
  listOnePerSecond: number;
}

export interface GrowthResult {
  /** Sandbox time after the last close landed. */
  nowMs: number;
  writes: number;
  /** Every hedge opened, in order; the n-th (from 1) has client_reference `grow-<n>`. */
  hedgeIds: string[];
  /** The Idempotency-Key each write used, in order (`grow-<n>`). */
  idempotencyKeys: string[];
  checkpoints: GrowthCheckpoint[];
}

const SIDES: readonly Side[] = ['buy', 'sell'];

export function growHedges(engine: SandboxEngine, options: GrowthOptions): GrowthResult {
  const timer = options.timer ?? (() => performance.now());
  const sampleSize = options.sampleSize ?? 400;
  const notionalUsd = options.notionalUsd ?? 1_000;
  const stepMs = Math.max(1, engine.fillDelayMs);
  const pageSize = wireDialect(engine.dialect).pageSizeParameter;
  const pending = [...(options.checkpoints ?? [])].filter((count) => count <= options.hedges).sort((a, b) => a - b);
  const result: GrowthResult = { nowMs: options.startMs, writes: 0, hedgeIds: [], idempotencyKeys: [], checkpoints: [] };
  let windowWrites = 0;
  let windowMs = 0;

  const send = (method: string, path: string, extra: Partial<EngineRequest> = {}): EngineResponse => {
    const response = engine.handle(
      { method, path, query: {}, body: undefined, ...extra, headers: { authorization: `Bearer ${options.apiKey}`, ...extra.headers } },
      result.nowMs,
    );
    if (response.status !== 200) throw new Error(`${method} ${path} answered ${response.status}: ${JSON.stringify(response.body.error)}`);
    return response;
  };
  const write = (path: string, body: Record<string, unknown>): EngineResponse => {
    const key = `grow-${++result.writes}`;
    result.idempotencyKeys.push(key);
    const started = timer();
    const response = send('POST', path, { body, headers: { 'idempotency-key': key } });
    // Only the writes just before a checkpoint count towards its rate.
    if (pending.length > 0 && result.hedgeIds.length * 2 >= pending[0] * 2 - sampleSize) {
      windowMs += timer() - started;
      windowWrites++;
    }
    return response;
  };
  const listOnePerSecond = (): number => {
    const started = timer();
    for (let read = 0; read < sampleSize; read++) send('GET', '/hedges', { query: { [pageSize]: '1' } });
    return sampleSize / ((timer() - started) / 1000);
  };

  const markets = send('GET', '/markets').body.data as Array<{ market: string; status: string }>;
  const market = markets.find((listed) => listed.status === 'open')?.market;
  if (market === undefined) throw new Error('growHedges needs an open market');

  while (result.hedgeIds.length < options.hedges) {
    const sides = SIDES.slice(0, Math.min(SIDES.length, options.hedges - result.hedgeIds.length));
    for (const side of sides) {
      const reference = `grow-${result.hedgeIds.length + 1}`;
      const opened = write('/hedges', { market, side, notional_usd: notionalUsd, tenor_days: 7, client_reference: reference });
      result.hedgeIds.push((opened.body.data as { id: string }).id);
    }
    result.nowMs += stepMs;
    for (const side of sides) write('/hedges/close', { market, side });
    result.nowMs += stepMs;
    while (pending.length > 0 && result.hedgeIds.length >= pending[0]) {
      result.checkpoints.push({
        hedges: result.hedgeIds.length,
        writesPerSecond: windowWrites / (windowMs / 1000),
        listOnePerSecond: listOnePerSecond(),
      });
      pending.shift();
      windowWrites = 0;
      windowMs = 0;
    }
  }
  // The last closes land at this time: a read now sees every hedge closed.
  send('GET', '/account');
  return result;
}
