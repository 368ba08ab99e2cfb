// The wait loop under a fake clock: when it polls (first poll a second after the submit, then every
// 1.5 s, never two polls under a second apart), how --timeout ends it (StillPendingError, exit 7,
// with the resume command) and how Ctrl-C ends it (InterruptedError, exit 130, action stands).
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { HedgeClient } from '../../src/platform/api/client.js';
import type { Hedge, HistoryRecord, Position } from '../../src/platform/api/schemas.js';
import { CommandContext } from '../../src/platform/runtime/context.js';
import {
  findClosedRecord,
  POLL_CADENCE,
  pollUntil,
  waitForHedgeStatus,
  waitForOwnChange,
  waitForSideClosed,
} from '../../src/features/write/wait.js';
import { InterruptedError, StillPendingError, UnresolvedError } from '../../src/core/errors.js';
import { describeError } from '../../src/platform/terminal/exit-codes.js';
const exitCodeFor = (error: unknown): number => describeError(error).exitCode;
import { makeChalk } from '../../src/platform/terminal/color.js';
import { Output } from '../../src/platform/terminal/output.js';

interface FakeClock {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  advance(ms: number): void;
  sleeps: number[];
}

function fakeClock(start = 1_000_000): FakeClock {
  let time = start;
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => time,
    advance(ms) {
      time += ms;
    },
    async sleep(ms, signal) {
      if (signal?.aborted) throw signal.reason;
      sleeps.push(ms);
      time += ms;
      await Promise.resolve();
      if (signal?.aborted) throw signal.reason;
    },
  };
}

function makeContext(options: {
  clock: FakeClock;
  timeoutSeconds?: number;
  client?: Partial<HedgeClient>;
  controller?: AbortController;
}) {
  const io = {
    stdout: new PassThrough(),
    stderr: new PassThrough(),
    stdin: new PassThrough(),
    stdoutIsTTY: false,
    stderrIsTTY: false,
    stdinIsTTY: false,
  };
  let stderrText = '';
  io.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderrText += chunk));
  const controller = options.controller ?? new AbortController();
  const client = options.client;
  class TestContext extends CommandContext {
    override client(): Promise<HedgeClient> {
      if (!client) throw new Error('no client in this test');
      return Promise.resolve(client as HedgeClient);
    }
  }
  const ctx = new TestContext({
    io,
    env: {},
    globals: {
      json: false,
      header: true,
      demo: false,
      yes: false,
      input: true,
      color: false,
      verbose: false,
      timeout: options.timeoutSeconds,
    },
    clock: options.clock,
    signal: controller.signal,
    output: new Output({ mode: 'plain', chalk: makeChalk(false), streams: io, now: options.clock.now }),
  });
  return { ctx, controller, stderr: () => stderrText };
}

function hedge(status: Hedge['status'], notional = 10_000): Hedge {
  return { id: 'hdg_test1', market: 'USDTNGN', side: 'buy', notional_usd: notional, tenor_days: 3, status };
}

describe('pollUntil cadence', () => {
  it('polls first one second after the submit, then every 1.5 s, start to start, whatever a poll takes', async () => {
    const clock = fakeClock();
    const { ctx } = makeContext({ clock });
    const submittedAt = clock.now();
    const pollTimes: number[] = [];
    const result = await pollUntil(ctx, {
      label: 'waiting',
      startedAt: submittedAt,
      poll: async () => {
        pollTimes.push(clock.now());
        clock.advance(230); // the request itself takes time
        return pollTimes.length;
      },
      isDone: (count) => count === 5,
      checkCommand: 'hedge positions',
      timedOut: () => new Error('timed out'),
      interrupted: 'interrupted',
    });
    expect(result).toBe(5);
    expect(pollTimes[0]! - submittedAt).toBe(POLL_CADENCE.firstDelayMs);
    const gaps = pollTimes.slice(1).map((time, index) => time - pollTimes[index]!);
    expect(gaps).toEqual([1500, 1500, 1500, 1500]);
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(1000);
  });

  it('never polls sooner than a second after the submit even when the submit was slow to answer', async () => {
    const clock = fakeClock();
    const { ctx } = makeContext({ clock });
    const submittedAt = clock.now();
    clock.advance(400); // time spent between the submit and the start of the wait
    const pollTimes: number[] = [];
    await pollUntil(ctx, {
      label: 'waiting',
      startedAt: submittedAt,
      poll: async () => {
        pollTimes.push(clock.now());
        return pollTimes.length;
      },
      isDone: (count) => count === 2,
      checkCommand: 'x',
      timedOut: () => new Error('timed out'),
      interrupted: 'interrupted',
    });
    expect(pollTimes[0]! - submittedAt).toBe(1000);
    expect(pollTimes[1]! - pollTimes[0]!).toBe(1500);
  });

  it('a poll slower than the interval is followed by the next one at once, not by a pile-up', async () => {
    const clock = fakeClock();
    const { ctx } = makeContext({ clock });
    const submittedAt = clock.now();
    const pollTimes: number[] = [];
    await pollUntil(ctx, {
      label: 'waiting',
      startedAt: submittedAt,
      poll: async () => {
        pollTimes.push(clock.now());
        clock.advance(2_000);
        return pollTimes.length;
      },
      isDone: (count) => count === 3,
      checkCommand: 'x',
      timedOut: () => new Error('timed out'),
      interrupted: 'interrupted',
    });
    const gaps = pollTimes.slice(1).map((time, index) => time - pollTimes[index]!);
    expect(gaps).toEqual([2000, 2000]);
  });
});

describe('waitForHedgeStatus', () => {
  it('returns the hedge once it is filled, polling GET /hedges/{id} at the cadence', async () => {
    const clock = fakeClock();
    const seen: Array<{ id: string; at: number }> = [];
    const states: Hedge['status'][] = ['submitted', 'submitted', 'filled'];
    const { ctx } = makeContext({
      clock,
      client: {
        getHedge: async (id: string) => {
          seen.push({ id, at: clock.now() });
          return hedge(states[seen.length - 1]!);
        },
      },
    });
    const start = clock.now();
    const result = await waitForHedgeStatus(ctx, 'hdg_test1', { label: 'Submitted', startedAt: start });
    expect(result.status).toBe('filled');
    expect(seen.map((entry) => entry.id)).toEqual(['hdg_test1', 'hdg_test1', 'hdg_test1']);
    expect(seen.map((entry) => entry.at - start)).toEqual([1000, 2500, 4000]);
  });

  it('returns a failed hedge (the caller decides what failed means) and stops polling', async () => {
    const clock = fakeClock();
    let polls = 0;
    const { ctx } = makeContext({ clock, client: { getHedge: async () => (polls++, hedge('failed')) } });
    const result = await waitForHedgeStatus(ctx, 'hdg_test1', { label: 'Submitted' });
    expect(result.status).toBe('failed');
    expect(polls).toBe(1);
  });

  it('returns an initial hedge that is already final without any request', async () => {
    const clock = fakeClock();
    const { ctx } = makeContext({ clock });
    const result = await waitForHedgeStatus(ctx, 'hdg_test1', { label: 'x', initial: hedge('filled') });
    expect(result.status).toBe('filled');
    expect(clock.sleeps).toEqual([]);
  });

  it('on --timeout throws StillPendingError (exit 7) carrying the resume command and the last hedge seen', async () => {
    const clock = fakeClock();
    const pollTimes: number[] = [];
    const { ctx } = makeContext({
      clock,
      timeoutSeconds: 5,
      client: { getHedge: async () => (pollTimes.push(clock.now()), hedge('submitted')) },
    });
    const start = clock.now();
    const error = await waitForHedgeStatus(ctx, 'hdg_test1', { label: 'Submitted', startedAt: start }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(StillPendingError);
    const pending = error as StillPendingError;
    expect(exitCodeFor(pending)).toBe(7);
    expect(pending.resumeCommand).toBe('hedge hedges hdg_test1 --wait');
    expect(pending.hint).toContain('hedge hedges hdg_test1 --wait');
    expect((pending.record as Hedge).status).toBe('submitted');
    // Polls at 1 s, 2.5 s and 4 s; the next (5.5 s) would be past the deadline, so it ends at 5 s.
    expect(pollTimes.map((time) => time - start)).toEqual([1000, 2500, 4000]);
    expect(clock.now() - start).toBe(5000);
  });

  it('on Ctrl-C during the pause throws InterruptedError (exit 130) that says the order stands and how to check it', async () => {
    const clock = fakeClock();
    const controller = new AbortController();
    let polls = 0;
    const { ctx } = makeContext({
      clock,
      controller,
      client: {
        getHedge: async () => {
          polls += 1;
          if (polls === 2) controller.abort(new Error('interrupted'));
          return hedge('submitted');
        },
      },
    });
    const error = await waitForHedgeStatus(ctx, 'hdg_test1', { label: 'Submitted' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InterruptedError);
    expect(exitCodeFor(error)).toBe(130);
    expect((error as InterruptedError).message).toMatch(/order stands/);
    expect((error as InterruptedError).hint).toBe('Check it with: hedge hedges hdg_test1 --wait');
    expect(polls).toBe(2);
  });

  it('on Ctrl-C during a poll (the request aborted) also ends with InterruptedError', async () => {
    const clock = fakeClock();
    const controller = new AbortController();
    const { ctx } = makeContext({
      clock,
      controller,
      client: {
        getHedge: async () => {
          controller.abort(new Error('interrupted'));
          throw new InterruptedError('Interrupted during GET /hedges/hdg_test1.');
        },
      },
    });
    const error = await waitForHedgeStatus(ctx, 'hdg_test1', { label: 'Submitted' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InterruptedError);
    expect((error as InterruptedError).hint).toContain('hedge hedges hdg_test1 --wait');
  });

  it('prints one progress line on stderr when stderr is not a terminal', async () => {
    const clock = fakeClock();
    const { ctx, stderr } = makeContext({ clock, client: { getHedge: async () => hedge('filled') } });
    await waitForHedgeStatus(ctx, 'hdg_test1', { label: 'Submitted hdg_test1, waiting for the fill' });
    await new Promise((resolve) => setImmediate(resolve));
    expect(stderr()).toBe('Submitted hdg_test1, waiting for the fill…\n');
  });
});

describe('waitForOwnChange and waitForSideClosed', () => {
  // The spec confirms a change by the positions list, whatever the hedge's own status says.
  it("an add is landed when the side shows the baseline plus this add — not on another's move", async () => {
    const clock = fakeClock();
    // Another actor's +100 shows first (not this add's landing); then this add's +5,000.
    const notionals = [10_000, 10_100, 10_100, 15_100];
    let polls = 0;
    const position = (notional: number) =>
      ({ market: 'USDTNGN', side: 'buy', net_margin_usd: 1000, notional_usd: notional }) as Position;
    const { ctx } = makeContext({
      clock,
      client: { listPositions: async () => [position(notionals[Math.min(polls++, notionals.length - 1)]!)] },
    });
    const outcome = await waitForOwnChange(ctx, {
      label: 'add',
      startedAt: clock.now(),
      market: 'USDTNGN',
      side: 'buy',
      baselineNotionalUsd: 10_100,
      changeUsd: 5_000,
      action: 'add',
    });
    expect(polls).toBe(4);
    expect(outcome).toMatchObject({ notionalUsd: 15_100, closed: false });
  });

  it('a side moved to a value that is neither before nor after this change: exit 12 at the bound, never landed', async () => {
    const clock = fakeClock();
    const position = { market: 'USDTNGN', side: 'buy', net_margin_usd: 1000, notional_usd: 10_037 } as Position;
    const { ctx } = makeContext({ clock, timeoutSeconds: 5, client: { listPositions: async () => [position] } });
    const error = await waitForOwnChange(ctx, {
      label: 'add',
      startedAt: clock.now(),
      market: 'USDTNGN',
      side: 'buy',
      baselineNotionalUsd: 10_000,
      changeUsd: 100,
      action: 'add',
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnresolvedError);
    expect((error as UnresolvedError).message).toContain(
      'neither 10,000.00 USD (before it) nor 10,100.00 USD (with it)',
    );
  });

  it('a whole reduce is visible when the side leaves the positions list, though its hedge still says filled', async () => {
    const clock = fakeClock();
    let hedgeReads = 0;
    const { ctx } = makeContext({
      clock,
      client: {
        listPositions: async () => [],
        getHedge: async () => {
          hedgeReads += 1;
          return hedge('filled', 10_000);
        },
      },
    });
    const outcome = await waitForOwnChange(ctx, {
      label: 'reduce',
      startedAt: clock.now(),
      market: 'USDTNGN',
      side: 'buy',
      baselineNotionalUsd: 10_000,
      changeUsd: 10_000,
      action: 'reduce',
    });
    expect(outcome.closed).toBe(true);
    expect(hedgeReads).toBe(0);
  });

  it('without a hedge id, watches the side in GET /positions; time-out names `hedge positions`', async () => {
    const clock = fakeClock();
    const position = { market: 'USDTNGN', side: 'buy', net_margin_usd: 1000, notional_usd: 10_000 } as Position;
    const { ctx } = makeContext({ clock, timeoutSeconds: 3, client: { listPositions: async () => [position] } });
    const error = await waitForOwnChange(ctx, {
      label: 'reduce',
      startedAt: clock.now(),
      market: 'USDTNGN',
      side: 'buy',
      baselineNotionalUsd: 10_000,
      changeUsd: 2_000,
      action: 'reduce',
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StillPendingError);
    expect((error as StillPendingError).resumeCommand).toBe('hedge positions');
  });

  it('a close is confirmed when the side leaves the positions list (the other side stays)', async () => {
    const clock = fakeClock();
    const buy = { market: 'USDTNGN', side: 'buy', net_margin_usd: 1 } as Position;
    const sell = { market: 'USDTNGN', side: 'sell', net_margin_usd: 1 } as Position;
    const answers = [[buy, sell], [buy, sell], [sell]];
    let polls = 0;
    const { ctx } = makeContext({ clock, client: { listPositions: async () => answers[polls++]! } });
    await waitForSideClosed(ctx, { label: 'close', startedAt: clock.now(), market: 'USDTNGN', side: 'buy' });
    expect(polls).toBe(3);
  });
});

describe('findClosedRecord', () => {
  it('looks a few times at the cadence and gives up quietly when the record is slow', async () => {
    const clock = fakeClock();
    let calls = 0;
    const { ctx } = makeContext({ clock, client: { listHistory: async () => (calls++, [] as HistoryRecord[]) } });
    const start = clock.now();
    expect(await findClosedRecord(ctx, 'hdg_test1')).toBeUndefined();
    expect(calls).toBe(3);
    expect(clock.now() - start).toBe(3000);
  });

  it('returns the record as soon as it appears, and never throws on a failing request', async () => {
    const clock = fakeClock();
    const record = { hedge_id: 'hdg_test1', net_pnl_usd: -3.5 } as HistoryRecord;
    let calls = 0;
    const { ctx } = makeContext({ clock, client: { listHistory: async () => (++calls === 2 ? [record] : []) } });
    expect(await findClosedRecord(ctx, 'hdg_test1')).toEqual(record);
    const failing = makeContext({
      clock,
      client: {
        listHistory: async () => {
          throw new Error('boom');
        },
      },
    });
    expect(await findClosedRecord(failing.ctx, 'hdg_test1')).toBeUndefined();
  });
});
