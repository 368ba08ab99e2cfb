// The report rules of `hedge exposures --report` (src/features/exposures/exposures-rules.ts) on hand-made
// hedges and a fixed clock: weeks from the first cover, coverage in the exposure's direction, cost
// to date in whole cents, and the dollar offset shared by signed weight.
import { expect, it } from 'vitest';
import {
  costToDate,
  coveragePerWeek,
  effectiveness,
  DEFAULT_POLICY,
} from '../../src/features/exposures/exposures-rules.js';
import { DAY_MS } from '../../src/core/vocabulary.js';
import { weekStart } from '../../src/features/report/report-rules.js';

// Wednesday 11 March 2026, 12:00 UTC.
const NOW = Date.parse('2026-03-11T12:00:00Z');
const PRICES = { USDTNGN: 1500 };
const exposure = (id: string, type: 'receivable' | 'payable', amount: number, dueInDays: number) => ({
  id,
  market: 'USDTNGN',
  type,
  amount,
  currency: 'NGN',
  dueMs: NOW + dueInDays * DAY_MS,
  line: 1,
});
const cover = (side: 'buy' | 'sell', notionalUsd: number, openedAtMs: number, more = {}) => ({
  market: 'USDTNGN',
  side,
  notionalUsd,
  openedAtMs,
  ...more,
});
const receivable = exposure('R', 'receivable', 150_000_000, 20); // 100,000 USD
const payable = exposure('P', 'payable', 30_000_000, 25); // 20,000 USD

it('coverage per week: starts at the Monday of the first cover and takes the current week at now', () => {
  expect(new Date(weekStart(NOW)).toISOString()).toBe('2026-03-09T00:00:00.000Z');
  const hedges = [
    cover('buy', 50_000, NOW - 8 * DAY_MS, { closedAtMs: NOW - DAY_MS }),
    cover('buy', 90_000, NOW - 2 * DAY_MS),
    cover('sell', 10_000, NOW - 2 * DAY_MS),
  ];
  expect(
    coveragePerWeek([receivable, payable], DEFAULT_POLICY, PRICES, hedges, NOW).map((row) => [
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
    ['2026-03-09', new Date(NOW).toISOString(), 80_000, 80_000, 100],
  ]);
  expect(
    coveragePerWeek([receivable, payable], { ...DEFAULT_POLICY, netting: false }, PRICES, hedges, NOW).at(-1),
  ).toMatchObject({ exposure_usd: 120_000, hedged_usd: 100_000 });
});

it("cost to date: sums closed hedges' carry and fees in whole cents; open hedges count for nothing yet", () => {
  const hedges = [
    cover('buy', 1, 0, { closedAtMs: 1, carryUsd: 0.1, feesUsd: 0.2 }),
    cover('buy', 1, 0, { closedAtMs: 1, carryUsd: -0.07, feesUsd: 5 }),
    cover('buy', 1, 0, { carryUsd: 100 }),
  ];
  expect(costToDate(['USDTNGN'], hedges)).toEqual([
    { market: 'USDTNGN', closed_hedges: 2, carry_pnl_usdc: 0.03, fees_pnl_usdc: 5.2, cost_usdc: 5.23 },
  ]);
});

it('effectiveness: shares the cover P&L by signed weight: a perfect cover offsets 100% of each exposure', () => {
  // Struck at 1500, now 1650: a buy of the net 80,000 USD gains 80,000 × 150 / 1650.
  const hedges = [cover('buy', 80_000, NOW - DAY_MS, { entryPrice: 1500 })];
  const rows = effectiveness([receivable, payable], DEFAULT_POLICY, { USDTNGN: 1650 }, hedges, NOW);
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
});

it('effectiveness: marks a cover outside 80–125% and says nothing before the first cover', () => {
  const half = [cover('buy', 50_000, NOW - DAY_MS, { entryPrice: 1500 })];
  const [row] = effectiveness([receivable], DEFAULT_POLICY, { USDTNGN: 1650 }, half, NOW);
  expect(row).toMatchObject({ offset_pct: 50, effective: false });
  const [none] = effectiveness([receivable], DEFAULT_POLICY, PRICES, [], NOW);
  expect(none).toMatchObject({ first_cover_at: null, offset_pct: null, effective: null });
});
