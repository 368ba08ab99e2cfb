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

function fakeClock(): KeeperClock & { advance(ms: number): void; slept: number[] } {
  let now = START;
  const slept: number[] = [];
  return {
    now: () => now,
    slept,
    advance(ms) {
      now += ms;
    },
    // Time passes only when nothing else is left to run first, and not at all once woken.
    async sleep(ms, wake) {
      await new Promise((resolve) => setImmediate(resolve));
      if (wake.aborted) return;
      slept.push(ms);
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

/** The book as a read at `nowMs` shows `sides`, on a server clock that agrees with ours. */
const observed = (sides: Record<string, SideObservation>, nowMs: number) => ({
  sides: new Map(Object.entries(sides)),
  time: { localMs: nowMs, earliestMs: nowMs, latestMs: nowMs, bestMs: nowMs, assumed: false },
  clock: { from: ['date' as const] },
  closedByRoll: new Map<string, boolean>(),
});

function harness(
  views: Record<string, SideObservation>,
  rules = { dryRun: false, converge: false, intervalMs: 60_000, toleranceUsd: 0 },
) {
  const clock = fakeClock();
  const events: EventFields[] = [];
  const errors: Array<Record<string, unknown>> = [];
  const acted: Array<{ row: string; kind: string }> = [];
  const behaviour = new Map<string, () => Promise<void>>();
  const io: KeeperIo = {
    observe: async () => observed(views, clock.now()),
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
  const cycle = (rows = [SELL, BUY], unresolved = new Map<string, string>()) =>
    scheduler.cycle(rows, {
      unresolved,
      isStopping: () => false,
      stepsDueBy: clock.now() + rules.intervalMs,
    });
  return { clock, events, errors, acted, behaviour, scheduler, cycle };
}

const due = (notionalUsd: number) => covered(notionalUsd, `hdg_${notionalUsd}`, START + HOUR / 2);

describe('keeperCycles', () => {
  it('a covered side held for an unresolved action shows when its roll is due, and nothing is started on it', async () => {
    const maturity = START + 24 * HOUR;
    const { cycle, acted } = harness({ 'USDTNGN sell': covered(2000, 'hdg_s', maturity) });
    const held = await cycle([SELL], new Map([['USDTNGN sell', "a colleague's add is in flight"]]));
    expect(held.rows[0]).toMatchObject({
      state: "a colleague's add is in flight",
      current_usd: 2000,
      next_action: 'roll',
    });
    expect(Date.parse(held.rows[0].next_action_at!)).toBeLessThan(maturity);
    expect(acted).toEqual([]);
  });

  it('steps that end are waited for: the cycle reports them done, and sleeps no longer', async () => {
    const { cycle, clock } = harness({ 'USDTNGN sell': flat, 'USDTNGN buy': due(1000) });
    const reported = await cycle();
    expect(reported.rows.map((row) => row.state)).toEqual(['reopen done', 'roll done']);
    expect(clock.now()).toBe(START);
  });

  it('a failed step backs off on the injected clock, for its row only', async () => {
    const { acted, behaviour, cycle, clock, errors, scheduler } = harness({
      'USDTNGN sell': flat,
      'USDTNGN buy': due(1000),
    });
    behaviour.set('USDTNGN sell', async () => {
      throw new Error('capacity');
    });
    await cycle();
    await scheduler.settle();
    expect(errors).toEqual([
      expect.objectContaining({
        message: 'capacity',
        side: 'sell',
        action: 'reopen',
        failures: 1,
        retry_at: new Date(START + 60_000).toISOString(),
      }),
    ]);
    clock.advance(30_000);
    const waiting = await cycle();
    expect(waiting.rows[0]).toMatchObject({
      state: 'backing off after 1 failure',
      next_action: 'reopen',
      next_action_at: new Date(START + 60_000).toISOString(),
    });
    expect(acted.filter((step) => step.row === 'USDTNGN sell')).toHaveLength(1);
    expect(acted.filter((step) => step.row === 'USDTNGN buy')).toHaveLength(2);
    clock.advance(30_000);
    await cycle();
    await scheduler.settle();
    expect(acted.filter((step) => step.row === 'USDTNGN sell')).toHaveLength(2);
    // Twice in a row: the wait doubles.
    expect(errors[1]).toMatchObject({ failures: 2, retry_at: new Date(START + 60_000 + 120_000).toISOString() });
    // A flat side is bare while it waits: its re-open backs off at most 5 min, never the hour a roll may.
    for (let failure = 3; failure <= 5; failure++) {
      clock.advance(Date.parse(String(errors.at(-1)!.retry_at)) - clock.now());
      await cycle();
      await scheduler.settle();
    }
    expect(errors.at(-1)).toMatchObject({ failures: 5, retry_at: new Date(clock.now() + 5 * 60_000).toISOString() });
  });

  it('a dry run waits for its (read-only) steps, so the cycle reports them', async () => {
    const { acted, behaviour, cycle } = harness(
      { 'USDTNGN sell': flat, 'USDTNGN buy': due(1000) },
      { dryRun: true, converge: false, intervalMs: 60_000, toleranceUsd: 0 },
    );
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
  it('a side that cannot be told (settling, or the book unread) is marked so; a flat or covered side is not', () => {
    // current_usd is null for all three first ones: the alert rules tell a settling side from a flat one by the mark.
    expect(rowStatus(BUY, { settling: { why: 'a fill not in the positions list yet' } }, 'settling')).toMatchObject({
      current_usd: null,
      current_unknown: true,
    });
    expect(rowStatus(BUY, undefined, 'unknown (the book could not be read)')).toMatchObject({
      current_usd: null,
      current_unknown: true,
    });
    expect(rowStatus(BUY, {}, 'flat: re-open')).not.toHaveProperty('current_unknown');
    expect(
      rowStatus(BUY, { position: { notionalUsd: 1000, hedgeId: 'hdg_1', maturityAtMs: START + HOUR } }, 'covered'),
    ).not.toHaveProperty('current_unknown');
  });
});

describe('runCycles', () => {
  it('runs a cycle every interval on the injected clock, and stops when told', async () => {
    const clock = fakeClock();
    let stopping = false;
    const starts: number[] = [];
    await runCycles(
      { once: false, intervalMs: 60_000, minIntervalMs: 2_000, clock },
      {
        get stopping() {
          return stopping;
        },
        sleep: (ms) => (stopping ? Promise.resolve() : clock.sleep(ms, new AbortController().signal)),
      },
      async (number, startedAt) => {
        starts.push(startedAt - START);
        clock.advance(5_000); // the cycle's own work takes 5 s
        if (number === 3) stopping = true;
      },
    );
    expect(starts).toEqual([0, 60_000, 120_000]);
    // A stop wakes the sleep at once (as the keeper's signals do).
    expect(clock.slept).toEqual([55_000, 55_000]);
  });

  it('a wake-up before the minimum spacing sleeps again: cycles stay at least 2 s apart', async () => {
    const clock = fakeClock();
    let stopping = false;
    const sleeps: number[] = [];
    let woken = false;
    await runCycles(
      { once: false, intervalMs: 60_000, minIntervalMs: 2_000, clock },
      {
        get stopping() {
          return stopping;
        },
        async sleep(ms) {
          if (stopping) return;
          sleeps.push(ms);
          // The first sleep is cut short by a SIGHUP after 500 ms.
          if (!woken) {
            woken = true;
            clock.advance(500);
            return;
          }
          clock.advance(ms);
        },
      },
      async (number) => {
        if (number === 2) stopping = true;
      },
    );
    expect(sleeps).toEqual([60_000, 59_500]);
  });

  it('--once runs one cycle and never sleeps', async () => {
    const clock = fakeClock();
    let cycles = 0;
    await runCycles(
      { once: true, intervalMs: 60_000, minIntervalMs: 2_000, clock },
      { stopping: false, sleep: (ms) => clock.sleep(ms, new AbortController().signal) },
      async () => {
        cycles += 1;
      },
    );
    expect(cycles).toBe(1);
    expect(clock.slept).toEqual([]);
  });
});
