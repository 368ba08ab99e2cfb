// The output formats on fake streams: tsv/csv headers and quoting, ndjson, --fields (dotted ones too) in every format
// (and its refusals), --query, and tables fitted to the width. --no-header, hashes whole
// and the documented columns of each list: test/book/read-commands.test.ts.
import { spreadsheetSafe } from '../../src/platform/terminal/spreadsheet-cell.js';
import { UsageError } from '../../src/core/errors.js';
import { csvText } from '../../src/platform/terminal/csv.js';
import { kindFromName, valueAtPath, type FieldSpec } from '../../src/platform/fields/fields.js';
import type { Output, OutputInit } from '../../src/platform/terminal/output.js';
import type { OutputFormat } from '../../src/core/vocabulary.js';
import { output } from '../support/output/fake-output.js';
import { compileQuery } from '../../src/platform/fields/query.js';
import { HEDGE_RESOURCE, POSITION_RESOURCE } from '../../src/platform/fields/resource-fields.js';
import { displayWidth } from '../../src/platform/terminal/width.js';

const FIELDS: FieldSpec[] = [
  { key: 'id', label: 'ID', kind: 'id' },
  { key: 'market', label: 'Market' },
  { key: 'notional_usd', label: 'Notional', unit: 'USD', kind: 'money' },
  // Computed from a nested object: a column of its own in TSV/CSV.
  {
    key: 'capacity_buy_usd',
    label: 'Capacity buy',
    unit: 'USD',
    kind: 'money',
    covers: ['capacity'],
    get: (row) => (row.capacity as { buy: number }).buy,
  },
];
const ROWS: ListArgs[0] = [
  { id: 'hdg_1', market: 'USDTNGN', notional_usd: 25000, capacity: { buy: 1, sell: 2 }, zeta: 'z1', alpha: 'a1' },
  { id: 'hdg_2', market: 'USDTNGN', notional_usd: 10000.5, capacity: { buy: 3, sell: 4 }, alpha: 'a2' },
];

/** `out.list(rows, fields)` in that format: what it printed. */
type ListArgs = Parameters<Output['list']>;
async function listed(format: OutputFormat, init: Partial<OutputInit> = {}, rows = ROWS, fields: ListArgs[1] = FIELDS) {
  const printed = output(format, init);
  await printed.out.list(rows, fields, { empty: 'none' });
  return printed;
}

it('tsv and csv: tsv: a header row of keys, known fields first in their order, then extras sorted by name; csv: RFC 4180 quoting of commas, quotes and (escaped) line breaks; no totals anywhere', async () => {
  expect((await listed('tsv')).stdout()).toBe(
    [
      'id\tmarket\tnotional_usd\tcapacity_buy_usd\talpha\tzeta',
      'hdg_1\tUSDTNGN\t25000\t1\ta1\tz1',
      'hdg_2\tUSDTNGN\t10000.5\t3\ta2\t',
    ].join('\n') + '\n',
  );
  const rows = [{ id: 'hdg_1', market: 'USDTNGN', notional_usd: 5, capacity: { buy: 1 }, note: 'a, "b"\nc' }];
  const { out, stdout, stderr } = output('csv');
  await out.list(rows, FIELDS, { empty: 'none', totals: { label: 'Total', row: { notional_usd: 5 } } });
  expect([stdout(), stderr()]).toEqual([
    'id,market,notional_usd,capacity_buy_usd,note\nhdg_1,USDTNGN,5,1,"a, ""b""\\x0ac"\n',
    '',
  ]);
});
// A record (a header row and one row, an absent known field an empty cell): read-commands.test.ts ("hedges ID shows one hedge in full").

it('--fields: picks and orders columns in tsv, csv and the table; json: objects with only those keys, in that order; a computed field is computed, an absent one null; a list of zero rows accepts the known names (and refuses others)', async () => {
  expect((await listed('tsv', { fields: ['capacity_buy_usd', 'id'] })).stdout()).toBe(
    'capacity_buy_usd\tid\n1\thdg_1\n3\thdg_2\n',
  );
  expect((await listed('table', { fields: ['alpha', 'id'] })).stdout().split('\n')[0]).toMatch(/^Alpha\s+ID$/);
  const { stdout } = await listed('json', { fields: ['zeta', 'id', 'capacity_buy_usd'] });
  const printed = JSON.parse(stdout());
  expect([printed, Object.keys(printed[0])]).toEqual([
    [
      { zeta: 'z1', id: 'hdg_1', capacity_buy_usd: 1 },
      { zeta: null, id: 'hdg_2', capacity_buy_usd: 3 },
    ],
    ['zeta', 'id', 'capacity_buy_usd'],
  ]);
  // An unknown name in every format (exit 2, naming it and the names there are, nothing on stdout): test/book/read-commands.test.ts ("refusals").
  const ok = output('tsv', { fields: ['market', 'id'] });
  await ok.out.list([], FIELDS, { empty: 'No hedges yet.' });
  expect([ok.stdout(), ok.stderr()]).toEqual(['market\tid\n', 'No hedges yet.\n']);
  expect((await listed('json', { fields: ['notional_usd'] }, [])).stdout()).toBe('[]\n');
  await expect(listed('tsv', { fields: ['nope'] }, [])).rejects.toThrow(/"nope" is not a field here/);
});

// On a card and on a document the command prints directly: scripting-until-fields.test.ts (the quote's card, doctor --json).
it('--fields: JSON the command prints directly that holds no records (a list of numbers) is bad usage', () => {
  expect(() => output('json', { fields: ['a'] }).out.json([1, 2])).toThrow(UsageError);
});

it('ndjson and --query: ndjson: one compact document per element of a list, one line for a record, nothing for []; --query reshapes the JSON data after --fields; a type error is a UsageError naming --query once the data shows it; a syntax error names the expression and where it breaks: the character and what follows it, or its end', async () => {
  // A list, one document a line, and reshaped by --query: test/book/read-commands.test.ts ("json is the data as the API answered; …").
  const record = output('ndjson');
  record.out.record({ a: 1 }, []);
  expect(record.stdout()).toBe('{"a":1}\n');
  expect((await listed('ndjson', {}, [])).stdout()).toBe('');
  const { stdout } = await listed('json', {
    query: compileQuery('[?notional_usd > `20000`].id'),
    fields: ['id', 'notional_usd'],
  });
  expect(JSON.parse(stdout())).toEqual(['hdg_1']);
  // A bad expression or an unknown function, refused before any request: test/book/read-commands.test.ts ("refusals").
  const run = compileQuery('abs(@)');
  expect(() => run('text')).toThrow(UsageError);
  expect(() => run('text')).toThrow(/^--query "abs\(@\)": Invalid type/);
  const refusal = (expression: string, option?: string) => {
    try {
      compileQuery(expression, option);
    } catch (error) {
      return (error as Error).message.replace(/; expected a JMESPath expression \(https:\/\/jmespath\.site\)\.$/, '');
    }
  };
  expect([
    ...['a | | b', 'foo bar', "[?status=='open'] | [0].id x", '[?status==`open`]', 'a # b', 'foo['].map((e) =>
      refusal(e),
    ),
    refusal('a &&', '--until'),
  ]).toEqual([
    '--query "a | | b": Syntax error at character 5 ("| b"): invalid token (Pipe): "|"',
    '--query "foo bar": Syntax error at character 5 ("bar"): unexpected token type: UnquotedIdentifier, value: bar',
    '--query "[?status==\'open\'] | [0].id x": Syntax error at character 28 ("x"): unexpected token type: UnquotedIdentifier, value: x',
    '--query "[?status==`open`]": Syntax error at character 11 ("`open`]"): unexpected end of JSON input or invalid format for a JSON literal: `',
    '--query "a # b": Syntax error at character 3 ("# b"): unknown character: #',
    '--query "foo[": Syntax error at its end: it stops before it is complete',
    '--until "a &&": Syntax error at its end: it stops before it is complete',
  ]);
});

// No line wider than the terminal, what was left out named in one note, at 80 columns the desk's columns kept with
// the id shortened in the middle (and named), numbers right-aligned with the column's decimals, units in headers and a
// countdown only while a hedge runs: the reviewed hedges screens at 80, 100, 120 and 160 columns (test/output/screens.test.ts).
it('tables fitted to the width: wide enough: nothing hidden, hashes shortened in the middle', async () => {
  const hedge = {
    id: 'hdg_0000000000000000000000000',
    market: 'USDTNGN',
    order_tx_hash: `0x5f12${'0'.repeat(56)}157b`,
  };
  const { stdout, stderr } = await listed('table', { columns: 300 }, [hedge], HEDGE_RESOURCE);
  expect(stderr()).toBe('');
  expect(stdout()).toContain('0x5f12…157b');
  expect(stdout()).not.toContain('0'.repeat(56));
});

it('tables fitted to the width: an id is kept whole or hidden (named in the note), never cut while it is not the only column; cards fit the width: long values wrap at word boundaries, hashes are shortened; notes wrap at word boundaries on a terminal, not in a pipe', async () => {
  const rows = [
    {
      market: 'USDTNGN',
      side: 'buy',
      notional_usd: 25000,
      net_pnl_usd: -8.35,
      maturity_at: '2026-03-09T09:00:00.000Z',
      hedge_id: 'hdg_0000084560jvkcy5rq90dq9k',
    },
  ];
  const narrow = await listed('table', { columns: 80 }, rows, POSITION_RESOURCE);
  const line = narrow.stdout().split('\n')[2];
  // The hedge id comes after every amount in the list's priorities: it is never shortened for them.
  expect(line).toMatch(/^USDTNGN\s+buy\s+—\s+25,000\.00\s+-8\.35\s+6d 23h\s+2026-03-09 09:00$/);
  expect(narrow.stdout()).not.toContain('hdg_');
  expect(narrow.stderr()).toMatch(/^Hidden at 80 columns: [a-z_, ]*hedge_id/);
  expect((await listed('table', { columns: 120 }, rows, POSITION_RESOURCE)).stdout()).toContain(
    'hdg_0000084560jvkcy5rq90dq9k',
  );
  const { out, stdout } = output('table', { columns: 40 });
  out.record(
    {
      id: 'hdg_1',
      note: 'a long remark that cannot fit on one line of a narrow card',
      order_tx_hash: `0x${'cd'.repeat(32)}`,
    },
    [{ key: 'id', label: 'Hedge ID' }],
  );
  const lines = stdout().trimEnd().split('\n');
  for (const line of lines) expect(displayWidth(line)).toBeLessThanOrEqual(40);
  expect(stdout()).toContain('0xcdcd…cdcd');
  expect(lines.filter((line) => line.startsWith('│')).length).toBeGreaterThan(3);
  const sentence = 'word '.repeat(30).trim();
  const table = output('table', { columns: 40 });
  table.out.note(sentence);
  expect(
    table
      .stderr()
      .trimEnd()
      .split('\n')
      .every((line) => line.length <= 40 && !line.endsWith(' ')),
  ).toBe(true);
  const tsv = output('tsv', { columns: 40 });
  tsv.out.note(sentence);
  expect(tsv.stderr()).toBe(`${sentence}\n`);
});

it('CSV cells a spreadsheet would run as formulas get a leading quote; numbers, signed ones included, stay as they are', async () => {
  expect([
    spreadsheetSafe('=HYPERLINK("http://x","y")'),
    '@SUM(A1) +1+cmd -2+3 -12.5 +3 1e-5 DEAL-42'.split(' ').map(spreadsheetSafe),
    csvText([
      ['ref', 'pnl'],
      ['=1+1', '-4.5'],
    ]),
  ]).toEqual([
    '\'=HYPERLINK("http://x","y")',
    ["'@SUM(A1)", "'+1+cmd", "'-2+3", '-12.5', '+3', '1e-5', 'DEAL-42'],
    "ref,pnl\n'=1+1,-4.5\n",
  ]);
});

// Dotted --fields (`pricing.market_price`) in every format: nested values kept nested in JSON,
// flattened under the dotted name in TSV, CSV and the table; refused when they reach nothing.
const fieldsOut = (format: OutputFormat, fields: string[]) => output(format, { fields, columns: 120 });

const QUOTE = {
  market: 'USDTNGN',
  side: 'buy',
  pricing: { market_price: 1512.95, execution_price: 1513.6, price_impact_usd: -4.3 },
  carry: { daily_usdc: 3.99, total_usdc: 11.97 },
  legs: [{ side: 'sell' }],
};
const MARKETS = [
  {
    market: 'USDTNGN',
    available_capacity_usd: { buy: 1_000_000, sell: 900_000 },
    net_rate_daily_pct: { buy: 0.04, sell: -0.0256 },
  },
  { market: 'USDTKES', available_capacity_usd: { buy: 5_000, sell: 0 } },
];
/** A known field that flattens a nested object, as `markets` has: the nested object is covered. */
const MARKET_FIELDS: FieldSpec[] = [
  { key: 'market', label: 'Market' },
  {
    key: 'capacity_buy_usd',
    label: 'Capacity buy',
    kind: 'money',
    covers: ['available_capacity_usd'],
    get: (row) => (row.available_capacity_usd as { buy: number }).buy,
  },
];

it('dotted --fields: JSON keeps the nesting, in the order asked; a record without the path gets null there; a group asked whole and one of its fields leaves the server data untouched; TSV and CSV: a column headed by the dotted name, raw values; table: the dotted name as the header, the value formatted by what its parts say; in json, tsv and table a dotted name that reaches nothing is bad usage naming it; valueAtPath follows objects by key and lists by index, nothing else', async () => {
  const one = fieldsOut('json', ['market', 'pricing.market_price', 'carry.total_usdc', 'pricing.price_impact_usd']);
  one.out.record(QUOTE, []);
  const printed = JSON.parse(one.stdout());
  expect([printed, Object.keys(printed)]).toEqual([
    {
      market: 'USDTNGN',
      pricing: { market_price: 1512.95, price_impact_usd: -4.3 },
      carry: { total_usdc: 11.97 },
    },
    ['market', 'pricing', 'carry'],
  ]);

  const markets = (format: OutputFormat, fields: string[]) =>
    listed(format, { fields, columns: 120 }, MARKETS, MARKET_FIELDS);
  expect(JSON.parse((await markets('json', ['market', 'net_rate_daily_pct.sell'])).stdout())).toEqual([
    { market: 'USDTNGN', net_rate_daily_pct: { sell: -0.0256 } },
    { market: 'USDTKES', net_rate_daily_pct: { sell: null } },
  ]);
  const record = structuredClone(QUOTE);
  const both = fieldsOut('json', ['pricing', 'pricing.market_price']);
  both.out.record(record, []);
  expect([JSON.parse(both.stdout()), record]).toEqual([{ pricing: QUOTE.pricing }, QUOTE]);
  const dotted = ['market', 'available_capacity_usd.buy', 'net_rate_daily_pct.sell'];
  expect((await markets('tsv', dotted)).stdout()).toBe(
    'market\tavailable_capacity_usd.buy\tnet_rate_daily_pct.sell\nUSDTNGN\t1000000\t-0.0256\nUSDTKES\t5000\t\n',
  );
  // CSV: scripting-until-fields.test.ts ("dotted --fields: quote").
  const [header, , first] = (await markets('table', dotted)).stdout().split('\n');
  expect(header).toMatch(/^Market\s+available_capacity_usd\.buy\s+net_rate_daily_pct\.sell$/);
  expect(first).toMatch(/^USDTNGN\s+1,000,000\.00\s+-0\.0256%$/);
  expect(
    ['available_capacity_usd.buy', 'pricing.market_price', 'carry.total_usdc'].map((name) => kindFromName(name, 5)),
  ).toEqual(['money', 'rate', 'money']);
  for (const format of ['json', 'tsv', 'table'] as const) {
    const { out } = fieldsOut(format, ['market', 'pricing.nothing.here', 'nope.x']);
    expect(() => out.record(QUOTE, [])).toThrow(UsageError);
    expect(() => out.record(QUOTE, [])).toThrow(/--fields: "nope\.x" is not a field here/);
  }
  const paths = 'pricing.market_price legs.0.side legs.x market.length pricing.toString'.split(' ');
  expect(paths.map((path) => valueAtPath(QUOTE, path))).toEqual([1512.95, 'sell', undefined, undefined, undefined]);
});
