// `hedge acct` input messages (no server involved): a file that is not JSON named with its line and column, a file
// separated by semicolons named as such, a ratio of 0 with what is allowed; an amount in the one grammar (`30m`).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hedgeIn, tempFolders, ROOT } from '../support/hedge-cli.js';
import { MARKET, useSimulators } from '../support/simulator.js';
import { exits, ok, okJson } from '../support/cli-runs.js';

const folder = tempFolders('hedge-acct-messages-');
const clock = { now: () => Date.parse('2026-03-02T12:00:00Z'), sleep: async () => {} };
const EXAMPLE = readFileSync(join(ROOT, 'docs', 'examples', 'relationship.json'), 'utf8');
const RATES = readFileSync(join(ROOT, 'docs', 'examples', 'rates-eurusd.csv'), 'utf8');

function setUp() {
  const dir = folder();
  const run = (args: string[]) => hedgeIn(dir, args, { clock });
  const file = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };
  return { run, file };
}

it('a relationship or values file cut short: where, line and column; a semicolon-separated rates file: the separator named; nothing recorded', async () => {
  const { run, file } = setUp();
  const cut = EXAMPLE.slice(0, EXAMPLE.indexOf('"instrument"'));
  const lines = cut.split('\n');
  exits(
    await run(['acct', 'designate', file('cut.json', cut), '--recorded-late', 'x']),
    2,
    `cut.json: not valid JSON: it ends before the JSON is complete (line ${lines.length}, column ${lines.at(-1)!.length + 1})`,
  );
  const semicolons = file('semi.csv', RATES.replaceAll(',', ';'));
  const refused = exits(await run(['acct', 'rates', semicolons, '--market', 'EURUSD', '--quote', 'USD per EUR']), 2);
  expect(refused.stderr).toContain(`the header's columns are separated by ";"; a CSV file separates them by commas`);
  expect(refused.stderr).not.toContain('is not a known column');

  ok(await run(['acct', 'rates', file('rates.csv', RATES), '--market', 'EURUSD', '--quote', 'USD per EUR']));
  ok(await run(['acct', 'designate', file('rel.json', EXAMPLE), '--recorded-late', 'x']));
  const values = exits(await run(['acct', 'test', 'EUR-SALE-1', '--values', file('bad.json', '{"a": 1')]), 2);
  expect(values.stderr).toContain('bad.json is not valid JSON: it ends before the JSON is complete (line 1, column 8)');
  expect(values.stderr).not.toContain('line 0');
  expect(values.stderr).not.toContain('bad.json: bad.json');

  // Every problem counted, the first 20 listed with their lines, the rest said as a number.
  const rows = Array.from({ length: 25 }, (_, at) => `2019-01-${String(at + 1).padStart(2, '0')},x,1`);
  const many = exits(
    await run([
      'acct',
      'test',
      'EUR-SALE-1',
      '--values',
      file('many.csv', ['date,instrument_value,hedged_item_value', ...rows].join('\n')),
    ]),
    2,
    'many.csv: 25 problems; nothing was read or sent.',
  );
  expect(many.stderr).toContain('many.csv:2: ');
  expect(many.stderr).toContain('… and 5 more problems');
  expect(many.stderr).not.toContain('many.csv:22: ');
});

it('a ratio of 0 says what is allowed; amounts in the one grammar (770k, 0.77m) are read exactly', async () => {
  const { run, file } = setUp();
  const relationship = JSON.parse(EXAMPLE);
  exits(
    await run([
      'acct',
      'designate',
      file('r0.json', JSON.stringify({ ...relationship, ratio: 0 })),
      '--recorded-late',
      'x',
    ]),
    2,
    'ratio (the designated share of the instrument, at most 1): expected a positive decimal number more than 0 and at most 1, such as 1 or 0.5',
  );
  const short = {
    ...relationship,
    hedged_item: { ...relationship.hedged_item, amount: '770k' },
    instrument: { ...relationship.instrument, notional: '0.77m' },
  };
  ok(await run(['acct', 'designate', file('short.json', JSON.stringify(short)), '--recorded-late', 'x']));
  const [listed] = okJson(await run(['acct', 'list', '--json']));
  expect([listed.item, listed.instrument]).toEqual([
    '770,000.00 EUR forecast, 2019-02-01',
    'forward 770,000.00 EUR at 1.23, 2019-02-01',
  ]);
});

it('a period without a rate blames --period, never an --as-of that was not given', async () => {
  const { run, file } = setUp();
  const relationship = JSON.parse(EXAMPLE);
  const late = {
    ...relationship,
    id: 'LATE-1',
    hedged_item: { ...relationship.hedged_item, expected_date: '2026-12-31' },
    instrument: { ...relationship.instrument, maturity: '2026-12-31' },
  };
  ok(await run(['acct', 'rates', file('rates.csv', RATES), '--market', 'EURUSD', '--quote', 'USD per EUR']));
  ok(await run(['acct', 'designate', file('late.json', JSON.stringify(late)), '--recorded-late', 'x']));
  for (const command of ['journal', 'test', 'reserve']) {
    const refused = exits(await run(['acct', command, 'LATE-1', '--period', '2026-Q4']), 2);
    // Valued from its designation to today (the period has not ended): its first month end without a rate.
    expect(refused.stderr).toContain('--period 2026-Q4: no rate of EURUSD for 2019-02-28');
    expect(refused.stderr).not.toContain('--as-of');
  }
  exits(await run(['acct', 'test', 'LATE-1', '--as-of', '2026-03-01']), 2, '--as-of: no rate of EURUSD for');
});

it('a period or a date that is not one names what was given and what is allowed: --period 2026-13, --as-of 2026-02-30, a rates row dated 2026-13-01 (a date-shaped value only: a row is never repeated back otherwise)', async () => {
  const { run, file } = setUp();
  const PERIODS = 'expected a month (2026-11, months 01 to 12), a quarter (2026-Q4) or a year (2026).';
  expect(exits(await run(['acct', 'test', 'X', '--period', '2026-13']), 2).stderr).toBe(
    `hedge: --period: "2026-13" is not allowed; ${PERIODS}\n`,
  );
  expect(exits(await run(['acct', 'reserve', 'X', '--period', ' ']), 2).stderr).toBe(
    `hedge: --period: missing; ${PERIODS}\n`,
  );
  expect(exits(await run(['acct', 'test', 'X', '--as-of', '2026-02-30']), 2).stderr).toBe(
    'hedge: --as-of: "2026-02-30" is not a date; expected a date such as 2026-11-30 (YYYY-MM-DD).\n',
  );
  const rows = RATES.trimEnd().split('\n');
  const rates = [...rows.slice(0, 4), '2026-13-01,1.2,1.2,1,typed', 'soon,1.2,1.2,1,typed'].join('\n');
  const refused = exits(
    await run(['acct', 'rates', file('rates.csv', rates), '--market', 'EURUSD', '--quote', 'USD per EUR']),
    2,
  );
  expect(refused.stderr).toContain(
    'rates.csv:5: row 4: date: 2026-13-01 is not a day of the calendar; expected a date such as 2026-11-30 (YYYY-MM-DD).',
  );
  expect(refused.stderr).toContain(
    'rates.csv:6: row 5: date: the value is not a date; expected a date such as 2026-11-30 (YYYY-MM-DD).',
  );
  expect(refused.stderr).not.toMatch(/Invalid time value|soon/);
});

const start = useSimulators();

it('a receivable designated against a sell is recorded as given, with a warning naming the hedge and the side that covers it; a buy, without a word', async () => {
  const simulator = await start({ stepped: true });
  ok(await simulator.hedge(`open ${MARKET} sell 2000 --tenor 7 --ref WRONG-SIDE --yes`));
  ok(await simulator.hedge(`open ${MARKET} buy 2000 --tenor 7 --ref RIGHT-SIDE --yes`));
  const day = new Date(simulator.sandbox.clock.now()).toISOString().slice(0, 10);
  const relationship = (id: string, reference: string) => ({
    id,
    framework: 'ifrs9',
    type: 'cash_flow',
    designated_at: day,
    objective: 'Fix the dollar value of a naira receivable.',
    market: MARKET,
    functional_currency: 'USD',
    hedged_item: {
      description: 'Invoice 7',
      currency: 'NGN',
      amount: '3m',
      expected_date: day,
      kind: 'forecast',
      probability_evidence: 'Signed order',
    },
    instrument: { references: [reference] },
    ratio: '1',
    designation: 'spot',
    excluded: 'pnl',
    method: 'dollar_offset_cumulative',
    sources_of_ineffectiveness: 'The payment date',
    approved_by: 'Treasurer',
  });
  const file = (name: string, body: object) => {
    const path = join(simulator.configDir, name);
    writeFileSync(path, JSON.stringify(body));
    return path;
  };
  const [sold] = simulator.active('sell');
  const wrong = ok(
    await simulator.hedge(['acct', 'designate', file('wrong.json', relationship('NGN-1', 'WRONG-SIDE'))]),
  );
  expect(wrong.stderr).toContain(
    `NGN-1: the hedged item is a receivable in NGN, which buy covers in USD books; ${sold.id} is sell: it gains when the item gains, so it offsets nothing. Recorded as given;`,
  );
  const right = ok(
    await simulator.hedge(['acct', 'designate', file('right.json', relationship('NGN-2', 'RIGHT-SIDE'))]),
  );
  expect(right.stderr).not.toContain('covers in');
  expect(
    simulator
      .writes()
      .filter((entry) => entry.path !== '/quotes')
      .map((entry) => entry.path),
  ).toEqual(['/hedges', '/hedges']);
});
