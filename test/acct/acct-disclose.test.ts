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
