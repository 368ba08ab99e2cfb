import { compareEvents, createEngineState } from '../../src/sandbox/engine-state.js';
import { growHedges } from './growth.js';
import { INVALID_JSON, createHttpEngine, type HttpSandboxEngine } from '../../src/sandbox/http/http-engine.js';
import { MARKET_MODEL, grossPnlUsd, midPrice, priceImpactUsd } from '../../src/sandbox/market-model.js';
import { hashString } from '../../src/sandbox/prng.js';
import { createClock } from '../../src/sandbox/http/server.js';
import { KEY_A, KEY_B, DAY, T0, call, makeEngine, openBody, openFilled, requestHeaders } from '../support/engine.js';
import { on } from './engine-calls.js';

const iso = (ms: number) => new Date(ms).toISOString();
/** Asserts an error answer: its status, code and (some of) its details. */
const expectRefused = (answer: object, status: number, code: string, details?: object) =>
  expect(answer).toMatchObject({ status, error: { code, ...(details && { details }) } });
const LIVE_KEY = 'hpk_live_AAAAAAAAAAAAAAAAAAAAAAAA';
/** A flat account's figures once `net` USD of P&L has been booked on the starting million. */
const flatAfter = (net: number, digits = 2) => ({
  balance_usdc: expect.closeTo(1_000_000 + net, digits),
  open_exposure_usd: 0,
});
/** The one account a test's key opened. */
const firstAccount = (engine: HttpSandboxEngine) => Object.values(engine.state.accounts)[0];
const historyNewestFirst = (engine: HttpSandboxEngine) =>
  [...firstAccount(engine).history].reverse().map((record) => record.hedge_id);

it('engine: authentication, validation and routing, and accounts: refuses a missing or unknown key with unauthorized and a well-formed live key with live_key_refused; refuses to start with a key that is not a test key; invalid_json when the body did not parse, is missing or is not an object; validation_error names the first wrong field; limit must be 1..500 and status a known status; unknown paths are not_found and wrong methods method_not_allowed with Allow; keeps accounts isolated: hedges, positions, balances, idempotency keys', () => {
  expect(() => makeEngine({ apiKeys: [LIVE_KEY] })).toThrow(/test keys/);
  // Refused requests change nothing: one engine answers them all, then acts.
  const { engine, get, keyed, open, quoteFor } = on();
  for (const [key, code] of [
    [null, 'unauthorized'],
    ['hpk_test_ZZZZZZZZZZZZZZZZZZZZZZZZ', 'unauthorized'],
    ['not-a-key', 'unauthorized'],
    [LIVE_KEY, 'live_key_refused'],
  ] as const) {
    expect(call(engine, T0, 'GET', '/markets', { key })).toMatchObject({
      status: 401,
      body: { data: null, error: { code }, meta: {} },
    });
  }
  const fieldOf = (path: string, query: Record<string, string>) =>
    call(engine, T0, 'GET', path, { query }).error?.details?.field;
  for (const body of [INVALID_JSON, undefined, [1, 2], 'text', null])
    expectRefused(call(engine, T0, 'POST', '/hedges', { body }), 400, 'invalid_json');
  // Each wrong body names its one field.
  for (const wrong of [
    { market: undefined },
    { side: 'long' },
    { notional_usd: -5 },
    { notional_usd: '100' },
    { notional_usd: 0 },
    { tenor_days: 2 },
    { tenor_days: '7' },
    { client_reference: 42 },
  ])
    expectRefused(open(T0, 'buy', 1, 7, wrong), 400, 'validation_error', {
      field: Object.keys(wrong)[0],
      reason: expect.any(String),
    });
  expect(quoteFor(T0, 'buy', 1, 30).error?.details?.field).toBe('tenor_days');
  for (const limit of ['0', '501', 'abc', '-1', '2.5'])
    for (const path of ['/hedges', '/hedges/history']) expect(fieldOf(path, { limit })).toBe('limit');
  expect(call(engine, T0, 'GET', '/hedges', { query: { limit: '500' } }).status).toBe(200);
  expect(fieldOf('/hedges', { status: 'open' })).toBe('status');
  expectRefused(call(engine, T0, 'GET', '/nothing-here'), 404, 'not_found');
  const deleted = call(engine, T0, 'DELETE', '/hedges');
  expectRefused(deleted, 405, 'method_not_allowed');
  expect(deleted.headers.allow).toBe('GET, POST');
  expect(call(engine, T0, 'POST', '/hedges/hdg_x').headers.allow).toBe('GET');
  const hedge = keyed(T0, 'shared', 'buy', 100_000).data;
  const now = T0 + 1500;
  const ofB = (path: string) => get(now, path, { key: KEY_B });
  expect([ofB('/hedges'), ofB('/positions'), ofB('/account').balance_usdc]).toEqual([[], [], 1_000_000]);
  expectRefused(call(engine, now, 'GET', `/hedges/${hedge.id}`, { key: KEY_B }), 404, 'hedge_not_found', {
    hedge_id: hedge.id,
  });
  // B can open the same side under the same key: one hedge per side, and keys, are per account.
  const opened = keyed(now, 'shared', 'buy', 100_000, { key: KEY_B });
  expect([opened.status, opened.headers['idempotent-replayed']]).toEqual([200, undefined]);
  expect(opened.data.id).not.toBe(hedge.id);
});

it('engine: validation says why: each wrong field its reason, a missing one "is required", the first wrong one in the order market, side, notional, tenor, reference; a null reference is none; a quote reads no reference; a change names its own amount field before checking it', () => {
  const { open, post, quoteFor, change } = on({ dialect: 'alpha' });
  const reasonOf = (answer: ReturnType<typeof call>) => [answer.error?.details?.field, answer.error?.details?.reason];
  const text = (max: number) => `must be a non-empty string of at most ${max} characters`;
  for (const [wrong, reason] of [
    [{ market: undefined }, 'is required'],
    [{ market: '' }, text(32)],
    [{ market: 'X'.repeat(33) }, text(32)],
    [{ side: 'long' }, 'must be buy or sell'],
    [{ side: 'BUY' }, 'must be buy or sell'],
    [{ notional_usd: -5 }, 'must be a positive finite number'],
    [{ notional_usd: '100' }, 'must be a positive finite number'],
    [{ tenor_days: 2 }, 'must be one of 1, 3, 7'],
    [{ tenor_days: undefined }, 'is required'],
    [{ client_reference: 42 }, text(128)],
    [{ client_reference: 'r'.repeat(129) }, text(128)],
  ] as const)
    expect(reasonOf(open(T0, 'buy', 1, 7, wrong))).toEqual([Object.keys(wrong)[0], reason]);
  expect(reasonOf(open(T0, 'buy', 1, 2, { side: 'long', market: 7 }))).toEqual(['market', text(32)]);
  expect(reasonOf(open(T0, 'buy', -1, 2, { client_reference: 3 }))).toEqual([
    'notional_usd',
    'must be a positive finite number',
  ]);
  expect(open(T0, 'buy', 1_000, 7, { client_reference: null }).data).not.toHaveProperty('client_reference');
  expect(quoteFor(T0, 'buy', 1_000, 7, { client_reference: 42 }).status).toBe(200);
  // alpha carries a change's amount as amount_usd: the reference name is refused, naming the dialect's.
  expect(reasonOf(change(T0, 'add', 'buy', 5))).toEqual([
    'amount_usd',
    'carries the notional on this server; notional_usd is not accepted',
  ]);
  expect(reasonOf(post(T0, '/hedges/add', { market: 'USDTNGN', side: 'buy' }))).toEqual(['amount_usd', 'is required']);
  expect(reasonOf(post(T0, '/hedges/reduce', { side: 'buy', amount_usd: 0 }))).toEqual(['market', 'is required']);
  expect(reasonOf(post(T0, '/hedges/add', { market: 'USDTNGN', side: 'buy', amount_usd: 0 }))).toEqual([
    'amount_usd',
    'must be a positive finite number',
  ]);
});

it('engine: idempotency: same key and same body returns the original response without acting twice; same key with another body is idempotency_key_reuse; an empty or overlong Idempotency-Key is refused; a key reused after it expired keeps its new record until that one is a day old', () => {
  const { engine, get, post, keyed, change } = on();
  const first = keyed(T0, 'k-1', 'buy', 10_000);
  // Same body with keys in another order is the same request.
  const reordered = { tenor_days: 7, notional_usd: 10_000, side: 'buy', market: 'USDTNGN' };
  expect(post(T0 + 5000, '/hedges', reordered, { idempotencyKey: 'k-1' })).toMatchObject({
    status: first.status,
    body: first.body,
    headers: { 'idempotent-replayed': 'true' },
  });
  expect([get(T0 + 5000, '/hedges').length, get(T0 + 5000, '/account').open_exposure_usd]).toEqual([1, 10_000]);
  const reuse = (answer: object) => expectRefused(answer, 409, 'idempotency_key_reuse', { idempotency_key: 'k-1' });
  reuse(keyed(T0, 'k-1', 'buy', 20_000));
  // Another endpoint is another request too.
  reuse(change(T0 + 2000, 'close', 'buy', undefined, { idempotencyKey: 'k-1' }));
  for (const key of ['', 'x'.repeat(256)])
    expectRefused(keyed(T0, key, 'buy', 1000), 400, 'validation_error', { field: 'Idempotency-Key' });
  // The expiry queue: k-1 is a day old, so a new body acts; its record stays until it is a day old too.
  const renewed = keyed(T0 + DAY, 'k-1', 'sell', 1_000);
  expect(renewed.headers['idempotent-replayed']).toBeUndefined();
  const replay = keyed(T0 + DAY + 10, 'k-1', 'sell', 1_000);
  expect([replay.headers['idempotent-replayed'], replay.data.id]).toEqual(['true', renewed.data.id]);
  get(T0 + 2 * DAY - 1, '/markets');
  expect(Object.keys(engine.state.idempotency)).toHaveLength(1);
  get(T0 + 2 * DAY, '/markets');
  expect(engine.state.idempotency).toEqual({});
});

it('engine: idempotency: a key held by a request still in progress is idempotency_in_flight, then replays once done; does not remember refused requests', () => {
  const { engine, get, keyed } = on({ exposureCapUsd: 50_000 });
  const request = {
    method: 'POST',
    path: '/hedges',
    query: {},
    headers: requestHeaders(KEY_A, 'k-held'),
    body: openBody('sell', 10_000),
  };
  const lease = engine.acquireIdempotencyKey(request) as string;
  // A lease (not null: the request is idempotent; not 'in-flight': nobody holds the key yet), scoped to the account and key.
  expect(lease).toBe('test:acct_2e11952c4def8e17:k-held');
  expect(engine.acquireIdempotencyKey(request)).toBe('in-flight');

  expect(engine.handle(request, T0)).toMatchObject({
    status: 409,
    body: { error: { code: 'idempotency_in_flight' } },
  });

  const original = engine.handle(request, T0, { lease });
  expect(original.status).toBe(200);
  engine.releaseIdempotencyKey(lease);
  expect(engine.handle(request, T0 + 10).body).toEqual(original.body);
  expect(get(T0 + 10, '/hedges')).toHaveLength(1);
  // The open sell 10,000 and a buy of 60,000 would pass the cap of 50,000; one of 40,000 does not.
  expectRefused(keyed(T0, 'k-2', 'buy', 60_000), 400, 'exposure_exceeded');
  expect(keyed(T0, 'k-2', 'buy', 40_000).status).toBe(200);
});

it('engine: rate limiting: answers 429 rate_limited with Retry-After once a key exceeds its requests per second', () => {
  const engine = makeEngine({ rateLimit: 2 });
  const at = (realTimeMs: number, key = KEY_A) => call(engine, T0, 'GET', '/markets', { key, realTimeMs });
  expect(at(0).status).toBe(200);
  expect(at(100).status).toBe(200);
  const limited = at(200);
  expectRefused(limited, 429, 'rate_limited', { retry_after_ms: 300 });
  expect(limited.headers['retry-after']).toBe('1');
  // Per key: the other key has its own budget.
  expect(at(200, KEY_B).status).toBe(200);
  // Tokens refill at the configured rate.
  expect([at(500).status, at(500).status]).toEqual([200, 429]);
});

it('engine: business errors: exposure_exceeded when an open or an add would pass the aggregate cap (both sides and pending adds count); insufficient_balance when the balance cannot cover margin plus fee', () => {
  const { engine, filled, get, open, change } = on({ exposureCapUsd: 100_000 });
  const { now } = filled('buy', 60_000);
  expectRefused(open(now, 'sell', 50_000), 400, 'exposure_exceeded', {
    available_exposure_usd: 40_000,
    requested_usd: 50_000,
    exposure_cap_usd: 100_000,
  });
  expect(change(now, 'add', 'buy', 30_000).status).toBe(200);
  expect(open(now, 'sell', 10_001).error?.details?.available_exposure_usd).toBe(10_000);
  // Capacity shows the cap itself; headroom net of positions is the account's available exposure.
  expect(get(now, '/markets')[0].available_capacity_usd).toEqual({ buy: 100_000, sell: 100_000 });
  expect(get(now, '/account').available_exposure_usd).toBe(10_000);
  // Within the headroom left, but not the balance.
  firstAccount(engine).balanceUsdc = 1000;
  expectRefused(open(now, 'sell', 10_000), 400, 'insufficient_balance', { balance_usdc: 1000, required_usdc: 1005 });
});

it('engine: business errors: capacity_exceeded when a side of the market is full, whatever the account’s cap', () => {
  const { get, post, open } = on({ exposureCapUsd: 10_000_000 });
  const [before] = get(T0, '/markets');
  // Background open interest already holds 2.1M of the 5M buy side.
  expect(before.available_capacity_usd).toEqual({ buy: 2_900_000, sell: 3_100_000 });
  expectRefused(open(T0, 'buy', 2_900_001), 400, 'capacity_exceeded', {
    side: 'buy',
    available_capacity_usd: 2_900_000,
    requested_usd: 2_900_001,
  });
  expect(open(T0, 'buy', 2_900_000).status).toBe(200);
  expect(get(T0, '/markets')[0].available_capacity_usd.buy).toBe(0);
  // The market is shared: the other account finds the buy side full too.
  expect(post(T0, '/hedges', openBody('buy', 1), { key: KEY_B }).error?.code).toBe('capacity_exceeded');
});

it('engine: business errors: market_not_available for an unlisted market and market_disabled for a disabled one; no_open_hedge for add, reduce and close on an empty side; hedge_already_open for a second open on the same market and side', () => {
  const { engine, filled, change, open, post } = on({
    extraMarkets: [{ market: 'USDTGHS', status: 'disabled', basePrice: 15.4 }],
  });
  const markets = call(engine, T0, 'GET', '/markets');
  expect(markets.data.map((m: any) => [m.market, m.status])).toEqual([
    ['USDTNGN', 'open'],
    ['USDTGHS', 'disabled'],
  ]);
  expect(markets.body.meta).toEqual({ source: 'onchain', allowed_markets: ['USDTNGN', 'USDTGHS'] });

  const onMarket = (path: string, market: string) => post(T0, path, openBody('buy', 1000, 7, { market }));
  expect(onMarket('/quotes', 'USDTKES').error).toMatchObject({
    code: 'market_not_available',
    details: { market: 'USDTKES', allowed_markets: ['USDTNGN', 'USDTGHS'] },
  });
  for (const path of ['/hedges', '/quotes']) expectRefused(onMarket(path, 'USDTGHS'), 400, 'market_disabled');

  const { now } = filled('buy', 10_000);
  for (const action of ['add', 'reduce', 'close'])
    expectRefused(change(now, action, 'sell', action === 'close' ? undefined : 1000), 404, 'no_open_hedge', {
      market: 'USDTNGN',
      side: 'sell',
    });
  // The other side opens beside the buy; a second open of it, still submitted, is refused.
  const { id } = open(now, 'sell', 10_000).data;
  expectRefused(open(now, 'sell', 10_000), 409, 'hedge_already_open', { hedge_id: id });
  // An engine's markets are its own: USDTNGN disabled there (as a test does) is still open in the next engine.
  (engine as any).book.markets[0].status = 'disabled';
  expect(call(makeEngine(), T0, 'GET', '/markets').data[0]).toMatchObject({ market: 'USDTNGN', status: 'open' });
});

it('engine: pricing: a bigger trade quotes worse; an imbalance-reducing trade quotes better; quotes are indicative: they persist nothing and echo the request; prices come from the seeded path: same seed and time, same price; around 1,530', () => {
  const { get, quoteFor } = on();
  const pricing = (side: 'buy' | 'sell', notional: number) => quoteFor(T0, side, notional).data.pricing;
  const smallBuy = pricing('buy', 10_000);
  const bigBuy = pricing('buy', 900_000);
  // Buying USDT pays more naira than mid, and more the bigger the trade.
  expect(smallBuy.execution_price).toBeGreaterThan(smallBuy.market_price);
  expect(bigBuy.execution_price).toBeGreaterThan(smallBuy.execution_price);
  expect(bigBuy.price_impact_usd / 900_000).toBeLessThan(smallBuy.price_impact_usd / 10_000);
  // The book is long USDT already: a sell heals the imbalance and earns positive impact.
  const smallSell = pricing('sell', 10_000);
  expect(smallSell.price_impact_usd).toBeGreaterThan(0);
  expect(smallSell.execution_price).toBeGreaterThan(smallSell.market_price);
  // A sell so big that it flips the imbalance pays again, receiving fewer naira than mid.
  const hugeSell = pricing('sell', 2_000_000);
  expect(hugeSell.price_impact_usd).toBeLessThan(0);
  expect(hugeSell.execution_price).toBeLessThan(hugeSell.market_price);
  const { body, data: quote } = quoteFor(T0, 'buy', 250_000, 3);
  expect(body.meta).toEqual({ source: 'onchain' });
  expect(quote).toMatchObject({
    market: 'USDTNGN',
    side: 'buy',
    notional_usd: 250_000,
    tenor_days: 3,
    maturity: iso(T0 + 3 * DAY),
  });
  expect(quote.upfront).toEqual({ required_margin_usdc: 25_000, platform_fee_usdc: 125, total_upfront_usdc: 25_125 });
  expect(quote.carry.total_usdc).toBeCloseTo(quote.carry.daily_usdc * 3, 1);
  expect(quote.carry.total_rate_pct).toBeCloseTo(quote.carry.daily_rate_pct * 3, 4);
  expect([get(T0, '/hedges'), get(T0, '/account').balance_usdc]).toEqual([[], 1_000_000]);
  const price = (seed: string, t = T0, symbols = 'USDTNGN') =>
    call(makeEngine({ seed }), t, 'GET', '/prices', { query: { symbols } });
  // Its envelope and shape: dialects.test.ts ("serves prices in its own shape", reference).
  const first = price('p').data[0].price;
  expect(price('p').data[0].price).toBe(first);
  expect(price('q').data[0].price).not.toBe(first);
  for (let day = 0; day < 30; day++) {
    // Within 3% of 1,530.
    expect(Math.abs(price('p', T0 + day * DAY).data[0].price / 1530 - 1)).toBeLessThan(0.03);
  }
  // makeEngine()'s own seed.
  expect(price('engine-tests', T0, 'USDTNGN,XYZ').error?.code).toBe('market_not_available');
  expect(call(makeEngine(), T0, 'GET', '/prices').data).toHaveLength(1);
});

it('engine: lists: seedHedges writes past hedges whose history adds up to the balance; the list places them among live ones by opened_at, ties by id', () => {
  const { engine, filled, get, open } = on();
  expect(engine.seedHedges(KEY_A, 30, 'closed', T0)).toHaveLength(30);
  const history = get(T0, '/hedges/history', { query: { limit: '500' } });
  expect(new Set(history.map((r: any) => r.close_reason))).toEqual(new Set(['settled', 'closed']));
  const closedAts = history.map((r: any) => r.closed_at);
  expect([...closedAts].sort().reverse()).toEqual(closedAts);
  const net = history.reduce((sum: number, r: any) => sum + r.net_pnl_usd, 0);
  expect(get(T0, '/account')).toMatchObject(flatAfter(net, 1));
  expect([history.length, get(T0, '/hedges', { query: { status: 'closed', limit: '500' } }).length]).toEqual([30, 30]);

  engine.seedHedges(KEY_B, 5, 'failed', T0);
  expect([
    get(T0, '/hedges', { key: KEY_B, query: { status: 'failed' } }).length,
    get(T0, '/account', { key: KEY_B }).balance_usdc,
  ]).toEqual([5, 1_000_000]);

  const { now } = filled('buy', 10_000);
  engine.seedHedges(KEY_A, 12, 'closed', now);
  open(now + 10, 'sell', 10_000);
  const listed = get(now + 10, '/hedges', { query: { limit: '500' } });
  // The 30 seeded first, the live buy, 12 more seeded, the live sell.
  expect(listed).toHaveLength(44);
  // Ids and ISO times are of one length: as text, newest first and ties by id descending.
  const keys = listed.map((hedge: any) => `${hedge.opened_at} ${hedge.id}`);
  expect(keys).toEqual([...keys].sort().reverse());
  expect(listed[0].opened_at).toBe(iso(now + 10));
});

const HEX_64 = /^0x[0-9a-f]{64}$/;
const USDTNGN = MARKET_MODEL.catalogue[0];
const round2 = (value: number) => Math.round(value * 100) / 100;
/** An engine on the engine's state as saved to JSON and read back. */
const reload = (engine: HttpSandboxEngine) =>
  createHttpEngine({ apiKeys: [KEY_A], fillDelayMs: 1000 }, JSON.parse(JSON.stringify(engine.state)));

it('engine: hedge state machine: opens as submitted with hashes, units and maturity, reserving margin and fee; submitted → filled after the fill delay, with fill hash and a struck rate near the quote; filled → closed at maturity: settles against the reference rate and credits the balance; settles the same lazily from a state reloaded before the fill, hours later; refuses a state of another version', () => {
  const { engine, get, open, quoteFor, hedgeAt } = on({ seed: 'settle' });
  const quote = quoteFor(T0, 'buy', 100_000, 3).data;
  const opened = open(T0, 'buy', 100_000, 3, { client_reference: 'deal-1' });
  const reloaded = on(reload(engine));
  const maturity = T0 + 3 * DAY;

  expect([opened.status, opened.body.meta, opened.data.hedge_id]).toEqual([200, {}, opened.data.id]);
  expect(opened.data).toMatchObject({
    status: 'submitted',
    market: 'USDTNGN',
    side: 'buy',
    notional_usd: 100_000,
    tenor_days: 3,
    units: 100_000,
    client_reference: 'deal-1',
    opened_at: iso(T0),
    maturity_at: iso(maturity),
    id: expect.stringMatching(/^hdg_[a-z0-9]{24}$/),
    order_tx_hash: expect.stringMatching(HEX_64),
    order_key: expect.stringMatching(HEX_64),
  });
  expect(opened.data).not.toHaveProperty('fill_tx_hash');
  expect(opened.data).not.toHaveProperty('struck_rate');

  expect(get(T0, '/account')).toMatchObject({
    balance_usdc: 1_000_000 - quote.upfront.total_upfront_usdc,
    margin_in_use_usdc: quote.upfront.required_margin_usdc,
    open_exposure_usd: 100_000,
    available_exposure_usd: 900_000,
  });
  const { id } = opened.data;
  // Submitted is not yet a position.
  expect([get(T0, '/positions'), hedgeAt(T0 + 999, id).status]).toEqual([[], 'submitted']);
  const hedge = hedgeAt(T0 + 1000, id);
  expect(hedge).toMatchObject({
    status: 'filled',
    fill_tx_hash: expect.stringMatching(HEX_64),
    filled_at: iso(T0 + 1000),
  });
  expect(Math.abs(hedge.struck_rate / quote.pricing.execution_price - 1)).toBeLessThan(0.001);

  const [position] = get(T0 + 1000, '/positions');
  expect(position).toMatchObject({
    hedge_id: id,
    side: 'buy',
    entry_price: hedge.struck_rate,
    notional_usd: 100_000,
  });

  const after = maturity + 5000;
  expect(hedgeAt(maturity - 1, id).status).toBe('filled');
  expect(hedgeAt(after, id)).toMatchObject({ status: 'closed', closed_at: iso(maturity) });
  expect(get(after, '/positions')).toEqual([]);

  const [record] = get(after, '/hedges/history');
  // The reference rate: the seeded path's mid price at maturity.
  const exit = midPrice(hashString('settle'), USDTNGN, maturity);
  const gross = round2((100_000 * (exit - hedge.struck_rate)) / exit);
  const carry = round2((100_000 * quote.carry.daily_rate_pct * (maturity - (T0 + 1000))) / (100 * DAY));
  const fees = quote.upfront.platform_fee_usdc;
  expect(record).toMatchObject({
    hedge_id: id,
    close_reason: 'settled',
    entry_price: hedge.struck_rate,
    exit_price: exit,
    gross_pnl_usd: gross,
    carry_usdc: carry,
    fees_usdc: fees,
    net_pnl_usd: round2(gross - carry - fees),
    opened_at: iso(T0),
    closed_at: iso(maturity),
    notional_usd: 100_000,
    tenor_days: 3,
  });
  expect(get(after, '/account')).toMatchObject({
    ...flatAfter(record.net_pnl_usd),
    margin_in_use_usdc: 0,
    available_exposure_usd: 1_000_000,
  });
  // The state saved before the fill, read only hours after maturity: fill then settlement, in time order.
  const later = maturity + 6 * 3_600_000;
  expect(reloaded.hedgeAt(later, id)).toMatchObject({
    status: 'closed',
    filled_at: iso(T0 + 1000),
    closed_at: iso(maturity),
  });
  expect(reloaded.get(later, '/hedges/history')).toEqual([record]);
  const state = { ...createEngineState(), version: 2 as 1 };
  expect(() => createHttpEngine({ apiKeys: [KEY_A] }, state)).toThrow(/version/);
});

it('engine: hedge state machine: submitted → failed releases the reserved collateral and fee and frees the side; fails a seeded share of opens, the same ones for the same seed', () => {
  const { get, open, hedgeAt } = on({ failRate: 1 });
  const { id } = open(T0, 'sell', 50_000).data;
  // Reserved while submitted: the 10% margin (5,000) and the 0.05% fee (25).
  expect(get(T0, '/account').balance_usdc).toBe(1_000_000 - 5_000 - 25);

  const hedge = hedgeAt(T0 + 1000, id);
  expect(hedge.status).toBe('failed');
  expect(hedge).not.toHaveProperty('fill_tx_hash');
  expect(get(T0 + 1000, '/account')).toMatchObject({
    balance_usdc: 1_000_000,
    margin_in_use_usdc: 0,
    open_exposure_usd: 0,
    open_positions: 0,
  });
  expect([get(T0 + 1000, '/positions'), open(T0 + 1000, 'sell', 50_000).status]).toEqual([[], 200]);
  const outcomes = (seed: string) => {
    const { open, change, hedgeAt } = on({ failRate: 0.5, seed });
    return Array.from({ length: 12 }, (_, i) => {
      const t = T0 + i * 10_000;
      const { status } = hedgeAt(t + 1000, open(t, 'buy', 1000, 1).data.id);
      if (status === 'filled') change(t + 1000, 'close', 'buy');
      return status;
    });
  };
  const first = outcomes('fail-seed');
  expect(first).toEqual(outcomes('fail-seed'));
  expect(first).toEqual(expect.arrayContaining(['failed', 'filled']));
});

it('engine: add, reduce, close: add lands after the fill delay: notional, weighted entry and margin grow, maturity stays; refuses a second change while one is pending, changes on a hedge that is not filled yet, and a reduce past the notional', () => {
  const { filled, get, change, hedgeAt, open } = on();
  const { hedge, now } = filled('buy', 100_000);
  expect(change(now, 'add', 'buy', 50_000)).toMatchObject({
    status: 200,
    data: {
      hedge_id: hedge.id,
      action: 'add',
      market: 'USDTNGN',
      side: 'buy',
      status: 'submitted',
      notional_usd: 50_000,
      submitted_at: iso(now),
      order_tx_hash: expect.stringMatching(HEX_64),
    },
  });
  // Pending add counts against the cap at once, the hedge changes only when it lands.
  expect([get(now, '/account').open_exposure_usd, hedgeAt(now + 999, hedge.id).notional_usd]).toEqual([
    150_000, 100_000,
  ]);

  expect(hedgeAt(now + 1000, hedge.id)).toMatchObject({
    notional_usd: 150_000,
    units: 150_000,
    maturity_at: hedge.maturity_at,
    status: 'filled',
  });
  const [position] = get(now + 1000, '/positions');
  expect(position.margin_usdc).toBe(15_000);
  expect(position.entry_price).toBeGreaterThan(Math.min(hedge.struck_rate, position.mark_price) - 10);
  expect(position.entry_price).not.toBe(hedge.struck_rate);

  // The sell side: its open is still pending.
  const t = now + 1000;
  const { id } = open(t, 'sell', 100_000).data;
  const pending = (answer: object) => expectRefused(answer, 409, 'action_pending', { hedge_id: id });
  pending(change(t + 10, 'add', 'sell', 1000));
  expectRefused(change(t + 2000, 'reduce', 'sell', 100_001), 400, 'notional_too_large', { notional_usd: 100_000 });
  change(t + 2000, 'reduce', 'sell', 1000);
  pending(change(t + 2001, 'close', 'sell'));
});

it('engine: add, reduce, close: reduce is proportional: margin, carry and P&L of the reduced share come back minus its fee; a reduce of the whole notional (or ≥ 99.5%, or leaving < 1 USD) closes the hedge fully', () => {
  const { filled, get, change } = on({ seed: 'reduce' });
  const { hedge, now } = filled('sell', 200_000);
  const later = now + 2 * DAY;
  const [before] = get(later, '/positions');
  const balanceBefore = get(later, '/account').balance_usdc;

  expect(change(later, 'reduce', 'sell', 50_000).data).toMatchObject({
    action: 'reduce',
    notional_usd: 50_000,
    status: 'submitted',
  });
  const landedAt = later + 1000;
  const [after] = get(landedAt, '/positions');
  expect(after).toMatchObject({
    hedge_id: hedge.id,
    notional_usd: 150_000,
    units: 150_000,
    margin_usdc: 15_000,
    maturity_at: hedge.maturity_at,
  });
  expect(after.entry_price).toBe(before.entry_price);

  const credited = get(landedAt, '/account').balance_usdc - balanceBefore;
  // A quarter of the margin (5,000) plus a quarter of the P&L net of carry, minus a 0.05% fee.
  expect(Math.abs(credited - (5_000 + before.net_pnl_usd / 4 - 25))).toBeLessThan(20);
  // Carry left on the position is three quarters of what had accrued (plus one second more).
  expect(after.accrued_carry_usdc).toBeCloseTo((before.accrued_carry_usdc * 3) / 4, 0);
  // The last: 99.47% of the notional, but it would leave 0.80 USD.
  for (const [notional, reduceBy] of [
    [100_000, 100_000],
    [100_000, 99_600],
    [150, 149.2],
  ] as const) {
    const { filled, get, change, hedgeAt } = on();
    const { hedge, now } = filled('buy', notional);
    change(now, 'reduce', 'buy', reduceBy);
    const landed = now + 1000;
    expect([hedgeAt(landed, hedge.id).status, get(landed, '/positions')]).toEqual(['closed', []]);
    const [record] = get(landed, '/hedges/history');
    expect(record).toMatchObject({ hedge_id: hedge.id, close_reason: 'closed', notional_usd: notional });
    expect(get(landed, '/account')).toMatchObject(flatAfter(record.net_pnl_usd));
  }
});

it('engine: add, reduce, close: a close credits exactly the net_margin_usd the position shows at the moment it lands; history covers the whole lifecycle: open, add, reduce and a close landing after the delay add up to the balance', () => {
  // Two engines with the same seed and the same history: one closes, the twin only looks.
  const [closer, looker] = [on({ seed: 'twin' }), on({ seed: 'twin' })];
  const landsAt = T0 + 1500 + 2 * DAY + 1000;
  for (const { filled } of [closer, looker]) filled('buy', 400_000);
  closer.change(landsAt - 1000, 'close', 'buy');
  const [position] = looker.get(landsAt, '/positions');
  expect([closer.get(landsAt, '/account').balance_usdc, closer.get(landsAt, '/hedges/history')[0].exit_price]).toEqual([
    expect.closeTo(looker.get(landsAt, '/account').balance_usdc + position.net_margin_usd, 2),
    position.mark_price,
  ]);
  const { filled, get, change, hedgeAt } = on({ seed: 'lifecycle' });
  const { hedge, now } = filled('sell', 100_000);
  let t = now + 3_600_000;
  change(t, 'add', 'sell', 40_000);
  t += 3_600_000;
  change(t, 'reduce', 'sell', 70_000);
  const closeAt = t + 3_600_000;
  expect(change(closeAt, 'close', 'sell').data).toMatchObject({
    hedge_id: hedge.id,
    action: 'close',
    status: 'submitted',
    notional_usd: 70_000,
  });
  // The close lands after the fill delay: until then the side is still a position.
  const landed = closeAt + 1000;
  expect([get(closeAt + 999, '/positions').length, get(landed, '/positions')]).toEqual([1, []]);
  expect(hedgeAt(landed, hedge.id)).toMatchObject({ status: 'closed', closed_at: iso(landed) });
  t = landed + 3_600_000;

  const [record, ...others] = get(t, '/hedges/history');
  expect(others).toEqual([]);
  // Fees: 0.05% of 100k open + 40k add + 70k reduce + 70k close.
  expect(record).toMatchObject({
    hedge_id: hedge.id,
    notional_usd: 70_000,
    close_reason: 'closed',
    fees_usdc: 50 + 20 + 35 + 35,
  });
  expect(record.net_pnl_usd).toBeCloseTo(record.gross_pnl_usd - record.carry_usdc - record.fees_usdc, 2);
  expect(get(t, '/account')).toMatchObject(flatAfter(record.net_pnl_usd));
});

it('engine: add, reduce, close: an add still pending at maturity never lands and is refunded', () => {
  const { get, open, change } = on({ fillDelayMs: 60_000 });
  const { id } = open(T0, 'buy', 100_000, 1).data;
  change(T0 + DAY - 30_000, 'add', 'buy', 100_000);
  const later = T0 + DAY + 120_000;
  const [record] = get(later, '/hedges/history');
  expect(record).toMatchObject({ hedge_id: id, notional_usd: 100_000, close_reason: 'settled' });
  expect(get(later, '/account')).toMatchObject(flatAfter(record.net_pnl_usd));
});

it('engine: carry: accrues pro rata by sandbox time at the daily rate fixed at open', () => {
  const { filled, get, post, quoteFor } = on();
  const quote = quoteFor(T0, 'buy', 500_000).data;
  const { hedge } = filled('buy', 500_000);
  const filledAt = Date.parse(hedge.filled_at);
  const expectedCarry = (ms: number) => round2((500_000 * quote.carry.daily_rate_pct * ms) / (100 * DAY));

  // Another account's big sell shifts the market rates, but not this hedge's fixed rate.
  post(filledAt, '/hedges', openBody('sell', 900_000), { key: KEY_B });

  const [atHalfDay] = get(filledAt + DAY / 2, '/positions');
  const [atTwoDays] = get(filledAt + 2 * DAY, '/positions');
  expect(quote.carry.daily_rate_pct).toBeGreaterThan(0);
  expect([atHalfDay.accrued_carry_usdc, atTwoDays.accrued_carry_usdc]).toEqual([
    expectedCarry(DAY / 2),
    expectedCarry(2 * DAY),
  ]);
  expect(atTwoDays.net_pnl_usd).toBeCloseTo(atTwoDays.gross_pnl_usd - atTwoDays.accrued_carry_usdc, 2);
  expect(atTwoDays.net_margin_usd).toBeCloseTo(
    atTwoDays.margin_usdc + atTwoDays.net_pnl_usd - atTwoDays.close_fee_usdc,
    2,
  );
});

it('engine: carry: the lighter side earns carry (negative rate) and the heavier side pays', () => {
  const { filled, get } = on();
  const [market] = get(T0, '/markets');
  expect(market.net_rate_daily_pct.buy).toBeGreaterThan(0);
  expect(market.net_rate_daily_pct.sell).toBeLessThan(0);
  const { now } = filled('sell', 100_000);
  expect(get(now + DAY, '/positions')[0].accrued_carry_usdc).toBeLessThan(0);
});

// The sandbox clock and the market model the engine prices with.
it('sandbox clock: runs at origin + real elapsed × speed + manual offset; starts at the real time by default; market model: is a continuous path (tiny moves over a second); prices impact as factor × (imbalance before² − imbalance after²); computes P&L as notional × (mark − entry) / mark for a buy and the opposite for a sell', () => {
  let real = 1_000;
  const clock = createClock({ realNow: () => real, speed: 60, originMs: 5_000_000 });
  const first = clock.now();
  real += 1_000;
  const second = clock.now();
  clock.advance(40_000);
  expect([first, second, clock.now()]).toEqual([5_000_000, 5_060_000, 5_100_000]);
  expect(() => clock.advance(-1)).toThrow();
  expect(() => createClock({ speed: 0 })).toThrow();
  // By default: at the real time.
  expect(createClock({ realNow: () => 42_000 }).now()).toBe(42_000);
  const seed = hashString('model');
  const t = Date.UTC(2026, 0, 1);
  expect(Math.abs(midPrice(seed, USDTNGN, t + 1000) - midPrice(seed, USDTNGN, t))).toBeLessThan(1);
  const book = { buy: 2_000_000, sell: 1_000_000 };
  expect(priceImpactUsd(book, 'buy', 100_000)).toBeCloseTo(MARKET_MODEL.impact.negativeFactor * (1e12 - 1.1e6 ** 2), 6);
  expect(priceImpactUsd(book, 'sell', 100_000)).toBeCloseTo(
    MARKET_MODEL.impact.positiveFactor * (1e12 - 0.9e6 ** 2),
    6,
  );
  expect(grossPnlUsd('buy', 100_000, 1500, 1530)).toBeCloseTo((100_000 * 30) / 1530, 8);
  expect(grossPnlUsd('sell', 100_000, 1500, 1530)).toBeCloseTo((-100_000 * 30) / 1530, 8);
});

// The simulator at 10,000 hedges, grown through real engine writes: order, pages, idempotency
// replay and expiry must hold at that size. Timings are the self-check script's business
// (test/sandbox/growth-check.mjs); nothing here depends on how fast the machine is.
const HEDGES = 10_000;

describe('growing the simulator to 10,000 hedges through real writes', () => {
  const engine = makeEngine();
  // Grown in a hook, within its bound: collecting the file does no work.
  let idsOldestFirst: string[], nowMs: number, keys: string[], writes: number, newestFirst: string[];
  beforeAll(() => {
    ({
      hedgeIds: idsOldestFirst,
      nowMs,
      idempotencyKeys: keys,
      writes,
    } = growHedges(engine, { apiKey: KEY_A, hedges: HEDGES, startMs: T0 }));
    newestFirst = [...idsOldestFirst].reverse();
  });
  /** The ids of GET /hedges with this query, at the grown state's time. */
  const listed = (query: Record<string, string> = {}, on = engine) =>
    call(on, nowMs, 'GET', '/hedges', { query }).data.map((hedge: any) => hedge.id);
  /** The grown state's last write (a close of the sell side) sent again under its key. */
  const replayLast = (on = engine) =>
    call(on, nowMs, 'POST', '/hedges/close', {
      body: { market: 'USDTNGN', side: 'sell' },
      idempotencyKey: keys.at(-1),
    });

  it('leaves every hedge opened and closed, with one history record each', () => {
    const account = firstAccount(engine);
    const hedges = Object.values(account.hedges);
    expect([writes, new Set(idsOldestFirst).size, hedges.length, account.history.length]).toEqual([
      2 * HEDGES,
      HEDGES,
      HEDGES,
      HEDGES,
    ]);
    expect(hedges.every((hedge) => hedge.status === 'closed')).toBe(true);
    expect(keys.slice(0, 3)).toEqual(['grow-1', 'grow-2', 'grow-3']);
  });

  it('pages hedges newest first at any page size and after filters, and history newest first, closes landing together ordered by hedge id, descending', () => {
    // Pages of 1, 500 and the default 50; the oldest hedge is found by a scan that runs to the end of the book.
    expect([
      listed({ limit: '1' }),
      listed({ limit: '500' }),
      listed(),
      listed({ client_reference: 'grow-1' }),
      listed({ status: 'filled' }),
      listed({ status: 'closed', limit: '3' }),
    ]).toEqual([
      newestFirst.slice(0, 1),
      newestFirst.slice(0, 500),
      newestFirst.slice(0, 50),
      [idsOldestFirst[0]],
      [],
      newestFirst.slice(0, 3),
    ]);
    // History: closes landing together are ordered by hedge id, descending.
    const history = call(engine, nowMs, 'GET', '/hedges/history', { query: { limit: '4' } }).data;
    expect(history.map((record: any) => record.hedge_id)).toEqual(newestFirst.slice(0, 4));
    expect([history[0].closed_at, history[1].closed_at > history[2].closed_at]).toEqual([history[1].closed_at, true]);
  });

  it('still replays the first and the last write by their keys, acting on nothing; so does a state reloaded from JSON, which pages the same', () => {
    const first = call(engine, nowMs, 'POST', '/hedges', {
      body: openBody('buy', 1_000, 7, { client_reference: 'grow-1' }),
      idempotencyKey: keys[0],
    });
    const replayed = { status: 200, headers: { 'idempotent-replayed': 'true' } };
    expect(first).toMatchObject({ ...replayed, data: { id: idsOldestFirst[0] } });
    expect(replayLast()).toMatchObject({ ...replayed, data: { hedge_id: idsOldestFirst.at(-1) } });
    expect(Object.keys(firstAccount(engine).hedges)).toHaveLength(HEDGES);
    expect(Object.keys(engine.state.idempotency)).toHaveLength(2 * HEDGES);
    // A state reloaded from JSON pages and replays the same.
    const reloaded = reload(engine);
    expect(listed({ limit: '7' }, reloaded)).toEqual(listed({ limit: '7' }));
    expect(replayLast(reloaded).headers['idempotent-replayed']).toBe('true');
    // The reloaded engine rebuilt its expiry queue: a day after the last write every key is gone.
    call(reloaded, nowMs + DAY, 'GET', '/account');
    expect(reloaded.state.idempotency).toEqual({});
  });

  it('expires idempotency records by sandbox time: those a day old are really gone, the rest kept', () => {
    const records = Object.values(engine.state.idempotency);
    const cutoff = T0 + 3_600_000;
    const keptBefore = records.filter((record) => record.createdAtMs > cutoff).length;
    // The grown state is seeded: of its 20,000 records, 12,798 are younger than the cutoff.
    expect([keptBefore, records.length]).toEqual([12_798, 20_000]);
    call(engine, cutoff + DAY, 'GET', '/markets');
    const kept = Object.values(engine.state.idempotency);
    expect(kept).toHaveLength(keptBefore);
    expect(kept.every((record) => record.createdAtMs > cutoff)).toBe(true);

    // The first key is free again: a new body acts instead of answering idempotency_key_reuse.
    const reused = on(engine).keyed(cutoff + DAY, keys[0], 'buy', 2_000);
    expect([reused.status, reused.headers['idempotent-replayed']]).toEqual([200, undefined]);
    call(engine, nowMs + DAY, 'GET', '/markets');
    expect(Object.keys(engine.state.idempotency)).toEqual([`test:${Object.keys(engine.state.accounts)[0]}:${keys[0]}`]);
  });
});

it('event queue: applies events in (dueMs, sequence) order', () => {
  const dues = [50, 10, 30, 10, 70, 20, 30, 60, 10, 40];
  const events = dues.map((dueMs, index) => ({
    dueMs,
    sequence: index + 1,
    kind: 'fill' as const,
    accountId: 'a',
    hedgeId: `h${index}`,
  }));
  const popped = events.sort(compareEvents).map((event) => [event.dueMs, event.sequence]);
  expect(popped.join(' ')).toBe('10,2 10,4 10,9 20,6 30,3 30,7 40,10 50,1 60,8 70,5');
});

// GET /hedges/history past its first page: the reference dialect hands out
// `meta.next_cursor` while older records remain, and `?cursor=` it gives the next page; the other
// dialects keep one page. Checked on the engine's own history: every record exactly once, newest
// first, whatever the page size, and records closed meanwhile never shift a walk in progress.
/** Walks the history `limit` at a time; `pageTime()` gives each page's sandbox time (it may act first). */
function walk(engine: HttpSandboxEngine, limit: number, pageTime = () => T0) {
  const ids: string[] = [];
  let cursor: string | undefined;
  for (let cursors = 0; ; cursors++) {
    const page = call(engine, pageTime(), 'GET', '/hedges/history', {
      query: { limit: String(limit), ...(cursor && { cursor }) },
    });
    expect(page.status).toBe(200);
    ids.push(...page.data.map((record: any) => record.hedge_id));
    cursor = page.body.meta.next_cursor as string | undefined;
    if (cursor === undefined) return { ids, cursors };
    expect(page.data).toHaveLength(limit);
  }
}

/** A history of 1,234 records for the walks below. */
const paged = makeEngine();
paged.seedHedges(KEY_A, 1_234, 'closed', T0);

it.each([500, 37, 1])(
  'history pages (reference dialect): walks every record once, newest first, %i at a time',
  (limit) => {
    expect(walk(paged, limit)).toEqual({
      ids: historyNewestFirst(paged),
      cursors: Math.ceil(1_234 / limit) - 1,
    });
  },
);

it('history pages (reference dialect): hedges closing during a walk do not shift it: the walk sees the history as it stood; refuses a cursor it did not hand out, naming the parameter', () => {
  const growing = makeEngine();
  growing.seedHedges(KEY_A, 120, 'closed', T0);
  const before = historyNewestFirst(growing);
  let now = T0 + DAY;
  const { ids } = walk(growing, 25, () => {
    // A hedge opened, filled and closed before each page: a newer record than any in the walk.
    now = openFilled(growing, now, 'buy', 1_000).now;
    expect(on(growing).change(now, 'close', 'buy').status).toBe(200);
    return (now += 2_000);
  });
  expect(ids.slice(0, 25).every((id) => !before.includes(id) || before.indexOf(id) < 25)).toBe(true);
  expect(ids.filter((id) => before.includes(id))).toEqual(before);
  expectRefused(
    call(paged, T0, 'GET', '/hedges/history', { query: { limit: '10', cursor: 'not-a-cursor' } }),
    400,
    'validation_error',
    { field: 'cursor' },
  );
});
