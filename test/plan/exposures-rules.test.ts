// The exposures rules (src/features/exposures/exposures-rules.ts, exposures-file.ts, exposure-policy.ts): the file's
// checks, direction by economics, netting, the ratio buckets, the band, the schedule, the projected
// cost, the stress table, the dollar offset, the keeper's targetRowsAt, and the --report rules (coverage per week,
// cost to date, effectiveness) — all pure, on a fixed clock.
import { parseExposuresFile, type Exposure } from '../../src/features/exposures/exposures-file.js';
import { parsePolicyFile, parseRatios, resolvePolicy } from '../../src/features/exposures/exposure-policy.js';
import { DAY_MS } from '../../src/core/vocabulary.js';
import {
  DEFAULT_POLICY,
  changeTimes,
  costToDate,
  coveragePerWeek,
  effectiveness,
  coverPnlUsd,
  coverSide,
  dollarOffset,
  exposureRevaluationUsd,
  projectedCost,
  ratioAt,
  scheduleOfChanges,
  stressTable,
  targetBook,
  targetRowsAt,
  longestTenorBy,
} from '../../src/features/exposures/exposures-rules.js';
import { UsageError } from '../../src/core/errors.js';
import { decideRow } from '../../src/features/keeper/keeper-decide.js';
import { reconcileSide } from '../../src/features/book/book.js';
import { rateBetween } from '../../src/features/exposures/exposures.js';
import { weekStart } from '../../src/features/report/report-rules.js';

const NOW = Date.parse('2026-03-02T09:00:00Z');
const PRICE = 1500;
const PRICES = { USDTNGN: PRICE };

function exposure(
  id: string,
  type: 'receivable' | 'payable',
  amount: number,
  currency: string,
  dueInDays: number,
  extra = {},
) {
  return { id, market: 'USDTNGN', type, amount, currency, dueMs: NOW + dueInDays * DAY_MS, line: 1, ...extra };
}

/** An NGN receivable (or payable) worth `usd` USD at today's price, due in `days`. */
const receivableOf = (id: string, usd: number, days: number) => exposure(id, 'receivable', usd * PRICE, 'NGN', days);
const payableOf = (id: string, usd: number, days: number) => exposure(id, 'payable', usd * PRICE, 'NGN', days);

/** The problems of `text` read as the file `sourceName` (none when it reads). */
const problemsOf = (text: string, sourceName = 'e.csv') =>
  ({ problems: [], ...parseExposuresFile(text, { sourceName }) }).problems;

it('the exposures file: reads CSV as a spreadsheet exports it: amounts with separators and suffixes, dates and zoned times, optional ratio; reads JSON, an array or { exposures: [...] }, numbers as numbers or strings; names every bad row and field, one line each, without repeating what the cell held', () => {
  const text = [
    'ID,Market,Type,Amount,Currency,Due,Hedge_Ratio',
    'INV-1,usdtngn,Receivable,450m,ngn,2027-01-15,',
    '"FRT-2",USDTNGN,payable,"120,000,000",NGN,2027-02-03T17:00:00+01:00,75%',
    'AP-3,USDTNGN,payable,100_000.50,USDT,2027-01-01,0.5',
  ].join('\n');
  const due = (time: string, line: number, more = {}) => ({ dueMs: Date.parse(time), line, ...more });
  expect(parseExposuresFile(text, { sourceName: 'e.csv' })).toEqual({
    rows: [
      exposure('INV-1', 'receivable', 450_000_000, 'NGN', 0, due('2027-01-15T00:00:00Z', 2)),
      exposure('FRT-2', 'payable', 120_000_000, 'NGN', 0, due('2027-02-03T16:00:00Z', 3, { hedgeRatio: 0.75 })),
      exposure('AP-3', 'payable', 100_000.5, 'USD', 0, due('2027-01-01T00:00:00Z', 4, { hedgeRatio: 0.5 })),
    ],
  });
  const item = { id: 'A', market: 'USDTNGN', type: 'payable', amount: '1000', currency: 'USD', due: '2027-01-01' };
  const fromArray = parseExposuresFile(JSON.stringify([{ ...item, amount: 1000 }]), { sourceName: 'e.json' });
  const fromObject = parseExposuresFile(JSON.stringify({ exposures: [item] }), { sourceName: 'e.json' });
  expect([fromArray, 'rows' in fromArray && fromArray.rows[0].amount]).toEqual([fromObject, 1000]);

  const problems = problemsOf(
    [
      'id,market,type,amount,currency,due',
      'A,USDTNGN,receivible,1m,NGN,2027-01-01',
      'B,USDTNGN,payable,-5,EUR,tomorrow',
      'A,USDTNGN,payable,5,USD,2027-01-01',
      'C,USDTNGN,payable,5',
      'D,USDTNGN,payable,5,NGN,2027-02-30',
      'E,USDTNGN,payable,5,NGN,2027-01-15T24:00:00Z',
    ].join('\n'),
  );
  expect(problems.map((problem) => `${problem.line}: ${problem.message.split(';')[0]}`)).toEqual([
    '2: row 1: type: missing or not allowed',
    '3: row 2: amount: missing or not allowed',
    '3: row 2: currency: missing or not allowed',
    '3: row 2: due: missing or not allowed',
    '4: row 3: id: the same id as row 1',
    '5: row 4: expected 6 fields as in the header, found 4.',
    // A day the calendar lacks and the hour 24 are refused, never read as another day.
    '6: row 5: due: missing or not allowed',
    '7: row 6: due: missing or not allowed',
  ]);
  expect(problems.map((problem) => problem.message).join('\n')).not.toMatch(/receivible|EUR|tomorrow|-5/);
});

it.each([
  ['id,market,type,amount,due\n', 'e.csv', /^header: lacks currency/],
  ['[1]', 'e.json', /^item 1: expected an object/],
  ['', 'e.csv', /is empty/],
])(
  'the exposures file: refuses a header without a required column, a JSON item not an object, an empty file: %j',
  (text, sourceName, first) => {
    expect(problemsOf(text, sourceName)[0].message).toMatch(first);
  },
);

it("the policy: defaults to 100% within 30 days, 75% to 90, 50% beyond, a band of 5%, today's price, USD books, netting; takes a policy file and lets the flags win over it; refuses bad buckets with one line naming the option; gives each exposure the ratio of its time to due, the row's own ratio first, 0 once due", () => {
  expect(resolvePolicy({}, {})).toEqual(DEFAULT_POLICY);
  expect(DEFAULT_POLICY.buckets).toEqual([
    { withinDays: 30, ratio: 1 },
    { withinDays: 90, ratio: 0.75 },
    { ratio: 0.5 },
  ]);
  expect(
    resolvePolicy(
      parsePolicyFile('{"ratios": "10:100,*:20", "band_pct": 2, "sizing": "fixed", "netting": false}', 'p.json'),
      { band: '7', functional: 'ngn' },
    ),
  ).toEqual({
    buckets: [{ withinDays: 10, ratio: 1 }, { ratio: 0.2 }],
    bandPct: 7,
    sizing: 'fixed',
    functional: 'NGN',
    netting: false,
  });

  expect(() => parseRatios('90:75,30:100', '--ratios')).toThrow(UsageError);
  expect(() => parseRatios('*:50,30:100', '--ratios')).toThrow(/\* \(beyond\) must be the last/);
  expect(() => parseRatios('30:150', '--ratios')).toThrow(/above 100%/);
  expect(() => resolvePolicy({}, { band: 'wide' })).toThrow(/^--band: /);
  expect(() => parsePolicyFile('{"ratio": 1}', 'p.json')).toThrow(/not known/);
  // Not JSON: where and why, line and column.
  expect(() => parsePolicyFile('{\n  "band_pct": 5,\n}\n', 'p.json')).toThrow(
    /^--policy: p\.json is not valid JSON: Expected double-quoted property name \(line 3, column 1\); expected one object such as \{"ratios"/,
  );
  expect(() => parsePolicyFile('{"band_pct": 5', 'p.json')).toThrow(
    'p.json is not valid JSON: it ends before the JSON is complete (line 1, column 15)',
  );
  // The first problem as the file reads, whichever kind it is.
  expect(() => parsePolicyFile('{"zzz": 1, "band_pct": "wide"}', 'p.json')).toThrow(/: a key that is not known/);
  expect(() => parsePolicyFile('{"netting": 1, "zzz": 1}', 'p.json')).toThrow(
    /^--policy p\.json: netting: expected true or false\.$/,
  );
  // Without a * bucket, what is further away is not covered.
  expect(parseRatios('30:100', '--ratios')).toEqual([{ withinDays: 30, ratio: 1 }, { ratio: 0 }]);

  const at = (days: number, extra = {}) =>
    ratioAt(exposure('X', 'receivable', 1, 'NGN', days, extra), DEFAULT_POLICY, NOW);
  expect([at(30), at(30.01), at(90), at(91), at(200, { hedgeRatio: 0.9 }), at(0)]).toEqual([
    { ratio: 1, bucket: '≤30d' },
    { ratio: 0.75, bucket: '≤90d' },
    { ratio: 0.75, bucket: '≤90d' },
    { ratio: 0.5, bucket: '>90d' },
    { ratio: 0.9, bucket: 'file' },
    { ratio: 0, bucket: 'due' },
  ]);
});

// Books in another market's currency (KES) look at this market from USD.
it.each([
  ['receivable', 'NGN', 'USD', 'buy'],
  ['payable', 'NGN', 'USD', 'sell'],
  ['payable', 'USD', 'USD', undefined],
  ['payable', 'USD', 'NGN', 'buy'],
  ['receivable', 'USD', 'NGN', 'sell'],
  ['receivable', 'NGN', 'NGN', undefined],
  ['receivable', 'NGN', 'KES', 'buy'],
] as const)(
  'direction by economics: a %s in %s from %s books is covered by %s, which gains what the exposure loses when the price moves',
  (type, currency, functional, side) => {
    const item = exposure('X', type, currency === 'NGN' ? 150_000_000 : 100_000, currency, 10);
    expect(coverSide(item, functional)).toBe(side);
    if (side)
      for (const moved of [1200, 1800]) {
        const loss = exposureRevaluationUsd(item, functional, PRICE, moved);
        expect(coverPnlUsd(side, 100_000, PRICE, moved) + loss).toBeCloseTo(0, 6);
        expect(loss).not.toBe(0);
      }
  },
);

const receivable = receivableOf('R', 100_000, 20); // 100%
const payable = payableOf('P', 40_000, 60); // 75% = 30,000

it("the target book: nets receivables and payables of a market into one side; holds each side apart with --no-netting; sizes at the first cover's price when sizing is fixed, at today's otherwise; picks the longest tenor that matures by the last due date; gives the keeper target rows as a target file would, flat after the last due date", () => {
  const at = (date: number) => new Date(date).toISOString();
  const book = targetBook([receivable, payable], DEFAULT_POLICY, PRICES, NOW);
  const apart = targetBook([receivable, payable], { ...DEFAULT_POLICY, netting: false }, PRICES, NOW);
  expect([
    ...book.map((row) => [row.side, row.target_usd, row.band_low_usd, row.band_high_usd]),
    [book[0].exposures, book[0].until],
    ...apart.map((row) => [row.side, row.target_usd, row.tenor_days, row.until]),
  ]).toEqual([
    ['buy', 70_000, 66_500, 73_500],
    ['sell', 0, 0, 0],
    [['R', 'P'], at(payable.dueMs)],
    ['buy', 100_000, 7, at(receivable.dueMs)],
    ['sell', 30_000, 7, at(payable.dueMs)],
  ]);
  expect([
    targetBook([receivable], { ...DEFAULT_POLICY, sizing: 'fixed' }, PRICES, NOW, { R: 1000 })[0].target_usd,
    targetBook([receivable], DEFAULT_POLICY, PRICES, NOW, { R: 1000 })[0].target_usd,
  ]).toEqual([150_000, 100_000]);

  expect([10, 5, 2, 0.5].map((days) => longestTenorBy(NOW + days * DAY_MS, NOW))).toEqual([7, 3, 1, 1]);

  expect(targetRowsAt([receivable, payable], DEFAULT_POLICY, PRICES, NOW)).toEqual([
    { market: 'USDTNGN', side: 'buy', notionalUsd: 70_000, tenorDays: 7, untilMs: payable.dueMs, line: 1 },
    { market: 'USDTNGN', side: 'sell', notionalUsd: 0, line: 2 },
  ]);
  // After R is due, the payable alone: a sell of 40,000 × 75%.
  const notionalsAt = (at: number) =>
    targetRowsAt([receivable, payable], DEFAULT_POLICY, PRICES, at).map((row) => `${row.side} ${row.notionalUsd}`);
  expect([notionalsAt(receivable.dueMs), notionalsAt(payable.dueMs)]).toEqual([
    ['buy 0', 'sell 30000'],
    ['buy 0', 'sell 0'],
  ]);
});

it('the schedule of changes: lists each due date and bucket boundary where the target changes, in time order', () => {
  const far = receivableOf('F', 100_000, 100); // 50% now, 75% at day 10, 100% at day 70
  expect(changeTimes([far], DEFAULT_POLICY, NOW)).toEqual([NOW + 10 * DAY_MS, NOW + 70 * DAY_MS, NOW + 100 * DAY_MS]);
  expect(
    scheduleOfChanges([far], DEFAULT_POLICY, PRICES, NOW).map((change) => [
      change.at,
      change.from_usd,
      change.to_usd,
      change.reason,
    ]),
  ).toEqual([
    [new Date(NOW + 10 * DAY_MS).toISOString(), 50_000, 75_000, 'F enters ≤90d'],
    [new Date(NOW + 70 * DAY_MS).toISOString(), 75_000, 100_000, 'F enters ≤30d'],
    [new Date(NOW + 100 * DAY_MS).toISOString(), 100_000, 0, 'F due'],
  ]);
});

it("the projected cost: carries each side at today's rate, pays the fee on what is traded and rolls at each maturity; shows carry alone when the fee is not known, and a due inside a tenor pays the reduce", () => {
  const item = receivableOf('R', 100_000, 14); // two 7-day hedges
  const [cost] = projectedCost(
    [item],
    DEFAULT_POLICY,
    PRICES,
    NOW,
    { USDTNGN: { buy: 0.04, sell: -0.02 } },
    { USDTNGN: 0.0005 },
  );
  // 14 days × 100,000 × 0.04% = 560 carry; open 50 + one roll (close 50 + open 50); settles at due: no fee.
  // All paid: negative, on the account's side.
  expect(cost).toEqual({
    due: new Date(item.dueMs).toISOString(),
    market: 'USDTNGN',
    exposures: 'R',
    carry_pnl_usdc: -560,
    fees_pnl_usdc: -150,
    rolls: 1,
    cost_usdc: -710,
  });
  const early = receivableOf('E', 10_000, 2); // due inside the 7-day hedge
  const late = receivableOf('L', 10_000, 7);
  const costed = (items: Exposure[], feeRate = {}) =>
    projectedCost(items, DEFAULT_POLICY, PRICES, NOW, { USDTNGN: { buy: 0.01, sell: 0 } }, feeRate);
  const costs = costed([early, late], { USDTNGN: 0.001 });
  // 2 days × 20,000 × 0.01% = 4; 5 more days × 10,000 × 0.01% = 5. Fees: open 20 + reduce 10; the rest settles at day 7.
  expect(costs.map((cost) => [cost.exposures, cost.carry_pnl_usdc, cost.fees_pnl_usdc, cost.rolls])).toEqual([
    ['E', -4, -30, 0],
    ['L', -9, -30, 0],
  ]);
  const unknown = costed([late]);
  expect(unknown[0]).toMatchObject({ fees_pnl_usdc: null, cost_usdc: unknown[0].carry_pnl_usdc });
});

it('the stress table: nets to zero at 100% cover, and to the uncovered part otherwise', () => {
  const near = receivableOf('N', 100_000, 10);
  const full = stressTable([near], DEFAULT_POLICY, PRICES, NOW);
  expect(full.map((row) => row.shock_pct)).toEqual([-30, -10, 10, 30]);
  for (const row of full) expect(row.net_usd).toBeCloseTo(0, 1);
  // +30%: 1950 NGN/USDT; 100,000 USD of NGN is worth 76,923.08: a loss of 23,076.92.
  expect(full[3]).toMatchObject({ price: 1950, exposure_change_usd: -23_076.92, cover_pnl_usd: 23_076.92 });
  expect(stressTable([{ ...near, hedgeRatio: 0.5 }], DEFAULT_POLICY, PRICES, NOW)[3].net_usd).toBeCloseTo(
    -11_538.46,
    2,
  );
});

it("the dollar offset: is the cover's P&L against the exposure's change, effective from 80% to 125%", () => {
  expect(
    [
      [900, -1000],
      [1300, -1000],
      [700, -1000],
      [5, 0],
      // A change that rounds to no cent, either way, has not moved; one that rounds to a cent has.
      [5, 0.004],
      [5, -0.004],
      [-0.01, 0.01],
    ].map(([pnl, change]) => dollarOffset(pnl, change)),
  ).toEqual([
    { ratio_pct: 90, effective: true },
    { ratio_pct: 130, effective: false },
    { ratio_pct: 70, effective: false },
    { ratio_pct: null, effective: null },
    { ratio_pct: null, effective: null },
    { ratio_pct: null, effective: null },
    { ratio_pct: 100, effective: true },
  ]);
});

it("the keeper holding the moving target: trades only when a side leaves its band: the row's own tolerance wins over the keeper's; measures the server's clock rate as the server time per own time less the Date header's second of rounding, never below 1", () => {
  const row = {
    market: 'USDTNGN',
    side: 'buy' as const,
    notionalUsd: 100_000,
    tenorDays: 7 as const,
    toleranceUsd: 5_000,
  };
  const at = (notionalUsd: number) =>
    decideRow(
      row,
      reconcileSide(
        [{ id: 'hdg_1', status: 'filled', notionalUsd, maturityAtMs: NOW + 5 * DAY_MS }],
        { notionalUsd, hedgeId: 'hdg_1' },
        NOW,
      ),
      NOW,
      { toleranceUsd: 0 },
    ).kind;
  expect([at(104_000), at(95_500), at(106_000), at(94_000)]).toEqual(['hold', 'hold', 'drift', 'drift']);

  // A simulator at 7,200×: 1.5 s of ours is 3 hours of its time.
  expect(rateBetween(0, 10_800_000, 1_500)).toBeCloseTo(7199.33, 1);
  // A real server read 1.5 s apart shows 1 or 2 s (its header is to the second): rate 1.
  expect([rateBetween(0, 2_000, 1_500), rateBetween(0, 1_000, 1_500)]).toEqual([1, 1]);
});

it.each([
  [
    'a keeper reduces at its last cycle before the date',
    [receivableOf('S', 10_000, 1), receivableOf('L', 20_000, 10)],
    [[0], [DAY_MS - 1], [DAY_MS]],
    [30_000, 30_000, 20_000],
  ],
  [
    // The payable due within the lead: the buy stays at 80,000 (not 100,000) until it is due.
    'a netted offset never raises a side before its time: within the lead the smaller of now and later',
    [receivableOf('R', 100_000, 10), payableOf('P', 20_000, 1)],
    [[0], [DAY_MS], [0, 1]],
    [80_000, 80_000, 100_000],
  ],
  [
    // Between R1's due date and P's the target is 80,000: with both in the lead the keeper holds
    // that, not the 100,000 at the lead's end (which would be above the target for a day).
    'every moment of the lead counts: a receivable due, then a netted payable due, holds the low point between',
    [receivableOf('R1', 100_000, 1), payableOf('P', 20_000, 2), receivableOf('R2', 100_000, 10)],
    [[0], [0, 1], [3 * DAY_MS]],
    [180_000, 80_000, 80_000],
  ],
  [
    // 75% now, 100% in half a day.
    'a netted payable entering a higher bucket within the lead lowers the side from then',
    [receivableOf('R', 100_000, 20), payableOf('P', 20_000, 30.5)],
    [[0], [DAY_MS / 4], [DAY_MS]],
    [85_000, 85_000, 80_000],
  ],
])(
  'letting an exposure go ahead of its due date: what is due within dueLeadMs counts as due: %s',
  (_name, exposures, cases, expected) => {
    // The buy row the keeper targets `days` from now, what is due within `lead` counted as due.
    const buyTarget = ([lead, days = 0]: number[]) =>
      targetRowsAt(exposures, DEFAULT_POLICY, PRICES, NOW + days * DAY_MS, {}, lead)[0].notionalUsd;
    expect(cases.map(buyTarget)).toEqual(expected);
  },
);

// The report rules of `hedge exposures --report` on hand-made hedges: weeks from the first cover, coverage in the
// exposure's direction, cost to date in whole cents, and the dollar offset shared by signed weight; at LATER,
// Wednesday 11 March 2026, 12:00 UTC (NOW and 9 days 3 hours).
const LATER_DAYS = 9.125;
const LATER = NOW + LATER_DAYS * DAY_MS;
const cover = (side: 'buy' | 'sell', notionalUsd: number, openedAtMs: number, more = {}) => ({
  market: 'USDTNGN',
  side,
  notionalUsd,
  openedAtMs,
  ...more,
});
// Due 20 and 25 days after LATER.
const reportReceivable = receivableOf('R', 100_000, LATER_DAYS + 20);
const reportPayable = payableOf('P', 20_000, LATER_DAYS + 25);

it("the --report rules: coverage per week starts at the Monday of the first cover and takes the current week at now; cost to date sums closed hedges' carry and fees in whole cents, open hedges counting for nothing yet; effectiveness shares the cover P&L by signed weight: a perfect cover offsets 100% of each exposure; marks a cover outside 80–125% and says nothing before the first cover", () => {
  expect(new Date(weekStart(LATER)).toISOString()).toBe('2026-03-09T00:00:00.000Z');
  const hedges = [
    cover('buy', 50_000, LATER - 8 * DAY_MS, { closedAtMs: LATER - DAY_MS }),
    cover('buy', 90_000, LATER - 2 * DAY_MS),
    cover('sell', 10_000, LATER - 2 * DAY_MS),
  ];
  expect(
    coveragePerWeek([reportReceivable, reportPayable], DEFAULT_POLICY, PRICES, hedges, LATER).map((row) => [
      row.week,
      row.at,
      row.exposure_usd,
      row.hedged_usd,
      row.coverage_pct,
    ]),
  ).toEqual([
    // The week of 2 March ends on Monday 9 March: the first buy alone was held then.
    ['2026-03-02', '2026-03-09T00:00:00.000Z', 80_000, 50_000, 62.5],
    // Now: 90,000 buy − 10,000 sell, netted against 100,000 − 20,000 of exposure.
    ['2026-03-09', new Date(LATER).toISOString(), 80_000, 80_000, 100],
  ]);
  expect(
    coveragePerWeek([reportReceivable, reportPayable], { ...DEFAULT_POLICY, netting: false }, PRICES, hedges, LATER).at(
      -1,
    ),
  ).toMatchObject({ exposure_usd: 120_000, hedged_usd: 100_000 });

  const closing = [
    cover('buy', 1, 0, { closedAtMs: 1, carryUsd: 0.1, feesUsd: 0.2 }),
    cover('buy', 1, 0, { closedAtMs: 1, carryUsd: -0.07, feesUsd: 5 }),
    cover('buy', 1, 0, { carryUsd: 100 }),
  ];
  expect(costToDate(['USDTNGN'], closing)).toEqual([
    { market: 'USDTNGN', closed_hedges: 2, carry_pnl_usdc: 0.03, fees_pnl_usdc: 5.2, cost_usdc: 5.23 },
  ]);

  // Struck at 1500, now 1650: a buy of the net 80,000 USD gains 80,000 × 150 / 1650.
  const perfect = [cover('buy', 80_000, LATER - DAY_MS, { entryPrice: 1500 })];
  const rows = effectiveness([reportReceivable, reportPayable], DEFAULT_POLICY, { USDTNGN: 1650 }, perfect, LATER);
  expect(
    rows.map((row) => [
      row.id,
      row.cover_side,
      row.exposure_change_usd,
      row.cover_pnl_usd,
      row.offset_pct,
      row.effective,
    ]),
  ).toEqual([
    ['R', 'buy', -9_090.91, 9_090.91, 100, true],
    ['P', 'sell', 1_818.18, -1_818.18, 100, true],
  ]);
  const half = [cover('buy', 50_000, LATER - DAY_MS, { entryPrice: 1500 })];
  const [row] = effectiveness([reportReceivable], DEFAULT_POLICY, { USDTNGN: 1650 }, half, LATER);
  expect(row).toMatchObject({ offset_pct: 50, effective: false });
  const [none] = effectiveness([reportReceivable], DEFAULT_POLICY, PRICES, [], LATER);
  expect(none).toMatchObject({ first_cover_at: null, offset_pct: null, effective: null });
});
