// The records read by parts: every record but rates, and the rates of the markets (or years) a command values or
// records, each part checked against its digest. Read by parts or read whole, every command prints the same; an
// index that is behind is read with the records past it, and one cut short, changed, or another hedge's is never
// taken at its word; a record changed in place is found by every read of its part, and by `acct log`, which reads
// every record.
import { createHash } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hedgeIn, tempFolders, ROOT } from '../support/hedge-cli.js';
import { exits, ok } from '../support/cli-runs.js';
import { describeWithPostgres } from '../support/servers/postgres.js';
import { accountStoreName } from '../../src/features/acct/acct-store.js';
import { sha256Of } from '../../src/features/acct/sha256-state.js';
import { useSimulators } from '../support/simulator.js';

const folder = tempFolders('hedge-acct-parts-');
const clock = { now: () => Date.parse('2026-03-02T12:00:00Z'), sleep: async () => {} };
const EXAMPLE = join(ROOT, 'docs', 'examples', 'relationship.json');
const RATES = join(ROOT, 'docs', 'examples', 'rates-eurusd.csv');
const LATE = ['--recorded-late', 'from the 2018 spreadsheet'];
/** EUR-SALE-1's books: valued from EURUSD's rates alone. */
const TEST = ['acct', 'test', 'EUR-SALE-1', '--as-of', '2019-02-01'];

/** What the books print, every command that reads them. */
const READS = [
  [...TEST, '--json'],
  ['acct', 'reserve', '--period', '2019-Q1', '--json'],
  ['acct', 'journal', '--as-of', '2019-02-01', '--json'],
  ['acct', 'list', '--json'],
  ['acct', 'show', 'EUR-SALE-1', '--markdown'],
  ['acct', 'rates', '--market', 'EURUSD', '--json'],
  ['acct', 'rates', '--market', 'GBPUSD', '--json'],
  ['acct', 'log', '--json'],
];

type Run = (args: string[]) => ReturnType<typeof hedgeIn>;

/** The books of a desk, seven records: two markets' rates (EURUSD's over two years, GBPUSD's within one), a
 * relationship, a rate corrected, an event and its correction, a month closed. */
async function books(run: Run, dir: string) {
  const file = (name: string, text: string) => (writeFileSync(join(dir, name), text), join(dir, name));
  const eurusd = ['--market', 'EURUSD', '--quote', 'USD per EUR'];
  ok(await run(['acct', 'rates', RATES, ...eurusd]));
  const gbp = 'date,spot,forward,discount_factor,source\n2018-10-15,1.31,,,bank\n2018-12-31,1.27,,,bank\n';
  ok(await run(['acct', 'rates', file('gbp.csv', gbp), '--market', 'GBPUSD', '--quote', 'USD per GBP']));
  ok(await run(['acct', 'designate', EXAMPLE, ...LATE]));
  const restated = 'date,spot,forward,discount_factor,source\n2018-12-31,1.22,1.20,1,the bank restated\n';
  ok(await run(['acct', 'rates', file('fix.csv', restated), ...eurusd, '--correct', '--reason', 'restated']));
  ok(await run(['acct', 'event', 'EUR-SALE-1', '--occurred', '2019-02-01', '--share', '0.5']));
  ok(await run(['acct', 'event', 'EUR-SALE-1', '--occurred', '2019-02-01', '--correct', '5', '--reason', 'all of it']));
  ok(await run(['acct', 'close', '--period', '2018-10']));
}

/** Every read's output. */
async function printed(run: Run) {
  const outputs = [];
  for (const args of READS) outputs.push(ok(await run(args)).stdout);
  return outputs;
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

describe('the file store read by parts', () => {
  function setUp() {
    const dir = folder();
    const run: Run = (args) => hedgeIn(dir, args, { clock });
    const at = (name: string) => join(dir, 'acct', 'local', name);
    const index = () => JSON.parse(readFileSync(at('index.json'), 'utf8'));
    return { dir, run, at, index };
  }

  it('prints what a read of every record prints; the head names the whole file, which the index covers', async () => {
    const { dir, run, at, index } = setUp();
    await books(run, dir);
    const byParts = await printed(run);
    const records = readFileSync(at('records.json'));
    const head = JSON.parse(readFileSync(at('head.json'), 'utf8'));
    expect(head).toEqual({ count: 7, hash: index().hash, bytes: records.length, digest: sha256(records) });
    expect([index().count, index().bytes, sha256Of(index().state)]).toEqual([7, records.length, sha256(records)]);
    expect(Object.keys(index().parts).sort()).toEqual(['', 'EURUSD', 'EURUSD 2018', 'GBPUSD 2018']);
    rmSync(at('index.json'));
    expect(await printed(run)).toEqual(byParts);
    // The next append writes it again, and what is read by it is the same.
    ok(await run(['acct', 'close', '--period', '2018-11']));
    expect(index().count).toBe(8);
    const after = await printed(run);
    rmSync(at('index.json'));
    expect(await printed(run)).toEqual(after);
  });

  it('an index that is behind (another hedge appended) is read with the records past it; one cut short, changed, or of another version is not taken at its word: every record is read; the next append writes it whole', async () => {
    const { dir, run, at, index } = setUp();
    await books(run, dir);
    const before = readFileSync(at('index.json'));
    ok(await run(['acct', 'close', '--period', '2018-11']));
    const expected = await printed(run);
    // GBPUSD's rate of 2018-12-31 changed in place (the file's size kept): found by a read of every record, never by
    // one of EUR-SALE-1's books by parts.
    const records = readFileSync(at('records.json'), 'utf8');
    const changeGbp = () => writeFileSync(at('records.json'), records.replace('"spot":"1.27"', '"spot":"1.28"'));
    const restore = () => writeFileSync(at('records.json'), records);
    writeFileSync(at('index.json'), before);
    expect(await printed(run)).toEqual(expected);
    changeGbp();
    ok(await run(TEST));
    restore();
    const { parts } = JSON.parse(before.toString());
    const bad = {
      'cut short': before.subarray(0, before.length / 2),
      'of another version': JSON.stringify({ ...JSON.parse(before.toString()), version: 2 }),
      'with a digest changed': JSON.stringify({
        ...JSON.parse(before.toString()),
        parts: { ...parts, '': { ...parts[''], digest: '0'.repeat(64) } },
      }),
      // The rate corrected left out, its part described without it: the counts no longer add up.
      'leaving out a record': JSON.stringify({
        ...JSON.parse(before.toString()),
        parts: { ...parts, 'EURUSD 2018': { count: 0, digest: sha256(Buffer.alloc(0)), spans: '' } },
      }),
    };
    for (const [what, text] of Object.entries(bad)) {
      writeFileSync(at('index.json'), text);
      expect([what, await printed(run)]).toEqual([what, expected]);
      changeGbp();
      expect([what, exits(await run(TEST), 2, "record 2's hash does not follow").code]).toEqual([what, 2]);
      restore();
    }
    // The next append writes it whole again.
    ok(await run(['acct', 'close', '--period', '2018-12']));
    expect([index().count, index().bytes]).toEqual([9, readFileSync(at('records.json')).length]);
    expect(index().parts['EURUSD 2018']).toEqual(parts['EURUSD 2018']);
  });

  it('a record changed in place is found by every read of its part and by acct log; a read of other parts does not read it', async () => {
    const { dir, run, at } = setUp();
    await books(run, dir);
    const lines = readFileSync(at('records.json'), 'utf8').split('\n');
    // GBPUSD's rate of 2018-12-31, 1.27 → 1.28: the file's size kept.
    lines[1] = lines[1].replace('"spot":"1.27"', '"spot":"1.28"');
    writeFileSync(at('records.json'), lines.join('\n'));
    exits(await run(['acct', 'rates', '--market', 'GBPUSD']), 2, "record 2's hash does not follow");
    exits(await run(['acct', 'log']), 2, "record 2's hash does not follow");
    ok(await run(TEST));
    // EURUSD's rate corrected: every read of its part finds it, an append too (nothing recorded).
    lines[1] = lines[1].replace('"spot":"1.28"', '"spot":"1.27"');
    lines[3] = lines[3].replace('"spot":"1.22"', '"spot":"1.23"');
    writeFileSync(at('records.json'), lines.join('\n'));
    ok(await run(['acct', 'rates', '--market', 'GBPUSD']));
    exits(await run(TEST), 2, "record 4's hash does not follow");
    const size = readFileSync(at('records.json')).length;
    exits(await run(['acct', 'close', '--period', '2018-11']), 2, "record 4's hash does not follow");
    expect(readFileSync(at('records.json')).length).toBe(size);
  });
});

const start = useSimulators();

describeWithPostgres('the team store read by parts', (server) => {
  it("prints what a read of every record prints; an older hedge's rows (no parts) are read whole and given their parts by the next append; a part changed by hand is read whole; a line changed is found by every read of its part", async () => {
    const url = await server().createDatabase();
    const database = new URL(url).pathname.slice(1);
    const sql = (text: string) => server().query(database, text);
    const { env } = await start();
    const store = accountStoreName('test', env.HEDGE_BASE_URL);
    const dir = folder();
    const run: Run = (args) => hedgeIn(dir, args, { clock, env: { HEDGE_JOURNAL_URL: url, ...env } });
    const parted = async () =>
      (await sql(`SELECT part FROM hedge.acct_records WHERE store = '${store}' ORDER BY seq`)).rows.map(
        (row: { part: string | null }) => row.part,
      );
    await books(run, dir);
    const parts = ['EURUSD', 'GBPUSD 2018', '', 'EURUSD 2018', '', '', ''];
    expect(await parted()).toEqual(parts);
    const byParts = await printed(run);
    // As an older hedge left them: no part, and a head that describes none.
    await sql('UPDATE hedge.acct_records SET part = NULL; UPDATE hedge.acct_heads SET parts = NULL');
    expect(await printed(run)).toEqual(byParts);
    ok(await run(['acct', 'close', '--period', '2018-11']));
    expect(await parted()).toEqual([...parts, '']);
    expect((await sql('SELECT parts IS NOT NULL AS described FROM hedge.acct_heads')).rows).toEqual([
      { described: true },
    ]);
    const after = await printed(run);
    // A line of GBPUSD's rates changed: found by a read of its part or of every record, not by EUR-SALE-1's books.
    const spot = (from: string, to: string, seq: number) =>
      sql(
        `UPDATE hedge.acct_records SET line = replace(line, '"spot":"${from}"', '"spot":"${to}"') WHERE seq = ${seq}`,
      );
    await spot('1.27', '1.28', 2);
    ok(await run(TEST));
    exits(await run(['acct', 'rates', '--market', 'GBPUSD']), 2, "record 2's hash does not follow");
    exits(await run(['acct', 'log']), 2, "record 2's hash does not follow");
    await spot('1.28', '1.27', 2);
    expect(await printed(run)).toEqual(after);
    // A record moved to another part by hand: its part's digest says so, and every record is read.
    await sql(`UPDATE hedge.acct_records SET part = '' WHERE seq = 4`);
    expect(await printed(run)).toEqual(after);
    // A line changed: every read of its part finds it.
    await sql(`UPDATE hedge.acct_records SET part = 'EURUSD 2018' WHERE seq = 4`);
    await spot('1.22', '1.23', 4);
    exits(await run(TEST), 2, "record 4's hash does not follow");
  });
});
