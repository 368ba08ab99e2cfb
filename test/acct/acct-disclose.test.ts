// `hedge acct disclose`: a period's hedge-accounting disclosures from the books, on the textbook forward of
// docs/accounting.md (sell EUR 770,000 forward at 1.23 for a sale on 1 February 2019; forward rate 1.20 at the year
// end, 1.19 on the day). Every figure by hand below; the reserve's reconciliation is the roll-forward's.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hedgeIn, tempFolders, ROOT } from '../support/hedge-cli.js';
import { exits, ok, okJson } from '../support/cli-runs.js';

const folder = tempFolders('hedge-acct-disclose-');
const clock = { now: () => Date.parse('2026-03-02T12:00:00Z'), sleep: async () => {} };
const EXAMPLES = join(ROOT, 'docs', 'examples');
const EXAMPLE = JSON.parse(readFileSync(join(EXAMPLES, 'relationship.json'), 'utf8'));

async function setUp(relationship: Record<string, unknown>, ...events: string[][]) {
  const dir = folder();
  const run = (args: string[]) => hedgeIn(dir, args, { clock });
  ok(await run(['acct', 'rates', join(EXAMPLES, 'rates-eurusd.csv'), '--market', 'EURUSD', '--quote', 'USD per EUR']));
  const path = join(dir, 'r.json');
  writeFileSync(path, JSON.stringify({ ...EXAMPLE, ...relationship }));
  ok(await run(['acct', 'designate', path, '--recorded-late', 'the textbook exercise']));
  for (const event of events) ok(await run(['acct', 'event', 'EUR-SALE-1', ...event]));
  /** The period's figures as [paragraph, item, amount, currency]; a nominal amount's with its average rate. */
  const disclosed = async (period: string) =>
    (okJson(await run(['acct', 'disclose', '--period', period, '--json'])) as Array<Record<string, unknown>>).map(
      (line) => [
        line.paragraph,
        line.item,
        line.amount,
        line.currency,
        ...(line.average_rate ? [line.average_rate] : []),
      ],
    );
  return { dir, run, disclosed };
}

const OCCURRED = ['--occurred', '2019-02-01'];

describe('IFRS 7 under IFRS 9: the forward designated whole', () => {
  it('2018-Q4: the forward held at the year end, 23,100 deferred; 2019-Q1: settled, the reserve to revenue', async () => {
    const { disclosed } = await setUp({ framework: 'ifrs9' }, OCCURRED);
    // 31 December: the forward is worth 770,000 × (1.23 − 1.20) = 23,100, an asset; the sale has lost as much at the
    // forward rate, 770,000 × (1.20 − 1.23) = −23,100; IFRS 9 defers the lower of, all of it. The forward matures on
    // 1 February, between one and three months after the year end.
    expect(await disclosed('2018-Q4')).toEqual([
      ['24A(a)–(b)', 'carrying amount: assets', 23100, 'USD'],
      ['24A(a)–(b)', 'carrying amount: liabilities', 0, 'USD'],
      ['24A(c)', 'instrument change for ineffectiveness', 23100, 'USD'],
      ['24A(d)', 'nominal amount', 770000, 'EUR', '1.23'],
      ['23B', 'nominal maturing 1 to 3 months', 770000, 'EUR', '1.23'],
      ['24B(b)(i)', 'hedged item change for ineffectiveness', -23100, 'USD'],
      ['24B(b)(ii)', 'reserve of continuing hedges', 23100, 'USD'],
      ['24B(b)(iii)', 'reserve where hedge accounting ended', 0, 'USD'],
      ['24C(b)(i)', 'hedging gain or loss in OCI', 23100, 'USD'],
      ['24C(b)(ii)–(iii)', 'ineffectiveness in P&L', 0, 'USD'],
      ['24C(b)(iv)–(v)', 'reclassified: the item affected P&L', 0, 'USD'],
      ['24C(b)(iv)–(v)', 'reclassified: no longer expected', 0, 'USD'],
      ['24E(a), 24F', 'reserve: opening', 0, 'USD'],
      ['24E(a), 24F', 'reserve: effective part (OCI)', 23100, 'USD'],
      ['24E(a), 24F', 'reserve: reclassified, the item affected P&L', 0, 'USD'],
      ['24E(a), 24F', 'reserve: reclassified, no longer expected', 0, 'USD'],
      ['24E(a), 24F', 'reserve: basis adjustment', 0, 'USD'],
      ['24E(a), 24F', 'reserve: adjustment of a closed month', 0, 'USD'],
      ['24E(a), 24F', 'reserve: closing', 23100, 'USD'],
    ]);
    // 1 February: 770,000 × (1.20 − 1.19) = 7,700 more, and the sale happens: the reserve's 30,800 goes to revenue.
    // Nothing is held at the quarter's end.
    const quarter = await disclosed('2019-Q1');
    expect(quarter.filter(([paragraph]) => /^24A|^23B/.test(String(paragraph)))).toEqual([
      ['24A(a)–(b)', 'carrying amount: assets', 0, 'USD'],
      ['24A(a)–(b)', 'carrying amount: liabilities', 0, 'USD'],
      ['24A(c)', 'instrument change for ineffectiveness', 7700, 'USD'],
    ]);
    expect(quarter.filter(([paragraph]) => /^24E/.test(String(paragraph))).map((line) => line[2])).toEqual([
      23100, 7700, -30800, 0, 0, 0, 0,
    ]);
    expect(quarter).toContainEqual(['24B(b)(i)', 'hedged item change for ineffectiveness', -7700, 'USD']);
    expect(quarter).toContainEqual(['24C(b)(iv)–(v)', 'reclassified: the item affected P&L', 30800, 'USD']);
  });

  it('the reserve reconciled is the roll-forward: opening, effective, reclassified and closing as `acct reserve` has them', async () => {
    const { run, disclosed } = await setUp({ framework: 'ifrs9' }, OCCURRED);
    for (const period of ['2018-Q4', '2019-Q1', '2018', '2019-02']) {
      const reserve = okJson(await run(['acct', 'reserve', '--period', period, '--json'])).at(-1);
      const lines = (await disclosed(period)).filter(([paragraph]) => /^24E/.test(String(paragraph)));
      const [open, effective, toPnl, released, basis, adjustment, close] = lines.map((line) => Number(line[2]));
      expect([open, effective, -(toPnl + released + basis) || 0, adjustment, close]).toEqual([
        reserve.reserve_open,
        reserve.effective,
        reserve.reclassified,
        reserve.adjustment,
        reserve.reserve_close,
      ]);
    }
  });

  it('de-designated at the year end, the transaction still expected: January holds the reserve where hedge accounting ended; no longer expected, it is released', async () => {
    const ended = await setUp({ framework: 'ifrs9' }, [
      ...['--de-designate', '2018-12-31', '--ground', 'objective-changed', '--reason', 'the retailer pays in dollars'],
    ]);
    const january = await ended.disclosed('2019-01');
    expect(january).toContainEqual(['24B(b)(ii)', 'reserve of continuing hedges', 0, 'USD']);
    expect(january).toContainEqual(['24B(b)(iii)', 'reserve where hedge accounting ended', 23100, 'USD']);
    // Not designated in January: no change of the instrument or the item counts, no nominal, no carrying amount.
    expect(january).toContainEqual(['24A(c)', 'instrument change for ineffectiveness', 0, 'USD']);
    expect(january).toContainEqual(['24B(b)(i)', 'hedged item change for ineffectiveness', 0, 'USD']);
    expect(january.some(([paragraph]) => paragraph === '24A(d)')).toBe(false);
    const released = await setUp({ framework: 'ifrs9' }, [
      ...['--de-designate', '2019-01-31', '--not-expected', '--reason', 'the sale was cancelled'],
    ]);
    const lines = await released.disclosed('2019-01');
    expect(lines).toContainEqual(['24C(b)(iv)–(v)', 'reclassified: no longer expected', 23100, 'USD']);
    expect(lines.filter(([paragraph]) => /^24E/.test(String(paragraph))).map((line) => line[2])).toEqual([
      23100, 0, 0, -23100, 0, 0, 0,
    ]);
  });
});

it('ASC 815: the tabular disclosures — fair values by location, OCI and reclassifications, what is reclassified within 12 months', async () => {
  const { disclosed } = await setUp({}, OCCURRED);
  const year = await disclosed('2018');
  expect(year).toEqual([
    ['815-10-50-4A', 'derivatives at fair value: assets', 23100, 'USD'],
    ['815-10-50-4A', 'derivatives at fair value: liabilities', 0, 'USD'],
    ['815-10-50-1B', 'nominal amount', 770000, 'EUR', '1.23'],
    ['815-10-50-1B', 'nominal maturing 1 to 3 months', 770000, 'EUR', '1.23'],
    ['815-10-50-4C', 'gain or loss in OCI', 23100, 'USD'],
    ['815-10-50-4C', 'reclassified from AOCI into earnings', 0, 'USD'],
    ['815-30-50-1(d)', 'reclassified: the transaction probably will not occur', 0, 'USD'],
    ['815-10-50-4CC', 'excluded component in earnings', 0, 'USD'],
    ['220-10-45-14A', 'reserve: opening', 0, 'USD'],
    ['220-10-45-14A', 'reserve: effective part (OCI)', 23100, 'USD'],
    ['220-10-45-14A', 'reserve: reclassified, the item affected P&L', 0, 'USD'],
    ['220-10-45-14A', 'reserve: reclassified, no longer expected', 0, 'USD'],
    ['220-10-45-14A', 'reserve: adjustment of a closed month', 0, 'USD'],
    ['220-10-45-14A', 'reserve: closing', 23100, 'USD'],
    // The sale on 1 February 2019 is within 12 months of the year end: all of it.
    ['815-30-50-1(c)', 'AOCI to be reclassified within 12 months', 23100, 'USD'],
    ['815-30-50-1(b)', 'longest forecast hedged: 2019-02-01', null, 'USD'],
  ]);
  expect(await disclosed('2019-02')).toContainEqual([
    '815-10-50-4C',
    'reclassified from AOCI into earnings',
    30800,
    'USD',
  ]);
});

it('CSV, the line items named by the accounts, and a page beside the report’s; a period refused in one line', async () => {
  const { dir, run } = await setUp({ framework: 'ifrs9' }, OCCURRED);
  const accounts = join(EXAMPLES, 'gl-accounts.json');
  const csv = ok(await run(['acct', 'disclose', '--period', '2018-Q4', '--accounts', accounts, '--format', 'csv']))
    .stdout.trim()
    .split('\n');
  expect(csv[0]).toBe(
    'period,standard,paragraph,risk,hedge_type,item,line_item,amount,currency,average_rate,rate_quote',
  );
  expect(csv[1]).toBe(
    '2018-Q4,IFRS 7,24A(a)–(b),foreign currency (EURUSD),cash_flow,carrying amount: assets,1450 Derivative financial instruments (asset),23100,USD,,',
  );
  expect(csv).toContain(
    '2018-Q4,IFRS 7,24A(d),foreign currency (EURUSD),cash_flow,nominal amount,,770000,EUR,1.23,USD per EUR',
  );
  const page = join(dir, 'disclosures.html');
  ok(await run(['acct', 'disclose', '--period', '2018-Q4', '--html', page]));
  // The page's text, its characters escaped as the report's are (`(` as `&#40;`) read back.
  const html = readFileSync(page, 'utf8').replace(/&#(\d+);/g, (_, code) => String.fromCharCode(Number(code)));
  expect(html).toContain('<h2>IFRS 7: foreign currency (EURUSD), cash flow hedges</h2>');
  expect(html).toContain('<td>24E(a), 24F</td><td>reserve: closing</td><td></td><td class="amount">USD 23,100.00</td>');
  expect(html).not.toContain('<script');
  exits(await run(['acct', 'disclose']), 2, '--period: missing; expected a month');
  exits(await run(['acct', 'disclose', '--period', '2018-13']), 2, '--period: "2018-13" is not allowed');
  expect(existsSync(join(dir, 'other.html'))).toBe(false);
});

describe('a group’s books: fair-value and net-investment hedges in lines of their own, beside a cash-flow hedge', () => {
  // docs/examples' group (IFRS 9): NG01 (naira books) hedges a firm USD 400,000 order at fair value, designated on
  // 2025-08-14 at a spot of 1,780 with a forward buying the dollars at 1,840 for 2026-01-15 (its points to the cost of
  // hedging reserve); US01 (dollar books) hedges NGN 1,800m of NG01's net assets with a forward selling NGN 2,000m at
  // 1,600 for 2026-01-15, designated on 2024-10-01 at 1,500, a quarter disposed of on 2025-06-30; and, beside it, a
  // cash-flow hedge of a forecast NGN 1,800m receipt on 2026-01-15 with a forward like it. Rates (NGN per USD) from
  // docs/examples/rates-usdngn.csv: spot, forward, discount factor on 2024-12-31 1,600, 1,690, 0.91; on 2025-09-30
  // 1,760, 1,805, 0.97; on 2025-12-31 1,900, 1,905, 0.99.
  async function group(framework = 'ifrs9') {
    const dir = folder();
    const run = (args: string[]) => hedgeIn(dir, args, { clock });
    const example = (name: string) => JSON.parse(readFileSync(join(EXAMPLES, name), 'utf8'));
    const designate = async (relationship: Record<string, unknown>) => {
      const path = join(dir, `${String(relationship.id)}.json`);
      writeFileSync(path, JSON.stringify({ ...relationship, framework }));
      ok(await run(['acct', 'designate', path, '--recorded-late', 'the worked example']));
    };
    ok(await run(['acct', 'entities', join(EXAMPLES, 'entities.json')]));
    ok(
      await run(['acct', 'rates', join(EXAMPLES, 'rates-usdngn.csv'), '--market', 'USDNGN', '--quote', 'NGN per USD']),
    );
    const fairValue = example('fair-value.json');
    await designate(framework === 'asc815' ? { ...fairValue, excluded: 'amortised' } : fairValue);
    const netInvestment = example('net-investment.json');
    await designate(netInvestment);
    await designate({
      ...netInvestment,
      id: 'US01-NGN-SALE',
      type: 'cash_flow',
      objective: 'Fix the dollar value of a forecast naira receipt.',
      hedged_item: {
        description: 'NGN 1,800m of dividends NG01 forecasts to pay',
        currency: 'NGN',
        amount: '1800000000',
        expected_date: '2026-01-15',
        kind: 'forecast',
        probability_evidence: "NG01's board minutes",
      },
    });
    ok(await run(['acct', 'event', 'NG01-PRESS', '--occurred', '2026-01-15']));
    ok(await run(['acct', 'event', 'US01-NG01-NI', '--disposed', '2025-06-30', '--share', '0.25']));
    const disclosed = async (period: string, entity: string) =>
      (
        okJson(await run(['acct', 'disclose', '--period', period, '--entity', entity, '--json'])) as Array<
          Record<string, unknown>
        >
      ).map((line) => [
        line.hedge_type,
        line.paragraph,
        line.item,
        line.line_item,
        line.amount,
        line.currency,
        ...(line.average_rate ? [line.average_rate] : []),
      ]);
    return { dir, run, disclosed };
  }

  it('IFRS 9, NG01’s 2025-Q3: the order’s fair-value hedge — the hedged item’s adjustment and both changes in P&L, no reserve of OCI but the cost of hedging', async () => {
    const { disclosed } = await group();
    // 30 September: the forward's spot element I = 400,000 × (1,760 − 1,780) = −8,000,000; the forward whole
    // 400,000 × (1,805 − 1,840) × 0.97 = −13,580,000, a liability. The order's change for the hedged risk is −I =
    // 8,000,000, carried as an asset: a firm commitment is recognised by its adjustment alone. Both changes go to
    // fair_value_hedge_result and leave nothing: no ineffectiveness. The points, −13,580,000 + 8,000,000 = −5,580,000,
    // wait in the cost of hedging reserve. The forward matures on 2026-01-15: 3 to 12 months after the quarter's end.
    const F = 'fair_value';
    expect(await disclosed('2025-Q3', 'NG01')).toEqual([
      [F, '24A(a)–(b)', 'carrying amount: assets', 'hedging_instrument (asset)', 0, 'NGN'],
      [F, '24A(a)–(b)', 'carrying amount: liabilities', 'hedging_instrument (liability)', 13_580_000, 'NGN'],
      [F, '24A(c)', 'instrument change for ineffectiveness', null, -8_000_000, 'NGN'],
      [F, '24A(d)', 'nominal amount', null, 400_000, 'USD', '1840'],
      [F, '23B', 'nominal maturing 3 to 12 months', null, 400_000, 'USD', '1840'],
      [
        F,
        '24B(a)(i), (iii)',
        'hedged item carrying amount: assets',
        'hedged_item_adjustment (asset)',
        8_000_000,
        'NGN',
      ],
      [
        F,
        '24B(a)(i), (iii)',
        'hedged item carrying amount: liabilities',
        'hedged_item_adjustment (liability)',
        0,
        'NGN',
      ],
      [F, '24B(a)(ii)', 'fair value hedge adjustments in it: assets', null, 8_000_000, 'NGN'],
      [F, '24B(a)(ii)', 'fair value hedge adjustments in it: liabilities', null, 0, 'NGN'],
      [F, '24B(a)(iv)', 'hedged item change for ineffectiveness', null, 8_000_000, 'NGN'],
      [F, '24B(a)(v)', 'adjustments left where hedging ended: assets', null, 0, 'NGN'],
      [F, '24B(a)(v)', 'adjustments left where hedging ended: liabilities', null, 0, 'NGN'],
      [F, '24C(a)(i)–(ii)', 'ineffectiveness in P&L', 'fair_value_hedge_result', 0, 'NGN'],
      [F, '24E(b)–(c), 24F', 'cost of hedging reserve: opening', null, 0, 'NGN'],
      [F, '24E(b)–(c), 24F', 'cost of hedging reserve: change', null, -5_580_000, 'NGN'],
      [F, '24E(b)–(c), 24F', 'cost of hedging reserve: reclassified', null, 0, 'NGN'],
      [F, '24E(b)–(c), 24F', 'cost of hedging reserve: adjustment', null, 0, 'NGN'],
      [F, '24E(b)–(c), 24F', 'cost of hedging reserve: closing', null, -5_580_000, 'NGN'],
    ]);
  });

  it('IFRS 9, US01’s 2025: the net investment’s translation reserve and its disposal, beside the cash-flow hedge’s reserve — never summed', async () => {
    const { dir, run, disclosed } = await group();
    // Each forward: I = 2e9 / 1,500 − 2e9 / S, 83,333.33 on 2024-12-31 and 280,701.75 on 2025-12-31 (197,368.42 in
    // 2025); its whole value (1,250,000 − 2e9 / 1,905) × 0.99 = 198,129.92 at the year end, an asset. The net assets
    // (and the receipt) change by 1.8e9 / S − 1.8e9 / 1,500: −75,000.00, then −252,631.58 (−177,631.58 in 2025). The
    // lower of: 75,000.00, then 252,631.58, so 177,631.58 to OCI and 197,368.42 − 177,631.58 = 19,736.84 to P&L. The
    // disposal of a quarter on 2025-06-30 (the lower of then 200,000.00) reclassifies 50,000.00 of the translation
    // reserve: it closes at 75,000.00 + 177,631.58 − 50,000.00 = 202,631.58; the cash-flow reserve at 252,631.58.
    const both = (type: string) => [
      [type, '24A(a)–(b)', 'carrying amount: assets', 'hedging_instrument (asset)', 198_129.92, 'USD'],
      [type, '24A(a)–(b)', 'carrying amount: liabilities', 'hedging_instrument (liability)', 0, 'USD'],
      [type, '24A(c)', 'instrument change for ineffectiveness', null, 197_368.42, 'USD'],
      [type, '24A(d)', 'nominal amount', null, 2_000_000_000, 'NGN', '1600'],
      [type, '23B', 'nominal maturing up to 1 month', null, 2_000_000_000, 'NGN', '1600'],
      [type, '24B(b)(i)', 'hedged item change for ineffectiveness', null, -177_631.58, 'USD'],
    ];
    const N = 'net_investment';
    const C = 'cash_flow';
    expect(await disclosed('2025', 'US01')).toEqual([
      ...both(N),
      [N, '24B(b)(ii)', 'translation reserve of continuing hedges', 'translation_reserve', 202_631.58, 'USD'],
      [N, '24B(b)(iii)', 'translation reserve where hedge accounting ended', 'translation_reserve', 0, 'USD'],
      [N, '24C(b)(i)', 'hedging gain or loss in OCI', null, 177_631.58, 'USD'],
      [N, '24C(b)(ii)–(iii)', 'ineffectiveness in P&L', 'hedge_ineffectiveness', 19_736.84, 'USD'],
      [N, '24C(b)(iv)–(v)', 'reclassified: the operation disposed of', 'reclassification', 50_000, 'USD'],
      [N, '24E(a), 24F', 'translation reserve: opening', null, 75_000, 'USD'],
      [N, '24E(a), 24F', 'translation reserve: effective part (OCI)', null, 177_631.58, 'USD'],
      [
        N,
        '24E(a), 24F',
        'translation reserve: reclassified, the operation disposed of',
        'reclassification',
        -50_000,
        'USD',
      ],
      [N, '24E(a), 24F', 'translation reserve: adjustment of a closed month', null, 0, 'USD'],
      [N, '24E(a), 24F', 'translation reserve: closing', null, 202_631.58, 'USD'],
      ...both(C),
      [C, '24B(b)(ii)', 'reserve of continuing hedges', 'cash_flow_hedge_reserve', 252_631.58, 'USD'],
      [C, '24B(b)(iii)', 'reserve where hedge accounting ended', 'cash_flow_hedge_reserve', 0, 'USD'],
      [C, '24C(b)(i)', 'hedging gain or loss in OCI', null, 177_631.58, 'USD'],
      [C, '24C(b)(ii)–(iii)', 'ineffectiveness in P&L', 'hedge_ineffectiveness', 19_736.84, 'USD'],
      [C, '24C(b)(iv)–(v)', 'reclassified: the item affected P&L', 'reclassification', 0, 'USD'],
      [C, '24C(b)(iv)–(v)', 'reclassified: no longer expected', 'reserve_release', 0, 'USD'],
      [C, '24E(a), 24F', 'reserve: opening', null, 75_000, 'USD'],
      [C, '24E(a), 24F', 'reserve: effective part (OCI)', null, 177_631.58, 'USD'],
      [C, '24E(a), 24F', 'reserve: reclassified, the item affected P&L', 'reclassification', 0, 'USD'],
      [C, '24E(a), 24F', 'reserve: reclassified, no longer expected', 'reserve_release', 0, 'USD'],
      [C, '24E(a), 24F', 'reserve: basis adjustment', 'basis_adjustment', 0, 'USD'],
      [C, '24E(a), 24F', 'reserve: adjustment of a closed month', null, 0, 'USD'],
      [C, '24E(a), 24F', 'reserve: closing', null, 252_631.58, 'USD'],
    ]);
    // A table (and a page) a type of hedge, each row's treatment cited under them; one entity's books at a time.
    const page = join(dir, 'us01.html');
    const args = ['acct', 'disclose', '--period', '2025', '--entity', 'US01', '--html', page];
    const screen = await hedgeIn(dir, args, { clock, screen: { columns: 100, rows: 80 } });
    const said = ok({ ...screen, stderr: '' })
      .stdout.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '')
      .replace(/\s+/g, ' ');
    expect(said).toContain(
      'IFRS 9, net-investment hedges: the effective part to the translation reserve (IFRS 9 6.5.13, by 6.5.11(a)); once discontinued, the translation reserve stays until the operation is disposed of (IFRS 9 6.5.6, 6.5.14); at a disposal, its share reclassified to P&L (IFRS 9 6.5.14, IAS 21.48–48D, IFRIC 16.16–17).',
    );
    expect(said).toContain(
      'IFRS 9, cash-flow hedges: the effective part to the cash flow hedge reserve (IFRS 9 6.5.11(a))',
    );
    const html = readFileSync(page, 'utf8').replace(/&#(\d+);/g, (_, code) => String.fromCharCode(Number(code)));
    expect(html).toContain('<title>Hedge accounting disclosures: US01, 2025</title>');
    expect(html).toContain('<h2>IFRS 7: foreign currency (USDNGN), net investment hedges</h2>');
    expect(html).toContain('<h2>IFRS 7: foreign currency (USDNGN), cash flow hedges</h2>');
    exits(
      await run(['acct', 'disclose', '--period', '2025']),
      2,
      "--entity: the relationships are in the books of NG01 (NGN), US01 (USD), each in its own currency, never summed; give --entity CODE, or a relationship's ID.",
    );
    exits(
      await run(['acct', 'disclose', '--period', '2025', '--entity', 'ZA01']),
      2,
      '--entity: ZA01 is not a declared entity',
    );
  });

  it('ASC 815: the fair-value hedge’s 815-10-50-4EE and its two changes in earnings; the net investment’s gain in the CTA (815-35-50-1) and its disposal', async () => {
    const { disclosed } = await group('asc815');
    const order = await disclosed('2025-Q3', 'NG01');
    // The same order and forward; its points amortised in earnings over the forward's 154 days, 47 of them by 30
    // September: −24,000,000 × 47 / 154 = −7,324,675.32 (400,000 × (1,780 − 1,840), the points at inception); the
    // rest of their change, −5,580,000 + 7,324,675.32 = 1,744,675.32, in OCI.
    const F = 'fair_value';
    expect(order.filter((line) => /^815-10-50-4(EE|C)/.test(String(line[1])))).toEqual([
      [
        F,
        '815-10-50-4EE(a)',
        'hedged item carrying amount: assets',
        'hedged_item_adjustment (asset)',
        8_000_000,
        'NGN',
      ],
      [
        F,
        '815-10-50-4EE(a)',
        'hedged item carrying amount: liabilities',
        'hedged_item_adjustment (liability)',
        0,
        'NGN',
      ],
      [F, '815-10-50-4EE(b)', 'fair value hedge adjustments in it: assets', null, 8_000_000, 'NGN'],
      [F, '815-10-50-4EE(b)', 'fair value hedge adjustments in it: liabilities', null, 0, 'NGN'],
      [F, '815-10-50-4EE(c)', 'adjustments left where hedging ended: assets', null, 0, 'NGN'],
      [F, '815-10-50-4EE(c)', 'adjustments left where hedging ended: liabilities', null, 0, 'NGN'],
      [F, '815-10-50-4C', 'gain or loss on the instruments in earnings', 'fair_value_hedge_result', -8_000_000, 'NGN'],
      [F, '815-10-50-4C', 'gain or loss on the hedged items in earnings', 'fair_value_hedge_result', 8_000_000, 'NGN'],
      [F, '815-10-50-4CC', 'excluded component in earnings', 'excluded_component', -7_324_675.32, 'NGN'],
    ]);
    expect(order).toContainEqual([F, '815-20-25-83A', 'cost of hedging reserve: closing', null, 1_744_675.32, 'NGN']);
    // No AOCI of its own, and no forecast: a fair-value hedge has neither.
    expect(order.some((line) => /^(220-10|815-30)/.test(String(line[1])))).toBe(false);
    // The net investment: the whole designated change to the CTA, 197,368.42 in 2025; the disposal reclassifies a
    // quarter of the 222,222.22 there on 2025-06-30, 55,555.56: 83,333.33 + 197,368.42 − 55,555.56 = 225,146.19.
    const group815 = (await disclosed('2025', 'US01')).filter((line) => line[0] === 'net_investment');
    const N = 'net_investment';
    expect(group815.filter((line) => /^(815-35|815-10-50-4C$|220-10)/.test(String(line[1])))).toEqual([
      [N, '815-35-50-1', 'gain or loss in the cumulative translation adjustment', null, 197_368.42, 'USD'],
      [N, '815-10-50-4C', 'reclassified from AOCI into earnings: disposal', 'reclassification', 55_555.56, 'USD'],
      [N, '220-10-45-14A', 'translation reserve: opening', null, 83_333.33, 'USD'],
      [N, '220-10-45-14A', 'translation reserve: effective part (OCI)', null, 197_368.42, 'USD'],
      [
        N,
        '220-10-45-14A',
        'translation reserve: reclassified, the operation disposed of',
        'reclassification',
        -55_555.56,
        'USD',
      ],
      [N, '220-10-45-14A', 'translation reserve: adjustment of a closed month', null, 0, 'USD'],
      [N, '220-10-45-14A', 'translation reserve: closing', null, 225_146.19, 'USD'],
    ]);
    expect(group815.some((line) => String(line[1]).startsWith('815-30'))).toBe(false);
  });
});
