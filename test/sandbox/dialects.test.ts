import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';

import { afterEach, describe, expect, it } from 'vitest';

import { SANDBOX_DIALECTS, type SandboxDialect, serveSandbox } from '../../src/sandbox/index.js';
import { SANDBOX_DIALECTS as SERVE_DIALECTS } from '../../src/sandbox/http/serve.js';
import { openBody } from '../support/engine.js';
import { until } from '../support/polling.js';
import { api, startSimulator, useSimulators, type SimulatorOptions } from '../support/simulator.js';

const simulators = useSimulators();
/** A simulator's server, closed after the test: these tests talk to the server itself. */
const start = async (options: SimulatorOptions = {}) => (await simulators({ preset: 'quick', ...options })).sandbox;
/** Sandbox time moves only when a test advances it, so every figure read is exact. */
const FROZEN_REAL_TIME = Date.UTC(2026, 10, 22, 8);
const FILL_DELAY_MS = 50;

interface Expected {
  positionKeys: string[];
  accountKeys: string[];
  historyKeys: string[];
  /** History's name for the hedge id. */
  historyHedgeId: string;
  pageSize: string;
  notionalField: string;
  statusAfterEarlyClose: 'closed' | 'filled';
  /** The market the tests trade (gamma lists USDTNGN disabled). */
  market: string;
  /** Amounts of positions, account and history as decimal strings. */
  amountsAsText: boolean;
}

// Written out by hand (not read from dialects.ts) so a change to the table shows up here.
const BY_HAND: Record<Exclude<SandboxDialect, 'delta'>, Expected> = {
  reference: {
    positionKeys: [
      'market',
      'side',
      'hedge_id',
      'notional_usd',
      'units',
      'entry_price',
      'mark_price',
      'gross_pnl_usd',
      'accrued_carry_usdc',
      'net_pnl_usd',
      'close_fee_usdc',
      'margin_usdc',
      'net_margin_usd',
      'opened_at',
      'maturity_at',
    ],
    accountKeys: [
      'balance_usdc',
      'margin_in_use_usdc',
      'open_exposure_usd',
      'unrealized_pnl_usd',
      'open_positions',
      'available_exposure_usd',
      'exposure_cap_usd',
    ],
    historyKeys: [
      'hedge_id',
      'market',
      'side',
      'notional_usd',
      'tenor_days',
      'opened_at',
      'closed_at',
      'close_reason',
      'entry_price',
      'exit_price',
      'gross_pnl_usd',
      'carry_usdc',
      'fees_usdc',
      'net_pnl_usd',
    ],
    historyHedgeId: 'hedge_id',
    pageSize: 'limit',
    notionalField: 'notional_usd',
    statusAfterEarlyClose: 'closed',
    market: 'USDTNGN',
    amountsAsText: false,
  },
  alpha: {
    positionKeys: [
      'market',
      'direction',
      'hedge_id',
      'size_usd',
      'units',
      'entry_rate',
      'mark_rate',
      'pnl_gross_usd',
      'carry_accrued_usdc',
      'pnl_usd',
      'exit_fee_usdc',
      'collateral_usdc',
      'net_margin_usd',
      'open_time',
      'maturity_time',
    ],
    accountKeys: [
      'balance_usdc',
      'used_margin_usdc',
      'exposure_usd',
      'upnl_usd',
      'open_position_count',
      'available_exposure_usd',
      'exposure_limit_usd',
    ],
    historyKeys: [
      'hedge',
      'market',
      'direction',
      'size_usd',
      'tenor',
      'entry_time',
      'exit_time',
      'exit_reason',
      'entry_rate',
      'exit_rate',
      'pnl_gross_usd',
      'carry_paid_usdc',
      'fees_paid_usdc',
      'net_pnl_usd',
    ],
    historyHedgeId: 'hedge',
    pageSize: 'page_size',
    notionalField: 'amount_usd',
    statusAfterEarlyClose: 'filled',
    market: 'USDTNGN',
    amountsAsText: false,
  },
  beta: {
    positionKeys: [
      'market',
      'hedge_id',
      'notional',
      'qty',
      'avg_entry_price',
      'current_price',
      'price_pnl_usd',
      'funding_usdc',
      'total_pnl_usd',
      'fee_to_close_usdc',
      'locked_margin_usdc',
      'net_margin_usd',
      'created_at',
      'expires_at',
    ],
    accountKeys: [
      'balance_usdc',
      'margin_locked_usdc',
      'gross_exposure_usd',
      'floating_pnl_usd',
      'num_positions',
      'available_exposure_usd',
      'max_exposure_usd',
    ],
    historyKeys: [
      'id',
      'market',
      'side',
      'notional',
      'tenor_days',
      'opened',
      'closed',
      'reason',
      'open_price',
      'close_price',
      'realized_pnl_usd',
      'funding_usdc',
      'total_fees_usdc',
      'net_pnl_usd',
    ],
    historyHedgeId: 'id',
    pageSize: 'per_page',
    notionalField: 'delta_usd',
    statusAfterEarlyClose: 'closed',
    market: 'USDTNGN',
    amountsAsText: false,
  },
  gamma: {
    positionKeys: [
      'market',
      'side',
      'hedge_id',
      'notional_usd',
      'units',
      'entry_price',
      'mark_price',
      'gross_pnl_usd',
      'accrued_carry_usdc',
      'net_pnl_usd',
      'close_fee_usdc',
      'margin_usdc',
      'net_margin_usd',
      'opened_at',
      'maturity_at',
    ],
    accountKeys: [
      'balance_usdc',
      'margin_in_use_usdc',
      'open_exposure_usd',
      'unrealized_pnl_usd',
      'open_positions',
      'available_exposure_usd',
      'exposure_cap_usd',
    ],
    historyKeys: [
      'hedge_id',
      'market',
      'side',
      'notional_usd',
      'tenor_days',
      'opened_at',
      'closed_at',
      'close_reason',
      'entry_price',
      'exit_price',
      'gross_pnl_usd',
      'carry_usdc',
      'fees_usdc',
      'net_pnl_usd',
    ],
    historyHedgeId: 'hedge_id',
    pageSize: 'page_size',
    notionalField: 'notional_change_usd',
    statusAfterEarlyClose: 'closed',
    market: 'USDTKES',
    amountsAsText: true,
  },
};
// delta names every field as the reference does; it differs in references and history pages (below).
const EXPECTED: Record<SandboxDialect, Expected> = { ...BY_HAND, delta: BY_HAND.reference };

const change = (side: 'buy' | 'sell', field: string, notional: number, market = 'USDTNGN') => ({
  market,
  side,
  [field]: notional,
});
const closeBody = (side: 'buy' | 'sell', market = 'USDTNGN') => ({ market, side });
/** A money amount as the dialect writes it: a number, or its decimal text to the cent. */
const amount = (expected: Expected, value: number) => (expected.amountsAsText ? value.toFixed(2) : value);
const startDialect = (dialect: SandboxDialect) =>
  start({ dialect, fillDelayMs: FILL_DELAY_MS, realNow: () => FROZEN_REAL_TIME });

describe.each(SANDBOX_DIALECTS)('sandbox dialect %s over HTTP', (dialect) => {
  const expected = EXPECTED[dialect];
  const otherNotionalField = expected.notionalField === 'notional_usd' ? 'amount_usd' : 'notional_usd';
  const market = expected.market;
  const open = (side: 'buy' | 'sell', notional: number) => openBody(side, notional, 7, { market });
  const changeOf = (side: 'buy' | 'sell', field: string, notional: number) => change(side, field, notional, market);

  it('open → fill, add, reduce, full reduce: bodies, positions, account and history in its own names', async () => {
    const sandbox = await startDialect(dialect);
    expect(sandbox.engine.state.dialect).toBe(dialect);
    const opened = await api(sandbox, 'POST', '/hedges', { body: open('buy', 100_000), idempotencyKey: 'd-open' });
    expect([opened.status, opened.body.data.status]).toEqual([200, 'submitted']);
    const id = opened.body.data.hedge_id;
    sandbox.clock.advance(FILL_DELAY_MS);
    expect((await api(sandbox, 'GET', `/hedges/${id}`)).body.data.status).toBe('filled');

    // Another dialect's field name alone is refused, naming the field this dialect expects.
    const wrongName = await api(sandbox, 'POST', '/hedges/add', { body: changeOf('buy', otherNotionalField, 50_000) });
    expect([wrongName.status, wrongName.body.error.code, wrongName.body.error.details.field]).toEqual([
      400,
      'validation_error',
      expected.notionalField,
    ]);
    const added = await api(sandbox, 'POST', '/hedges/add', {
      body: changeOf('buy', expected.notionalField, 50_000),
      idempotencyKey: 'd-add',
    });
    expect(added.body.data).toMatchObject({ hedge_id: id, action: 'add', status: 'submitted', notional_usd: 50_000 });
    sandbox.clock.advance(FILL_DELAY_MS);
    expect((await api(sandbox, 'GET', `/hedges/${id}`)).body.data.notional_usd).toBe(150_000);

    const reduced = await api(sandbox, 'POST', '/hedges/reduce', {
      body: changeOf('buy', expected.notionalField, 50_000),
    });
    expect(reduced.body.data).toMatchObject({ hedge_id: id, action: 'reduce', notional_usd: 50_000 });
    sandbox.clock.advance(FILL_DELAY_MS);

    const [position] = (await api(sandbox, 'GET', '/positions')).body.data;
    expect(Object.keys(position)).toEqual(expected.positionKeys);
    expect(position.hedge_id).toBe(id);
    expect(position.net_margin_usd).toBeTypeOf(expected.amountsAsText ? 'string' : 'number');
    const account = (await api(sandbox, 'GET', '/account')).body.data;
    expect(Object.keys(account)).toEqual(expected.accountKeys);
    expect(account.available_exposure_usd).toBe(amount(expected, 1_000_000 - 100_000));

    const fullReduce = await api(sandbox, 'POST', '/hedges/reduce', {
      body: changeOf('buy', expected.notionalField, 100_000),
    });
    expect(fullReduce.status).toBe(200);
    sandbox.clock.advance(FILL_DELAY_MS);
    expect((await api(sandbox, 'GET', '/positions')).body.data).toEqual([]);
    const hedge = (await api(sandbox, 'GET', `/hedges/${id}`)).body.data;
    expect(hedge.status).toBe(expected.statusAfterEarlyClose);
    expect('closed_at' in hedge).toBe(expected.statusAfterEarlyClose === 'closed');
    // Whatever the wire says, the engine closed it once.
    expect(sandbox.engine.state.accounts[Object.keys(sandbox.engine.state.accounts)[0]].hedges[id].status).toBe(
      'closed',
    );

    const [record] = (await api(sandbox, 'GET', '/hedges/history')).body.data;
    expect(Object.keys(record)).toEqual(expected.historyKeys);
    expect(record[expected.historyHedgeId]).toBe(id);
    expect(record.net_pnl_usd).toBeTypeOf(expected.amountsAsText ? 'string' : 'number');
    const flat = (await api(sandbox, 'GET', '/account')).body.data;
    expect(flat.available_exposure_usd).toBe(amount(expected, 1_000_000));
    expect(flat[expected.accountKeys[4]]).toBe(0);
    expect(
      sandbox.requestLog.filter((entry) => entry.errorCode === 'validation_error').map((entry) => entry.path),
    ).toEqual(['/hedges/add']);
  });

  it('early close: the side leaves the positions list; the hedge shows its dialect’s status', async () => {
    const sandbox = await startDialect(dialect);
    const opened = await api(sandbox, 'POST', '/hedges', { body: open('sell', 40_000) });
    sandbox.clock.advance(FILL_DELAY_MS);
    const closed = await api(sandbox, 'POST', '/hedges/close', {
      body: closeBody('sell', market),
      idempotencyKey: 'd-close',
    });
    expect(closed.body.data).toMatchObject({
      hedge_id: opened.body.data.id,
      action: 'close',
      status: 'submitted',
      notional_usd: 40_000,
    });
    sandbox.clock.advance(FILL_DELAY_MS);
    expect((await api(sandbox, 'GET', '/positions')).body.data).toEqual([]);
    expect((await api(sandbox, 'GET', `/hedges/${opened.body.data.id}`)).body.data.status).toBe(
      expected.statusAfterEarlyClose,
    );
    const byStatus = await api(sandbox, 'GET', `/hedges?status=${expected.statusAfterEarlyClose}`);
    expect(byStatus.body.data.map((hedge: { id: string }) => hedge.id)).toEqual([opened.body.data.id]);
    expect((await api(sandbox, 'GET', '/hedges/history')).body.data).toHaveLength(1);
  });

  it('pages lists with its own page-size name', async () => {
    const sandbox = await startDialect(dialect);
    const ids: string[] = [];
    for (const side of ['buy', 'sell'] as const) {
      ids.push((await api(sandbox, 'POST', '/hedges', { body: open(side, 10_000) })).body.data.id);
      sandbox.clock.advance(FILL_DELAY_MS);
      await api(sandbox, 'POST', '/hedges/close', { body: closeBody(side, market) });
      sandbox.clock.advance(FILL_DELAY_MS);
    }
    ids.push((await api(sandbox, 'POST', '/hedges', { body: open('buy', 10_000) })).body.data.id);

    const page = await api(sandbox, 'GET', `/hedges?${expected.pageSize}=2`);
    expect(page.body.data.map((hedge: { id: string }) => hedge.id)).toEqual([ids[2], ids[1]]);
    const history = await api(sandbox, 'GET', `/hedges/history?${expected.pageSize}=1`);
    expect(history.body.data.map((record: Record<string, string>) => record[expected.historyHedgeId])).toEqual([
      ids[1],
    ]);
    const tooBig = await api(sandbox, 'GET', `/hedges?${expected.pageSize}=501`);
    expect([tooBig.status, tooBig.body.error.details.field]).toEqual([400, expected.pageSize]);

    const foreign = expected.pageSize === 'limit' ? 'page_size' : 'limit';
    const withForeign = await api(sandbox, 'GET', `/hedges?${foreign}=1`);
    if (dialect === 'beta') {
      expect([withForeign.status, withForeign.body.error.code, withForeign.body.error.details.field]).toEqual([
        400,
        'validation_error',
        'limit',
      ]);
      const historyForeign = await api(sandbox, 'GET', '/hedges/history?cursor=abc');
      expect([historyForeign.status, historyForeign.body.error.details.field]).toEqual([400, 'cursor']);
    } else {
      expect(withForeign.body.data).toHaveLength(3);
    }
    expect(page.body.meta).toEqual(dialect === 'gamma' ? { page_size: 2, next_cursor: expect.any(String) } : {});
  });

  it('serves prices in its own shape', async () => {
    const sandbox = await startDialect(dialect);
    const markets = (await api(sandbox, 'GET', '/markets')).body.data;
    const price = markets[0].price;
    const timestamp = new Date(sandbox.clock.now()).toISOString();
    const listed = markets[0].market;
    const prices = await api(sandbox, 'GET', `/prices?symbols=${listed}`);
    const half = price * 0.00025;
    const shapes: Record<SandboxDialect, unknown> = {
      reference: [{ market: 'USDTNGN', price, timestamp }],
      alpha: { USDTNGN: { mid: price, ts: timestamp } },
      beta: [{ symbol: 'USDTNGN', rate: price }],
      delta: [{ market: 'USDTNGN', price, timestamp }],
      gamma: {
        rates: [{ pair: 'USDTNGN', bid: (price - half).toFixed(3), ask: (price + half).toFixed(3), as_of: timestamp }],
      },
    };
    expect(prices.body.data).toEqual(shapes[dialect]);
    expect(prices.body.meta).toEqual({ source: 'onchain' });
  });

  it('keeps the stated rules: a second open on a side and the spec’s errors', async () => {
    const sandbox = await startDialect(dialect);
    const noHedge = await api(sandbox, 'POST', '/hedges/add', { body: changeOf('buy', expected.notionalField, 1_000) });
    expect([noHedge.status, noHedge.body.error.code]).toEqual([404, 'no_open_hedge']);
    await api(sandbox, 'POST', '/hedges', { body: open('buy', 1_000), idempotencyKey: 'same' });
    const reuse = await api(sandbox, 'POST', '/hedges', { body: open('buy', 2_000), idempotencyKey: 'same' });
    expect([reuse.status, reuse.body.error.code]).toEqual([409, 'idempotency_key_reuse']);
    const second = await api(sandbox, 'POST', '/hedges', { body: open('buy', 2_000) });
    if (dialect === 'alpha') expect(second.status).toBe(200);
    else expect([second.status, second.body.error.code]).toEqual([409, 'hedge_already_open']);
  });
});

describe('sandbox dialect alpha: several hedges per side', () => {
  it('opens a second hedge on an open side; positions aggregate; add → newest; reduce newest first; close closes all', async () => {
    const sandbox = await startDialect('alpha');
    const first = (await api(sandbox, 'POST', '/hedges', { body: openBody('buy', 100_000) })).body.data.id;
    sandbox.clock.advance(FILL_DELAY_MS);
    const second = (await api(sandbox, 'POST', '/hedges', { body: openBody('buy', 60_000) })).body.data.id;
    expect(second).not.toBe(first);
    sandbox.clock.advance(FILL_DELAY_MS);

    const [line, ...others] = (await api(sandbox, 'GET', '/positions')).body.data;
    expect(others).toEqual([]);
    expect(line).toMatchObject({ direction: 'buy', hedge_id: second, size_usd: 160_000, collateral_usdc: 16_000 });
    expect(line.net_margin_usd).toBe(
      Math.round((line.collateral_usdc + line.pnl_usd - line.exit_fee_usdc) * 100) / 100,
    );
    expect(line.exit_fee_usdc).toBe(80);
    expect((await api(sandbox, 'GET', '/account')).body.data).toMatchObject({
      open_position_count: 1,
      exposure_usd: 160_000,
    });

    await api(sandbox, 'POST', '/hedges/add', { body: change('buy', 'amount_usd', 40_000) });
    sandbox.clock.advance(FILL_DELAY_MS);
    const notionals = async () =>
      Promise.all(
        [first, second].map(async (id) => (await api(sandbox, 'GET', `/hedges/${id}`)).body.data.notional_usd),
      );
    expect(await notionals()).toEqual([100_000, 100_000]);

    // 130k: all of the newest (which closes it) and 30k of the older one.
    const reduced = await api(sandbox, 'POST', '/hedges/reduce', { body: change('buy', 'amount_usd', 130_000) });
    expect(reduced.body.data).toMatchObject({ hedge_id: second, action: 'reduce', notional_usd: 130_000 });
    sandbox.clock.advance(FILL_DELAY_MS);
    expect(await notionals()).toEqual([70_000, 100_000]);
    const afterReduce = (await api(sandbox, 'GET', '/positions')).body.data;
    expect(afterReduce).toEqual([expect.objectContaining({ hedge_id: first, size_usd: 70_000 })]);
    const history = (await api(sandbox, 'GET', '/hedges/history')).body.data;
    expect(history.map((record: { hedge: string }) => record.hedge)).toEqual([second]);

    const third = (await api(sandbox, 'POST', '/hedges', { body: openBody('buy', 30_000) })).body.data.id;
    sandbox.clock.advance(FILL_DELAY_MS);
    const closed = await api(sandbox, 'POST', '/hedges/close', { body: closeBody('buy') });
    expect(closed.body.data).toMatchObject({ hedge_id: third, action: 'close', notional_usd: 100_000 });
    sandbox.clock.advance(FILL_DELAY_MS);
    expect((await api(sandbox, 'GET', '/positions')).body.data).toEqual([]);
    const allHistory = (await api(sandbox, 'GET', '/hedges/history')).body.data.map(
      (record: { hedge: string }) => record.hedge,
    );
    expect(new Set(allHistory)).toEqual(new Set([first, second, third]));
    for (const id of [first, second, third])
      expect((await api(sandbox, 'GET', `/hedges/${id}`)).body.data.status).toBe('filled');
    const account = Object.values(sandbox.engine.state.accounts)[0];
    expect([account.activeHedgeIds, account.activeHedgeStacks]).toEqual([{}, {}]);
  });

  it('closing every hedge of a side returns exactly the aggregated net_margin_usd', async () => {
    // No fill delay: the close lands at the very time the position was read.
    const sandbox = await start({ dialect: 'alpha', fillDelayMs: 0, realNow: () => FROZEN_REAL_TIME });
    for (const notional of [70_000, 45_000, 12_345.67]) {
      await api(sandbox, 'POST', '/hedges', { body: openBody('sell', notional) });
      sandbox.clock.advance(3_600_000);
    }
    const [line] = (await api(sandbox, 'GET', '/positions')).body.data;
    expect(line.size_usd).toBe(127_345.67);
    const balance = (await api(sandbox, 'GET', '/account')).body.data.balance_usdc;
    await api(sandbox, 'POST', '/hedges/close', { body: closeBody('sell') });
    const after = (await api(sandbox, 'GET', '/account')).body.data;
    expect(after.balance_usdc).toBe(Math.round((balance + line.net_margin_usd) * 100) / 100);
    expect(after.open_position_count).toBe(0);
  });

  it('alpha and beta refuse another dialect’s notional field even next to their own', async () => {
    for (const dialect of ['alpha', 'beta'] as const) {
      const sandbox = await startDialect(dialect);
      const field = EXPECTED[dialect].notionalField;
      await api(sandbox, 'POST', '/hedges', { body: openBody('buy', 10_000) });
      sandbox.clock.advance(FILL_DELAY_MS);
      const both = await api(sandbox, 'POST', '/hedges/reduce', {
        body: { ...change('buy', field, 1_000), notional_usd: 1_000 },
      });
      expect([both.status, both.body.error.code, both.body.error.details.field]).toEqual([
        400,
        'validation_error',
        field,
      ]);
      expect(both.body.error.message).toMatch(/notional_usd/);
    }
    const reference = await startDialect('reference');
    await api(reference, 'POST', '/hedges', { body: openBody('buy', 10_000) });
    reference.clock.advance(FILL_DELAY_MS);
    const tolerated = await api(reference, 'POST', '/hedges/reduce', {
      body: { ...change('buy', 'notional_usd', 1_000), amount_usd: 5 },
    });
    expect(tolerated.body.data.notional_usd).toBe(1_000);
  });
});

describe('sandbox dialect gamma: more markets, a closing status, cursor pages, amounts as text', () => {
  it('lists USDTKES and USDTGHS open and USDTNGN disabled; an open on USDTNGN is refused', async () => {
    const sandbox = await startDialect('gamma');
    const markets = (await api(sandbox, 'GET', '/markets')).body;
    expect(markets.data.map((entry: { market: string; status: string }) => [entry.market, entry.status])).toEqual([
      ['USDTNGN', 'disabled'],
      ['USDTKES', 'open'],
      ['USDTGHS', 'open'],
    ]);
    expect(markets.meta.allowed_markets).toEqual(['USDTNGN', 'USDTKES', 'USDTGHS']);
    const refused = await api(sandbox, 'POST', '/hedges', { body: openBody('buy', 10_000) });
    expect([refused.status, refused.body.error.code]).toEqual([400, 'market_disabled']);
    expect(sandbox.engine.state.accounts[Object.keys(sandbox.engine.state.accounts)[0]!]!.hedges).toEqual({});
  });

  it('shows `settling` while a close lands, then `closed`; the filter knows the word', async () => {
    const sandbox = await startDialect('gamma');
    const id = (await api(sandbox, 'POST', '/hedges', { body: openBody('sell', 20_000, 3, { market: 'USDTKES' }) }))
      .body.data.id;
    sandbox.clock.advance(FILL_DELAY_MS);
    await api(sandbox, 'POST', '/hedges/close', { body: closeBody('sell', 'USDTKES') });
    expect((await api(sandbox, 'GET', `/hedges/${id}`)).body.data.status).toBe('settling');
    expect(
      (await api(sandbox, 'GET', '/hedges?status=settling')).body.data.map((hedge: { id: string }) => hedge.id),
    ).toEqual([id]);
    // Still a position until the close lands.
    expect((await api(sandbox, 'GET', '/positions')).body.data).toHaveLength(1);
    sandbox.clock.advance(FILL_DELAY_MS);
    expect((await api(sandbox, 'GET', `/hedges/${id}`)).body.data.status).toBe('closed');
    expect((await api(sandbox, 'GET', '/positions')).body.data).toEqual([]);
    const unknown = await api(sandbox, 'GET', '/hedges?status=pending');
    expect([unknown.status, unknown.body.error.details.field]).toEqual([400, 'status']);
  });

  it('pages by cursor: 20 by default, meta.next_cursor to the next page, null on the last; every hedge once', async () => {
    const sandbox = await startDialect('gamma');
    const ids = sandbox.seedHedges({ apiKey: sandbox.apiKey, count: 47 });
    const seen: string[] = [];
    const sizes: number[] = [];
    let cursor: string | null = null;
    do {
      const query: string =
        cursor === null ? '/hedges?limit=100' : `/hedges?limit=100&cursor=${encodeURIComponent(cursor)}`;
      const answer = (await api(sandbox, 'GET', query)).body;
      sizes.push(answer.data.length);
      seen.push(...answer.data.map((hedge: { id: string }) => hedge.id));
      expect(answer.meta.page_size).toBe(20);
      cursor = answer.meta.next_cursor;
    } while (cursor !== null);
    expect(sizes).toEqual([20, 20, 7]);
    expect(seen).toHaveLength(47);
    expect(new Set(seen)).toEqual(new Set(ids));
    const history = (await api(sandbox, 'GET', '/hedges/history?page_size=50')).body;
    expect(history.data).toHaveLength(47);
    expect(history.meta).toEqual({ page_size: 50, next_cursor: null });
    expect(history.data[0].net_pnl_usd).toMatch(/^-?\d+\.\d\d$/);
    const bad = await api(sandbox, 'GET', '/hedges?cursor=nope');
    expect([bad.status, bad.body.error.details.field]).toEqual([400, 'cursor']);
  });
});

describe('sandbox dialect delta: references in upper case, history pages by time', () => {
  it('keeps client_reference trimmed in upper case and filters it without regard to case', async () => {
    const sandbox = await startDialect('delta');
    const id = (
      await api(sandbox, 'POST', '/hedges', { body: openBody('buy', 10_000, 7, { client_reference: ' deal-11' }) })
    ).body.data.id;
    await api(sandbox, 'POST', '/hedges', { body: openBody('sell', 10_000, 7, { client_reference: 'deal-12' }) });
    expect((await api(sandbox, 'GET', `/hedges/${id}`)).body.data.client_reference).toBe('DEAL-11');
    for (const asked of ['deal-11', 'DEAL-11', 'Deal-11 '])
      expect(
        (await api(sandbox, 'GET', `/hedges?client_reference=${encodeURIComponent(asked)}`)).body.data.map(
          (hedge: { id: string }) => hedge.id,
        ),
      ).toEqual([id]);
  });

  it('pages history by close time: at most 40 a page, meta.next_before sent back as before, null on the last', async () => {
    const sandbox = await startDialect('delta');
    sandbox.seedHedges({ apiKey: sandbox.apiKey, count: 95 });
    const newestFirst = [...Object.values(sandbox.engine.state.accounts)[0]!.history]
      .reverse()
      .map((record) => record.hedge_id);
    const seen: string[] = [];
    const sizes: number[] = [];
    let before: string | null = null;
    do {
      const query: string = `/hedges/history?limit=500${before === null ? '' : `&before=${encodeURIComponent(before)}`}`;
      const answer = (await api(sandbox, 'GET', query)).body;
      sizes.push(answer.data.length);
      seen.push(...answer.data.map((record: { hedge_id: string }) => record.hedge_id));
      before = answer.meta.next_before;
      if (before !== null) expect(before).toBe(answer.data.at(-1).closed_at);
    } while (before !== null);
    expect(sizes).toEqual([40, 40, 15]);
    expect(seen).toEqual(newestFirst);
    const bad = await api(sandbox, 'GET', '/hedges/history?before=yesterday');
    expect([bad.status, bad.body.error.details.field]).toEqual([400, 'before']);
  });
});

describe('sandbox dialects: choosing and remembering one', () => {
  let dir: string | undefined;
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it('a state file remembers its dialect and refuses another', async () => {
    dir = await mkdtemp(join(tmpdir(), 'hedge-sandbox-dialect-'));
    const stateFile = join(dir, 'state.json');
    const apiKeys = ['hpk_test_DialectDialectDialect1234'];
    const first = await startSimulator({ preset: 'plain', stateFile, apiKeys, dialect: 'beta' });
    await api(first, 'POST', '/hedges', { body: openBody('buy', 10_000) });
    await first.close();

    const second = await startSimulator({ preset: 'plain', stateFile, apiKeys });
    try {
      expect(second.sandbox.engine.dialect).toBe('beta');
      expect((await api(second, 'GET', '/prices')).body.data[0]).toHaveProperty('symbol', 'USDTNGN');
    } finally {
      await second.close();
    }
    await expect(startSimulator({ preset: 'plain', stateFile, apiKeys, dialect: 'alpha' })).rejects.toThrow(
      /beta dialect, not alpha/,
    );
  });

  it('refuses an unknown dialect and lists the names', async () => {
    expect(SANDBOX_DIALECTS).toEqual(['reference', 'alpha', 'beta', 'gamma', 'delta']);
    expect(SERVE_DIALECTS).toBe(SANDBOX_DIALECTS);
    await expect(startSimulator({ preset: 'plain', dialect: 'epsilon' as SandboxDialect })).rejects.toThrow(
      /unknown sandbox dialect "epsilon".*reference, alpha, beta, gamma, delta/,
    );
  });

  it('serveSandbox passes the dialect on and names it on stderr', async () => {
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    let out = '';
    let err = '';
    stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    stderr.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
    const stop = new AbortController();
    const apiKey = 'hpk_test_ServeDialectServeDialect12';
    const serving = serveSandbox({ dialect: 'alpha', apiKeys: [apiKey] }, { stdout, stderr, signal: stop.signal });
    await until(() => err.includes('Ctrl-C'));
    expect(err).toMatch(/alpha wire dialect/);
    const baseUrl = out.split('\n')[0].split('=')[1];
    const prices = await fetch(`${baseUrl}/prices`, { headers: { authorization: `Bearer ${apiKey}` } });
    expect(Object.keys(((await prices.json()) as { data: object }).data)).toEqual(['USDTNGN']);
    stop.abort();
    await serving;
  });
});
