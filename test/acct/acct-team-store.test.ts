// The accounting records on the team store: with HEDGE_JOURNAL_URL they live in the journal's PostgreSQL database
// (hedge.acct_records, hedge.acct_heads), one chain per account's store, nothing under the machine's acct/ folder.
// Two colleagues' appends at once are both kept, in order; accounts never mix; records removed from the end, or
// added past the head, are found on the next read. What is asserted is the store's own rows.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hedgeIn, tempFolders, ROOT } from '../support/hedge-cli.js';
import { exits, ok, okJson } from '../support/cli-runs.js';
import { describeWithPostgres } from '../support/servers/postgres.js';
import { openPostgresJournal, type PostgresJournal } from '../../src/platform/journal/postgres/postgres-store.js';
import { JournalStoreError } from '../../src/platform/journal/entry.js';
import { accountStoreName } from '../../src/features/acct/acct-store.js';
import { keyFingerprint } from '../../src/platform/journal/row-integrity.js';
import { useSimulators } from '../support/simulator.js';

const folder = tempFolders('hedge-acct-team-');
const clock = { now: () => Date.parse('2026-03-02T12:00:00Z'), sleep: async () => {} };
const EXAMPLE = JSON.parse(readFileSync(join(ROOT, 'docs', 'examples', 'relationship.json'), 'utf8'));
const RATES = join(ROOT, 'docs', 'examples', 'rates-eurusd.csv');
const IMPORT = ['acct', 'rates', RATES, '--market', 'EURUSD', '--quote', 'USD per EUR'];
const LATE = ['--recorded-late', 'from the 2018 spreadsheet'];
const LIVE_KEY = { HEDGE_BASE_URL: 'https://partner.example', HEDGE_API_KEY: 'hp_live_abcdefghijklmnop' };
const start = useSimulators();

describeWithPostgres('the accounting records on the team store', (server) => {
  /** A desk: one database, and machines (config dirs) that share it through HEDGE_JOURNAL_URL; its account is a
   * simulator's (`env`, its records under `store`). */
  async function desk() {
    const url = await server().createDatabase();
    const database = new URL(url).pathname.slice(1);
    const { env } = await start();
    const store = accountStoreName('test', env.HEDGE_BASE_URL);
    const machine = () => {
      const dir = folder();
      const run = (args: string[], more: Record<string, string> = env, spawn = false) =>
        hedgeIn(dir, args, { clock, spawn, env: { HEDGE_JOURNAL_URL: url, ...more } });
      const relationship = (id: string) => {
        const path = join(dir, `${id}.json`);
        writeFileSync(path, JSON.stringify({ ...EXAMPLE, id }));
        return path;
      };
      return { dir, run, relationship };
    };
    const rows = async (store: string) =>
      (
        await server().query(
          database,
          'SELECT seq::int AS seq, line FROM hedge.acct_records WHERE store = $1 ORDER BY seq',
          [store],
        )
      ).rows as Array<{ seq: number; line: string }>;
    return { url, database, env, store, machine, rows, sql: (text: string) => server().query(database, text) };
  }

  it('a designation is recorded in the store, and `acct list` and `acct test` read it from there (nothing under acct/)', async () => {
    const { machine, rows, store } = await desk();
    const a = machine();
    const b = machine();
    ok(await a.run(IMPORT));
    ok(await a.run(['acct', 'designate', a.relationship('EUR-SALE-1'), ...LATE]));
    expect((await rows(store)).map((row) => [row.seq, JSON.parse(row.line).kind])).toEqual([
      [1, 'rates'],
      [2, 'designation'],
    ]);
    // Another machine of the desk reads them.
    expect(okJson(await b.run(['acct', 'list', '--json'])).map((row: { id: string }) => row.id)).toEqual([
      'EUR-SALE-1',
    ]);
    const tested = okJson(await b.run(['acct', 'test', 'EUR-SALE-1', '--as-of', '2019-02-01', '--json'])).find(
      (row: { period_end: string }) => row.period_end === '2018-12-31',
    );
    expect([tested.period_end, tested.rate]).toEqual(['2018-12-31', 1.21]);
    expect(existsSync(join(a.dir, 'acct'))).toBe(false);
    expect(existsSync(join(b.dir, 'acct'))).toBe(false);
  });

  it('four eyes across the desk: a designation made on one machine is approved from another, each a row of the one chain, each saying who', async () => {
    const { machine, rows, env, store } = await desk();
    const a = machine();
    const b = machine();
    const ada = { ...env, HEDGE_USER: 'Ada Obi' };
    const bola = { ...env, HEDGE_USER: 'Bola Ade' };
    ok(await a.run(['acct', 'policy', '--four-eyes', 'on'], ada));
    ok(await a.run(IMPORT, ada));
    exits(await a.run(['acct', 'designate', a.relationship('EUR-SALE-1'), ...LATE], ada), 0, 'pending approval');
    expect(okJson(await b.run(['acct', 'list', '--json'], bola))[0].status).toBe('pending approval (record 3)');
    exits(await a.run(['acct', 'approve', '3'], ada), 2, 'was made by Ada Obi, who cannot approve it');
    ok(await b.run(['acct', 'approve', '3'], bola));
    const stored = (await rows(store)).map((row) => JSON.parse(row.line));
    // Who, with the profile (none: a key from the environment) and the key's fingerprint, never the key.
    expect(stored.map((record) => [record.seq, record.kind, record.by.name, record.by.key])).toEqual(
      ['policy', 'rates', 'designation', 'approval'].map((kind, index) => [
        index + 1,
        kind,
        kind === 'approval' ? 'Bola Ade' : 'Ada Obi',
        keyFingerprint(env.HEDGE_API_KEY),
      ]),
    );
    expect(stored[3].body).toEqual({ record: 3, hash: stored[2].hash });
    expect(JSON.stringify(stored)).not.toContain(env.HEDGE_API_KEY);
    expect(okJson(await a.run(['acct', 'list', '--json'], ada))[0].status).toBe('designated');
  });

  it('two colleagues designating at once, each in a process of its own: both are kept, one after the other, on one chain', async () => {
    const { machine, rows, env, store } = await desk();
    const a = machine();
    const b = machine();
    // The schema first, so that the two runs race on the records, not on creating it.
    ok(await a.run(IMPORT));
    const [first, second] = await Promise.all([
      a.run(['acct', 'designate', a.relationship('EUR-SALE-A'), ...LATE], env, true),
      b.run(['acct', 'designate', b.relationship('EUR-SALE-B'), ...LATE], env, true),
    ]);
    ok(first);
    ok(second);
    const stored = (await rows(store)).map((row) => JSON.parse(row.line));
    expect(stored.map((record) => record.seq)).toEqual([1, 2, 3]);
    expect(
      stored
        .slice(1)
        .map((record) => record.body.relationship.id)
        .sort(),
    ).toEqual(['EUR-SALE-A', 'EUR-SALE-B']);
    expect(stored[2].prev).toBe(stored[1].hash);
    const listed = okJson(await a.run(['acct', 'list', '--json'])).map((row: { id: string }) => row.id);
    expect(listed.sort()).toEqual(['EUR-SALE-A', 'EUR-SALE-B']);
  });

  it("accounts never mix: each account's records, and the keyless `local`, are chains of their own in the one store", async () => {
    const { machine, rows, store } = await desk();
    const a = machine();
    ok(await a.run(IMPORT));
    ok(await a.run(['acct', 'designate', a.relationship('EUR-SALE-1'), ...LATE]));
    exits(await a.run(['acct', 'test'], LIVE_KEY), 2, 'no relationship is designated yet');
    exits(await a.run(['acct', 'test'], {}), 2, 'no relationship is designated yet');
    // Another account (another server) records the same id and the same dates with other figures: no block.
    const other = (await start()).env;
    const changed = join(a.dir, 'changed.csv');
    writeFileSync(changed, readFileSync(RATES, 'utf8').replace('2018-12-31,1.21', '2018-12-31,1.22'));
    ok(await a.run(['acct', 'rates', changed, '--market', 'EURUSD', '--quote', 'USD per EUR'], other));
    ok(await a.run(['acct', 'designate', a.relationship('EUR-SALE-1'), ...LATE], other));
    expect((await rows(store)).length).toBe(2);
    expect((await rows(accountStoreName('test', other.HEDGE_BASE_URL))).map((row) => row.seq)).toEqual([1, 2]);
    expect(await rows('local')).toEqual([]);
    // The demo's records stay on this machine.
    ok(await a.run(['--demo', 'acct', 'rates', RATES, '--market', 'EURUSD', '--quote', 'USD per EUR'], {}));
    expect(existsSync(join(a.dir, 'acct', 'demo', 'records.json'))).toBe(true);
  });

  it("records an older hedge kept under the key's prefix are named, with the statements that move them to the account's store", async () => {
    const { machine, sql, env, store } = await desk();
    const a = machine();
    ok(await a.run(['acct', 'designate', a.relationship('EUR-SALE-1'), ...LATE], {}));
    ok(await a.run(IMPORT));
    ok(await a.run(['acct', 'designate', a.relationship('EUR-SALE-1'), ...LATE]));
    // As an older hedge named them: after the key's prefix.
    const older = `test-${env.HEDGE_API_KEY.split('_')[0]}`;
    for (const table of ['acct_records', 'acct_heads'])
      await sql(`UPDATE hedge.${table} SET store = '${older}' WHERE store = '${store}'`);
    const empty = ok(await a.run(['acct', 'list']));
    const said = `${empty.stdout}${empty.stderr}`.replace(/\s+/g, ' ');
    expect(said).toContain(`"${older}" in the team journal store (named after the key's prefix by an older hedge)`);
    expect(said).toContain('"local" in the team journal store (kept while no key was configured)');
    const moves = ['acct_records', 'acct_heads'].map(
      (table) => new RegExp(`UPDATE hedge\\.${table} SET store = '${store}' WHERE store = '${older}'`).exec(said)![0],
    );
    await sql(`BEGIN; ${moves.join('; ')}; COMMIT`);
    expect(okJson(await a.run(['acct', 'list', '--json'])).map((row: { id: string }) => row.id)).toEqual([
      'EUR-SALE-1',
    ]);
    expect(ok(await a.run(['acct', 'list'])).stderr).not.toContain('kept elsewhere');
  });

  it('the last record deleted from the store is found on the next read; so is one added past the head', async () => {
    const { machine, rows, sql, store } = await desk();
    const a = machine();
    ok(await a.run(IMPORT));
    ok(await a.run(['acct', 'designate', a.relationship('EUR-SALE-1'), ...LATE]));
    const kept = await rows(store);
    await sql(`DELETE FROM hedge.acct_records WHERE store = '${store}' AND seq = 2`);
    exits(await a.run(['acct', 'list']), 2, 'its last 1 record(s) were removed');
    exits(await a.run(['acct', 'designate', a.relationship('EUR-SALE-2'), ...LATE]), 2, 'were removed');
    // Put back, and a record added past the head by hand (its chain sealed as hedge would): found too.
    await sql(
      `INSERT INTO hedge.acct_records (store, seq, line) VALUES ('${store}', 2, '${kept[1].line.replaceAll("'", "''")}')`,
    );
    ok(await a.run(['acct', 'list']));
    await sql(`UPDATE hedge.acct_heads SET count = 1 WHERE store = '${store}'`);
    exits(await a.run(['acct', 'list']), 2, '1 record(s) were added past its head');
  });

  it('a team store that cannot be reached refuses reads and writes alike (exit 13); nothing is kept on the machine instead', async () => {
    const { machine } = await desk();
    const a = machine();
    const down = { HEDGE_JOURNAL_URL: 'postgres://hedge:secret@127.0.0.1:1/hedge?connect_timeout=2' };
    exits(await a.run(IMPORT, down), 13, 'cannot be reached');
    exits(await a.run(['acct', 'list'], down), 13, 'cannot be reached');
    expect(existsSync(join(a.dir, 'acct'))).toBe(false);
  });

  it('two appends that read the same count (a hold lost) never both take a number: one is kept whole, the other refused', async () => {
    const { url, rows, sql } = await desk();
    const stores: PostgresJournal[] = [0, 1].map(() =>
      openPostgresJournal({ url, shown: 'the store', source: 'HEDGE_JOURNAL_URL', fallbackDir: folder() }),
    );
    try {
      const outcomes = await Promise.allSettled(
        stores.map((store, index) => store.acctRecords.append('test-hp', 0, [`{"writer":${index}}`], `hash-${index}`)),
      );
      const refused = outcomes.filter((outcome) => outcome.status === 'rejected');
      expect(refused).toHaveLength(1);
      expect((refused[0] as PromiseRejectedResult).reason).toBeInstanceOf(JournalStoreError);
      const [kept] = await rows('test-hp');
      expect((await rows('test-hp')).length).toBe(1);
      const head = (await sql(`SELECT count::int AS count, hash FROM hedge.acct_heads WHERE store = 'test-hp'`)).rows;
      expect(head).toEqual([{ count: 1, hash: `hash-${JSON.parse(kept.line).writer}` }]);
    } finally {
      await Promise.all(stores.map((store) => store.close()));
    }
  });
});
