// Holds, segments and refusals of the local journal, in-process against real folders (a holder
// killed, and account locks: conformance.test.ts). A "holder" that is another process is a real
// child (`sleep`), so liveness is the system's answer, never a mock.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import {
  appendFileSync,
  chmodSync,
  chownSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { hostname, userInfo } from 'node:os';
import { join } from 'node:path';
import { describeError } from '../../src/platform/terminal/exit-codes.js';
import { keeperLockPlace } from '../../src/features/keeper/keeper-service.js';
import { processStart } from '../../src/core/files/file-lock.js';
import { rotate } from '../../src/platform/journal/archive.js';
import { rowTest } from '../../src/platform/journal/client-journal.js';
import { ARCHIVE_DIR_NAME, openJournal } from '../../src/platform/journal/index.js';
import { KEY_ID, openFields, T0 } from './local-journal.js';
import { tempFolders } from '../support/hedge-cli.js';

const SINCE = '2025-01-15T09:00:00.000Z';

const tempFolder = tempFolders('hedge-journal-holds-');
const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
});

const stateDir = () => join(tempFolder(), 'state');
/** The journal in `dir` on the test's clock (T0). */
const journalAt = (dir: string, options: Partial<Parameters<typeof openJournal>[0]> = {}) =>
  openJournal({ dir, now: () => T0, ...options });
const caught = (promise: Promise<unknown>) =>
  promise.then(
    () => new Error('no failure'),
    (error) => error,
  );
/** Checks `failure` is a refusal of local state (exit 13) with `more`; returns it. */
function stateRefusal(failure: Error, more = {}) {
  expect(describeError(failure)).toMatchObject({ exitCode: 13, code: 'state', ...more });
  return failure;
}

/** An unresolved entry in the file, held by that process (with the holder record it would have written for itself). */
function heldEntryFile(dir: string, id: string, holding: { pid: number; start?: string; host?: string }) {
  mkdirSync(dir, { recursive: true });
  const holder = { host: hostname(), since: SINCE, session: 'othersession', ...holding };
  const record = { id, at: SINCE, ...openFields(), host: holder.host, holder, outcome: 'pending' };
  writeFileSync(join(dir, 'journal.jsonl'), `${JSON.stringify(record)}\n`);
}

/** A final outcome of each of `keys`, begun at the journal's time. */
async function resolved(journal: ReturnType<typeof openJournal>, keys: string[]) {
  const ids = [];
  for (const key of keys) {
    const entry = await journal.begin(openFields({ idempotency_key: key }));
    await journal.update(entry.id, { outcome: 'done' });
    ids.push(entry.id);
  }
  return ids;
}

/** The harshest rotation: no resolved entry asked to stay, no room for one. */
const rotateAll = (file: string) =>
  rotate(file, readFileSync(file, 'utf8'), { keepResolved: 0, keepBytes: 0, today: '2025-01-15' });

describe('holds: an entry is held by the live process that carries it; one protocol, on the injected clock, saying what it cannot read', () => {
  it('begin holds it for this run, named as its holder; taken again by its own run it writes nothing; let go or finished, the next run takes it', async () => {
    const journal = journalAt(stateDir());
    const entry = await journal.begin(openFields());
    const mine = {
      pid: process.pid,
      host: hostname(),
      since: new Date(T0).toISOString(),
      session: entry.holder!.session,
    };
    expect(await journal.holderOf(entry.id)).toEqual(mine);
    const lines = () => readFileSync(journal.file, 'utf8').trim().split('\n').length;
    const begun = lines();
    // Its own journal takes it again freely (a roll's later leg, a resumed step of the same run).
    const again = await journal.hold(entry.id);
    expect([again.held, (await journal.hold(entry.id)).held, lines()]).toEqual([true, true, begun]);
    if (!again.held) throw new Error('not held');
    await again.hold.release();
    expect([lines(), await journal.holderOf(entry.id)]).toEqual([begun + 1, undefined]);
    // Let go, it is free for the next run of this process (hedge mcp's next call, a keeper's next cycle).
    const next = journalAt(journal.dir);
    expect([(await next.hold(entry.id)).held, lines()]).toEqual([true, begun + 2]);
    const finisher = await journal.holderOf(entry.id);
    expect(finisher).toEqual({ ...mine, session: expect.not.stringMatching(mine.session) });
    // A final outcome ends the hold; hold then answers with the process that finished it.
    await next.update(entry.id, { outcome: 'done' });
    expect([await journal.holderOf(entry.id), await openJournal({ dir: journal.dir }).hold(entry.id)]).toEqual([
      undefined,
      { held: false, holder: finisher },
    ]);
  });

  it('a pid that lives on but started at another time (reused by another process) does not hold it; a holder on another host counts as live; an entry whose holder is not a holder record is said once, naming the journal file and the entry, and is held by nobody: this run takes it', async () => {
    const dir = stateDir();
    // A live process other than this one, and its start token (what the journal records to tell a reused pid apart).
    const child = spawn('sleep', ['60'], { stdio: 'ignore' });
    children.push(child);
    await once(child, 'spawn');
    const pid = child.pid!;
    const start = processStart(pid);
    // No /proc here: the start time cannot be read, so the pid alone decides (documented).
    heldEntryFile(dir, 'a_reused000001', { pid, start: start && `${start}0` });
    const reused = await openJournal({ dir }).holderOf('a_reused000001');
    if (start === undefined) expect(reused).toMatchObject({ pid });
    else expect(reused).toBeUndefined();

    heldEntryFile(dir, 'a_remote000001', { pid: 1, host: 'another-desk.example' });
    expect(await openJournal({ dir }).hold('a_remote000001')).toMatchObject({
      held: false,
      holder: { host: 'another-desk.example' },
    });

    heldEntryFile(dir, 'a_badholder001', { pid });
    const file = join(dir, 'journal.jsonl');
    writeFileSync(file, readFileSync(file, 'utf8').replace(`"pid":${pid}`, `"pid":"${pid}"`));
    const notices: string[] = [];
    const journal = journalAt(dir, { notice: (text) => notices.push(text) });
    expect([await journal.holderOf('a_badholder001'), (await journal.hold('a_badholder001')).held]).toEqual([
      undefined,
      true,
    ]);
    expect(notices).toEqual([
      `Lock record skipped: ${file} entry a_badholder001 (pid: Invalid input: expected number, received string); taken as held by nobody.`,
    ]);
  });

  it('a wait for a held lock sleeps on the injected sleep: 10 s of it that returns at once ends at once, in sleeps growing to 100 ms, naming the holder', async () => {
    const dir = stateDir();
    const slept: number[] = [];
    const mine = journalAt(dir);
    const theirs = journalAt(dir, { sleep: async (ms) => void slept.push(ms) });
    expect((await mine.lock('scope', { waitMs: 0 })).held).toBe(true);
    expect(await theirs.lock('scope', { waitMs: 10_000 })).toMatchObject({
      held: false,
      holder: { pid: process.pid, host: hostname() },
    });
    expect([slept.reduce((sum, ms) => sum + ms, 0), slept[0], Math.max(...slept)]).toEqual([10_000, 1, 100]);
    expect(slept.slice(0, 5)).toEqual([...slept.slice(0, 5)].sort((a, b) => a - b));
  });
});

describe('segments: appends read only the active segment', () => {
  it('past a size bound, resolved entries move to dated archives; unresolved and open groups stay; list and get still see all', async () => {
    const dir = stateDir();
    let time = T0;
    const journal = openJournal({ dir, now: () => time, rotateBytes: 16 * 1024, keepResolved: 5 });
    const early = await journal.begin(openFields({ idempotency_key: 'still-open' }));
    const rollOpen = await journal.begin(
      openFields({ idempotency_key: 'roll-open', group: 'roll-1', leg: 'open', outcome: 'planned' }),
    );
    const rollClose = await journal.begin(openFields({ idempotency_key: 'roll-close', group: 'roll-1', leg: 'close' }));
    await journal.update(rollClose.id, { outcome: 'done' });
    const ids = [];
    for (let index = 0; index < 120; index++) {
      // Two days of history: archives are named by the UTC day an entry was created.
      time = T0 + index * 30 * 60_000;
      ids.push(...(await resolved(journal, [`k-${index}`])));
    }
    // The dated archives, and beside them their index.
    const archives = readdirSync(join(dir, ARCHIVE_DIR_NAME)).filter((name) => name !== 'index');
    expect(archives.length).toBeGreaterThanOrEqual(2);
    for (const name of archives) expect(name).toMatch(/^journal-2025-01-1[5-8]\.jsonl$/);
    expect(readdirSync(join(dir, ARCHIVE_DIR_NAME)).length).toBe(archives.length + 1);
    const active = readFileSync(join(dir, 'journal.jsonl'), 'utf8');
    expect(active.length).toBeLessThanOrEqual(16 * 1024 + 2_000);
    for (const id of [early.id, rollOpen.id, rollClose.id]) expect(active).toContain(id);

    const listed = async (options = {}) => (await journal.list(options)).map((entry) => entry.id);
    const all = await listed();
    expect([all.length, new Set(all).size]).toEqual([123, 123]);
    const newest = ids.slice(-3).reverse();
    expect([all.slice(0, 3), await listed({ limit: 3 })]).toEqual([newest, newest]);
    expect((await listed({ pending: true })).sort()).toEqual([early.id, rollOpen.id].sort());
    expect(await listed({ since: T0 + 24 * 3_600_000 })).toEqual(ids.slice(48).reverse());
    const { request, ...who } = openFields();
    const match = { ...who, body: request.body };
    expect([(await journal.get(ids[0]))?.outcome, (await journal.findUnresolvedMatch(match))?.id]).toEqual([
      'done',
      early.id,
    ]);
  });

  it('a rotation that archives every resolved entry keeps the one with the highest seq: the journal counts on, every seq once', async () => {
    const dir = stateDir();
    const journal = journalAt(dir);
    await resolved(journal, ['r-0', 'r-1', 'r-2']);
    await rotateAll(journal.file);
    const active = readFileSync(journal.file, 'utf8').trim().split('\n');
    expect([
      readdirSync(join(dir, ARCHIVE_DIR_NAME)),
      active.map((line) => JSON.parse(line).seq).filter((seq) => seq !== undefined),
    ]).toEqual([['index', 'journal-2025-01-15.jsonl'], [3]]);
    const after = await journal.begin(openFields({ idempotency_key: 'after' }));
    expect([after.seq, (await journal.list()).map((entry) => entry.seq)]).toEqual([4, [4, 3, 2, 1]]);
  });
});

describe("the archives' index: made from the archives, so never the only copy of anything", () => {
  /** A journal of finished rows over two days, rotated small: most rows archived, found through the index. */
  async function history(dir: string) {
    let time = T0;
    const journal = openJournal({ dir, now: () => time, rotateBytes: 2048, keepResolved: 1 });
    for (let index = 0; index < 40; index++, time += 75 * 60_000) {
      const market = ['USDTNGN', 'USDTKES'][index % 2];
      const entry = await journal.begin(
        openFields({
          idempotency_key: `k-${index}`,
          group: index % 5 === 0 ? `roll-${index}` : undefined,
          request: {
            method: 'POST',
            path: '/hedges/add',
            body: { market, side: 'buy', notional_usd: 100 + (index % 3) },
          },
        }),
      );
      await journal.update(entry.id, { outcome: 'done', hedge_id: `hdg_${index % 7}` });
    }
    return { journal, end: time };
  }
  /** What each question a write asks finds, and what every row read by day says it should (the archives whole). */
  async function answers(journal: ReturnType<typeof openJournal>) {
    const all = await journal.list();
    const { request: _, ...who } = openFields();
    const asks = [
      { idempotencyKey: 'k-3' },
      { idempotencyKey: 'k-39' },
      { group: 'roll-10' },
      { hedge: 'hdg_2' },
      { side: 'USDTKES buy', since: T0 + 20 * 3_600_000 },
      { request: { ...who, body: { market: 'USDTNGN', side: 'buy', notional_usd: 101 } }, since: T0 },
      { since: T0 + 38 * 75 * 60_000 },
    ];
    const found = await Promise.all(asks.map(async (ask) => (await journal.list(ask)).map((entry) => entry.id)));
    const expected = asks.map((ask) => all.filter(rowTest(ask)).map((entry) => entry.id));
    return { found, expected, all: all.map((entry) => entry.id) };
  }

  it('a row archived is found by its key, group, hedge, side or request, as a read of every archive finds it; an index removed, cut short (a crash) or missing a rotation (an older hedge rotating without it) is made again, and finds the same', async () => {
    const dir = stateDir();
    const { journal } = await history(dir);
    const index = join(dir, ARCHIVE_DIR_NAME, 'index');
    const first = await answers(journal);
    expect(first.all).toHaveLength(40);
    expect(first.found).toEqual(first.expected);
    expect(first.found.map((ids) => ids.length)).toEqual([1, 1, 1, 6, 12, 6, 2]);
    // Removed: the next read makes it again.
    rmSync(index, { recursive: true });
    expect(await answers(openJournal({ dir }))).toEqual(first);
    // Its buckets cut short, as a crash of the machine leaves writes that never reached the disk.
    for (const name of readdirSync(index).filter((name) => name.endsWith('.jsonl')))
      writeFileSync(join(index, name), readFileSync(join(index, name), 'utf8').slice(0, 10));
    expect(await answers(openJournal({ dir }))).toEqual(first);
    // An older hedge rotates without the index: its archive gains the active segment's rows, the segment is replaced.
    const active = join(dir, 'journal.jsonl');
    const moved = readFileSync(active, 'utf8');
    const day = readdirSync(join(dir, ARCHIVE_DIR_NAME))
      .filter((name) => name.startsWith('journal-'))
      .at(-1)!;
    appendFileSync(join(dir, ARCHIVE_DIR_NAME, day), moved);
    rmSync(active);
    writeFileSync(active, '', { mode: 0o600 });
    expect(await answers(openJournal({ dir }))).toEqual(first);
  });
});

describe('refusals: local state that cannot be used is exit 13, naming the path', () => {
  /** What taking a keeper's lock with $XDG_STATE_HOME at `folder` fails with. */
  const keeperLockIn = (folder: string) => {
    const ports = { env: { XDG_STATE_HOME: folder }, journal: async () => openJournal({ dir: join(folder, 'own') }) };
    const place = keeperLockPlace(ports, { environment: 'test', base_url_host: 'partner.example', key_id: KEY_ID });
    return caught(place.then((taking) => taking.take()));
  };

  it("a locks/, journal-archive/ or keepers/ folder that is a symbolic link is refused, never followed (the keeper's before its lock is taken): its target keeps its mode and gets no file", async () => {
    const folder = tempFolder();
    const dir = join(folder, 'state');
    const journal = journalAt(dir);
    await resolved(journal, ['idem-1', 'idem-2']);
    mkdirSync(join(folder, 'hedge'));
    const [locks, archive, keepers] = [
      join(dir, 'locks'),
      join(dir, ARCHIVE_DIR_NAME),
      join(folder, 'hedge', 'keepers'),
    ];
    // A folder elsewhere, mode 0755, that the symbolic links point to.
    const target = join(folder, 'elsewhere');
    mkdirSync(target, { mode: 0o755 });
    chmodSync(target, 0o755);
    for (const link of [locks, archive, keepers]) symlinkSync(target, link);

    const locked = stateRefusal(await caught(journal.lock('scope', { waitMs: 0 })), {
      details: { path: locks },
    });
    expect(locked.message).toBe(
      `The action journal's ${locks} is a symbolic link; hedge does not follow it (it would write wherever it points).`,
    );
    await expect(rotateAll(journal.file)).rejects.toThrow(`${archive} is a symbolic link`);
    expect(stateRefusal(await keeperLockIn(folder)).message).toContain(`${keepers} is a symbolic link`);
    expect([statSync(target).mode & 0o777, readdirSync(target)]).toEqual([0o755, []]);
  });

  // Only root can give a folder to another user.
  it.skipIf(process.getuid?.() !== 0)(
    "a state folder another user owns is refused (exit 2, the chown) before the keeper's folder is made in it; root trusts no other user's (needs root)",
    async () => {
      const folder = tempFolder();
      const state = join(folder, 'hedge');
      mkdirSync(state, { mode: 0o700 });
      chownSync(state, 65534, 65534);
      const failure = await keeperLockIn(folder);
      expect(describeError(failure)).toMatchObject({ exitCode: 2 });
      expect(failure.message).toBe(
        `Cannot use the folder ${state}: it belongs to another user (uid 65534), who may change it; run \`chown ${userInfo().username} ${state}\`.`,
      );
      expect([readdirSync(state), statSync(state).uid]).toEqual([[], 65534]);
    },
  );

  it('a journal file another user may change, or that belongs to another user, is refused with the fix; a FIFO without waiting', async () => {
    const journal = journalAt(stateDir());
    const { file } = journal;
    await journal.begin(openFields());
    const before = readFileSync(file, 'utf8');
    chmodSync(file, 0o666);
    const failure = stateRefusal(await caught(journal.begin(openFields({ idempotency_key: 'idem-0002' }))), {
      details: { path: file },
    });
    expect(failure.message).toBe(
      `Cannot read the action journal ${file}: other users can change it (mode 0666); run \`chmod go-w ${file}\`.`,
    );
    await expect(journal.list()).rejects.toThrow('chmod go-w');
    expect([readFileSync(file, 'utf8'), statSync(file).mode & 0o777]).toEqual([before, 0o666]);

    // Root reads any file: another user's journal is judged by its owner, whatever its mode.
    chmodSync(file, 0o600);
    if (process.getuid?.() === 0) {
      chownSync(file, 65534, 65534);
      await expect(journal.list()).rejects.toThrow('belongs to another user (uid 65534)');
      chownSync(file, 0, 0);
    }
    expect(await journal.list()).toHaveLength(1);

    rmSync(file);
    execFileSync('mkfifo', [file]);
    await expect(journal.list()).rejects.toThrow('it is a FIFO (named pipe), not a regular file');
  });

  it('a folder that cannot be made (a file in the way) is exit 13 naming it', async () => {
    const folder = tempFolder();
    writeFileSync(join(folder, 'state'), '');
    const dir = join(folder, 'state', 'hedge');
    expect(stateRefusal(await caught(openJournal({ dir }).begin(openFields()))).message).toContain(dir);
  });
});
