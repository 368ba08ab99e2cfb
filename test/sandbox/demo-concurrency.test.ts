// Parallel `hedge --demo` runs on one config dir share demo-state.json. Each change is its own
// process with the simulator in it (the reads beside them run in the test's); each change reloads,
// acts and saves under a lock, so no run's
// save overwrites another's. A save commits only while the file is still the one it loaded, so a
// run stopped inside its save past the lock's stale time drops that save instead of writing over
// the run that took the lock over, and runs its request again. What the runs did is
// checked on the state file as the simulator itself reads it (a simulator started on that file,
// its clock stepped past every fill).
import type { ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  DEMO_API_KEY,
  DEMO_FILL_DELAY_MS,
  DEMO_STATE_FILE,
  STOP_IN_SAVE_ENV,
  lockDemoState,
} from '../../src/platform/runtime/start-demo.js';
import { readStateFile } from '../../src/sandbox/state-file.js';
import { runHedge, tempDir, type RunOptions } from '../support/hedge-cli.js';
import { until } from '../support/polling.js';
import { startSimulator } from '../support/simulator.js';

const dirs: Array<{ remove: () => void }> = [];
afterAll(() => dirs.forEach((dir) => dir.remove()));
/** A `--demo` run on that config dir: in-process, or `{ spawn: true }` for a change that is a process of its own. */
const demo = (dir: string, args: string[], options: RunOptions = {}) =>
  runHedge(['--demo', ...args], { configDir: dir, ...options });

function configDir(): string {
  const dir = tempDir('hedge-demo-parallel-');
  dirs.push(dir);
  return dir.path;
}

interface Side {
  side: string;
  notional_usd: number;
  hedge_id: string;
}

/** The demo's book as the simulator reads demo-state.json, once everything submitted has landed. */
async function demoBook(dir: string): Promise<{ positions: Side[]; hedgeIds: string[] }> {
  const simulator = await startSimulator({
    preset: 'plain',
    apiKeys: [DEMO_API_KEY],
    fillDelayMs: DEMO_FILL_DELAY_MS,
    stateFile: join(dir, DEMO_STATE_FILE),
    stateFileLock: lockDemoState,
  });
  try {
    simulator.advance(DEMO_FILL_DELAY_MS + 1);
    const positions = (await simulator.api('GET', '/positions')).body.data as Side[];
    const hedges = (await simulator.api('GET', '/hedges')).body.data as Array<{ id: string }>;
    return { positions, hedgeIds: hedges.map((hedge) => hedge.id).sort() };
  } finally {
    await simulator.close();
  }
}

/** A filled buy position of `notionalUsd` in a fresh demo state, written by the simulator itself. */
async function seedDemoPosition(dir: string, notionalUsd: number): Promise<void> {
  const simulator = await startSimulator({
    preset: 'plain',
    apiKeys: [DEMO_API_KEY],
    fillDelayMs: DEMO_FILL_DELAY_MS,
    stateFile: join(dir, DEMO_STATE_FILE),
    stateFileLock: lockDemoState,
  });
  try {
    const opened = await simulator.api('POST', '/hedges', {
      body: { market: 'USDTNGN', side: 'buy', notional_usd: notionalUsd, tenor_days: 3 },
      idempotencyKey: 'seed',
    });
    expect(opened.status).toBe(200);
    simulator.advance(DEMO_FILL_DELAY_MS + 1);
    expect((await simulator.api('GET', `/hedges/${opened.body.data.id}`)).body.data.status).toBe('filled');
  } finally {
    await simulator.close();
  }
}

/** A process's state letter from /proc (T: stopped), or undefined once it is gone. */
function processState(pid: number): string | undefined {
  try {
    // The command name is in parentheses and may hold spaces: the state follows the last ')'.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  } catch {
    return undefined;
  }
}

/** The accounts in the state file, as the simulator reads it. */
function accountsInFile(path: string) {
  return Object.values(readStateFile(path).contents!.engine.accounts);
}

/** The state file is whole (it reads as the simulator's state), and no temp file or lock is left beside it. */
function expectStateFileWhole(dir: string): void {
  const path = join(dir, DEMO_STATE_FILE);
  expect(() => accountsInFile(path)).not.toThrow();
  expect(readdirSync(dir).filter((name) => name.startsWith(DEMO_STATE_FILE))).toEqual([DEMO_STATE_FILE]);
}

/** Ten parallel `--demo add … --no-wait` on a 1,000 buy position: every run exits 0 and the state holds 1,155. */
async function tenParallelAdds(): Promise<void> {
  const dir = configDir();
  await seedDemoPosition(dir, 1_000);

  // --no-wait: exit 0 means the simulator accepted the add (what it then holds is checked below,
  // landings stepped by the reader); ten processes that also waited 1.5 s each for their landing
  // would only make the run longer on a loaded machine, not the check stronger.
  const notionals = Array.from({ length: 10 }, (_, index) => 11 + index);
  const adds = await Promise.all(
    // The bound is a backstop: the adds land one after another (each after the one before it).
    notionals.map((notional) =>
      demo(dir, ['add', 'USDTNGN', 'buy', String(notional), '--no-wait', '--json'], { spawn: true, timeoutMs: 40_000 }),
    ),
  );

  let accepted = 0;
  adds.forEach((result, index) => {
    const where = `add ${notionals[index]}: exit ${result.code}\n${result.stderr}`;
    // The simulator takes one change per side at a time: a later one is refused (409
    // action_pending with Retry-After, nothing done) until the earlier one has landed, and hedge
    // sends it again then, with the same key.
    expect(result.code, where).toBe(0);
    accepted += notionals[index]!;
  });
  expect(accepted).toBe(155);

  const { positions } = await demoBook(dir);
  expect(positions.map((position) => [position.side, position.notional_usd])).toEqual([['buy', 1_000 + accepted]]);
  // And hedge itself reads the same book.
  const read = await demo(dir, ['positions', '--json']);
  expect((JSON.parse(read.stdout) as Side[]).map((position) => position.notional_usd)).toEqual([1_000 + accepted]);
  expectStateFileWhole(dir);
}

describe('--demo runs side by side on one state file', () => {
  // Its own bound: the ten land one after another, each after the demo's 1.5 s fill delay.
  it('10 parallel adds all land: the position ends at 1,000 plus every add (1,155)', { timeout: 45_000 }, async () => {
    await tenParallelAdds();
  });

  // /proc tells that the run is stopped (state T); SIGSTOP is POSIX. Taking over the lock needs its 10 s stale time.
  it.skipIf(process.platform !== 'linux')(
    'a run stopped inside its save until its lock is taken over aborts that save, never writes over the next holder: both adds land',
    async () => {
      const dir = configDir();
      await seedDemoPosition(dir, 1_000);
      const stateFile = join(dir, DEMO_STATE_FILE);
      const notionalInFile = (): number => {
        const hedges = accountsInFile(stateFile).flatMap((account) => Object.values(account.hedges));
        return hedges.reduce(
          (sum, hedge) =>
            sum + (hedge.status === 'filled' ? hedge.notionalUsd + (hedge.pendingChange?.notionalUsd ?? 0) : 0),
          0,
        );
      };
      expect(notionalInFile()).toBe(1_000);

      // The first run stops itself inside its first save (its add written to a temporary file, not
      // committed, the lock held) and says so in the marker file: no timing decides where it is.
      const marker = join(dir, 'stopped-in-save');
      let stoppedChild: ChildProcess | undefined;
      const stopped = demo(dir, ['add', 'USDTNGN', 'buy', '11', '--no-wait', '--json'], {
        env: { [STOP_IN_SAVE_ENV]: marker },
        onSpawn: (child) => (stoppedChild = child),
      });
      try {
        await until(
          () => existsSync(marker) && processState(Number(readFileSync(marker, 'utf8'))) === 'T',
          'the first add to stop inside its save',
          { process: stopped },
        );
        expect(Number(readFileSync(marker, 'utf8'))).toBe(stoppedChild!.pid);
        expect(existsSync(`${stateFile}.lock`)).toBe(true);

        // The second run — on the other side, since the stopped run still holds the buy side's lock
        // (one change in flight per side) — finds the state lock held and never refreshed: past its
        // stale time it takes it over, and its open is saved (exit 0) while the first is still stopped.
        const other = await demo(dir, ['open', 'USDTNGN', 'sell', '500', '--tenor', '3', '--no-wait', '--json']);
        expect(other.code, other.stderr).toBe(0);
        expect(processState(stoppedChild!.pid!)).toBe('T');
        const sides = accountsInFile(stateFile).flatMap((account) =>
          Object.values(account.hedges).map((hedge) => hedge.side),
        );
        expect(sides.sort()).toEqual(['buy', 'sell']);
      } finally {
        stoppedChild?.kill('SIGCONT');
      }
      // Resumed, the first finds the file saved by another run since it loaded it: its save is
      // dropped, and its add runs again on the file as it is now.
      const first = await stopped;
      expect(first.code, first.stderr).toBe(0);
      const { positions } = await demoBook(dir);
      expect(positions.map((position) => [position.side, position.notional_usd]).sort()).toEqual([
        ['buy', 1_011],
        ['sell', 500],
      ]);
      expectStateFileWhole(dir);
      expect(existsSync(`${stateFile}.lock`)).toBe(false);
    },
  );

  it('parallel opens, then closes and reduces, with reads between, keep the file whole and the book what the exit codes say', async () => {
    const dir = configDir();
    const opens = [
      ['buy', '1000', 'PAR-1'],
      ['buy', '1500', 'PAR-2'],
      ['sell', '2000', 'PAR-3'],
      ['sell', '2500', 'PAR-4'],
    ] as const;
    const reads = [
      ['positions', '--json'],
      ['account', '--json'],
      ['hedges', '--json'],
    ];
    const first = await Promise.all([
      ...opens.map(([side, notional, ref]) =>
        demo(dir, ['open', 'USDTNGN', side, notional, '--tenor', '3', '--ref', ref, '--no-wait', '--json'], {
          spawn: true,
        }),
      ),
      ...reads.map((args) => demo(dir, args)),
    ]);
    const openResults = first.slice(0, opens.length);
    first.slice(opens.length).forEach((result) => expect(result.code, result.stderr).toBe(0));
    const openedIds: string[] = [];
    const openedNotional: Record<string, number> = {};
    openResults.forEach((result, index) => {
      const where = `open ${opens[index].join(' ')}: exit ${result.code}\n${result.stderr}`;
      expect([0, 3], where).toContain(result.code);
      if (result.code === 0) {
        const hedge = JSON.parse(result.stdout) as { id: string; status: string };
        expect(hedge.status, where).toBe('submitted');
        openedIds.push(hedge.id);
        openedNotional[opens[index][0]] = Number(opens[index][1]);
      }
    });
    // One hedge per side on this server: exactly one open of each side went through.
    expect(Object.keys(openedNotional).sort()).toEqual(['buy', 'sell']);
    // The reader steps the clock past the fills and saves that: the changes below find them filled.
    const afterOpens = await demoBook(dir);
    expect(afterOpens.hedgeIds).toEqual(openedIds.sort());
    expect(afterOpens.positions.map((position) => [position.side, position.notional_usd]).sort()).toEqual([
      ['buy', openedNotional.buy],
      ['sell', openedNotional.sell],
    ]);
    expectStateFileWhole(dir);

    const changes = [
      ['close', 'USDTNGN', 'buy'],
      ['close', 'USDTNGN', 'sell'],
      ['reduce', 'USDTNGN', 'buy', '100'],
      ['reduce', 'USDTNGN', 'sell', '100'],
    ];
    const second = await Promise.all([
      ...changes.map((args) => demo(dir, [...args, '--no-wait', '--json'], { spawn: true })),
      ...reads.map((args) => demo(dir, args)),
    ]);
    second.slice(changes.length).forEach((result) => expect(result.code, result.stderr).toBe(0));
    second
      .slice(0, changes.length)
      .forEach((result, index) =>
        expect([0, 3], `${changes[index].join(' ')}\n${result.stderr}`).toContain(result.code),
      );

    // Exit 0 of a --no-wait change: the simulator accepted it; one change per side at a time.
    const { positions } = await demoBook(dir);
    for (const [sideIndex, side] of ['buy', 'sell'].entries()) {
      const closed = second[sideIndex].code === 0;
      const reduced = second[2 + sideIndex].code === 0;
      const position = positions.find((line) => line.side === side);
      const where = `${side}: close exit ${second[sideIndex].code}, reduce exit ${second[2 + sideIndex].code}`;
      if (closed) expect(position, where).toBeUndefined();
      else expect(position?.notional_usd, where).toBe(openedNotional[side] - (reduced ? 100 : 0));
    }
    expectStateFileWhole(dir);
    expect(existsSync(join(dir, `${DEMO_STATE_FILE}.lock`))).toBe(false);
  });
});
