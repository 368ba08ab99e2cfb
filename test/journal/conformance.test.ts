// One conformance suite for the journal's backends (src/platform/journal/client-journal.ts), as Terraform runs one
// set of backend tests against every state backend: the same cases against the local file and the
// team's PostgreSQL store (a real, throwaway server: test/support/servers/postgres-server.ts). What the
// interface promises — records appended, updated, listed (since, until) and found; ordered by the journal's own
// counters however far apart the writers' clocks are; holds exclusive across instances and
// processes; a lost hold reported; a dead holder's hold taken over — each backend must keep.
// The other processes are real (test/support/children/journal-process.cjs, killed with SIGKILL).
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, readFileSync, rmSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openJournal, type BeginFields, type Journal, type ListOptions } from '../../src/platform/journal/index.js';
import type { HoldResult } from '../../src/platform/journal/client-journal.js';
import { JournalError, type Skipped } from '../../src/platform/journal/entry.js';
import { heartbeatFile, readHeartbeatFile, writeHeartbeatFile } from '../../src/platform/journal/journal.js';
import { openPostgresJournal } from '../../src/platform/journal/postgres/postgres-store.js';
import { useChildBundle } from '../support/children/child-bundle.js';
import { until } from '../support/polling.js';
import { drivePeer } from '../support/children/peer-process.js';
import { describeWithPostgres } from '../support/servers/postgres.js';
import { insertRow, NESTED_HERE, nestedJson } from '../support/journal-rows.js';

const built = useChildBundle('test/support/children/journal-backends.ts', 'hedge-journal-conformance-');

/** One backend's fresh, empty journal (one per test), opened as often as a test asks (each opening another desk's view). */
interface Place {
  /** Another instance of the same journal, with its own clock, told of every row it skips (`rotateBytes`: the file's
   * active segment rotated past it, its resolved rows read from the archives). */
  open(options?: { now?: () => number; onSkip?: (skip: Skipped) => void; rotateBytes?: number }): Journal;
  /** What a child process needs to open it. */
  child: Record<string, unknown>;
  /** Makes the backend lose the hold on `scope` (its lock record removed; its database session ended). */
  loseLock(scope: string): Promise<void>;
  /** Puts a row there as someone with access to the store would, as the JSON text given: what a skip of it names. */
  plant(row: Record<string, unknown>, text: (value: object) => string): Promise<Partial<Skipped>>;
}

const opened: Journal[] = [];
const children = new Set<ChildProcess>();
afterEach(async () => {
  for (const child of children) child.kill('SIGKILL');
  children.clear();
  await Promise.all(opened.splice(0).map((journal) => journal.close?.()));
});

let counter = 0;
/** Who sends what: the identity a same-request match compares. */
const WHO = { environment: 'test', base_url_host: '127.0.0.1:9', key_id: '0123456789ab', command: 'add' } as const;
const SCOPE = 'test|127.0.0.1:9|0123456789ab|';
function fields(overrides: Partial<BeginFields> = {}) {
  counter += 1;
  return {
    ...WHO,
    request: {
      method: 'POST',
      path: '/hedges/add',
      body: { market: 'USDTNGN', side: 'buy', notional_usd: 500 + counter },
    },
    idempotency_key: `conformance-${counter}`,
    ...overrides,
  };
}

/** The ids `journal` lists with `options`, newest first. */
const ids = async (journal: Journal, options: ListOptions = {}) =>
  (await journal.list(options)).map((entry) => entry.id);

/** The hold `taking` got, which must have been taken. */
async function mustHold(taking: Promise<HoldResult>) {
  const result = await taking;
  if (!result.held) throw new Error('not held');
  return result.hold;
}
const [NO_WAIT, WAIT] = [{ waitMs: 0 }, { waitMs: 20_000 }];

function conformance(fresh: () => Promise<Place>) {
  it('records: begin, update, list (newest first, pending, limit), get by id or a part of one, the same request found; each change one revision', async () => {
    const place = await fresh();
    const journal = place.open();
    const first = await journal.begin(fields({ group: 'g_1', leg: 'open' }));
    const second = await journal.begin(fields({ command: 'reduce' }));
    const third = await journal.begin(fields());
    expect([
      first.revision,
      second.revision,
      third.revision,
      second.seq! > first.seq!,
      third.seq! > second.seq!,
    ]).toEqual([1, 1, 1, true, true]);

    // traded_usd: what the action moved on the server (a close's), which an agent's daily cap counts.
    const submitted = await journal.update(second.id, { outcome: 'submitted', hedge_id: 'hdg_2', traded_usd: 18_000 });
    const filled = await journal.update(second.id, { outcome: 'filled' });
    const sent = { hedge_id: 'hdg_2', traded_usd: 18_000 };
    expect([submitted, filled]).toMatchObject([
      { id: second.id, outcome: 'submitted', ...sent, revision: 2, seq: second.seq },
      { outcome: 'filled', ...sent, revision: 3 },
    ]);
    // A final outcome is stamped resolved at the time of its update; one short of it is not.
    expect([submitted.resolved_at, filled.resolved_at]).toEqual([undefined, filled.updated_at]);

    const other = place.open();
    // By idempotency key: every row of one key (a row whose key another row has is a copy: row-trust.ts).
    expect([
      await ids(other),
      await ids(other, { pending: true }),
      await ids(other, { limit: 1 }),
      await ids(other, { idempotencyKey: second.idempotency_key }),
    ]).toEqual([[third.id, second.id, first.id], [third.id, first.id], [third.id], [second.id]]);
    expect(await other.get(second.id)).toMatchObject({ outcome: 'filled', traded_usd: 18_000, revision: 3 });
    // A part of its id in any case; its end alone, or its start and end around … as a table shortens it.
    for (const part of [
      second.id.slice(0, -1).toUpperCase(),
      second.id.slice(-6),
      `${second.id.slice(0, 4)}…${second.id.slice(-6)}`,
    ])
      expect((await other.get(part))?.id).toBe(second.id);
    expect(await other.get('a_zzzzzz')).toBeUndefined();

    const reordered = Object.fromEntries(Object.entries(first.request.body as object).reverse());
    const match = { ...WHO, body: reordered };
    const found = async (changes = {}) => (await other.findUnresolvedMatch({ ...match, ...changes }))?.id;
    // Another environment, host, key, command or body is another request; group and leg are compared only when given.
    const others = [
      { environment: 'live' },
      { base_url_host: 'other.example' },
      { key_id: 'another00000' },
      { command: 'reduce' },
      { body: { ...reordered, notional_usd: 1 } },
      { group: 'g_2' },
      { group: 'g_1', leg: 'close' },
    ];
    expect(await Promise.all([{}, { group: 'g_1', leg: 'open' }, ...others].map((changes) => found(changes)))).toEqual([
      first.id,
      first.id,
      ...others.map(() => undefined),
    ]);
    await journal.update(first.id, { outcome: 'rejected' });
    // A planned leg is never the request alone: only that leg of its group.
    const planned = await journal.begin(
      fields({ outcome: 'planned', group: 'r_1', leg: 'open', request: first.request }),
    );
    expect([await found(), await found({ group: 'r_1', leg: 'open' })]).toEqual([undefined, planned.id]);

    await expect(journal.update('a_nothere0000', { outcome: 'done' })).rejects.toThrow(JournalError);
    await expect(journal.hold('a_nothere0000')).rejects.toThrow(JournalError);
  });

  it('lists since (at or after) and until a time, with pending and limit; an id part that fits several entries is refused, naming them newest first', async () => {
    let now = Date.parse('2026-03-02T09:00:00Z');
    const journal = (await fresh()).open({ now: () => now });
    const made = [];
    const createdAt = [];
    for (let index = 0; index < 4; index++, now += 60_000) {
      const entry = await journal.begin(fields());
      made.push(entry.id);
      createdAt.push(Date.parse(entry.created_at));
    }
    await journal.update(made[3], { outcome: 'done' });
    expect([
      await ids(journal, { since: createdAt[2] }),
      await ids(journal, { since: createdAt[2] + 1 }),
      await ids(journal, { until: createdAt[2] }),
      await ids(journal, { pending: true, since: createdAt[1], limit: 1 }),
      await ids(journal, { limit: 0 }),
    ]).toEqual([[made[3], made[2]], [made[3]], [made[1], made[0]], [made[2]], []]);
    await expect(journal.get('a_')).rejects.toMatchObject({
      name: 'JournalError',
      message: `"a_" matches 4 journal entries: ${[...made].reverse().join(', ')}.`,
      hint: 'Type more of the id.',
    });
    expect(await journal.get('')).toBeUndefined();
  });

  it("finds what a write asks of history, finished and archived: a request's rows since a time, a side's, a group's legs, a hedge's rows (acted on or rolled), a key's; a short time by its rows alone", async () => {
    let now = Date.parse('2026-03-01T22:00:00Z');
    // The file journal archives every finished row at once: what it finds, its archives' index found.
    const place = await fresh();
    const journal = place.open({ now: () => now, rotateBytes: 1 });
    const made = async (overrides: Partial<BeginFields>, patch: Parameters<Journal['update']>[1] = {}) => {
      const entry = await journal.begin(fields(overrides));
      await journal.update(entry.id, { outcome: 'done', ...patch });
      now += 3 * 3_600_000;
      return entry.id;
    };
    const sell = {
      method: 'POST',
      path: '/hedges/reduce',
      body: { market: 'usdtngn ', side: 'Sell', notional_usd: 7 },
    };
    const same = fields().request;
    const first = await made({ request: same });
    const reduce = await made({ command: 'reduce', request: sell });
    const close = await made(
      {
        group: 'roll-1',
        leg: 'close',
        request: { method: 'POST', path: '/hedges/close', body: { market: 'USDTNGN', side: 'buy' } },
      },
      { hedge_id: 'hdg_9' },
    );
    const open = await made({ group: 'roll-1', leg: 'open', context: { rolled_hedge_id: 'hdg_9' } });
    const again = await made({ request: same });
    const otherKey = await made({ key_id: 'another00000', request: same });
    const last = await made({});
    const other = place.open();
    const at = async (id: string) => Date.parse((await other.get(id))!.created_at);
    expect([
      await ids(other, { request: { ...WHO, body: same.body }, since: await at(first) }),
      await ids(other, { request: { ...WHO, body: same.body }, since: (await at(first)) + 1 }),
      await ids(other, { side: 'USDTNGN sell', since: 0 }),
      await ids(other, { side: 'USDTNGN buy', since: await at(close) }),
      await ids(other, { group: 'roll-1' }),
      await ids(other, { hedge: 'hdg_9' }),
      await ids(other, { idempotencyKey: (await other.get(reduce))!.idempotency_key }),
      await ids(other, { since: await at(last) }),
      await ids(other, { since: now }),
    ]).toEqual([
      [again, first],
      [again],
      [reduce],
      [last, otherKey, again, open, close],
      [open, close],
      [open, close],
      [reduce],
      [last],
      [],
    ]);
    // The whole of it read a part at a time is what a list of it holds, in its order.
    const each = async (options: ListOptions = {}) => {
      const read = [];
      for await (const entry of other.each(options)) read.push(entry.id);
      return read;
    };
    expect([await each(), await each({ since: await at(open) })]).toEqual([
      await ids(other),
      await ids(other, { since: await at(open) }),
    ]);
    expect(await each()).toHaveLength(7);
  });

  it('orders by the journal, never by the clock: a writer an hour slow and one a day fast keep the order they wrote in, and the later change wins', async () => {
    const place = await fresh();
    const T = Date.parse('2026-03-02T09:00:00Z');
    const onTime = place.open({ now: () => T });
    const slow = place.open({ now: () => T - 3_600_000 });
    const fast = place.open({ now: () => T + 86_400_000 });
    const same = fields();
    const a = await fast.begin(same);
    const b = await onTime.begin(fields());
    const c = await slow.begin({ ...same, idempotency_key: 'conformance-again' });
    for (const reader of [onTime, slow, fast]) expect(await ids(reader)).toEqual([c.id, b.id, a.id]);
    // The newest unresolved entry for the request is the one written last, though its clock says it is the oldest.
    const found = async () => (await onTime.findUnresolvedMatch({ ...WHO, body: same.request.body }))?.id;
    const newest = await found();
    // Once it is final, the older one of the request is the match.
    await slow.update(c.id, { outcome: 'abandoned' });
    expect([newest, await found()]).toEqual([c.id, a.id]);

    await fast.update(a.id, { outcome: 'submitted', message: 'first change, stamped a day ahead' });
    await slow.update(a.id, { message: 'second change, stamped an hour behind' });
    expect(await onTime.get(a.id)).toMatchObject({
      outcome: 'submitted',
      message: 'second change, stamped an hour behind',
      revision: 3,
    });
  });

  it('holds are exclusive across instances: the holder is named (lockHolder, without taking it), a wait ends when it lets go, a finished entry is not taken; a lost hold is reported (lost() turns true) and another instance can take it', async () => {
    const place = await fresh();
    const mine = place.open();
    const theirs = place.open();
    const entry = await mine.begin(fields());
    const me = { pid: process.pid, host: hostname() };
    const holder = await theirs.holderOf(entry.id);
    expect(holder).toMatchObject({ ...me, session: entry.holder!.session });
    expect(await theirs.hold(entry.id)).toEqual({ held: false, holder });

    const scope = `${SCOPE}apply`;
    // lockHolder reads who holds a lock without taking it: the look left it free for the next taker.
    expect(await theirs.lockHolder(scope)).toBeUndefined();
    const locked = await mustHold(mine.lock(scope, NO_WAIT));
    expect([
      await theirs.lockHolder(scope),
      await theirs.lockHolder(`${scope}-other`),
      await theirs.lock(scope, NO_WAIT),
      await theirs.lock(scope, { waitMs: 150 }),
      (await theirs.lock(`${scope}-other`, NO_WAIT)).held,
    ]).toMatchObject([me, undefined, { held: false, holder: me }, { held: false }, true]);
    const waiting = mustHold(theirs.lock(scope, WAIT));
    await locked.release();
    const got = await waiting;
    expect([await mine.lock(scope, NO_WAIT), got.lost()]).toMatchObject([{ held: false }, false]);
    await got.release();
    expect([got.lost(), await theirs.lockHolder(scope)]).toEqual([false, undefined]);

    // An update short of a final outcome keeps the hold; a final one ends it.
    await mine.update(entry.id, { outcome: 'submitted' });
    expect(await theirs.holderOf(entry.id)).toEqual(holder);
    await mine.update(entry.id, { outcome: 'filled' });
    expect([await theirs.holderOf(entry.id), (await theirs.hold(entry.id)).held]).toEqual([undefined, false]);

    // A lost hold is reported: lost() turns true, and another instance can take it.
    const kept = `${SCOPE}keep`;
    const taken = await mustHold(mine.lock(kept, NO_WAIT));
    expect(taken.lost()).toBe(false);
    await place.loseLock(kept);
    await until(() => taken.lost(), 'the hold is reported lost');
    expect((await place.open().lock(kept, WAIT)).held).toBe(true);
  });

  it("another process's holds: named without being taken, a wait ended by its release; killed with SIGKILL, its entry and account lock are taken over at once", async () => {
    const place = await fresh();
    // Another process with the journal open, driven one command at a time.
    const child = spawn(
      process.execPath,
      [
        fileURLToPath(new URL('../support/children/journal-process.cjs', import.meta.url)),
        JSON.stringify({ bundle: built.bundle, ...place.child }),
      ],
      {
        stdio: ['pipe', 'pipe', 'inherit'],
      },
    );
    children.add(child);
    const other = drivePeer(child);
    const scope = `${SCOPE}roll`;
    const otherLocks = () => other.ask({ do: 'lock', scope, name: 'roll' });
    const { id } = await other.ask({ do: 'begin', fields: fields() });
    expect(await otherLocks()).toMatchObject({ held: true });
    const mine = place.open();
    const holder = await mine.holderOf(id);
    const theirs = { pid: other.child.pid, host: hostname() };
    expect(holder).toMatchObject(theirs);
    expect(await mine.hold(id)).toEqual({ held: false, holder });
    // Many looks while it holds the lock change nothing for it: it still holds it.
    for (let look = 0; look < 5; look++) expect(await mine.lockHolder(scope)).toMatchObject(theirs);
    const held = { held: false, holder: theirs };
    expect([await mine.lock(scope, NO_WAIT), await mine.lock(scope, { waitMs: 200 })]).toMatchObject([held, held]);
    // A wait that the other process's release ends; then this process is the holder it is told of.
    const waiting = mustHold(mine.lock(scope, WAIT));
    await other.ask({ do: 'release', name: 'roll' });
    const got = await waiting;
    expect(await otherLocks()).toMatchObject({ held: false, holder: { pid: process.pid } });
    await got.release();
    expect(await otherLocks()).toMatchObject({ held: true });

    other.child.kill('SIGKILL');
    await other.exited;
    await until(
      async () => (await mine.holderOf(id)) === undefined && (await mine.lockHolder(scope)) === undefined,
      'the killed holder is let go',
    );
    const resumed = await mustHold(mine.hold(id));
    expect(await place.open().holderOf(id)).toMatchObject({ pid: process.pid });
    // Let go, nobody holds it, and it stays unresolved for the next resume.
    await resumed.release();
    expect([
      await place.open().holderOf(id),
      (await mine.get(id))?.outcome,
      (await mine.lock(scope, NO_WAIT)).held,
    ]).toEqual([undefined, 'pending', true]);
  });

  it('a row nested 10,000 deep, put there by a writer with access to the store, is skipped and named, and so is a row whose outcome is not an outcome, its reason naming the field: the others are listed, found and matched, and the journal goes on', async () => {
    const place = await fresh();
    const skips: Skipped[] = [];
    const journal = place.open({ onSkip: (skip) => skips.push(skip) });
    const first = await journal.begin(fields());
    const at = new Date().toISOString();
    /** `row` put beside the first entry as `text` writes it: what a skip of it names. */
    const plant = (row: object, text = (value: object) => JSON.stringify(value)) =>
      place.plant({ created_at: at, updated_at: at, ...row }, text);
    // The same request as the first, unresolved: the row a write looks at before it sends.
    const request = { ...first.request, body: { ...(first.request.body as object), deeper: NESTED_HERE } };
    const nested = await plant({ ...fields({ request }), id: 'a_nested000001', outcome: 'pending' }, (value) =>
      nestedJson(value, 10_000),
    );
    const outcome = await plant({ ...fields(), id: 'a_outcome00001', outcome: 7 });

    expect([
      await ids(journal),
      await ids(journal, { pending: true }),
      await journal.get('a_nested000001'),
      (await journal.findUnresolvedMatch({ ...WHO, body: first.request.body }))?.id,
    ]).toEqual([[first.id], [first.id], undefined, first.id]);
    // Every skip is one of the two (each list skips them again), said with what names it.
    const said = [...new Map(skips.map((skip) => [JSON.stringify(skip), skip])).values()];
    expect(said.sort((a, b) => a.reason.localeCompare(b.reason))).toEqual([
      { ...nested, reason: 'nested deeper than 64 levels' },
      { ...outcome, reason: expect.stringMatching(/^outcome: Invalid option: expected one of /) },
    ]);
    await journal.update(first.id, { outcome: 'filled' });
    const second = await journal.begin(fields());
    expect((await place.open().list()).map((entry) => [entry.id, entry.outcome])).toEqual([
      [second.id, 'pending'],
      [first.id, 'filled'],
    ]);
  });
}

describe('the local file journal', () => {
  conformance(async () => {
    const dir = join(built.scratch, `file-${(counter += 1)}`);
    return {
      open: (options) => openJournal({ dir, ...options }),
      child: { backend: 'file', dir },
      async loseLock() {
        // An operator clearing the locks folder: the record that says who holds it is gone.
        rmSync(join(dir, 'locks'), { recursive: true, force: true });
      },
      async plant({ created_at: at, updated_at: _updated, ...row }, text) {
        const file = join(dir, 'journal.jsonl');
        appendFileSync(file, `${text({ id: row.id, at, ...row })}\n`);
        // The file journal writes one line per begin: the row is its last line.
        return { file, line: readFileSync(file, 'utf8').trimEnd().split('\n').length };
      },
    };
  });

  it("a keeper's heartbeat file: written whole, each write one revision; a key is refused", () => {
    const file = heartbeatFile(join(built.scratch, `beats-${(counter += 1)}`), `${SCOPE}keep`);
    expect([
      readHeartbeatFile(file),
      writeHeartbeatFile(file, { pid: 4242, cycles: 1, rows: [{ market: 'USDTNGN', side: 'sell' }] }),
      writeHeartbeatFile(file, { pid: 4242, cycles: 2, rows: [] }),
    ]).toEqual([undefined, { revision: 1 }, { revision: 2 }]);
    expect(() => writeHeartbeatFile(file, { pid: 4242, note: 'hpk_test_AbCdEfGhIjKlMnOpQrStUvWx' })).toThrow(
      JournalError,
    );
    expect(readHeartbeatFile(file)).toEqual({ body: { pid: 4242, cycles: 2, rows: [] }, revision: 2 });
  });
});

describeWithPostgres('the PostgreSQL team store', (server) => {
  conformance(async () => {
    const url = await server().createDatabase();
    const database = new URL(url).pathname.slice(1);
    const fallbackDir = join(built.scratch, `fallback-${(counter += 1)}`);
    const shown = 'postgres://hedge:***@127.0.0.1/test';
    return {
      open: (options) => {
        const journal = openPostgresJournal({ url, shown, source: 'the test', fallbackDir, ...options });
        opened.push(journal);
        return journal;
      },
      child: { backend: 'postgres', url, fallbackDir },
      async loseLock(scope) {
        // The database session holding the lock ends (a restart, a network cut noticed by keepalive).
        await server().query(database, `SELECT pg_terminate_backend(backend_pid) FROM hedge.holders WHERE scope = $1`, [
          `lock:${scope}`,
        ]);
      },
      async plant(row, text) {
        await insertRow(server(), { database }, row, text(row));
        return { store: shown, row: String(row.id) };
      },
    };
  });
});
