// The kinds of hedge beyond cash-flow hedges, and a group's entities, from the command line on the keyless store: the
// files shipped in docs/examples run as written (a fair-value hedge of a firm USD order in a naira subsidiary's books, a
// net-investment hedge of that subsidiary in its dollar parent's), each under IFRS 9 and ASC 815, every figure against
// the hand computation written out here from docs/examples/rates-usdngn.csv.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hedgeIn, tempFolders, ROOT } from '../support/hedge-cli.js';
import { exits, ok, okJson } from '../support/cli-runs.js';

const folder = tempFolders('hedge-acct-types-');
const TODAY = '2026-03-02';
const clock = { now: () => Date.parse(`${TODAY}T12:00:00Z`), sleep: async () => {} };
const EXAMPLES = join(ROOT, 'docs', 'examples');
const example = (name: string) => join(EXAMPLES, name);
const FAIR_VALUE = JSON.parse(readFileSync(example('fair-value.json'), 'utf8'));
const NET_INVESTMENT = JSON.parse(readFileSync(example('net-investment.json'), 'utf8'));
const LATE = ['--recorded-late', 'brought over from the treasury spreadsheet'];

type Row = Record<string, number | string>;

/** The rates file as the hand computation reads it: the spot and forward in naira per dollar, the discount factor in
 * hundredths (0.97 is 97). */
const RATES = readFileSync(example('rates-usdngn.csv'), 'utf8')
  .trim()
  .split('\n')
  .slice(1)
  .map((line) => {
    const [date, spot, forward, factor] = line.split(',');
    return { date, spot: Number(spot), forward: Number(forward), hundredths: Math.round(Number(factor) * 100) };
  });
const monthEnds = (from: string, to: string) =>
  RATES.filter(({ date }) => date > from && date <= to && (date === to || isMonthEnd(date)));
const isMonthEnd = (date: string) => new Date(`${date}T00:00:00Z`).getUTCDate() === lastDay(date);
const lastDay = (date: string) =>
  new Date(Date.UTC(Number(date.slice(0, 4)), Number(date.slice(5, 7)), 0)).getUTCDate();

/** n / d to the cent, half away from zero, exactly (the naira amounts divided by a rate are not whole cents). */
function toCents(n: bigint, d: bigint) {
  const negative = n < 0n !== d < 0n;
  const [a, b] = [n < 0n ? -n : n, d < 0n ? -d : d];
  const cents = (a * 100n * 2n + b) / (2n * b);
  return Number(negative ? -cents : cents) / 100;
}
const round = (x: number) => Math.round(x * 100) / 100;

function setUp() {
  const dir = folder();
  const run = (args: string[]) => hedgeIn(dir, args, { clock });
  const file = (name: string, content: unknown) => {
    const path = join(dir, name);
    writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
    return path;
  };
  return { dir, run, file };
}

/** A group's books as the docs tell them: its entities declared, the rates imported, both relationships designated as
 * written (or under another framework), the press arrived and a quarter of the subsidiary disposed of. */
async function group(variant: { fairValue?: object; netInvestment?: object } = {}) {
  const books = setUp();
  const { run, file } = books;
  ok(await run(['acct', 'entities', example('entities.json')]));
  ok(await run(['acct', 'rates', example('rates-usdngn.csv'), '--market', 'USDNGN', '--quote', 'NGN per USD']));
  const relationship = (name: string, base: object, changed?: object) =>
    changed ? file(name, { ...base, ...changed }) : example(name);
  ok(await run(['acct', 'designate', relationship('fair-value.json', FAIR_VALUE, variant.fairValue), ...LATE]));
  ok(
    await run([
      'acct',
      'designate',
      relationship('net-investment.json', NET_INVESTMENT, variant.netInvestment),
      ...LATE,
    ]),
  );
  ok(await run(['acct', 'event', 'NG01-PRESS', '--occurred', '2026-01-15']));
  ok(await run(['acct', 'event', 'US01-NG01-NI', '--disposed', '2025-06-30', '--share', '0.25']));
  return books;
}

const pick = (rows: Row[], keys: string[]) => rows.map((row) => keys.map((key) => row[key]));
const entries = (rows: Row[], entry: string) =>
  rows.filter((row) => row.entry_id === entry).map((row) => [row.role, row.debit, row.credit]);

// The press: USD 400,000 to pay on 2026-01-15, designated on 2025-08-14 at a spot of 1,780, bought forward at 1,840.
// Each day valued, in naira: the forward's spot element I = 400,000 × (S − 1,780), the order's change for the hedged
// risk H = −I (the same dollars, paid), the forward whole V = 400,000 × (F − 1,840) × D and its points X = V − I.
const PRESS = monthEnds('2025-08-14', '2026-01-15').map(({ date, spot, forward, hundredths }) => {
  const instrument = 400_000 * (spot - 1_780);
  const whole = 4_000 * (forward - 1_840) * hundredths;
  return { date, instrument, whole, points: whole - instrument };
});

describe('a fair-value hedge of a firm USD order in naira (docs/examples/fair-value.json, IFRS 9)', () => {
  it("both changes to profit or loss; the order's change carried as an asset, then a liability, and into the press's cost", async () => {
    const { run } = await group();
    const months = okJson(await run(['acct', 'test', '--entity', 'NG01', '--json']));
    const keys = ['period_end', 'instrument_change', 'hedged_item_change', 'effective', 'ineffective', 'reserve_close'];
    // The order's adjustment is its change for the hedged risk, a credit positive: −H = I; none of it ineffective.
    expect(pick(months, keys)).toEqual(
      PRESS.map(({ date, instrument }, i) => [
        date,
        instrument,
        -instrument,
        instrument - (PRESS[i - 1]?.instrument ?? 0),
        0,
        date === '2026-01-15' ? 0 : instrument,
      ]),
    );
    expect(months.every((row: Row) => row.balance === 'hedged_item_adjustment' && row.currency === 'NGN')).toBe(true);
    // The two quarter ends: 30 September, the naira stronger (1,760): the order is an asset of 400,000 × 20; 31
    // December (1,900): a liability of 400,000 × 120.
    const at = (date: string) => months.find((row: Row) => row.period_end === date);
    expect([at('2025-09-30').reserve_close, at('2025-12-31').reserve_close]).toEqual([-8_000_000, 48_000_000]);
    // The forward points to the cost of hedging reserve (transaction related): 400,000 × (1,805 − 1,840) × 0.97 −
    // (−8,000,000) on 30 September; at the arrival, 400,000 × (1,780 − 1,840), the points at inception.
    expect(at('2025-09-30').cost_of_hedging_close).toBe(-13_580_000 + 8_000_000);
    expect(PRESS.at(-1)!.points).toBe(400_000 * (1_780 - 1_840));
    expect(pick(months, ['cost_of_hedging_close'])).toEqual(
      PRESS.map(({ date, points }) => [date === '2026-01-15' ? 0 : points]),
    );

    // The arrival: the order's 88,000,000 (400,000 × (2,000 − 1,780)) and the points' −24,000,000 go into the press's
    // cost, which is then 400,000 × 2,000 − 64,000,000 = 736,000,000 = 400,000 × 1,840, the forward rate; the forward
    // delivers the dollars at 2,000 for naira at 1,840.
    const journal = okJson(await run(['acct', 'journal', '--entity', 'NG01', '--period', '2026-01', '--json']));
    expect(entries(journal, 'NG01-PRESS/2026-01-15/1')).toEqual([
      ['hedging_instrument', 64_000_000 - 25_740_000, 0],
      ['fair_value_hedge_result', 0, 400_000 * (2_000 - 1_900)],
      ['cost_of_hedging_reserve', 1_740_000, 0],
    ]);
    expect(entries(journal, 'NG01-PRESS/2026-01-15/2')).toEqual([
      ['fair_value_hedge_result', 40_000_000, 0],
      ['hedged_item_adjustment', 0, 40_000_000],
    ]);
    expect(entries(journal, 'NG01-PRESS/2026-01-15/3')).toEqual([
      ['hedged_item_adjustment', 88_000_000, 0],
      ['cost_of_hedging_reserve', 0, 24_000_000],
      ['basis_adjustment', 0, 64_000_000],
    ]);
    expect(400_000 * 2_000 - 64_000_000).toBe(400_000 * 1_840);
    expect(entries(journal, 'NG01-PRESS/2026-01-15/4')).toEqual([
      ['foreign_currency', 400_000 * 2_000, 0],
      ['cash', 0, 400_000 * 1_840],
      ['hedging_instrument', 0, 64_000_000],
    ]);

    // The roll-forward of the order's adjustment a quarter a line: open + effective − reclassified = close.
    const quarter = async (period: string) =>
      okJson(await run(['acct', 'reserve', '--entity', 'NG01', '--period', period, '--json'])).at(-1);
    expect(await quarter('2025-Q3')).toMatchObject({
      reserve_open: 0,
      effective: -8_000_000,
      reserve_close: -8_000_000,
    });
    expect(await quarter('2025-Q4')).toMatchObject({ reserve_open: -8_000_000, reserve_close: 48_000_000 });
    expect(await quarter('2026-Q1')).toMatchObject({
      reserve_open: 48_000_000,
      effective: 40_000_000,
      reclassified: 88_000_000,
      reserve_close: 0,
      balance: 'hedged_item_adjustment',
    });
  });

  it('under ASC 815 the points are amortised over the forward’s 154 days, and the order’s adjustment alone adjusts the press', async () => {
    const { run } = await group({ fairValue: { framework: 'asc815', excluded: 'amortised' } });
    const months = okJson(await run(['acct', 'test', '--entity', 'NG01', '--json']));
    // −24,000,000 × the days since 14 August / 154 (14 August 2025 to 15 January 2026), rounded once.
    const days = (date: string) => (Date.parse(date) - Date.parse('2025-08-14')) / 86_400_000;
    const amortised = (date: string) => round((-24_000_000 * days(date)) / 154);
    expect(days('2026-01-15')).toBe(154);
    expect(amortised('2025-09-30')).toBe(-7_324_675.32);
    expect(pick(months, ['period_end', 'cost_of_hedging_close'])).toEqual(
      PRESS.map(({ date, points }) => [date, round(points - amortised(date))]),
    );
    expect(round(months.reduce((sum: number, row: Row) => sum + Number(row.excluded_to_pnl), 0))).toBe(-24_000_000);
    // The order's adjustment is the same as under IFRS 9; at the arrival it alone adjusts the press: 800,000,000 −
    // 88,000,000 = 712,000,000, the points having gone to profit or loss: 712,000,000 + 24,000,000 = 400,000 × 1,840.
    expect(pick(months, ['reserve_close'])).toEqual(
      PRESS.map(({ date, instrument }) => [date === '2026-01-15' ? 0 : instrument]),
    );
    const journal = okJson(await run(['acct', 'journal', 'NG01-PRESS', '--period', '2026-01', '--json']));
    expect(entries(journal, 'NG01-PRESS/2026-01-15/4')).toEqual([
      ['hedged_item_adjustment', 88_000_000, 0],
      ['basis_adjustment', 0, 88_000_000],
    ]);
    expect(800_000_000 - 88_000_000 + 24_000_000).toBe(400_000 * 1_840);
  });
});

// The subsidiary: NGN 1,800m of its net assets hedged from 2024-10-01 (spot 1,500) by a forward selling NGN 2,000m at
// 1,600, spot element designated. In dollars, each day: the forward's spot element I = 2e9/1,500 − 2e9/S and the
// net assets' change H = 1.8e9/S − 1.8e9/1,500; the forward moves 10/9 of the net assets, so IFRS 9's lower of is
// always |H|: the reserve holds −H, the rest (I + H) is ineffective. ASC 815 takes the whole I to the reserve.
const SUBSIDIARY = monthEnds('2024-10-01', '2026-01-15').map(({ date, spot }) => {
  const instrument = toCents(2_000_000_000n * BigInt(spot) - 2_000_000_000n * 1_500n, 1_500n * BigInt(spot));
  const item = toCents(1_800_000_000n * 1_500n - 1_800_000_000n * BigInt(spot), 1_500n * BigInt(spot));
  return { date, instrument, item };
});

describe('a net-investment hedge of an NGN subsidiary in dollars (docs/examples/net-investment.json)', () => {
  it('IFRS 9: the lower of to the translation reserve, the rest to P&L; a quarter of it reclassified at the partial disposal', async () => {
    const { run } = await group();
    const months = okJson(await run(['acct', 'test', 'US01-NG01-NI', '--as-of', '2026-01-15', '--json']));
    // The two year ends and the disposal, written out: 31 December 2024 (1,600): I = 1,333,333.33 − 1,250,000, H =
    // 1,125,000 − 1,200,000; 30 June 2025 (1,800): I = 1,333,333.33 − 1,111,111.11, H = 1,000,000 − 1,200,000; 31
    // December 2025 (1,900): I = 1,333,333.33 − 1,052,631.58, H = 947,368.42 − 1,200,000.
    const at = (date: string) => SUBSIDIARY.find((each) => each.date === date)!;
    expect(at('2024-12-31')).toEqual({ date: '2024-12-31', instrument: 83_333.33, item: -75_000 });
    expect(at('2025-06-30')).toEqual({ date: '2025-06-30', instrument: 222_222.22, item: -200_000 });
    expect(at('2025-12-31')).toEqual({ date: '2025-12-31', instrument: 280_701.75, item: -252_631.58 });
    expect(at('2026-01-15')).toEqual({ date: '2026-01-15', instrument: 333_333.33, item: -300_000 });
    // On 30 June a quarter of the 200,000 then in the reserve is reclassified: 50,000, from every close after it.
    const disposed = (date: string) => (date >= '2025-06-30' ? 50_000 : 0);
    const expected = SUBSIDIARY.map(({ date, instrument, item }, i) => {
      const before = SUBSIDIARY[i - 1];
      return [
        date,
        instrument,
        item,
        round(-item + (before?.item ?? 0)),
        round(instrument + item - (before ? before.instrument + before.item : 0)),
        date === '2025-06-30' ? 50_000 : 0,
        round(-item - disposed(date)),
      ];
    });
    const keys = ['period_end', 'instrument_change', 'hedged_item_change', 'effective', 'ineffective', 'reclassified'];
    expect(pick(months, [...keys, 'reserve_close'])).toEqual(expected);
    // After the forward's maturity the reserve waits for the rest of the disposal: no month end asks for a rate.
    const after = okJson(await run(['acct', 'test', 'US01-NG01-NI', '--as-of', '2026-02-28', '--json']));
    expect(pick(after.slice(-2), ['period_end', 'status', 'effective', 'reserve_close'])).toEqual([
      ['2026-01-31', 'settled', 47_368.42, 250_000],
      ['2026-02-28', 'ended', 0, 250_000],
    ]);
    expect(months.every((row: Row) => row.balance === 'translation_reserve' && row.currency === 'USD')).toBe(true);
    // What went to P&L: the forward's NGN 200m beyond the net assets, 2e8/1,500 − 2e8/2,000 = 133,333.33 − 100,000.
    expect(round(months.reduce((sum: number, row: Row) => sum + Number(row.ineffective), 0))).toBe(33_333.33);

    // The year ends' roll-forward, a line a year.
    const year = async (period: string) =>
      okJson(await run(['acct', 'reserve', '--entity', 'US01', '--period', period, '--json'])).at(-1);
    expect(await year('2024')).toMatchObject({
      period: '2024',
      reserve_open: 0,
      effective: 75_000,
      reserve_close: 75_000,
    });
    expect(await year('2025')).toMatchObject({
      reserve_open: 75_000,
      effective: 252_631.58 - 75_000,
      reclassified: 50_000,
      reserve_close: 202_631.58,
      balance: 'translation_reserve',
    });
    // The disposal's entry, and the forward settled at its maturity: NGN 2,000m delivered at 2,000 for dollars at
    // 1,600 (1,250,000 − 1,000,000 = 250,000, its value).
    const june = okJson(await run(['acct', 'journal', '--entity', 'US01', '--period', '2025-06', '--json']));
    expect(entries(june, 'US01-NG01-NI/2025-06-30/2')).toEqual([
      ['translation_reserve', 50_000, 0],
      ['reclassification', 0, 50_000],
    ]);
    const january = okJson(await run(['acct', 'journal', '--entity', 'US01', '--period', '2026-01', '--json']));
    expect(entries(january, 'US01-NG01-NI/2026-01-15/2')).toEqual([
      ['foreign_currency', 0, 1_000_000],
      ['cash', 1_250_000, 0],
      ['hedging_instrument', 0, 250_000],
    ]);
    // The rest of the net investment disposed of: what is left of the reserve is reclassified, and the books end.
    ok(await run(['acct', 'event', 'US01-NG01-NI', '--disposed', '2026-02-20']));
    const end = okJson(await run(['acct', 'reserve', 'US01-NG01-NI', '--period', '2026-02', '--json']));
    expect(pick(end, ['period_end', 'reserve_open', 'reclassified', 'reserve_close'])).toEqual([
      ['2026-02-20', 250_000, 250_000, 0],
    ]);
    exits(
      await run(['acct', 'event', 'US01-NG01-NI', '--disposed', '2026-02-25']),
      2,
      'already ended: the operation was disposed of (all of it by 2026-02-20)',
    );
  });

  it('ASC 815: the whole designated change to the CTA, nothing to P&L; a quarter of it reclassified at the partial disposal', async () => {
    const { run } = await group({ netInvestment: { framework: 'asc815' } });
    const months = okJson(await run(['acct', 'test', 'US01-NG01-NI', '--as-of', '2026-01-15', '--json']));
    // A quarter of 222,222.22 on 30 June: 55,555.555, rounded once to 55,555.56.
    const disposed = (date: string) => (date >= '2025-06-30' ? 55_555.56 : 0);
    expect(pick(months, ['period_end', 'ineffective', 'reserve_close'])).toEqual(
      SUBSIDIARY.map(({ date, instrument }) => [date, 0, round(instrument - disposed(date))]),
    );
    const year = okJson(await run(['acct', 'reserve', '--entity', 'US01', '--period', '2025', '--json'])).at(-1);
    expect(year).toMatchObject({ reserve_open: 83_333.33, reclassified: 55_555.56, reserve_close: 225_146.19 });
    expect(round(280_701.75 - 55_555.56)).toBe(225_146.19);
  });
});

describe('entities: each declared once, every report and close one entity’s books, never two currencies summed', () => {
  it('several entities need --entity; each closes its own months; a relationship’s id names its entity', async () => {
    const { run } = await group();
    for (const command of ['test', 'reserve', 'journal'])
      exits(
        await run(['acct', command]),
        2,
        "--entity: the relationships are in the books of NG01 (NGN), US01 (USD), each in its own currency, never summed; give --entity CODE, or a relationship's ID.",
      );
    exits(await run(['acct', 'close', '--period', '2024-10']), 2, '--entity: the relationships are in the books of');
    exits(
      await run(['acct', 'test', '--entity', 'ZA01']),
      2,
      '--entity: ZA01 is not a declared entity (declared: US01, NG01)',
    );
    exits(
      await run(['acct', 'test', 'NG01-PRESS', '--entity', 'US01']),
      2,
      "--entity: NG01-PRESS is in NG01's books, not US01's.",
    );
    // The inventory lists every entity's relationships, each with its entity, kind of hedge and balance (nothing
    // summed), or one entity's; an entity no one declared is refused.
    const listed = async (args: string[]) =>
      pick(okJson(await run(['acct', 'list', ...args, '--json'])), ['id', 'entity', 'type', 'balance']);
    expect(await listed([])).toEqual([
      ['NG01-PRESS', 'NG01', 'fair_value', 'hedged_item_adjustment'],
      ['US01-NG01-NI', 'US01', 'net_investment', 'translation_reserve'],
    ]);
    expect(await listed(['--entity', 'NG01'])).toEqual([
      ['NG01-PRESS', 'NG01', 'fair_value', 'hedged_item_adjustment'],
    ]);
    exits(await run(['acct', 'list', '--entity', 'ZA01']), 2, '--entity: ZA01 is not a declared entity');
    const naira = okJson(await run(['acct', 'journal', '--entity', 'NG01', '--json']));
    expect(new Set(naira.map((row: Row) => `${row.relationship_id} ${row.currency}`))).toEqual(
      new Set(['NG01-PRESS NGN']),
    );

    // Each entity's months close in order from its own first designation, apart from the other's.
    exits(await run(['acct', 'close', '--period', '2024-10', '--entity', 'NG01']), 2, 'close 2025-08 first');
    const closed = okJson(await run(['acct', 'close', '--period', '2025-Q3', '--entity', 'NG01', '--json']));
    expect(closed).toMatchObject({ entity: 'NG01', months: ['2025-07', '2025-08', '2025-09'] });
    // Each relationship's balance as its own entity's last close left it, in its currency: NG01's order at 30
    // September, an asset of 400,000 × 20 naira; US01's books not closed yet.
    expect(pick(okJson(await run(['acct', 'list', '--json'])), ['id', 'reserve', 'currency', 'reserve_as_of'])).toEqual(
      [
        ['NG01-PRESS', -8_000_000, 'NGN', '2025-09-30'],
        ['US01-NG01-NI', null, null, null],
      ],
    );
    exits(await run(['acct', 'close', '--period', '2025-08', '--entity', 'US01']), 2, 'close 2024-10 first');
    ok(await run(['acct', 'close', '--period', '2024', '--entity', 'US01']));
    const september = ['acct', 'journal', '--entity', 'NG01', '--period', '2025-09'];
    const posted = ok(await run(september)).stdout;
    // A correction of a rate in a month NG01 closed posts its adjustment in NG01's first open month, not US01's.
    const rates = readFileSync(example('rates-usdngn.csv'), 'utf8').split('\n');
    const corrected = setUpFile(
      rates.find((line) => line.startsWith('2025-09-30'))!.replace('2025-09-30,1760', '2025-09-30,1765'),
    );
    ok(
      await run([
        'acct',
        'rates',
        corrected,
        '--market',
        'USDNGN',
        '--quote',
        'NGN per USD',
        '--correct',
        '--reason',
        'the fixing',
      ]),
    );
    expect(ok(await run(september)).stdout).toBe(posted);
    const october = okJson(await run(['acct', 'journal', '--entity', 'NG01', '--period', '2025-10', '--json']));
    expect(october.some((row: Row) => row.entry_id === 'NG01-PRESS/2025-10-01/adjustment')).toBe(true);
    const dollars = okJson(await run(['acct', 'journal', '--entity', 'US01', '--period', '2025-10', '--json']));
    expect(dollars.some((row: Row) => String(row.entry_id).endsWith('/adjustment'))).toBe(false);

    function setUpFile(line: string) {
      const path = join(folder(), 'fixed.csv');
      writeFileSync(path, `date,spot,forward,discount_factor,source\n${line}\n`);
      return path;
    }
  });

  it('declared once: the same again adds nothing, other figures are refused, one default at most', async () => {
    const { run, file } = setUp();
    expect(okJson(await run(['acct', 'entities', example('entities.json'), '--json']))).toEqual({
      declared: 2,
      pending_approval: [],
    });
    expect(okJson(await run(['acct', 'entities', example('entities.json'), '--json']))).toEqual({
      declared: 0,
      pending_approval: [],
    });
    const renamed = file('renamed.json', {
      entities: [{ code: 'NG01', name: 'Acme Nigeria Plc', functional_currency: 'NGN' }],
    });
    exits(
      await run(['acct', 'entities', renamed]),
      2,
      'code: NG01 is declared already (Acme Nigeria Ltd, books in NGN)',
    );
    const two = file('two.json', {
      entities: [
        { code: 'GH01', name: 'Acme Ghana', functional_currency: 'GHS', default: true },
        { code: 'KE01', name: 'Acme Kenya', functional_currency: 'KES', default: true },
      ],
    });
    exits(await run(['acct', 'entities', two]), 2, 'default: GH01 and KE01 are each the default');
    exits(
      await run(['acct', 'entities', file('bad.json', { entities: [{ code: 'NG 1' }] })]),
      2,
      'code: expected a company code',
    );
    exits(await run(['acct', 'test', '--entity', 'NG01']), 2, "id: no relationship is designated yet in NG01's books");
    // The trail says each declaration, as it says every record.
    expect(pick(okJson(await run(['acct', 'log', '--json'])), ['kind', 'subject', 'what'])).toEqual([
      ['entity', 'US01', 'entity declared: Acme Holdings Inc., books in USD'],
      ['entity', 'NG01', 'entity declared: Acme Nigeria Ltd, books in NGN'],
    ]);
    expect(pick(okJson(await run(['acct', 'entities', '--json'])), ['code', 'functional_currency', 'default'])).toEqual(
      [
        ['US01', 'USD', false],
        ['NG01', 'NGN', false],
      ],
    );
  });

  it('relationships designated before the entities are the default entity’s books; without one they refuse the entities', async () => {
    const { run, file } = setUp();
    ok(
      await run(['acct', 'rates', join(EXAMPLES, 'rates-eurusd.csv'), '--market', 'EURUSD', '--quote', 'USD per EUR']),
    );
    ok(await run(['acct', 'designate', join(EXAMPLES, 'relationship.json'), '--recorded-late', 'from 2018']));
    ok(await run(['acct', 'close', '--period', '2018-10']));
    exits(await run(['acct', 'entities', example('entities.json')]), 2, 'default: EUR-SALE-1 name no entity');
    const euro = file('eu.json', {
      entities: [{ code: 'EU01', name: 'Acme Europe', functional_currency: 'EUR', default: true }],
    });
    exits(
      await run(['acct', 'entities', euro]),
      2,
      "default: EU01's books are in EUR, and EUR-SALE-1, which names no entity, is in USD",
    );
    const withDefault = file('group.json', {
      entities: [
        { code: 'US01', name: 'Acme Holdings Inc.', functional_currency: 'USD', default: true },
        { code: 'NG01', name: 'Acme Nigeria Ltd', functional_currency: 'NGN' },
      ],
    });
    ok(await run(['acct', 'entities', withDefault]));
    // Its close, recorded before, is US01's: November closes next for US01; NG01's books have nothing to close.
    exits(await run(['acct', 'close', '--period', '2018-12', '--entity', 'US01']), 2, 'close 2018-11 first');
    const rows = okJson(await run(['acct', 'test', '--entity', 'US01', '--as-of', '2019-02-01', '--json']));
    expect(rows.map((row: Row) => row.relationship_id)).toContain('EUR-SALE-1');
    // A relationship designated from now on names its entity, or is the default's.
    exits(
      await run(['acct', 'designate', file('ng.json', { ...FAIR_VALUE, entity: 'US01' }), ...LATE]),
      2,
      "functional_currency: NGN is not US01's (its books are in USD); expected USD.",
    );
  });
});

describe('what each kind of hedge takes is its row of the rules table: the rest refused in one line, nothing recorded', () => {
  const cases: Array<[string, object, string]> = [
    [
      'a fair-value hedge of a forecast transaction',
      { ...FAIR_VALUE, hedged_item: { ...FAIR_VALUE.hedged_item, kind: 'forecast' } },
      "hedged_item.kind: forecast is not a fair-value hedge's hedged item (IFRS 9 6.5.8); expected firm or recognised.",
    ],
    [
      'a fair-value hedge with on_occurrence',
      { ...FAIR_VALUE, on_occurrence: 'reclassify' },
      "on_occurrence: a fair-value hedge's balance goes where its row says (IFRS 9 6.5.9); leave it out.",
    ],
    [
      'a fair-value hedge with no date',
      { ...FAIR_VALUE, hedged_item: { ...FAIR_VALUE.hedged_item, expected_date: undefined } },
      "hedged_item.expected_date: missing; a fair-value hedge's hedged item needs it.",
    ],
    [
      'a net investment without its operation',
      { ...NET_INVESTMENT, hedged_item: { ...NET_INVESTMENT.hedged_item, operation: undefined } },
      "hedged_item.operation: missing; a net-investment hedge's hedged item needs it.",
    ],
    [
      'a net investment in an entity not declared',
      { ...NET_INVESTMENT, hedged_item: { ...NET_INVESTMENT.hedged_item, operation: 'ZA01' } },
      'hedged_item.operation: ZA01 is not a declared entity (declared: US01, NG01; declare it first (hedge acct entities FILE)).',
    ],
    [
      'a net investment in its own entity',
      {
        ...NET_INVESTMENT,
        entity: 'NG01',
        functional_currency: 'NGN',
        hedged_item: { ...NET_INVESTMENT.hedged_item, currency: 'USD', operation: 'NG01' },
        instrument: { ...NET_INVESTMENT.instrument, currency: 'USD' },
      },
      "hedged_item.operation: NG01 is the relationship's own entity",
    ],
    [
      'a net investment judged by critical terms',
      { ...NET_INVESTMENT, method: 'critical_terms' },
      "method: critical_terms compares the instrument's maturity with the hedged item's date, and a net investment has none",
    ],
    [
      'an operation named on a cash-flow hedge',
      {
        ...FAIR_VALUE,
        type: 'cash_flow',
        hedged_item: { ...FAIR_VALUE.hedged_item, probability_evidence: 'order', operation: 'US01' },
      },
      'hedged_item.operation: the foreign operation of a net investment; a cash-flow hedge has none: leave it out.',
    ],
    ['an entity not declared', { ...FAIR_VALUE, entity: 'ZA01' }, 'entity: ZA01 is not a declared entity'],
    [
      'no entity where entities are declared and none is the default',
      (({ entity: _, ...rest }) => rest)(FAIR_VALUE),
      'entity: missing; the books are kept by entity (US01, NG01): name the one this relationship is in.',
    ],
  ];
  for (const [what, relationship, said] of cases)
    it(`${what}: exit 2, nothing recorded`, async () => {
      const { run, file } = setUp();
      ok(await run(['acct', 'entities', example('entities.json')]));
      ok(await run(['acct', 'rates', example('rates-usdngn.csv'), '--market', 'USDNGN', '--quote', 'NGN per USD']));
      const result = exits(await run(['acct', 'designate', file('r.json', relationship), ...LATE]), 2, said);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(okJson(await run(['acct', 'list', '--json']))).toEqual([]);
    });

  it('a net investment is disposed of, never occurs; a fair-value hedge occurs; neither is "not expected" but a cash-flow hedge', async () => {
    const { run } = await group();
    exits(
      await run(['acct', 'event', 'US01-NG01-NI', '--occurred', '2026-02-01']),
      2,
      '--occurred: US01-NG01-NI is a net-investment hedge: nothing is reclassified until the operation is disposed of (--disposed DATE [--share S]).',
    );
    exits(
      await run(['acct', 'event', 'NG01-PRESS', '--disposed', '2026-02-01']),
      2,
      '--disposed: for a net-investment hedge; NG01-PRESS is a fair-value hedge, whose transaction is recorded with --occurred DATE.',
    );
    exits(
      await run([
        'acct',
        'event',
        'US01-NG01-NI',
        '--de-designate',
        '2026-02-01',
        '--reason',
        'sold',
        '--not-expected',
      ]),
      2,
      '--not-expected: US01-NG01-NI is a net-investment hedge, which has no transaction to expect; the translation reserve stays until the operation is disposed of.',
    );
    // IFRS 9 ends a net investment's hedge accounting on a ground as any other's; it has no transaction to stop
    // expecting, so none is offered.
    const ungrounded = exits(
      await run(['acct', 'event', 'US01-NG01-NI', '--de-designate', '2026-02-01', '--reason', 'sold']),
      2,
      '--ground: a de-designation without its ground is refused under IFRS 9, which discontinues hedge accounting only when the relationship no longer meets the qualifying criteria (IFRS 9 6.5.6)',
    );
    expect(ungrounded.stderr).not.toContain('--not-expected');
    exits(
      await run(['acct', 'event', 'US01-NG01-NI', '--disposed', '2026-02-01', '--reason', 'x']),
      2,
      '--reason: not with --disposed',
    );
    const memo = ok(await run(['acct', 'show', 'US01-NG01-NI'])).stdout.replace(/\s+/g, ' ');
    expect(memo).toContain('Framework: IFRS 9, net-investment hedge');
    expect(memo).toContain('(the net assets of NG01, a foreign operation)');
    expect(memo).toContain('Disposed of: 2025-06-30 (a share of 0.25)');
    expect(memo).toContain('deferral IFRS 9 6.5.13, by 6.5.11(a) (the lower of the two changes)');
    expect(memo).toContain('disposal IFRS 9 6.5.14, IAS 21.48–48D, IFRIC 16.16–17');
  });
});
