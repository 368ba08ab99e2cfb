// The pure rules of `hedge maturities`: which hedges are settlements to come (from the positions list
// and the hedges list together), --within, their order and their grouping by UTC day. How --within is
// read is the duration grammar's (watch-alerts.test.ts, test/cli/durations.test.ts).
import { collectMaturities, groupByDay, type MaturityPosition } from '../../src/features/book/maturities.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const NOW = Date.parse('2026-03-02T09:00:00.000Z');
const at = (ms: number) => new Date(NOW + ms).toISOString();

function hedge(id: string, side: 'buy' | 'sell', notional: number, maturesInMs: number, extra = {}) {
  return {
    id,
    market: 'USDTNGN',
    side,
    notional_usd: notional,
    tenor_days: 7,
    status: 'filled',
    maturity_at: at(maturesInMs),
    ...extra,
  };
}

const positions: MaturityPosition[] = [
  {
    market: 'USDTNGN',
    side: 'buy',
    hedgeId: 'hdg_b',
    notionalUsd: 10_000,
    markPrice: 1520.5,
    netPnlUsd: -12.34,
    accruedCarryUsdc: 1.5,
  },
  {
    market: 'USDTNGN',
    side: 'sell',
    hedgeId: 'hdg_s',
    notionalUsd: 5_000,
    markPrice: 1520.5,
    netPnlUsd: 3.21,
    accruedCarryUsdc: -0.4,
  },
];

it('collectMaturities: --within keeps what matures no later than that (a due one included); leaves out hedges that are not open: failed, closed, or filled but no longer in the positions list', () => {
  const hedges = [hedge('hdg_b', 'buy', 10_000, -5 * 60_000), hedge('hdg_s', 'sell', 5_000, 3 * DAY)];
  const { maturities } = collectMaturities(positions, hedges, NOW, 2 * DAY);
  expect(maturities.map((item) => [item.hedge_id, item.matures_in_seconds])).toEqual([['hdg_b', -300]]);
  expect(collectMaturities(positions, hedges, NOW, 3 * DAY).maturities.map((item) => item.hedge_id)).toEqual([
    'hdg_b',
    'hdg_s',
  ]);
  expect(
    collectMaturities(
      [positions[0]],
      [
        hedge('hdg_b', 'buy', 10_000, DAY),
        hedge('hdg_f', 'buy', 1_000, DAY, { status: 'failed' }),
        hedge('hdg_c', 'buy', 1_000, DAY, { status: 'closed' }),
        hedge('hdg_gone', 'sell', 2_000, DAY, { market: 'USDTKES' }),
      ],
      NOW,
    ).maturities.map((item) => item.hedge_id),
  ).toEqual(['hdg_b']);
});

it('collectMaturities: a filled hedge the book holds on a side the positions list does not show yet is listed all the same, without the figures only a line gives', () => {
  const unlisted = [
    hedge('hdg_new', 'sell', 2_000, DAY, { tenor_days: 1, client_reference: 'DEAL-9' }),
    hedge('hdg_opening', 'sell', 1_000, DAY, { status: 'submitted' }),
  ];
  const { maturities, undated } = collectMaturities(
    [positions[0]],
    [hedge('hdg_b', 'buy', 10_000, 2 * DAY)],
    NOW,
    undefined,
    unlisted,
  );
  expect(undated).toBe(0);
  expect(
    maturities.map((item) => [
      item.hedge_id,
      item.side,
      item.client_reference,
      item.notional_usd,
      item.mark_price,
      item.net_pnl_usd,
    ]),
  ).toEqual([
    ['hdg_new', 'sell', 'DEAL-9', 2_000, null, null],
    ['hdg_b', 'buy', null, 10_000, 1520.5, -12.34],
  ]);
});

it('collectMaturities: a position whose hedge is not in the list stands on its own; one without a readable maturity is counted, not listed; a position without a market is the account’s only market', () => {
  const lines: MaturityPosition[] = [
    { market: 'USDTNGN', side: 'buy', hedgeId: 'hdg_x', notionalUsd: 7_000, maturityAt: at(2 * DAY), netPnlUsd: 1 },
    { market: 'USDTNGN', side: 'sell', notionalUsd: 3_000 },
  ];
  const { maturities, undated } = collectMaturities(lines, [], NOW);
  expect(undated).toBe(1);
  expect(maturities).toMatchObject([
    {
      hedge_id: 'hdg_x',
      side: 'buy',
      notional_usd: 7_000,
      tenor_days: null,
      net_pnl_usd: 1,
      accrued_carry_usdc: null,
      day: '2026-03-04',
    },
  ]);
  expect(
    collectMaturities([{ side: 'buy', notionalUsd: 10_000, netPnlUsd: 4 }], [hedge('hdg_b', 'buy', 10_000, DAY)], NOW)
      .maturities,
  ).toMatchObject([{ hedge_id: 'hdg_b', net_pnl_usd: 4 }]);
});

it("collectMaturities: a line whose hedge is listed in a status other than filled (a close landing: gamma's settling) keeps that hedge's reference and tenor", () => {
  const lines: MaturityPosition[] = [
    {
      market: 'USDTKES',
      side: 'buy',
      hedgeId: 'hdg_s',
      notionalUsd: 1_000,
      maturityAt: at(2 * DAY),
      netPnlUsd: -0.29,
    },
  ];
  const { maturities } = collectMaturities(
    lines,
    [
      {
        ...hedge('hdg_s', 'buy', 1_000, 2 * DAY, { status: 'settling', client_reference: 'g-1' }),
        market: 'USDTKES',
      },
    ],
    NOW,
  );
  expect(maturities).toMatchObject([
    { hedge_id: 'hdg_s', client_reference: 'g-1', tenor_days: 7, notional_usd: 1_000, net_pnl_usd: -0.29 },
  ]);
});

it('groupByDay: groups by UTC day in order, with each day’s notional; no settlements, no days', () => {
  const positions: MaturityPosition[] = [{ market: 'USDTNGN', side: 'buy', notionalUsd: 30_000.5 }];
  expect(
    groupByDay(
      collectMaturities(
        positions,
        [
          hedge('a', 'buy', 10_000.25, 15 * HOUR),
          hedge('b', 'buy', 20_000.25, 14 * HOUR + 59 * 60_000),
          hedge('c', 'buy', 1, 2 * DAY),
        ],
        NOW,
      ).maturities,
    ).map((day) => [day.day, day.maturities.map((item) => item.hedge_id), day.notional_usd]),
  ).toEqual([
    ['2026-03-02', ['b'], 20_000.25],
    ['2026-03-03', ['a'], 10_000.25],
    ['2026-03-04', ['c'], 1],
  ]);
  expect(groupByDay([])).toEqual([]);
});
