// The state file in parts (format 2): a demo command reads the core of the state and parses the
// book's hedges, history and idempotency records only when a request reads them; a save writes a
// part nobody read back as the bytes it was loaded from. Checked on the simulator's own state: the
// parts still unread after each request, and the file a fresh simulator reads.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { lockDemoState } from '../../src/demo/state-lock.js';
import { unreadPart } from '../../src/sandbox/lazy-state.js';
import { loadStateFile, parseStateFile, stateFileBytes } from '../../src/sandbox/state-file.js';
import { openBody } from '../support/engine.js';
import { startSimulator, type Simulator, type SimulatorOptions } from '../support/simulator.js';

const START_MS = Date.parse('2026-03-02T09:00:00.000Z');
const KEY = 'hpk_test_StateFilePartsAccount0001';
const DAY_MS = 86_400_000;

let dir: string | undefined;
const started: Simulator[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((simulator) => simulator.close()));
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

async function simulatorOn(stateFile: string, options: Partial<SimulatorOptions> = {}): Promise<Simulator> {
  const simulator = await startSimulator({
    preset: 'quick',
    apiKeys: [KEY],
    stateFile,
    realNow: () => START_MS,
    ...options,
  });
  started.push(simulator);
  return simulator;
}

/** A state file with closed history, an open hedge and idempotency records, written by a simulator that then stopped. */
async function grownStateFile(): Promise<{ stateFile: string; openedId: string }> {
  dir = await mkdtemp(join(tmpdir(), 'hedge-state-parts-'));
  const stateFile = join(dir, 'state.json');
  const owner = await simulatorOn(stateFile);
  owner.sandbox.seedHedges({ apiKey: KEY, count: 40 });
  const opened = await owner.api('POST', '/hedges', { body: openBody('buy', 1_000, 3), idempotencyKey: 'open-1' });
  expect(opened.status).toBe(200);
  await owner.close();
  started.splice(started.indexOf(owner), 1);
  return { stateFile, openedId: opened.body.data.id };
}

/** The state as the simulator holds it, every part read, as plain JSON. */
function plain(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value));
}

function lines(path: string): string[] {
  return readFileSync(path, 'utf8').split('\n');
}

describe('the sandbox state file in parts', () => {
  it('a request that does not read the book leaves its parts unparsed; the ones it reads are parsed then', async () => {
    const { stateFile } = await grownStateFile();
    // As the demo runs it: several processes may share the file, so each request goes through the lock.
    const demo = await simulatorOn(stateFile, { stateFileLock: lockDemoState });
    const state = () => demo.sandbox.engine.state;
    const account = () => Object.values(state().accounts)[0];

    expect((await demo.api('GET', '/markets')).status).toBe(200);
    expect((await demo.api('GET', '/prices')).status).toBe(200);
    expect(unreadPart(account(), 'hedges')).toBeDefined();
    expect(unreadPart(account(), 'history')).toBeDefined();
    expect(unreadPart(state(), 'idempotency')).toBeDefined();

    // The open book (the account's exposure, positions, one open hedge) is in the core; the open fills (its event is there too).
    demo.advance(100);
    expect((await demo.api('GET', '/account')).status).toBe(200);
    const positions = await demo.api('GET', '/positions');
    expect(positions.body.data).toHaveLength(1);
    expect((await demo.api('GET', `/hedges/${positions.body.data[0].hedge_id}`)).body.data.status).toBe('filled');
    expect(unreadPart(account(), 'hedges')).toBeDefined();
    expect(unreadPart(account(), 'history')).toBeDefined();

    // The past: the list of hedges reads the settled ones, history its own part.
    expect((await demo.api('GET', '/hedges?limit=100')).body.data).toHaveLength(41);
    expect(unreadPart(account(), 'hedges')).toBeUndefined();
    expect(unreadPart(account(), 'history')).toBeDefined();
    const history = await demo.api('GET', '/hedges/history');
    expect(history.body.data).toHaveLength(40);
    expect(unreadPart(account(), 'history')).toBeUndefined();
    expect(unreadPart(state(), 'idempotency')).toBeDefined();
  });

  it('a save keeps an unread part byte for byte, and a fresh simulator reads the same state', async () => {
    const { stateFile, openedId } = await grownStateFile();
    const before = lines(stateFile);
    const demo = await simulatorOn(stateFile, { stateFileLock: lockDemoState });

    // A replay reads the idempotency records; the open adds a hedge; history is not touched.
    const replay = await demo.api('POST', '/hedges', { body: openBody('buy', 1_000, 3), idempotencyKey: 'open-1' });
    expect(replay.body.data.id).toBe(openedId);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    const sold = await demo.api('POST', '/hedges', { body: openBody('sell', 2_000, 3), idempotencyKey: 'open-2' });
    expect(sold.status).toBe(200);
    // Opening a hedge adds to the open book without reading the settled hedges.
    const account = Object.values(demo.sandbox.engine.state.accounts)[0];
    expect(unreadPart(account, 'history')).toBeDefined();
    expect(unreadPart(account, 'hedges')).toBeDefined();

    const after = lines(stateFile);
    const header = JSON.parse(after[0]) as { version: number; parts: string[][] };
    expect(header.version).toBe(2);
    const line = (name: string): number => 2 + header.parts.findIndex((part) => part[2] === name);
    expect(after[line('history')]).toBe(before[line('history')]);
    expect(after[line('hedges')]).toBe(before[line('hedges')]);
    // The core changed: it holds the open hedges, the new one among them.
    expect(after[1]).not.toBe(before[1]);
    expect(after[1]).toContain(sold.body.data.id);

    const saved = parseStateFile(stateFile, readFileSync(stateFile));
    expect(plain(saved.engine)).toEqual(plain(demo.sandbox.engine.state));
    const fresh = await simulatorOn(stateFile);
    const hedges = await fresh.api('GET', '/hedges?limit=100');
    expect(hedges.body.data.map((hedge: { id: string }) => hedge.id)).toContain(sold.body.data.id);
    expect(hedges.body.data).toHaveLength(42);
    expect(
      (await fresh.api('POST', '/hedges', { body: openBody('sell', 2_000, 3), idempotencyKey: 'open-2' })).body.data.id,
    ).toBe(sold.body.data.id);
  });

  it('idempotency records expire after a day without being read before', async () => {
    const { stateFile } = await grownStateFile();
    const demo = await simulatorOn(stateFile, { stateFileLock: lockDemoState });
    demo.advance(DAY_MS / 2);
    expect((await demo.api('GET', '/markets')).status).toBe(200);
    expect(unreadPart(demo.sandbox.engine.state, 'idempotency')).toBeDefined();
    demo.advance(DAY_MS / 2 + 1_000);
    expect((await demo.api('GET', '/markets')).status).toBe(200);
    expect(Object.keys(demo.sandbox.engine.state.idempotency)).toEqual([]);
    // Expired, the key opens a new hedge rather than replaying the old answer.
    const again = await demo.api('POST', '/hedges', { body: openBody('sell', 1_000, 3), idempotencyKey: 'open-1' });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBeNull();
  });

  it('a state file of format 1 (one JSON document) loads, and is saved in parts', async () => {
    const { stateFile, openedId } = await grownStateFile();
    const whole = plain(parseStateFile(stateFile, readFileSync(stateFile))) as { version: 1 };
    writeFileSync(stateFile, JSON.stringify(whole));
    const demo = await simulatorOn(stateFile, { stateFileLock: lockDemoState });
    expect((await demo.api('GET', `/hedges/${openedId}`)).body.data.id).toBe(openedId);
    expect(
      (await demo.api('POST', '/hedges', { body: openBody('sell', 1_000, 3), idempotencyKey: 'open-3' })).status,
    ).toBe(200);
    expect(JSON.parse(lines(stateFile)[0]).version).toBe(2);
    expect((plain(parseStateFile(stateFile, readFileSync(stateFile))) as { engine: unknown }).engine).toEqual(
      plain(demo.sandbox.engine.state),
    );
  });

  it('the file stays open for its unread parts only: reading the last one closes it', async () => {
    const { stateFile } = await grownStateFile();
    const openFiles = (): number => readdirSync('/proc/self/fd').length;
    const before = openFiles();
    const contents = await loadStateFile(stateFile);
    expect(openFiles()).toBe(before + 1);
    const engine = contents!.engine;
    const account = Object.values(engine.accounts)[0];
    expect(Object.keys(account.hedges)).toHaveLength(41);
    expect(account.history).toHaveLength(40);
    expect(openFiles()).toBe(before + 1);
    // Replaced before it was read: its bytes are not needed any more.
    engine.idempotency = {};
    expect(openFiles()).toBe(before);
    expect(stateFileBytes(contents!).length).toBeGreaterThan(0);
  });

  it('a file of format 1 is not kept open, with or without a last newline, pretty-printed or not', async () => {
    const { stateFile, openedId } = await grownStateFile();
    const whole = plain(parseStateFile(stateFile, readFileSync(stateFile)));
    const openFiles = (): number => readdirSync('/proc/self/fd').length;
    for (const text of [JSON.stringify(whole), `${JSON.stringify(whole)}\n`, JSON.stringify(whole, null, 2)]) {
      writeFileSync(stateFile, text);
      const before = openFiles();
      const contents = await loadStateFile(stateFile);
      expect(openFiles()).toBe(before);
      expect(Object.values(contents!.engine.accounts)[0].hedges[openedId]).toBeDefined();
    }
  });

  it('a demo process that adopts what another saved lets go of the file it read before', async () => {
    const { stateFile } = await grownStateFile();
    const [a, b] = await Promise.all([
      simulatorOn(stateFile, { stateFileLock: lockDemoState }),
      simulatorOn(stateFile, { stateFileLock: lockDemoState }),
    ]);
    const openFiles = (): number => readdirSync('/proc/self/fd').length;
    expect((await a.api('GET', '/markets')).status).toBe(200);
    expect((await b.api('GET', '/markets')).status).toBe(200);
    const before = openFiles();
    const step = (): void => {
      a.advance(100);
      b.advance(100);
    };
    for (let round = 0; round < 10; round++) {
      step();
      expect(
        (await a.api('POST', '/hedges', { body: openBody('sell', 100, 3), idempotencyKey: `a-${round}` })).status,
      ).toBe(200);
      step();
      expect(
        (
          await b.api('POST', '/hedges/close', {
            body: { market: 'USDTNGN', side: 'sell' },
            idempotencyKey: `b-${round}`,
          })
        ).status,
      ).toBe(200);
    }
    // Each process holds at most the file its memory came from.
    expect(openFiles()).toBeLessThanOrEqual(before);
  });

  it('hedges that settle while their part is unread join it, and leave the core', async () => {
    const { stateFile } = await grownStateFile();
    const demo = await simulatorOn(stateFile, { stateFileLock: lockDemoState });
    const opened = await demo.api('POST', '/hedges', { body: openBody('sell', 500, 3), idempotencyKey: 'settle-1' });
    demo.advance(100);
    expect(
      (
        await demo.api('POST', '/hedges/close', {
          body: { market: 'USDTNGN', side: 'sell' },
          idempotencyKey: 'settle-2',
        })
      ).status,
    ).toBe(200);
    demo.advance(100);
    expect((await demo.api('GET', `/hedges/${opened.body.data.id}`)).body.data.status).toBe('closed');
    // Touched through the open book and the write path only: the settled hedges' part is still unread.
    const account = Object.values(demo.sandbox.engine.state.accounts)[0];
    expect(unreadPart(account, 'hedges')).toBeDefined();
    expect(
      (await demo.api('POST', '/hedges', { body: openBody('sell', 600, 3), idempotencyKey: 'settle-3' })).status,
    ).toBe(200);
    const saved = lines(stateFile);
    const header = JSON.parse(saved[0]) as { parts: string[][] };
    const core = JSON.parse(saved[1]) as { accounts: Record<string, { hedges: Record<string, unknown> }> };
    expect(Object.keys(Object.values(core.accounts)[0].hedges)).not.toContain(opened.body.data.id);
    expect(saved[2 + header.parts.findIndex((part) => part[2] === 'hedges')]).toContain(opened.body.data.id);
    expect((plain(parseStateFile(stateFile, readFileSync(stateFile))) as { engine: unknown }).engine).toEqual(
      plain(demo.sandbox.engine.state),
    );
  });

  it('a damaged part of settled hedges fails every request that needs it, never only the first', async () => {
    const { stateFile, openedId } = await grownStateFile();
    const damaged = lines(stateFile);
    const header = JSON.parse(damaged[0]) as { parts: string[][] };
    const hedgesLine = 2 + header.parts.findIndex((part) => part[2] === 'hedges');
    damaged[hedgesLine] = `x${damaged[hedgesLine].slice(1)}`;
    writeFileSync(stateFile, damaged.join('\n'));
    const demo = await simulatorOn(stateFile, { stateFileLock: lockDemoState });
    // The open book is in the core: still served.
    expect((await demo.api('GET', `/hedges/${openedId}`)).status).toBe(200);
    for (let attempt = 0; attempt < 2; attempt++) {
      const list = await demo.api('GET', '/hedges');
      expect(list.status).toBe(500);
      expect(list.body.error.message).toContain(`sandbox state file ${stateFile} (accounts.`);
      expect(list.body.error.message).toContain('is not valid JSON; delete the file to start afresh');
      expect((await demo.api('GET', '/hedges/hdg_settledbutunreadable')).status).toBe(500);
    }
  });

  it('a hedge id is an own record: `__proto__` and `constructor` are no hedge', async () => {
    const { stateFile } = await grownStateFile();
    const demo = await simulatorOn(stateFile);
    for (const id of ['__proto__', 'constructor', 'hasOwnProperty'])
      expect((await demo.api('GET', `/hedges/${id}`)).status).toBe(404);
  });

  it('a write with a new key reads none of the saved records; they and its own are all kept and replayed', async () => {
    const { stateFile, openedId } = await grownStateFile();
    const before = lines(stateFile);
    const demo = await simulatorOn(stateFile, { stateFileLock: lockDemoState });
    const sold = await demo.api('POST', '/hedges', { body: openBody('sell', 700, 3), idempotencyKey: 'new-key' });
    expect(sold.status).toBe(200);
    expect(unreadPart(demo.sandbox.engine.state, 'idempotency')).toBeDefined();
    const after = lines(stateFile);
    const header = JSON.parse(after[0]) as { parts: string[][]; idempotencyIndex: string };
    const line = 2 + header.parts.findIndex((part) => part[0] === 'idempotency');
    // The saved records' bytes as they were, the new one added at the end; the index one hash longer.
    expect(after[line].startsWith(before[line].slice(0, -1))).toBe(true);
    expect(after[line]).toContain('new-key');
    expect(header.idempotencyIndex.length).toBe(
      (JSON.parse(before[0]) as { idempotencyIndex: string }).idempotencyIndex.length + 8,
    );
    // Another process replays both: the key saved before and the one just made.
    const other = await simulatorOn(stateFile, { stateFileLock: lockDemoState });
    expect(
      (await other.api('POST', '/hedges', { body: openBody('sell', 700, 3), idempotencyKey: 'new-key' })).body.data.id,
    ).toBe(sold.body.data.id);
    expect(
      (await other.api('POST', '/hedges', { body: openBody('buy', 1_000, 3), idempotencyKey: 'open-1' })).body.data.id,
    ).toBe(openedId);
    expect(unreadPart(other.sandbox.engine.state, 'idempotency')).toBeUndefined();
  });

  it('records made while the saved ones were unread expire a day on like the others, also when there were none', async () => {
    dir = await mkdtemp(join(tmpdir(), 'hedge-state-parts-'));
    const stateFile = join(dir, 'state.json');
    const owner = await simulatorOn(stateFile);
    owner.sandbox.seedHedges({ apiKey: KEY, count: 5 });
    await owner.close();
    started.splice(started.indexOf(owner), 1);
    expect(JSON.parse(lines(stateFile)[0]).idempotencyOldestMs).toBeNull();
    const demo = await simulatorOn(stateFile, { stateFileLock: lockDemoState });
    expect(
      (await demo.api('POST', '/hedges', { body: openBody('sell', 700, 3), idempotencyKey: 'made-unread' })).status,
    ).toBe(200);
    expect(JSON.parse(lines(stateFile)[0]).idempotencyOldestMs).toBe(START_MS);
    await demo.close();
    started.splice(started.indexOf(demo), 1);
    const later = await simulatorOn(stateFile, { stateFileLock: lockDemoState });
    later.advance(DAY_MS + 1_000);
    expect((await later.api('GET', '/markets')).status).toBe(200);
    expect(Object.keys(later.sandbox.engine.state.idempotency)).toEqual([]);
  });

  it('a damaged part is named when it is read, with how to start afresh', async () => {
    const { stateFile } = await grownStateFile();
    const damaged = lines(stateFile);
    const header = JSON.parse(damaged[0]) as { parts: string[][] };
    // The same length (the header's byte counts still add up), but not JSON.
    const historyLine = 2 + header.parts.findIndex((part) => part[2] === 'history');
    damaged[historyLine] = `{${damaged[historyLine].slice(1)}`;
    writeFileSync(stateFile, damaged.join('\n'));
    const contents = parseStateFile(stateFile, readFileSync(stateFile));
    const account = Object.values(contents.engine.accounts)[0];
    expect(() => account.history).toThrow(
      `sandbox state file ${stateFile} (accounts.${account.id}.history) is not valid JSON; delete the file to start afresh`,
    );
    // A file cut short (or grown) no longer adds up to the header's lengths: refused whole, before anything is read.
    writeFileSync(stateFile, damaged.slice(0, 3).join('\n') + '\n');
    expect(() => parseStateFile(stateFile, readFileSync(stateFile))).toThrow(
      'has an unknown format; delete it to start afresh',
    );
  });
});
