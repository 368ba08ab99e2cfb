// `hedge acct` on a terminal at 80 and 60 columns (the textbook exercise of docs/accounting.md, no server): a test
// shows each period's offset ratio as a percentage to the tenth and the framework's line it is judged on; a reserve
// keeps its roll-forward (open, effective, reclassified, close); a journal keeps each line's debit and credit before
// where its rate came from; a relationship's id is never cut.
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

  it('acct test: the offset ratio as a percentage to the tenth, the framework line, the relationship whole', async () => {
    const { text, headers } = await screen(['acct', 'test', 'EUR-SALE-1', '--as-of', '2019-02-01']);
    expect(headers).toEqual(expect.arrayContaining(['Relationship', 'Pass line']));
    expect(text).toMatch(/EUR-SALE-1 .* 100\.0 % /);
    expect(text).not.toMatch(/\d\.\d{5,}/);
    expect(text.replace(/\s+/g, ' ')).toContain('ASC 815 80–125 %: 100.0 % is inside the line.');
  });

  it('acct reserve: open, effective, reclassified and close, the relationship whole', async () => {
    const { text, headers } = await screen(['acct', 'reserve', '--period', '2019-02']);
    expect(headers).toEqual(
      expect.arrayContaining(['Relationship', 'Effective', 'Reserve open', 'Reclassified', 'Reserve close']),
    );
    expect(text).toMatch(/^EUR-SALE-1 /m);
  });

  it('acct journal: debit and credit before the rate source', async () => {
    const { headers } = await screen(['acct', 'journal', '--period', '2019-02']);
    expect(headers).toEqual(expect.arrayContaining(['Entry', 'Account', 'Debit', 'Credit']));
  });
});
