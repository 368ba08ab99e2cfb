import { describe, expect, it } from 'vitest';

import { createEngineState, SandboxEngine } from '../../src/sandbox/engine.js';
import { MARKET_MODEL, midPrice, seedHash } from '../../src/sandbox/market-model.js';
import { DAY, KEY_A, KEY_B, T0, call, makeEngine, openBody, openFilled } from '../support/engine.js';
import { on } from './engine-calls.js';

const HEX_64 = /^0x[0-9a-f]{64}$/;
const USDTNGN = MARKET_MODEL.markets[0];
const referenceRate = (seed: string, timeMs: number) => midPrice(seedHash(seed), USDTNGN, timeMs);
const round2 = (value: number) => Math.round(value * 100) / 100;

describe('engine: hedge state machine', () => {
  it('opens as submitted with hashes, units and maturity, reserving margin and fee', () => {
    const engine = makeEngine();
    const { get, open, quoteFor } = on(engine);
    const quote = quoteFor(T0, 'buy', 100_000, 3).data;
    const opened = open(T0, 'buy', 100_000, 3, { client_reference: 'deal-1' });

    expect([opened.status, opened.body.meta]).toEqual([200, {}]);
    expect(opened.data).toMatchObject({
      status: 'submitted',
      market: 'USDTNGN',
      side: 'buy',
      notional_usd: 100_000,
      tenor_days: 3,
      units: 100_000,
      client_reference: 'deal-1',
      opened_at: new Date(T0).toISOString(),
      maturity_at: new Date(T0 + 3 * DAY).toISOString(),
      id: expect.stringMatching(/^hdg_[a-z0-9]{24}$/),
      order_tx_hash: expect.stringMatching(HEX_64),
      order_key: expect.stringMatching(HEX_64),
    });
    expect(opened.data.hedge_id).toBe(opened.data.id);
    expect(opened.data).not.toHaveProperty('fill_tx_hash');
    expect(opened.data).not.toHaveProperty('struck_rate');

    expect(get(T0, '/account')).toMatchObject({
      balance_usdc: 1_000_000 - quote.upfront.total_upfront_usdc,
      margin_in_use_usdc: quote.upfront.required_margin_usdc,
      open_exposure_usd: 100_000,
      available_exposure_usd: 900_000,
    });
    // Submitted is not yet a position.
    expect(get(T0, '/positions')).toEqual([]);
  });

  it('submitted → filled after the fill delay, with fill hash and a struck rate near the quote', () => {
    const engine = makeEngine();
    const { get, open, quoteFor } = on(engine);
    const quote = quoteFor(T0, 'buy', 100_000).data;
    const { id } = open(T0, 'buy', 100_000).data;

    expect(get(T0 + 999, `/hedges/${id}`).status).toBe('submitted');
    const hedge = get(T0 + 1000, `/hedges/${id}`);
    expect(hedge).toMatchObject({
      status: 'filled',
      fill_tx_hash: expect.stringMatching(HEX_64),
      filled_at: new Date(T0 + 1000).toISOString(),
    });
    expect(Math.abs(hedge.struck_rate - quote.pricing.execution_price) / quote.pricing.execution_price).toBeLessThan(
      0.001,
    );

    const [position] = get(T0 + 1000, '/positions');
    expect(position).toMatchObject({
      hedge_id: id,
      side: 'buy',
      entry_price: hedge.struck_rate,
      notional_usd: 100_000,
    });
  });

  it('submitted → failed releases the reserved collateral and fee and frees the side', () => {
    const engine = makeEngine({ failRate: 1 });
    const { get, open } = on(engine);
    const { id } = open(T0, 'sell', 50_000).data;
    // Reserved while submitted: the 10% margin (5,000) and the 0.05% fee (25).
    expect(get(T0, '/account').balance_usdc).toBe(1_000_000 - 5_000 - 25);

    const hedge = get(T0 + 1000, `/hedges/${id}`);
    expect(hedge.status).toBe('failed');
    expect(hedge).not.toHaveProperty('fill_tx_hash');
    expect(get(T0 + 1000, '/account')).toMatchObject({
      balance_usdc: 1_000_000,
      margin_in_use_usdc: 0,
      open_exposure_usd: 0,
      open_positions: 0,
    });
    expect(get(T0 + 1000, '/positions')).toEqual([]);
    expect(open(T0 + 1000, 'sell', 50_000).status).toBe(200);
  });

  it('fails a seeded share of opens, the same ones for the same seed', () => {
    const outcomes = (seed: string) => {
      const engine = makeEngine({ failRate: 0.5, seed });
      const { get, open, change } = on(engine);
      const statuses: string[] = [];
      for (let i = 0; i < 12; i++) {
        const t = T0 + i * 10_000;
        const { id } = open(t, 'buy', 1000, 1).data;
        const hedge = get(t + 1000, `/hedges/${id}`);
        statuses.push(hedge.status);
        if (hedge.status === 'filled') change(t + 1000, 'close', 'buy');
        call(engine, t + 2000, 'GET', '/account');
      }
      return statuses;
    };
    const first = outcomes('fail-seed');
    expect(first).toEqual(outcomes('fail-seed'));
    expect(first).toContain('failed');
    expect(first).toContain('filled');
  });

  it('filled → closed at maturity: settles against the reference rate and credits the balance', () => {
    const engine = makeEngine({ seed: 'settle' });
    const { get, open, quoteFor } = on(engine);
    const quote = quoteFor(T0, 'buy', 200_000, 1).data;
    const { id } = open(T0, 'buy', 200_000, 1).data;
    const filled = get(T0 + 1000, `/hedges/${id}`);
    const maturity = T0 + DAY;

    expect(get(maturity - 1, `/hedges/${id}`).status).toBe('filled');
    expect(get(maturity + 5000, `/hedges/${id}`)).toMatchObject({
      status: 'closed',
      closed_at: new Date(maturity).toISOString(),
    });
    expect(get(maturity + 5000, '/positions')).toEqual([]);

    const [record] = get(maturity + 5000, '/hedges/history');
    const exit = referenceRate('settle', maturity);
    const gross = round2((200_000 * (exit - filled.struck_rate)) / exit);
    const carry = round2((200_000 * quote.carry.daily_rate_pct * (maturity - (T0 + 1000))) / (100 * DAY));
    const fees = quote.upfront.platform_fee_usdc;
    expect(record).toMatchObject({
      hedge_id: id,
      close_reason: 'settled',
      entry_price: filled.struck_rate,
      exit_price: exit,
      gross_pnl_usd: gross,
      carry_usdc: carry,
      fees_usdc: fees,
      net_pnl_usd: round2(gross - carry - fees),
      opened_at: new Date(T0).toISOString(),
      closed_at: new Date(maturity).toISOString(),
      notional_usd: 200_000,
      tenor_days: 1,
    });
    const account = get(maturity + 5000, '/account');
    expect(account.balance_usdc).toBeCloseTo(1_000_000 + record.net_pnl_usd, 2);
    expect(account).toMatchObject({ margin_in_use_usdc: 0, open_exposure_usd: 0, available_exposure_usd: 1_000_000 });
  });

  it('settles lazily from a reloaded state, hours later, in time order', () => {
    const engine = makeEngine({ seed: 'reload' });
    const { open } = on(engine);
    const { id } = open(T0, 'sell', 75_000, 1).data;
    const saved = JSON.parse(JSON.stringify(engine.state));

    const reloaded = new SandboxEngine({ apiKeys: [KEY_A], fillDelayMs: 1000 }, saved);
    const later = T0 + DAY + 6 * 3_600_000;
    const { get } = on(reloaded);
    expect(get(later, `/hedges/${id}`)).toMatchObject({
      status: 'closed',
      filled_at: new Date(T0 + 1000).toISOString(),
      closed_at: new Date(T0 + DAY).toISOString(),
    });
    const [record] = get(later, '/hedges/history');
    expect(record.exit_price).toBe(referenceRate('reload', T0 + DAY));
  });

  it('refuses a state of another version', () => {
    const state = { ...createEngineState(), version: 2 } as unknown as ReturnType<typeof createEngineState>;
    expect(() => new SandboxEngine({ apiKeys: [KEY_A] }, state)).toThrow(/version/);
  });
});

describe('engine: add, reduce, close', () => {
  it('add lands after the fill delay: notional, weighted entry and margin grow, maturity stays', () => {
    const engine = makeEngine();
    const { get, change } = on(engine);
    const { hedge, now } = openFilled(engine, T0, 'buy', 100_000);
    expect(change(now, 'add', 'buy', 50_000)).toMatchObject({
      status: 200,
      data: {
        hedge_id: hedge.id,
        action: 'add',
        market: 'USDTNGN',
        side: 'buy',
        status: 'submitted',
        notional_usd: 50_000,
        submitted_at: new Date(now).toISOString(),
        order_tx_hash: expect.stringMatching(HEX_64),
      },
    });
    // Pending add counts against the cap at once, the hedge changes only when it lands.
    expect(get(now, '/account').open_exposure_usd).toBe(150_000);
    expect(get(now + 999, `/hedges/${hedge.id}`).notional_usd).toBe(100_000);

    expect(get(now + 1000, `/hedges/${hedge.id}`)).toMatchObject({
      notional_usd: 150_000,
      units: 150_000,
      maturity_at: hedge.maturity_at,
      status: 'filled',
    });
    const [position] = get(now + 1000, '/positions');
    expect(position.margin_usdc).toBe(15_000);
    expect(position.entry_price).toBeGreaterThan(Math.min(hedge.struck_rate, position.mark_price) - 10);
    expect(position.entry_price).not.toBe(hedge.struck_rate);
  });

  it('refuses a second change while one is pending, changes on a hedge that is not filled yet, and a reduce past the notional', () => {
    const engine = makeEngine();
    const { open, change } = on(engine);
    const { id } = open(T0, 'buy', 100_000).data;
    expect(change(T0 + 10, 'add', 'buy', 1000)).toMatchObject({
      status: 409,
      error: { code: 'action_pending', details: { hedge_id: id } },
    });

    expect(change(T0 + 2000, 'reduce', 'buy', 100_001)).toMatchObject({
      status: 400,
      error: { code: 'notional_too_large', details: { notional_usd: 100_000 } },
    });
    change(T0 + 2000, 'reduce', 'buy', 1000);
    expect(change(T0 + 2001, 'close', 'buy').error?.code).toBe('action_pending');
  });

  it('reduce is proportional: margin, carry and P&L of the reduced share come back minus its fee', () => {
    const engine = makeEngine({ seed: 'reduce' });
    const { get, change } = on(engine);
    const { hedge, now } = openFilled(engine, T0, 'sell', 200_000);
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
  });

  it('a reduce of the whole notional (or ≥ 99.5%, or leaving < 1 USD) closes the hedge fully', () => {
    // The last: 99.47% of the notional, but it would leave 0.80 USD.
    for (const [notional, reduceBy] of [
      [100_000, 100_000],
      [100_000, 99_600],
      [150, 149.2],
    ] as const) {
      const engine = makeEngine();
      const { get, change } = on(engine);
      const { hedge, now } = openFilled(engine, T0, 'buy', notional);
      change(now, 'reduce', 'buy', reduceBy);
      expect(get(now + 1000, `/hedges/${hedge.id}`).status).toBe('closed');
      expect(get(now + 1000, '/positions')).toEqual([]);
      const [record] = get(now + 1000, '/hedges/history');
      expect(record).toMatchObject({ hedge_id: hedge.id, close_reason: 'closed', notional_usd: notional });
      expect(get(now + 1000, '/account').balance_usdc).toBeCloseTo(1_000_000 + record.net_pnl_usd, 2);
    }
  });

  it('a close credits exactly the net_margin_usd the position shows at the moment it lands', () => {
    // Two engines with the same seed and the same history: one closes, the twin only looks.
    const [closing, twin] = [makeEngine({ seed: 'twin' }), makeEngine({ seed: 'twin' })];
    const landsAt = T0 + 1500 + 2 * DAY + 1000;
    for (const engine of [closing, twin]) openFilled(engine, T0, 'buy', 400_000);
    const [closer, looker] = [on(closing), on(twin)];
    closer.change(landsAt - 1000, 'close', 'buy');
    const [position] = looker.get(landsAt, '/positions');
    expect(closer.get(landsAt, '/account').balance_usdc).toBeCloseTo(
      looker.get(landsAt, '/account').balance_usdc + position.net_margin_usd,
      2,
    );
    const [record] = closer.get(landsAt, '/hedges/history');
    expect(record.exit_price).toBe(position.mark_price);
  });

  it('history covers the whole lifecycle: open, add, reduce and a close landing after the delay add up to the balance', () => {
    const engine = makeEngine({ seed: 'lifecycle' });
    const { get, change } = on(engine);
    const { hedge, now } = openFilled(engine, T0, 'sell', 100_000);
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
    expect(get(closeAt + 999, '/positions')).toHaveLength(1);
    const landed = closeAt + 1000;
    expect(get(landed, '/positions')).toEqual([]);
    expect(get(landed, `/hedges/${hedge.id}`)).toMatchObject({
      status: 'closed',
      closed_at: new Date(landed).toISOString(),
    });
    t = landed + 3_600_000;

    const history = get(t, '/hedges/history');
    expect(history).toHaveLength(1);
    const [record] = history;
    expect(record).toMatchObject({ hedge_id: hedge.id, notional_usd: 70_000, close_reason: 'closed' });
    // Fees: 0.05% of 100k open + 40k add + 70k reduce + 70k close.
    expect(record.fees_usdc).toBe(50 + 20 + 35 + 35);
    expect(record.net_pnl_usd).toBeCloseTo(record.gross_pnl_usd - record.carry_usdc - record.fees_usdc, 2);
    expect(get(t, '/account').balance_usdc).toBeCloseTo(1_000_000 + record.net_pnl_usd, 2);
  });

  it('an add still pending at maturity never lands and is refunded', () => {
    const engine = makeEngine({ fillDelayMs: 60_000 });
    const { get, open, change } = on(engine);
    const { id } = open(T0, 'buy', 100_000, 1).data;
    const beforeMaturity = T0 + DAY - 30_000;
    change(beforeMaturity, 'add', 'buy', 100_000);
    const later = T0 + DAY + 120_000;
    const [record] = get(later, '/hedges/history');
    expect(record).toMatchObject({ hedge_id: id, notional_usd: 100_000, close_reason: 'settled' });
    const account = get(later, '/account');
    expect(account.balance_usdc).toBeCloseTo(1_000_000 + record.net_pnl_usd, 2);
    expect(account.open_exposure_usd).toBe(0);
  });
});

describe('engine: carry', () => {
  it('accrues pro rata by sandbox time at the daily rate fixed at open', () => {
    const engine = makeEngine();
    const { get, quoteFor } = on(engine);
    const quote = quoteFor(T0, 'buy', 500_000).data;
    const { hedge } = openFilled(engine, T0, 'buy', 500_000);
    const filledAt = Date.parse(hedge.filled_at);
    const expectedCarry = (ms: number) => round2((500_000 * quote.carry.daily_rate_pct * ms) / (100 * DAY));

    // Another account's big sell shifts the market rates, but not this hedge's fixed rate.
    call(engine, filledAt, 'POST', '/hedges', { key: KEY_B, body: openBody('sell', 900_000) });

    const [atHalfDay] = get(filledAt + DAY / 2, '/positions');
    const [atTwoDays] = get(filledAt + 2 * DAY, '/positions');
    expect(quote.carry.daily_rate_pct).toBeGreaterThan(0);
    expect(atHalfDay.accrued_carry_usdc).toBe(expectedCarry(DAY / 2));
    expect(atTwoDays.accrued_carry_usdc).toBe(expectedCarry(2 * DAY));
    expect(atTwoDays.net_pnl_usd).toBeCloseTo(atTwoDays.gross_pnl_usd - atTwoDays.accrued_carry_usdc, 2);
    expect(atTwoDays.net_margin_usd).toBeCloseTo(
      atTwoDays.margin_usdc + atTwoDays.net_pnl_usd - atTwoDays.close_fee_usdc,
      2,
    );
  });

  it('the lighter side earns carry (negative rate) and the heavier side pays', () => {
    const engine = makeEngine();
    const { get } = on(engine);
    const [market] = get(T0, '/markets');
    expect(market.net_rate_daily_pct.buy).toBeGreaterThan(0);
    expect(market.net_rate_daily_pct.sell).toBeLessThan(0);
    const { now } = openFilled(engine, T0, 'sell', 100_000);
    const [position] = get(now + DAY, '/positions');
    expect(position.accrued_carry_usdc).toBeLessThan(0);
  });
});
