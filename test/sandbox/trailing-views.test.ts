// Views that trail the records (viewLagMs): the positions list, the history and the account show
// each change of a hedge the lag after the hedge record does. Asserted on the server's own answers
// over HTTP, on a clock that moves only when a test advances it, so every boundary is exact.

import { type RunningSandbox } from '../../src/sandbox/http/server.js';
import { openBody } from '../support/engine.js';
import { api, FROZEN_START_MS } from '../support/simulator.js';
import { answered, getData, lineIds, moveTo, postData, useSandboxes, useStateFiles } from './http-calls.js';

const LAG_MS = 3_000;
const FILL_DELAY_MS = 50;

// Real time stands still: sandbox time moves only when a test advances it.
const start = useSandboxes({
  fillDelayMs: FILL_DELAY_MS,
  realNow: () => FROZEN_START_MS,
  apiKeys: ['hpk_test_TrailingViewsTrailingViews01'],
});

it('views that trail the records (viewLagMs): answers at T + lag exactly what the same server without the lag answered at T; the records at once', async () => {
  // Same seed, same start, same writes at the same times: the lagged server's positions,
  // history and account must be the unlagged one's, lag ms later, to the digit (and, before the
  // lag has passed, the views of an empty account) — fills, add and reduce landings, closes,
  // several hedges on a side and late settlements (days of 1 s, settled 0.4 s late) included. Each change lands on a
  // step: both sides of every step (1 ms before, then on it) are compared. The hedge records
  // themselves never trail: both servers list the same hedges at the same time.
  const common = {
    seed: 'trailing-exact',
    severalPerSide: true,
    dayMs: 1_000,
    settlementDelayMs: 400,
    fillDelayMs: 200,
  };
  const inStep = await start(common);
  const trailing = await start({ ...common, viewLagMs: LAG_MS });
  const t0 = inStep.clock.now();
  expect(trailing.clock.now()).toBe(t0);
  const writes: Record<number, Array<[string, unknown]>> = {
    0: [['/hedges', openBody('buy', 30_000, 3)]],
    200: [
      ['/hedges', openBody('buy', 20_000, 1)],
      ['/hedges', openBody('sell', 25_000, 7)],
    ],
    600: [['/hedges/add', { market: 'USDTNGN', side: 'buy', notional_usd: 5_000 }]],
    1_000: [['/hedges/reduce', { market: 'USDTNGN', side: 'sell', notional_usd: 10_000 }]],
    1_400: [['/hedges/close', { market: 'USDTNGN', side: 'sell' }]],
  };
  const STEP_MS = 200;
  const END_MS = 3_600 + LAG_MS;
  const answered = new Map<number, any>();
  const views = async (sandbox: RunningSandbox) => ({
    positions: await getData(sandbox, '/positions'),
    history: await getData(sandbox, '/hedges/history'),
    account: await getData(sandbox, '/account'),
  });
  const empty = await views(trailing);
  let compared = 0;
  for (let step = 0; step <= END_MS; step += STEP_MS) {
    for (const at of step === 0 ? [0] : [step - 1, step]) {
      moveTo(inStep, t0 + at);
      moveTo(trailing, t0 + at);
      for (const [path, body] of at === step ? (writes[at] ?? []) : []) {
        // One at a time and on both, as the same client would send them to either server.
        expect((await api(inStep, 'POST', path, { body })).status).toBe(200);
        expect((await api(trailing, 'POST', path, { body })).status).toBe(200);
      }
      expect(await getData(trailing, '/hedges'), `records at +${at} ms`).toEqual(await getData(inStep, '/hedges'));
      answered.set(at, await views(inStep));
      expect(await views(trailing), `at +${at} ms`).toEqual(at >= LAG_MS ? answered.get(at - LAG_MS) : empty);
      compared++;
    }
  }
  expect(compared).toBe((END_MS / STEP_MS) * 2 + 1);
  // The run went through every kind of change: the last answers hold settled and closed hedges.
  const reasons = answered.get(END_MS - LAG_MS).history.map((record: any) => record.close_reason);
  expect(new Set(reasons)).toEqual(new Set(['settled', 'closed']));
});

// Several hedges per side is off by default on the reference dialect, on for alpha (dialects.test.ts, a second open of
// a side): alpha told otherwise (severalPerSide) takes one hedge per side.
it('a new hedge whose record trails its open (recordLagMs): reads as 404 and is not listed until its open is the lag old, then as it stands; writes act on it at once: on alpha told to take one hedge per side (severalPerSide), the side is taken', async () => {
  const sandbox = await start({ recordLagMs: LAG_MS, dialect: 'alpha', severalPerSide: false });
  const openedAt = sandbox.clock.now();
  const { id } = await postData(sandbox, '/hedges', openBody('buy', 10_000, 3));
  moveTo(sandbox, openedAt + LAG_MS - 1);
  expect([answered(await api(sandbox, 'GET', `/hedges/${id}`)), await getData(sandbox, '/hedges')]).toEqual([
    [404, 'hedge_not_found'],
    [],
  ]);
  // The records themselves hold it: the side is taken (one hedge per side), and the positions list shows its fill.
  expect(answered(await api(sandbox, 'POST', '/hedges', { body: openBody('buy', 5_000, 3) }))).toEqual([
    409,
    'hedge_already_open',
  ]);
  expect(await lineIds(sandbox)).toEqual([id]);
  moveTo(sandbox, openedAt + LAG_MS);
  expect([
    (await getData(sandbox, `/hedges/${id}`)).status,
    (await getData(sandbox, '/hedges')).map((hedge: any) => hedge.id),
  ]).toEqual(['filled', [id]]);
});

const stateFileIn = useStateFiles();

it("trailing views and the state file: a state saved without a lag starts in step under one, then trails its changes; a change not shown yet when the server stops is shown on time by the next one; started again without the lag, the views are the records' at once", async () => {
  const stateFile = stateFileIn();
  const plain = await start({ stateFile });
  const { id } = await postData(plain, '/hedges', openBody('sell', 10_000, 3));
  plain.clock.advance(FILL_DELAY_MS);
  expect(await lineIds(plain)).toEqual([id]);
  const account = await getData(plain, '/account');
  await plain.close();

  const lagged = await start({ stateFile, viewLagMs: LAG_MS });
  expect(await lineIds(lagged)).toEqual([id]);
  // In step with the records; valued (mark, carry, unrealized P&L) as of the lag before, as always.
  const { unrealized_pnl_usd: _valuedThen, ...figures } = account;
  expect(await getData(lagged, '/account')).toMatchObject(figures);
  // The sell's close and a buy's fill land together, and the server stops before either is shown.
  const landedAt = lagged.clock.now() + FILL_DELAY_MS;
  await postData(lagged, '/hedges/close', { market: 'USDTNGN', side: 'sell' });
  const buy = await postData(lagged, '/hedges', openBody('buy', 10_000, 3));
  moveTo(lagged, landedAt + 1_000);
  expect(await lineIds(lagged)).toEqual([id]);
  await lagged.close();

  const next = await start({ stateFile, viewLagMs: LAG_MS });
  expect([next.clock.now(), await lineIds(next)]).toEqual([landedAt + 1_000, [id]]);
  moveTo(next, landedAt + LAG_MS - 1);
  expect(await lineIds(next)).toEqual([id]);
  moveTo(next, landedAt + LAG_MS);
  expect(await lineIds(next)).toEqual([buy.id]);
  await next.close();

  const again = await start({ stateFile });
  await postData(again, '/hedges/close', { market: 'USDTNGN', side: 'buy' });
  again.clock.advance(FILL_DELAY_MS);
  expect(await getData(again, '/positions')).toEqual([]);
  // Closed here, not after the test: the directory is removed first.
  await again.close();
});

// Behaviours a test can switch on independently of the dialect, with the same server: several hedges
// per side (severalPerSide), late settlement (settlementDelayMs) and a short tenor day (dayMs).
const iso = (timeMs: number) => new Date(timeMs).toISOString();

const DELAY_MS = 5_000;

it('late settlement (settlementDelayMs): a hedge past maturity stays filled for the delay, then settles then; a close sent during the delay closes the hedge early instead', async () => {
  const sandbox = await start({ settlementDelayMs: DELAY_MS });
  const { id, maturity_at: maturityAt } = await postData(sandbox, '/hedges', openBody('buy', 20_000, 1));
  const maturityMs = Date.parse(maturityAt);
  moveTo(sandbox, maturityMs);
  expect([(await getData(sandbox, `/hedges/${id}`)).status, await lineIds(sandbox)]).toEqual(['filled', [id]]);
  moveTo(sandbox, maturityMs + DELAY_MS - 1);
  expect([(await getData(sandbox, `/hedges/${id}`)).status, await getData(sandbox, '/hedges/history')]).toEqual([
    'filled',
    [],
  ]);

  moveTo(sandbox, maturityMs + DELAY_MS);
  const settled = await getData(sandbox, `/hedges/${id}`);
  // maturity_at stays the contract's date; closed_at says when it really settled.
  expect([settled.status, settled.maturity_at, settled.closed_at]).toEqual([
    'closed',
    maturityAt,
    iso(maturityMs + DELAY_MS),
  ]);
  expect(await getData(sandbox, '/positions')).toEqual([]);
  expect((await getData(sandbox, '/hedges/history'))[0]).toMatchObject({
    hedge_id: id,
    close_reason: 'settled',
    closed_at: iso(maturityMs + DELAY_MS),
  });

  // A close sent during the delay closes the hedge early instead.
  const sell = await postData(sandbox, '/hedges', openBody('sell', 20_000, 1));
  const closedAt = Date.parse(sell.maturity_at) + 1_000 + FILL_DELAY_MS;
  moveTo(sandbox, closedAt - FILL_DELAY_MS);
  await postData(sandbox, '/hedges/close', { market: 'USDTNGN', side: 'sell' });
  sandbox.clock.advance(FILL_DELAY_MS);
  expect((await getData(sandbox, '/hedges/history'))[0]).toMatchObject({
    hedge_id: sell.id,
    close_reason: 'closed',
    closed_at: iso(closedAt),
  });
  sandbox.clock.advance(DELAY_MS);
  expect((await getData(sandbox, '/hedges/history')).length).toBe(2);
});

const SHORT_DAY_MS = 10_000;

it('a short tenor day (dayMs): a tenor of n days matures n × dayMs after the open, in the quote and the hedge alike; carry accrues per tenor day: a hedge held to maturity pays what its quote said per day', async () => {
  const sandbox = await start({ dayMs: SHORT_DAY_MS });
  const now = sandbox.clock.now();
  const quote = await postData(sandbox, '/quotes', openBody('buy', 10_000, 3));
  const oneDay = await postData(sandbox, '/hedges', openBody('buy', 10_000, 1));
  const sevenDays = await postData(sandbox, '/hedges', openBody('sell', 10_000, 7));
  expect([quote.maturity, oneDay.opened_at, oneDay.maturity_at, sevenDays.maturity_at]).toEqual([
    iso(now + 3 * SHORT_DAY_MS),
    iso(now),
    iso(now + SHORT_DAY_MS),
    iso(now + 7 * SHORT_DAY_MS),
  ]);

  moveTo(sandbox, now + SHORT_DAY_MS - 1);
  expect((await getData(sandbox, `/hedges/${oneDay.id}`)).status).toBe('filled');
  moveTo(sandbox, now + SHORT_DAY_MS);
  expect((await getData(sandbox, `/hedges/${oneDay.id}`)).status).toBe('closed');
  expect((await getData(sandbox, `/hedges/${sevenDays.id}`)).status).toBe('filled');
  // The one-day buy has matured: the side takes a new hedge.
  const daily = await postData(sandbox, '/quotes', openBody('buy', 500_000, 1));
  const { id } = await postData(sandbox, '/hedges', openBody('buy', 500_000, 1));
  sandbox.clock.advance(SHORT_DAY_MS);
  const [record] = await getData(sandbox, '/hedges/history');
  expect(record.hedge_id).toBe(id);
  // Held from the fill to maturity: the day less the fill delay.
  const expected = (500_000 * daily.carry.daily_rate_pct * (SHORT_DAY_MS - FILL_DELAY_MS)) / (100 * SHORT_DAY_MS);
  expect(Math.abs(daily.carry.daily_usdc)).toBeGreaterThan(10);
  expect(record.carry_usdc).toBeCloseTo(expected, 2);
});
