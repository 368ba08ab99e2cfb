import { SANDBOX_DIALECTS, type SandboxDialect } from '../../src/sandbox/dialect-names.js';
import { type RunningSandbox } from '../../src/sandbox/http/server.js';
import { openBody, T0 } from '../support/engine.js';
import { api, startSimulator, type ApiResult, type ApiTarget } from '../support/simulator.js';
import { answered, post, postData, read, useSandboxes, useStateFiles } from './http-calls.js';

// These tests talk to the server itself.
const start = useSandboxes();
const FILL_DELAY_MS = 50;

// Written out by hand (not read from dialects.ts) so a change to the table shows up here; the key
// lists are in order.
const reference = {
  positionKeys:
    'market side hedge_id notional_usd units entry_price mark_price gross_pnl_usd accrued_carry_usdc net_pnl_usd close_fee_usdc margin_usdc net_margin_usd opened_at maturity_at',
  accountKeys:
    'balance_usdc margin_in_use_usdc open_exposure_usd unrealized_pnl_usd open_positions available_exposure_usd exposure_cap_usd',
  historyKeys:
    'hedge_id market side notional_usd tenor_days opened_at closed_at close_reason entry_price exit_price gross_pnl_usd carry_usdc fees_usdc net_pnl_usd',
  // History's name for the hedge id.
  historyHedgeId: 'hedge_id',
  pageSize: 'limit',
  notionalField: 'notional_usd',
  statusAfterEarlyClose: 'closed',
  // The market the tests trade (gamma lists USDTNGN disabled).
  market: 'USDTNGN',
  // Amounts of positions, account and history as decimal strings.
  amountsAsText: false,
};
// delta names every field as the reference does; it differs in references and history pages (below).
const EXPECTED = {
  reference,
  delta: reference,
  alpha: {
    ...reference,
    positionKeys:
      'market direction hedge_id size_usd units entry_rate mark_rate pnl_gross_usd carry_accrued_usdc pnl_usd exit_fee_usdc collateral_usdc net_margin_usd open_time maturity_time',
    accountKeys:
      'balance_usdc used_margin_usdc exposure_usd upnl_usd open_position_count available_exposure_usd exposure_limit_usd',
    historyKeys:
      'hedge market direction size_usd tenor entry_time exit_time exit_reason entry_rate exit_rate pnl_gross_usd carry_paid_usdc fees_paid_usdc net_pnl_usd',
    historyHedgeId: 'hedge',
    pageSize: 'page_size',
    notionalField: 'amount_usd',
    statusAfterEarlyClose: 'filled',
  },
  beta: {
    ...reference,
    positionKeys:
      'market hedge_id notional qty avg_entry_price current_price price_pnl_usd funding_usdc total_pnl_usd fee_to_close_usdc locked_margin_usdc net_margin_usd created_at expires_at',
    accountKeys:
      'balance_usdc margin_locked_usdc gross_exposure_usd floating_pnl_usd num_positions available_exposure_usd max_exposure_usd',
    historyKeys:
      'id market side notional tenor_days opened closed reason open_price close_price realized_pnl_usd funding_usdc total_fees_usdc net_pnl_usd',
    historyHedgeId: 'id',
    pageSize: 'per_page',
    notionalField: 'delta_usd',
  },
  gamma: {
    ...reference,
    pageSize: 'page_size',
    notionalField: 'notional_change_usd',
    market: 'USDTKES',
    amountsAsText: true,
  },
  // epsilon names every field as the reference does; it pages its lists by number (below).
  epsilon: { ...reference, pageSize: 'size' },
};
/** The meta of a history page that has a next one. */
const HISTORY_META = {
  reference: 'next_cursor',
  alpha: '',
  beta: '',
  gamma: 'page_size next_cursor',
  delta: 'next_before',
  epsilon: 'page size total_pages total_elements',
};

/** A change of the buy side. */
const change = (field: string, notional: number, market = 'USDTNGN') => ({ market, side: 'buy', [field]: notional });
/** An answer refused as a validation_error naming `field`. */
const refuses = ({ status, body }: ApiResult, field: string) =>
  expect([status, body.error.code, body.error.details?.field]).toEqual([400, 'validation_error', field]);
const refusesGet = async (sandbox: ApiTarget, path: string, field: string) =>
  refuses(await api(sandbox, 'GET', path), field);
/** A hedge as the server shows it. */
const hedgeOn = (sandbox: ApiTarget, id: string) => read(sandbox, `/hedges/${id}`);
/** The one account a test's key opened. */
const firstAccount = (sandbox: RunningSandbox) => Object.values(sandbox.engine.state.accounts)[0];
const idsOf = (list: any[]) => list.map((hedge) => hedge.id);
/** A record's field names in order, as the key lists above write them. */
const keysOf = (row: object) => Object.keys(row).join(' ');
/** Real time stands still at T0: sandbox time moves only when a test advances it, so every figure is exact. */
/** Lets a fill or change land. */
const fill = (sandbox: RunningSandbox) => sandbox.clock.advance(FILL_DELAY_MS);
const startDialect = (dialect: SandboxDialect) => start({ dialect, fillDelayMs: FILL_DELAY_MS, realNow: () => T0 });

describe.each(SANDBOX_DIALECTS)('sandbox dialect %s over HTTP', (dialect) => {
  const expected = EXPECTED[dialect];
  const otherNotionalField = expected.notionalField === 'notional_usd' ? 'amount_usd' : 'notional_usd';
  const market = expected.market;
  const open = (side: 'buy' | 'sell', notional: number) => openBody(side, notional, 7, { market });
  /** A change of the buy side, in this dialect's field unless told another. */
  const changeOf = (notional: number, field = expected.notionalField) => change(field, notional, market);
  /** A money amount as the dialect writes it: a number, or its decimal text to the cent. */
  const amount = (value: number) => (expected.amountsAsText ? value.toFixed(2) : value);

  it('open → fill, add, reduce, full reduce: bodies, positions, account and history in its own names', async () => {
    const sandbox = await startDialect(dialect);
    expect(sandbox.engine.state.dialect).toBe(dialect);
    const opened = await post(sandbox, '/hedges', open('buy', 100_000), 'd-open');
    expect([opened.status, opened.body.data.status]).toEqual([200, 'submitted']);
    const id = opened.body.data.hedge_id;
    fill(sandbox);
    expect((await hedgeOn(sandbox, id)).status).toBe('filled');

    // Another dialect's field name alone is refused, naming the field this dialect expects.
    refuses(await post(sandbox, '/hedges/add', changeOf(50_000, otherNotionalField)), expected.notionalField);
    // Next to its own, the reference and delta let it be; the others refuse it.
    const add = changeOf(50_000);
    let added = await post(sandbox, '/hedges/add', { ...add, [otherNotionalField]: 5 }, 'd-add');
    if (expected.notionalField !== 'notional_usd') {
      refuses(added, expected.notionalField);
      expect(added.body.error.message).toMatch(/notional_usd/);
      added = await post(sandbox, '/hedges/add', add, 'd-add');
    }
    expect(added.body.data).toMatchObject({ hedge_id: id, action: 'add', status: 'submitted', notional_usd: 50_000 });
    fill(sandbox);
    expect((await hedgeOn(sandbox, id)).notional_usd).toBe(150_000);

    const reduced = await post(sandbox, '/hedges/reduce', changeOf(50_000));
    expect(reduced.body.data).toMatchObject({ hedge_id: id, action: 'reduce', notional_usd: 50_000 });
    fill(sandbox);

    const [position] = await read(sandbox, '/positions');
    expect(keysOf(position)).toBe(expected.positionKeys);
    expect(position.hedge_id).toBe(id);
    expect(position.net_margin_usd).toBeTypeOf(expected.amountsAsText ? 'string' : 'number');
    const account = await read(sandbox, '/account');
    expect(keysOf(account)).toBe(expected.accountKeys);
    expect(account.available_exposure_usd).toBe(amount(1_000_000 - 100_000));

    expect((await post(sandbox, '/hedges/reduce', changeOf(100_000))).status).toBe(200);
    fill(sandbox);
    expect(await read(sandbox, '/positions')).toEqual([]);
    const hedge = await hedgeOn(sandbox, id);
    expect(hedge.status).toBe(expected.statusAfterEarlyClose);
    expect('closed_at' in hedge).toBe(expected.statusAfterEarlyClose === 'closed');
    // Whatever the wire says, the engine closed it once.
    expect(firstAccount(sandbox).hedges[id].status).toBe('closed');

    const [record] = await read(sandbox, '/hedges/history');
    expect(keysOf(record)).toBe(expected.historyKeys);
    expect(record[expected.historyHedgeId]).toBe(id);
    expect(record.net_pnl_usd).toBeTypeOf(expected.amountsAsText ? 'string' : 'number');
    const flat = await read(sandbox, '/account');
    expect(flat.available_exposure_usd).toBe(amount(1_000_000));
    expect(flat[expected.accountKeys.split(' ')[4]]).toBe(0);
    const refused = sandbox.requestLog.filter((entry) => entry.errorCode === 'validation_error');
    expect(refused).toHaveLength(expected.notionalField === 'notional_usd' ? 1 : 2);
    expect(new Set(refused.map((entry) => entry.path))).toEqual(new Set(['/hedges/add']));
  });

  it('serves prices in its own shape; closes early in its own status and pages lists with its own page-size name; keeps the stated rules: a second open on a side and the spec’s errors', async () => {
    const sandbox = await startDialect(dialect);
    const [{ price, market: listed }] = await read(sandbox, '/markets');
    const timestamp = new Date(sandbox.clock.now()).toISOString();
    const prices = await api(sandbox, 'GET', `/prices?symbols=${listed}`);
    const half = price * 0.00025;
    const list = [{ market: 'USDTNGN', price, timestamp }];
    const shapes = {
      reference: list,
      alpha: { USDTNGN: { mid: price, ts: timestamp } },
      beta: [{ symbol: 'USDTNGN', rate: price }],
      delta: list,
      epsilon: list,
      gamma: {
        rates: [{ pair: 'USDTNGN', bid: (price - half).toFixed(3), ask: (price + half).toFixed(3), as_of: timestamp }],
      },
    };
    expect(prices.body).toEqual({ data: shapes[dialect], error: null, meta: { source: 'onchain' } });
    expect(answered(await post(sandbox, '/hedges/add', changeOf(1_000)))).toEqual([404, 'no_open_hedge']);
    const ids: string[] = [];
    // Each side closed early: it leaves the positions list; the hedge shows the dialect's status.
    for (const side of ['buy', 'sell'] as const) {
      const id = (await postData(sandbox, '/hedges', open(side, 10_000))).id;
      ids.push(id);
      fill(sandbox);
      const closed = await post(sandbox, '/hedges/close', { market, side });
      expect(closed.body.data).toMatchObject({
        hedge_id: id,
        action: 'close',
        status: 'submitted',
        notional_usd: 10_000,
      });
      fill(sandbox);
      expect(await read(sandbox, '/positions')).toEqual([]);
      expect((await hedgeOn(sandbox, id)).status).toBe(expected.statusAfterEarlyClose);
    }
    expect(await read(sandbox, '/hedges/history')).toHaveLength(2);
    expect(idsOf(await read(sandbox, `/hedges?status=${expected.statusAfterEarlyClose}`))).toEqual([ids[1], ids[0]]);
    ids.push((await postData(sandbox, '/hedges', open('buy', 10_000))).id);

    const page = await api(sandbox, 'GET', `/hedges?${expected.pageSize}=2`);
    expect(idsOf(page.body.data)).toEqual([ids[2], ids[1]]);
    // Of two records, one a page: only the reference, gamma, delta and epsilon say how to ask for the next.
    const history = (await api(sandbox, 'GET', `/hedges/history?${expected.pageSize}=1`)).body;
    expect(history.data.map((record: any) => record[expected.historyHedgeId])).toEqual([ids[1]]);
    expect(keysOf(history.meta)).toBe(HISTORY_META[dialect]);
    await refusesGet(sandbox, `/hedges?${expected.pageSize}=501`, expected.pageSize);

    const foreign = expected.pageSize === 'limit' ? 'page_size' : 'limit';
    const withForeign = await api(sandbox, 'GET', `/hedges?${foreign}=1`);
    if (dialect === 'beta') {
      refuses(withForeign, 'limit');
      await refusesGet(sandbox, '/hedges/history?cursor=abc', 'cursor');
    } else {
      expect(withForeign.body.data).toHaveLength(3);
    }
    expect(page.body.meta).toEqual(
      {
        gamma: { page_size: 2, next_cursor: expect.any(String) },
        epsilon: { page: 0, size: 2, total_pages: 2, total_elements: 3 },
      }[dialect as string] ?? {},
    );

    // The sell side is free again.
    await post(sandbox, '/hedges', open('sell', 1_000), 'same');
    expect(answered(await post(sandbox, '/hedges', open('sell', 2_000), 'same'))).toEqual([
      409,
      'idempotency_key_reuse',
    ]);
    const second = await post(sandbox, '/hedges', open('sell', 2_000));
    if (dialect === 'alpha') expect(second.status).toBe(200);
    else expect(answered(second)).toEqual([409, 'hedge_already_open']);
  });
});

it('sandbox dialect alpha: several hedges per side: opens a second hedge on an open side; positions aggregate; add → newest; reduce newest first; close closes all', async () => {
  const sandbox = await startDialect('alpha');
  const first = (await postData(sandbox, '/hedges', openBody('buy', 100_000))).id;
  fill(sandbox);
  const newest = await postData(sandbox, '/hedges', openBody('buy', 60_000));
  const second = newest.id;
  expect(second).not.toBe(first);
  fill(sandbox);

  const [line, ...others] = await read(sandbox, '/positions');
  expect(others).toEqual([]);
  // The newest hedge names the line: its id and its maturity.
  expect(line).toMatchObject({
    direction: 'buy',
    hedge_id: second,
    maturity_time: newest.maturity_at,
    size_usd: 160_000,
    collateral_usdc: 16_000,
  });
  expect(line.net_margin_usd).toBe(Math.round((line.collateral_usdc + line.pnl_usd - line.exit_fee_usdc) * 100) / 100);
  expect(line.exit_fee_usdc).toBe(80);
  expect(await read(sandbox, '/account')).toMatchObject({
    open_position_count: 1,
    exposure_usd: 160_000,
  });

  await post(sandbox, '/hedges/add', change('amount_usd', 40_000));
  fill(sandbox);
  const notionals = async () =>
    Promise.all([first, second].map(async (id) => (await hedgeOn(sandbox, id)).notional_usd));
  expect(await notionals()).toEqual([100_000, 100_000]);

  // 130k: all of the newest (which closes it) and 30k of the older one.
  const reduced = await post(sandbox, '/hedges/reduce', change('amount_usd', 130_000));
  expect(reduced.body.data).toMatchObject({ hedge_id: second, action: 'reduce', notional_usd: 130_000 });
  fill(sandbox);
  expect(await notionals()).toEqual([70_000, 100_000]);
  expect(await read(sandbox, '/positions')).toEqual([expect.objectContaining({ hedge_id: first, size_usd: 70_000 })]);
  expect((await read(sandbox, '/hedges/history')).map((record: any) => record.hedge)).toEqual([second]);

  const third = (await postData(sandbox, '/hedges', openBody('buy', 30_000))).id;
  fill(sandbox);
  const closed = await post(sandbox, '/hedges/close', { market: 'USDTNGN', side: 'buy' });
  expect(closed.body.data).toMatchObject({ hedge_id: third, action: 'close', notional_usd: 100_000 });
  fill(sandbox);
  expect(await read(sandbox, '/positions')).toEqual([]);
  const allHistory = (await read(sandbox, '/hedges/history')).map((record: any) => record.hedge);
  expect(new Set(allHistory)).toEqual(new Set([first, second, third]));
  for (const id of [first, second, third]) expect((await hedgeOn(sandbox, id)).status).toBe('filled');
  const account = firstAccount(sandbox);
  expect([account.activeHedgeIds, account.activeHedgeStacks]).toEqual([{}, {}]);
});

it('sandbox dialect alpha: several hedges per side: closing every hedge of a side returns exactly the aggregated net_margin_usd', async () => {
  // No fill delay: the close lands at the very time the position was read.
  const sandbox = await start({ dialect: 'alpha', fillDelayMs: 0, realNow: () => T0 });
  for (const notional of [70_000, 45_000, 12_345.67]) {
    await post(sandbox, '/hedges', openBody('sell', notional));
    sandbox.clock.advance(3_600_000);
  }
  const [line] = await read(sandbox, '/positions');
  expect(line.size_usd).toBe(127_345.67);
  const balance = (await read(sandbox, '/account')).balance_usdc;
  await post(sandbox, '/hedges/close', { market: 'USDTNGN', side: 'sell' });
  const after = await read(sandbox, '/account');
  expect(after.balance_usdc).toBe(Math.round((balance + line.net_margin_usd) * 100) / 100);
  expect(after.open_position_count).toBe(0);
});

it('sandbox dialect gamma: more markets, a closing status, cursor pages, amounts as text: lists USDTKES and USDTGHS open and USDTNGN disabled (an open there refused); shows `settling` while a close lands, then `closed`; the filter knows the word; history in one page of the size asked, a cursor it did not hand out refused', async () => {
  const sandbox = await startDialect('gamma');
  const markets = (await api(sandbox, 'GET', '/markets')).body;
  expect(markets.data.map((entry: any) => [entry.market, entry.status])).toEqual([
    ['USDTNGN', 'disabled'],
    ['USDTKES', 'open'],
    ['USDTGHS', 'open'],
  ]);
  expect([
    markets.meta.allowed_markets,
    answered(await post(sandbox, '/hedges', openBody('buy', 10_000))),
    firstAccount(sandbox).hedges,
  ]).toEqual([['USDTNGN', 'USDTKES', 'USDTGHS'], [400, 'market_disabled'], {}]);
  const id = (await postData(sandbox, '/hedges', openBody('sell', 20_000, 3, { market: 'USDTKES' }))).id;
  fill(sandbox);
  await post(sandbox, '/hedges/close', { market: 'USDTKES', side: 'sell' });
  expect((await hedgeOn(sandbox, id)).status).toBe('settling');
  expect(idsOf(await read(sandbox, '/hedges?status=settling'))).toEqual([id]);
  // Still a position until the close lands.
  expect(await read(sandbox, '/positions')).toHaveLength(1);
  fill(sandbox);
  expect((await hedgeOn(sandbox, id)).status).toBe('closed');
  expect(await read(sandbox, '/positions')).toEqual([]);
  await refusesGet(sandbox, '/hedges?status=pending', 'status');

  // Cursor pages of 20 by default walked to the last, every hedge once: wire-tolerance.test.ts (gamma, 47 hedges).
  sandbox.seedHedges({ apiKey: sandbox.apiKey, count: 46 });
  const history = (await api(sandbox, 'GET', '/hedges/history?page_size=50')).body;
  expect(history.data).toHaveLength(47);
  expect(history.meta).toEqual({ page_size: 50, next_cursor: null });
  expect(history.data[0].net_pnl_usd).toMatch(/^-?\d+\.\d\d$/);
  await refusesGet(sandbox, '/hedges?cursor=nope', 'cursor');
});

it('sandbox dialect delta: references in upper case, history pages by time: keeps client_reference trimmed in upper case and filters it without regard to case; refuses a history `before` that is not a time', async () => {
  const sandbox = await startDialect('delta');
  const { id } = await postData(sandbox, '/hedges', openBody('buy', 10_000, 7, { client_reference: ' deal-11' }));
  await post(sandbox, '/hedges', openBody('sell', 10_000, 7, { client_reference: 'deal-12' }));
  expect((await hedgeOn(sandbox, id)).client_reference).toBe('DEAL-11');
  for (const asked of ['deal-11', 'DEAL-11', 'Deal-11 '])
    expect(idsOf(await read(sandbox, `/hedges?client_reference=${encodeURIComponent(asked)}`))).toEqual([id]);
  // Pages of at most 40 walked by meta.next_before: wire-tolerance.test.ts and history-time-pages.test.ts (delta).
  await refusesGet(sandbox, '/hedges/history?before=yesterday', 'before');
});

it('sandbox dialect epsilon: lists paged by zero-based number: `page` of `size` rows (20 by default, `limit` ignored), meta {page, size, total_pages, total_elements}; a page past the last is empty; a page that is not a whole number refused', async () => {
  const sandbox = await startDialect('epsilon');
  sandbox.seedHedges({ apiKey: sandbox.apiKey, count: 45 });
  const body = async (path: string) => (await api(sandbox, 'GET', path)).body;
  const first = await body('/hedges/history?limit=50');
  expect([first.data.length, first.meta]).toEqual([20, { page: 0, size: 20, total_pages: 3, total_elements: 45 }]);
  const pages = await Promise.all([0, 1, 2, 3].map((page) => body(`/hedges/history?page=${page}&size=20`)));
  expect(pages.map((page) => page.data.length)).toEqual([20, 20, 5, 0]);
  const ids = pages.flatMap((page) => page.data.map((record: any) => record.hedge_id));
  expect(new Set(ids).size).toBe(45);
  // A size that changes between pages starts its rows elsewhere: page 1 of 31 is rows 31 to 44.
  const resized = await body('/hedges/history?page=1&size=31');
  expect([resized.data[0].hedge_id, resized.data.length]).toEqual([ids[31], 14]);
  expect((await body('/hedges?page=2&size=2')).meta).toEqual({ page: 2, size: 2, total_pages: 23, total_elements: 45 });
  await refusesGet(sandbox, '/hedges?page=-1', 'page');
  await refusesGet(sandbox, '/hedges/history?page=first', 'page');
});

it("sandbox options beside the dialects: closedSettlingMs shows an early-closed hedge `settling` at notional 0 for that long (the side already gone from the positions list, its history record there), then `closed`; unmarkedHistoryPages gives delta's history 40 a page whatever size is asked, with no next page named", async () => {
  const sandbox = await start({ closedSettlingMs: 3_000, fillDelayMs: FILL_DELAY_MS, realNow: () => T0 });
  const { id } = await postData(sandbox, '/hedges', openBody('sell', 20_000));
  fill(sandbox);
  await post(sandbox, '/hedges/close', { market: 'USDTNGN', side: 'sell' });
  fill(sandbox);
  expect(await hedgeOn(sandbox, id)).toMatchObject({ status: 'settling', notional_usd: 0 });
  expect(idsOf(await read(sandbox, '/hedges?status=settling'))).toEqual([id]);
  expect([await read(sandbox, '/positions'), (await read(sandbox, '/hedges/history')).length]).toEqual([[], 1]);
  sandbox.clock.advance(3_000);
  expect(await hedgeOn(sandbox, id)).toMatchObject({ status: 'closed', notional_usd: 20_000 });

  const delta = await start({ dialect: 'delta', unmarkedHistoryPages: true, realNow: () => T0 });
  delta.seedHedges({ apiKey: delta.apiKey, count: 45 });
  for (const asked of ['', '?limit=1', '?limit=100']) {
    const { data, meta } = (await api(delta, 'GET', `/hedges/history${asked}`)).body;
    expect([data.length, meta]).toEqual([40, {}]);
  }
});

const stateFileIn = useStateFiles();

it('sandbox dialects: choosing and remembering one: a state file remembers its dialect and refuses another; an unknown dialect is refused, listing the names', async () => {
  const stateFile = stateFileIn();
  const apiKeys = ['hpk_test_DialectDialectDialect1234'];
  const first = await startSimulator({ preset: 'plain', stateFile, apiKeys, dialect: 'beta' });
  await post(first, '/hedges', openBody('buy', 10_000));
  await first.close();

  const second = await startSimulator({ preset: 'plain', stateFile, apiKeys });
  try {
    expect(second.sandbox.engine.state.dialect).toBe('beta');
    expect((await read(second, '/prices'))[0]).toHaveProperty('symbol', 'USDTNGN');
  } finally {
    await second.close();
  }
  await expect(startSimulator({ preset: 'plain', stateFile, apiKeys, dialect: 'alpha' })).rejects.toThrow(
    /beta dialect, not alpha/,
  );
  await expect(startSimulator({ preset: 'plain', dialect: 'zeta' as SandboxDialect })).rejects.toThrow(
    /unknown sandbox dialect "zeta".*reference, alpha, beta, gamma, delta, epsilon/,
  );
});
