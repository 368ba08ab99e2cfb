// The accounting rules beyond the published examples: regression statistics, de-designation, exact money.
import { regression, rollForward, type PeriodValues } from '../../src/features/acct/acct-rules.js';
import { centsText, exact, mul, toCents } from '../../src/features/acct/acct-money.js';

it('regression: slope, intercept, R² and t of the instrument on the hedged item, worked by hand', () => {
  const fit = regression([
    [-100, 110],
    [-200, 190],
    [-300, 300],
  ])!;
  expect(fit.n).toBe(3);
  expect(fit.slope).toBeCloseTo(-0.95, 12);
  expect(fit.intercept).toBeCloseTo(10, 9);
  expect(fit.r2).toBeCloseTo(361 / 364, 12);
  expect(fit.t).toBeCloseTo(-0.95 / Math.sqrt(0.0075), 9);
  expect(regression([[1, 1]])).toBeNull();
});

it('exact money: products of amounts and rates round once, half away from zero, with no float drift', () => {
  expect(centsText(toCents(mul(exact('0.1')!, exact('0.2')!)))).toBe('0.02');
  expect(centsText(toCents(mul(exact('1200')!, exact('0.98029605')!)))).toBe('1176.36');
  expect(centsText(toCents(exact('-0.005')!))).toBe('-0.01');
  expect(centsText(toCents(mul(exact('770000')!, exact('1.19')!)))).toBe('916300.00');
});

describe('de-designation: prospective, the reserve kept while the transaction is expected', () => {
  const periods: PeriodValues[] = [
    { end: '2026-01-31', instrument: 10_000n, hedgedItem: -10_000n, excluded: 0n, fees: 0n },
    { end: '2026-02-28', instrument: 15_000n, hedgedItem: -15_000n, excluded: 0n, fees: 0n },
    { end: '2026-03-31', instrument: 12_000n, hedgedItem: -12_000n, excluded: 0n, fees: 0n },
  ];
  const base = {
    framework: 'ifrs9',
    method: 'dollar_offset_period',
    excluded: 'pnl',
    kind: 'forecast',
    designatedAt: '2026-01-01',
  } as const;

  it('still expected: the reserve stays, later changes go to profit or loss', () => {
    const results = rollForward(periods, { ...base, deDesignated: { date: '2026-02-28', stillExpected: true } });
    expect(results.map((r) => [r.status, r.effective, r.undesignated, r.reserve_close])).toEqual([
      ['designated', 100, 0, 100],
      ['de-designated', 50, 0, 150],
      ['ended', 0, -30, 150],
    ]);
    expect(results.map((r) => r.ratio)).toEqual([1, 1, null]);
  });

  it('no longer expected: the reserve goes to profit or loss at once', () => {
    const results = rollForward(periods, { ...base, deDesignated: { date: '2026-02-28', stillExpected: false } });
    expect(results.map((r) => [r.reclassified, r.reserve_close])).toEqual([
      [0, 100],
      [150, 0],
      [0, 0],
    ]);
  });
});
