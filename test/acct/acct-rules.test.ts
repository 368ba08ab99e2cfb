// The accounting rules beyond the published examples: regression statistics, de-designation, exact money.
import {
  criticalTerms,
  criticalTermsLine,
  deskValuer,
  periodEntries,
  regression,
  rollForward,
  type DeskHedge,
  type PeriodValues,
  type RelationshipRules,
} from '../../src/features/acct/acct-rules.js';
import { centsText, exact, exactNumber, mul, toCents } from '../../src/features/acct/acct-money.js';

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
    const results = rollForward(periods, {
      ...base,
      events: [{ type: 'de-designated', date: '2026-02-28', stillExpected: true }],
    });
    expect(results.map((r) => [r.status, r.effective, r.undesignated, r.reserve_close])).toEqual([
      ['designated', 100, 0, 100],
      ['de-designated', 50, 0, 150],
      ['ended', 0, -30, 150],
    ]);
    expect(results.map((r) => r.ratio)).toEqual([1, 1, null]);
  });

  it('no longer expected: the reserve goes to profit or loss at once', () => {
    const results = rollForward(periods, {
      ...base,
      events: [{ type: 'de-designated', date: '2026-02-28', stillExpected: false }],
    });
    expect(results.map((r) => [r.reclassified, r.reserve_close])).toEqual([
      [0, 100],
      [150, 0],
      [0, 0],
    ]);
  });
});

it('critical terms: each term of the instrument against the hedged item, matched or not, with the days apart', () => {
  const item = { amount: exact('-1000000')!, currency: 'EUR', expectedDate: '2027-03-31', market: 'EURUSD' };
  // A forward selling 2,000,000 EUR at a ratio of 0.5 on the day the payment is expected: every term matches.
  const matched = criticalTerms({
    instrument: { amount: exact('2000000')!, currency: 'EUR', maturity: '2027-03-31', market: 'EURUSD' },
    ratio: exact('0.5')!,
    item,
  });
  expect(matched).toEqual({
    amount: { instrument: '1000000.00', hedged_item: '1000000.00', matched: true },
    currency: { instrument: 'EUR', hedged_item: 'EUR', matched: true },
    maturity: { instrument: '2027-03-31', hedged_item: '2027-03-31', days_apart: 0, rule: 'same_day', matched: true },
    underlying: { instrument: 'EURUSD', hedged_item: 'EURUSD', matched: true },
    matched: true,
  });
  // One cent short, in another currency, maturing 10 days before the payment, on another market: none matches.
  const mismatched = criticalTerms({
    instrument: { amount: exact('999999.99')!, currency: 'USD', maturity: '2027-03-21', market: 'USDTNGN' },
    ratio: exact('1')!,
    item,
  });
  expect(mismatched).toMatchObject({
    amount: { instrument: '999999.99', matched: false },
    currency: { instrument: 'USD', matched: false },
    maturity: { days_apart: -10, matched: false },
    underlying: { instrument: 'USDTNGN', matched: false },
    matched: false,
  });
  expect(criticalTermsLine(mismatched)).toBe(
    'amount (notional × ratio) 999999.99 vs 1000000.00 not matched; currency USD vs EUR not matched; maturity 2027-03-21 vs 2027-03-31 (10 days apart) not matched; underlying USDTNGN vs EURUSD not matched',
  );
  // An instrument whose terms are unknown (no hedge open) matches nothing.
  const unknown = criticalTerms({
    instrument: { amount: null, currency: 'EUR', maturity: null, market: null },
    ratio: exact('1')!,
    item,
  });
  expect([unknown.amount.matched, unknown.maturity.days_apart, unknown.underlying.matched]).toEqual([
    false,
    null,
    false,
  ]);
});

it('critical terms under ASC 815: a maturity within one 31-day period or the same fiscal month matches (815-20-25-84), as the relationship documents; IFRS 9 to the day', () => {
  const item = { amount: exact('770000')!, currency: 'EUR', expectedDate: '2019-02-01', market: 'EURUSD' };
  const maturing = (maturity: string, more: Partial<Parameters<typeof criticalTerms>[0]> = {}) =>
    criticalTerms({
      instrument: { amount: exact('770000')!, currency: 'EUR', maturity, market: 'EURUSD' },
      ratio: exact('1')!,
      item,
      framework: 'asc815',
      ...more,
    }).maturity;
  // 20 days after the sale: one 31-day period, the same month — a match whichever the file documents.
  expect(maturing('2019-02-21')).toEqual({
    instrument: '2019-02-21',
    hedged_item: '2019-02-01',
    days_apart: 20,
    within_31_days: true,
    same_fiscal_month: true,
    rule: 'within_31_days or same_fiscal_month',
    matched: true,
  });
  // 30 days after: still one 31-day period (1 February to 3 March, both ends in it); 31 days after: not.
  expect(maturing('2019-03-03').within_31_days).toBe(true);
  expect(maturing('2019-03-04')).toMatchObject({ days_apart: 31, within_31_days: false, matched: false });
  // Two days before, across the month's end: one 31-day period, not the same fiscal month.
  const early = { within_31_days: true, same_fiscal_month: false };
  expect(maturing('2019-01-30', { maturityMatch: 'within_31_days' })).toMatchObject({ ...early, matched: true });
  expect(maturing('2019-01-30', { maturityMatch: 'same_fiscal_month' })).toMatchObject({
    ...early,
    rule: 'same_fiscal_month',
    matched: false,
  });
  // 28 days apart in one month: the same fiscal month, and one 31-day period.
  expect(maturing('2019-02-28', { maturityMatch: 'same_fiscal_month' }).matched).toBe(true);
  // IFRS 9 and IAS 39: to the day, the days apart said.
  expect(maturing('2019-02-21', { framework: 'ifrs9' })).toEqual({
    instrument: '2019-02-21',
    hedged_item: '2019-02-01',
    days_apart: 20,
    rule: 'same_day',
    matched: false,
  });
});

describe('exact to the cent, rounded once', () => {
  it('three desk hedges of 0.004 gross each are 0.012 together: an instrument of 0.01, not three zeros', () => {
    const hedges: DeskHedge[] = ['a', 'b', 'c'].map((id) => ({
      id,
      side: 'buy',
      notional: exact('1000')!,
      entry: exact('1500')!,
      openedMs: 0,
      closed: { atMs: 1, gross: exactNumber(0.004), carry: exact('0')!, fees: exact('0')! },
    }));
    const value = deskValuer({
      hedges,
      designatedAt: '1970-01-01',
      markOn: (date) => ({ date, spot: exact('1500')!, atMs: 2, carry: new Map() }),
      observed: new Map(),
    })('1970-01-01');
    expect(toCents(value.instrument)).toBe(1n);
    // Settled on their days, each the cents the running total reaches: together the total rounded once.
    expect(value.settlements.map((each) => each.gross)).toEqual([0n, 1n, 0n]);
  });

  it('an entry of 90,071,992,547,409.91 (2^53 − 1 cents) posts those cents, never through a floating-point number; one cent more is refused, never printed short of its cents', () => {
    const rules: RelationshipRules = {
      framework: 'asc815',
      method: 'dollar_offset_cumulative',
      excluded: 'pnl',
      kind: 'forecast',
      designatedAt: '2026-01-01',
    };
    const at = (cents: bigint): PeriodValues[] => [
      { end: '2026-01-31', instrument: cents, hedgedItem: -cents, excluded: 0n, fees: 0n },
    ];
    const [result] = rollForward(at(9007199254740991n), rules);
    expect(result.effective).toBe(90071992547409.91);
    const lines = periodEntries('BIG', result);
    expect(lines.map((line) => [line.role, centsText(line.amount)])).toEqual([
      ['hedging_instrument', '90071992547409.91'],
      ['cash_flow_hedge_reserve', '-90071992547409.91'],
    ]);
    expect(() => rollForward(at(9007199254740992n), rules)).toThrow(
      '90071992547409.92 is past the largest amount hedge prints exactly (90071992547409.91)',
    );
  });
});
