import {
  type FaultSettings,
  HOSTILE_FIELD_NAME,
  HOSTILE_FIELD_VALUE,
  HOSTILE_SEQUENCES,
  type MalformedKind,
} from '../../src/sandbox/http/server.js';
import { openBody, T0 } from '../support/engine.js';
import { until } from '../support/polling.js';
import { api, FROZEN_START_MS, useSimulators, type ApiTarget } from '../support/simulator.js';
import { post, read, statusOf, useSandboxes } from './http-calls.js';

const REQUEST_ID = /^req_[0-9a-f]{16}$/;
const simulators = useSimulators();
/** A simulator's server, closed after the test: these tests talk to the server itself. */
const start = useSandboxes();
/** A bare fetch of a GET on the server (the body read as the test needs it). */
const raw = (sandbox: ApiTarget, path = '/markets', signal?: AbortSignal) =>
  fetch(`${sandbox.baseUrl}${path}`, { headers: { authorization: `Bearer ${sandbox.apiKey}` }, signal });

it('sandbox server: endpoints over HTTP: logs every request with its outcome; answers every endpoint with the envelope and an x-request-id, a path outside the base with a 404 envelope and malformed JSON with a 400 envelope', async () => {
  const sandbox = await start({ realNow: () => T0 });
  const opened = await post(sandbox, '/hedges?x=1', openBody('buy', 10_000), 'logged');
  await api(sandbox, 'GET', '/hedges/hdg_nope');
  expect(sandbox.requestLog).toMatchObject([
    {
      method: 'POST',
      path: '/hedges',
      query: { x: '1' },
      idempotencyKey: 'logged',
      body: openBody('buy', 10_000),
      status: 200,
      errorCode: null,
      fault: null,
      acted: true,
      // Real time stands still here, and sandbox time starts at it.
      sandboxTimeMs: T0,
      realTimeMs: T0,
    },
    { method: 'GET', status: 404, errorCode: 'hedge_not_found', idempotencyKey: null, body: null, acted: false },
  ]);
  sandbox.clock.advance(100);
  expect([opened.status, opened.headers.get('x-request-id')]).toEqual([200, expect.stringMatching(REQUEST_ID)]);
  for (const [method, path, body] of [
    ['GET', '/markets'],
    ['GET', '/prices?symbols=USDTNGN'],
    ['POST', '/quotes', openBody('sell', 5_000)],
    ['GET', '/hedges?limit=10'],
    ['GET', `/hedges/${opened.body.data.id}`],
    ['GET', '/hedges/history'],
    ['GET', '/positions'],
    ['GET', '/account'],
    ['POST', '/hedges/add', { market: 'USDTNGN', side: 'buy', notional_usd: 1_000 }],
  ] as const) {
    const { status, body: envelope, headers } = await api(sandbox, method, path, { body });
    expect(
      [status, Object.keys(envelope).sort(), envelope.error, headers.get('x-request-id'), headers.get('content-type')],
      `${method} ${path}`,
    ).toEqual([
      200,
      ['data', 'error', 'meta'],
      null,
      expect.stringMatching(REQUEST_ID),
      expect.stringMatching(/^application\/json/),
    ]);
  }
  // Unknown paths, wrong methods and keys under the base path: engine-rules.test.ts, "engine: authentication, validation and routing, and accounts".
  const outside = await fetch(sandbox.baseUrl.replace('/partners/sandbox/v2', '/v1/markets'));
  expect([outside.status, ((await outside.json()) as any).error.code, outside.headers.get('x-request-id')]).toEqual([
    404,
    'not_found',
    expect.stringMatching(REQUEST_ID),
  ]);

  expect(await api(sandbox, 'POST', '/hedges', { rawBody: '{"market": "USDTNGN",' })).toMatchObject({
    status: 400,
    body: { data: null, error: { code: 'invalid_json' } },
  });
});

it('sandbox server: fault injection: shares given as options fault a seeded proportion of requests', async () => {
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
  expect([
    statuses.filter((status) => status === 200).length,
    statuses.filter((status) => status >= 500).length,
  ]).toEqual([20, 20]);
  expect(() => sandbox.setFaults({ fault5xx: 2 })).toThrow(/share/);
});

it('sandbox server: setFailRate: the opens sent from then on fail at that share, one sent before fills; a share outside 0 to 1 is refused', async () => {
  const sandbox = await start();
  const before = await post(sandbox, '/hedges', openBody('buy', 1_000));
  sandbox.setFailRate(1);
  const after = await post(sandbox, '/hedges', openBody('sell', 1_000));
  sandbox.clock.advance(100);
  const statuses = [before, after].map(({ body }) => read(sandbox, `/hedges/${body.data.id}`));
  expect((await Promise.all(statuses)).map((hedge) => hedge.status)).toEqual(['filled', 'failed']);
  expect(() => sandbox.setFailRate(2)).toThrow(/failRate must be a share between 0 and 1/);
});

it('sandbox server: fault injection: latency holds the request (key in flight), and the held request completes even if the client hung up; stall headers never answers and stall body hangs mid-body; close() still returns', async () => {
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
  await until(() => sandbox.requestLog.length === 2);
  const entry = sandbox.requestLog[1];
  expect(entry).toMatchObject({ idempotencyKey: 'gone', status: 'pending' });
  abort.abort();
  await expect(hungUp).rejects.toThrow();
  await until(() => entry.status === 200);
  expect(await read(sandbox, '/hedges')).toHaveLength(1);

  sandbox.setFaults({ latencyMs: 0, match: null, stall: 'headers' });
  const hang = new AbortController();
  const unanswered = api(sandbox, 'GET', '/markets', { signal: hang.signal });
  // The server's own log says it will never answer: hanging up then proves the stall without a wait in real time.
  await until(() => sandbox.requestLog[3]?.status === 'stalled', 'the server stalling the request');
  hang.abort();
  await expect(unanswered).rejects.toThrow();
  expect(sandbox.requestLog[3]).toMatchObject({ status: 'stalled', fault: 'stall-headers' });

  sandbox.setFaults({ stall: 'body' });
  const cut = new AbortController();
  const response = await raw(sandbox, '/markets', cut.signal);
  expect(response.status).toBe(200);
  // As above: the head came and the server's log says the rest never will.
  await until(() => sandbox.requestLog[4]?.status === 'stalled', 'the server stalling the body');
  cut.abort();
  await expect(response.text()).rejects.toThrow();
  expect(sandbox.requestLog[4]).toMatchObject({ status: 'stalled', fault: 'stall-body' });

  // One more stalled request left open on purpose: close() must cut it.
  void raw(sandbox).catch(() => undefined);
  await until(() => sandbox.requestLog.length === 6);
  sandbox.setFaults({ stall: null });
  expect(await statusOf(sandbox, '/markets')).toBe(200);
  await sandbox.close();
});

it('sandbox server: fault injection: malformed responses: an HTML 502 page, truncated JSON with 200, an envelope with wrong types; oversized answer: pads a matched GET to exactly the size asked, as a valid envelope; writes are never padded; streams a huge answer and stops when the client hangs up; the server keeps serving; next503RetryAfter sends an HTTP-date verbatim and follows the match; values and statuses are checked', async () => {
  const sandbox = await start();
  const malformed = (kind: MalformedKind) => sandbox.setFaults({ nextMalformed: { count: 1, kind } });
  malformed('html');
  const html = await raw(sandbox);
  expect([html.status, html.headers.get('content-type'), await html.text()]).toEqual([
    502,
    expect.stringMatching(/^text\/html/),
    expect.stringMatching(/^<html>/),
  ]);

  malformed('truncated');
  const truncated = await raw(sandbox);
  const text = await truncated.text();
  expect([truncated.status, text.startsWith('{"data":')]).toEqual([200, true]);
  expect(() => JSON.parse(text)).toThrow();

  malformed('wrong-types');
  const wrong = await api(sandbox, 'GET', '/markets');
  const [first] = wrong.body.data;
  expect([wrong.status, typeof first.price, typeof first.market, Array.isArray(wrong.body.meta)]).toEqual([
    200,
    'string',
    'number',
    true,
  ]);
  const bytes = 3_000_000;
  sandbox.setFaults({ nextOversized: { count: 1, bytes } });
  expect((await post(sandbox, '/quotes', openBody('buy', 1_000))).status).toBe(200);
  const padded = await raw(sandbox);
  expect([padded.status, padded.headers.get('content-length')]).toEqual([200, String(bytes)]);
  const paddedText = await padded.text();
  expect(Buffer.byteLength(paddedText)).toBe(bytes);
  const envelope = JSON.parse(paddedText);
  expect([envelope.data.map((market: any) => market.market), envelope.error, Object.keys(envelope.meta)]).toEqual([
    ['USDTNGN'],
    null,
    ['source', 'allowed_markets', 'padding'],
  ]);
  expect(envelope.meta.padding).toMatch(/^x+$/);
  expect((await api(sandbox, 'GET', '/markets')).headers.get('content-length')).not.toBe(String(bytes));
  expect(sandbox.requestLog.map((entry) => entry.fault)).toEqual([
    'malformed-html',
    'malformed-truncated',
    'malformed-wrong-types',
    null,
    'oversized',
    null,
  ]);
  const huge = 2 ** 31;
  sandbox.setFaults({ nextOversized: { count: 1, bytes: huge }, match: { path: '/positions' } });
  const abort = new AbortController();
  const streamed = await raw(sandbox, '/positions', abort.signal);
  expect(streamed.headers.get('content-length')).toBe(String(huge));
  const reader = (streamed.body as ReadableStream<Uint8Array>).getReader();
  let received = 0;
  while (received < 1_000_000) received += ((await reader.read()).value as Uint8Array).length;
  abort.abort();
  await reader.cancel().catch(() => undefined);
  const after = await api(sandbox, 'GET', '/positions');
  expect([after.status, after.body.data]).toEqual([200, []]);
  const date = 'Sun, 22 Nov 2026 08:00:05 GMT';
  sandbox.setFaults({ next503RetryAfter: { count: 1, retryAfter: date }, match: { path: '/account' } });
  expect((await api(sandbox, 'GET', '/markets')).status).toBe(200);
  const response = await api(sandbox, 'GET', '/account');
  expect([response.status, response.headers.get('retry-after')]).toEqual([503, date]);
  expect((await api(sandbox, 'GET', '/account')).status).toBe(200);
  expect(() => sandbox.setFaults({ next503RetryAfter: { count: 1, retryAfter: '2\r\nx: y' } })).toThrow(/printable/);
  expect(() => sandbox.setFaults({ nextError: { count: 1, status: 302, code: 'moved' } })).toThrow(/400 to 599/);
  expect(() => sandbox.setFaults({ nextOversized: { count: 1, bytes: 0 } })).toThrow(/positive whole number/);
});

// Hedge ids: unique across simulator restarts (a script's log must not see the same id twice from
// two test runs), sorted by creation; reproducible on a seeded, frozen simulator (trailing-views.test.ts
// compares the hedge lists of two such simulators).
const ID = /^hdg_[a-z0-9]{24}$/;

async function openId(simulator: { sandbox: ApiTarget }, side: 'buy' | 'sell', key: string) {
  const opened = await post(simulator.sandbox, '/hedges', openBody(side, 10_000), key);
  expect(opened.status, JSON.stringify(opened.body)).toBe(200);
  return opened.body.data.id;
}

it('sandbox hedge ids: two starts, even on one frozen clock without a seed, give different ids of one shape (the random part); ids sort in creation order, also within one instant of sandbox time', async () => {
  const now = () => FROZEN_START_MS;
  const first = await openId(await simulators({ preset: 'plain', realNow: now }), 'buy', 'k-1');
  const second = await openId(await simulators({ preset: 'plain', realNow: now }), 'buy', 'k-1');
  // Same instant, same default seed: only the per-start random part tells them apart.
  expect([first, second]).toEqual([expect.stringMatching(ID), expect.stringMatching(ID)]);
  expect(first.slice(0, 13)).toBe(second.slice(0, 13));
  expect(second).not.toBe(first);
  const simulator = await simulators({ preset: 'frozen' });
  const ids = [await openId(simulator, 'buy', 'k-0'), await openId(simulator, 'sell', 'k-1')];
  simulator.advance(3_600_000);
  await post(simulator.sandbox, '/hedges/close', { market: 'USDTNGN', side: 'buy' }, 'c-1');
  simulator.advance(3_600_000);
  ids.push(await openId(simulator, 'buy', 'k-9'));
  expect([...ids].sort()).toEqual(ids);
  expect(new Set(ids).size).toBe(ids.length);
});

// Each refuses the two requests it matches before the engine sees them: the same key then acts once.
const INJECTED: Record<number, [string, string]> = {
  500: ['internal_error', 'internal error (injected)'],
  503: ['service_unavailable', 'service unavailable (injected)'],
  403: ['forbidden', 'forbidden (injected)'],
};
// [its name in the log, the faults set, the statuses it may answer, the Retry-After it sends]
it.each<[string, Partial<FaultSettings>, number[], string?]>([
  ['5xx', { next5xx: 2 }, [500, 503]],
  ['503-retry-after', { next503RetryAfter: { count: 2, retryAfter: '2' } }, [503], '2'],
  ['error-403', { nextError: { count: 2, status: 403, code: 'forbidden' }, match: { method: 'POST' } }, [403]],
])(
  'sandbox faults: injected refusals: %s: answers as asked, acting on nothing, counting down exactly',
  async (fault, faults, statuses, retryAfter) => {
    const sandbox = await start();
    sandbox.setFaults(faults);
    const refused = async () => {
      const answer = await post(sandbox, '/hedges', openBody('buy', 1_000), 'k');
      expect(statuses).toContain(answer.status);
      const [code, message] = INJECTED[answer.status];
      const details = retryAfter && { details: { retry_after: retryAfter } };
      expect(answer.body).toEqual({ data: null, error: { code, message, ...details }, meta: {} });
      expect(answer.headers.get('retry-after')).toBe(retryAfter ?? null);
      expect(answer.headers.get('x-request-id')).toMatch(REQUEST_ID);
      return [answer.status, fault];
    };
    const first = await refused();
    expect(sandbox.engine.state.accounts).toEqual({});
    if (faults.match) expect(await statusOf(sandbox, '/markets')).toBe(200);
    const second = await refused();
    expect(Object.values(sandbox.engine.state.accounts).flatMap((account) => Object.keys(account.hedges))).toEqual([]);
    const retried = await post(sandbox, '/hedges', openBody('buy', 1_000), 'k');
    expect([retried.status, retried.headers.get('idempotent-replayed')]).toEqual([200, null]);
    const posts = sandbox.requestLog.filter((entry) => entry.method === 'POST');
    expect(posts.map((entry) => [entry.status, entry.fault])).toEqual([first, second, [200, null]]);
    expect(posts.map((entry) => entry.acted)).toEqual([false, false, true]);
  },
);

// A write that took effect, then was answered ambiguously or not at all (the connection dropped).
it.each([
  { kind: 'error-in-200', status: 200, data: false, error: true },
  { kind: 'data-and-error', status: 200, data: true, error: true },
  { kind: 'data-in-400', status: 400, data: true, error: false },
  { kind: 'drop', status: 'dropped' },
] as const)(
  'sandbox faults: ambiguous answers after a write took effect: $kind: the hedge exists once and a same-key retry replays the real answer',
  async ({ kind, status, data, error }) => {
    // The clock stands still: the hedge is still `submitted` when it is read, however slow the machine.
    const sandbox = await start({ realNow: () => FROZEN_START_MS });
    sandbox.setFaults(
      kind === 'drop'
        ? { nextDropAfterCommit: 1 }
        : { nextMalformed: { count: 1, kind }, match: { method: 'POST', path: '/hedges' } },
    );
    // Reads are never dropped: the countdown waits for a committing write.
    expect(await read(sandbox, '/hedges')).toEqual([]);
    // A dropped answer is a failed fetch.
    const answer = await post(sandbox, '/hedges', openBody('sell', 5_000), `amb-${kind}`).catch(() => null);
    expect(answer === null).toBe(kind === 'drop');
    const [hedge] = await read(sandbox, '/hedges');
    expect(hedge.status).toBe('submitted');
    if (answer) {
      expect([
        answer.status,
        Object.keys(answer.body),
        answer.body.data === null ? null : answer.body.data.id,
        answer.body.error === null ? null : answer.body.error.code,
      ]).toEqual([status, ['data', 'error', 'meta'], data ? hedge.id : null, error ? 'internal_error' : null]);
    }

    const retry = await post(sandbox, '/hedges', openBody('sell', 5_000), `amb-${kind}`);
    expect([retry.status, retry.headers.get('idempotent-replayed'), retry.body.data.id, retry.body.error]).toEqual([
      200,
      'true',
      hedge.id,
      null,
    ]);
    expect(await read(sandbox, '/hedges')).toHaveLength(1);
    const fault = kind === 'drop' ? 'drop-after-commit' : `malformed-${kind}`;
    // The write acted once: on the attempt answered ambiguously, never on its replay.
    const posts = sandbox.requestLog.filter((entry) => entry.method === 'POST');
    expect(posts.map(({ status, errorCode, fault, acted }) => ({ status, errorCode, fault, acted }))).toEqual([
      { status, errorCode: null, fault, acted: true },
      { status: 200, errorCode: null, fault: null, acted: false },
    ]);
  },
);

it('sandbox faults: hostile text: markets keep a valid status and gain a field whose name and value carry escapes; error messages too; any client_reference, control characters included, is stored and echoed', async () => {
  const sandbox = await start({ hostileText: true });
  expect((await read(sandbox, '/markets'))[0]).toMatchObject({
    status: 'open',
    [HOSTILE_FIELD_NAME]: HOSTILE_FIELD_VALUE,
  });
  for (const sequence of HOSTILE_SEQUENCES)
    expect(HOSTILE_FIELD_NAME.includes(sequence) && HOSTILE_FIELD_VALUE.includes(sequence)).toBe(true);
  expect(HOSTILE_SEQUENCES).toEqual([
    '\u001b]0;pwned\u0007',
    '\u001b[2J',
    '\u001b]52;c;ZXZpbA==\u0007',
    '\u202e',
    '\u200b',
  ]);
  expect((await api(sandbox, 'GET', '/hedges/hdg_nope')).body.error).toMatchObject({
    code: 'hedge_not_found',
    message: `hedge hdg_nope is not one of yours ${HOSTILE_SEQUENCES.join('')}`,
  });

  sandbox.setFaults({ hostileText: false });
  expect(Object.keys((await read(sandbox, '/markets'))[0])).toEqual([
    'market',
    'status',
    'price',
    'available_capacity_usd',
    'net_rate_daily_pct',
  ]);
  const reference = `deal\u001b]0;pwned\u0007\u001b[2J\u202e\u200b\u0000\t-42`;
  const opened = await post(sandbox, '/hedges', { ...openBody('buy', 2_000), client_reference: reference });
  expect(opened.body.data.client_reference).toBe(reference);
  expect(
    (await read(sandbox, `/hedges?client_reference=${encodeURIComponent(reference)}`)).map((hedge: any) => hedge.id),
  ).toEqual([opened.body.data.id]);
  sandbox.clock.advance(100);
  await post(sandbox, '/hedges/close', { market: 'USDTNGN', side: 'buy' });
  sandbox.clock.advance(100);
  expect((await read(sandbox, '/hedges/history'))[0].client_reference).toBe(reference);
});
