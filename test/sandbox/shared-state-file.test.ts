// Several simulator processes on one state file (what parallel `hedge --demo` runs are): with a
// stateFileLock each request reloads what another saved, acts and saves under the lock, so no
// save overwrites another's. Two servers in this process stand for two processes: each has its
// own memory, and only the file joins them. Their clocks are stopped (realNow fixed) and stepped.
import { existsSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { lockDemoState } from '../../src/demo/state-lock.js';
import { parseStateFile, type StateFileLock } from '../../src/sandbox/state-file.js';
import { openBody } from '../support/engine.js';
import { api, startSimulator, type Simulator, type SimulatorOptions } from '../support/simulator.js';

const START_MS = Date.parse('2026-03-02T09:00:00.000Z');
const KEYS = Array.from({ length: 10 }, (_, index) => `hpk_test_SharedStateAccount${String(index).padStart(4, '0')}`);

let dir: string | undefined;
const started: Simulator[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((simulator) => simulator.close()));
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

async function twoProcesses(
  options: Partial<SimulatorOptions> = {},
): Promise<{ a: Simulator; b: Simulator; stateFile: string }> {
  dir = await mkdtemp(join(tmpdir(), 'hedge-shared-state-'));
  const stateFile = join(dir, 'state.json');
  const common: SimulatorOptions = {
    preset: 'quick',
    apiKeys: KEYS,
    stateFile,
    stateFileLock: lockDemoState,
    realNow: () => START_MS,
    ...options,
  };
  // Both start before either acts: each holds the (empty) state in memory, as parallel runs do.
  const [a, b] = await Promise.all([startSimulator(common), startSimulator(common)]);
  started.push(a, b);
  return { a, b, stateFile };
}

/** The hedges the file holds, per account key index, as a fresh simulator would read them. */
function hedgesInFile(stateFile: string): Array<{ side: string; notionalUsd: number; status: string }> {
  const contents = parseStateFile(stateFile, readFileSync(stateFile)) as unknown as {
    engine: { accounts: Record<string, { hedges: Record<string, any> }> };
  };
  return Object.values(contents.engine.accounts).flatMap((account) => Object.values(account.hedges));
}

describe('sandbox state file shared by several processes', () => {
  it("a write through one process is seen by the other, and the other's save keeps it", async () => {
    const { a, b, stateFile } = await twoProcesses();
    const opened = await a.api('POST', '/hedges', { body: openBody('buy', 1_000, 3), idempotencyKey: 'open-a' });
    expect(opened.status).toBe(200);
    // b loaded the state before a acted; it reloads under the lock, so it knows the hedge.
    expect((await b.api('GET', `/hedges/${opened.body.data.id}`)).status).toBe(200);
    const sold = await b.api('POST', '/hedges', { body: openBody('sell', 2_000, 3), idempotencyKey: 'open-b' });
    expect(sold.status).toBe(200);
    expect(
      hedgesInFile(stateFile)
        .map((hedge) => `${hedge.side} ${hedge.notionalUsd}`)
        .sort(),
    ).toEqual(['buy 1000', 'sell 2000']);

    // One pending change per side, across processes: b's add is pending when a asks for another.
    a.sandbox.clock.advance(100);
    b.sandbox.clock.advance(100);
    expect(
      (
        await b.api('POST', '/hedges/add', {
          body: { market: 'USDTNGN', side: 'buy', notional_usd: 11 },
          idempotencyKey: 'add-b',
        })
      ).status,
    ).toBe(200);
    const refused = await a.api('POST', '/hedges/add', {
      body: { market: 'USDTNGN', side: 'buy', notional_usd: 12 },
      idempotencyKey: 'add-a',
    });
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('action_pending');
    // The same key replayed through the other process is the same action, not a second one.
    const replay = await a.api('POST', '/hedges/add', {
      body: { market: 'USDTNGN', side: 'buy', notional_usd: 11 },
      idempotencyKey: 'add-b',
    });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    a.sandbox.clock.advance(100);
    const positions = await a.api('GET', '/positions');
    expect(positions.body.data.find((position: { side: string }) => position.side === 'buy').notional_usd).toBe(1_011);
    expect(hedgesInFile(stateFile).find((hedge) => hedge.side === 'buy')?.notionalUsd).toBe(1_011);
  });

  it('a burst of writes through both processes at once all land in the file', async () => {
    const { a, b, stateFile } = await twoProcesses();
    const answers = await Promise.all(
      KEYS.map((key, index) =>
        api(index % 2 === 0 ? a : b, 'POST', '/hedges', {
          key,
          body: openBody(index % 4 < 2 ? 'buy' : 'sell', 1_000 + index, 3),
          idempotencyKey: `burst-${index}`,
        }),
      ),
    );
    expect(answers.map((answer) => answer.status)).toEqual(KEYS.map(() => 200));
    const notionals = hedgesInFile(stateFile)
      .map((hedge) => hedge.notionalUsd)
      .sort((x, y) => x - y);
    expect(notionals).toEqual(KEYS.map((_, index) => 1_000 + index));
    // What each process holds agrees with the file once it reloads.
    for (const process of [a, b]) {
      const seen = await Promise.all(KEYS.map((key) => api(process, 'GET', '/hedges', { key })));
      expect(seen.map((answer) => answer.body.data.length)).toEqual(KEYS.map(() => 1));
    }
    expect((await readdir(dir!)).sort()).toEqual(['state.json']);
  });

  it('a state file removed meanwhile (demo reset) is a fresh state for the next request', async () => {
    const { a, b, stateFile } = await twoProcesses();
    expect(
      (await a.api('POST', '/hedges', { body: openBody('buy', 1_000, 3), idempotencyKey: 'before-reset' })).status,
    ).toBe(200);
    await rm(stateFile);
    expect((await b.api('GET', '/hedges')).body.data).toEqual([]);
    expect((await a.api('GET', '/hedges')).body.data).toEqual([]);
    expect(hedgesInFile(stateFile)).toEqual([]);
  });

  it("a request that changes nothing takes no lock when memory is the file's version; a write, and a read after another process saved, do", async () => {
    const taken: string[] = [];
    const counting: StateFileLock = async (path) => {
      taken.push(path);
      return lockDemoState(path);
    };
    const { a, b, stateFile } = await twoProcesses({ stateFileLock: counting });
    // The account's first request opens it (a change, saved under the lock).
    expect((await a.api('GET', '/markets')).status).toBe(200);
    expect(taken).toHaveLength(1);
    const saved = readFileSync(stateFile);
    expect((await a.api('GET', '/markets')).status).toBe(200);
    expect(
      (await a.api('POST', '/quotes', { body: { market: 'USDTNGN', side: 'buy', notional_usd: 1_000, tenor_days: 3 } }))
        .status,
    ).toBe(200);
    expect(taken).toHaveLength(1);
    expect(readFileSync(stateFile).equals(saved)).toBe(true);
    const opened = await a.api('POST', '/hedges', { body: openBody('buy', 1_000, 3), idempotencyKey: 'counted-open' });
    expect(opened.status).toBe(200);
    expect(taken).toHaveLength(2);
    // b's memory is older than the file a saved: its read goes under the lock and reloads.
    expect((await b.api('GET', `/hedges/${opened.body.data.id}`)).status).toBe(200);
    expect(taken).toHaveLength(3);
    // Now b holds the file's version: its next read takes no lock, and reads the same hedge.
    expect((await b.api('GET', '/hedges')).body.data.map((hedge: { id: string }) => hedge.id)).toEqual([
      opened.body.data.id,
    ]);
    expect(taken).toHaveLength(3);
  });

  it('a request that arrives while this process saves a write waits for the lock: the saved write is not undone in memory, and the next save keeps it', async () => {
    let simulator: Simulator | undefined = undefined;
    let duringSave: Promise<{ status: number }> | undefined;
    const { a, stateFile } = await twoProcesses({
      stateFileBeforeCommit: async () => {
        if (duringSave || !simulator) return;
        // The first open's new state is written, not yet committed: another open of the same process arrives now.
        const before = simulator.sandbox.requestLog.length;
        duringSave = simulator.api('POST', '/hedges', {
          body: openBody('sell', 2_000, 3),
          idempotencyKey: 'second-open',
        });
        for (let tick = 0; tick < 1_000 && simulator.sandbox.requestLog.length === before; tick++)
          await new Promise((resolve) => setImmediate(resolve));
        for (let tick = 0; tick < 20; tick++) await new Promise((resolve) => setImmediate(resolve));
      },
    });
    expect((await a.api('GET', '/markets')).status).toBe(200);
    simulator = a;
    expect(
      (await a.api('POST', '/hedges', { body: openBody('buy', 1_000, 3), idempotencyKey: 'first-open' })).status,
    ).toBe(200);
    expect(duringSave).toBeDefined();
    expect((await duringSave!).status).toBe(200);
    expect(
      hedgesInFile(stateFile)
        .map((hedge) => `${hedge.side} ${hedge.notionalUsd}`)
        .sort(),
    ).toEqual(['buy 1000', 'sell 2000']);
  });

  it('a lock that cannot be taken answers 503 with Retry-After and acts on nothing', async () => {
    const busy: StateFileLock = async () => {
      throw Object.assign(new Error('Lock file is already being held'), { code: 'ELOCKED' });
    };
    const { a, stateFile } = await twoProcesses({ stateFileLock: busy });
    const answer = await a.api('POST', '/hedges', { body: openBody('buy', 1_000, 3), idempotencyKey: 'while-busy' });
    expect(answer.status).toBe(503);
    expect(answer.headers.get('retry-after')).toBe('1');
    expect(answer.body.error.code).toBe('sandbox_state_busy');
    expect(answer.body.error.message).toContain(stateFile);
    expect(Object.keys(a.sandbox.engine.state.accounts)).toEqual([]);
    expect(existsSync(stateFile)).toBe(false);
    // Answers that do not touch the state need no lock.
    a.sandbox.setFaults({ fault5xx: 1 });
    expect((await a.api('GET', '/positions')).status).toBeGreaterThanOrEqual(500);
  });

  it('a save whose lock was taken over aborts, and its request runs again on what the file holds: both writes land', async () => {
    // b takes the lock over as a process does from a holder it judged stale (its directory removed
    // and made afresh), while a is inside its save: a wrote its new state to a temporary file, and
    // b's write commits before a's rename.
    let takeOver = true;
    const overtaking: StateFileLock = async (path) => {
      rmSync(`${path}.lock`, { recursive: true, force: true });
      return lockDemoState(path);
    };
    // b (and its twin, unused) take the lock over; a is started on the same file below.
    const { b } = await twoProcesses({ stateFileLock: overtaking });
    let aSaves = 0;
    const a = await startSimulator({
      preset: 'quick',
      apiKeys: KEYS,
      stateFile: join(dir!, 'state.json'),
      stateFileLock: lockDemoState,
      realNow: () => START_MS,
      stateFileBeforeCommit: async () => {
        aSaves += 1;
        if (!takeOver) return;
        takeOver = false;
        expect(
          (await b.api('POST', '/hedges', { body: openBody('sell', 2_000, 3), idempotencyKey: 'open-b' })).status,
        ).toBe(200);
      },
    });
    started.push(a);
    const stateFile = join(dir!, 'state.json');

    const opened = await a.api('POST', '/hedges', { body: openBody('buy', 1_000, 3), idempotencyKey: 'open-a' });
    expect(opened.status).toBe(200);
    // a's first save found the lock no longer its own and the file at b's revision: it aborted and
    // ran the open again (a second save), on the file with b's hedge in it.
    expect(aSaves).toBe(2);
    expect(
      hedgesInFile(stateFile)
        .map((hedge) => `${hedge.side} ${hedge.notionalUsd}`)
        .sort(),
    ).toEqual(['buy 1000', 'sell 2000']);
    expect(readFileSync(stateFile, 'utf8')).toMatch(/^\{"version":2,"revision":2,/);
    // The answer describes what is on disk: the hedge a's second run made.
    expect(hedgesInFile(stateFile).find((hedge) => hedge.side === 'buy')).toMatchObject({ id: opened.body.data.id });
    expect((await b.api('GET', `/hedges/${opened.body.data.id}`)).status).toBe(200);
    expect(readdirSync(dir!).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });

  it('a save whose lock is never its own at commit answers 503 after 3 tries, and the file is as it was', async () => {
    let tries = 0;
    const losing: StateFileLock = async (path) => {
      tries += 1;
      const hold = await lockDemoState(path);
      return { held: () => false, release: () => hold.release() };
    };
    const { a, b, stateFile } = await twoProcesses();
    expect(
      (await b.api('POST', '/hedges', { body: openBody('sell', 2_000, 3), idempotencyKey: 'open-b' })).status,
    ).toBe(200);
    const before = readFileSync(stateFile);
    const loser = await startSimulator({
      preset: 'quick',
      apiKeys: KEYS,
      stateFile,
      stateFileLock: losing,
      realNow: () => START_MS,
    });
    started.push(loser);

    const answer = await loser.api('POST', '/hedges', {
      body: openBody('buy', 1_000, 3),
      idempotencyKey: 'never-held',
    });
    expect(answer.status).toBe(503);
    expect(answer.headers.get('retry-after')).toBe('1');
    expect(answer.body.error.code).toBe('sandbox_state_busy');
    expect(tries).toBe(3);
    expect(readFileSync(stateFile).equals(before)).toBe(true);
    expect(readdirSync(dir!).filter((name) => name !== 'state.json')).toEqual([]);
    // Nothing of it is kept in memory either: the other process, and the loser itself, read the file's book.
    expect((await a.api('GET', '/hedges')).body.data.map((hedge: { side: string }) => hedge.side)).toEqual(['sell']);
    expect((await loser.api('GET', '/hedges')).body.data.map((hedge: { side: string }) => hedge.side)).toEqual([
      'sell',
    ]);
  });
});
