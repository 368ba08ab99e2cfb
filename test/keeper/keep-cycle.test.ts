// The keeper's cycles and loop on a fake clock with a fake book and fake steps: rows on their own (a
// step that never ends holds only its row), back-offs timed on the injected clock, and the loop's
// spacing — no server, no real waits. What each cycle decides is keeper-decide.test.ts's.
import { describe, expect, it } from 'vitest';
import type { EventFields, KeepRow } from '../../src/core/keep-rules.js';
import { runCycles } from '../../src/features/keeper/keep.js';
import { rowStatus, type SideObservation } from '../../src/features/keeper/keeper-decide.js';
import { keeperCycles, type KeeperClock, type KeeperIo } from '../../src/features/keeper/keeper-steps.js';
import { reconcileSide } from '../../src/features/book/book.js';

const HOUR = 3_600_000;
const START = Date.parse('2026-03-02T09:00:00Z');
const SELL: KeepRow = { market: 'USDTNGN', side: 'sell', notionalUsd: 2000, tenorDays: 1 };
const BUY: KeepRow = { market: 'USDTNGN', side: 'buy', notionalUsd: 1000, tenorDays: 3 };

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

/** A side whose views agree: flat, or covered by one filled hedge. */
const flat = { book: reconcileSide([], undefined, START), opened: [] };
const covered = (notionalUsd: number, hedgeId: string, maturityAtMs: number) => ({
  book: reconcileSide(
    [{ id: hedgeId, status: 'filled', notionalUsd, maturityAtMs }],
    { notionalUsd, hedgeId, maturityAtMs },
    START,
  ),
  opened: [],
});

/** The book as a read at `nowMs` shows `sides`, on a server clock `aheadMs` ahead of ours. */
const observed = (sides: Record<string, SideObservation>, nowMs: number, aheadMs = 0) => ({
  sides: new Map(Object.entries(sides)),
  time: {
    localMs: nowMs,
    earliestMs: nowMs + aheadMs,
    latestMs: nowMs + aheadMs,
    bestMs: nowMs + aheadMs,
    assumed: false,
  },
  clock: { from: ['date' as const] },
  closedByRoll: new Map<string, boolean>(),
});

function harness(views: Record<string, SideObservation>, settings: { dryRun?: boolean } = {}, serverAheadMs = 0) {
  const rules = { dryRun: false, converge: false, intervalMs: 60_000, toleranceUsd: 0, ...settings };
  const clock = fakeClock();
  const events: EventFields[] = [];
  const errors: Array<Record<string, unknown>> = [];
  const acted: Array<{ row: string; kind: string }> = [];
  const behaviour = new Map<string, () => Promise<void>>();
  const io: KeeperIo = {
    observe: async () => observed(views, clock.now(), serverAheadMs),
    async carry(step) {
      acted.push({ row: step.key, kind: step.kind });
      await (behaviour.get(step.key) ?? (async () => {}))();
    },
  };
  const scheduler = keeperCycles({
    settings: rules,
    clock,
    say: {
      event: (fields) => void events.push(fields),
      noteError: (error, fields) => errors.push({ message: (error as Error).message, ...fields }),
    },
    io,
  });
  // Each cycle waits for its steps at most until the next cycle is due.
  const cycle = (rows = [SELL, BUY]) =>
    scheduler.cycle(rows, {
      unresolved: new Map(),
      isStopping: () => false,
      stepsDueBy: clock.now() + rules.intervalMs,
    });
  return { clock, events, errors, acted, behaviour, scheduler, cycle };
}

const due = (notionalUsd: number) => covered(notionalUsd, `hdg_${notionalUsd}`, START + HOUR / 2);
/** A step the server refuses. */
const capacity = async () => {
  throw new Error('capacity');
};

describe('keeperCycles', () => {
  it('steps that end are waited for: the cycle reports them done, and sleeps no longer', async () => {
    const { cycle, clock } = harness({ 'USDTNGN sell': flat, 'USDTNGN buy': due(1000) });
    expect((await cycle()).rows.map((row) => row.state)).toEqual(['reopen done', 'roll done']);
    expect(clock.now()).toBe(START);
  });

  it('a failed step backs off on the injected clock, for its row only', async () => {
    const { acted, behaviour, cycle, clock, errors, scheduler } = harness({
      'USDTNGN sell': flat,
      'USDTNGN buy': due(1000),
    });
    behaviour.set('USDTNGN sell', capacity);
    await cycle();
    await scheduler.settle();
    const retryAt = new Date(START + 60_000).toISOString();
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

  it("on a server clock 45 s ahead of ours, a failed step's retry_at and its row's next_action_at are the server's time", async () => {
    const { behaviour, cycle, clock, errors, scheduler } = harness({ 'USDTNGN sell': flat }, {}, 45_000);
    behaviour.set('USDTNGN sell', capacity);
    await cycle([SELL]);
    await scheduler.settle();
    const retryAt = new Date(START + 45_000 + 60_000).toISOString();
    expect(errors).toEqual([expect.objectContaining({ failures: 1, retry_at: retryAt })]);
    clock.advance(30_000);
    expect((await cycle([SELL])).rows[0]).toMatchObject({
      state: 'backing off after 1 failure',
      next_action_at: retryAt,
    });
  });

  it('a dry run waits for its (read-only) steps, so the cycle reports them', async () => {
    const { acted, behaviour, cycle } = harness({ 'USDTNGN sell': flat, 'USDTNGN buy': due(1000) }, { dryRun: true });
    let finished = 0;
    behaviour.set('USDTNGN sell', async () => {
      await Promise.resolve();
      finished += 1;
    });
    await cycle();
    expect(finished).toBe(1);
    expect(acted.map((step) => step.kind)).toEqual(['reopen', 'roll']);
  });
});

describe('rowStatus', () => {
  it('a side that can be told (flat, or covered) is not marked unknown', () => {
    for (const view of [{}, { position: { notionalUsd: 1000, hedgeId: 'hdg_1', maturityAtMs: START + HOUR } }])
      expect(rowStatus(BUY, view, 'covered')).not.toHaveProperty('current_unknown');
  });
});

/** runCycles on the fake clock until cycle `stopAt` (each cycle's own work taking `workMs`; with `wakeEarly` a SIGHUP cuts the first sleep short after 500 ms): when each cycle started, and each sleep asked for. */
async function looped({ once = false, stopAt = 0, workMs = 0, wakeEarly = false }) {
  const clock = fakeClock();
  let stopping = false;
  const starts: number[] = [];
  const sleeps: number[] = [];
  await runCycles(
    { once, intervalMs: 60_000, minIntervalMs: 2_000, clock },
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
    },
  );
  return { starts, sleeps };
}

describe('runCycles', () => {
  it('runs a cycle every interval on the injected clock, and stops when told', async () => {
    expect(await looped({ stopAt: 3, workMs: 5_000 })).toEqual({
      starts: [0, 60_000, 120_000],
      sleeps: [55_000, 55_000],
    });
  });

  it('a wake-up before the minimum spacing sleeps again only until it: the next cycle 2 s after the last, not an interval later', async () => {
    expect(await looped({ stopAt: 2, wakeEarly: true })).toEqual({ starts: [0, 2_000], sleeps: [60_000, 1_500] });
  });

  it('--once runs one cycle and never sleeps', async () => {
    expect(await looped({ once: true })).toEqual({ starts: [0], sleeps: [] });
  });
});
