// `hedge acct` on a terminal at 80 and 60 columns (the textbook exercise of docs/accounting.md, no server): each row
// keeps its date (the month) and the figures a reader needs first — a test's effective and ineffective parts and the
// reserve's close, a reserve's roll-forward, a journal line's account with its debit and credit — under its
// relationship's heading, whole; every amount signed one way; the framework's sentence said once; account names
// wrapped at their words, never cut.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import stringWidth from 'string-width';
import { hedgeIn, tempFolders, ROOT } from '../support/hedge-cli.js';
import { ok } from '../support/cli-runs.js';
import { tableHeaders } from '../support/output/table-text.js';

const folder = tempFolders('hedge-acct-screens-');
const clock = { now: () => Date.parse('2026-03-02T12:00:00Z'), sleep: async () => {} };
const example = (name: string) => join(ROOT, 'docs', 'examples', name);

describe.each([80, 60])('at %i columns', (columns) => {
  let dir: string;
  const screen = async (args: string[]) => {
    const run = await hedgeIn(dir, args, { clock, screen: { columns, rows: 60 } });
    const { stdout } = ok({ ...run, stderr: run.stdout });
    const text = stdout.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '');
    for (const line of text.split('\n')) expect(stringWidth(line), line).toBeLessThanOrEqual(columns);
    return { text, headers: tableHeaders(text) };
  };

  // A folder per test (tempFolders removes it after each): the exercise recorded again, no server involved.
  beforeEach(async () => {
    dir = folder();
    ok(
      await hedgeIn(
        dir,
        ['acct', 'rates', example('rates-eurusd.csv'), '--market', 'EURUSD', '--quote', 'USD per EUR'],
        { clock },
      ),
    );
    ok(
      await hedgeIn(
        dir,
        ['acct', 'designate', example('relationship.json'), '--recorded-late', 'the textbook exercise'],
        { clock },
      ),
    );
    ok(await hedgeIn(dir, ['acct', 'event', 'EUR-SALE-1', '--occurred', '2019-02-01'], { clock }));
  });

  it('acct test: the month, effective, ineffective and reserve close first; the framework’s sentence said once', async () => {
    const { text, headers } = await screen(['acct', 'test', 'EUR-SALE-1', '--as-of', '2019-02-01']);
    expect(headers[0]).toBe('Month');
    expect(headers).toEqual(expect.arrayContaining(['Effective', 'Ineffective', 'Reserve close']));
    // The relationship heads its rows, whole, with its currency and the balance its figures are of; each month's row
    // keeps its date and its figures.
    expect(text).toMatch(/^EUR-SALE-1 \(USD, cash flow hedge reserve\)$/m);
    expect(text).toMatch(/^2018-12 +100\.0 % .* 23,100\.00 +0\.00 +23,100\.00$/m);
    expect(text).toMatch(/^2019-02 +100\.0 % .* 7,700\.00 +0\.00 +0\.00$/m);
    expect(text).not.toMatch(/\d\.\d{5,}/);
    // One sign convention: a gain is a plain positive number, never +.
    expect(text).not.toMatch(/^\d{4}-\d{2}.*\+\d/m);
    const said = text.replace(/\s+/g, ' ');
    expect(said.split('ASC 815: the offset ratio passes inside 80–125 %').length - 1).toBe(1);
    expect(said).not.toContain('is inside the line');
  });

  it('acct reserve: the month, open, effective, reclassified and close, signed one way', async () => {
    const { text, headers } = await screen(['acct', 'reserve', '--period', '2019-02']);
    expect(headers).toEqual([
      'Month',
      'Reserve open',
      'Effective',
      'Reclassified',
      ...(columns >= 80 ? ['Adjustment'] : []),
      'Reserve close',
    ]);
    expect(text).toMatch(/^EUR-SALE-1 \(USD, cash flow hedge reserve\)$/m);
    expect(text).toMatch(/^2019-02 +23,100\.00 +7,700\.00 +30,800\.00 +(?:0\.00 +)?0\.00$/m);
    expect(text).not.toMatch(/^\d{4}-\d{2}.*\+\d/m);
  });

  it('acct journal: the date, the account and its debit and credit; account names wrap at their words, never cut', async () => {
    const accounts = join(dir, 'accounts.json');
    writeFileSync(
      accounts,
      JSON.stringify({
        cash_flow_hedge_reserve: '3510 Cash flow hedge reserve (other comprehensive income)',
        hedging_instrument: '1450 Derivative financial instruments designated as hedges',
      }),
    );
    for (const more of [[], ['--accounts', accounts]]) {
      const { text, headers } = await screen(['acct', 'journal', '--period', '2019-02', ...more]);
      // The entry's number that day where there is room (the date and the account before it).
      expect(headers.filter((header) => header !== 'Entry').slice(0, 4)).toEqual([
        'Date',
        'Account',
        'Debit',
        'Credit',
      ]);
      expect(text).not.toContain('…');
      // Each account's words whole, in order, on the lines of its row.
      const rows = text.split('\n');
      const accountColumn = rows.find((line) => line.startsWith('Date'))!.indexOf('Account');
      const wrapped = rows
        .filter((line) => /^(?:2019-02-01| {10}) /.test(line))
        .map((line) => line.slice(accountColumn).trim().split(/ {2,}/)[0])
        .join(' ');
      for (const name of more.length
        ? [
            '3510 Cash flow hedge reserve (other comprehensive income)',
            '1450 Derivative financial instruments designated as hedges',
          ]
        : ['cash flow hedge reserve', 'hedging instrument', 'reclassification', 'foreign currency'])
        expect(wrapped).toContain(name);
      expect(text).toMatch(/^2019-02-01 +(?:3 +)?cash +947,100\.00 +0\.00/m);
    }
  });
});
