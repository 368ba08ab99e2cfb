// The accounting store kept as the journal is: its folders judged, never a link followed, written under a hold judged
// by its holder's liveness, every append bounded by what a read accepts, one store per account, and its chain's
// head kept apart, so that records removed from the end or a chain sealed again are found on the next read.
import { execSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { hedgeIn, tempFolders, ROOT } from '../support/hedge-cli.js';
import { exits, ok, okJson } from '../support/cli-runs.js';
import { canonicalJson } from '../../src/core/files/canonical-json.js';
import { sha256Hex } from '../../src/platform/journal/row-integrity.js';
import { processStart } from '../../src/core/files/file-lock.js';

const folder = tempFolders('hedge-acct-store-');
const TODAY = '2026-03-02';
const clock = { now: () => Date.parse(`${TODAY}T12:00:00Z`), sleep: async () => {} };
const RATES = join(ROOT, 'docs', 'examples', 'rates-eurusd.csv');
const EXAMPLE = join(ROOT, 'docs', 'examples', 'relationship.json');
const IMPORT = ['acct', 'rates', RATES, '--market', 'EURUSD', '--quote', 'USD per EUR'];
const LATE = ['--recorded-late', 'from the 2018 spreadsheet'];

function setUp(env: Record<string, string> = {}) {
  const dir = folder();
  const run = (args: string[], more: Record<string, string> = {}) =>
    hedgeIn(dir, args, { clock, env: { ...env, ...more } });
  const store = (name = 'local') => join(dir, 'acct', name, 'records.json');
  const file = (name: string, content: string) => {
    const path = join(dir, name);
    writeFileSync(path, content);
    return path;
  };
  return { dir, run, store, file };
}

/** A record's hash as the store seals it: the one before it, then its own fields in canonical JSON. */
const hashOf = (record: Record<string, unknown>) =>
  createHash('sha256')
    .update(
      String(record.prev) +
        canonicalJson({
          seq: record.seq,
          kind: record.kind,
          recorded_at: record.recorded_at,
          ...(record.by !== undefined && { by: record.by }),
          body: record.body,
        }),
    )
    .digest('hex');

describe('the store folder is judged as the journal folder is', () => {
  it('a config folder others may change (0777) is refused; nothing is recorded', async () => {
    const { dir, run, store } = setUp();
    chmodSync(dir, 0o777);
    try {
      exits(await run(IMPORT), 2, `Cannot use the folder ${dir}`);
    } finally {
      chmodSync(dir, 0o700);
    }
    expect(existsSync(store())).toBe(false);
  });

  it.skipIf(process.getuid?.() !== 0)(
    "XDG_STATE_HOME/hedge owned by another user is refused (as root: the folder is another's, never chmodded)",
    async () => {
      const { dir, run } = setUp();
      const state = join(dir, 'xdg');
      mkdirSync(join(state, 'hedge'), { recursive: true, mode: 0o755 });
      chownSync(join(state, 'hedge'), 65534, 65534);
      exits(await run(IMPORT, { HEDGE_CONFIG_DIR: '', XDG_STATE_HOME: state }), 2, 'Cannot use the folder');
      expect(statSync(join(state, 'hedge')).mode & 0o777).toBe(0o755);
      expect(existsSync(join(state, 'hedge', 'acct'))).toBe(false);
    },
  );

  it('acct/ swapped for a link to another folder is not followed: that folder is neither chmodded nor written', async () => {
    const { dir, run } = setUp();
    const elsewhere = join(folder(), 'elsewhere');
    mkdirSync(elsewhere, { mode: 0o755 });
    chmodSync(elsewhere, 0o755);
    symlinkSync(elsewhere, join(dir, 'acct'));
    exits(await run(IMPORT), 13, 'symbolic link');
    exits(await run(['acct', 'test']), 13, 'symbolic link');
    expect(statSync(elsewhere).mode & 0o777).toBe(0o755);
    expect(existsSync(join(elsewhere, 'local'))).toBe(false);
  });
});

describe('one writer at a time, judged by liveness, never by age', () => {
  it("a stopped writer's hold is not taken over however old; once it is gone, the next writer records", async () => {
    const { dir, run, file } = setUp();
    ok(await run(IMPORT));
    // A writer stopped (Ctrl-Z) while it holds the store, for an hour.
    const writer = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1 << 30)'], { stdio: 'ignore' });
    try {
      await new Promise((resolve) => writer.once('spawn', resolve));
      writer.kill('SIGSTOP');
      const locks = join(dir, 'locks');
      mkdirSync(locks, { recursive: true, mode: 0o700 });
      const holder = {
        pid: writer.pid,
        host: hostname(),
        since: new Date(clock.now() - 3_600_000).toISOString(),
        session: 'stopped-writer',
        start: processStart(writer.pid!),
      };
      writeFileSync(
        join(locks, `${sha256Hex('acct|local', 24)}.json`),
        JSON.stringify({ scope: 'acct|local', holder }),
      );
      const relationship = file('r.json', readFileSync(EXAMPLE, 'utf8'));
      const refused = exits(await run(['acct', 'designate', relationship, ...LATE]), 11, `pid ${writer.pid}`);
      expect(refused.stderr).toContain('nothing was recorded');
      // Its hold ended with it (kill -9 after the stop): the next writer takes over, and what was recorded stays.
      writer.kill('SIGKILL');
      await new Promise((resolve) => writer.once('exit', resolve));
      ok(await run(['acct', 'designate', relationship, ...LATE]));
      const rows = okJson(await run(['acct', 'test', 'EUR-SALE-1', '--as-of', '2019-02-01', '--json']));
      expect(rows.map((row: { period_end: string }) => row.period_end)).toEqual([
        '2018-10-31',
        '2018-11-30',
        '2018-12-31',
        '2019-01-31',
        '2019-02-01',
      ]);
    } finally {
      writer.kill('SIGKILL');
    }
  });
});

describe('every append is bounded by what a read accepts', () => {
  it('an append that would take the store past 32 MiB is refused before it is written; the store stays readable', async () => {
    const { dir, run, store } = setUp();
    // A store 200 bytes under its bound: one record, padded.
    const record: Record<string, unknown> = {
      seq: 1,
      kind: 'rates',
      recorded_at: '2026-03-01T12:00:00.000Z',
      body: { market: 'GBPUSD', quote: 'USD per GBP', rows: [], note: '' },
      prev: '',
      hash: '0'.repeat(64),
    };
    const overhead = JSON.stringify({ records: [record] }).length;
    (record.body as { note: string }).note = 'x'.repeat(32 * 1024 * 1024 - 200 - overhead);
    record.hash = hashOf(record);
    mkdirSync(join(dir, 'acct', 'local'), { recursive: true, mode: 0o700 });
    writeFileSync(store(), JSON.stringify({ records: [record] }));
    writeFileSync(join(dir, 'acct', 'local', 'head.json'), JSON.stringify({ count: 1, hash: record.hash }));
    const before = readFileSync(store());
    exits(await run(IMPORT), 2, 'past the 32 MiB they may hold; nothing was recorded');
    expect(readFileSync(store()).equals(before)).toBe(true);
    // Still read: a command answers from it.
    exits(await run(['acct', 'test']), 2, 'no relationship is designated yet');
  });
});

describe('records per account', () => {
  const base = { HEDGE_BASE_URL: 'https://partner.example/acme/v2' };
  const TEST_KEY = { ...base, HEDGE_API_KEY: 'hp_test_abcdefghijklmnop' };
  const LIVE_KEY = { ...base, HEDGE_API_KEY: 'hp_live_abcdefghijklmnop' };
  /** A new key of the same account (the same base URL), under another prefix, and the API's next version. */
  const NEW_KEY = { HEDGE_BASE_URL: 'https://partner.example/acme/v3', HEDGE_API_KEY: 'hq_test_qrstuvwxyzabcdef' };
  const OTHER_ACCOUNT = { ...TEST_KEY, HEDGE_BASE_URL: 'https://partner.example/zenith/v2' };
  const listed = async (run: ReturnType<typeof setUp>['run'], env: Record<string, string>) =>
    okJson(await run(['acct', 'list', '--json'], env)).map((row: { id: string }) => row.id);

  it("each account's records are its own, found again under a new key; records kept elsewhere before are named with how to move them", async () => {
    const { dir, run, file } = setUp();
    const relationship = file('r.json', readFileSync(EXAMPLE, 'utf8'));
    // Recorded with no key at all: the keyless `local` store.
    ok(await run(IMPORT));
    ok(await run(['acct', 'designate', relationship, ...LATE]));
    // After a login, the account's store is empty; the message says where the records are and how to move them.
    const empty = ok(await run(['acct', 'list'], TEST_KEY));
    const said = `${empty.stdout}${empty.stderr}`.replace(/\s+/g, ' ');
    const moved = / move them here: (mv \S+ (\S+?))\.( |$)/.exec(said);
    expect(said).toContain(
      `Records are kept elsewhere: ${join(dir, 'acct', 'local')} (kept while no key was configured)`,
    );
    const accountStore = moved![2];
    expect(accountStore).toMatch(new RegExp(`^${join(dir, 'acct')}/test-partner\\.example_acme-[0-9a-f]{8}$`));
    // The demo is never told of them.
    expect(ok(await run(['--demo', 'acct', 'list'])).stderr).not.toContain('kept elsewhere');
    execSync(moved![1]);
    expect(await listed(run, TEST_KEY)).toEqual(['EUR-SALE-1']);
    // A new key of the account (another prefix, the API's next version) keeps them; another environment or another
    // partner's path is another account.
    expect(await listed(run, NEW_KEY)).toEqual(['EUR-SALE-1']);
    expect(await listed(run, LIVE_KEY)).toEqual([]);
    expect(await listed(run, OTHER_ACCOUNT)).toEqual([]);
    expect(existsSync(join(dir, 'acct', 'local'))).toBe(false);
    // A store an older hedge named after the key's prefix is named too.
    renameSync(accountStore, join(dir, 'acct', 'test-hp'));
    const older = exits(await run(['acct', 'show', 'EUR-SALE-1'], TEST_KEY), 2, 'id: no relationship EUR-SALE-1');
    expect(older.stderr.replace(/\s+/g, ' ')).toContain(
      `Records are kept elsewhere: ${join(dir, 'acct', 'test-hp')} (named after the key's prefix by an older hedge); if they are this account's, move them here: mv ${join(dir, 'acct', 'test-hp')} ${accountStore}.`,
    );
    expect(older.stderr.trim().split('\n')).toHaveLength(1);
  });
});

describe('tamper evidence: the head of the chain is kept apart from the records', () => {
  async function recorded() {
    const context = setUp();
    ok(await context.run(IMPORT));
    ok(await context.run(['acct', 'designate', context.file('r.json', readFileSync(EXAMPLE, 'utf8')), ...LATE]));
    ok(await context.run(['acct', 'event', 'EUR-SALE-1', '--occurred', '2019-02-01']));
    // A record a line, as the store appends them.
    const records = readFileSync(context.store(), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line)) as Array<Record<string, unknown>>;
    return { ...context, records };
  }

  it('the last record removed is found on the next read', async () => {
    const { run, store, records } = await recorded();
    writeFileSync(store(), JSON.stringify({ records: records.slice(0, -1) }));
    exits(await run(['acct', 'test']), 2, 'its last 1 record(s) were removed');
  });

  it('the head removed is found on the next read', async () => {
    const { run, store } = await recorded();
    rmSync(join(store(), '..', 'head.json'));
    exits(await run(['acct', 'test']), 2, 'the head of its chain', 'is missing');
  });

  it('a chain sealed again after an edit is found on the next read', async () => {
    const { run, store, records } = await recorded();
    (records[1].body as { relationship: { ratio: string } }).relationship.ratio = '2';
    let prev = records[0].hash;
    for (const record of records.slice(1)) {
      record.prev = prev;
      record.hash = prev = hashOf(record);
    }
    writeFileSync(store(), JSON.stringify({ records }));
    exits(await run(['acct', 'test']), 2, 'its chain was sealed again');
  });
});

describe('a record a line, appended; the head names the bytes and digest of what was written', () => {
  const lines = (path: string) =>
    readFileSync(path, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);

  it("an older hedge's store (one document) is read, and the next append writes it a record a line, every hash as it was; a write cut short is no record and the next append takes its place; records removed from the end are found", async () => {
    const { dir, run, store, file } = setUp();
    ok(await run(IMPORT));
    const [rates] = lines(store());
    // As an older hedge kept it: one document, and a head of its count and last hash.
    writeFileSync(store(), `{"records":[\n${JSON.stringify(rates)}\n]}\n`);
    const head = join(dir, 'acct', 'local', 'head.json');
    writeFileSync(head, JSON.stringify({ count: 1, hash: rates.hash }));
    expect(okJson(await run(['acct', 'rates', '--market', 'EURUSD', '--json'])).length).toBe(6);
    ok(await run(['acct', 'designate', file('r.json', readFileSync(EXAMPLE, 'utf8')), ...LATE]));
    const converted = lines(store());
    expect([converted.length, converted[0], converted[1].prev]).toEqual([2, rates, rates.hash]);
    const written = readFileSync(store());
    expect(JSON.parse(readFileSync(head, 'utf8'))).toEqual({
      count: 2,
      hash: converted[1].hash,
      bytes: written.length,
      digest: createHash('sha256').update(written).digest('hex'),
    });
    // A write cut short by a crash: not a record; the next append writes over it.
    writeFileSync(store(), Buffer.concat([written, Buffer.from('{"seq":3,"kind":"ev')]));
    expect(okJson(await run(['acct', 'log', '--json'])).length).toBe(2);
    ok(await run(['acct', 'event', 'EUR-SALE-1', '--occurred', '2019-02-01']));
    const after = lines(store());
    expect([after.length, after[2].prev, after[2].kind]).toEqual([3, converted[1].hash, 'event']);
    // Its last record removed, the head still naming three.
    writeFileSync(
      store(),
      `${after
        .slice(0, 2)
        .map((record) => JSON.stringify(record))
        .join('\n')}\n`,
    );
    exits(await run(['acct', 'test']), 2, 'its last 1 record(s) were removed');
  });
});

describe('a rate an older hedge recorded that cannot be one', () => {
  it('is named with its fix, never divided by; once corrected, the figures come', async () => {
    const { dir, run, store, file } = setUp();
    const rows = readFileSync(RATES, 'utf8')
      .trim()
      .split('\n')
      .slice(1)
      .map((line) => {
        const [date, spot, forward, discount_factor, source] = line.split(',');
        return { date, spot: date === '2018-12-31' ? '0' : spot, forward, discount_factor, source };
      });
    const record: Record<string, unknown> = {
      seq: 1,
      kind: 'rates',
      recorded_at: '2026-03-01T12:00:00.000Z',
      body: { market: 'EURUSD', quote: 'USD per EUR', rows },
      prev: '',
    };
    record.hash = hashOf(record);
    mkdirSync(join(dir, 'acct', 'local'), { recursive: true, mode: 0o700 });
    writeFileSync(store(), JSON.stringify({ records: [record] }));
    writeFileSync(join(dir, 'acct', 'local', 'head.json'), JSON.stringify({ count: 1, hash: record.hash }));
    ok(await run(['acct', 'designate', file('r.json', readFileSync(EXAMPLE, 'utf8')), ...LATE]));
    const test = ['acct', 'test', 'EUR-SALE-1', '--as-of', '2019-02-01', '--json'];
    exits(
      await run(test),
      2,
      "EURUSD's recorded rate for 2018-12-31 cannot be a rate (spot: out of range",
      '--correct',
    );
    ok(await run([...IMPORT, '--correct', '--reason', 'the older import lost the spot']));
    expect(okJson(await run(test)).map((row: { instrument_change: number }) => row.instrument_change)).toEqual([
      0, 0, 23100, 23100, 30800,
    ]);
  });
});
