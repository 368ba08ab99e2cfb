import { describe, expect, it } from 'vitest';

import { openBody } from '../support/engine.js';
import { api, useSimulators, type SimulatorOptions } from '../support/simulator.js';
import { post, read } from './http-calls.js';

const DAY = 24 * 3_600_000;
const simulators = useSimulators();
/** A simulator's server, closed after the test: these tests talk to the server itself. */
const start = async (options: SimulatorOptions = {}) => (await simulators({ preset: 'quick', ...options })).sandbox;

describe('sandbox lifecycle over HTTP', () => {
  it('markets → quote → open → filled → add → reduce → close → history → balance', async () => {
    const sandbox = await start({ fillDelayMs: 50 });
    const markets = await api(sandbox, 'GET', '/markets');
    const market = markets.body.data.find((m: { market: string }) => m.market === 'USDTNGN');
    expect(market.status).toBe('open');
    expect(market.available_capacity_usd.buy).toBeGreaterThanOrEqual(250_000);

    const quote = await post(sandbox, '/quotes', openBody('buy', 250_000, 3));
    expect(quote.body.data.upfront.total_upfront_usdc).toBe(25_125);

    const opened = await post(
      sandbox,
      '/hedges',
      { ...openBody('buy', 250_000, 3), client_reference: 'desk-42' },
      'life-open',
    );
    expect(opened.body.data.status).toBe('submitted');
    const id = opened.body.data.hedge_id;
    sandbox.clock.advance(60);
    const filled = await read(sandbox, `/hedges/${id}`);
    expect(filled.status).toBe('filled');
    expect(Math.abs(filled.struck_rate - quote.body.data.pricing.execution_price)).toBeLessThan(5);

    sandbox.clock.advance(3_600_000);
    const add = await post(
      sandbox,
      '/hedges/add',
      { market: 'USDTNGN', side: 'buy', notional_usd: 50_000 },
      'life-add',
    );
    expect(add.body.data).toMatchObject({ action: 'add', hedge_id: id, status: 'submitted' });
    sandbox.clock.advance(60);
    expect((await read(sandbox, `/hedges/${id}`)).notional_usd).toBe(300_000);

    sandbox.clock.advance(3_600_000);
    await post(sandbox, '/hedges/reduce', { market: 'USDTNGN', side: 'buy', notional_usd: 100_000 }, 'life-reduce');
    sandbox.clock.advance(60);
    const [position] = await read(sandbox, '/positions');
    expect(position).toMatchObject({ hedge_id: id, notional_usd: 200_000, margin_usdc: 20_000 });

    sandbox.clock.advance(3_600_000);
    await post(sandbox, '/hedges/close', { market: 'USDTNGN', side: 'buy' }, 'life-close');
    sandbox.clock.advance(60);
    expect(await read(sandbox, '/positions')).toEqual([]);
    expect((await read(sandbox, `/hedges/${id}`)).status).toBe('closed');

    const [record] = await read(sandbox, '/hedges/history');
    expect(record).toMatchObject({
      hedge_id: id,
      client_reference: 'desk-42',
      close_reason: 'closed',
      notional_usd: 200_000,
    });
    expect(typeof record.net_pnl_usd).toBe('number');
    expect(record.net_pnl_usd).toBeCloseTo(record.gross_pnl_usd - record.carry_usdc - record.fees_usdc, 2);
    const account = await read(sandbox, '/account');
    expect(account.balance_usdc).toBeCloseTo(1_000_000 + record.net_pnl_usd, 2);
    expect(account).toMatchObject({ open_positions: 0, margin_in_use_usdc: 0, open_exposure_usd: 0 });
  });

  it('a 1-day hedge settles by itself at maturity', async () => {
    const sandbox = await start({ fillDelayMs: 50 });
    const opened = await post(sandbox, '/hedges', openBody('sell', 80_000, 1));
    const id = opened.body.data.id;
    sandbox.clock.advance(DAY - 1000);
    expect((await read(sandbox, `/hedges/${id}`)).status).toBe('filled');
    sandbox.clock.advance(2000);
    const hedge = await read(sandbox, `/hedges/${id}`);
    expect(hedge.status).toBe('closed');
    expect(hedge.closed_at).toBe(opened.body.data.maturity_at);
    const [record] = await read(sandbox, '/hedges/history');
    expect(record).toMatchObject({ hedge_id: id, close_reason: 'settled', closed_at: opened.body.data.maturity_at });
    expect((await read(sandbox, '/account')).balance_usdc).toBeCloseTo(1_000_000 + record.net_pnl_usd, 2);
  });

  it('a fast clock settles a 7-day hedge in real milliseconds', async () => {
    let real = 1_700_000_000_000;
    const sandbox = await start({ fillDelayMs: 50, clockSpeed: 10_000, realNow: () => real });
    const opened = await post(sandbox, '/hedges', openBody('buy', 10_000, 7));
    // 7 days at 10,000x is about a minute of real time.
    real += 61_000;
    const hedge = await read(sandbox, `/hedges/${opened.body.data.id}`);
    expect(hedge.status).toBe('closed');
  });
});
