// A relationship's life after designation, on constructed figures: each framework's own line (the bright line ends
// hedge accounting under IAS 39 and ASC 815; IFRS 9 has none), the regression's criteria, the designated share of the
// instrument, and the events (de-designation, occurrence in parts, rebalancing, termination). Every entry balances.
import {
  balanced,
  deskValuer,
  forwardValues,
  periodEntries,
  regression,
  rollForward,
  type PeriodValues,
  type RelationshipRules,
} from '../../src/features/acct/acct-rules.js';
import { centsNumber, exact } from '../../src/features/acct/acct-money.js';

const period = (end: string, instrument: number, hedgedItem: number, excluded = 0): PeriodValues => ({
  end,
  instrument: BigInt(instrument * 100),
  hedgedItem: BigInt(hedgedItem * 100),
  excluded: BigInt(excluded * 100),
  fees: 0n,
});
const base: RelationshipRules = {
  framework: 'ias39',
  method: 'dollar_offset_cumulative',
  excluded: 'pnl',
  kind: 'forecast',
  designatedAt: '2020-01-01',
};
/** Each period's entries as [role, amount] pairs, every entry checked to balance. */
function entries(id: string, result: ReturnType<typeof rollForward>[number], into?: 'basis_adjustment') {
  const lines = periodEntries(id, result, into);
  expect(balanced(lines)).toBe(true);
  return lines.map((line) => [line.role, centsNumber(line.amount)]);
}

describe('the bright line: IAS 39 and ASC 815 end hedge accounting outside 80–125 %; IFRS 9 draws none', () => {
  // 100 % at the first quarter end, then 166.7 % cumulative (2,500 against 1,500), then a later change.
  const periods = [
    period('2020-03-31', 1000, -1000),
    period('2020-06-30', 2500, -1500),
    period('2020-09-30', 2000, -1200),
  ];

  for (const framework of ['ias39', 'asc815'] as const)
    it(`${framework}: the failing period's whole change goes to profit or loss, the reserve stays, later changes too`, () => {
      const rows = rollForward(periods, { ...base, framework });
      expect(rows.map((r) => [r.status, r.effective, r.ineffective, r.undesignated, r.reserve_close])).toEqual([
        ['designated', 1000, 0, 0, 1000],
        ['failed', 0, 0, 1500, 1000],
        ['ended', 0, 0, -500, 1000],
      ]);
      expect(rows[1].line).toContain(
        '166.7 % is outside the line. Hedge accounting ends from 2020-03-31, the last date the test was met',
      );
      expect(rows[1].line).toContain(framework === 'ias39' ? 'IAS 39.101' : 'ASC 815-30-40-1');
      expect(entries('F', rows[1])).toEqual([
        ['hedging_instrument', 1500],
        ['undesignated_derivative', -1500],
      ]);
    });

  it('a negative ratio (−100 %) fails too', () => {
    const rows = rollForward([period('2020-03-31', 1000, 1000)], { ...base, framework: 'asc815' });
    expect(rows[0].status).toBe('failed');
    expect(rows[0].line).toMatch(/^ASC 815 80–125 %: -100.0 % is outside the line/);
    expect(rows[0].reserve_close).toBe(0);
  });

  it('ifrs9: no line; the lower of is deferred every period and the relationship goes on', () => {
    const rows = rollForward(periods, { ...base, framework: 'ifrs9' });
    expect(rows.map((r) => [r.status, r.effective, r.ineffective, r.reserve_close])).toEqual([
      ['designated', 1000, 0, 1000],
      ['designated', 500, 1000, 1500],
      ['designated', -300, -200, 1200],
    ]);
    expect(rows[1].line).toBe(
      'IFRS 9: no pass line; the ratio is a diagnostic of the economic relationship (6.4.1(c)).',
    );
  });

  it('asc815 defers the whole designated change where IAS 39 defers the lower of', () => {
    const over = [period('2020-03-31', 1100, -1000)];
    expect(rollForward(over, { ...base, framework: 'asc815' })[0]).toMatchObject({ effective: 1100, ineffective: 0 });
    expect(rollForward(over, { ...base, framework: 'ias39' })[0]).toMatchObject({ effective: 1000, ineffective: 100 });
  });
});

describe('regression: the instrument’s period changes (y) on the hedged item’s (x), each criterion judged', () => {
  it('too few periods are said, a good fit passes, a poor one fails under IAS 39 and is a diagnostic under IFRS 9', () => {
    // Period changes: the hedged item's −100, −200, −300, −400; the instrument's 100, 201, 299, then 150.
    const periods = [
      period('2020-01-31', 100, -100),
      period('2020-02-29', 301, -300),
      period('2020-03-31', 600, -600),
      period('2020-04-30', 750, -1000),
    ];
    const rows = rollForward(periods, { ...base, method: 'regression' });
    expect(rows.slice(0, 2).map((r) => r.line)).toEqual([
      'IAS 39: regression of the instrument’s period changes on the hedged item’s: 1 period change, fewer than the 3 it needs (or no change in the hedged item): not judged.',
      'IAS 39: regression of the instrument’s period changes on the hedged item’s: 2 period changes, fewer than the 3 it needs (or no change in the hedged item): not judged.',
    ]);
    expect(rows.map((r) => r.status)).toEqual(['designated', 'designated', 'designated', 'failed']);
    expect(rows[2].ratio).toBeCloseTo(0.995, 12);
    const fit = rows[3].regression as NonNullable<ReturnType<typeof regression>>;
    expect([fit.n, fit.slope, fit.intercept]).toEqual([4, expect.closeTo(-0.248, 12), expect.closeTo(125.5, 9)]);
    expect(rows[3].line).toContain(
      'R² ≥ 0.80 not met; slope −0.80 to −1.25 not met; t of the slope significant at 95 % (|t| > 4.303, 2 degrees of freedom) not met: the test fails.',
    );
    expect(rows[3]).toMatchObject({ effective: 0, undesignated: 150, reserve_close: 600 });
    const ifrs = rollForward(periods, { ...base, framework: 'ifrs9', method: 'regression' });
    expect(ifrs.map((r) => r.status)).toEqual(['designated', 'designated', 'designated', 'designated']);
    expect(ifrs[3].line).toMatch(/^IFRS 9 diagnostic: .*not met; IFRS 9 has no pass line/);
  });

  it('a slope inside −0.80 to −1.25 is not enough: R² and t are judged too', () => {
    const fit = regression([
      [-100, 90],
      [-200, 260],
      [-300, 200],
      [-400, 420],
    ])!;
    expect(fit.slope).toBeCloseTo(-0.93, 12);
    expect(fit.criteria.map((c) => [c.criterion.slice(0, 5), c.met])).toEqual([
      ['R² ≥ ', false],
      ['slope', true],
      ['t of ', false],
    ]);
    expect(fit.met).toBe(false);
  });

  it('n, slope, intercept in currency units, R², t and F; a perfect fit meets every criterion', () => {
    const fit = regression([
      [-100, 103.00009],
      [-200, 203.00009],
      [-300, 303.00009],
    ])!;
    expect(fit.intercept).toBeCloseTo(3.00009, 9);
    expect(fit.slope).toBeCloseTo(-1, 12);
    expect(fit.r2).toBeCloseTo(1, 12);
    expect(fit.met).toBe(true);
    const scattered = regression([
      [-100, 110],
      [-200, 190],
      [-300, 300],
      [-400, 380],
    ])!;
    expect(scattered.f).toBeCloseTo(scattered.t * scattered.t, 9);
    expect(scattered.t_critical).toBe(4.303);
    expect(scattered.criteria.map((c) => c.met)).toEqual([true, true, true]);
  });
});

describe('ratio: the designated share of the instrument; the rest is an undesignated derivative', () => {
  it('a 500k forward over a 1m item: ratio 1 and ratio 0.5 give different amounts', () => {
    const periods = [period('2020-03-31', 2000, -4000)];
    const whole = rollForward(periods, { ...base, framework: 'ifrs9' });
    const half = rollForward(periods, { ...base, framework: 'ifrs9', ratio: exact('0.5')! });
    expect([whole[0].effective, whole[0].undesignated]).toEqual([2000, 0]);
    expect([half[0].instrument_change, half[0].effective, half[0].undesignated]).toEqual([1000, 1000, 1000]);
    expect(entries('R', half[0])).toEqual([
      ['hedging_instrument', 2000],
      ['cash_flow_hedge_reserve', -1000],
      ['undesignated_derivative', -1000],
    ]);
  });
});

describe('events: what each posts, on its date', () => {
  const periods = [period('2020-03-31', 100, -100), period('2020-06-30', 150, -150), period('2020-09-30', 120, -120)];
  const ifrs9 = { ...base, framework: 'ifrs9' } as const;

  it('a de-designation keeps the reserve until the transaction, which still releases it', () => {
    const rows = rollForward(periods, {
      ...ifrs9,
      events: [
        { type: 'de-designated', date: '2020-03-31', stillExpected: true, reason: 'risk strategy changed' },
        { type: 'occurred', date: '2020-09-30' },
      ],
    });
    expect(rows.map((r) => [r.status, r.effective, r.undesignated, r.reclassified, r.reserve_close])).toEqual([
      ['de-designated', 100, 0, 0, 100],
      ['ended', 0, 50, 0, 100],
      ['occurred', 0, -30, 100, 0],
    ]);
    expect(rows[0].events).toEqual([{ type: 'de-designated', date: '2020-03-31', reason: 'risk strategy changed' }]);
    expect(entries('D', rows[2])).toEqual([
      ['hedging_instrument', -30],
      ['undesignated_derivative', 30],
      ['cash_flow_hedge_reserve', 100],
      ['reclassification', -100],
    ]);
  });

  it('no longer expected: released at once to reserve_release, never the hedged item’s line or an asset', () => {
    const rows = rollForward(periods, {
      ...ifrs9,
      events: [{ type: 'de-designated', date: '2020-06-30', stillExpected: false, reason: 'order cancelled' }],
    });
    expect(rows[1]).toMatchObject({ reclassified: 150, released_to_pnl: 150, reserve_close: 0 });
    expect(entries('N', rows[1], 'basis_adjustment')).toEqual([
      ['hedging_instrument', 50],
      ['cash_flow_hedge_reserve', -50],
      ['cash_flow_hedge_reserve', 150],
      ['reserve_release', -150],
    ]);
  });

  it('an occurrence in parts: a share, an amount’s share, then what is left', () => {
    const rows = rollForward(
      [period('2020-03-31', 300, -300), period('2020-06-30', 300, -300), period('2020-09-30', 300, -300)],
      {
        ...ifrs9,
        events: [
          { type: 'occurred', date: '2020-03-31', share: exact('0.5')! },
          { type: 'occurred', date: '2020-06-30', share: exact('0.25')! },
          { type: 'occurred', date: '2020-09-30' },
        ],
      },
    );
    expect(rows.map((r) => [r.reclassified, r.reserve_close, r.transaction_remaining])).toEqual([
      [150, 150, 0.5],
      [75, 75, 0.25],
      [75, 0, 0],
    ]);
  });

  it('termination: the derivative off the books against cash; nothing of it changes after', () => {
    const rows = rollForward([...periods, period('2020-12-31', 120, -200)], {
      ...ifrs9,
      events: [
        { type: 'terminated', date: '2020-06-30', reason: 'closed out early' },
        { type: 'occurred', date: '2020-12-31' },
      ],
    });
    expect(rows.map((r) => [r.status, r.settled, r.instrument_carrying, r.undesignated, r.reserve_close])).toEqual([
      ['designated', 0, 100, 0, 100],
      ['terminated', 150, 0, 0, 150],
      ['ended', 0, 0, 0, 150],
      ['occurred', 0, 0, 0, 0],
    ]);
    expect(entries('T', rows[1]).slice(-2)).toEqual([
      ['cash', 150],
      ['hedging_instrument', -150],
    ]);
  });

  it('settled and happened: the relationship ends there, no later period is computed', () => {
    const rows = rollForward(periods, {
      ...ifrs9,
      events: [
        { type: 'settled', date: '2020-06-30' },
        { type: 'occurred', date: '2020-06-30' },
      ],
    });
    expect(rows.map((r) => r.period_end)).toEqual(['2020-03-31', '2020-06-30']);
  });

  it('rebalancing (IFRS 9): the designated share changes from its date, the relationship goes on', () => {
    const rows = rollForward([period('2020-03-31', 100, -100), period('2020-06-30', 300, -200)], {
      ...ifrs9,
      events: [{ type: 'rebalanced', date: '2020-03-31', ratio: exact('0.5')!, reason: 'basis moved' }],
    });
    expect(rows.map((r) => [r.status, r.designated_share, r.instrument_change, r.effective, r.undesignated])).toEqual([
      ['rebalanced', '0.5', 100, 100, 0],
      ['designated', '0.5', 200, 100, 100],
    ]);
  });
});

describe('the excluded part: IFRS 9 defers a forecast item’s cost of hedging; ASC 815 amortises it in earnings', () => {
  // A forecast sale hedged on the spot element: forward points of −300 at inception, all of them spent by maturity.
  const periods = [period('2020-03-31', 1000, -1000, -150), period('2020-06-30', 1500, -1500, -300)];
  const events = [
    { type: 'settled', date: '2020-06-30' },
    { type: 'occurred', date: '2020-06-30' },
  ] as const;
  const plan = { total: -30000n, from: '2020-01-01', to: '2020-06-30', basis: 'months' } as const;

  it('ifrs9 cost_of_hedging_reserve: the points wait in the reserve and go with the transaction', () => {
    const rows = rollForward(periods, { ...base, framework: 'ifrs9', excluded: 'cost_of_hedging_reserve', events });
    expect(rows.map((r) => [r.excluded_to_pnl, r.cost_of_hedging_close, r.cost_of_hedging_reclassified])).toEqual([
      [0, -150, 0],
      [0, 0, -300],
    ]);
  });

  it('asc815 amortised: the points in earnings straight-line by month, none left for the transaction', () => {
    const rows = rollForward(periods, {
      ...base,
      framework: 'asc815',
      excluded: 'amortised',
      amortisation: plan,
      events,
    });
    expect(rows.map((r) => [r.excluded_to_pnl, r.cost_of_hedging_close, r.cost_of_hedging_reclassified])).toEqual([
      [-150, 0, 0],
      [-150, 0, 0],
    ]);
    for (const row of rows) entries('A', row);
  });
});

it('discount_hedged_item: a spot designation’s hedged item and the forward’s spot element, each discounted to the cash-flow date', () => {
  const terms = {
    hedgedAmount: exact('1000000')!,
    notional: exact('1000000')!,
    contractRate: exact('1.10')!,
    designation: 'spot' as const,
  };
  const start = {
    date: '2020-01-01',
    spot: exact('1.12')!,
    forward: exact('1.10')!,
    discountFactor: exact('0.98')!,
    source: 'constructed',
  };
  const at = {
    date: '2020-06-30',
    spot: exact('1.08')!,
    forward: exact('1.07')!,
    discountFactor: exact('0.99')!,
    source: 'constructed',
  };
  const quote = { functionalPerForeign: true };
  const plain = forwardValues(terms, quote, start, at);
  const discounted = forwardValues({ ...terms, discountHedgedItem: true }, quote, start, at);
  // 1,000,000 × (1.08 − 1.12) = −40,000; at a discount factor of 0.99, −39,600.
  expect([centsNumber(plain.hedgedItem), centsNumber(discounted.hedgedItem)]).toEqual([-40000, -39600]);
  // The forward sold gains the same, discounted alike; what it is worth whole does not change, only its split.
  expect([centsNumber(plain.instrument), centsNumber(discounted.instrument)]).toEqual([40000, 39600]);
  expect(discounted.instrument + discounted.excluded).toBe(plain.instrument + plain.excluded);
});

it("the desk's hedges: a closed hedge's price P&L and carry are settled in cash, an open one's are not", () => {
  const x = (text: string) => exact(text)!;
  const hedges = [
    {
      id: 'h1',
      side: 'buy' as const,
      notional: x('1000'),
      entry: x('1.5'),
      openedMs: 0,
      closed: { atMs: 10, gross: x('12.5'), carry: x('-1.25'), fees: x('-0.5') },
    },
    { id: 'h2', side: 'buy' as const, notional: x('1000'), entry: x('1.5'), openedMs: 0 },
  ];
  const value = deskValuer({
    hedges,
    designatedAt: '1970-01-01',
    markOn: (date) => ({ date, spot: x('1.6'), atMs: 20, carry: new Map([['h2', x('-2')]]) }),
    observed: new Map(),
  })('1970-01-01');
  expect(value.unknown).toEqual([]);
  // h1's 12.50 and −1.25, settled in cash; h2 is still held.
  expect(value.settled).toBe(1125n);
  expect(value.settlements.map((each) => each.hedgeId)).toEqual(['h1']);
});
