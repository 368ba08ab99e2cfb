// `hedge acct event` from the command line, on the textbook forward (docs/examples): what each event posts in its
// period, the reserve released after a de-designation, to profit or loss when the transaction is no longer expected,
// in parts, the instrument's changes and settlement after an event, no rate asked once a relationship has ended, and
// what each framework's table refuses. Every entry balances.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hedgeIn, tempFolders, ROOT } from '../support/hedge-cli.js';
import { exits, ok, okJson } from '../support/cli-runs.js';

const folder = tempFolders('hedge-acct-events-');
const TODAY = '2026-03-02';
const clock = { now: () => Date.parse(`${TODAY}T12:00:00Z`), sleep: async () => {} };
const EXAMPLE = JSON.parse(readFileSync(join(ROOT, 'docs', 'examples', 'relationship.json'), 'utf8'));
const RATES = join(ROOT, 'docs', 'examples', 'rates-eurusd.csv');
const LATE = ['--recorded-late', 'from the 2018 spreadsheet'];

type Line = { entry_id: string; date: string; role: string; debit: number; credit: number; description: string };

async function setUp(relationship: Record<string, unknown>) {
  const dir = folder();
  const run = (args: string[]) => hedgeIn(dir, args, { clock });
  const file = (name: string, content: unknown) => {
    const path = join(dir, name);
    writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
    return path;
  };
  ok(await run(['acct', 'rates', RATES, '--market', 'EURUSD', '--quote', 'USD per EUR']));
  ok(await run(['acct', 'designate', file('r.json', relationship), ...LATE]));
  /** The journal's lines, each entry checked to balance, as [date, role, signed amount] (a debit positive). */
  const journal = async (...more: string[]) => {
    const lines: Line[] = okJson(await run(['acct', 'journal', '--json', ...more]));
    const sums = new Map<string, number>();
    for (const line of lines) sums.set(line.entry_id, (sums.get(line.entry_id) ?? 0) + line.debit - line.credit);
    expect([...sums.values()].every((sum) => Math.abs(sum) < 1e-9)).toBe(true);
    return lines.map((line) => [line.date, line.role, line.debit - line.credit]);
  };
  return { run, file, journal };
}

const IFRS9 = { ...EXAMPLE, framework: 'ifrs9' };

it('a de-designation keeps the reserve; the transaction still releases it; the forward after it goes to P&L and is settled', async () => {
  const { run, journal } = await setUp(IFRS9);
  ok(
    await run([
      'acct',
      'event',
      'EUR-SALE-1',
      '--de-designate',
      '2018-12-31',
      '--reason',
      'risk strategy changed',
      '--ground',
      'objective-changed',
    ]),
  );
  ok(await run(['acct', 'event', 'EUR-SALE-1', '--occurred', '2019-02-01']));
  const rows = okJson(await run(['acct', 'test', 'EUR-SALE-1', '--json']));
  expect(
    rows.map((r: Record<string, unknown>) => [
      r.period_end,
      r.status,
      r.effective,
      r.undesignated,
      r.reclassified,
      r.reserve_close,
    ]),
  ).toEqual([
    ['2018-10-31', 'designated', 0, 0, 0, 0],
    ['2018-11-30', 'designated', 0, 0, 0, 0],
    ['2018-12-31', 'de-designated', 23100, 0, 0, 23100],
    // The forward is still held: its months go on, their change to profit or loss.
    ['2019-01-31', 'ended', 0, 0, 0, 23100],
    ['2019-02-01', 'occurred', 0, 7700, 23100, 0],
  ]);
  expect(rows[2].events).toEqual([{ type: 'de-designated', date: '2018-12-31', reason: 'risk strategy changed' }]);
  expect(await journal('--period', '2019-02')).toEqual([
    ['2019-02-01', 'hedging_instrument', 7700],
    ['2019-02-01', 'undesignated_derivative', -7700],
    ['2019-02-01', 'cash_flow_hedge_reserve', 23100],
    ['2019-02-01', 'reclassification', -23100],
    // The forward delivers EUR 770,000 (at the day's spot, 1.19) for USD 947,100 at its contract rate of 1.23.
    ['2019-02-01', 'foreign_currency', -916300],
    ['2019-02-01', 'cash', 947100],
    ['2019-02-01', 'hedging_instrument', -30800],
  ]);
});

it('no longer expected: the reserve goes at once to reserve_release, never to the hedged item’s line or an asset', async () => {
  // A forecast purchase of inventory: IFRS 9 would adjust its cost, had it happened.
  const purchase = {
    ...IFRS9,
    hedged_item: { ...EXAMPLE.hedged_item, amount: '-770000', nature: 'non_financial' },
  };
  const { run, journal } = await setUp(purchase);
  ok(
    await run([
      'acct',
      'event',
      'EUR-SALE-1',
      '--de-designate',
      '2018-12-31',
      '--reason',
      'order cancelled',
      '--not-expected',
    ]),
  );
  const lines = await journal('--period', '2018');
  expect(lines).toEqual([
    ['2018-12-31', 'hedging_instrument', -23100],
    ['2018-12-31', 'cash_flow_hedge_reserve', 23100],
    ['2018-12-31', 'cash_flow_hedge_reserve', -23100],
    ['2018-12-31', 'reserve_release', 23100],
  ]);
  // The forward is still held: its change to its maturity goes to profit or loss, then it is settled.
  const later = await journal('--period', '2019');
  expect(later.filter(([, role]) => role === 'undesignated_derivative')).toEqual([
    ['2019-02-01', 'undesignated_derivative', 7700],
  ]);
  expect(later.some(([, role]) => role === 'basis_adjustment' || role === 'reclassification')).toBe(false);
  exits(await run(['acct', 'event', 'EUR-SALE-1', '--occurred', '2019-02-01']), 2, 'already ended');
});

it('an occurrence in parts: a share, an amount, then what is left, released over three periods; no rate asked after', async () => {
  const { run } = await setUp(IFRS9);
  ok(await run(['acct', 'event', 'EUR-SALE-1', '--occurred', '2018-12-31', '--share', '0.25']));
  ok(await run(['acct', 'event', 'EUR-SALE-1', '--occurred', '2019-02-01', '--amount', '385000']));
  ok(await run(['acct', 'event', 'EUR-SALE-1', '--occurred', '2019-03-31']));
  exits(await run(['acct', 'event', 'EUR-SALE-1', '--occurred', '2019-04-30']), 2, 'no transaction is left');
  // February's end and 2019-03-31 have no rate: the forward was settled on 2019-02-01, so none is needed; nothing
  // after the last part is asked. A line a month, each opening at the last one's close.
  const rows = okJson(await run(['acct', 'reserve', '--json']));
  expect(
    rows.map((r: Record<string, unknown>) => [
      r.period_end,
      r.reserve_open,
      r.effective,
      r.reclassified,
      r.reserve_close,
    ]),
  ).toEqual([
    ['2018-10-31', 0, 0, 0, 0],
    ['2018-11-30', 0, 0, 0, 0],
    ['2018-12-31', 0, 23100, 5775, 17325],
    ['2019-01-31', 17325, 0, 0, 17325],
    ['2019-02-28', 17325, 0, 11550, 5775],
    ['2019-03-31', 5775, 0, 5775, 0],
  ]);
});

it('a value needed on an event date is refused naming the date: a rate, or a row of --values', async () => {
  const { run, file } = await setUp(IFRS9);
  ok(
    await run([
      'acct',
      'event',
      'EUR-SALE-1',
      '--de-designate',
      '2018-11-15',
      '--reason',
      'risk strategy changed',
      '--ground',
      'objective-changed',
    ]),
  );
  exits(
    await run(['acct', 'test', 'EUR-SALE-1', '--as-of', '2018-12-31']),
    2,
    '--as-of: no rate of EURUSD for 2018-11-15',
  );
  const values = file(
    'values.csv',
    'date,instrument_value,hedged_item_value\n2018-10-31,0,0\n2018-11-30,0,0\n2018-12-31,50000,-49000\n',
  );
  exits(
    await run(['acct', 'test', 'EUR-SALE-1', '--values', values, '--as-of', '2018-12-31']),
    2,
    '--values: no row for 2018-11-15, the day it was de-designated',
  );
});

it('a failed IAS 39 test ends hedge accounting from the last date it was met: what it posts', async () => {
  const { run, file, journal } = await setUp({ ...EXAMPLE, framework: 'ias39' });
  // 100 % at the year end; 166.7 % cumulative at the end of January (25,000 against 15,000).
  const values = file(
    'values.csv',
    'date,instrument_value,hedged_item_value,excluded_value,fees\n2018-10-31,0,0,,\n2018-11-30,0,0,,\n2018-12-31,10000,-10000,,\n2019-01-31,25000,-15000,,-120\n',
  );
  const rows = okJson(await run(['acct', 'test', 'EUR-SALE-1', '--values', values, '--as-of', '2019-01-31', '--json']));
  expect(
    rows.map((r: Record<string, unknown>) => [r.status, r.effective, r.undesignated, r.reserve_close, r.fees]),
  ).toEqual([
    ['designated', 0, 0, 0, 0],
    ['designated', 0, 0, 0, 0],
    ['designated', 10000, 0, 10000, 0],
    ['failed', 0, 15000, 10000, -120],
  ]);
  expect(rows[3].line).toBe(
    "IAS 39 80–125 %: 166.7 % is outside the line. Hedge accounting ends from 2018-12-31, the last date the test was met: this period's whole change goes to profit or loss; the reserve stays until the transaction (IAS 39.101).",
  );
  expect(await journal('EUR-SALE-1', '--values', values, '--period', '2019-01')).toEqual([
    ['2019-01-31', 'hedging_instrument', 15000],
    ['2019-01-31', 'undesignated_derivative', -15000],
    ['2019-01-31', 'fees', 120],
    ['2019-01-31', 'cash', -120],
  ]);
});

describe("each framework's table refuses what is not its own (one line naming the field, exit 2)", () => {
  const cases: Array<[string, Record<string, unknown>, string]> = [
    [
      'ASC 815 and a basis adjustment',
      { ...EXAMPLE, on_occurrence: 'basis_adjustment' },
      'on_occurrence: ASC 815 reclassifies the reserve into earnings',
    ],
    [
      'IAS 39 and a cost of hedging reserve',
      { ...EXAMPLE, framework: 'ias39', excluded: 'cost_of_hedging_reserve' },
      "excluded: cost_of_hedging_reserve is not IAS 39's; expected pnl (IAS 39.74(b)).",
    ],
    [
      'ASC 815 and a cost of hedging reserve',
      { ...EXAMPLE, excluded: 'cost_of_hedging_reserve' },
      "excluded: cost_of_hedging_reserve is not ASC 815's; expected pnl or amortised",
    ],
    [
      'IFRS 9, a purchase of inventory, and a reclassification',
      {
        ...IFRS9,
        on_occurrence: 'reclassify',
        hedged_item: { ...EXAMPLE.hedged_item, amount: '-770000', nature: 'non_financial' },
      },
      'on_occurrence: IFRS 9 takes the reserve into the cost of a non-financial item (IFRS 9 6.5.11(d)(i))',
    ],
    ['a ratio over 1', { ...EXAMPLE, ratio: '1.5' }, 'ratio: the designated share of the instrument is at most 1'],
  ];
  for (const [what, relationship, said] of cases)
    it(what, async () => {
      const dir = folder();
      const path = join(dir, 'r.json');
      writeFileSync(path, JSON.stringify(relationship));
      const result = exits(await hedgeIn(dir, ['acct', 'designate', path, ...LATE], { clock }), 2, said);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
    });

  it('IFRS 9 adjusts a purchase of inventory by default; IAS 39 has no rebalancing', async () => {
    const purchase = { ...IFRS9, hedged_item: { ...EXAMPLE.hedged_item, amount: '-770000', nature: 'non_financial' } };
    const { run, journal } = await setUp(purchase);
    ok(await run(['acct', 'event', 'EUR-SALE-1', '--occurred', '2019-02-01']));
    expect((await journal('--period', '2019-02')).filter(([, role]) => role === 'basis_adjustment')).toEqual([
      ['2019-02-01', 'basis_adjustment', 30800],
    ]);
    const ias = await setUp({ ...EXAMPLE, framework: 'ias39' });
    exits(
      await ias.run([
        'acct',
        'event',
        'EUR-SALE-1',
        '--rebalance',
        '2018-12-31',
        '--ratio',
        '0.5',
        '--reason',
        'basis moved',
      ]),
      2,
      '--rebalance: IAS 39 has no rebalancing',
    );
  });
});

describe("the memo: the documentation's items the file gives, each one missing named, the framework's own paragraphs", () => {
  const memoOf = async (relationship: Record<string, unknown>) => {
    const dir = folder();
    const path = join(dir, 'r.json');
    writeFileSync(path, JSON.stringify(relationship));
    const printed = ok(await hedgeIn(dir, ['acct', 'designate', path, '--markdown', ...LATE], { clock })).stdout;
    return Object.fromEntries(
      printed.split('\n').flatMap((line) => {
        const cells = /^\| ([^|]+) \| (.*) \|$/.exec(line);
        return cells && cells[1] !== ' ' ? [[cells[1], cells[2]]] : [];
      }),
    );
  };

  it('ASC 815: ASC 815-20-25-3 named for what is missing, its own paragraphs cited, none of IFRS 9', async () => {
    const memo = await memoOf(EXAMPLE);
    expect(memo['Hedged risk']).toBe("not given: ASC 815-20-25-3 asks for it (the relationship file's hedged_risk)");
    expect(memo['Credit risk']).toBe("not given: ASC 815-20-25-3 asks for it (the relationship file's credit_risk)");
    expect(memo['Excluded part']).toBe('to profit or loss as it changes (ASC 815-20-25-83A to 25-83B)');
    expect(memo['Rules applied']).toContain('deferral ASC 815-30-35-3 (the whole designated change)');
    expect(Object.values(memo).join(' ')).not.toMatch(/IFRS 9 6\./);
  });

  it('IFRS 9: the items of 6.4.1(b) as the file gives them', async () => {
    const memo = await memoOf({
      ...IFRS9,
      hedged_risk: 'EUR/USD spot risk on the sale proceeds',
      ratio_basis: 'one euro of forward a euro of sale, as the risk is managed',
      economic_relationship: 'the forward and the sale move with the same EUR/USD rate',
      credit_risk: 'an investment-grade bank; collateralised daily',
      prospective_assessment: 'critical terms match; reviewed each quarter end',
    });
    expect([
      memo['Hedged risk'],
      memo['How the ratio was determined'],
      memo['Economic relationship'],
      memo['Credit risk'],
      memo['Prospective assessment'],
    ]).toEqual([
      'EUR/USD spot risk on the sale proceeds',
      'one euro of forward a euro of sale, as the risk is managed',
      'the forward and the sale move with the same EUR/USD rate',
      'an investment-grade bank; collateralised daily',
      'critical terms match; reviewed each quarter end',
    ]);
    expect(memo['Rules applied']).toContain('IFRS 9 6.4.1(c), B6.4.12 (no pass line)');
  });
});

it("Hoyle's receivable hedge, settled and collected on 2019-02-01, ends there: 2019 and today are journaled without a rate after it", async () => {
  // The exercise of test/acct/published-examples.json (receivable_months_amortised), from the command line.
  const dir = folder();
  const run = (args: string[]) => hedgeIn(dir, args, { clock });
  const rates = join(dir, 'rates.csv');
  writeFileSync(
    rates,
    [
      'date,spot,forward,discount_factor,source',
      '2018-10-01,0.83,0.78,1,exercise',
      // The exercise gives no month-end rate before the year end: its month ends hold the last one it gives.
      '2018-10-31,0.83,0.78,1,month end: the exercise gives none',
      '2018-11-30,0.83,0.78,1,month end: the exercise gives none',
      '2018-12-31,0.85,0.80,0.9901,exercise',
      '2019-01-31,0.85,0.80,0.9901,month end: the exercise gives none',
      '2019-02-01,0.86,0.86,1,exercise',
    ].join('\n'),
  );
  ok(await run(['acct', 'rates', rates, '--market', 'LCUUSD', '--quote', 'USD per LCU']));
  const relationship = join(dir, 'r.json');
  writeFileSync(
    relationship,
    JSON.stringify({
      ...EXAMPLE,
      id: 'LCU-RECEIVABLE',
      designated_at: '2018-10-01',
      market: 'LCUUSD',
      hedged_item: {
        ...EXAMPLE.hedged_item,
        currency: 'LCU',
        amount: '100000',
        expected_date: '2019-02-01',
        kind: 'recognised',
      },
      instrument: {
        notional: '100000',
        currency: 'LCU',
        contract_rate: '0.78',
        maturity: '2019-02-01',
        rate_quote: 'USD per LCU',
      },
      designation: 'spot',
      excluded: 'amortised',
      amortisation: 'months',
    }),
  );
  ok(await run(['acct', 'designate', relationship, ...LATE]));
  ok(await run(['acct', 'event', 'LCU-RECEIVABLE', '--occurred', '2019-02-01']));
  const year: Line[] = okJson(await run(['acct', 'journal', '--period', '2019', '--json']));
  // The discount amortised by month: a quarter of it each month, three of four by the year end (3,750), as the
  // exercise has it, the fourth in January.
  expect(year.filter((line) => line.role === 'excluded_component').map((line) => line.debit)).toEqual([1250]);
  expect(year.filter((line) => line.role === 'cash').map((line) => line.debit)).toEqual([78000]);
  const all: Line[] = okJson(await run(['acct', 'journal', '--json']));
  expect([...new Set(all.map((line) => line.date))]).toEqual([
    '2018-10-31',
    '2018-11-30',
    '2018-12-31',
    '2019-01-31',
    '2019-02-01',
  ]);
  expect(all.filter((line) => line.role === 'excluded_component').map((line) => line.debit)).toEqual([
    1250, 1250, 1250, 1250,
  ]);
});

it('IFRS 9 rebalancing: the designated share changes from its date, the relationship goes on to the transaction', async () => {
  const { run, journal } = await setUp(IFRS9);
  ok(
    await run([
      'acct',
      'event',
      'EUR-SALE-1',
      '--rebalance',
      '2018-12-31',
      '--ratio',
      '0.5',
      '--reason',
      'half the order',
    ]),
  );
  ok(await run(['acct', 'event', 'EUR-SALE-1', '--occurred', '2019-02-01']));
  const rows = okJson(await run(['acct', 'test', 'EUR-SALE-1', '--json']));
  expect(
    rows.map((r: Record<string, unknown>) => [
      r.status,
      r.designated_share,
      r.instrument_change,
      r.effective,
      r.undesignated,
      r.reclassified,
    ]),
  ).toEqual([
    ['designated', '1', 0, 0, 0, 0],
    ['designated', '1', 0, 0, 0, 0],
    ['rebalanced', '0.5', 23100, 23100, 0, 0],
    ['designated', '0.5', 23100, 0, 0, 0],
    // Half of the forward's 7,700 after the rebalancing is designated; the other half is an undesignated derivative's.
    ['occurred', '0.5', 26950, 3850, 3850, 26950],
  ]);
  expect((await journal('--period', '2019-02')).slice(0, 3)).toEqual([
    ['2019-02-01', 'hedging_instrument', 7700],
    ['2019-02-01', 'cash_flow_hedge_reserve', -3850],
    ['2019-02-01', 'undesignated_derivative', -3850],
  ]);
});

it('a failed test in a closed period: the memo reprinted says hedge accounting ended there, with the line and paragraph', async () => {
  // Half the forward designated against the whole sale: 50 %, outside IAS 39's line at the first period end.
  const { run } = await setUp({ ...EXAMPLE, framework: 'ias39', ratio: '0.5' });
  ok(await run(['acct', 'close', '--period', '2018']));
  const memo = ok(await run(['acct', 'show', 'EUR-SALE-1', '--markdown'])).stdout;
  expect(memo).toContain(
    "| Hedge accounting ended | 2018-12-31: IAS 39 80–125 %: 50.0 % is outside the line. Hedge accounting ends from 2018-11-30, the last date the test was met: this period's whole change goes to profit or loss; the reserve stays until the transaction (IAS 39.101). |",
  );
});

it('after the forward is settled the transaction may still stop being expected: the reserve is then released', async () => {
  const { run, journal } = await setUp(IFRS9);
  // The forward matured on 2019-02-01; the sale, put off, is cancelled on 2019-03-31.
  ok(
    await run([
      'acct',
      'event',
      'EUR-SALE-1',
      '--de-designate',
      '2019-03-31',
      '--reason',
      'sale cancelled',
      '--not-expected',
    ]),
  );
  expect(await journal('--period', '2019-03')).toEqual([
    ['2019-03-31', 'cash_flow_hedge_reserve', 30800],
    ['2019-03-31', 'reserve_release', -30800],
  ]);
  exits(
    await run(['acct', 'event', 'EUR-SALE-1', '--rebalance', '2019-03-31', '--ratio', '0.5', '--reason', 'late']),
    2,
    'already ended (de-designated 2019-03-31)',
  );
});

it('a de-designation states its ground: IFRS 9 refuses a voluntary one (6.5.6) and one without; IAS 39 and ASC 815 allow it', async () => {
  const { run } = await setUp(IFRS9);
  const deDesignate = (...more: string[]) =>
    run(['acct', 'event', 'EUR-SALE-1', '--de-designate', '2018-12-31', '--reason', 'we just want to stop', ...more]);
  exits(
    await deDesignate(),
    2,
    '--ground: a de-designation without its ground is refused under IFRS 9, which discontinues hedge accounting only when the relationship no longer meets the qualifying criteria (IFRS 9 6.5.6)',
  );
  exits(await deDesignate('--ground', 'voluntary'), 2, '--ground: a voluntary de-designation is refused under IFRS 9');
  exits(await deDesignate('--ground', 'bored'), 2, '--ground: expected one of objective-changed, criteria-not-met');
  exits(
    await run(['acct', 'event', 'EUR-SALE-1', '--occurred', '2019-02-01', '--ground', 'instrument-ended']),
    2,
    '--ground goes with --de-designate only.',
  );
  expect(okJson(await run(['acct', 'log', 'EUR-SALE-1', '--json']))).toHaveLength(1);
  // The transaction no longer expected is a ground of its own.
  const event = okJson(
    await run([
      '--json',
      'acct',
      'event',
      'EUR-SALE-1',
      '--de-designate',
      '2018-12-31',
      '--reason',
      'the order was cancelled',
      '--not-expected',
    ]),
  );
  expect([event.ground, event.still_expected]).toEqual([undefined, false]);
  for (const framework of ['ias39', 'asc815']) {
    const other = await setUp({ ...IFRS9, framework });
    ok(
      await other.run([
        'acct',
        'event',
        'EUR-SALE-1',
        '--de-designate',
        '2018-12-31',
        '--reason',
        'revoked',
        '--ground',
        'voluntary',
      ]),
    );
    const [, recorded] = okJson(await other.run(['acct', 'log', 'EUR-SALE-1', '--json']));
    expect(recorded.what).toBe('de-designated 2018-12-31 (voluntary)');
  }
});
