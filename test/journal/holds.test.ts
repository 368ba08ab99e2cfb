// Holds, account locks, segments and refusals of the local journal, in-process against real
// folders. A "holder" that is another process is a real child (`sleep`), so liveness is the
// system's answer, never a mock: alive while it runs, dead the instant it is killed with SIGKILL.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { describeError } from '../../src/platform/terminal/exit-codes.js';
import { keeperLockPlace } from '../../src/features/keeper/keeper-heartbeat.js';
import { processStart } from '../../src/core/files/file-lock.js';
import { rotate } from '../../src/platform/journal/segments.js';
import {
  ARCHIVE_DIR_NAME,
  keyFingerprint,
  openJournal,
  type BeginFields,
  type SkippedLine,
} from '../../src/platform/journal/index.js';

const T0 = Date.UTC(2025, 0, 15, 9, 30, 0);
const KEY_ID = keyFingerprint('hpk_test_JournalUnitKey0000001');

const folders: string[] = [];
const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

function tempFolder(): string {
  const folder = mkdtempSync(join(tmpdir(), 'hedge-journal-holds-'));
  folders.push(folder);
  return folder;
}

function fields(overrides: Partial<BeginFields> = {}): BeginFields {
  return {
    profile: 'desk',
    environment: 'test',
    base_url_host: 'partner.example:8443',
    key_id: KEY_ID,
    command: 'add',
    argv: ['add', 'USDTNGN', 'sell', '100'],
    request: { method: 'POST', path: '/hedges/add', body: { market: 'USDTNGN', side: 'sell', notional_usd: 100 } },
    idempotency_key: 'idem-0001',
    ...overrides,
  };
}

/** A live process other than this one, and its start token (what the journal records to tell a reused pid apart). */
async function otherProcess(): Promise<{ child: ChildProcess; pid: number; start: string | undefined }> {
  const child = spawn('sleep', ['60'], { stdio: 'ignore' });
  children.push(child);
  await new Promise<void>((resolve, reject) => {
    child.once('spawn', resolve);
    child.once('error', reject);
  });
  return { child, pid: child.pid!, start: processStart(child.pid!) };
}

async function killed(child: ChildProcess): Promise<void> {
  const gone = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await gone;
}

/** An unresolved entry in the file, held by that process (as its own begin would have recorded it). */
function heldEntryFile(dir: string, id: string, holder: { pid: number; start?: string; host?: string }): void {
  mkdirSync(dir, { recursive: true });
  const record = {
    id,
    at: '2025-01-15T09:00:00.000Z',
    ...fields(),
    host: holder.host ?? hostname(),
    holder: {
      pid: holder.pid,
      host: holder.host ?? hostname(),
      since: '2025-01-15T09:00:00.000Z',
      session: 'othersession',
      ...(holder.start ? { start: holder.start } : {}),
    },
    outcome: 'pending',
  };
  writeFileSync(join(dir, 'journal.jsonl'), `${JSON.stringify(record)}\n`);
}

describe('holds: an entry is held by the live process that carries it', () => {
  it('begin holds the new entry for this process; a final outcome ends the hold', async () => {
    const journal = openJournal({ dir: join(tempFolder(), 'state'), now: () => T0 });
    const entry = await journal.begin(fields());
    expect(await journal.holderOf(entry.id)).toEqual({
      pid: process.pid,
      host: hostname(),
      since: new Date(T0).toISOString(),
      session: entry.holder!.session,
    });
    // Another journal of the same process (another command, e.g. under `hedge mcp`) finds it held.
    const other = openJournal({ dir: journal.dir, now: () => T0 });
    expect(await other.hold(entry.id)).toMatchObject({ held: false, holder: { pid: process.pid } });
    // Its own journal takes it again freely (a roll's later leg, a resumed step of the same run).
    expect(await journal.hold(entry.id)).toMatchObject({ held: true });
    await journal.update(entry.id, { outcome: 'done' });
    expect(await journal.holderOf(entry.id)).toBeUndefined();
  });

  it('taking again what this run holds writes nothing; letting go writes one line, and then another run of this process takes it', async () => {
    const journal = openJournal({ dir: join(tempFolder(), 'state'), now: () => T0 });
    const entry = await journal.begin(fields());
    const lines = () => readFileSync(journal.file, 'utf8').trim().split('\n').length;
    const begun = lines();
    const again = await journal.hold(entry.id);
    expect(again).toMatchObject({ held: true });
    expect(await journal.hold(entry.id)).toMatchObject({ held: true });
    expect(lines()).toBe(begun);
    expect(await journal.holderOf(entry.id)).toMatchObject({ pid: process.pid, session: entry.holder!.session });
    if (!again.held) throw new Error('not held');
    await again.hold.release();
    expect(lines()).toBe(begun + 1);
    expect(await journal.holderOf(entry.id)).toBeUndefined();
    // Let go, it is free for the next run of this process (hedge mcp's next call, a keeper's next cycle).
    const next = openJournal({ dir: journal.dir, now: () => T0 });
    expect(await next.hold(entry.id)).toMatchObject({ held: true });
    expect(lines()).toBe(begun + 2);
  });

  it('an entry held by another live process is not taken; once that process is killed (SIGKILL) it is, at once', async () => {
    const dir = join(tempFolder(), 'state');
    const other = await otherProcess();
    heldEntryFile(dir, 'a_held00000001', other);
    const journal = openJournal({ dir, now: () => T0 });

    expect(await journal.holderOf('a_held00000001')).toEqual({
      pid: other.pid,
      host: hostname(),
      since: '2025-01-15T09:00:00.000Z',
      session: 'othersession',
    });
    expect(await journal.hold('a_held00000001')).toEqual({
      held: false,
      holder: { pid: other.pid, host: hostname(), since: '2025-01-15T09:00:00.000Z', session: 'othersession' },
    });

    await killed(other.child);
    expect(await journal.holderOf('a_held00000001')).toBeUndefined();
    const taken = await journal.hold('a_held00000001');
    expect(taken.held).toBe(true);
    expect((await journal.get('a_held00000001'))?.holder).toMatchObject({ pid: process.pid, host: hostname() });
    // Let go: nobody holds it, and it stays unresolved for the next resume.
    if (taken.held) await taken.hold.release();
    expect(await journal.holderOf('a_held00000001')).toBeUndefined();
    expect((await journal.get('a_held00000001'))?.outcome).toBe('pending');
  });

  it('a pid that lives on but started at another time (reused by another process) does not hold it', async () => {
    const dir = join(tempFolder(), 'state');
    const other = await otherProcess();
    if (other.start === undefined) {
      // No /proc here: the start time cannot be read, so the pid alone decides (documented).
      heldEntryFile(dir, 'a_reused000001', { pid: other.pid });
      expect(await openJournal({ dir }).holderOf('a_reused000001')).toMatchObject({ pid: other.pid });
      return;
    }
    heldEntryFile(dir, 'a_reused000001', { pid: other.pid, start: `${other.start}0` });
    expect(await openJournal({ dir }).holderOf('a_reused000001')).toBeUndefined();
  });

  it('an entry finished meanwhile is not taken: hold answers with the process that finished it', async () => {
    const dir = join(tempFolder(), 'state');
    const first = openJournal({ dir, now: () => T0 });
    const entry = await first.begin(fields());
    await first.update(entry.id, { outcome: 'done' });
    expect(await openJournal({ dir }).hold(entry.id)).toEqual({
      held: false,
      holder: { pid: process.pid, host: hostname(), since: new Date(T0).toISOString(), session: entry.holder!.session },
    });
  });

  it('a holder on another host cannot be checked from here and counts as live', async () => {
    const dir = join(tempFolder(), 'state');
    heldEntryFile(dir, 'a_remote000001', { pid: 1, host: 'another-desk.example' });
    expect(await openJournal({ dir }).hold('a_remote000001')).toMatchObject({
      held: false,
      holder: { host: 'another-desk.example' },
    });
  });
});

describe('account locks', () => {
  it('one holder at a time per scope; released, it is free; other scopes are independent', async () => {
    const dir = join(tempFolder(), 'state');
    const first = openJournal({ dir });
    const second = openJournal({ dir });
    const taken = await first.lock('test|h|k|book', { waitMs: 0 });
    expect(taken.held).toBe(true);
    expect(await second.lock('test|h|k|book', { waitMs: 0 })).toMatchObject({
      held: false,
      holder: { pid: process.pid, host: hostname() },
    });
    expect((await second.lock('test|h|k|ref|DEAL-7', { waitMs: 0 })).held).toBe(true);
    if (taken.held) await taken.hold.release();
    expect((await second.lock('test|h|k|book', { waitMs: 0 })).held).toBe(true);
  });

  it('a waiter gets the lock once the holder lets go', async () => {
    const dir = join(tempFolder(), 'state');
    const first = openJournal({ dir });
    const taken = await first.lock('scope', { waitMs: 0 });
    let waited = false;
    const waiting = openJournal({ dir })
      .lock('scope', { waitMs: 60_000 })
      .then((answer) => ((waited = true), answer));
    // Still waiting after several of its looks (each takes the journal lock): the holder has it.
    for (let look = 0; look < 5; look++) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(waited).toBe(false);
    if (taken.held) await taken.hold.release();
    expect((await waiting).held).toBe(true);
  });

  it('a wait ends at its bound with the holder named, the lock untaken', async () => {
    const dir = join(tempFolder(), 'state');
    const taken = await openJournal({ dir }).lock('scope', { waitMs: 0 });
    expect(taken.held).toBe(true);
    expect(await openJournal({ dir }).lock('scope', { waitMs: 250 })).toMatchObject({
      held: false,
      holder: { pid: process.pid },
    });
  });

  it('a lock whose holder was killed (SIGKILL) is taken at once', async () => {
    const dir = join(tempFolder(), 'state');
    const other = await otherProcess();
    mkdirSync(join(dir, 'locks'), { recursive: true });
    const journal = openJournal({ dir });
    // Write the record as that process would have: the file the journal uses for this scope.
    const { lockPath } = await import('../../src/platform/journal/journal.js');
    writeFileSync(
      lockPath(dir, 'scope'),
      JSON.stringify({
        scope: 'scope',
        holder: {
          pid: other.pid,
          host: hostname(),
          since: '2025-01-15T09:00:00.000Z',
          session: 'othersession',
          ...(other.start ? { start: other.start } : {}),
        },
      }),
    );
    expect(await journal.lock('scope', { waitMs: 0 })).toMatchObject({ held: false, holder: { pid: other.pid } });
    await killed(other.child);
    expect((await journal.lock('scope', { waitMs: 0 })).held).toBe(true);
  });
});

describe('segments: appends read only the active segment', () => {
  it('past a size bound, resolved entries move to dated archives; unresolved and open groups stay; list and get still see all', async () => {
    const dir = join(tempFolder(), 'state');
    let time = T0;
    const journal = openJournal({ dir, now: () => time, rotateBytes: 16 * 1024, keepResolved: 5 });
    const early = await journal.begin(fields({ idempotency_key: 'still-open' }));
    const rollOpen = await journal.begin(
      fields({ idempotency_key: 'roll-open', group: 'roll-1', leg: 'open', outcome: 'planned' }),
    );
    const rollClose = await journal.begin(fields({ idempotency_key: 'roll-close', group: 'roll-1', leg: 'close' }));
    await journal.update(rollClose.id, { outcome: 'done' });
    const ids: string[] = [];
    for (let index = 0; index < 120; index++) {
      // Two days of history: archives are named by the UTC day an entry was created.
      time = T0 + index * 30 * 60_000;
      const entry = await journal.begin(fields({ idempotency_key: `k-${index}` }));
      await journal.update(entry.id, { outcome: 'done' });
      ids.push(entry.id);
    }
    const archives = readdirSync(join(dir, ARCHIVE_DIR_NAME)).sort();
    expect(archives.length).toBeGreaterThanOrEqual(2);
    expect(archives.every((name) => /^journal-2025-01-1[5-8]\.jsonl$/.test(name))).toBe(true);
    const active = readFileSync(join(dir, 'journal.jsonl'), 'utf8');
    expect(active.length).toBeLessThanOrEqual(16 * 1024 + 2_000);
    expect(active).toContain(early.id);
    expect(active).toContain(rollOpen.id);
    expect(active).toContain(rollClose.id);

    const all = await journal.list();
    expect(all).toHaveLength(123);
    expect(new Set(all.map((entry) => entry.id)).size).toBe(123);
    expect(all.slice(0, 3).map((entry) => entry.id)).toEqual([ids[119], ids[118], ids[117]]);
    expect((await journal.list({ limit: 3 })).map((entry) => entry.id)).toEqual([ids[119], ids[118], ids[117]]);
    expect((await journal.list({ pending: true })).map((entry) => entry.id).sort()).toEqual(
      [early.id, rollOpen.id].sort(),
    );
    const since = T0 + 24 * 3_600_000;
    expect((await journal.list({ since })).map((entry) => entry.id)).toEqual(
      ids.filter((_, index) => index >= 48).reverse(),
    );
    expect((await journal.get(ids[0]!))?.outcome).toBe('done');
    expect(
      (
        await journal.findUnresolvedMatch({
          environment: 'test',
          base_url_host: 'partner.example:8443',
          key_id: KEY_ID,
          command: 'add',
          body: fields().request.body,
        })
      )?.id,
    ).toBe(early.id);
  });

  it('a rotation that archives every resolved entry keeps the one with the highest seq: the journal counts on, every seq once', async () => {
    const dir = join(tempFolder(), 'state');
    const journal = openJournal({ dir, now: () => T0 });
    for (let index = 0; index < 3; index++) {
      const entry = await journal.begin(fields({ idempotency_key: `r-${index}` }));
      await journal.update(entry.id, { outcome: 'done' });
    }
    // The harshest rotation: no resolved entry asked to stay, no room for one.
    rotate(journal.file, readFileSync(journal.file, 'utf8'), { keepResolved: 0, keepBytes: 0, today: '2025-01-15' });
    expect(readdirSync(join(dir, ARCHIVE_DIR_NAME))).toHaveLength(1);
    const active = readFileSync(journal.file, 'utf8').trim().split('\n');
    expect(active.map((line) => JSON.parse(line).seq).filter((seq) => seq !== undefined)).toEqual([3]);
    const last = await journal.begin(fields({ idempotency_key: 'after' }));
    expect(last.seq).toBe(4);
    expect((await journal.list()).map((entry) => entry.seq)).toEqual([4, 3, 2, 1]);
  });
});

describe('refusals: local state that cannot be used is exit 13, naming the path', () => {
  it('a journal that is a symbolic link is never followed: not read, not written, and its target is untouched', async () => {
    const folder = tempFolder();
    const dir = join(folder, 'state');
    mkdirSync(dir);
    const target = join(folder, 'elsewhere.txt');
    writeFileSync(target, 'not yours\n');
    chmodSync(target, 0o644);
    symlinkSync(target, join(dir, 'journal.jsonl'));
    const journal = openJournal({ dir });
    const failure = await journal.begin(fields()).catch((error: unknown) => error);
    expect(describeError(failure)).toMatchObject({
      exitCode: 13,
      code: 'state',
      details: { path: join(dir, 'journal.jsonl') },
    });
    expect((failure as Error).message).toContain('is a symbolic link');
    await expect(journal.list()).rejects.toThrow('is a symbolic link');
    expect(readFileSync(target, 'utf8')).toBe('not yours\n');
    expect((await import('node:fs')).statSync(target).mode & 0o777).toBe(0o644);
  });

  it('a locks/ or journal-archive/ folder that is a symbolic link is refused, never followed: its target keeps its mode and gets no file', async () => {
    const folder = tempFolder();
    const dir = join(folder, 'state');
    const journal = openJournal({ dir, now: () => T0 });
    for (const key of ['idem-1', 'idem-2']) {
      const entry = await journal.begin(fields({ idempotency_key: key }));
      await journal.update(entry.id, { outcome: 'done' });
    }
    const target = join(folder, 'elsewhere');
    mkdirSync(target, { mode: 0o755 });
    chmodSync(target, 0o755);
    symlinkSync(target, join(dir, 'locks'));
    symlinkSync(target, join(dir, ARCHIVE_DIR_NAME));

    const locked = await journal.lock('scope', { waitMs: 0 }).catch((error: unknown) => error);
    expect(describeError(locked)).toMatchObject({ exitCode: 13, code: 'state', details: { path: join(dir, 'locks') } });
    expect((locked as Error).message).toBe(
      `The action journal's ${join(dir, 'locks')} is a symbolic link; hedge does not follow it (it would write wherever it points).`,
    );
    expect(() =>
      rotate(journal.file, readFileSync(journal.file, 'utf8'), { keepResolved: 0, keepBytes: 0, today: '2025-01-15' }),
    ).toThrow(`${join(dir, ARCHIVE_DIR_NAME)} is a symbolic link`);
    expect(statSync(target).mode & 0o777).toBe(0o755);
    expect(readdirSync(target)).toEqual([]);
  });

  it("the keeper's folder (keepers/ in the state folder) that is a symbolic link is refused before the keeper's lock is taken", async () => {
    const folder = tempFolder();
    const target = join(folder, 'elsewhere');
    mkdirSync(join(folder, 'hedge'), { recursive: true });
    mkdirSync(target, { mode: 0o755 });
    chmodSync(target, 0o755);
    symlinkSync(target, join(folder, 'hedge', 'keepers'));
    const ports = { env: { XDG_STATE_HOME: folder }, journal: async () => openJournal({ dir: join(folder, 'own') }) };
    const failure = await keeperLockPlace(ports, { environment: 'test', host: 'partner.example', keyId: KEY_ID })
      .then((place) => place.take())
      .catch((error: unknown) => error);
    expect(describeError(failure)).toMatchObject({ exitCode: 13, code: 'state' });
    expect((failure as Error).message).toContain(`${join(folder, 'hedge', 'keepers')} is a symbolic link`);
    expect(statSync(target).mode & 0o777).toBe(0o755);
    expect(readdirSync(target)).toEqual([]);
  });

  it('a journal file another user may change, or that belongs to another user, is refused with the fix; a FIFO without waiting', async () => {
    const dir = join(tempFolder(), 'state');
    const journal = openJournal({ dir, now: () => T0 });
    await journal.begin(fields());
    const before = readFileSync(journal.file, 'utf8');
    chmodSync(journal.file, 0o666);
    const failure = await journal.begin(fields({ idempotency_key: 'idem-0002' })).catch((error: unknown) => error);
    expect(describeError(failure)).toMatchObject({ exitCode: 13, code: 'state', details: { path: journal.file } });
    expect((failure as Error).message).toBe(
      `Cannot read the action journal ${journal.file}: other users can change it (mode 0666); run \`chmod go-w ${journal.file}\`.`,
    );
    await expect(journal.list()).rejects.toThrow('chmod go-w');
    expect(readFileSync(journal.file, 'utf8')).toBe(before);
    expect(statSync(journal.file).mode & 0o777).toBe(0o666);

    // Root reads any file: another user's journal is judged by its owner, whatever its mode.
    chmodSync(journal.file, 0o600);
    if (process.getuid?.() === 0) {
      chownSync(journal.file, 65534, 65534);
      await expect(journal.list()).rejects.toThrow('belongs to another user (uid 65534)');
      chownSync(journal.file, 0, 0);
    }
    expect(await journal.list()).toHaveLength(1);

    rmSync(journal.file);
    execFileSync('mkfifo', [journal.file]);
    await expect(journal.list()).rejects.toThrow('it is a FIFO (named pipe), not a regular file');
  });

  it('a folder that cannot be made (a file in the way) is exit 13 naming it', async () => {
    const folder = tempFolder();
    writeFileSync(join(folder, 'state'), '');
    const failure = await openJournal({ dir: join(folder, 'state', 'hedge') })
      .begin(fields())
      .catch((error: unknown) => error);
    expect(describeError(failure)).toMatchObject({ exitCode: 13, code: 'state' });
    expect((failure as Error).message).toContain(join(folder, 'state', 'hedge'));
  });

  it('a corrupt line is skipped and named with its file and line', async () => {
    const dir = join(tempFolder(), 'state');
    const skipped: Array<SkippedLine & { file?: string }> = [];
    const journal = openJournal({ dir, onSkip: (skip) => skipped.push(skip) });
    const entry = await journal.begin(fields());
    writeFileSync(join(dir, 'journal.jsonl'), `${readFileSync(join(dir, 'journal.jsonl'), 'utf8')}{broken\n`);
    expect((await journal.list()).map((listed) => listed.id)).toEqual([entry.id]);
    expect(skipped).toEqual([{ file: join(dir, 'journal.jsonl'), line: 2, reason: 'not valid JSON' }]);
    expect(existsSync(join(dir, ARCHIVE_DIR_NAME))).toBe(false);
  });
});
