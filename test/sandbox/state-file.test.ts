// The simulator's state file shared by several processes (what parallel `hedge --demo` runs are):
// no write is lost, a killed writer leaves a readable file, ids stay unique across restarts, and a
// save never undoes a write made meanwhile. Real processes where that is what is tested (children
// run the simulator bundled here); elsewhere two simulators in this process stand for two
// processes: each has its own memory, and only the file joins them.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { lockDemoState } from '../../src/platform/runtime/start-demo.js';
import { lockFile } from '../../src/core/files/file-lock.js';
import { type StateFileLock, readStateFile } from '../../src/sandbox/http/server.js';
import { useChildBundle } from '../support/children/child-bundle.js';
import { openBody } from '../support/engine.js';
import { until } from '../support/polling.js';
import { useSimulators, type ApiResult, type Simulator, type SimulatorOptions } from '../support/simulator.js';
import { read, statusOf, useStateFiles } from './http-calls.js';

const KEYS = Array.from({ length: 12 }, (_, index) => `hpk_test_SharedStateAccount${String(index).padStart(4, '0')}`);
const WRITER = fileURLToPath(new URL('../support/children/state-file-writer.cjs', import.meta.url));
const sandboxBundle = useChildBundle('src/sandbox/http/server.ts', 'hedge-state-sandbox-');
const demoBundle = useChildBundle('src/platform/runtime/start-demo.ts', 'hedge-state-demo-');

// After hooks run last first: the simulators are closed before their folders are removed.
const stateFileIn = useStateFiles();
const start = useSimulators({
  preset: 'quick',
  apiKeys: KEYS,
  stateFileLock: lockDemoState,
  realNow: () => Date.parse('2026-03-02T09:00:00.000Z'),
});
const simulatorOn = (stateFile: string, options: SimulatorOptions = {}) => start({ stateFile, ...options });

/** Two simulators started on one file before either acts: each holds the state in memory, as parallel runs do. */
async function twoProcesses(options: SimulatorOptions = {}) {
  const stateFile = stateFileIn();
  const [a, b] = await Promise.all([simulatorOn(stateFile, options), simulatorOn(stateFile, options)]);
  return { a, b, stateFile };
}

/** Takes the lock over as a process does from a holder it judged stale: its directory removed and made afresh. */
const overtaking: StateFileLock = (path) => {
  rmSync(`${path}.lock`, { recursive: true, force: true });
  return lockDemoState(path);
};

/**
 * a, whose every save runs `inSave` (its new state written beside the file, not committed), and b,
 * which takes the lock over from it there and may save first.
 */
async function savingWhileOvertaken(inSave: (b: Simulator) => Promise<void>) {
  const stateFile = stateFileIn();
  const b = await simulatorOn(stateFile, { stateFileLock: overtaking });
  const a = await simulatorOn(stateFile, { stateFileBeforeCommit: () => inSave(b) });
  return { a, stateFile };
}

/** A 3-day open under an Idempotency-Key; mustOpen() also expects it answered 200. */
const openOn = (simulator: Simulator, side: 'buy' | 'sell', notional: number, idempotencyKey: string, key?: string) =>
  simulator.api('POST', '/hedges', { key, body: openBody(side, notional, 3), idempotencyKey });
async function mustOpen(...args: Parameters<typeof openOn>) {
  const answer = await openOn(...args);
  expect(answer.status).toBe(200);
  return answer;
}

/** The answer to a request that found the state file busy: 503, retry in a second. */
function expectBusy(answer: ApiResult) {
  expect([answer.status, answer.headers.get('retry-after'), answer.body.error.code]).toEqual([
    503,
    '1',
    'sandbox_state_busy',
  ]);
}

/** The hedges the file holds, over all accounts, as a fresh simulator reads them. */
function hedgesInFile(stateFile: string) {
  const { contents } = readStateFile(stateFile);
  return Object.values(contents?.engine.accounts ?? {}).flatMap((account) => Object.values(account.hedges));
}

/** New states written beside the file and never committed. */
const leftBeside = (stateFile: string) => readdirSync(dirname(stateFile)).filter((name) => name.endsWith('.tmp'));

const sides = (stateFile: string) =>
  hedgesInFile(stateFile)
    .map((hedge) => `${hedge.side} ${hedge.notionalUsd}`)
    .sort();

it.skipIf(process.platform === 'win32')(
  'the state file shared by several processes: a writer killed inside its save leaves the file as it was, readable; the next writer takes its lock over and saves',
  async () => {
    const stateFile = stateFileIn();
    const first = await simulatorOn(stateFile);
    await mustOpen(first, 'buy', 1_000, 'kept');
    const before = readFileSync(stateFile);

    const marker = join(dirname(stateFile), 'in-save');
    // A simulator process of its own on the file (test/support/children/state-file-writer.cjs).
    const killed = spawn(
      process.execPath,
      [
        WRITER,
        JSON.stringify({ sandbox: sandboxBundle.bundle, demo: demoBundle.bundle, stateFile, keys: [KEYS[1]], marker }),
      ],
      { stdio: ['ignore', 'ignore', 'inherit'] },
    );
    const exited = new Promise((resolve) => killed.on('close', resolve));
    await until(() => existsSync(marker) && readFileSync(marker, 'utf8') !== '', 'the writer to stop inside its save', {
      timeoutMs: 20_000,
    });
    killed.kill('SIGKILL');
    await exited;
    // Its new state was written beside the file (and left there), never renamed over it.
    expect(leftBeside(stateFile)).toHaveLength(1);
    expect(readFileSync(stateFile).equals(before)).toBe(true);
    expect(sides(stateFile)).toEqual(['buy 1000']);

    // Its lock is left behind: a writer whose lock takes a stale one over sooner gets in.
    const next = await simulatorOn(stateFile, { stateFileLock: (path) => lockFile(path, { staleMs: 2_000 }) });
    expect((await next.api('GET', '/hedges', { key: KEYS[0] })).body.data).toHaveLength(1);
    await mustOpen(next, 'sell', 2_000, 'after', KEYS[1]);
    expect(sides(stateFile)).toEqual(['buy 1000', 'sell 2000']);
  },
);

it("the state file shared by several processes: requests that change nothing write nothing and take no lock, a write takes it; a write through one process is seen by the other, and the other's save keeps it; a key replays across processes", async () => {
  let taken = 0;
  const counting: StateFileLock = (path) => {
    taken += 1;
    return lockDemoState(path);
  };
  const { a, b, stateFile } = await twoProcesses({ stateFileLock: counting });
  // The account's first request opens it: a change, saved under the lock.
  expect([await statusOf(a.sandbox, '/markets'), taken]).toEqual([200, 1]);
  const saved = readFileSync(stateFile);
  const quote = { market: 'USDTNGN', side: 'buy', notional_usd: 1_000, tenor_days: 3 };
  expect([
    (await a.api('POST', '/quotes', { body: quote })).status,
    await statusOf(a.sandbox, '/positions'),
    taken,
    readFileSync(stateFile).equals(saved),
  ]).toEqual([200, 200, 1, true]);
  const opened = await mustOpen(a, 'buy', 1_000, 'open-a');
  expect(taken).toBe(2);
  expect(await statusOf(b.sandbox, `/hedges/${opened.body.data.id}`)).toBe(200);
  await mustOpen(b, 'sell', 2_000, 'open-b');
  expect(sides(stateFile)).toEqual(['buy 1000', 'sell 2000']);

  // One pending change per side, across processes: b's add is pending when a asks for another.
  a.sandbox.clock.advance(100);
  b.sandbox.clock.advance(100);
  const add = (simulator: Simulator, notional_usd: number, idempotencyKey: string) =>
    simulator.api('POST', '/hedges/add', { body: { market: 'USDTNGN', side: 'buy', notional_usd }, idempotencyKey });
  expect([
    (await add(b, 11, 'add-b')).status,
    (await add(a, 12, 'add-a')).body.error.code,
    (await add(a, 11, 'add-b')).headers.get('idempotent-replayed'),
  ]).toEqual([200, 'action_pending', 'true']);
  a.sandbox.clock.advance(100);
  const positions = await a.api('GET', '/positions');
  expect([
    positions.body.data.find((position: any) => position.side === 'buy').notional_usd,
    hedgesInFile(stateFile).find((hedge) => hedge.side === 'buy')?.notionalUsd,
  ]).toEqual([1_011, 1_011]);
});

it('the state file shared by several processes: a write that arrives while this process saves another waits for it: the saved write is not undone', async () => {
  let simulator: Simulator | undefined = undefined;
  let duringSave: Promise<{ status: number }> | undefined;
  const { a, stateFile } = await twoProcesses({
    stateFileBeforeCommit: async () => {
      if (duringSave || !simulator) return;
      // The first open's new state is written, not yet committed: another open of the same process arrives now.
      const before = simulator.sandbox.requestLog.length;
      duringSave = openOn(simulator, 'sell', 2_000, 'second');
      for (let tick = 0; tick < 1_000 && simulator.sandbox.requestLog.length === before; tick++)
        await new Promise((resolve) => setImmediate(resolve));
      for (let tick = 0; tick < 20; tick++) await new Promise((resolve) => setImmediate(resolve));
    },
  });
  expect(await statusOf(a.sandbox, '/markets')).toBe(200);
  simulator = a;
  await mustOpen(a, 'buy', 1_000, 'first');
  expect((await duringSave!).status).toBe(200);
  expect(sides(stateFile)).toEqual(['buy 1000', 'sell 2000']);
});

it('the state file shared by several processes: a save that finds the file saved by another process meanwhile is dropped, and its request runs again on it: both writes land', async () => {
  let aSaves = 0;
  const { a, stateFile } = await savingWhileOvertaken(async (b) => {
    aSaves += 1;
    if (aSaves === 1) await mustOpen(b, 'sell', 2_000, 'b');
  });
  const opened = await mustOpen(a, 'buy', 1_000, 'a');
  expect([aSaves, sides(stateFile)]).toEqual([2, ['buy 1000', 'sell 2000']]);
  // The answer describes what is on disk: the hedge a's second run made.
  expect(hedgesInFile(stateFile).find((hedge) => hedge.side === 'buy')?.id).toBe(opened.body.data.id);
  expect(leftBeside(stateFile)).toEqual([]);
});

it('the state file shared by several processes: a save that finds the file moved on three times answers 503 and leaves the file as the other process saved it', async () => {
  let bWrites = 0;
  const { a, stateFile } = await savingWhileOvertaken(async (b) => {
    if (bWrites === 3) return;
    bWrites += 1;
    const key = KEYS[bWrites];
    await mustOpen(b, 'sell', 2_000, key, key);
  });
  expectBusy(await openOn(a, 'buy', 1_000, 'never'));
  expect([bWrites, sides(stateFile)]).toEqual([3, ['sell 2000', 'sell 2000', 'sell 2000']]);
  // Nothing of it is kept in a's memory either.
  expect(await read(a.sandbox, '/hedges')).toEqual([]);
  expect(leftBeside(stateFile)).toEqual([]);
});

it('the state file shared by several processes: a lock that cannot be taken answers 503 with Retry-After and acts on nothing', async () => {
  const { a, stateFile } = await twoProcesses({
    stateFileLock: async () => {
      throw Object.assign(new Error('Lock file is already being held'), { code: 'ELOCKED' });
    },
  });
  const answer = await openOn(a, 'buy', 1_000, 'busy');
  expectBusy(answer);
  expect([answer.body.error.message, existsSync(stateFile)]).toEqual([expect.stringContaining(stateFile), false]);
});

it('ids and formats of the state file: hedge ids are unique across restarts, and across resets seen by processes started on an earlier state (each then a fresh state); `__proto__` and `constructor` are no hedge', async () => {
  const stateFile = stateFileIn();
  const ids: string[] = [];
  const open = async (simulator: Simulator, key: string) => {
    ids.push((await mustOpen(simulator, 'buy', 1_000, key)).body.data.id);
  };
  // A restart carries on the file's id sequence.
  const first = await simulatorOn(stateFile);
  await open(first, 'first');
  const again = await simulatorOn(stateFile, { apiKeys: [KEYS[1]] });
  await open(again, 'again');
  // Two runs started on that state; each sees the file removed (a reset) before its write.
  const [c, d] = await Promise.all([simulatorOn(stateFile), simulatorOn(stateFile)]);
  // A state read from the file knows hedge ids as its own records only.
  for (const id of ['__proto__', 'constructor', 'hasOwnProperty'])
    expect(await statusOf(c.sandbox, `/hedges/${id}`)).toBe(404);
  rmSync(stateFile);
  await open(c, 'after-reset-c');
  rmSync(stateFile);
  await open(d, 'after-reset-d');
  expect(new Set(ids).size).toBe(4);
});

it.each([
  ['format 2 (lines of JSON)', '{"version":2,"revision":3,"clockOffsetMs":0,"parts":[],"lengths":[2]}\n{}\n'],
  ['format 1 (one document)', JSON.stringify({ version: 1, clockOffsetMs: 0, engine: { version: 1 } }, null, 2)],
])(
  'ids and formats of the state file: a state file of %s starts afresh, and its first save replaces it',
  async (_name, text) => {
    const stateFile = stateFileIn();
    writeFileSync(stateFile, text);
    const demo = await simulatorOn(stateFile);
    expect([demo.sandbox.startedAfresh, readFileSync(stateFile, 'utf8'), await read(demo.sandbox, '/hedges')]).toEqual([
      true,
      text,
      [],
    ]);
    await mustOpen(demo, 'buy', 1_000, 'o');
    expect(sides(stateFile)).toEqual(['buy 1000']);
    const next = await simulatorOn(stateFile);
    expect(next.sandbox.startedAfresh).toBe(false);
  },
);

it('ids and formats of the state file: a file that is not JSON, or JSON of no known format, is refused with how to start afresh', async () => {
  const stateFile = stateFileIn();
  writeFileSync(stateFile, '{"format":3,"save":"x","engine":');
  await expect(simulatorOn(stateFile)).rejects.toThrow(`${stateFile} is not valid JSON; delete it to start afresh`);
  writeFileSync(stateFile, '[]');
  await expect(simulatorOn(stateFile)).rejects.toThrow(`${stateFile} has an unknown format; delete it to start afresh`);
});
