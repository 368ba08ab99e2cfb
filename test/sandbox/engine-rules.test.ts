import { describe, expect, it } from 'vitest';

import { INVALID_JSON } from '../../src/sandbox/http/validation.js';
import { KEY_A, KEY_B, DAY, T0, call, makeEngine, openBody, openFilled } from '../support/engine.js';
import { on } from './engine-calls.js';

const LIVE_KEY = 'hpk_live_AAAAAAAAAAAAAAAAAAAAAAAA';

describe('engine: authentication and accounts', () => {
  it('refuses a missing or unknown key with unauthorized and a well-formed live key with live_key_refused', () => {
    const engine = makeEngine();
    const cases: Array<[string | null, string]> = [
      [null, 'unauthorized'],
      ['hpk_test_ZZZZZZZZZZZZZZZZZZZZZZZZ', 'unauthorized'],
      ['not-a-key', 'unauthorized'],
      [LIVE_KEY, 'live_key_refused'],
    ];
    for (const [key, code] of cases) {
      expect(call(engine, T0, 'GET', '/markets', { key })).toMatchObject({
        status: 401,
        body: { data: null, error: { code }, meta: {} },
      });
    }
  });

  it('refuses to start with a key that is not a test key', () => {
    expect(() => makeEngine({ apiKeys: [LIVE_KEY] })).toThrow(/test keys/);
  });

  it('keeps accounts isolated: hedges, positions, balances', () => {
    const engine = makeEngine();
    const { get } = on(engine);
    const { hedge, now } = openFilled(engine, T0, 'buy', 100_000, { key: KEY_A });
    expect(get(now, '/hedges', { key: KEY_B })).toEqual([]);
    expect(get(now, '/positions', { key: KEY_B })).toEqual([]);
    expect(get(now, '/account', { key: KEY_B }).balance_usdc).toBe(1_000_000);
    expect(call(engine, now, 'GET', `/hedges/${hedge.id}`, { key: KEY_B })).toMatchObject({
      status: 404,
      error: { code: 'hedge_not_found', details: { hedge_id: hedge.id } },
    });
    // B can open the same side: one hedge per side is per account.
    expect(call(engine, now, 'POST', '/hedges', { key: KEY_B, body: openBody('buy', 100_000) }).status).toBe(200);
  });
});

describe('engine: idempotency', () => {
  it('same key and same body returns the original response without acting twice', () => {
    const engine = makeEngine();
    const { get } = on(engine);
    const first = call(engine, T0, 'POST', '/hedges', { body: openBody('buy', 10_000), idempotencyKey: 'k-1' });
    // Same body with keys in another order is the same request.
    const reordered = { tenor_days: 7, notional_usd: 10_000, side: 'buy', market: 'USDTNGN' };
    const second = call(engine, T0 + 5000, 'POST', '/hedges', { body: reordered, idempotencyKey: 'k-1' });
    expect(second).toMatchObject({
      status: first.status,
      body: first.body,
      headers: { 'idempotent-replayed': 'true' },
    });
    expect(get(T0 + 5000, '/hedges')).toHaveLength(1);
    expect(get(T0 + 5000, '/account').open_exposure_usd).toBe(10_000);
  });

  it('same key with another body is idempotency_key_reuse', () => {
    const engine = makeEngine();
    call(engine, T0, 'POST', '/hedges', { body: openBody('buy', 10_000), idempotencyKey: 'k-1' });
    expect(call(engine, T0, 'POST', '/hedges', { body: openBody('buy', 20_000), idempotencyKey: 'k-1' })).toMatchObject(
      {
        status: 409,
        error: { code: 'idempotency_key_reuse', details: { idempotency_key: 'k-1' } },
      },
    );
    // Another endpoint is another request too.
    const elsewhere = call(engine, T0 + 2000, 'POST', '/hedges/close', {
      body: { market: 'USDTNGN', side: 'buy' },
      idempotencyKey: 'k-1',
    });
    expect(elsewhere.error?.code).toBe('idempotency_key_reuse');
  });

  it('a key held by a request still in progress is idempotency_in_flight, then replays once done', () => {
    const engine = makeEngine();
    const { get } = on(engine);
    const request = {
      method: 'POST',
      path: '/hedges',
      query: {},
      headers: { authorization: `Bearer ${KEY_A}`, 'idempotency-key': 'k-held' },
      body: openBody('sell', 10_000),
    };
    const lease = engine.acquireIdempotencyKey(request);
    // A lease (not null: the request is idempotent; not 'in-flight': nobody holds the key yet), scoped to the account and key.
    expect(lease).toEqual({ scope: 'test:acct_2e11952c4def8e17:k-held' });
    expect(engine.acquireIdempotencyKey(request)).toBe('in-flight');

    expect(engine.handle(request, T0)).toMatchObject({
      status: 409,
      body: { error: { code: 'idempotency_in_flight' } },
    });

    const original = engine.handle(request, T0, { lease: lease as { scope: string } });
    expect(original.status).toBe(200);
    engine.releaseIdempotencyKey(lease as { scope: string });
    const retry = engine.handle(request, T0 + 10);
    expect(retry.body).toEqual(original.body);
    expect(get(T0 + 10, '/hedges')).toHaveLength(1);
  });

  it('keys are scoped per account: the same key on two accounts acts twice', () => {
    const engine = makeEngine();
    const [a, b] = [KEY_A, KEY_B].map((key) =>
      call(engine, T0, 'POST', '/hedges', { key, body: openBody('buy', 10_000), idempotencyKey: 'shared' }),
    );
    expect([a!.status, b!.status]).toEqual([200, 200]);
    expect(b!.data.id).not.toBe(a!.data.id);
    // Scopes carry the environment too (sandbox keys are always "test").
    expect(Object.keys(engine.state.idempotency).every((scope) => scope.startsWith('test:acct_'))).toBe(true);
  });

  it('does not remember refused requests', () => {
    const engine = makeEngine({ exposureCapUsd: 50_000 });
    const refused = call(engine, T0, 'POST', '/hedges', { body: openBody('buy', 60_000), idempotencyKey: 'k-2' });
    expect(refused.error?.code).toBe('exposure_exceeded');
    expect(call(engine, T0, 'POST', '/hedges', { body: openBody('buy', 40_000), idempotencyKey: 'k-2' }).status).toBe(
      200,
    );
  });

  it('rejects an empty or overlong Idempotency-Key', () => {
    const engine = makeEngine();
    for (const key of ['', 'x'.repeat(256)]) {
      expect(
        call(engine, T0, 'POST', '/hedges', { body: openBody('buy', 1000), idempotencyKey: key }).error,
      ).toMatchObject({ code: 'validation_error', details: { field: 'Idempotency-Key' } });
    }
  });
});

describe('engine: rate limiting', () => {
  it('answers 429 rate_limited with Retry-After once a key exceeds its requests per second', () => {
    const engine = makeEngine({ rateLimit: 2 });
    const at = (realTimeMs: number, key = KEY_A) => call(engine, T0, 'GET', '/markets', { key, realTimeMs });
    expect(at(0).status).toBe(200);
    expect(at(100).status).toBe(200);
    expect(at(200)).toMatchObject({
      status: 429,
      headers: { 'retry-after': '1' },
      error: { code: 'rate_limited', details: { retry_after_ms: 300 } },
    });
    // Per key: the other key has its own budget.
    expect(at(200, KEY_B).status).toBe(200);
    // Tokens refill at the configured rate.
    expect(at(500).status).toBe(200);
    expect(at(500).status).toBe(429);
  });
});

describe('engine: business errors', () => {
  it('no_open_hedge for add, reduce and close on an empty side', () => {
    const engine = makeEngine();
    openFilled(engine, T0, 'buy', 10_000);
    for (const action of ['add', 'reduce', 'close'])
      expect(on(engine).change(T0 + 2000, action, 'sell', action === 'close' ? undefined : 1000)).toMatchObject({
        status: 404,
        error: { code: 'no_open_hedge', details: { market: 'USDTNGN', side: 'sell' } },
      });
  });

  it('hedge_already_open for a second open on the same market and side', () => {
    const engine = makeEngine();
    const { open } = on(engine);
    const { id } = open(T0, 'buy', 10_000).data;
    expect(open(T0, 'buy', 10_000)).toMatchObject({
      status: 409,
      error: { code: 'hedge_already_open', details: { hedge_id: id } },
    });
    expect(open(T0, 'sell', 10_000).status).toBe(200);
  });

  it('exposure_exceeded when an open or an add would pass the aggregate cap (both sides and pending adds count)', () => {
    const engine = makeEngine({ exposureCapUsd: 100_000 });
    const { get, open, change } = on(engine);
    const { now } = openFilled(engine, T0, 'buy', 60_000);
    expect(open(now, 'sell', 50_000)).toMatchObject({
      status: 400,
      error: {
        code: 'exposure_exceeded',
        details: { available_exposure_usd: 40_000, requested_usd: 50_000, exposure_cap_usd: 100_000 },
      },
    });
    expect(change(now, 'add', 'buy', 30_000).status).toBe(200);
    const sell = open(now, 'sell', 10_001);
    expect(sell.error?.details?.available_exposure_usd).toBe(10_000);
    const [market] = get(now, '/markets');
    // Capacity shows the cap itself; headroom net of positions is the account's available exposure.
    expect(market.available_capacity_usd).toEqual({ buy: 100_000, sell: 100_000 });
    expect(get(now, '/account').available_exposure_usd).toBe(10_000);
  });

  it('capacity_exceeded when a side of the market is full, whatever the account’s cap', () => {
    const engine = makeEngine({ exposureCapUsd: 10_000_000 });
    const { get, open } = on(engine);
    const [before] = get(T0, '/markets');
    // Background open interest already holds 2.1M of the 5M buy side.
    expect(before.available_capacity_usd).toEqual({ buy: 2_900_000, sell: 3_100_000 });
    expect(open(T0, 'buy', 2_900_001)).toMatchObject({
      status: 400,
      error: {
        code: 'capacity_exceeded',
        details: { side: 'buy', available_capacity_usd: 2_900_000, requested_usd: 2_900_001 },
      },
    });
    expect(open(T0, 'buy', 2_900_000).status).toBe(200);
    const [after] = get(T0, '/markets');
    expect(after.available_capacity_usd.buy).toBe(0);
    // The market is shared: the other account finds the buy side full too.
    expect(call(engine, T0, 'POST', '/hedges', { key: KEY_B, body: openBody('buy', 1) }).error?.code).toBe(
      'capacity_exceeded',
    );
  });

  it('insufficient_balance when the balance cannot cover margin plus fee', () => {
    const engine = makeEngine();
    const { open } = on(engine);
    call(engine, T0, 'GET', '/account');
    const account = Object.values(engine.state.accounts)[0];
    account.balanceUsdc = 1000;
    expect(open(T0, 'buy', 10_000).error).toMatchObject({
      code: 'insufficient_balance',
      details: { balance_usdc: 1000, required_usdc: 1005 },
    });
  });

  it('market_not_available for an unlisted market and market_disabled for a disabled one', () => {
    const engine = makeEngine({ extraMarkets: [{ market: 'USDTGHS', status: 'disabled', basePrice: 15.4 }] });
    const markets = call(engine, T0, 'GET', '/markets');
    expect(markets.data.map((m: { market: string; status: string }) => [m.market, m.status])).toEqual([
      ['USDTNGN', 'open'],
      ['USDTGHS', 'disabled'],
    ]);
    expect(markets.body.meta).toEqual({ source: 'onchain', allowed_markets: ['USDTNGN', 'USDTGHS'] });

    const on = (path: string, market: string) =>
      call(engine, T0, 'POST', path, { body: openBody('buy', 1000, 7, { market }) });
    expect(on('/quotes', 'USDTKES').error).toMatchObject({
      code: 'market_not_available',
      details: { market: 'USDTKES', allowed_markets: ['USDTNGN', 'USDTGHS'] },
    });
    expect(on('/hedges', 'USDTGHS')).toMatchObject({ status: 400, error: { code: 'market_disabled' } });
    expect(on('/quotes', 'USDTGHS').error?.code).toBe('market_disabled');
  });
});

describe('engine: validation and routing', () => {
  it('invalid_json when the body did not parse, is missing or is not an object', () => {
    const engine = makeEngine();
    for (const body of [INVALID_JSON, undefined, [1, 2], 'text', null]) {
      expect(call(engine, T0, 'POST', '/hedges', { body })).toMatchObject({
        status: 400,
        error: { code: 'invalid_json' },
      });
    }
  });

  it('validation_error names the first wrong field', () => {
    const engine = makeEngine();
    const { open } = on(engine);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ market: undefined }, 'market'],
      [{ side: 'long' }, 'side'],
      [{ notional_usd: -5 }, 'notional_usd'],
      [{ notional_usd: '100' }, 'notional_usd'],
      [{ notional_usd: 0 }, 'notional_usd'],
      [{ tenor_days: 2 }, 'tenor_days'],
      [{ tenor_days: '7' }, 'tenor_days'],
      [{ client_reference: 42 }, 'client_reference'],
    ];
    for (const [wrong, field] of cases)
      expect(open(T0, 'buy', 1, 7, wrong)).toMatchObject({
        status: 400,
        error: { code: 'validation_error', details: { field, reason: expect.any(String) } },
      });
    expect(on(engine).quoteFor(T0, 'buy', 1, 30).error?.details?.field).toBe('tenor_days');
  });

  it('limit must be 1..500 and status a known status', () => {
    const engine = makeEngine();
    for (const limit of ['0', '501', 'abc', '-1', '2.5']) {
      expect(call(engine, T0, 'GET', '/hedges', { query: { limit } }).error?.details?.field).toBe('limit');
      expect(call(engine, T0, 'GET', '/hedges/history', { query: { limit } }).error?.details?.field).toBe('limit');
    }
    expect(call(engine, T0, 'GET', '/hedges', { query: { limit: '500' } }).status).toBe(200);
    expect(call(engine, T0, 'GET', '/hedges', { query: { status: 'open' } }).error?.details?.field).toBe('status');
  });

  it('unknown paths are not_found and wrong methods method_not_allowed with Allow', () => {
    const engine = makeEngine();
    expect(call(engine, T0, 'GET', '/nothing-here')).toMatchObject({ status: 404, error: { code: 'not_found' } });
    expect(call(engine, T0, 'DELETE', '/hedges')).toMatchObject({
      status: 405,
      error: { code: 'method_not_allowed' },
      headers: { allow: 'GET, POST' },
    });
    expect(call(engine, T0, 'POST', '/hedges/hdg_x').headers.allow).toBe('GET');
  });
});

describe('engine: pricing', () => {
  it('a bigger trade quotes worse; an imbalance-reducing trade quotes better', () => {
    const engine = makeEngine();
    const { quoteFor } = on(engine);
    const quote = (side: 'buy' | 'sell', notional: number) => quoteFor(T0, side, notional).data.pricing;
    const smallBuy = quote('buy', 10_000);
    const bigBuy = quote('buy', 900_000);
    // Buying USDT pays more naira than mid, and more the bigger the trade.
    expect(smallBuy.execution_price).toBeGreaterThan(smallBuy.market_price);
    expect(bigBuy.execution_price).toBeGreaterThan(smallBuy.execution_price);
    expect(bigBuy.price_impact_usd / 900_000).toBeLessThan(smallBuy.price_impact_usd / 10_000);
    // The book is long USDT already: a sell heals the imbalance and earns positive impact.
    const smallSell = quote('sell', 10_000);
    expect(smallSell.price_impact_usd).toBeGreaterThan(0);
    expect(smallSell.execution_price).toBeGreaterThan(smallSell.market_price);
    // A sell so big that it flips the imbalance pays again, receiving fewer naira than mid.
    const hugeSell = quote('sell', 2_000_000);
    expect(hugeSell.price_impact_usd).toBeLessThan(0);
    expect(hugeSell.execution_price).toBeLessThan(hugeSell.market_price);
  });

  it('quotes are indicative: they persist nothing and echo the request', () => {
    const engine = makeEngine();
    const { get, quoteFor } = on(engine);
    const response = quoteFor(T0, 'buy', 250_000, 3);
    expect(response.body.meta).toEqual({ source: 'onchain' });
    const quote = response.data;
    expect(quote).toMatchObject({
      market: 'USDTNGN',
      side: 'buy',
      notional_usd: 250_000,
      tenor_days: 3,
      maturity: new Date(T0 + 3 * DAY).toISOString(),
    });
    expect(quote.upfront).toEqual({ required_margin_usdc: 25_000, platform_fee_usdc: 125, total_upfront_usdc: 25_125 });
    expect(quote.carry.total_usdc).toBeCloseTo(quote.carry.daily_usdc * 3, 1);
    expect(quote.carry.total_rate_pct).toBeCloseTo(quote.carry.daily_rate_pct * 3, 4);
    expect(get(T0, '/hedges')).toEqual([]);
    expect(get(T0, '/account').balance_usdc).toBe(1_000_000);
  });

  it('prices come from the seeded path: same seed and time, same price; around 1,530', () => {
    const price = (seed: string, t: number) =>
      call(makeEngine({ seed }), t, 'GET', '/prices', { query: { symbols: 'USDTNGN' } });
    const response = price('p', T0);
    expect(response.body.meta).toEqual({ source: 'onchain' });
    expect(response.data).toEqual([
      { market: 'USDTNGN', price: expect.any(Number), timestamp: new Date(T0).toISOString() },
    ]);
    expect(price('p', T0).data[0].price).toBe(response.data[0].price);
    expect(price('q', T0).data[0].price).not.toBe(response.data[0].price);
    for (let day = 0; day < 30; day++) {
      const value = price('p', T0 + day * DAY).data[0].price;
      expect(value).toBeGreaterThan(1530 * 0.97);
      expect(value).toBeLessThan(1530 * 1.03);
    }
    const unknown = call(makeEngine(), T0, 'GET', '/prices', { query: { symbols: 'USDTNGN,XYZ' } });
    expect(unknown.error?.code).toBe('market_not_available');
    expect(call(makeEngine(), T0, 'GET', '/prices').data).toHaveLength(1);
  });
});

describe('engine: lists', () => {
  it('seedHedges writes past hedges whose history adds up to the balance', () => {
    const engine = makeEngine();
    const { get } = on(engine);
    expect(engine.seedHedges(KEY_A, 30, 'closed', T0)).toHaveLength(30);
    const history = get(T0, '/hedges/history', { query: { limit: '500' } });
    expect(history).toHaveLength(30);
    expect(new Set(history.map((r: { close_reason: string }) => r.close_reason))).toEqual(
      new Set(['settled', 'closed']),
    );
    const closedAts = history.map((r: { closed_at: string }) => r.closed_at);
    expect([...closedAts].sort().reverse()).toEqual(closedAts);
    const net = history.reduce((sum: number, r: { net_pnl_usd: number }) => sum + r.net_pnl_usd, 0);
    const account = get(T0, '/account');
    expect(account.balance_usdc).toBeCloseTo(1_000_000 + net, 1);
    expect(account.open_exposure_usd).toBe(0);
    expect(get(T0, '/hedges', { query: { status: 'closed', limit: '500' } })).toHaveLength(30);

    engine.seedHedges(KEY_B, 5, 'failed', T0);
    expect(get(T0, '/hedges', { key: KEY_B, query: { status: 'failed' } })).toHaveLength(5);
    expect(get(T0, '/account', { key: KEY_B }).balance_usdc).toBe(1_000_000);
  });
});
