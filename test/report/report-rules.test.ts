import type { HistoryFacts } from '../../src/core/wire.js';
import {
  REPORT_GROUPINGS,
  type ReportGrouping,
  type Report,
  isoWeekKey,
  parseReportDate,
  reportPeriodProblem,
} from '../../src/features/report/report-rules.js';
import { toCents } from '../../src/core/money.js';
import { randomStream } from '../support/random-stream.js';
import { buildReport } from '../support/report.js';

function generate(count: number, seed: number) {
  const random = randomStream(seed);
  const below = (limit: number) => Math.floor(random() * limit);
  /**
   * Each money figure is an exact number of cents written the awkward ways money arrives as floats:
   * a sum of two tenths-and-hundredths (0.1 + 0.2 = 0.30000000000000004), a quotient, or a value with
   * a sub-cent tail that rounds to the intended cent. The intended cents are kept alongside.
   */
  const awkward = (cents: number) => {
    const style = below(3);
    if (style === 0) {
      const part = below(1000) - 500;
      return part / 100 + (cents - part) / 100;
    }
    if (style === 1) return (cents * 3) / 300;
    return cents / 100 + (random() < 0.5 ? 0.001 : -0.004);
  };
  const records: HistoryFacts[] = [];
  const netCents: number[] = [];
  for (let index = 0; index < count; index += 1) {
    const gross = below(400_000) - 200_000;
    // Carry and fees on the account's side, as the facts are read (- paid): net = gross + carry + fees.
    const carry = 5_000 - below(20_000);
    const fees = -below(3_000);
    const net = gross + carry + fees;
    netCents.push(net);
    records.push({
      hedgeId: `hdg_${index}`,
      market: ['USDTNGN', 'USDTKES', 'USDTGHS'][index % 3],
      side: random() < 0.5 ? 'buy' : 'sell',
      tenorDays: [1, 3, 7][index % 3],
      notionalUsd: awkward(below(5_000_000) + 100),
      grossPnlUsd: awkward(gross),
      carryUsd: awkward(carry),
      feesUsd: awkward(fees),
      netPnlUsd: awkward(net),
      closedAt: new Date(Date.UTC(2026, 9, 20) + below(120 * 86_400_000)).toISOString(),
    });
  }
  return { records, netCents };
}

const cents = (value: number | null) => Math.round((value ?? 0) * 100);
const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);

function expectGroupsSumToTotals(report: Report) {
  for (const figure of [
    'count',
    'notional_usd',
    'gross_pnl_usd',
    'carry_pnl_usdc',
    'fees_pnl_usdc',
    'net_pnl_usd',
  ] as const) {
    expect(sum(report.groups.map((group) => cents(group[figure]))), figure).toBe(cents(report.totals[figure]));
  }
}

describe('reconciliation to the cent', () => {
  const { records, netCents } = generate(200, 18);
  const exactNet = sum(netCents) / 100;

  it('uses a set where adding the floats does not give the cents', () => {
    expect(sum(records.map((record) => record.netPnlUsd))).not.toBe(exactNet);
    expect([0.1 + 0.2, 1.005, -2.675, -0.004].map(toCents)).toEqual([30, 101, -268, 0]);
  });

  // A month's closes (--since inclusive, --until exclusive), with the intended cents of each.
  const [since, until] = ['2026-11', '2026-12'];
  const inPeriod = netCents.filter((_, index) => records[index].closedAt! >= since && records[index].closedAt! < until);

  it.each(REPORT_GROUPINGS)(
    "--by %s: groups sum exactly to the totals, and the totals to the records' net P&L, over all and inside a period",
    (by) => {
      const report = grouped(records, by);
      expect([
        report.excluded,
        report.totals.count,
        report.totals.net_pnl_usd,
        report.cumulative.at(-1)!.net_pnl_usd,
      ]).toEqual([0, 200, exactNet, exactNet]);
      expectGroupsSumToTotals(report);
      const period = grouped(records, by, new Date(since), new Date(until));
      expect([period.totals.count, period.totals.net_pnl_usd]).toEqual([inPeriod.length, sum(inPeriod) / 100]);
      expectGroupsSumToTotals(period);
    },
  );
});

/** The report of closed `records` (no open positions) grouped `by`. */
const grouped = (records: HistoryFacts[], by: ReportGrouping, since?: Date, until?: Date) =>
  buildReport(records, [], { by, since, until });
const keysAndCounts = (report: Report) => report.groups.map((group) => [group.key, group.count]);

// --since inclusive and --until exclusive on the close time, either bound alone: test/report/report.test.ts ("--since (inclusive) and --until (exclusive)").
it('the period is in the report as given: since and until, null when not given', () => {
  const [since, until] = ['2026-11-01T00:00:00.000Z', '2026-11-08T00:00:00.000Z'];
  const report = grouped([], 'day', new Date(since), new Date(until));
  const none = grouped([], 'day');
  expect([report.since, report.until, none.since, none.until]).toEqual([since, until, null, null]);
});

it('time groups (UTC): ISO weeks: Sunday closes week 47, Monday opens week 48; across the year boundary 2026 has a week 53 that holds 2027-01-01; groups sorted by key, whatever order they came in; days and months are UTC whatever offset the close time was written with', () => {
  const closes = (by: ReportGrouping, ...isos: string[]) =>
    grouped(
      isos.map((closedAt) => ({ netPnlUsd: 1, closedAt })),
      by,
    );
  const report = closes('week', '2026-11-22T23:59:59.999Z', '2026-11-23T00:00:00.000Z', '2026-11-16T00:00:00.000Z');
  expect([keysAndCounts(report), report.groups[0].label]).toEqual([
    [
      ['2026-W47', 2],
      ['2026-W48', 1],
    ],
    '2026-W47',
  ]);
  expect([
    keysAndCounts(
      closes(
        'week',
        '2026-12-31T12:00:00Z',
        '2027-01-01T00:00:00Z',
        '2027-01-03T23:59:59Z',
        '2027-01-04T00:00:00Z',
        '2025-12-29T00:00:00Z',
        '2025-12-28T23:00:00Z',
      ),
    ),
    [isoWeekKey(Date.parse('2021-01-03T00:00:00Z')), isoWeekKey(Date.parse('2024-12-30T00:00:00Z'))],
  ]).toEqual([
    [
      ['2025-W52', 1],
      ['2026-W01', 1],
      ['2026-W53', 3],
      ['2027-W01', 1],
    ],
    ['2020-W53', '2025-W01'],
  ]);
  const offset = '2026-11-30T23:30:00-05:00';
  expect([keysAndCounts(closes('day', offset)), keysAndCounts(closes('month', offset))]).toEqual([
    [['2026-12-01', 1]],
    [['2026-12', 1]],
  ]);
});

it('records without a usable close time are excluded (and counted) when grouping by time or when a period is given, an unparseable close time counting as none; kept otherwise, in the totals but not in the cumulative series', () => {
  const records: HistoryFacts[] = [
    { netPnlUsd: 5, side: 'buy', closedAt: '2026-11-02T00:00:00Z' },
    { netPnlUsd: 7, side: 'sell' },
  ];
  for (const by of ['day', 'week', 'month'] as const)
    expect(grouped(records, by), by).toMatchObject({ excluded: 1, totals: { net_pnl_usd: 5 } });
  expect(grouped(records, 'side', new Date('2026-01-01T00:00:00Z'))).toMatchObject({
    excluded: 1,
    totals: { count: 1 },
  });
  // An unparseable close time counts as none.
  const unparseable = grouped([{ netPnlUsd: 1, closedAt: 'soon' }], 'day');
  expect([unparseable.excluded, unparseable.groups]).toEqual([1, []]);
  // Kept otherwise.
  const report = grouped(records, 'side');
  expect([report.excluded, report.undated, report.totals.net_pnl_usd, report.cumulative]).toEqual([
    0,
    1,
    12,
    [{ at: '2026-11-02T00:00:00.000Z', net_pnl_usd: 5 }],
  ]);
});

it('groups by side: buy, sell, then the unknown group; by tenor: by number of days, labelled in days; by market', () => {
  const records: HistoryFacts[] = [
    { netPnlUsd: 1, side: 'sell', tenorDays: 14, market: 'USDTKES' },
    { netPnlUsd: 2, side: 'buy', tenorDays: 3, market: 'USDTNGN' },
    { netPnlUsd: 4, tenorDays: 1 },
    { netPnlUsd: 8, side: 'buy', tenorDays: 7, market: 'USDTGHS' },
    { netPnlUsd: 16, side: 'sell' },
  ];
  expect(grouped(records, 'side').groups.map((group) => [group.key, group.label, group.net_pnl_usd])).toEqual([
    ['buy', 'buy', 10],
    ['sell', 'sell', 17],
    ['unknown', 'Unknown', 4],
  ]);
  expect(grouped(records, 'tenor').groups.map((group) => [group.key, group.label])).toEqual([
    ['1', '1 day'],
    ['3', '3 days'],
    ['7', '7 days'],
    ['14', '14 days'],
    ['unknown', 'Unknown'],
  ]);
  expect(keysAndCounts(grouped(records, 'market'))).toEqual([
    ['USDTGHS', 1],
    ['USDTKES', 1],
    ['USDTNGN', 1],
    ['unknown', 2],
  ]);
});

it('groups by deal reference (--by ref): a deal is every closed hedge that carried its reference, across its rolls; records without one last, under their own label', () => {
  const records: HistoryFacts[] = [
    { netPnlUsd: -1.25, hedgeId: 'hdg_3', clientReference: 'DEAL-7', notionalUsd: 1000 },
    { netPnlUsd: 2, hedgeId: 'hdg_9', notionalUsd: 500 },
    { netPnlUsd: 0.5, hedgeId: 'hdg_2', clientReference: 'DEAL-7', notionalUsd: 1000 },
    // A deal may well be called "unknown": it is a deal, not the records without a reference.
    { netPnlUsd: 4, hedgeId: 'hdg_4', clientReference: 'unknown', notionalUsd: 200 },
    { netPnlUsd: -0.1, hedgeId: 'hdg_1', clientReference: 'DEAL-7', notionalUsd: 1000 },
  ];
  const report = grouped(records, 'ref');
  expect([
    report.groups.map((group) => [group.key, group.label, group.count, group.notional_usd, group.net_pnl_usd]),
    report.totals.net_pnl_usd,
  ]).toEqual([
    [
      ['DEAL-7', 'DEAL-7', 3, 3000, -0.85],
      ['unknown', 'unknown', 1, 200, 4],
      ['', 'No reference', 1, 500, 2],
    ],
    5.15,
  ]);
});

it('figures a record does not give are unknown, not 0: a group where no record gives carry shows null carry; a partial one sums what is given; the records that leave each figure out are counted; totals are null when no record gives the figure', () => {
  const records: HistoryFacts[] = [
    { netPnlUsd: -1.5, side: 'buy', grossPnlUsd: 1, feesUsd: 2.5, notionalUsd: 1000 },
    { netPnlUsd: 3, side: 'buy', grossPnlUsd: 4, carryUsd: 1, notionalUsd: 2000 },
    { netPnlUsd: 0.25, side: 'sell', grossPnlUsd: 0.25, notionalUsd: 500 },
  ];
  const report = grouped(records, 'side');
  const [buy, sell] = report.groups;
  expect([buy, [sell.carry_pnl_usdc, sell.fees_pnl_usdc, report.totals.carry_pnl_usdc]]).toEqual([
    {
      key: 'buy',
      label: 'buy',
      count: 2,
      notional_usd: 3000,
      gross_pnl_usd: 5,
      carry_pnl_usdc: 1,
      fees_pnl_usdc: 2.5,
      net_pnl_usd: 1.5,
    },
    [null, null, 1],
  ]);
  expect(report.missing).toEqual({ notional_usd: 0, gross_pnl_usd: 0, carry_pnl_usdc: 2, fees_pnl_usdc: 2 });
  expect(grouped([{ netPnlUsd: 1 }, { netPnlUsd: 2 }], 'side').totals).toEqual({
    count: 2,
    notional_usd: null,
    gross_pnl_usd: null,
    carry_pnl_usdc: null,
    fees_pnl_usdc: null,
    net_pnl_usd: 3,
  });
});

it('unrealized P&L of open positions: is summed to the cent on its own line; 0 with nothing open and null when no position says', () => {
  const reports = [[{ netPnlUsd: 0.1 }, { netPnlUsd: 0.2 }], [], [{}]].map((open) =>
    buildReport([], open, { by: 'day' }),
  );
  expect(reports.map((report) => [report.unrealized, report.totals.net_pnl_usd])).toEqual([
    [{ positions: 2, net_pnl_usd: 0.3 }, 0],
    [{ positions: 0, net_pnl_usd: 0 }, 0],
    [{ positions: 1, net_pnl_usd: null }, 0],
  ]);
});

it('cumulative net P&L: runs in close-time order and merges closes at the same instant', () => {
  expect(
    grouped(
      [
        { netPnlUsd: 0.2, hedgeId: 'b', closedAt: '2026-11-03T00:00:00Z' },
        { netPnlUsd: 0.1, closedAt: '2026-11-01T00:00:00Z' },
        { netPnlUsd: -1, hedgeId: 'a', closedAt: '2026-11-03T00:00:00Z' },
      ],
      'day',
    ).cumulative,
  ).toEqual([
    { at: '2026-11-01T00:00:00.000Z', net_pnl_usd: 0.1 },
    { at: '2026-11-03T00:00:00.000Z', net_pnl_usd: -0.7 },
  ]);
});

describe('parseReportDate', () => {
  const now = new Date('2026-03-31T12:34:56.000Z');
  const parsed = (text: string) => {
    const result = parseReportDate(text, now);
    if (typeof result === 'string') throw new Error(result);
    return result.toISOString();
  };

  it('reads a date as midnight UTC and a timestamp as written (UTC when it has no zone); days, weeks and calendar months ago from the injected now; refuses a bare m (minutes in hedge journal) naming the month form, and anything else with a message naming the allowed forms', () => {
    for (const [text, iso] of [
      ['2026-11-01', '2026-11-01T00:00:00.000Z'],
      [' 2026-11-01T08:30:00Z ', '2026-11-01T08:30:00.000Z'],
      ['2026-11-01T08:30', '2026-11-01T08:30:00.000Z'],
      ['2026-11-01T09:30:00.250+01:00', '2026-11-01T08:30:00.250Z'],
    ])
      expect(parsed(text), text).toBe(iso);
    expect('7d 0d 2W 1mo 3MO 14mo'.split(' ').map(parsed)).toEqual(
      '2026-03-24T12:34:56.000Z 2026-03-31T12:34:56.000Z 2026-03-17T12:34:56.000Z 2026-02-28T12:34:56.000Z 2025-12-31T12:34:56.000Z 2025-01-31T12:34:56.000Z'.split(
        ' ',
      ),
    );
    for (const [text, count] of [
      ['1m', '1'],
      [' 30M ', '30'],
    ])
      expect(parseReportDate(text, now), text).toBe(
        `"${text.trim()}" is ambiguous here: write ${count}mo for a month (m is minutes in hedge journal).`,
      );
    for (const text of ['', ...'yesterday 2026-02-30 2026-13-01 2026-11-01T24:00 7x -7d 1.5d 2026/11/01'.split(' ')]) {
      expect(parseReportDate(text, now), text).toBe(
        `"${text}" is not allowed; expected a date (2026-11-01, midnight UTC), an ISO 8601 timestamp ` +
          '(2026-11-01T08:00:00Z; UTC when no zone is given) or a time ago (7d, 2w, 1mo: days, weeks, calendar months).',
      );
    }
  });

  it('a period that holds nothing is named', () => {
    const day = new Date('2026-11-01T00:00:00Z');
    expect([
      reportPeriodProblem(day, day),
      [reportPeriodProblem(day, new Date('2026-11-02T00:00:00Z')), reportPeriodProblem(undefined, day)],
    ]).toEqual([
      '--since (2026-11-01T00:00:00.000Z) must be before --until (2026-11-01T00:00:00.000Z); --until is exclusive.',
      [undefined, undefined],
    ]);
  });
});
