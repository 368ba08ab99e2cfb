// The posting file an ERP imports (`acct journal --gl`), on the textbook forward of docs/accounting.md: a line per
// posting with its document, dates, company code, ledger, GL account, debit and credit in dollars and the amount in
// euros at the day's rate, the company code the entity whose books the relationship is in; refused before anything is
// written when the map leaves a role out or no entity's books hold a relationship; a closed month's file the same bytes
// every time, a correction after it posted in the next month's.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hedgeIn, tempFolders, ROOT } from '../support/hedge-cli.js';
import { exits, ok, okJson } from '../support/cli-runs.js';

const folder = tempFolders('hedge-acct-posting-');
const clock = { now: () => Date.parse('2026-03-02T12:00:00Z'), sleep: async () => {} };
const EXAMPLES = join(ROOT, 'docs', 'examples');
const ACCOUNTS = join(EXAMPLES, 'gl-accounts.json');
const MAP = JSON.parse(readFileSync(ACCOUNTS, 'utf8'));

async function setUp() {
  const dir = folder();
  const run = (args: string[]) => hedgeIn(dir, args, { clock });
  ok(await run(['acct', 'entities', join(EXAMPLES, 'entities.json')]));
  ok(await run(['acct', 'rates', join(EXAMPLES, 'rates-eurusd.csv'), '--market', 'EURUSD', '--quote', 'USD per EUR']));
  const relationship = JSON.parse(readFileSync(join(EXAMPLES, 'relationship.json'), 'utf8'));
  const path = join(dir, 'r.json');
  writeFileSync(path, JSON.stringify({ ...relationship, entity: 'US01' }));
  ok(await run(['acct', 'designate', path, '--recorded-late', 'the textbook exercise']));
  ok(await run(['acct', 'event', 'EUR-SALE-1', '--occurred', '2019-02-01']));
  return { dir, run };
}

const GL = ['acct', 'journal', '--gl', '--accounts', ACCOUNTS];

it('a line per posting: document, dates, company code, ledger, account, dollars, and euros at the day’s rate', async () => {
  const { run } = await setUp();
  const lines = okJson(await run([...GL, '--period', '2019-02', '--json']));
  // 1 February at 1.19 USD per EUR: the forward's last 7,700 (6,470.59 EUR: 7,700 / 1.19 = 6,470.588…), the reserve's
  // 30,800 to revenue (25,882.35 EUR), and the settlement: 770,000 EUR delivered (916,300 / 1.19, exactly) for
  // 947,100 USD, the forward's 30,800 taken off.
  const at = (document: number, line: number, account: string, debit: number, credit: number, euros: number) => ({
    document_number: `EUR-SALE-1/2019-02-01/${document}`,
    line_item: line,
    document_date: '2019-02-01',
    posting_period: '2019-02',
    company_code: 'US01',
    ledger: 'USGAAP',
    account: MAP[account],
    debit,
    credit,
    currency: 'USD',
    amount_tc: euros,
    currency_tc: 'EUR',
    rate: '1.19',
    rate_source: 'textbook exercise (settlement day)',
    reference: 'EUR-SALE-1',
  });
  expect(lines.map(({ text: _, ...line }: Record<string, unknown>) => line)).toEqual([
    at(1, 1, 'hedging_instrument', 7700, 0, 6470.59),
    at(1, 2, 'cash_flow_hedge_reserve', 0, 7700, -6470.59),
    at(2, 1, 'cash_flow_hedge_reserve', 30800, 0, 25882.35),
    at(2, 2, 'reclassification', 0, 30800, -25882.35),
    at(3, 1, 'foreign_currency', 0, 916300, -770000),
    at(3, 2, 'cash', 947100, 0, 795882.35),
    at(3, 3, 'hedging_instrument', 0, 30800, -25882.35),
  ]);
  expect(lines.map((line: { text: string }) => line.text)[4]).toBe('settlement of the hedging instrument');
  // --ledger names another ledger; the file is one entity's books: US01's, another's holds none of these lines.
  const [first] = okJson(await run([...GL, '--period', '2019-02', '--ledger', '0L', '--json']));
  expect(first.ledger).toBe('0L');
  expect(okJson(await run([...GL, '--period', '2019-02', '--entity', 'US01', '--json']))).toEqual(lines);
  const other = exits(
    await run([...GL, '--period', '2019-02', '--entity', 'NG01', '--json']),
    2,
    "id: no relationship is designated yet in NG01's books",
  );
  expect(other.stdout).toBe('');
});

it('refused before anything is written: a role the map leaves out (each named), no company code, no map', async () => {
  const { dir, run } = await setUp();
  const partial = join(dir, 'partial.json');
  const { reclassification: _, foreign_currency: __, ...rest } = MAP;
  writeFileSync(partial, JSON.stringify(rest));
  const refused = exits(
    await run(['acct', 'journal', '--gl', '--accounts', partial, '--period', '2019-02', '--format', 'csv']),
    2,
    '--accounts: no GL account for reclassification, foreign_currency, which the postings use',
  );
  expect(refused.stdout).toBe('');
  exits(await run(['acct', 'journal', '--gl', '--period', '2019-02']), 2, '--gl: needs --accounts FILE');
  exits(await run(['acct', 'journal', '--ledger', '0L']), 2, '--ledger: goes with --gl');
  exits(await run([...GL, '--entity', 'US 01']), 2, '--entity: US 01 is not a declared entity (declared: US01, NG01)');
  // A relationship naming no entity is the default entity's; while no entity is declared, its postings have no
  // company code: refused naming it, until the entities are declared with the default it is in.
  const other = folder();
  const bare = (args: string[]) => hedgeIn(other, args, { clock });
  ok(await bare(['acct', 'rates', join(EXAMPLES, 'rates-eurusd.csv'), '--market', 'EURUSD', '--quote', 'USD per EUR']));
  ok(await bare(['acct', 'designate', join(EXAMPLES, 'relationship.json'), '--recorded-late', 'the exercise']));
  const none = exits(
    await bare([...GL, '--period', '2018-12', '--format', 'csv']),
    2,
    "--gl: EUR-SALE-1 is in no entity's books",
  );
  expect(none.stdout).toBe('');
  const group = join(other, 'entities.json');
  writeFileSync(
    group,
    JSON.stringify({
      entities: [{ code: 'US01', name: 'Acme Holdings Inc.', functional_currency: 'USD', default: true }],
    }),
  );
  ok(await bare(['acct', 'entities', group]));
  expect(okJson(await bare([...GL, '--period', '2018-12', '--json']))[0].company_code).toBe('US01');
  // The journal itself shows a role the map leaves out as the role, and says so.
  const shown = ok(await run(['acct', 'journal', '--accounts', partial, '--period', '2019-02', '--format', 'csv']));
  expect(shown.stderr).toContain('--accounts: no GL account for reclassification, foreign_currency: shown as the role');
});

it('a closed month’s posting file is the same bytes every time; a correction after the close posts in the next month', async () => {
  const { dir, run } = await setUp();
  const december = [...GL, '--period', '2018-12', '--format', 'csv'];
  const before = ok(await run(december)).stdout;
  ok(await run(['acct', 'close', '--period', '2018-Q4']));
  expect(ok(await run(december)).stdout).toBe(before);
  // December's forward restated after the close: its file does not change; January's carries the adjustment.
  const fixed = join(dir, 'fixed.csv');
  writeFileSync(fixed, 'date,spot,forward,discount_factor,source\n2018-12-31,1.21,1.21,1,restated\n');
  ok(await run(['acct', 'rates', fixed, '--market', 'EURUSD', '--quote', 'USD per EUR', '--correct', '--reason', 'x']));
  expect(ok(await run(december)).stdout).toBe(before);
  const january = okJson(await run([...GL, '--period', '2019-01', '--json']));
  // December's forward at 1.21: 770,000 × (1.23 − 1.21) = 15,400, 7,700 less than posted — adjusted on 1 January, in
  // dollars alone (no one day's rate); at January's end (1.20 again) the forward is back to 23,100: 7,700 at 1.21
  // USD per EUR, 6,363.64 EUR (7,700 / 1.21 = 6,363.636…).
  expect(
    january.map((line: Record<string, unknown>) => [
      line.document_number,
      line.debit,
      line.credit,
      line.amount_tc,
      line.currency_tc,
      line.rate,
    ]),
  ).toEqual([
    ['EUR-SALE-1/2019-01-01/adjustment', 0, 7700, -7700, 'USD', null],
    ['EUR-SALE-1/2019-01-01/adjustment', 7700, 0, 7700, 'USD', null],
    ['EUR-SALE-1/2019-01-31/1', 7700, 0, 6363.64, 'EUR', '1.21'],
    ['EUR-SALE-1/2019-01-31/1', 0, 7700, -6363.64, 'EUR', '1.21'],
  ]);
});

it('a group: each entity’s posting file carries its own company code, in its own currency; the two are never one file', async () => {
  const dir = folder();
  const run = (args: string[]) => hedgeIn(dir, args, { clock });
  const late = ['--recorded-late', 'the worked example'];
  ok(await run(['acct', 'entities', join(EXAMPLES, 'entities.json')]));
  ok(await run(['acct', 'rates', join(EXAMPLES, 'rates-usdngn.csv'), '--market', 'USDNGN', '--quote', 'NGN per USD']));
  ok(await run(['acct', 'designate', join(EXAMPLES, 'fair-value.json'), ...late]));
  ok(await run(['acct', 'designate', join(EXAMPLES, 'net-investment.json'), ...late]));
  ok(await run(['acct', 'event', 'NG01-PRESS', '--occurred', '2026-01-15']));
  ok(await run(['acct', 'event', 'US01-NG01-NI', '--disposed', '2025-06-30', '--share', '0.25']));
  const file = async (entity: string, period: string) =>
    (
      okJson(await run([...GL, '--period', period, '--entity', entity, '--json'])) as Array<Record<string, unknown>>
    ).map((line) => [
      line.document_number,
      line.company_code,
      line.account,
      line.debit,
      line.credit,
      line.amount_tc,
      line.currency_tc,
    ]);
  // US01's books, in dollars: a quarter of NG01 disposed of on 30 June 2025 reclassifies a quarter of the
  // translation reserve's 200,000.00 (the lower of then: 1.8e9 / 1,500 − 1.8e9 / 1,800), 50,000.00, to profit or loss;
  // in naira at that day's 1,800: 90,000,000.
  const june = await file('US01', '2025-06');
  expect(june.filter((line) => line[0] === 'US01-NG01-NI/2025-06-30/2')).toEqual([
    ['US01-NG01-NI/2025-06-30/2', 'US01', MAP.translation_reserve, 50_000, 0, 90_000_000, 'NGN'],
    ['US01-NG01-NI/2025-06-30/2', 'US01', MAP.reclassification, 0, 50_000, -90_000_000, 'NGN'],
  ]);
  expect(new Set(june.map((line) => line[1]))).toEqual(new Set(['US01']));
  // NG01's books, in naira: the press arrives on 15 January 2026; the order's adjustment, 400,000 × (2,000 − 1,780) =
  // 88,000,000, and the points, 400,000 × (1,780 − 1,840) = −24,000,000, go into its cost, 400,000 × 2,000 −
  // 64,000,000 = 736,000,000 naira; in dollars at 2,000: 44,000, −12,000 and −32,000.
  const january = await file('NG01', '2026-01');
  expect(january.filter((line) => line[0] === 'NG01-PRESS/2026-01-15/3')).toEqual([
    ['NG01-PRESS/2026-01-15/3', 'NG01', MAP.hedged_item_adjustment, 88_000_000, 0, 44_000, 'USD'],
    ['NG01-PRESS/2026-01-15/3', 'NG01', MAP.cost_of_hedging_reserve, 0, 24_000_000, -12_000, 'USD'],
    ['NG01-PRESS/2026-01-15/3', 'NG01', MAP.basis_adjustment, 0, 64_000_000, -32_000, 'USD'],
  ]);
  expect(new Set(january.map((line) => line[1]))).toEqual(new Set(['NG01']));
  // A relationship's ID names its entity's file; neither given, the file would mix two: refused, nothing written.
  expect(okJson(await run([...GL, 'NG01-PRESS', '--period', '2026-01', '--json']))[0].company_code).toBe('NG01');
  const mixed = exits(
    await run([...GL, '--period', '2026-01', '--format', 'csv']),
    2,
    '--entity: the relationships are in the books of NG01 (NGN), US01 (USD)',
  );
  expect(mixed.stdout).toBe('');
});
