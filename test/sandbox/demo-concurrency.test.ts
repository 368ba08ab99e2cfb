// Parallel `hedge --demo` runs on one config dir share demo-state.json. Each change is its own
// process with the simulator in it (the reads beside them run in the test's); each change reloads,
// acts and saves under a lock, so no run's save overwrites another's (a save that finds the file
// moved on meanwhile is dropped and its request run again: state-file.test.ts). What the runs did
// is checked on the state file as the simulator itself reads it (a simulator started on that file,
// its clock stepped past every fill).
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  DEMO_API_KEY,
  DEMO_FILL_DELAY_MS,
  DEMO_STATE_FILE,
  lockDemoState,
} from '../../src/platform/runtime/start-demo.js';
import { readStateFile } from '../../src/sandbox/http/server.js';
import { runHedge, tempFolders, type RunOptions } from '../support/hedge-cli.js';
import { until } from '../support/polling.js';
import { apiData, closedAfter, startSimulator } from '../support/simulator.js';

/** A `--demo` run on that config dir: in-process, or `{ spawn: true }` for a change that is a process of its own. */
const demo = (dir: string, args: string[], options: RunOptions = {}) =>
  runHedge(['--demo', ...args], { configDir: dir, ...options });

const configDir = tempFolders('hedge-demo-parallel-');

/** A simulator in this process on the demo's state file, as a `--demo` run starts its own. */
function demoSimulator(dir: string) {
  return startSimulator({
    preset: 'plain',
    apiKeys: [DEMO_API_KEY],
    fillDelayMs: DEMO_FILL_DELAY_MS,
    stateFile: join(dir, DEMO_STATE_FILE),
    stateFileLock: lockDemoState,
  });
}

/** The demo's book as the simulator reads demo-state.json, once everything submitted has landed. */
const demoBook = (dir: string) =>
  closedAfter(demoSimulator(dir), async (simulator) => {
    simulator.advance(DEMO_FILL_DELAY_MS + 1);
    const positions = await apiData(simulator, 'GET', '/positions');
    const hedges = await apiData(simulator, 'GET', '/hedges');
    return { positions, hedgeIds: hedges.map((hedge: any) => hedge.id).sort() };
  });
/** Positions as [side, notional], sorted. */
const bySide = (lines: any[]) => lines.map((position) => [position.side, position.notional_usd]).sort();

/**
 * Awaits `runs` while landing every change they get accepted: as soon as the state file holds one
 * not landed, this process moves the demo's clock past the fill delay and saves that (its lock
 * taken like any run's). A run refused meanwhile (409 action_pending, Retry-After 1 s) finds it
 * landed when it asks again.
 */
async function landingWhile<T>(dir: string, runs: Array<Promise<T>>) {
  const lander = await demoSimulator(dir);
  let ended = false;
  const all = Promise.all(runs).finally(() => (ended = true));
  const stateFile = join(dir, DEMO_STATE_FILE);
  const pending = () => {
    const accounts = Object.values(readStateFile(stateFile).contents?.engine.accounts ?? {});
    const hedges = accounts.flatMap((account) => Object.values(account.hedges));
    return hedges.some((hedge) => hedge.status === 'submitted' || hedge.pendingChange);
  };
  try {
    for (;;) {
      await until(() => ended || pending(), 'a change accepted and not landed, or every run ended');
      if (ended) break;
      lander.sandbox.clock.advance(DEMO_FILL_DELAY_MS + 1);
      expect((await lander.api('GET', '/positions')).status).toBe(200);
    }
    return await all;
  } finally {
    await lander.close();
  }
}

/** The state file is whole (it reads as the simulator's state), and no temp file or lock is left beside it. */
function expectStateFileWhole(dir: string) {
  const path = join(dir, DEMO_STATE_FILE);
  expect(() => Object.values(readStateFile(path).contents!.engine.accounts)).not.toThrow();
  expect(readdirSync(dir).filter((name) => name.startsWith(DEMO_STATE_FILE))).toEqual([DEMO_STATE_FILE]);
}

it('--demo runs side by side on one state file: parallel opens, then 10 parallel adds, then closes and reduces, with reads between, keep the file whole and the book what the exit codes say: every add lands, each position ends at its open plus every add on its side', async () => {
  const dir = configDir();
  // Two opens race for the buy side (one hedge per side on this server), one takes the sell side.
  const opens = [
    ['buy', '1000', 'PAR-1'],
    ['buy', '1500', 'PAR-2'],
    ['sell', '2000', 'PAR-3'],
  ] as const;
  const reads = [
    ['positions', '--json'],
    ['account', '--json'],
    ['hedges', '--json'],
  ];
  /**
   * The buy side's two changes race as processes of their own; the sell side's one, and the reads,
   * run in this process beside them (each with a simulator of its own, joined to the others by
   * the state file alone). All that is not a change exits 0.
   */
  const race = async (changes: ReadonlyArray<readonly string[]>) => {
    const results = await landingWhile(dir, [
      ...changes.map((args) => demo(dir, [...args, '--no-wait', '--json'], { spawn: args[2] === 'buy' })),
      ...reads.map((args) => demo(dir, args)),
    ]);
    results.slice(changes.length).forEach((result) => expect(result.code, result.stderr).toBe(0));
    return results.slice(0, changes.length).map((result, index) => {
      expect([0, 3], `${changes[index].join(' ')}: exit ${result.code}\n${result.stderr}`).toContain(result.code);
      return result;
    });
  };

  const first = await race(
    opens.map(([side, notional, ref]) => ['open', 'USDTNGN', side, notional, '--tenor', '3', '--ref', ref]),
  );
  const openedIds: string[] = [];
  const openedNotional: Record<string, number> = {};
  first.forEach((result, index) => {
    if (result.code !== 0) return;
    const hedge = JSON.parse(result.stdout);
    expect(hedge.status, opens[index].join(' ')).toBe('submitted');
    openedIds.push(hedge.id);
    openedNotional[opens[index][0]] = Number(opens[index][1]);
  });
  // Exactly one open of each side went through.
  expect([openedIds.length, Object.keys(openedNotional).sort()]).toEqual([2, ['buy', 'sell']]);
  const afterOpens = await demoBook(dir);
  expect(afterOpens.hedgeIds).toEqual(openedIds.sort());
  expect(bySide(afterOpens.positions)).toEqual([
    ['buy', openedNotional.buy],
    ['sell', openedNotional.sell],
  ]);
  expectStateFileWhole(dir);

  // Ten processes on one state file, five to a side: the simulator takes one change per side at
  // a time (a later one is refused with 409 action_pending and Retry-After, nothing done, and
  // hedge sends it again with the same key), so two queues of five race on the file as ten
  // would on one side, in half the rounds. --no-wait: exit 0 means the simulator accepted the
  // add; what it then holds is read back below.
  const adds = [11, 12, 13, 14, 15, 16, 17, 18, 19, 20].map((notional, index) => ({
    side: index % 2 === 0 ? 'buy' : 'sell',
    notional,
  }));
  const added = await landingWhile(
    dir,
    adds.map(({ side, notional }) =>
      demo(dir, ['add', 'USDTNGN', side, String(notional), '--no-wait', '--json'], { spawn: true }),
    ),
  );
  added.forEach((result, index) =>
    expect(result.code, `add ${adds[index].side} ${adds[index].notional}\n${result.stderr}`).toBe(0),
  );
  openedNotional.buy += 75;
  openedNotional.sell += 80;
  const afterAdds = await demoBook(dir);
  expect(bySide(afterAdds.positions)).toEqual([
    ['buy', openedNotional.buy],
    ['sell', openedNotional.sell],
  ]);
  // And hedge itself reads the same book.
  const read = await demo(dir, ['positions', '--json']);
  expect(bySide(JSON.parse(read.stdout))).toEqual(bySide(afterAdds.positions));
  expectStateFileWhole(dir);

  // A close and a reduce race for the buy side (one change per side at a time), a reduce takes the sell side.
  const changes = [
    ['close', 'USDTNGN', 'buy'],
    ['reduce', 'USDTNGN', 'buy', '100'],
    ['reduce', 'USDTNGN', 'sell', '100'],
  ];
  const second = await race(changes);

  // Exit 0 of a --no-wait change: the simulator accepted it.
  const { positions } = await demoBook(dir);
  for (const side of ['buy', 'sell']) {
    const accepted = (command: string) =>
      changes.some((args, index) => args[0] === command && args[2] === side && second[index].code === 0);
    const position = positions.find((line: any) => line.side === side);
    const where = `${side}: exits ${second.map((result) => result.code).join(', ')}`;
    if (accepted('close')) expect(position, where).toBeUndefined();
    else expect(position?.notional_usd, where).toBe(openedNotional[side] - (accepted('reduce') ? 100 : 0));
  }
  expectStateFileWhole(dir);
  expect(existsSync(join(dir, `${DEMO_STATE_FILE}.lock`))).toBe(false);
});
