// The PostgreSQL journal at the interface level, against a real server (test/support/servers/postgres.ts),
// beyond what the backends' conformance suite (conformance.test.ts) asks of it: the schema made on
// first use (once, however many start at the same moment) and migrated, keeper heartbeats, local entries imported, and
// the fallback record when the store fails after a send (a store that cannot be reached at all:
// team-store.test.ts).
import { hostname } from 'node:os';
import { join } from 'node:path';
import { useChildBundle } from '../support/children/child-bundle.js';
import { openJournal, type BeginFields } from '../../src/platform/journal/index.js';
import { LATEST_VERSION, MIGRATIONS } from '../../src/platform/journal/postgres/postgres-sessions.js';
import { openPostgresJournal, type PostgresJournal } from '../../src/platform/journal/postgres/postgres-store.js';
import { postgresSessions } from '../../src/platform/journal/postgres/postgres-sessions.js';
import { JournalError, JournalStoreError } from '../../src/platform/journal/entry.js';
import { describeWithPostgres } from '../support/servers/postgres.js';
import { openFields } from './local-journal.js';

const built = useChildBundle('src/platform/journal/postgres/postgres-store.ts', 'hedge-team-store-');

const journals: PostgresJournal[] = [];
afterEach(async () => {
  await Promise.all(journals.splice(0).map((journal) => journal.close()));
});

/** An open of the local journal's tests, under a key of its own. */
const fields = (overrides: Partial<BeginFields> = {}) =>
  openFields({ idempotency_key: `key-${Math.random().toString(36).slice(2)}`, ...overrides });

function journalAt(url: string, options: { now?: () => number; fallbackDir?: string } = {}) {
  const journal = openPostgresJournal({
    url,
    shown: 'postgres://hedge:***@127.0.0.1/test',
    source: 'HEDGE_JOURNAL_URL',
    fallbackDir: join(built.scratch, 'fallback-unused'),
    ...options,
  });
  journals.push(journal);
  return journal;
}

describeWithPostgres('the PostgreSQL journal', (server) => {
  /** A statement on the database `url` names. */
  const sql = (url: string, text: string, values?: unknown[]) =>
    server().query(new URL(url).pathname.slice(1), text, values);
  it('keeper heartbeats: written whole per scope, each write one revision, read by another instance; a key is refused', async () => {
    const url = await server().createDatabase();
    // Written by one instance, read by another.
    const heartbeats = journalAt(url).keeperHeartbeats;
    const reader = journalAt(url).keeperHeartbeats;
    const scope = 'test|127.0.0.1:9|0123456789ab|keep';
    const read = (of = scope) => reader.read(of);
    expect([
      await read(),
      await heartbeats.write(scope, { pid: 4242, cycles: 1, rows: [{ market: 'USDTNGN', side: 'sell' }] }),
      await heartbeats.write(scope, { pid: 4242, cycles: 2, rows: [] }),
    ]).toEqual([undefined, { revision: 1 }, { revision: 2 }]);
    const beat = await read();
    // Whole: nothing of the first body is left.
    expect([beat!.revision, beat!.body]).toEqual([2, { pid: 4242, cycles: 2, rows: [] }]);
    expect(beat!.ageMs).toBeGreaterThanOrEqual(0);
    expect(await read(`${scope}-other`)).toBeUndefined();
    await expect(heartbeats.write(scope, { pid: 4242, note: 'hpk_test_AbCdEfGhIjKlMnOpQrStUvWx' })).rejects.toThrow(
      JournalError,
    );
    expect((await read())?.revision).toBe(2);
  });

  it('the whole journal read a page at a time: 1,201 rows, every one once, newest first, as a list of them holds', async () => {
    const url = await server().createDatabase();
    const journal = journalAt(url);
    await journal.begin(fields());
    const at = '2026-03-02T09:00:00.000Z';
    await sql(
      url,
      `INSERT INTO hedge.entries (id, created_at, updated_at, outcome, environment, base_url_host, key_id, command, idempotency_key, body_canonical, entry)
       SELECT 'a_bulk' || n, $1::timestamptz, $1::timestamptz, 'done', 'test', 'h', 'k', 'add', 'bulk-' || n, '{}',
         jsonb_build_object('id', 'a_bulk' || n, 'command', 'add', 'outcome', 'done', 'request', '{}'::jsonb, 'created_at', $1::text, 'updated_at', $1::text)
       FROM generate_series(1, 1200) AS n`,
      [at],
    );
    const read = [];
    for await (const entry of journal.each()) read.push(entry.id);
    expect([read.length, new Set(read).size]).toEqual([1201, 1201]);
    expect(read).toEqual((await journal.list()).map((entry) => entry.id));
  });

  it('a final outcome recorded as the store closes ends: letting go of a hold after the close takes no time', async () => {
    const sessions = postgresSessions({
      url: await server().createDatabase(),
      shown: 'postgres://hedge:***@127.0.0.1/test',
      source: 'HEDGE_JOURNAL_URL',
      fallbackDir: join(built.scratch, 'fallback-unused'),
    });
    expect(await sessions.holdNew('entry:j_1')).toBe(true);
    const closing = sessions.close();
    // The close under way, its sessions not ended yet: a final outcome's let-go comes in.
    await new Promise((resolve) => setImmediate(resolve));
    await sessions.letGo({ entry: 'j_1' });
    await closing;
  });

  it('creates its schema on first use, once, however many processes start on a fresh database at the same moment; imports a local entry: added once, present the second time, a conflict when another action has its id; a final outcome is never taken back', async () => {
    const url = await server().createDatabase();
    const firsts = Array.from({ length: 6 }, () => journalAt(url));
    const lists = await Promise.all(firsts.map((journal) => journal.list()));
    expect(lists).toEqual(firsts.map(() => []));
    const { rows } = await sql(url, 'SELECT version, description, applied_by FROM hedge.schema_migrations');
    expect(rows).toHaveLength(LATEST_VERSION);
    expect(rows[0]).toMatchObject({
      version: 1,
      description: 'journal entries and holders',
      applied_by: expect.stringContaining(hostname()),
    });
    // Running it again applies nothing.
    expect(await journalAt(url).migrateSchema()).toEqual([]);

    // Importing a local entry: added once, present the second time, a conflict when another action has its id; a
    // final outcome is never taken back.
    const dir = join(built.scratch, `local-${Date.now()}`);
    const local = openJournal({ dir });
    const first = await local.begin(fields({ profile: 'laptop' }));
    const pending = await local.begin(fields());
    await local.update(first.id, { outcome: 'filled', hedge_id: 'hdg_2' });
    const [pendingEntry, filledEntry] = await local.list();
    const team = journalAt(url);
    expect([
      await team.importEntry(filledEntry),
      await team.importEntry(pendingEntry),
      await team.importEntry(filledEntry),
    ]).toEqual([
      { outcome: 'added', id: first.id },
      { outcome: 'added', id: pending.id },
      { outcome: 'present', id: first.id },
    ]);
    expect(await team.get(first.id)).toMatchObject({
      outcome: 'filled',
      hedge_id: 'hdg_2',
      profile: 'laptop',
      host: hostname(),
    });
    expect((await sql(url, 'SELECT id, origin FROM hedge.entries ORDER BY id')).rows.map((row) => row.origin)).toEqual([
      'migrated',
      'migrated',
    ]);

    // The team finished the pending one meanwhile: the older local record does not undo that.
    await team.update(pending.id, { outcome: 'done' });
    expect(await team.importEntry(pendingEntry)).toEqual({ outcome: 'present', id: pending.id });
    expect((await team.get(pending.id))!.outcome).toBe('done');

    expect(await team.importEntry({ ...filledEntry, idempotency_key: 'another-action' })).toEqual({
      outcome: 'conflict',
      id: first.id,
    });
    expect(await team.list()).toHaveLength(2);
  });

  it('a store made by an older hedge (schema 1) keeps its records: migrated on first use, numbered in creation order, then counted on; it gains the keeper heartbeats (schema 3)', async () => {
    // The database as an older hedge left it: schema 1, and two entries as it wrote them (no seq,
    // no revision), the later one first on disk.
    const url = await server().createDatabase();
    const q = (text: string, values?: unknown[]) => sql(url, text, values);
    await q(
      `CREATE SCHEMA hedge; CREATE TABLE hedge.schema_migrations (version integer PRIMARY KEY, description text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now(), applied_by text NOT NULL)`,
    );
    await q(MIGRATIONS[0].sql);
    await q(
      `INSERT INTO hedge.schema_migrations (version, description, applied_by) VALUES ($1, $2, 'an older hedge')`,
      [MIGRATIONS[0].version, MIGRATIONS[0].description],
    );
    for (const [id, at] of [
      ['a_old000000002', '2026-03-02T10:00:00.000Z'],
      ['a_old000000001', '2026-03-02T09:00:00.000Z'],
    ]) {
      const entry = {
        id,
        created_at: at,
        updated_at: at,
        ...fields({ idempotency_key: `old-${id}` }),
        outcome: 'pending',
      };
      await q(
        `INSERT INTO hedge.entries (id, created_at, updated_at, outcome, environment, base_url_host, key_id, command, idempotency_key, body_canonical, entry)
         VALUES ($1, $2, $2, 'pending', 'test', $3, $4, 'open', $5, '{}', $6::jsonb)`,
        [id, at, entry.base_url_host, entry.key_id, entry.idempotency_key, JSON.stringify(entry)],
      );
    }
    const journal = journalAt(url);
    expect((await journal.list()).map((entry) => [entry.id, entry.seq, entry.revision])).toEqual([
      ['a_old000000002', 2, 1],
      ['a_old000000001', 1, 1],
    ]);
    expect(
      (await q('SELECT version FROM hedge.schema_migrations ORDER BY version')).rows.map((row) => row.version),
    ).toEqual([1, 2, 3, 4, 5, 6]);
    const made = await journal.begin(fields());
    expect(made).toMatchObject({ seq: 3, revision: 1 });
    expect(await journal.update('a_old000000001', { outcome: 'unknown' })).toMatchObject({
      outcome: 'unknown',
      revision: 2,
      seq: 1,
    });
    expect((await journal.list()).map((entry) => entry.id)).toEqual([made.id, 'a_old000000002', 'a_old000000001']);
  });

  it("migrating fallback records decides by revision, not by the desks' clocks: a slow desk's news is merged, a fast desk's stale record is not", async () => {
    const url = await server().createDatabase();
    const T = Date.parse('2026-03-02T09:00:00Z');
    const slowDir = join(built.scratch, `fallback-slow-${Date.now()}`);
    const fastDir = join(built.scratch, `fallback-fast-${Date.now()}`);
    const fast = journalAt(url, { now: () => T + 86_400_000, fallbackDir: fastDir });
    const slow = journalAt(url, { now: () => T - 3_600_000, fallbackDir: slowDir });
    const first = await fast.begin(fields());
    const second = await fast.begin(fields());
    for (const entry of [first, second])
      expect(await fast.update(entry.id, { outcome: 'submitted', hedge_id: `hdg_${entry.id}` })).toMatchObject({
        revision: 2,
      });
    expect(await slow.get(first.id)).toMatchObject({ revision: 2 });

    await server().stop();
    try {
      const error = await slow.update(first.id, { message: 'news from the slow desk' }).catch((caught) => caught);
      expect(error).toBeInstanceOf(JournalStoreError);
      expect(error.message).toMatch(
        new RegExp(
          `cannot be reached: .* what happened to ${first.id} is kept in the local journal ${slowDir}/journal\\.jsonl \\(fallback record a_\\w+\\): \`hedge journal migrate\` merges it`,
        ),
      );
      // A later update of the same run goes to the same fallback record.
      await expect(slow.update(first.id, { outcome: 'done' })).rejects.toThrow(/fallback record/);
      await expect(fast.update(second.id, { message: 'stale news from the fast desk' })).rejects.toThrow(
        /fallback record/,
      );
    } finally {
      await server().start();
    }
    // Meanwhile the store's copy of the second moved on (another desk, on time).
    expect(await journalAt(url, { now: () => T }).update(second.id, { message: 'the newer news' })).toMatchObject({
      revision: 3,
    });

    const [slowRecord, ...none] = await openJournal({ dir: slowDir }).list();
    const [fastRecord] = await openJournal({ dir: fastDir }).list();
    expect(none).toEqual([]);
    const slowNews = { outcome: 'done', hedge_id: `hdg_${first.id}`, message: 'news from the slow desk' };
    expect(slowRecord).toMatchObject({
      fallback_for: { id: first.id, revision: 2, store: 'postgres://hedge:***@127.0.0.1/test' },
      idempotency_key: first.idempotency_key,
      ...slowNews,
    });
    expect(fastRecord).toMatchObject({
      fallback_for: { id: second.id, revision: 2 },
      message: 'stale news from the fast desk',
    });
    // By their clocks the slow desk's record is a day older than the store's copy, the fast desk's a day newer.
    expect(Date.parse(slowRecord.updated_at)).toBeLessThan(
      Date.parse((await journalAt(url).get(first.id))!.updated_at),
    );

    const team = journalAt(url);
    expect(await team.importEntry(slowRecord)).toEqual({ outcome: 'merged', id: first.id });
    expect(await team.get(first.id)).toMatchObject({
      ...slowNews,
      idempotency_key: first.idempotency_key,
      revision: 3,
    });
    expect([await team.importEntry(slowRecord), await team.importEntry(fastRecord)]).toEqual([
      { outcome: 'present', id: first.id },
      { outcome: 'present', id: second.id },
    ]);
    expect(await team.get(second.id)).toMatchObject({ message: 'the newer news', revision: 3 });
    expect(await team.list()).toHaveLength(2);
  });
});
