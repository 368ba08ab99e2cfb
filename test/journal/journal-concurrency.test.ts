// Money across processes and across time, with real processes side by side on one config dir and
// one simulator (the runs before and after them go in-process, and so may one of two runs side by
// side: the test's pid is another hedge process's to the other), asserting on the server's own
// state and request log:
// - N identical adds at once: the notional added is 100 × the number of exit-0 runs; every other
//   run says why (an in-flight action is never "resumed" by a second process);
// - an add held in flight by a process: identical runs stop with exit 11 naming it, send nothing;
//   once it is killed (SIGKILL), the next run resumes it and it lands once;
// - an apply or a roll meeting another one holding the book lock (several hedges per side, dialect
//   alpha) waits for it and finds the target reached;
// - 2 `open --ref DEAL-7` at once make one hedge; the other is refused naming it;
// - an add killed after the server acted, resumed 30 simulated hours later (past the key lifetime,
//   when the simulator has forgotten the key): it lands once, told as one story (the book read
//   first, nothing sent again, the earlier send followed to its end); an open that cannot be told is never
//   resent on its own (exit 12): `hedge journal resolve` records the operator's word.
import type { ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { HedgeArgs, RunOptions, RunResult } from '../support/hedge-cli.js';
import { exits, heldPauses, journalEntries, keysAnswered, killWhen, okJson } from '../support/cli-runs.js';
import { activeNotional } from '../support/keeper.js';
import { until } from '../support/polling.js';
import { pinnedClockEnv, useSimulators, type Simulator } from '../support/simulator.js';

const start = useSimulators();
const HOUR_MS = 3_600_000;

const adds = (t: Simulator) => t.requests('POST', '/hedges/add');

/** The server acts on each POST `path`, then holds its answer. True once it holds one. */
function holdAnswers(t: Simulator, path: string) {
  t.sandbox.setFaults({ stall: 'body', match: { method: 'POST', path } });
  return () => t.requests('POST', path).some((entry) => entry.status === 'stalled');
}

/**
 * `count` copies of `args` at once, each with a pid of its own (what is tested is between hedge
 * processes): the first in this process, the others processes of their own.
 */
function sideBySide(t: Simulator, args: HedgeArgs, count: number) {
  return Promise.all(Array.from({ length: count }, (_, index) => t.hedge(args, { spawn: index > 0 })));
}

/**
 * Runs `args` twice on a simulator whose actions land only when its clock is moved: first in this
 * process, until it has sent `path` (it holds the book lock and waits for the landing); then as a
 * process of its own, until that one says it is waiting for the lock. Then the clock is moved at each
 * pause of the first until it has ended. So the second surely meets the lock held — whatever the
 * machine's load — and is let go only after: the first acts (exit 0), the second says why it stopped
 * (exit 11). The second's run.
 */
async function secondUnderLock(t: Simulator, args: HedgeArgs, path: string) {
  let firstEnded = false;
  const sent = () => t.writes().some((entry) => entry.path === path);
  // Once it has sent `path`, each of its pauses lasts until the test moves the clock.
  const pauses = heldPauses(sent);
  const first = t.hedge(args, { clock: pauses.clock }).finally(() => (firstEnded = true));
  await until(sent, `the first run sending ${path}`, { process: first });
  let waiting = false;
  const second = t.hedge(args, {
    onSpawn: (child) =>
      child.stderr!.on('data', (chunk) => String(chunk).includes('Waiting for the book') && (waiting = true)),
  });
  await until(() => waiting, 'the second run waiting for the book', { process: second });
  // Each pause of the first, once held, ends with the clock moved past the landing, until the first has ended.
  for (let woken = 0; ; woken = pauses.held()) {
    await until(() => firstEnded || pauses.held() > woken, "the first run's next pause, or its end");
    if (firstEnded) break;
    t.advance(HOUR_MS);
    pauses.wake();
  }
  // The first acts; the second waits for it, then stops (exit 11) saying why.
  const [acted, waited] = await Promise.all([first, second]);
  expect([acted.code, waited.code]).toEqual([0, 11]);
  expect(waited.stderr).toContain('Waiting for the book of this account');
  saysWhy(waited);
  return waited;
}

function saysWhy(run: RunResult) {
  expect(run.stderr, `exit ${run.code}`).toMatch(/^hedge: \S/m);
  // Exit 11: another live process holds it (named). Exit 16: the same action just ended and the
  // side still shows what it left (a repeat, named by its journal id).
  if (run.code === 11) expect(run.stderr).toMatch(/pid \d+ on \S+ since \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC/);
  if (run.code === 16)
    expect(run.stderr).toMatch(
      /The same \w+ \(journal a_\w+, (done|filled) at [\d:]+ UTC[^)]*\) ended .* ago and the side still shows exactly what it left; this run sent nothing/,
    );
}

describe('identical writes side by side', () => {
  it('3 parallel `add USDTNGN sell 100` on one config dir: the notional added is 100 × the exit-0 runs; every other run says why', async () => {
    const t = await start();
    t.seedOpen('sell', 1_000);
    const runs = await sideBySide(t, 'add USDTNGN sell 100', 3);
    const succeeded = runs.filter((run) => run.code === 0);
    expect(succeeded.length).toBeGreaterThanOrEqual(1);
    // Every add that reported success is on the server once, and nothing else was added.
    expect([activeNotional(t, 'sell'), keysAnswered(t, '/hedges/add').length]).toEqual([
      1_000 + 100 * succeeded.length,
      succeeded.length,
    ]);
    for (const run of runs.filter((candidate) => candidate.code !== 0)) {
      expect([3, 11, 16], run.stderr).toContain(run.code);
      saysWhy(run);
    }
    for (const run of succeeded) expect(run.stderr).toContain('Added 100.00 USD');
  });

  it('an add in flight is not taken for a crashed one: identical runs stop (exit 11) naming its pid and send nothing; killed, it is resumed and lands once', async () => {
    const t = await start({ stepped: true });
    t.seedOpen('sell', 1_000);
    // The server acts on the add, then its answer hangs: the first process is still carrying it.
    const held = holdAnswers(t, '/hedges/add');
    let child: ChildProcess | undefined;
    const first = t.hedge('add USDTNGN sell 100 --request-timeout 120', {
      onSpawn: (spawned) => (child = spawned),
    });
    await until(held, 'the first add was held by the server');

    // The runs that meet it need no process of their own: the test's pid is not the holder's.
    const others = [await t.hedge('add USDTNGN sell 100'), await t.hedge('add USDTNGN sell 100')];
    for (const run of others) saysWhy(exits(run, 11, `pid ${child!.pid} on`, 'This run sent nothing'));
    expect(adds(t)).toHaveLength(1);
    const [pending, ...more] = await journalEntries(t, '--pending');
    expect([more, pending.holder?.pid]).toEqual([[], child!.pid]);
    expect(others[0].stderr).toContain(pending.id);

    child!.kill('SIGKILL');
    expect((await first).signal).toBe('SIGKILL');
    t.sandbox.setFaults({ stall: null, match: null });
    exits(await t.hedge('add USDTNGN sell 100'), 0, 'Resuming the add started');
    expect([activeNotional(t, 'sell'), new Set(adds(t).map((entry) => entry.idempotencyKey)).size]).toEqual([1_100, 1]);
  });
});

describe('check and act under one lock (several hedges per side: dialect alpha)', () => {
  it('`apply target.csv` (sell 2,000) while another apply of it holds the lock reaches the target once: the second waits, finds it reached, and exits 11', async () => {
    const t = await start({ dialect: 'alpha', fillDelayMs: HOUR_MS });
    const file = join(t.configDir, 'target.csv');
    writeFileSync(file, 'market,side,notional_usd,tenor_days\nUSDTNGN,sell,2000,7\n');
    const waited = await secondUnderLock(t, ['apply', file], '/hedges');
    expect([t.active('sell').map((hedge) => hedge.notionalUsd), t.sends('/hedges').length]).toEqual([[2_000], 1]);
    expect(waited.stderr).toContain('reached the target');
  });

  it('2 parallel `open … --ref DEAL-7` make one hedge; the other is refused with its id', async () => {
    const t = await start({ dialect: 'alpha' });
    const args = 'open USDTNGN buy 1000 --tenor 3 --ref DEAL-7';
    // One in this process, one a process of its own.
    const runs = await Promise.all([t.hedge(args), t.hedge(args, { spawn: true })]);
    const carrying = t.hedges().filter((hedge) => hedge.clientReference === 'DEAL-7');
    expect([carrying.length, t.sends('/hedges').length]).toEqual([1, 1]);
    // The other ran the same open after it ended, the side still holding its hedge: its reference is
    // taken (exit 3, as from any other desk), naming that hedge; nothing sent.
    expect(runs.map((run) => run.code).sort()).toEqual([0, 3]);
    for (const run of runs.filter((candidate) => candidate.code === 3))
      exits(run, 3, carrying[0].id, 'DEAL-7', 'Nothing was sent');
  });
});

it('roll under the book lock: 2 `roll USDTNGN buy --tenor 7`, the second under the lock of the first: one rolls; the other waits, sees the side rolled meanwhile, and exits 11 without rolling the new hedge again', async () => {
  const t = await start({ fillDelayMs: HOUR_MS });
  const seeded = t.seedOpen('buy', 1_000);
  const waited = await secondUnderLock(t, 'roll USDTNGN buy --tenor 7', '/hedges/close');
  const [active] = t.active('buy');
  exits(waited, 11, 'was rolled to 7 days by another hedge process', active.id);
  expect([t.sends('/hedges/close').length, t.sends('/hedges').length]).toEqual([1, 1]);
  expect(t.active('buy')).toEqual([expect.objectContaining({ tenorDays: 7 })]);
  expect(active.id).not.toBe(seeded.id);
});

it('resume reconciles before it resends (the CLI clock pinned to the frozen simulator): an open and an add killed while the server held their answers, resumed 30 simulated hours later (the keys forgotten): the add landed, nothing is sent again; the open, which cannot be told (no id, no reference), is never resent: exit 12 with the resolve command; resolved by hand, it stays sent once', async () => {
  const t = await start({ preset: 'frozen', stepped: true });
  const pinned = {
    hedge: (more: HedgeArgs, options?: RunOptions) => t.hedge(more, { ...options, env: pinnedClockEnv(t) }),
  };
  t.seedOpen('sell', 1_000);
  for (const [args, path] of [
    ['open USDTNGN buy 2000 --tenor 1', '/hedges'],
    ['add USDTNGN sell 100', '/hedges/add'],
  ]) {
    await killWhen(pinned, args.split(' '), holdAnswers(t, path), 'the write held at its body');
  }
  t.sandbox.setFaults({ stall: null, match: null });
  // 30 hours on the server, which forgets keys after 24 h.
  t.advance(30 * HOUR_MS);

  // The add has landed, and its key is forgotten.
  expect(activeNotional(t, 'sell')).toBe(1_100);
  const resumed = exits(
    await pinned.hedge('add USDTNGN sell 100'),
    0,
    '30 h ago by the server clock',
    'the book is read first, and if it is sent again',
    'The book shows it landed',
    'Nothing is sent again; following it to its end.',
    'Sent earlier: add, waiting for it to land',
    'Added 100.00 USD',
  );
  // One story: never "recorded as done, nothing was sent", then "submitted".
  expect(resumed.stderr).not.toMatch(/Recorded as done|nothing was sent|Submitted|acts once/);
  expect([activeNotional(t, 'sell'), adds(t).length]).toEqual([1_100, 1]);
  expect((await journalEntries(pinned))[0]).toMatchObject({ command: 'add', outcome: 'done' });

  const again = await pinned.hedge('open USDTNGN buy 2000 --tenor 1');
  const [entry] = await journalEntries(pinned, '--pending');
  exits(
    again,
    12,
    'The book cannot tell whether it landed',
    `hedge journal resolve ${entry.id} --landed`,
    `hedge journal resolve ${entry.id} --not-landed`,
  );
  expect(t.sends('/hedges')).toHaveLength(1);

  exits(await pinned.hedge(`journal resolve ${entry.id} --landed`), 0, 'recorded as landed');
  expect(okJson(await t.hedge(`journal show ${entry.id} --json`))).toMatchObject({
    outcome: 'done',
    message: 'resolved by hand: landed',
  });
  // One open sent; the server holds its hedge beside the seeded one.
  expect([t.sends('/hedges').length, t.hedges().length]).toEqual([1, 2]);
});

// The kill point is the k-th request the server sees (k drawn at random each round and printed),
// so it falls anywhere from before the journal entry to after the landing — never on a timer.
it('killed at a random moment, then run again two at a time: every add that landed on the server is an exit-0 run or one the killed run finished itself; each once', async () => {
  // Two rounds at once, each on a simulator and config dir of its own.
  const round = async (round: number) => {
    const t = await start();
    t.seedOpen('sell', 1_000);
    // An uninterrupted add makes about 6 requests (markets, account, positions, quote, add, polls).
    const k = 1 + Math.floor(Math.random() * 7);
    let child: ChildProcess | undefined;
    const killed = t.hedge('add USDTNGN sell 100', {
      onSpawn: (spawned) => (child = spawned),
    });
    let finished = false;
    void killed.then(() => (finished = true));
    await until(() => finished || t.sandbox.requestLog.length >= k, `request ${k} of the add (round ${round})`);
    child!.kill('SIGKILL');
    const first = await killed;

    const runs = await sideBySide(t, 'add USDTNGN sell 100', 2);
    const entries = await journalEntries(t);
    const done = entries.filter((entry) => entry.command === 'add' && entry.outcome === 'done');
    const ok = runs.filter((run) => run.code === 0).length + (first.code === 0 ? 1 : 0);
    const context = `round ${round}, killed at request ${k} (${first.signal ?? `exit ${first.code}`}); exits ${runs.map((run) => run.code).join(', ')}`;
    // The killed run may have finished its add before the kill reached it: then its entry is done without an exit 0.
    expect([0, 1], context).toContain(done.length - ok);
    expect(activeNotional(t, 'sell'), context).toBe(1_000 + 100 * done.length);
    expect(keysAnswered(t, '/hedges/add').sort(), context).toEqual(done.map((entry) => entry.idempotency_key).sort());
    for (const run of runs.filter((candidate) => candidate.code !== 0)) saysWhy(run);
    expect(
      entries.filter((entry) => entry.command === 'add' && ['pending', 'submitted', 'unknown'].includes(entry.outcome)),
      context,
    ).toEqual([]);
  };
  await Promise.all([0, 1].map(round));
});
