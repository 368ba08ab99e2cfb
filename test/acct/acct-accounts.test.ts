// End to end on the simulator: the books belong to the account a key opens (two servers on one machine never see or
// block each other; a new key of the account keeps them), whatever designate accepts every later command values,
// every acct command judges today by the server's clock, and a market's rates are checked against the server's price
// and can be corrected back after a wrong import. What is asserted is the records as hedge reads them back and the
// simulator's own state: no acct command sends a write.
import { execSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { exits, ok, okJson } from '../support/cli-runs.js';
import { apiData, colleagueOpens, MARKET, useSimulators, type Simulator } from '../support/simulator.js';
import { KEY_A, KEY_B, KEY_C } from '../support/keys.js';
import { ROOT } from '../support/hedge-cli.js';

const start = useSimulators();
const DAY = 24 * 3_600_000;
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const serverDay = (simulator: Simulator) => dayOf(simulator.sandbox.clock.now());
const EXAMPLE = JSON.parse(readFileSync(join(ROOT, 'docs', 'examples', 'relationship.json'), 'utf8'));
const RATES = join(ROOT, 'docs', 'examples', 'rates-eurusd.csv');
const LATE = ['--recorded-late', 'brought over from the spreadsheet'];

/** A relationship over the desk's hedges carrying `reference`, designated on `day`. */
const deskRelationship = (id: string, reference: string, day: string, item: Record<string, string>, more = {}) => ({
  ...EXAMPLE,
  id,
  framework: 'ifrs9',
  designated_at: day,
  market: MARKET,
  hedged_item: { ...EXAMPLE.hedged_item, kind: 'forecast', expected_date: dayOf(Date.parse(day) + 30 * DAY), ...item },
  instrument: { references: [reference] },
  designation: 'spot',
  excluded: 'pnl',
  ...more,
});

/** The worked example's forward, designated on `day` on a market of no recorded rates, due a month later. */
function laterForward(id: string, day: string, more = {}) {
  const due = dayOf(Date.parse(day) + 30 * DAY);
  return {
    ...EXAMPLE,
    id,
    market: 'EURGBP',
    designated_at: day,
    hedged_item: { ...EXAMPLE.hedged_item, expected_date: due },
    instrument: { ...EXAMPLE.instrument, maturity: due, rate_quote: 'GBP per EUR' },
    ...more,
  };
}

/** CSV rates of one spot on each of `dates`. */
const ratesText = (spot: string, dates: string[]) =>
  `date,spot,forward,discount_factor,source\n${dates.map((date) => `${date},${spot},,,the bank`).join('\n')}\n`;

function writer(dir: string) {
  return (name: string, content: unknown) => {
    const path = join(dir, name);
    writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
    return path;
  };
}

const ids = (rows: Array<{ id: string }>) => rows.map((row) => row.id);

it('two accounts on one machine (two servers, two hpk_test_ keys): each keeps its own relationships and rates, neither sees nor blocks the other', async () => {
  const [a, b] = [await start(), await start()];
  expect(a.apiKey.split('_')[0]).toBe(b.apiKey.split('_')[0]);
  // One machine: one config and state folder for both.
  const machine = a.configDir;
  const file = writer(machine);
  for (const simulator of [a, b]) {
    const run = (args: string[]) => simulator.hedge(args, { configDir: machine });
    await colleagueOpens(simulator, 'buy', 2_000, 7, 'COVER-1');
    // The same day's rate on each server, and a relationship under the same id: neither is "recorded already".
    ok(await run(['acct', 'rates', '--record', '--market', MARKET]));
    const day = serverDay(simulator);
    const path = file('r.json', deskRelationship('NGN-1', 'COVER-1', day, { currency: 'NGN', amount: '3m' }));
    ok(await run(['acct', 'designate', path]));
    simulator.advance(DAY);
    ok(await run(['acct', 'rates', '--record', '--market', MARKET]));
  }
  for (const simulator of [a, b]) {
    const run = (args: string[]) => simulator.hedge(args, { configDir: machine });
    expect(ids(okJson(await run(['acct', 'list', '--json'])))).toEqual(['NGN-1']);
    // Its own server's prices alone.
    const rates = okJson(await run(['acct', 'rates', '--market', MARKET, '--json']));
    expect(rates).toHaveLength(2);
    for (const rate of rates) expect(rate.source).toContain(`GET /prices at ${simulator.baseUrl} (`);
    const [row] = okJson(await run(['acct', 'test', 'NGN-1', '--json']));
    expect(row.period_end).toBe(serverDay(simulator));
    // Reads only: the one write each server saw is the colleague's open.
    expect(simulator.writes().map((entry) => entry.path)).toEqual(['/hedges']);
  }
});

it('a new key of the account keeps its books and values them; a key another account holds at that address is refused naming the hedges, never valued at 0', async () => {
  // KEY_A and KEY_B open one account (a key rotated); KEY_C another.
  const simulator = await start({ preset: 'keys', knownAccountIds: { [KEY_A]: 'acct_one', [KEY_B]: 'acct_one' } });
  const as = (key: string) => ({ env: { HEDGE_API_KEY: key } });
  const file = writer(simulator.configDir);
  await colleagueOpens(simulator, 'buy', 2_000, 7, 'PAY-1');
  ok(await simulator.hedge(['acct', 'rates', '--record', '--market', MARKET], as(KEY_A)));
  const day = serverDay(simulator);
  const path = file('r.json', deskRelationship('PAY-1-REL', 'PAY-1', day, { currency: 'NGN', amount: '1m' }));
  ok(await simulator.hedge(['acct', 'designate', path], as(KEY_A)));
  simulator.advance(DAY);
  ok(await simulator.hedge(['acct', 'rates', '--record', '--market', MARKET], as(KEY_B)));
  const [byA] = okJson(await simulator.hedge(['acct', 'test', 'PAY-1-REL', '--json'], as(KEY_A)));
  const [byB] = okJson(await simulator.hedge(['acct', 'test', 'PAY-1-REL', '--json'], as(KEY_B)));
  expect(byB).toEqual(byA);
  exits(
    await simulator.hedge(['acct', 'test', 'PAY-1-REL'], as(KEY_C)),
    2,
    'instrument.references: no hedge of this account carries PAY-1',
  );
});

it('whatever designate accepts, acct test values: desk hedges in USD or naira books (USD read as USDT, USDC as USD), a forward held elsewhere, a relationship kept on values; the rest refused at designation in one line', async () => {
  const simulator = await start();
  const run = (args: string[]) => simulator.hedge(args);
  const file = writer(simulator.configDir);
  await colleagueOpens(simulator, 'buy', 4_000, 7, 'COVER');
  ok(await run(['acct', 'rates', '--record', '--market', MARKET]));
  const day = serverDay(simulator);
  const desk = (id: string, item: Record<string, string>, more = {}) =>
    file(`${id}.json`, deskRelationship(id, 'COVER', day, item, { ratio: '0.2', ...more }));
  const refusals: Array<[string, string]> = [
    [desk('EUR-ITEM', { currency: 'EUR', amount: '1m' }), 'hedged_item.currency: EUR is not one of USDTNGN'],
    [
      desk('NGN-IN-NGN', { currency: 'NGN', amount: '1m' }, { functional_currency: 'NGN' }),
      "hedged_item.currency: NGN is the books' own currency (NGN), which carries no currency risk",
    ],
    [
      desk('EUR-BOOKS', { currency: 'NGN', amount: '1m' }, { functional_currency: 'EUR' }),
      'functional_currency: EUR is not one of USDTNGN',
    ],
    [
      desk('OTHER-MARKET', { currency: 'EUR', amount: '1m' }, { market: 'EURUSD' }),
      'market: EURUSD is not the market of the hedges carrying COVER (USDTNGN); expected USDTNGN',
    ],
    [
      file('NO-BOOKS.json', laterForward('NO-BOOKS', day, { functional_currency: undefined })),
      'functional_currency: no rate of EURGBP is recorded',
    ],
  ];
  for (const [path, said] of refusals) {
    const refused = exits(await run(['acct', 'designate', path]), 2, said);
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);
  }
  const accepted = [
    desk('NGN-RECEIVABLE', { currency: 'NGN', amount: '3m' }),
    desk('USD-PAYABLE', { currency: 'USD', amount: '-2000' }, { functional_currency: 'NGN' }),
    desk('USDT-PAYABLE', { currency: 'USDT', amount: '-2000' }, { functional_currency: 'NGN' }),
    desk('NGN-USDC-BOOKS', { currency: 'NGN', amount: '3m' }, { functional_currency: 'USDC' }),
    desk(
      'USD-PAYABLE-FV',
      { currency: 'USD', amount: '-2000', kind: 'recognised' },
      { functional_currency: 'NGN', type: 'fair_value' },
    ),
  ];
  for (const path of accepted) ok(await run(['acct', 'designate', path]));
  ok(await run(['acct', 'rates', RATES, '--market', 'EURUSD', '--quote', 'USD per EUR']));
  const sale = { ...EXAMPLE, id: 'EUR-SALE', functional_currency: undefined };
  ok(await run(['acct', 'designate', file('EUR-SALE.json', sale), ...LATE]));
  ok(
    await run(['acct', 'designate', file('VALUES.json', laterForward('VALUES', day, { functional_currency: 'GBP' }))]),
  );
  expect(ids(okJson(await run(['acct', 'list', '--json'])))).toEqual([
    'NGN-RECEIVABLE',
    'USD-PAYABLE',
    'USDT-PAYABLE',
    'NGN-USDC-BOOKS',
    'USD-PAYABLE-FV',
    'EUR-SALE',
    'VALUES',
  ]);
  simulator.advance(DAY);
  ok(await run(['acct', 'rates', '--record', '--market', MARKET]));
  const tested = new Map<string, Array<Record<string, unknown>>>();
  for (const id of ['NGN-RECEIVABLE', 'USD-PAYABLE', 'USDT-PAYABLE', 'NGN-USDC-BOOKS', 'USD-PAYABLE-FV'])
    tested.set(id, okJson(await run(['acct', 'test', id, '--json'])));
  tested.set('EUR-SALE', okJson(await run(['acct', 'test', 'EUR-SALE', '--as-of', '2019-02-01', '--json'])));
  const values = file('values.csv', `date,instrument_value,hedged_item_value\n${serverDay(simulator)},1200,-1150\n`);
  tested.set(
    'VALUES',
    okJson(await run(['acct', 'test', 'VALUES', '--values', values, '--as-of', serverDay(simulator), '--json'])),
  );
  expect([...tested].map(([id, rows]) => [id, rows.at(-1)!.period_end, rows.at(-1)!.currency])).toEqual([
    ['NGN-RECEIVABLE', serverDay(simulator), 'USD'],
    ['USD-PAYABLE', serverDay(simulator), 'NGN'],
    ['USDT-PAYABLE', serverDay(simulator), 'NGN'],
    ['NGN-USDC-BOOKS', serverDay(simulator), 'USD'],
    ['USD-PAYABLE-FV', serverDay(simulator), 'NGN'],
    ['EUR-SALE', '2019-02-01', 'USD'],
    ['VALUES', serverDay(simulator), 'GBP'],
  ]);
  // A USD payable is a USDT one: the same figures.
  expect(tested.get('USD-PAYABLE')).toEqual(
    tested.get('USDT-PAYABLE')!.map((row) => ({ ...row, relationship_id: 'USD-PAYABLE' })),
  );
  // A fair-value hedge of the recognised payable on the spot element: its change for the hedged risk is its
  // remeasurement at spot, posted as IAS 21's; nothing is left for its adjustment, and both changes are in P&L.
  const fairValue = tested.get('USD-PAYABLE-FV')!;
  const remeasured = fairValue.reduce((sum, row) => sum + Number(row.remeasured), 0);
  expect(fairValue.at(-1)).toMatchObject({ balance: 'hedged_item_adjustment', reserve_close: 0 });
  expect(remeasured).toBe(fairValue.at(-1)!.hedged_item_change);
  expect(remeasured).not.toBe(0);
  expect(simulator.writes().map((entry) => entry.path)).toEqual(['/hedges']);
});

it("on a server whose clock runs days ahead of this machine's (a fast-clock sandbox), acct judges today by the server: a payable's occurrence and a correction dated on its today are taken, its tomorrow refused", async () => {
  // The server three days ahead, its clock stopped there: its month has ended where this machine's has not.
  const ahead = Date.now() + 3 * DAY;
  const simulator = await start({ realNow: () => ahead });
  const run = (args: string[]) => simulator.hedge(args);
  const file = writer(simulator.configDir);
  const today = serverDay(simulator);
  const tomorrow = dayOf(Date.parse(today) + DAY);
  expect(today > dayOf(Date.now())).toBe(true);
  await colleagueOpens(simulator, 'buy', 2_000, 7, 'PAYABLE-7');
  ok(await run(['acct', 'rates', '--record', '--market', MARKET]));
  const [recorded] = okJson(await run(['acct', 'rates', '--market', MARKET, '--json']));
  expect(recorded.date).toBe(today);
  const item = { currency: 'USDT', amount: '-2000', kind: 'firm' };
  const path = file('p.json', deskRelationship('PAYABLE-7', 'PAYABLE-7', today, item, { functional_currency: 'NGN' }));
  ok(await run(['acct', 'designate', path]));
  exits(
    await run(['acct', 'event', 'PAYABLE-7', '--occurred', tomorrow]),
    2,
    `--occurred: ${tomorrow} is after today (${today})`,
  );
  ok(await run(['acct', 'event', 'PAYABLE-7', '--occurred', today]));
  const restated = (date: string) => file('fix.csv', ratesText((Number(recorded.spot) + 1).toFixed(2), [date]));
  const correct = ['--market', MARKET, '--quote', `NGN per USDT`, '--correct', '--reason', 'the fixing'];
  exits(await run(['acct', 'rates', restated(tomorrow), ...correct]), 2, `date: ${tomorrow} is after today (${today})`);
  ok(await run(['acct', 'rates', restated(today), ...correct]));
  const corrected = okJson(await run(['acct', 'rates', '--market', MARKET, '--json']));
  expect(corrected.map((rate: { spot: string }) => Number(rate.spot))).toEqual([
    Number((Number(recorded.spot) + 1).toFixed(2)),
  ]);
  expect(okJson(await run(['acct', 'log', 'PAYABLE-7', '--json'])).map((row: { what: string }) => row.what)).toEqual([
    `designated as of ${today}`,
    `occurred ${today}`,
  ]);
  expect(simulator.writes().map((entry) => entry.path)).toEqual(['/hedges']);
});

it("rates checked: --record takes no --quote; a file the other way round, or an order of magnitude from the server's price, is refused naming both; rates recorded the wrong way round are corrected back, and --record goes on", async () => {
  const now = Date.now();
  const simulator = await start({ realNow: () => now });
  const run = (args: string[], env?: Record<string, string>) => simulator.hedge(args, { env });
  const file = writer(simulator.configDir);
  const [listed] = (await apiData(simulator, 'GET', '/markets')) as Array<{ market: string; price: number }>;
  expect(listed.market).toBe(MARKET);
  const [before, yesterday] = [2, 1].map((days) => dayOf(now - days * DAY));
  exits(
    await run(['acct', 'rates', '--record', '--market', MARKET, '--quote', 'NGN per USDT']),
    2,
    "--quote: goes with a FILE; --record records the server's price the way the server quotes it.",
  );
  const rates = (spot: string, dates = [before, yesterday]) => file('rates.csv', ratesText(spot, dates));
  const price = String(listed.price);
  exits(
    await run(['acct', 'rates', rates(price), '--market', MARKET, '--quote', 'USDT per NGN']),
    2,
    `--quote: the server quotes ${MARKET} as NGN per USDT; expected that direction`,
  );
  const tooSmall = exits(
    await run(['acct', 'rates', rates('1.53'), '--market', MARKET, '--quote', 'NGN per USDT']),
    2,
    `spot: 1.53 on ${before} is an order of magnitude from the server's price of ${MARKET} (${price} NGN per USDT)`,
  );
  expect(tooSmall.stderr.trim().split('\n')).toHaveLength(1);
  expect(okJson(await run(['acct', 'rates', '--market', MARKET, '--json']))).toEqual([]);

  // Rates an earlier hedge recorded the wrong way round (here: kept with no key, then moved into the account's
  // store as hedge says how).
  const keyless = { HEDGE_API_KEY: '', HEDGE_BASE_URL: '' };
  ok(await run(['acct', 'rates', rates(price), '--market', MARKET, '--quote', 'USDT per NGN'], keyless));
  const hint = ok(await run(['acct', 'rates', '--market', MARKET]));
  execSync(/move them here: (mv \S+ \S+?)\.( |$)/.exec(`${hint.stdout}${hint.stderr}`.replace(/\s+/g, ' '))![1]);
  exits(
    await run(['acct', 'rates', '--record', '--market', MARKET]),
    2,
    `--record: ${MARKET}'s rates are recorded as USDT per NGN, not as the server quotes its price (NGN per USDT); correct every recorded date first`,
  );
  const fix = ['--market', MARKET, '--quote', 'NGN per USDT', '--correct', '--reason', 'quoted the wrong way round'];
  exits(
    await run(['acct', 'rates', rates(price, [yesterday]), ...fix]),
    2,
    `--quote: ${MARKET}'s rates are recorded as USDT per NGN; expected the same, or NGN per USDT in a correction restating every recorded date (--correct --reason TEXT; 1 missing, such as ${before})`,
  );
  ok(await run(['acct', 'rates', rates(price), ...fix]));
  ok(await run(['acct', 'rates', '--record', '--market', MARKET]));
  const recorded = okJson(await run(['acct', 'rates', '--market', MARKET, '--json']));
  expect(recorded.map((rate: { date: string; spot: string }) => [rate.date, rate.spot])).toEqual([
    [before, price],
    [yesterday, price],
    [dayOf(now), price],
  ]);
  expect(simulator.writes()).toEqual([]);
});
