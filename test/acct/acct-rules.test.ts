// The accounting rules beyond the published examples: regression statistics, de-designation, exact money.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  FRAMEWORK_RULES,
  FRAMEWORKS,
  HEDGE_TYPES,
  ruleOf,
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
import { ROOT } from '../support/hedge-cli.js';

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

describe('a fair-value hedge of a recognised payable: its adjustment beyond the remeasurement at spot, amortised once hedge accounting ends', () => {
  // Cents. A USD payable hedged by a forward designated whole: the payable's change for the hedged risk (by the
  // forward rate) is H, its remeasurement at spot R (IAS 21's, posted as it always is); the adjustment carries H − R.
  const periods: PeriodValues[] = [
    { end: '2026-01-31', instrument: 110_000n, hedgedItem: -110_000n, remeasured: -90_000n, excluded: 0n, fees: 0n },
    { end: '2026-02-28', instrument: 120_000n, hedgedItem: -120_000n, remeasured: -105_000n, excluded: 0n, fees: 0n },
    { end: '2026-03-02', instrument: 130_000n, hedgedItem: -130_000n, remeasured: -125_000n, excluded: 0n, fees: 0n },
  ];
  const results = rollForward(periods, {
    framework: 'ifrs9',
    type: 'fair_value',
    method: 'dollar_offset_cumulative',
    excluded: 'pnl',
    kind: 'recognised',
    designatedAt: '2026-01-01',
    itemDate: '2026-03-02',
    events: [
      { type: 'de-designated', date: '2026-01-31', stillExpected: true, reason: 'the treasurer stopped it' },
      { type: 'occurred', date: '2026-03-02' },
      { type: 'settled', date: '2026-03-02' },
    ],
  });

  it('each period: H − R = −1,100 + 900 to the adjustment, none ineffective; then 200 × 28/30 and the rest to profit or loss', () => {
    expect(
      results.map((r) => [r.status, r.effective, r.ineffective, r.remeasured, r.reclassified, r.reserve_close]),
    ).toEqual([
      ['de-designated', 200, 0, -900, 0, 200],
      // 200 × 28 / 30 = 186.666… days of the 30 from the de-designation to the payable's settlement.
      ['ended', 0, 0, -150, 186.67, 13.33],
      ['occurred', 0, 0, -200, 13.33, 0],
    ]);
    const lines = (i: number) => periodEntries('P', results[i]).map((line) => [line.role, Number(line.amount) / 100]);
    // The instrument's change and the payable's both to profit or loss, in one line and IAS 21's: nothing left.
    expect(lines(0)).toEqual([
      ['hedging_instrument', 1100],
      ['fair_value_hedge_result', -1100],
      ['fair_value_hedge_result', 200],
      ['hedged_item_adjustment', -200],
      ['hedged_item', -900],
      ['hedged_item_remeasurement', 900],
    ]);
    expect(lines(1)).toEqual([
      ['hedging_instrument', 100],
      ['undesignated_derivative', -100],
      ['hedged_item', -150],
      ['hedged_item_remeasurement', 150],
      ['hedged_item_adjustment', 186.67],
      ['reclassification', -186.67],
    ]);
  });
});

describe('a net-investment hedge: the lower of under IFRS 9, the whole change under ASC 815, reclassified only on disposal', () => {
  const periods = (instrument: bigint, item: bigint): PeriodValues[] => [
    { end: '2026-01-31', instrument, hedgedItem: item, excluded: 0n, fees: 0n },
    { end: '2026-02-28', instrument: 2n * instrument, hedgedItem: 2n * item, excluded: 0n, fees: 0n },
  ];
  const rules = (framework: RelationshipRules['framework']): RelationshipRules => ({
    framework,
    type: 'net_investment',
    method: 'dollar_offset_cumulative',
    excluded: 'pnl',
    kind: 'net_investment',
    designatedAt: '2026-01-01',
    events: [{ type: 'disposed', date: '2026-02-28', share: [1n, 4n] }],
  });
  const figures = (list: ReturnType<typeof rollForward>) =>
    list.map((r) => [r.status, r.effective, r.ineffective, r.reclassified, r.reserve_close]);

  it('under-hedged (80 against 100): all of it to the translation reserve either way; a quarter reclassified', () => {
    for (const framework of ['ifrs9', 'asc815'] as const)
      expect(figures(rollForward(periods(8_000n, -10_000n), rules(framework)))).toEqual([
        ['designated', 80, 0, 0, 80],
        ['disposed', 80, 0, 40, 120],
      ]);
  });

  it('over-hedged (120 against 100): IFRS 9 defers 100 and takes 20 to profit or loss; ASC 815 defers 120', () => {
    expect(figures(rollForward(periods(12_000n, -10_000n), rules('ifrs9')))).toEqual([
      ['designated', 100, 20, 0, 100],
      ['disposed', 100, 20, 50, 150],
    ]);
    expect(figures(rollForward(periods(12_000n, -10_000n), rules('asc815')))).toEqual([
      ['designated', 120, 0, 0, 120],
      ['disposed', 120, 0, 60, 180],
    ]);
    const entries = periodEntries('N', rollForward(periods(12_000n, -10_000n), rules('ifrs9'))[1]);
    expect(entries.map((line) => [line.role, Number(line.amount) / 100])).toEqual([
      ['hedging_instrument', 120],
      ['translation_reserve', -100],
      ['hedge_ineffectiveness', -20],
      ['translation_reserve', 50],
      ['reclassification', -50],
    ]);
  });
});

it("the rules table: a row for each framework and kind of hedge, each paragraph it cites in docs/accounting.md's row", () => {
  const docs = readFileSync(join(ROOT, 'docs', 'accounting.md'), 'utf8');
  for (const framework of FRAMEWORKS)
    for (const type of HEDGE_TYPES) {
      const rules = ruleOf(framework, type);
      const row = docs.split('\n').find((line) => line.startsWith(`| ${rules.name} | \`${type}\` |`));
      expect(row, `${framework} ${type}`).toBeDefined();
      expect(row).toContain(`\`${rules.balance}\``);
      const cited = [rules.cites.effective, rules.cites.transaction, rules.cites.discontinuation, rules.cites.disposal];
      for (const cite of cited.filter((each) => each !== undefined && !each.startsWith('none')))
        expect(row!.split(' | ').at(-1), `${framework} ${type}: ${cite}`).toContain(
          cite!.replace(/^(IFRS 9 |IAS 39\.|ASC )/, ''),
        );
      expect(FRAMEWORK_RULES[framework].types[type]).toBeDefined();
    }
});

it('de-designation by choice: each framework’s rule in the table, its paragraphs in docs/accounting.md’s row', () => {
  const docs = readFileSync(join(ROOT, 'docs', 'accounting.md'), 'utf8');
  const row = docs.split('\n').find((line) => line.startsWith('| de-designation by choice |'))!;
  const cells = row.split(' | ').slice(1);
  FRAMEWORKS.forEach((framework, index) => {
    const rules = FRAMEWORK_RULES[framework];
    expect(cells[index].startsWith(rules.voluntaryDiscontinuation ? 'allowed' : 'refused'), framework).toBe(true);
    expect(cells[index]).toContain(rules.cites.voluntary.replace(/^(IFRS 9 |IAS 39\.|ASC )/, ''));
  });
});
