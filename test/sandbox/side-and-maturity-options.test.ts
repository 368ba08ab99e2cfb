// Behaviours a test can switch on independently of the dialect: several hedges per side
// (severalPerSide), late settlement (settlementDelayMs) and a short tenor day (dayMs). Asserted on
// the server's own answers over HTTP, on a clock that moves only when a test advances it.
import { describe, expect, it } from 'vitest';

import { openBody } from '../support/engine.js';
import { api, FROZEN_START_MS, useSimulators, type SimulatorOptions } from '../support/simulator.js';
import { answered, getData, lineIds, moveTo, postData } from './http-calls.js';

const FILL_DELAY_MS = 50;

// Real time stands still: sandbox time moves only when a test advances it.
const simulators = useSimulators();
const start = async (options: SimulatorOptions = {}) =>
  (await simulators({ preset: 'quick', fillDelayMs: FILL_DELAY_MS, realNow: () => FROZEN_START_MS, ...options }))
    .sandbox;

const iso = (timeMs: number) => new Date(timeMs).toISOString();

describe('several hedges per side, whatever the dialect (severalPerSide)', () => {
  it('the reference dialect with it on: two opens are two hedge records and one positions line', async () => {
    const sandbox = await start({ severalPerSide: true });
    const first = await postData(sandbox, '/hedges', openBody('buy', 30_000, 3));
    sandbox.clock.advance(FILL_DELAY_MS);
    const second = await postData(sandbox, '/hedges', openBody('buy', 12_500, 7));
    sandbox.clock.advance(FILL_DELAY_MS);

    expect(
      (await getData(sandbox, '/hedges')).map((hedge: any) => [hedge.id, hedge.status, hedge.notional_usd]),
    ).toEqual([
      [second.id, 'filled', 12_500],
      [first.id, 'filled', 30_000],
    ]);
    const [line, ...others] = await getData(sandbox, '/positions');
    expect(others).toEqual([]);
    // Reference field names; the newest hedge names the line (its id, opening and maturity).
    expect(line).toMatchObject({
      side: 'buy',
      notional_usd: 42_500,
      margin_usdc: 4_250,
      hedge_id: second.id,
      maturity_at: second.maturity_at,
    });
    expect((await getData(sandbox, '/account')).open_positions).toBe(1);
  });

  it('alpha told otherwise takes one hedge per side', async () => {
    // Off by default on the reference dialect, on for alpha: dialects.test.ts (a second open of a side).
    const sandbox = await start({ dialect: 'alpha', severalPerSide: false });
    await postData(sandbox, '/hedges', openBody('sell', 10_000));
    expect(answered(await api(sandbox, 'POST', '/hedges', { body: openBody('sell', 10_000) }))).toEqual([
      409,
      'hedge_already_open',
    ]);
  });
});

describe('late settlement (settlementDelayMs)', () => {
  const DELAY_MS = 5_000;

  it('a hedge past maturity stays filled for the delay, then settles then', async () => {
    const sandbox = await start({ settlementDelayMs: DELAY_MS });
    const { id, maturity_at: maturityAt } = await postData(sandbox, '/hedges', openBody('buy', 20_000, 1));
    const maturityMs = Date.parse(maturityAt);
    moveTo(sandbox, maturityMs);
    expect((await getData(sandbox, `/hedges/${id}`)).status).toBe('filled');
    expect(await lineIds(sandbox)).toEqual([id]);
    moveTo(sandbox, maturityMs + DELAY_MS - 1);
    expect((await getData(sandbox, `/hedges/${id}`)).status).toBe('filled');
    expect(await getData(sandbox, '/hedges/history')).toEqual([]);

    moveTo(sandbox, maturityMs + DELAY_MS);
    const settled = await getData(sandbox, `/hedges/${id}`);
    // maturity_at stays the contract's date; closed_at says when it really settled.
    expect([settled.status, settled.maturity_at, settled.closed_at]).toEqual([
      'closed',
      maturityAt,
      iso(maturityMs + DELAY_MS),
    ]);
    expect(await getData(sandbox, '/positions')).toEqual([]);
    const [record] = await getData(sandbox, '/hedges/history');
    expect(record).toMatchObject({ hedge_id: id, close_reason: 'settled', closed_at: iso(maturityMs + DELAY_MS) });
  });

  it('a close sent during the delay closes the hedge early instead', async () => {
    const sandbox = await start({ settlementDelayMs: DELAY_MS });
    const { id, maturity_at: maturityAt } = await postData(sandbox, '/hedges', openBody('buy', 20_000, 1));
    moveTo(sandbox, Date.parse(maturityAt) + 1_000);
    await postData(sandbox, '/hedges/close', { market: 'USDTNGN', side: 'buy' });
    sandbox.clock.advance(FILL_DELAY_MS);
    const [record] = await getData(sandbox, '/hedges/history');
    expect(record).toMatchObject({
      hedge_id: id,
      close_reason: 'closed',
      closed_at: iso(Date.parse(maturityAt) + 1_000 + FILL_DELAY_MS),
    });
    sandbox.clock.advance(DELAY_MS);
    expect((await getData(sandbox, '/hedges/history')).length).toBe(1);
  });
});

describe('a short tenor day (dayMs)', () => {
  const SHORT_DAY_MS = 10_000;

  it('a tenor of n days matures n × dayMs after the open, in the quote and the hedge alike', async () => {
    const sandbox = await start({ dayMs: SHORT_DAY_MS });
    const now = sandbox.clock.now();
    const quote = await postData(sandbox, '/quotes', openBody('buy', 10_000, 3));
    expect(quote.maturity).toBe(iso(now + 3 * SHORT_DAY_MS));
    const oneDay = await postData(sandbox, '/hedges', openBody('buy', 10_000, 1));
    expect([oneDay.opened_at, oneDay.maturity_at]).toEqual([iso(now), iso(now + SHORT_DAY_MS)]);
    const sevenDays = await postData(sandbox, '/hedges', openBody('sell', 10_000, 7));
    expect(sevenDays.maturity_at).toBe(iso(now + 7 * SHORT_DAY_MS));

    moveTo(sandbox, now + SHORT_DAY_MS - 1);
    expect((await getData(sandbox, `/hedges/${oneDay.id}`)).status).toBe('filled');
    moveTo(sandbox, now + SHORT_DAY_MS);
    expect((await getData(sandbox, `/hedges/${oneDay.id}`)).status).toBe('closed');
    expect((await getData(sandbox, `/hedges/${sevenDays.id}`)).status).toBe('filled');
  });

  it('carry accrues per tenor day: a hedge held to maturity pays what its quote said per day', async () => {
    const sandbox = await start({ dayMs: SHORT_DAY_MS });
    const quote = await postData(sandbox, '/quotes', openBody('buy', 500_000, 1));
    const { id } = await postData(sandbox, '/hedges', openBody('buy', 500_000, 1));
    sandbox.clock.advance(SHORT_DAY_MS);
    const [record] = await getData(sandbox, '/hedges/history');
    expect(record.hedge_id).toBe(id);
    // Held from the fill to maturity: the day less the fill delay.
    const expected = (500_000 * quote.carry.daily_rate_pct * (SHORT_DAY_MS - FILL_DELAY_MS)) / (100 * SHORT_DAY_MS);
    expect(Math.abs(quote.carry.daily_usdc)).toBeGreaterThan(10);
    expect(record.carry_usdc).toBeCloseTo(expected, 2);
  });
});
