// `hedge acct` from the command line, with a forward held elsewhere (no server involved): what is refused (one line
// naming the field, exit 2, nothing recorded), the append-only hashed records, and the figures of a period.
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { hedgeIn, tempFolders, ROOT } from '../support/hedge-cli.js';
import { exits, ok, okJson } from '../support/cli-runs.js';

const folder = tempFolders('hedge-acct-');
/** 2026-03-02, noon UTC: "today" for every run of this file. */
const TODAY = '2026-03-02';
const clock = { now: () => Date.parse(`${TODAY}T12:00:00Z`), sleep: async () => {} };
const EXAMPLE = JSON.parse(readFileSync(join(ROOT, 'docs', 'examples', 'relationship.json'), 'utf8'));
const RATES = join(ROOT, 'docs', 'examples', 'rates-eurusd.csv');

function setUp() {
  const dir = folder();
  const run = (args: string[]) => hedgeIn(dir, args, { clock });
  const file = (name: string, content: unknown) => {
    const path = join(dir, name);
    writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
    return path;
  };
  const store = join(dir, 'acct', 'local', 'records.json');
  return { dir, run, file, store };
}

describe('hedge acct designate: refusals name the field and record nothing', () => {
  const today = {
    ...EXAMPLE,
    designated_at: TODAY,
    hedged_item: { ...EXAMPLE.hedged_item, expected_date: '2026-06-30' },
  };
  const cases: Array<[string, Record<string, unknown>, string]> = [
    [
      'an unknown framework',
      { ...today, framework: 'gaap' },
      'framework: Invalid option: expected one of "ifrs9"|"ias39"|"asc815"',
    ],
    [
      'a missing field',
      (({ approved_by: _, ...rest }) => rest)(today),
      'approved_by: missing; the file needs id, framework',
    ],
    [
      'a ratio of 0',
      { ...today, ratio: 0 },
      'ratio (the designated share of the instrument, at most 1): expected a positive decimal',
    ],
    ['a date in the future', { ...today, designated_at: '2026-03-03' }, 'designated_at: 2026-03-03 is in the future'],
    [
      'a date in the past',
      { ...today, designated_at: '2026-03-01' },
      'designated_at: 2026-03-01 is before today (2026-03-02)',
    ],
  ];
  for (const [what, relationship, said] of cases)
    it(`${what}: exit 2, nothing recorded`, async () => {
      const { run, file, store } = setUp();
      const result = exits(await run(['acct', 'designate', file('r.json', relationship)]), 2, said);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(existsSync(store)).toBe(false);
    });
});

describe('hedge acct rates: a gap, a date twice or another market is refused', () => {
  const header = 'date,spot,forward,discount_factor,source';
  const cases: Array<[string, string, string]> = [
    ['a gap', `${header}\n2026-03-02,,1.1,1,bank\n`, 'spot: missing, a gap in the rates'],
    [
      'a date twice',
      `${header}\n2026-03-02,1.1,1.1,1,bank\n2026-03-02,1.2,1.2,1,bank\n`,
      'date: the same date as row 1',
    ],
    ['another market', `${header},market\n2026-03-02,1.1,1.1,1,bank,USDTNGN\n`, "market: another market's rate"],
  ];
  for (const [what, csv, said] of cases)
    it(`${what}: exit 2, nothing recorded`, async () => {
      const { run, file, store } = setUp();
      exits(
        await run(['acct', 'rates', file('rates.csv', csv), '--market', 'EURUSD', '--quote', 'USD per EUR']),
        2,
        said,
      );
      expect(existsSync(store)).toBe(false);
    });

  it('a date recorded already with other figures is refused; the same figures again add nothing', async () => {
    const { run, file } = setUp();
    ok(await run(['acct', 'rates', RATES, '--market', 'EURUSD', '--quote', 'USD per EUR']));
    const again = okJson(await run(['acct', 'rates', RATES, '--market', 'EURUSD', '--quote', 'USD per EUR', '--json']));
    expect(again.recorded).toBe(0);
    // 1.210 is the rate 1.21 already recorded: nothing to add, nothing refused.
    const padded = file('padded.csv', readFileSync(RATES, 'utf8').replace('2018-12-31,1.21', '2018-12-31,1.210'));
    const same = okJson(await run(['acct', 'rates', padded, '--market', 'EURUSD', '--quote', 'USD per EUR', '--json']));
    expect(same.recorded).toBe(0);
    const changed = file('changed.csv', readFileSync(RATES, 'utf8').replace('2018-12-31,1.21', '2018-12-31,1.22'));
    exits(
      await run(['acct', 'rates', changed, '--market', 'EURUSD', '--quote', 'USD per EUR']),
      2,
      'date: 2018-12-31 is recorded already',
    );
  });
});

describe('the worked example, recorded late: memo, test, event, reserve and balanced entries', () => {
  it('reproduces the textbook figures, keeps the records chained, and refuses an edit made outside hedge', async () => {
    const { run, file, store } = setUp();
    ok(await run(['acct', 'rates', RATES, '--market', 'EURUSD', '--quote', 'USD per EUR']));
    const example = join(ROOT, 'docs', 'examples', 'relationship.json');
    const memo = ok(await run(['acct', 'designate', example, '--recorded-late', 'from the 2018 spreadsheet']));
    expect(memo.stdout.split('\n')[0]).toBe(
      'RECORDED LATE: from the 2018 spreadsheet (designated 2018-10-15, recorded 2026-03-02)',
    );
    expect(memo.stdout.replace(/\s+/g, ' ')).toContain('is your judgement and your auditors’');
    // A fact a line, in the order the documentation lists them.
    expect(memo.stdout.split('\n').flatMap((line) => /^([A-Z][a-z][\w ]*):/.exec(line)?.[1] ?? [])).toEqual(
      'Hedge designation memo|Relationship|Framework|Designated|Recorded|Record hash|Objective and strategy|Hedged item|Hedged risk|Evidence of probability|Rates|Functional currency|Hedging instrument|Hedge ratio|How the ratio was determined|Designated risk|Excluded part|Effectiveness|Economic relationship|Credit risk|Prospective assessment|Sources of ineffectiveness|Rules applied|Approved by'.split(
        '|',
      ),
    );
    exits(
      await run(['acct', 'designate', example, '--recorded-late', 'twice']),
      2,
      'id: EUR-SALE-1 is already designated',
    );

    // A row a month (the books' periods), the last to the day asked for; the textbook's figures at its dates.
    const tested = okJson(await run(['acct', 'test', 'EUR-SALE-1', '--as-of', '2019-02-01', '--json']));
    expect(
      tested.map((row: Record<string, unknown>) => [
        row.period,
        row.period_end,
        row.instrument_change,
        row.hedged_item_change,
        row.effective,
        row.reserve_close,
      ]),
    ).toEqual([
      ['2018-10', '2018-10-31', 0, 0, 0, 0],
      ['2018-11', '2018-11-30', 0, 0, 0, 0],
      ['2018-12', '2018-12-31', 23100, -23100, 23100, 23100],
      ['2019-01', '2019-01-31', 23100, -23100, 0, 23100],
      ['2019-02', '2019-02-01', 30800, -30800, 7700, 30800],
    ]);
    ok(await run(['acct', 'event', 'EUR-SALE-1', '--occurred', '2019-02-01']));
    const reserve = okJson(await run(['acct', 'reserve', '--period', '2019-02', '--json']));
    expect(reserve).toEqual([
      expect.objectContaining({
        period: '2019-02',
        period_end: '2019-02-01',
        reserve_open: 23100,
        effective: 7700,
        reclassified: 30800,
        adjustment: 0,
        reserve_close: 0,
        // Every field --json's contract names, in the functional currency's code, at the rate it was valued at.
        instrument_change: 30800,
        hedged_item_change: -30800,
        ratio: 1,
        ineffective: 0,
        excluded: 0,
        currency: 'USD',
        rate: 1.19,
      }),
    ]);
    const accounts = file('gl.json', {
      cash_flow_hedge_reserve: '3510',
      hedging_instrument: '1450',
      reclassification: '4000',
    });
    const csv = ok(await run(['acct', 'journal', '--accounts', accounts, '--format', 'csv']))
      .stdout.trim()
      .split('\n');
    expect(csv[0]).toBe(
      'entry_id,relationship_id,hedge_ids,date,role,account,debit,credit,currency,rate,rate_source,rate_quote,description',
    );
    const lines = csv.slice(1).map((line) => line.split(','));
    const byEntry = new Map<string, number>();
    for (const line of lines) byEntry.set(line[0], (byEntry.get(line[0]) ?? 0) + Number(line[6]) - Number(line[7]));
    expect([...byEntry.values()].every((sum) => Math.abs(sum) < 1e-9)).toBe(true);
    expect(lines.filter((line) => line[5] === '4000').map((line) => line[7])).toEqual(['30800']);

    // The chain: a record changed by hand is found on the next read (a record a line, as the store appends them).
    const records = readFileSync(store, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(records.map((record: { kind: string }) => record.kind)).toEqual(['rates', 'designation', 'event']);
    records[1].body.relationship.ratio = '2';
    writeFileSync(store, `${records.map((record) => JSON.stringify(record)).join('\n')}\n`);
    exits(await run(['acct', 'test', '--as-of', '2019-02-01']), 2, "record 2's hash does not follow");
  });

  it('--values: the same test from fair values given in a file, one period a date; IFRS 9 defers the lower of', async () => {
    const { run, file } = setUp();
    const example = file('ifrs9.json', { ...EXAMPLE, framework: 'ifrs9' });
    ok(await run(['acct', 'designate', example, '--recorded-late', 'from the 2018 spreadsheet']));
    // A row a month end: nothing moved in October and November.
    const values = file(
      'values.csv',
      'date,instrument_value,hedged_item_value\n2018-10-31,0,0\n2018-11-30,0,0\n2018-12-31,50000,-49000\n2019-01-31,140,-150\n',
    );
    // Up to 2019-01-31: the forward's maturity (2019-02-01) is an event whose values the file would need.
    const rows = okJson(
      await run(['acct', 'test', 'EUR-SALE-1', '--values', values, '--as-of', '2019-01-31', '--json']),
    );
    expect(rows.map((row: Record<string, number>) => [row.effective, row.ineffective, row.reserve_close])).toEqual([
      [0, 0, 0],
      [0, 0, 0],
      [49000, 1000, 49000],
      [-48860, -1000, 140],
    ]);
    // A month end the file leaves out is refused, naming it: a month's figures are never guessed.
    const gap = file('gap.csv', 'date,instrument_value,hedged_item_value\n2018-12-31,50000,-49000\n');
    exits(
      await run(['acct', 'test', 'EUR-SALE-1', '--values', gap, '--as-of', '2018-12-31']),
      2,
      '--values: no row for 2018-10-31, a month end',
    );
    // Kept on values, it is closed with its file; the closed months print as posted, with or without it.
    exits(await run(['acct', 'close', '--period', '2018']), 2, 'no rate of EURUSD');
    exits(await run(['acct', 'close', '--period', '2018', '--values', values]), 2, '--values: ');
    const closed = okJson(
      await run(['acct', 'close', '--period', '2018', '--values', `EUR-SALE-1=${values}`, '--json']),
    );
    expect(closed.months).toHaveLength(12);
    const december = ['acct', 'test', 'EUR-SALE-1', '--period', '2018-12', '--json'];
    expect(okJson(await run(december)).map((row: Record<string, number>) => row.reserve_close)).toEqual([49000]);
    expect(ok(await run([...december, '--values', values])).stdout).toBe(ok(await run(december)).stdout);
  });
});

describe('hedge acct test, critical terms: each term matched or not, the figures by cumulative dollar offset', () => {
  it('the textbook forward matches every term; one maturing a month early at a ratio of 0.9 does not', async () => {
    const { dir, run, file } = setUp();
    ok(await run(['acct', 'rates', RATES, '--market', 'EURUSD', '--quote', 'USD per EUR']));
    const terms = { ...EXAMPLE, method: 'critical_terms' };
    ok(await run(['acct', 'designate', file('terms.json', terms), '--recorded-late', 'from the 2018 spreadsheet']));
    const early = {
      ...terms,
      id: 'EUR-SALE-2',
      ratio: '0.9',
      instrument: { ...EXAMPLE.instrument, maturity: '2019-01-02' },
    };
    ok(await run(['acct', 'designate', file('early.json', early), '--recorded-late', 'from the 2018 spreadsheet']));

    const months = okJson(await run(['acct', 'test', 'EUR-SALE-1', '--as-of', '2019-02-01', '--json']));
    const [first, second] = [months[2], months.at(-1)];
    expect([first.period_end, second.period_end]).toEqual(['2018-12-31', '2019-02-01']);
    // The same figures as the dollar-offset test of the same relationship.
    expect([first.instrument_change, first.effective, second.effective, second.reserve_close]).toEqual([
      23100, 23100, 7700, 30800,
    ]);
    expect(second.critical_terms).toEqual({
      amount: { instrument: '770000.00', hedged_item: '770000.00', matched: true },
      currency: { instrument: 'EUR', hedged_item: 'EUR', matched: true },
      maturity: {
        instrument: '2019-02-01',
        hedged_item: '2019-02-01',
        days_apart: 0,
        within_31_days: true,
        same_fiscal_month: true,
        rule: 'within_31_days or same_fiscal_month',
        matched: true,
      },
      underlying: { instrument: 'EURUSD', hedged_item: 'EURUSD', matched: true },
      matched: true,
    });
    const [mismatched] = okJson(await run(['acct', 'test', 'EUR-SALE-2', '--as-of', '2018-12-31', '--json'])).slice(-1);
    expect(mismatched.critical_terms).toMatchObject({
      amount: { instrument: '693000.00', hedged_item: '770000.00', matched: false },
      currency: { matched: true },
      // 30 days early: within one 31-day period (ASC 815-20-25-84), not the same month; the file documents neither.
      maturity: { days_apart: -30, within_31_days: true, same_fiscal_month: false, matched: true },
      underlying: { matched: true },
      matched: false,
    });
    const text = ok(
      await hedgeIn(dir, ['acct', 'test', 'EUR-SALE-2', '--as-of', '2018-12-31'], {
        clock,
        screen: { columns: 200, rows: 50 },
      }),
    );
    expect(text.stdout.replace(/\s+/g, ' ')).toContain(
      'EUR-SALE-2 critical terms (figures by cumulative dollar offset): amount (notional × ratio) 693000.00 vs 770000.00 not matched; currency EUR vs EUR matched; maturity 2019-01-02 vs 2019-02-01 (30 days apart; within one 31-day period, not the same fiscal month; ASC 815-20-25-84, either) matched; underlying EURUSD vs EURUSD matched.',
    );
  });
});

describe('exact, from designation, in one currency', () => {
  it('a forward designated after it was struck counts only its change since: 770,000 × (1.20 − 1.19), not its whole life', async () => {
    const { run, file } = setUp();
    ok(await run(['acct', 'rates', RATES, '--market', 'EURUSD', '--quote', 'USD per EUR']));
    const later = file('later.json', { ...EXAMPLE, id: 'LATER', designated_at: '2018-12-31' });
    ok(await run(['acct', 'designate', later, '--recorded-late', 'a second relationship on the same forward']));
    const rows = okJson(await run(['acct', 'test', 'LATER', '--as-of', '2019-02-01', '--json']));
    // Designated on a month's last day: that month's row is the designation's day, its change nil.
    expect(rows.map((row: Record<string, unknown>) => [row.period_end, row.instrument_change])).toEqual([
      ['2018-12-31', 0],
      ['2019-01-31', 0],
      ['2019-02-01', 7700],
    ]);
  });

  it('an amount given as a JSON number is recorded as the digits written, exact up to 2^53 − 1 cents and refused past it; a date alone is a whole day', async () => {
    const { run, file, store } = setUp();
    ok(await run(['acct', 'rates', RATES, '--market', 'EURUSD', '--quote', 'USD per EUR']));
    const big = (amount: string) =>
      JSON.stringify({ ...EXAMPLE, id: 'BIG' })
        .replace('"amount":"770000"', `"amount": ${amount}`)
        .replace('"notional":"770000"', `"notional": ${amount}`);
    // One cent past what a JSON number holds to the cent: refused, nothing recorded.
    exits(
      await run(['acct', 'designate', file('bigger.json', big('90071992547409.92')), '--recorded-late', 'x']),
      2,
      'hedged_item.amount: 90071992547409.92 is past the largest amount hedge prints exactly; expected at most 90071992547409.91',
    );
    // A record a line: the rates, and nothing of the refused designation.
    expect(readFileSync(store, 'utf8').split('\n').filter(Boolean)).toHaveLength(1);
    const designated = okJson(
      await run(['acct', 'designate', file('big.json', big('90071992547409.91')), '--recorded-late', 'x', '--json']),
    );
    expect(designated.hedged_item.amount).toBe('90071992547409.91');
    // 90,071,992,547,409.91 × (1.23 − 1.20) at the year end, exactly: 2,702,159,776,422.2973 → …422.30.
    const [yearEnd] = okJson(await run(['acct', 'test', 'BIG', '--as-of', '2018-12-31', '--json'])).slice(-1);
    expect(yearEnd.instrument_change).toBe(2702159776422.3);
    expect(yearEnd.reserve_open + yearEnd.effective - yearEnd.reclassified).toBe(yearEnd.reserve_close);
    // The designation's day is a period to itself when asked for: nothing moved in it; none before it.
    expect(
      okJson(await run(['acct', 'test', 'BIG', '--as-of', '2018-10-15', '--json'])).map(
        (row: Record<string, unknown>) => [row.period_end, row.instrument_change, row.effective],
      ),
    ).toEqual([['2018-10-15', 0, 0]]);
    expect(okJson(await run(['acct', 'test', 'BIG', '--as-of', '2018-09-30', '--json']))).toEqual([]);
  });
});

describe('one relationship at a time', () => {
  it('a relationship that cannot be valued is named under the others, which are still reported; the command ends 2', async () => {
    const { run, file } = setUp();
    ok(await run(['acct', 'rates', RATES, '--market', 'EURUSD', '--quote', 'USD per EUR']));
    ok(await run(['acct', 'designate', file('eur.json', EXAMPLE), '--recorded-late', 'x']));
    // A second relationship whose market has its designation's rate and no month end after it.
    const gbp = 'date,spot,forward,discount_factor,source\n2018-10-15,1.31,1.30,1,bank\n';
    ok(await run(['acct', 'rates', file('gbp.csv', gbp), '--market', 'GBPUSD', '--quote', 'USD per GBP']));
    const pound = {
      ...EXAMPLE,
      id: 'GBP-SALE-1',
      market: 'GBPUSD',
      hedged_item: { ...EXAMPLE.hedged_item, currency: 'GBP' },
      instrument: { ...EXAMPLE.instrument, currency: 'GBP', contract_rate: '1.30', rate_quote: 'USD per GBP' },
    };
    ok(await run(['acct', 'designate', file('gbp.json', pound), '--recorded-late', 'x']));
    const refused = exits(
      await run(['acct', 'reserve', '--period', '2018-Q4', '--json']),
      2,
      'GBP-SALE-1: not valued: --period 2018-Q4: no rate of GBPUSD for 2018-10-31',
    );
    const rows = JSON.parse(refused.stdout);
    expect(new Set(rows.map((row: { relationship_id: string }) => row.relationship_id))).toEqual(
      new Set(['EUR-SALE-1']),
    );
    expect(rows.find((row: { period: string }) => row.period === '2018-12').reserve_close).toBe(23100);
    // Asked for by its id, it is refused alone, nothing printed; a period before a designation values nothing.
    expect(exits(await run(['acct', 'test', 'GBP-SALE-1', '--period', '2018-Q4']), 2).stdout).toBe('');
    expect(okJson(await run(['acct', 'reserve', '--period', '2017', '--json']))).toEqual([]);
  });
});

describe('hedge acct close: a closed period prints as it was closed; what changes in it later is adjusted in the first open period', () => {
  it('closes 2018-Q4 of the worked example; an occurrence recorded later and dated in it posts an adjusting entry under a new id in 2019-01', async () => {
    const { run, file } = setUp();
    ok(await run(['acct', 'rates', RATES, '--market', 'EURUSD', '--quote', 'USD per EUR']));
    const example = file('example.json', { ...EXAMPLE, hedged_item: { ...EXAMPLE.hedged_item, kind: 'firm' } });
    ok(await run(['acct', 'designate', example, '--recorded-late', 'from the 2018 spreadsheet']));
    exits(
      await run(['acct', 'close', '--period', '2026-03']),
      2,
      '--period: 2026-03 has not ended (today is 2026-03-02)',
    );
    // Months close in order from the first designation's.
    exits(await run(['acct', 'close', '--period', '2019-01']), 2, '--period: months close in order');
    exits(await run(['acct', 'close', '--period', '2019-01']), 2, 'close 2018-10 first');
    const journal = ['acct', 'journal', '--period', '2018-Q4', '--format', 'csv'];
    const before = ok(await run(journal)).stdout;
    const reserveBefore = ok(await run(['acct', 'reserve', '--period', '2018-Q4', '--json'])).stdout;
    const closed = okJson(await run(['acct', 'close', '--period', '2018-Q4', '--json']));
    expect(closed.months).toEqual(['2018-10', '2018-11', '2018-12']);
    // The inventory: the relationship with the reserve the closed period left, and its memo reprinted with its events.
    expect(okJson(await run(['acct', 'list', '--json']))).toEqual([
      expect.objectContaining({ id: 'EUR-SALE-1', framework: 'asc815', reserve: 23100, reserve_as_of: '2018-12-31' }),
    ]);
    exits(await run(['acct', 'close', '--period', '2018-12']), 2, '--period: 2018-12 is closed already');
    // The sale turns out to have happened on the year's last day, a closed period: the reserve is reclassified then.
    ok(await run(['acct', 'event', 'EUR-SALE-1', '--occurred', '2018-12-31']));
    // Relationship ids complete in the shells (test/cli/completion-words.test.ts keeps them per account).
    expect(readFileSync(join(ROOT, 'completions', 'hedge.bash'), 'utf8')).toContain(
      "'acct show:0') _hedge_words relationships ;;",
    );
    const shown = ok(await run(['acct', 'show', 'EUR-SALE-1'])).stdout.replace(/\s+/g, ' ');
    expect(shown).toContain('sells 770,000.00 EUR at 1.23 (USD per EUR), maturing 2019-02-01');
    expect(shown).toContain('Occurred: 2018-12-31');
    const after = ok(await run(journal));
    expect(after.stdout).toBe(before);
    // Fair values given for a closed month change nothing printed of it; the command says so.
    const values = file(
      'v.csv',
      'date,instrument_value,hedged_item_value\n2018-10-31,0,0\n2018-11-30,0,0\n2018-12-31,84599,-84599\n',
    );
    const given = ok(await run([...journal.slice(0, 2), 'EUR-SALE-1', ...journal.slice(2), '--values', values]));
    expect(given.stdout).toBe(before);
    expect(given.stderr).toContain('--values: the period is closed; its figures are printed as they were posted');
    expect(ok(await run(['acct', 'reserve', '--period', '2018-Q4', '--json'])).stdout).toBe(reserveBefore);
    // January's end is valued too (the forward is held until it settles): its roll-forward opens at what December
    // posted, and the adjustment is its own line, so that it closes where the books now stand.
    const [rolled] = okJson(await run(['acct', 'reserve', '--period', '2019-01', '--json']));
    expect(rolled).toMatchObject({
      period: '2019-01',
      reserve_open: 23100,
      effective: 0,
      reclassified: 0,
      adjustment: -23100,
      reserve_close: 0,
    });
    const january = ok(await run(['acct', 'journal', '--period', '2019-01', '--json']));
    const lines = JSON.parse(january.stdout).filter((line: { date: string }) => line.date === '2019-01-01');
    expect(new Set(lines.map((line: { entry_id: string }) => line.entry_id))).toEqual(
      new Set(['EUR-SALE-1/2019-01-01/adjustment']),
    );
    // The reserve's 23,100 goes to profit or loss: debit the reserve, credit the reclassification.
    expect(lines.map((line: Record<string, unknown>) => [line.role, line.debit, line.credit])).toEqual([
      ['cash_flow_hedge_reserve', 23100, 0],
      ['reclassification', 0, 23100],
    ]);
    expect(january.stderr).toContain(
      'EUR-SALE-1/2019-01-01/adjustment: adjusting entries, posted in the first open month',
    );
    // Every entry id of the whole journal is one entry's alone.
    const all = okJson(await run(['acct', 'journal', '--json']));
    const ids = all.map((line: { entry_id: string; date: string }) => `${line.entry_id} ${line.date}`);
    expect(new Set(all.map((line: { entry_id: string }) => line.entry_id)).size).toBe(new Set(ids).size);
  });
});
