// The keeper's cycles and loop on a fake clock with a fake book and fake steps: rows on their own (a
// step that never ends holds only its row), back-offs timed on the injected clock, and the loop's
// spacing — no server, no real waits. What each cycle decides is keeper-decide.test.ts's.
import { runCycles } from '../../src/features/keeper/keep.js';
import { keeperCycles, keeperMemory, type KeeperClock } from '../../src/features/keeper/keep.js';
import { reconcileSide } from '../../src/features/book/book.js';

const START = Date.parse('2026-03-02T09:00:00Z');

function fakeClock(): KeeperClock & { advance(ms: number): void } {
  let now = START;
  return {
    now: () => now,
    advance(ms) {
      now += ms;
    },
    // Time passes only when nothing else is left to run first, and not at all once woken.
    async sleep(ms, wake) {
      await new Promise((resolve) => setImmediate(resolve));
      if (wake.aborted) return;
      now += ms;
    },
  };
}

/** The book every cycle reads, in the rows' order: the sell side flat, the buy side covered by one filled hedge of 1,000 due to roll. */
const maturityAtMs = START + 1_800_000;
const SIDES = [
  { book: reconcileSide([], undefined, START) },
  {
    book: reconcileSide(
      [{ id: 'hdg_1000', status: 'filled', notionalUsd: 1000, maturityAtMs }],
      { notionalUsd: 1000, hedgeId: 'hdg_1000' },
      START,
    ),
  },
];

/** The keeper's cycles over SIDES, read on a server clock `serverAheadMs` ahead of ours; the buy row rolled `rollBeforeMs`
 * before its maturity (default: an hour, so due at once). */
function harness(
  dryRun = false,
  serverAheadMs = 0,
  { intervalMs = 60_000, rollBeforeMs = undefined as number | undefined } = {},
) {
  const rules = { dryRun, converge: false, intervalMs, toleranceUsd: 0 };
  let woken = 0;
  const clock = fakeClock();
  const errors: Array<Record<string, unknown>> = [];
  const acted: Array<{ row: string; kind: string }> = [];
  const behaviour = new Map<string, () => Promise<void>>();
  const scheduler = keeperCycles(
    rules,
    clock,
    {
      memory: keeperMemory({
        event: () => undefined,
        noteError: (error, fields) => errors.push({ message: (error as Error).message, ...fields }),
      }),
      observe: async () => {
        const nowMs = clock.now();
        const serverMs = nowMs + serverAheadMs;
        return {
          sides: SIDES,
          time: { localMs: nowMs, earliestMs: serverMs, latestMs: serverMs, bestMs: serverMs, assumed: false },
          clock: { from: ['date'] },
        };
      },
      async carry(step) {
        acted.push({ row: step.key, kind: step.kind });
        await (behaviour.get(step.key) ?? (async () => {}))();
      },
    },
    () => (woken += 1),
  );
  // Each cycle waits for its steps at most until the next cycle is due.
  const cycle = () =>
    scheduler.cycle(
      [
        { market: 'USDTNGN', side: 'sell', notionalUsd: 2000, tenorDays: 1 },
        { market: 'USDTNGN', side: 'buy', notionalUsd: 1000, tenorDays: 3, rollBeforeMs },
      ],
      new Map(),
      () => false,
      clock.now(),
    );
  return { clock, errors, acted, behaviour, scheduler, cycle, woken: () => woken };
}

/** A step the server refuses. */
const capacity = async () => {
  throw new Error('capacity');
};

it('keeperCycles: steps that end are waited for: the cycle reports them done, and sleeps no longer', async () => {
  const { cycle, clock } = harness();
  expect((await cycle()).rows.map((row) => row.state)).toEqual(['reopen done', 'roll done']);
  expect(clock.now()).toBe(START);
});

it("keeperCycles: a failed step backs off on the injected clock, for its row only; on a server clock 45 s ahead of ours, its retry_at and its row's next_action_at are the server's time", async () => {
  const { acted, behaviour, cycle, clock, errors, scheduler } = harness(false, 45_000);
  behaviour.set('USDTNGN sell', capacity);
  await cycle();
  await scheduler.settle();
  const retryAt = new Date(START + 45_000 + 60_000).toISOString();
  expect(errors).toEqual([
    expect.objectContaining({ message: 'capacity', side: 'sell', action: 'reopen', failures: 1, retry_at: retryAt }),
  ]);
  clock.advance(30_000);
  expect((await cycle()).rows[0]).toMatchObject({
    state: 'backing off after 1 failure',
    next_action: 'reopen',
    next_action_at: retryAt,
  });
  const steps = (row: string) => acted.filter((step) => step.row === row).length;
  expect([steps('USDTNGN sell'), steps('USDTNGN buy')]).toEqual([1, 2]);
  clock.advance(30_000);
  await cycle();
  await scheduler.settle();
  expect(steps('USDTNGN sell')).toBe(2);
});

it("keeperCycles: the next cycle comes when a row's roll falls due if that is sooner than the interval (on our clock, the server's 45 s ahead), or as soon as cycles may once a step ended; a step ending while the loop sleeps wakes it", async () => {
  // An hour's interval; the buy hedge matures 30 min on, rolled 20 min before: due 10 min on by the server's clock.
  const setting = { intervalMs: 3_600_000, rollBeforeMs: 20 * 60_000 };
  const late = harness(false, 45_000, setting);
  let finish!: () => void;
  late.behaviour.set('USDTNGN sell', () => new Promise<void>((resolve) => (finish = resolve)));
  const first = await late.cycle();
  expect([first.rows[1].next_action_at, first.nextCycleAt - START]).toEqual([
    new Date(START + 10 * 60_000).toISOString(),
    10 * 60_000 - 45_000,
  ]);
  // The sell side's re-open still in flight after the cycle: its end wakes the loop.
  expect([late.scheduler.busySides(), late.woken()]).toEqual([new Set(['USDTNGN sell']), 0]);
  finish();
  await late.scheduler.settle();
  expect(late.woken()).toBe(1);
  // A step that ends within its cycle: its side is read again 2 s after the cycle began, the spacing cycles keep.
  const quick = harness(false, 0, setting);
  expect((await quick.cycle()).nextCycleAt - START).toBe(2_000);
});

it('keeperCycles: a dry run waits for its (read-only) steps, so the cycle reports them', async () => {
  const { acted, behaviour, cycle } = harness(true);
  let finished = 0;
  behaviour.set('USDTNGN sell', async () => {
    await Promise.resolve();
    finished += 1;
  });
  await cycle();
  expect(finished).toBe(1);
  expect(acted.map((step) => step.kind)).toEqual(['reopen', 'roll']);
});

/** runCycles on the fake clock until cycle `stopAt` (each cycle's own work taking `workMs`, and naming its next `nextIn`
 * after its start; with `wakeEarly` a SIGHUP cuts the first sleep short after 500 ms): when each cycle started, and each
 * sleep asked for. */
async function looped({
  once = false,
  stopAt = 0,
  workMs = 0,
  wakeEarly = false,
  nextIn = undefined as number | undefined,
}) {
  const clock = fakeClock();
  let stopping = false;
  const starts: number[] = [];
  const sleeps: number[] = [];
  await runCycles(
    { once, intervalMs: 60_000, clock },
    {
      get stopping() {
        return stopping;
      },
      async sleep(ms) {
        // A stop wakes the sleep at once (as the keeper's signals do).
        if (stopping) return;
        sleeps.push(ms);
        if (wakeEarly && sleeps.length === 1) clock.advance(500);
        else await clock.sleep(ms, new AbortController().signal);
      },
    },
    async (number, startedAt) => {
      starts.push(startedAt - START);
      clock.advance(workMs);
      if (number === stopAt) stopping = true;
      return nextIn === undefined ? undefined : startedAt + nextIn;
    },
  );
  return { starts, sleeps };
}

it.each([
  [
    'runs a cycle every interval on the injected clock, and stops when told',
    { stopAt: 3, workMs: 5_000 },
    [0, 60_000, 120_000],
    [55_000, 55_000],
  ],
  [
    'a wake-up before the minimum spacing sleeps again only until it: the next cycle 2 s after the last, not an interval later',
    { stopAt: 2, wakeEarly: true },
    [0, 2_000],
    [60_000, 1_500],
  ],
  [
    'a cycle that names its next (a roll due, a step ended) sleeps until then, not the interval',
    { stopAt: 3, workMs: 1_000, nextIn: 10_000 },
    [0, 10_000, 20_000],
    [9_000, 9_000],
  ],
  ['--once runs one cycle and never sleeps', { once: true }, [0], []],
])('runCycles: %s', async (_name, options, starts, sleeps) => {
  expect(await looped(options)).toEqual({ starts, sleeps });
});
