// The API client against a real sandbox server on loopback, over HTTP and HTTPS: no mocked fetch.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, NetworkError } from '../../src/core/errors.js';
import type { RunningSandbox } from '../../src/sandbox/index.js';
import { clientFor, closeClients, settle } from '../support/client.js';
import { startFieldProxy } from '../support/servers/field-proxy.js';
import { until } from '../support/polling.js';
import { startSimulator, withSimulator, type Simulator } from '../support/simulator.js';
import { SPEC_ERROR_TABLE, type SpecErrorCode } from '../support/spec-errors.js';
import { T0 } from '../support/engine.js';

const BUY = { market: 'USDTNGN', side: 'buy' as const };
// Every client made here has its own keep-alive connections; they are closed when the file ends.
afterAll(closeClients);

type Client = ReturnType<typeof clientFor>['client'];

/** One scenario per row of the spec's error table (test/support/spec-errors.ts): a call that meets it. */
const SPEC_ERROR_SCENARIOS: Record<SpecErrorCode, (sandbox: RunningSandbox, client: Client) => Promise<unknown>> = {
  // The simulator's cap is 50,000 (set where the scenarios run).
  exposure_exceeded: (_sandbox, client) =>
    client.openHedge({ ...BUY, notional_usd: 60_000, tenor_days: 1 }, crypto.randomUUID()),
  no_open_hedge: (_sandbox, client) =>
    client.addToHedge({ market: 'USDTNGN', side: 'sell', notional_usd: 100 }, crypto.randomUUID()),
  hedge_not_found: (_sandbox, client) => client.getHedge('hdg_doesnotexist'),
  idempotency_key_reuse: async (_sandbox, client) => {
    const key = crypto.randomUUID();
    await client.openHedge({ ...BUY, notional_usd: 1_000, tenor_days: 1 }, key);
    return client.openHedge({ ...BUY, notional_usd: 2_000, tenor_days: 1 }, key);
  },
  idempotency_in_flight: async (sandbox) => {
    // The first request is held by the server (10 min, released when the simulator closes); the
    // second, with the same key, is sent only once the server holds the first: no sleep a loaded
    // machine could outlast. A client out of retries at once sees the raw answer.
    sandbox.setFaults({ nextLatency: { count: 1, ms: 600_000 } });
    const key = crypto.randomUUID();
    const { client: first } = clientFor(sandbox);
    void first.closeHedge(BUY, key).catch(() => undefined);
    await until(
      () => sandbox.requestLog.some((entry) => entry.idempotencyKey === key && entry.status === 'pending'),
      'the held close',
    );
    const { client: impatient } = clientFor(sandbox, { retry: { maxAttempts: 1, maxTotalMs: 0 } });
    return impatient.closeHedge(BUY, key);
  },
  rate_limited: (sandbox) => {
    // A 429 that never clears: every attempt is refused until the retries run out.
    sandbox.setFaults({ fault429: 1 });
    const { client: brief } = clientFor(sandbox, { retry: { maxAttempts: 3, maxRetryAfterMs: 0 } });
    return brief.listMarkets();
  },
};

function requestsTo(sandbox: RunningSandbox, method: string, path: string) {
  return sandbox.requestLog.filter((entry) => entry.method === method && entry.path === path);
}

for (const tls of [false, true]) {
  describe(`every endpoint over ${tls ? 'HTTPS (CA file as HEDGE_CA_FILE passes it)' : 'HTTP'}`, () => {
    let simulator: Simulator;
    let sandbox: RunningSandbox;
    beforeAll(async () => {
      // Real time stands still (the clock moves only by settle()), so every price is the same on each run.
      simulator = await startSimulator({ tls, seed: 7, realNow: () => T0 });
      sandbox = simulator.sandbox;
    });
    afterAll(() => simulator.close());

    it('calls and parses all 12 endpoints', async () => {
      const { client } = clientFor(sandbox, { caFile: sandbox.caFile });
      expect(sandbox.baseUrl.startsWith(tls ? 'https://' : 'http://')).toBe(true);

      const list = await client.listMarkets();
      expect(list.markets.map((m) => m.market)).toContain('USDTNGN');
      expect(list).toMatchObject({ allowedMarkets: expect.arrayContaining(['USDTNGN']), source: 'onchain' });
      if (tls) {
        // The sandbox's certificate names localhost too.
        const byName = { ...sandbox, baseUrl: sandbox.baseUrl.replace('127.0.0.1', 'localhost') };
        expect((await clientFor(byName, { caFile: sandbox.caFile }).client.listMarkets()).markets).toHaveLength(1);
      }

      const [price] = await client.getPrices(['USDTNGN']);
      expect(price!.market).toBe('USDTNGN');
      expect(price!.price).toBeGreaterThan(100);

      const quote = await client.createQuote({ ...BUY, notional_usd: 10_000, tenor_days: 3 });
      expect(quote.tenor_days).toBe(3);
      expect(quote.upfront.total_upfront_usdc).toBeCloseTo(
        quote.upfront.required_margin_usdc + quote.upfront.platform_fee_usdc,
        6,
      );

      const opened = await client.openHedge(
        { ...BUY, notional_usd: 10_000, tenor_days: 3, client_reference: 'DEAL-1' },
        crypto.randomUUID(),
      );
      expect(opened).toMatchObject({
        status: 'submitted',
        hedge_id: expect.stringMatching(/^hdg_/),
        order_tx_hash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      });
      settle(sandbox);
      expect(await client.getHedge(opened.hedge_id)).toMatchObject({ status: 'filled', struck_rate: 1548.1565 });

      expect((await client.addToHedge({ ...BUY, notional_usd: 5_000 }, crypto.randomUUID())).status).toBe('submitted');
      settle(sandbox);
      expect((await client.getHedge(opened.hedge_id)).notional_usd).toBe(15_000);

      expect((await client.reduceHedge({ ...BUY, notional_usd: 3_000 }, crypto.randomUUID())).status).toBe('submitted');
      settle(sandbox);
      expect((await client.getHedge(opened.hedge_id)).notional_usd).toBe(12_000);

      expect(await client.listPositions()).toEqual([
        expect.objectContaining({ side: 'buy', net_margin_usd: expect.any(Number) }),
      ]);

      const account = await client.getAccount();
      // The default 1,000,000 USD cap less the 12,000 open.
      expect(account.available_exposure_usd).toBe(988_000);

      expect(
        (await client.listHedges({ clientReference: 'DEAL-1', status: 'filled', limit: 10 })).map((h) => h.id),
      ).toEqual([opened.hedge_id]);

      expect((await client.closeHedge(BUY, crypto.randomUUID())).status).toBe('submitted');
      settle(sandbox);
      expect(await client.listPositions()).toEqual([]);
      expect((await client.listHistory({ limit: 5 }))[0]).toMatchObject({
        hedge_id: opened.hedge_id,
        net_pnl_usd: expect.any(Number),
      });
      // The page-size parameter is sent as `limit` (spec: name not shown).
      expect(sandbox.requestLog.some((e) => e.path === '/hedges' && e.query.limit === '10')).toBe(true);
    });
  });
}

describe('errors and retries', () => {
  let simulator: Simulator;
  let sandbox: RunningSandbox;
  beforeAll(async () => {
    simulator = await startSimulator({
      seed: 11,
      apiKeys: ['hpk_test_clientAAAAAAAAAAAAAAAAAAAA'],
      exposureCapUsd: 50_000,
    });
    sandbox = simulator.sandbox;
  });
  afterAll(() => simulator.close());

  it.each(SPEC_ERROR_TABLE)(
    'maps $status $code ($condition) to an error with that status and code, as the server answered it',
    async (row) => {
      // Each row on a simulator of its own, so that no row's set-up leans on another's.
      await withSimulator({ seed: 11, exposureCapUsd: 50_000 }, async ({ sandbox: own }) => {
        const { client } = clientFor(own);
        const error = (await SPEC_ERROR_SCENARIOS[row.code](own, client).catch((failure) => failure)) as ApiError;
        expect([error.status, error.code]).toEqual([row.status, row.code]);
        expect(error.message).not.toBe('');
        // What the client reports is what the server said: its own log has that status and code.
        const answered = own.requestLog.filter((entry) => entry.status === row.status && entry.errorCode === row.code);
        expect(answered.length).toBeGreaterThan(0);
        // 4xx refusals are ApiErrors with the server's details; 429 and in-flight, which the client
        // retries, end as NetworkErrors carrying the last answer's status and code.
        if (row.code === 'rate_limited' || row.code === 'idempotency_in_flight')
          expect(error).toBeInstanceOf(NetworkError);
        else {
          expect(error).toBeInstanceOf(ApiError);
          expect((error as ApiError).details).toBeTypeOf('object');
          expect((error as ApiError).requestId).toMatch(/^req_/);
        }
      });
    },
  );

  it("has a scenario for every row of the spec's error table, and none for a code it lacks", () => {
    expect(Object.keys(SPEC_ERROR_SCENARIOS).sort()).toEqual(SPEC_ERROR_TABLE.map((row) => row.code).sort());
  });

  it('retries a burst of 5xx within the attempt bound, with growing backoff', async () => {
    const { client, sleeps } = clientFor(sandbox);
    const before = requestsTo(sandbox, 'GET', '/account').length;
    sandbox.setFaults({ next5xx: 3 });
    await expect(client.getAccount()).resolves.toMatchObject({ balance_usdc: expect.any(Number) });
    expect(requestsTo(sandbox, 'GET', '/account').length - before).toBe(4);
    expect(sleeps).toHaveLength(3);
    // Equal jitter: each wait is between half and all of 50·2^(n-1) ms.
    sleeps.forEach((ms, index) => {
      const full = Math.min(400, 50 * 2 ** index);
      expect(ms).toBeGreaterThanOrEqual(full / 2);
      expect(ms).toBeLessThanOrEqual(full);
    });
  });

  it('a stalled server fails with a timeout error within the configured bound', async () => {
    for (const stall of ['headers', 'body'] as const) {
      const { client, sleeps } = clientFor(sandbox, { requestTimeoutSeconds: 0.5, retry: { maxAttempts: 2 } });
      const before = requestsTo(sandbox, 'GET', '/account').length;
      sandbox.setFaults({ stall });
      const started = Date.now();
      const error = await client.getAccount().catch((e) => e as NetworkError);
      const elapsed = Date.now() - started;
      expect(error).toBeInstanceOf(NetworkError);
      expect(error.message).toMatch(/No answer from 127\.0\.0\.1:\d+ within 0\.5s/);
      // The bound is the client's own: two attempts of 0.5 s each (the server saw both stall) and
      // one backoff between them (the clock's record). How long the machine took beyond that is not
      // the client's doing, so the wall clock is only checked from below.
      expect(
        requestsTo(sandbox, 'GET', '/account')
          .slice(before)
          .map((entry) => entry.status),
      ).toEqual(['stalled', 'stalled']);
      expect(error.attempts).toBe(2);
      expect(sleeps).toEqual([expect.toSatisfy((ms: number) => ms >= 25 && ms <= 50)]);
      expect(elapsed).toBeGreaterThanOrEqual(1000);
    }
    sandbox.setFaults({ stall: null });
  });

  it('the verbose log of a whole run never holds the full key', async () => {
    const { client, log } = clientFor(sandbox);
    await client.listMarkets();
    await client.getAccount();
    await client.getHedge('hdg_nope').catch(() => undefined);
    // Durations and request ids vary; everything else is exact.
    expect(log.map((line) => line.replace(/ \d+ ms /, ' N ms ').replace(/req_[0-9a-f]{16}/, 'req_ID'))).toEqual([
      '→ GET /markets attempt 1',
      '← 200 GET /markets N ms attempt 1 request-id=req_ID',
      '→ GET /account attempt 1',
      '← 200 GET /account N ms attempt 1 request-id=req_ID',
      '→ GET /hedges/hdg_nope attempt 1',
      '← 404 GET /hedges/hdg_nope N ms attempt 1 request-id=req_ID',
    ]);
    expect(log.join('\n')).not.toContain(sandbox.apiKey);
  });

  it('passes fields the spec does not name through to the caller, on every resource', async () => {
    const proxy = await startFieldProxy(sandbox, 'venue', 'gmx-v2');
    try {
      const { client } = clientFor({ ...sandbox, baseUrl: proxy.baseUrl });
      const opened = await client.openHedge(
        { market: 'USDTNGN', side: 'sell', notional_usd: 1_000, tenor_days: 1 },
        crypto.randomUUID(),
      );
      settle(sandbox);
      const read = [
        opened,
        await client.getHedge(opened.hedge_id),
        (await client.listMarkets()).markets[0],
        await client.createQuote({ market: 'USDTNGN', side: 'sell', notional_usd: 1_000, tenor_days: 1 }),
        (await client.listPositions())[0],
        await client.getAccount(),
        (await client.listHedges({ limit: 1 }))[0],
      ];
      expect(read.map((resource) => resource?.venue)).toEqual(read.map(() => 'gmx-v2'));
    } finally {
      await proxy.close();
    }
  });
});
