import { describe, expect, it } from 'vitest';

import {
  HOSTILE_FIELD_NAME,
  HOSTILE_FIELD_VALUE,
  HOSTILE_SEQUENCES,
  type MalformedKind,
} from '../../src/sandbox/index.js';
import { openBody } from '../support/engine.js';
import { api, useSimulators, type SimulatorOptions } from '../support/simulator.js';
import { post, read } from './http-calls.js';

const simulators = useSimulators();
/** A simulator's server, closed after the test: these tests talk to the server itself. */
const start = async (options: SimulatorOptions = {}) => (await simulators({ preset: 'quick', ...options })).sandbox;
const auth = (key: string) => ({ authorization: `Bearer ${key}` });
/** A real-time source that never moves: sandbox time then moves only by clock.advance(). */
const STOPPED_AT_MS = Date.parse('2026-03-02T09:00:00.000Z');

describe('sandbox faults: 503 with Retry-After', () => {
  it('answers 503 with the Retry-After value in seconds, acting on nothing, then recovers', async () => {
    const sandbox = await start();
    sandbox.setFaults({ next503RetryAfter: { count: 1, retryAfter: '2' } });
    const refused = await post(sandbox, '/hedges', openBody('buy', 1_000), 'r-1');
    expect([refused.status, refused.headers.get('retry-after')]).toEqual([503, '2']);
    expect(refused.body).toEqual({
      data: null,
      error: { code: 'service_unavailable', message: 'service unavailable (injected)', details: { retry_after: '2' } },
      meta: {},
    });
    expect(sandbox.engine.state.accounts).toEqual({});
    const retried = await post(sandbox, '/hedges', openBody('buy', 1_000), 'r-1');
    expect([retried.status, retried.headers.get('idempotent-replayed')]).toEqual([200, null]);
    expect(sandbox.requestLog.map((entry) => [entry.status, entry.fault])).toEqual([
      [503, '503-retry-after'],
      [200, null],
    ]);
  });

  it('sends an HTTP-date verbatim, counts down exactly, and follows the match', async () => {
    const sandbox = await start();
    const date = 'Sun, 22 Nov 2026 08:00:05 GMT';
    sandbox.setFaults({ next503RetryAfter: { count: 2, retryAfter: date }, match: { path: '/account' } });
    expect((await api(sandbox, 'GET', '/markets')).status).toBe(200);
    for (let attempt = 0; attempt < 2; attempt++) {
      const response = await api(sandbox, 'GET', '/account');
      expect([response.status, response.headers.get('retry-after')]).toEqual([503, date]);
    }
    expect((await api(sandbox, 'GET', '/account')).status).toBe(200);
    expect(() => sandbox.setFaults({ next503RetryAfter: { count: 1, retryAfter: '2\r\nx: y' } })).toThrow(/printable/);
  });
});

describe('sandbox faults: an error the simulator has no rule for (nextError)', () => {
  it('answers matched requests with the status and code asked, acting on nothing, counting down exactly', async () => {
    const sandbox = await start();
    sandbox.setFaults({ nextError: { count: 2, status: 403, code: 'forbidden' }, match: { method: 'POST' } });
    expect((await api(sandbox, 'GET', '/account')).status).toBe(200);
    for (let attempt = 0; attempt < 2; attempt++) {
      const refused = await post(sandbox, '/hedges', openBody('buy', 1_000), `f-${attempt}`);
      expect([refused.status, refused.body]).toEqual([
        403,
        { data: null, error: { code: 'forbidden', message: 'forbidden (injected)' }, meta: {} },
      ]);
    }
    expect(Object.values(sandbox.engine.state.accounts).flatMap((account) => Object.keys(account.hedges))).toEqual([]);
    expect((await post(sandbox, '/hedges', openBody('buy', 1_000), 'f-2')).status).toBe(200);
    expect(sandbox.requestLog.map((entry) => [entry.method, entry.status, entry.fault])).toEqual([
      ['GET', 200, null],
      ['POST', 403, 'error-403'],
      ['POST', 403, 'error-403'],
      ['POST', 200, null],
    ]);
    expect(() => sandbox.setFaults({ nextError: { count: 1, status: 302, code: 'moved' } })).toThrow(/400 to 599/);
  });
});

describe('sandbox faults: ambiguous answers after a write took effect', () => {
  const cases: Array<{ kind: MalformedKind; status: number; data: boolean; error: boolean }> = [
    { kind: 'error-in-200', status: 200, data: false, error: true },
    { kind: 'data-and-error', status: 200, data: true, error: true },
    { kind: 'data-in-400', status: 400, data: true, error: false },
  ];
  it.each(cases)(
    '$kind: the hedge exists once and a same-key retry replays the real answer',
    async ({ kind, status, data, error }) => {
      // The clock stands still: the hedge is still `submitted` when it is read, however slow the machine.
      const sandbox = await start({ realNow: () => STOPPED_AT_MS });
      sandbox.setFaults({ nextMalformed: { count: 1, kind }, match: { method: 'POST', path: '/hedges' } });
      expect(await read(sandbox, '/hedges')).toEqual([]);
      const answer = await post(sandbox, '/hedges', openBody('sell', 5_000), `amb-${kind}`);
      const [hedge] = await read(sandbox, '/hedges');
      expect(hedge.status).toBe('submitted');
      expect(answer.status).toBe(status);
      expect(Object.keys(answer.body)).toEqual(['data', 'error', 'meta']);
      expect(answer.body.data === null ? null : answer.body.data.id).toBe(data ? hedge.id : null);
      expect(answer.body.error === null ? null : answer.body.error.code).toBe(error ? 'internal_error' : null);

      const retry = await post(sandbox, '/hedges', openBody('sell', 5_000), `amb-${kind}`);
      expect([retry.status, retry.headers.get('idempotent-replayed'), retry.body.data.id, retry.body.error]).toEqual([
        200,
        'true',
        hedge.id,
        null,
      ]);
      expect(await read(sandbox, '/hedges')).toHaveLength(1);
      expect(sandbox.requestLog[1]).toMatchObject({ status, errorCode: null, fault: `malformed-${kind}` });
    },
  );
});

describe('sandbox faults: oversized answer', () => {
  it('pads a matched GET to exactly the size asked, as a valid envelope; writes are never padded', async () => {
    const sandbox = await start();
    const bytes = 3_000_000;
    sandbox.setFaults({ nextOversized: { count: 1, bytes } });
    expect((await post(sandbox, '/quotes', openBody('buy', 1_000))).status).toBe(200);
    const response = await fetch(`${sandbox.baseUrl}/markets`, { headers: auth(sandbox.apiKey) });
    expect([response.status, response.headers.get('content-length')]).toEqual([200, String(bytes)]);
    const text = await response.text();
    expect(Buffer.byteLength(text)).toBe(bytes);
    const envelope = JSON.parse(text) as { data: Array<{ market: string }>; error: null; meta: Record<string, string> };
    expect(envelope.data.map((market) => market.market)).toEqual(['USDTNGN']);
    expect(envelope.error).toBeNull();
    expect(Object.keys(envelope.meta)).toEqual(['source', 'allowed_markets', 'padding']);
    expect(/^x+$/.test(envelope.meta.padding)).toBe(true);
    expect((await api(sandbox, 'GET', '/markets')).headers.get('content-length')).not.toBe(String(bytes));
    expect(sandbox.requestLog.map((entry) => entry.fault)).toEqual([null, 'oversized', null]);
  });

  it('streams a huge answer and stops when the client hangs up; the server keeps serving', async () => {
    const sandbox = await start();
    const bytes = 2 ** 31;
    sandbox.setFaults({ nextOversized: { count: 1, bytes }, match: { path: '/positions' } });
    const abort = new AbortController();
    const response = await fetch(`${sandbox.baseUrl}/positions`, {
      headers: auth(sandbox.apiKey),
      signal: abort.signal,
    });
    expect(response.headers.get('content-length')).toBe(String(bytes));
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    let received = 0;
    while (received < 1_000_000) received += ((await reader.read()).value as Uint8Array).length;
    abort.abort();
    await reader.cancel().catch(() => undefined);
    const after = await api(sandbox, 'GET', '/positions');
    expect([after.status, after.body.data]).toEqual([200, []]);
    expect(() => sandbox.setFaults({ nextOversized: { count: 1, bytes: 0 } })).toThrow(/positive whole number/);
  });
});

describe('sandbox faults: hostile text', () => {
  it('markets keep a valid status and gain a field whose name and value carry escapes; error messages too', async () => {
    const sandbox = await start({ hostileText: true });
    const [market] = await read(sandbox, '/markets');
    expect(market.status).toBe('open');
    expect(market[HOSTILE_FIELD_NAME]).toBe(HOSTILE_FIELD_VALUE);
    for (const sequence of HOSTILE_SEQUENCES) {
      expect(HOSTILE_FIELD_NAME.includes(sequence) && HOSTILE_FIELD_VALUE.includes(sequence)).toBe(true);
    }
    expect(HOSTILE_SEQUENCES).toEqual([
      '\u001b]0;pwned\u0007',
      '\u001b[2J',
      '\u001b]52;c;ZXZpbA==\u0007',
      '\u202e',
      '\u200b',
    ]);
    const missing = await api(sandbox, 'GET', '/hedges/hdg_nope');
    expect(missing.body.error.code).toBe('hedge_not_found');
    expect(missing.body.error.message).toBe(`hedge hdg_nope is not one of yours ${HOSTILE_SEQUENCES.join('')}`);

    sandbox.setFaults({ hostileText: false });
    const [plain] = await read(sandbox, '/markets');
    expect(Object.keys(plain)).toEqual(['market', 'status', 'price', 'available_capacity_usd', 'net_rate_daily_pct']);
  });

  it('stores and echoes any client_reference, control characters included', async () => {
    const sandbox = await start();
    const reference = `deal\u001b]0;pwned\u0007\u001b[2J\u202e\u200b\u0000\t-42`;
    const opened = await post(sandbox, '/hedges', { ...openBody('buy', 2_000), client_reference: reference });
    expect(opened.body.data.client_reference).toBe(reference);
    expect(
      (await api(sandbox, 'GET', `/hedges?client_reference=${encodeURIComponent(reference)}`)).body.data.map(
        (hedge: { id: string }) => hedge.id,
      ),
    ).toEqual([opened.body.data.id]);
    sandbox.clock.advance(100);
    await post(sandbox, '/hedges/close', { market: 'USDTNGN', side: 'buy' });
    sandbox.clock.advance(100);
    expect((await read(sandbox, '/hedges/history'))[0].client_reference).toBe(reference);
  });
});
