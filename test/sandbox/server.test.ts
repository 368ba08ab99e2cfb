import { describe, expect, it } from 'vitest';

import { openBody } from '../support/engine.js';
import { until } from '../support/polling.js';
import { api, useSimulators, type SimulatorOptions } from '../support/simulator.js';
import { answered, post, read, statusOf } from './http-calls.js';

const REQUEST_ID = /^req_[0-9a-f]{16}$/;
const simulators = useSimulators();
/** A simulator's server, closed after the test: these tests talk to the server itself. */
const start = async (options: SimulatorOptions = {}) => (await simulators({ preset: 'quick', ...options })).sandbox;

describe('sandbox server: endpoints over HTTP', () => {
  it('answers every endpoint with the envelope and an x-request-id', async () => {
    const sandbox = await start();
    const opened = await post(sandbox, '/hedges', openBody('buy', 10_000), 'open-1');
    sandbox.clock.advance(100);
    const calls: Array<[string, string, unknown?]> = [
      ['GET', '/markets'],
      ['GET', '/prices?symbols=USDTNGN'],
      ['POST', '/quotes', openBody('sell', 5_000)],
      ['GET', '/hedges?limit=10'],
      ['GET', `/hedges/${opened.body.data.id}`],
      ['GET', '/hedges/history'],
      ['GET', '/positions'],
      ['GET', '/account'],
      ['POST', '/hedges/add', { market: 'USDTNGN', side: 'buy', notional_usd: 1_000 }],
    ];
    expect(opened.status).toBe(200);
    expect(opened.headers.get('x-request-id')).toMatch(REQUEST_ID);
    for (const [method, path, body] of calls) {
      const response = await api(sandbox, method, path, { body });
      expect(response.status, `${method} ${path}`).toBe(200);
      expect(Object.keys(response.body).sort()).toEqual(['data', 'error', 'meta']);
      expect(response.body.error).toBeNull();
      expect(response.headers.get('x-request-id')).toMatch(REQUEST_ID);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    }
    sandbox.clock.advance(100);
    expect(
      (await post(sandbox, '/hedges/reduce', { market: 'USDTNGN', side: 'buy', notional_usd: 1_000 })).body.data.action,
    ).toBe('reduce');
    sandbox.clock.advance(100);
    const closed = await post(sandbox, '/hedges/close', { market: 'USDTNGN', side: 'buy' });
    expect(closed.body.data).toMatchObject({ action: 'close', status: 'submitted' });
    const markets = await api(sandbox, 'GET', '/markets');
    expect(markets.body.meta).toEqual({ source: 'onchain', allowed_markets: ['USDTNGN'] });
  });

  it('answers unknown paths with a 404 envelope and malformed JSON with a 400 envelope', async () => {
    const sandbox = await start();
    expect(await api(sandbox, 'GET', '/no-such-thing')).toMatchObject({
      status: 404,
      body: { data: null, error: { code: 'not_found' }, meta: {} },
    });
    const outside = await fetch(sandbox.baseUrl.replace('/partners/sandbox/v2', '/v1/markets'));
    expect(outside.status).toBe(404);
    expect(((await outside.json()) as { error: { code: string } }).error.code).toBe('not_found');
    expect(outside.headers.get('x-request-id')).toMatch(REQUEST_ID);

    expect(await api(sandbox, 'POST', '/hedges', { rawBody: '{"market": "USDTNGN",' })).toMatchObject({
      status: 400,
      body: { data: null, error: { code: 'invalid_json' } },
    });
    const wrongMethod = await api(sandbox, 'PUT', '/markets');
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('GET');
    expect(answered(await api(sandbox, 'GET', '/account', { key: null }))).toEqual([401, 'unauthorized']);
  });

  it('logs every request with its outcome', async () => {
    const realNow = Date.UTC(2026, 10, 22, 8);
    const sandbox = await start({ realNow: () => realNow });
    await post(sandbox, '/hedges?x=1', openBody('buy', 1_000), 'logged');
    await api(sandbox, 'GET', '/hedges/hdg_nope');
    const [open, missing] = sandbox.requestLog;
    expect(open).toMatchObject({
      method: 'POST',
      path: '/hedges',
      query: { x: '1' },
      idempotencyKey: 'logged',
      body: openBody('buy', 1_000),
      status: 200,
      errorCode: null,
      fault: null,
    });
    // Real time stands still here, and sandbox time starts at it.
    expect([open.sandboxTimeMs, open.realTimeMs]).toEqual([realNow, realNow]);
    expect(missing).toMatchObject({
      method: 'GET',
      status: 404,
      errorCode: 'hedge_not_found',
      idempotencyKey: null,
      body: null,
    });
  });
});

describe('sandbox server: fault injection', () => {
  it('next5xx answers 500/503 envelopes without acting, then recovers', async () => {
    const sandbox = await start();
    sandbox.setFaults({ next5xx: 2 });
    for (let i = 0; i < 2; i++) {
      const response = await post(sandbox, '/hedges', openBody('buy', 1_000));
      expect([500, 503]).toContain(response.status);
      expect(['internal_error', 'service_unavailable']).toContain(response.body.error.code);
      expect(response.headers.get('x-request-id')).toMatch(REQUEST_ID);
    }
    expect(await read(sandbox, '/hedges')).toEqual([]);
    expect((await post(sandbox, '/hedges', openBody('buy', 1_000))).status).toBe(200);
    expect(sandbox.requestLog.map((entry) => entry.fault)).toEqual(['5xx', '5xx', null, null]);
  });

  it('next429 answers rate_limited with Retry-After', async () => {
    const sandbox = await start();
    sandbox.setFaults({ next429: 1 });
    const limited = await api(sandbox, 'GET', '/markets');
    expect([limited.status, limited.headers.get('retry-after')]).toEqual([429, '1']);
    expect(limited.body.error).toMatchObject({ code: 'rate_limited', details: { retry_after_ms: 1000 } });
    expect(await statusOf(sandbox, '/markets')).toBe(200);
  });

  it('drop after commit: the fetch fails, the hedge exists exactly once, a same-key retry replays it', async () => {
    const sandbox = await start();
    sandbox.setFaults({ nextDropAfterCommit: 1 });
    // Reads are never dropped: the countdown waits for a committing write.
    expect(await statusOf(sandbox, '/markets')).toBe(200);
    await expect(post(sandbox, '/hedges', openBody('sell', 25_000), 'drop-1')).rejects.toThrow();
    const listed = await api(sandbox, 'GET', '/hedges');
    expect(listed.body.data).toHaveLength(1);
    const retry = await post(sandbox, '/hedges', openBody('sell', 25_000), 'drop-1');
    expect([retry.status, retry.headers.get('idempotent-replayed'), retry.body.data.id]).toEqual([
      200,
      'true',
      listed.body.data[0].id,
    ]);
    expect(await read(sandbox, '/hedges')).toHaveLength(1);
    expect(sandbox.requestLog[1]).toMatchObject({ status: 'dropped', fault: 'drop-after-commit' });
  });

  it('shares given as options fault a seeded proportion of requests', async () => {
    const sandbox = await start({ fault5xx: 1 });
    expect(await statusOf(sandbox, '/markets')).toBeGreaterThanOrEqual(500);
    sandbox.setFaults({ fault5xx: 0, fault429: 1 });
    expect(await statusOf(sandbox, '/markets')).toBe(429);
    sandbox.setFaults({ fault429: 0, dropAfterCommit: 1 });
    expect(await statusOf(sandbox, '/markets')).toBe(200);
    await expect(post(sandbox, '/hedges', openBody('buy', 1_000))).rejects.toThrow();
    sandbox.setFaults({ dropAfterCommit: 0, fault5xx: 0.5 });
    const statuses: number[] = [];
    for (let i = 0; i < 40; i++) statuses.push(await statusOf(sandbox, '/account'));
    // The shares are drawn from the seed: the same requests fault on every run.
    expect(statuses.filter((status) => status === 200).length).toBe(20);
    expect(statuses.filter((status) => status >= 500).length).toBe(20);
    expect(() => sandbox.setFaults({ fault5xx: 2 })).toThrow(/share/);
  });

  it('latency holds the request (key in flight), and the held request completes even if the client hung up', async () => {
    const sandbox = await start();
    sandbox.setFaults({ nextLatency: { count: 1, ms: 150 } });
    const started = Date.now();
    expect(await statusOf(sandbox, '/markets')).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    expect(sandbox.requestLog[0].fault).toBe('latency');

    sandbox.setFaults({ latencyMs: 150, match: { method: 'POST' } });
    const abort = new AbortController();
    const hungUp = api(sandbox, 'POST', '/hedges', {
      body: openBody('buy', 2_000),
      idempotencyKey: 'gone',
      signal: abort.signal,
    });
    await until(() => sandbox.requestLog.some((entry) => entry.idempotencyKey === 'gone'));
    const entry = sandbox.requestLog.find((logged) => logged.idempotencyKey === 'gone');
    expect(entry?.status).toBe('pending');
    abort.abort();
    await expect(hungUp).rejects.toThrow();
    await until(() => entry?.status === 200);
    expect(await read(sandbox, '/hedges')).toHaveLength(1);
  });

  it('stall headers never answers and stall body hangs mid-body; close() still returns', async () => {
    const sandbox = await start();
    const markets = (signal?: AbortSignal) =>
      fetch(`${sandbox.baseUrl}/markets`, { headers: { authorization: `Bearer ${sandbox.apiKey}` }, signal });
    sandbox.setFaults({ stall: 'headers' });
    await expect(api(sandbox, 'GET', '/markets', { signal: AbortSignal.timeout(150) })).rejects.toThrow();
    expect(sandbox.requestLog[0]).toMatchObject({ status: 'stalled', fault: 'stall-headers' });

    sandbox.setFaults({ stall: 'body' });
    const abort = new AbortController();
    const response = await markets(abort.signal);
    expect(response.status).toBe(200);
    setTimeout(() => abort.abort(), 150);
    await expect(response.text()).rejects.toThrow();
    expect(sandbox.requestLog[1]).toMatchObject({ status: 'stalled', fault: 'stall-body' });

    // One more stalled request left open on purpose: close() must cut it.
    void markets().catch(() => undefined);
    await until(() => sandbox.requestLog.length === 3);
    sandbox.setFaults({ stall: null });
    expect(await statusOf(sandbox, '/markets')).toBe(200);
    await sandbox.close();
  });

  it('malformed responses: an HTML 502 page, truncated JSON with 200, an envelope with wrong types', async () => {
    const sandbox = await start();
    const markets = () =>
      fetch(`${sandbox.baseUrl}/markets`, { headers: { authorization: `Bearer ${sandbox.apiKey}` } });
    sandbox.setFaults({ nextMalformed: { count: 1, kind: 'html' } });
    const html = await markets();
    expect(html.status).toBe(502);
    expect(html.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await html.text()).toMatch(/^<html>/);

    sandbox.setFaults({ nextMalformed: { count: 1, kind: 'truncated' } });
    const truncated = await markets();
    expect(truncated.status).toBe(200);
    const text = await truncated.text();
    expect(text.startsWith('{"data":')).toBe(true);
    expect(() => JSON.parse(text)).toThrow();

    sandbox.setFaults({ nextMalformed: { count: 1, kind: 'wrong-types' } });
    const wrong = await api(sandbox, 'GET', '/markets');
    const [first] = wrong.body.data;
    expect([wrong.status, typeof first.price, typeof first.market, Array.isArray(wrong.body.meta)]).toEqual([
      200,
      'string',
      'number',
      true,
    ]);
    expect(sandbox.requestLog.map((entry) => entry.fault)).toEqual([
      'malformed-html',
      'malformed-truncated',
      'malformed-wrong-types',
    ]);
  });
});

// Hedge ids: unique across simulator restarts (a script's log must not see the same id twice from
// two test runs), sorted by creation; reproducible on a seeded, frozen simulator (trailing-views.test.ts
// compares the hedge lists of two such simulators).
const ID = /^hdg_[a-z0-9]{24}$/;

async function openId(
  simulator: Awaited<ReturnType<typeof simulators>>,
  side: 'buy' | 'sell',
  key: string,
): Promise<string> {
  const opened = await api(simulator.sandbox, 'POST', '/hedges', { body: openBody(side, 10_000), idempotencyKey: key });
  expect(opened.status, JSON.stringify(opened.body)).toBe(200);
  return opened.body.data.id as string;
}

describe('sandbox hedge ids', () => {
  it('two starts, even on one frozen clock without a seed, give different ids of one shape (the random part)', async () => {
    const now = () => Date.parse('2026-03-02T09:00:00.000Z');
    const first = await openId(await simulators({ preset: 'plain', realNow: now }), 'buy', 'k-1');
    const second = await openId(await simulators({ preset: 'plain', realNow: now }), 'buy', 'k-1');
    // Same instant, same default seed: only the per-start random part tells them apart.
    expect([first, second]).toEqual([expect.stringMatching(ID), expect.stringMatching(ID)]);
    expect(first.slice(0, 13)).toBe(second.slice(0, 13));
    expect(second).not.toBe(first);
  });

  it('ids sort in creation order, also within one instant of sandbox time', async () => {
    const simulator = await simulators({ preset: 'frozen' });
    const ids: string[] = [];
    for (const [index, side] of (['buy', 'sell'] as const).entries())
      ids.push(await openId(simulator, side, `k-${index}`));
    simulator.advance(3_600_000);
    await api(simulator.sandbox, 'POST', '/hedges/close', {
      body: { market: 'USDTNGN', side: 'buy' },
      idempotencyKey: 'c-1',
    });
    simulator.advance(3_600_000);
    ids.push(await openId(simulator, 'buy', 'k-9'));
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
