// The wait loop under a fake clock: when it polls (first poll a second after the submit, then every
// 1.5 s, never two polls under a second apart), how --timeout ends it (StillPendingError, exit 7,
// with the resume command) and how Ctrl-C ends it (InterruptedError, exit 130, action stands).
import type { HedgeClient, SideRequest } from '../../src/platform/api/client.js';
import type { Hedge, HistoryRecord, Position } from '../../src/platform/api/schemas.js';
import { findClosedRecord, pollUntil, waitForHedgeStatus } from '../../src/features/write/wait.js';
import { tradeAction, tradeRecord } from '../../src/features/trade/trade-actions.js';
import type { SubmittedAction } from '../../src/platform/api/schemas.js';
import {
  ApiError,
  InterruptedError,
  InvalidResponseError,
  StillPendingError,
  UnresolvedError,
} from '../../src/core/errors.js';
import { describeError } from '../../src/platform/terminal/exit-codes.js';
import { fakeClock, testContext } from '../support/client.js';

function hedge(status: Hedge['status']): Hedge {
  return { id: 'hdg_test1', market: 'USDTNGN', side: 'buy', notional_usd: 10_000, tenor_days: 3, status };
}

/** The times of pollUntil's polls after the submit: `before` ms pass before the wait starts, each poll takes `takes` ms. */
async function pollTimes(polls: number, { before = 0, takes = 0 } = {}) {
  const clock = fakeClock();
  const { ctx } = testContext({ clock, fakeClient: {} });
  const submittedAt = clock.now();
  clock.advance(before);
  const times: number[] = [];
  const result = await pollUntil(ctx, {
    label: 'waiting',
    startedAt: submittedAt,
    poll: async () => {
      times.push(clock.now() - submittedAt);
      clock.advance(takes);
      return times.length;
    },
    isDone: (count) => count === polls,
    checkCommand: 'hedge positions',
    timedOut: () => new Error('timed out'),
    interrupted: 'interrupted',
  });
  expect(result).toBe(polls);
  return times;
}

it.each([
  // Each request itself takes 230 ms.
  [
    'polls first one second after the submit, then every 1.5 s, start to start, whatever a poll takes',
    5,
    { takes: 230 },
    [1000, 2500, 4000, 5500, 7000],
  ],
  [
    'never polls sooner than a second after the submit even when the submit was slow to answer',
    2,
    { before: 400 },
    [1000, 2500],
  ],
  [
    'a poll slower than the interval is followed by the next one at once, not by a pile-up',
    3,
    { takes: 2_000 },
    [1000, 3000, 5000],
  ],
])('pollUntil cadence: %s', async (_name, polls, timing, times) => {
  expect(await pollTimes(polls, timing)).toEqual(times);
});

/** A read of the hedge answered 404: the server's reads trail its answer to the open. */
const HIDDEN = 404;

/** waitForHedgeStatus on a hedge whose status follows `statuses` (the last repeats; HIDDEN: a 404); `onRead` runs at each read. */
async function waitOnHedge(
  statuses: Array<Hedge['status'] | typeof HIDDEN>,
  {
    timeoutSeconds,
    label = 'Submitted',
    onRead,
  }: { timeoutSeconds?: number; label?: string; onRead?: (c: AbortController) => void } = {},
) {
  const clock = fakeClock();
  const controller = new AbortController();
  const start = clock.now();
  const reads: number[] = [];
  const getHedge = async (id: string) => {
    expect(id).toBe('hdg_test1');
    reads.push(clock.now() - start);
    onRead?.(controller);
    const status = statuses[Math.min(reads.length, statuses.length) - 1];
    if (status === HIDDEN)
      throw new ApiError({
        status,
        code: 'hedge_not_found',
        message: 'not one of yours',
        endpoint: 'GET /hedges/{id}',
      });
    return hedge(status);
  };
  const { ctx, stderr } = testContext({
    clock,
    controller,
    fakeClient: { getHedge },
    globals: { timeout: timeoutSeconds },
  });
  const outcome: any = await waitForHedgeStatus(ctx, 'hdg_test1', { label, startedAt: start }).catch((e: unknown) => e);
  return { outcome, reads, elapsed: clock.now() - start, stderr };
}

describe('waitForHedgeStatus', () => {
  it('returns the hedge once it is filled, polling GET /hedges/{id} at the cadence, with one progress line on a stderr that is not a terminal; a poll whose answer cannot be read ends the wait with that error whole (what was unreadable), the action said to stand; on Ctrl-C during a poll (the request aborted) also ends with InterruptedError', async () => {
    const label = 'Submitted hdg_test1, waiting for the fill';
    const { outcome, reads, stderr } = await waitOnHedge(['submitted', 'submitted', 'filled'], { label });
    expect([outcome.status, reads]).toEqual(['filled', [1000, 2500, 4000]]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(stderr()).toBe(`${label}…\n`);

    const details = { endpoint: 'GET /hedges/{id}', field: 'status', received: 'maybe' };
    const { outcome: failed } = await waitOnHedge(['submitted'], {
      onRead: () => {
        throw new InvalidResponseError('GET /hedges/hdg_test1 answered a status hedge cannot read.', {
          ...details,
          status: 200,
        });
      },
    });
    expect(failed).toBeInstanceOf(InvalidResponseError);
    expect(failed.facts().details).toEqual(details);
    expect(failed.hint).toBe(
      'The action was submitted and stands; only the wait failed. Check it with: hedge hedges hdg_test1 --wait',
    );

    const { outcome: stopped } = await waitOnHedge(['submitted'], {
      onRead: (c) => {
        c.abort(new Error('interrupted'));
        throw new InterruptedError('Interrupted during GET /hedges/hdg_test1.');
      },
    });
    expect(stopped).toBeInstanceOf(InterruptedError);
    expect(stopped.hint).toContain('hedge hedges hdg_test1 --wait');
  });

  it.each([
    [
      'on --timeout throws StillPendingError (exit 7) carrying the resume command and the last hedge seen',
      'submitted',
      {
        resumeCommand: 'hedge hedges hdg_test1 --wait',
        record: { status: 'submitted' },
        hint: expect.stringContaining('hedge hedges hdg_test1 --wait'),
      },
    ],
    [
      'a hedge still hidden at --timeout: StillPendingError (exit 7) saying it is not visible yet, never "not found"',
      HIDDEN,
      { message: expect.stringContaining("Hedge hdg_test1, named by the server's answer, is not visible") },
    ],
  ] as const)('%s', async (_name, status, said) => {
    const { outcome, reads, elapsed } = await waitOnHedge([status], { timeoutSeconds: 5 });
    expect(outcome).toBeInstanceOf(StillPendingError);
    expect(describeError(outcome).exitCode).toBe(7);
    expect(outcome).toMatchObject(said);
    // Polls at 1 s, 2.5 s and 4 s; the next (5.5 s) would be past the deadline, so it ends at 5 s.
    expect([reads, elapsed]).toEqual([[1000, 2500, 4000], 5000]);
  });
});

const position = (notional?: number, side = 'buy') =>
  ({ market: 'USDTNGN', side, net_margin_usd: 1000, notional_usd: notional }) as Position;

const SUBMITTED = { status: 'submitted' } as SubmittedAction;

/** A client whose views (the positions list, the hedge records) show the buy side at each notional in turn, one per
 * read of the positions list (undefined: flat), on a server clock at 0. */
function sideShowing(notionals: Array<number | undefined>) {
  let reads = 0;
  const now = () => notionals[Math.min(Math.max(reads - 1, 0), notionals.length - 1)];
  const records = () => {
    const usd = now();
    return usd === undefined ? [] : [{ ...hedge('filled'), notional_usd: usd }];
  };
  const client = {
    listPositions: async () => {
      reads++;
      const usd = now();
      return usd === undefined ? [] : [position(usd)];
    },
    readHedges: async () => ({ items: records(), more: false, mayBeCut: async () => false }),
    listHedges: async () => records(),
    transport: { serverNow: () => ({ localMs: 0, bestMs: 0, earliestMs: 0, latestMs: 0 }) },
  } as unknown as Partial<HedgeClient>;
  return { client, reads: () => reads };
}

/** A trade's wait stage, called as the write flow calls it. */
const waitOf =
  (action: ReturnType<typeof tradeAction>) =>
  (...args: Parameters<typeof action.stages.wait> extends [unknown, ...infer Rest] ? Rest : never) =>
    action.stages.wait(action, ...args);

/** An add's or reduce's wait (trade-actions.ts) of `changeUsd` on the buy side from `baselineNotionalUsd`, over a client
 * that shows the positions list (the other views unread: said, not waited on): its outcome, or what it threw. */
async function ownChange(
  client: Partial<HedgeClient>,
  action: 'add' | 'reduce',
  baselineNotionalUsd: number,
  changeUsd: number,
  timeoutSeconds?: number,
): Promise<any> {
  const clock = fakeClock();
  const { ctx } = testContext({ clock, fakeClient: client, globals: { timeout: timeoutSeconds } });
  const record = tradeRecord(action, { market: 'USDTNGN', side: 'buy', notional_usd: changeUsd } as SideRequest);
  return waitOf(tradeAction(ctx, client as HedgeClient, record))(SUBMITTED, {
    startedAt: clock.now(),
    before: { baseline_notional_usd: baselineNotionalUsd },
  }).then(
    ({ result }) => result,
    (e: unknown) => e,
  );
}

// A change is proven by every view of the side (its hedge records and its positions line), whatever the hedge's own
// status says.
it("an add's, a reduce's and a close's wait: an add is landed when every view shows the baseline plus this add — not on another's move; a side moved to a value that is neither before nor after this change: exit 12 at the bound, never landed; a whole reduce is visible when the side leaves every view; without a hedge id, watches the side's views; time-out names `hedge positions`; a close is confirmed when the side leaves every view (the other side stays)", async () => {
  // Another actor's +100 shows first (not this add's landing); then this add's +5,000.
  const side = sideShowing([10_000, 10_100, 10_100, 15_100]);
  expect(await ownChange(side.client, 'add', 10_100, 5_000)).toMatchObject({
    afterNotionalUsd: 15_100,
    closed: false,
  });
  // Four reads of every view until it shows.
  expect(side.reads()).toBe(4);

  const moved = await ownChange(sideShowing([10_037]).client, 'add', 10_000, 100, 5);
  expect(moved).toBeInstanceOf(UnresolvedError);
  expect(moved.message).toContain('neither 10,000.00 USD (before it) nor 10,100.00 USD (with it)');

  let hedgeReads = 0;
  const client = { ...sideShowing([undefined]).client, getHedge: async () => (hedgeReads++, hedge('filled')) };
  expect((await ownChange(client, 'reduce', 10_000, 10_000)).closed).toBe(true);
  expect(hedgeReads).toBe(0);

  const pending = await ownChange(sideShowing([10_000]).client, 'reduce', 10_000, 2_000, 3);
  expect(pending).toBeInstanceOf(StillPendingError);
  expect(pending.resumeCommand).toBe('hedge positions');

  const clock = fakeClock();
  const [buy, sell] = [position(), position(undefined, 'sell')];
  const answers = [[buy, sell], [buy, sell], [sell]];
  let closes = 0;
  const { ctx } = testContext({ clock });
  const sides = {
    ...sideShowing([undefined]).client,
    listPositions: async () => answers[closes++],
  } as unknown as HedgeClient;
  await waitOf(tradeAction(ctx, sides, tradeRecord('close', { market: 'USDTNGN', side: 'buy' })))(SUBMITTED, {
    startedAt: clock.now(),
  });
  expect(closes).toBe(3);
});

it('a close of a side of two hedges is not done while a hedge it ended too still shows in every view (its named hedge ended, the other still held): it waits until the side is flat, and names no hedge as opened since', async () => {
  const clock = fakeClock();
  const { ctx } = testContext({ clock });
  const held = { ...hedge('filled'), id: 'hdg_b', notional_usd: 400 };
  let reads = 0;
  const client = {
    listPositions: async () => (++reads === 1 ? [{ ...position(400), hedge_id: 'hdg_b' }] : []),
    readHedges: async () => ({ items: reads === 1 ? [held] : [], more: false, mayBeCut: async () => false }),
    listHedges: async () => (reads === 1 ? [held] : []),
    getHedge: async () => ({ ...hedge('closed'), id: 'hdg_a' }),
    transport: { serverNow: () => ({ localMs: 0, bestMs: 0, earliestMs: 0, latestMs: 0 }) },
  } as unknown as HedgeClient;
  const { result } = await waitOf(tradeAction(ctx, client, tradeRecord('close', { market: 'USDTNGN', side: 'buy' })))(
    { status: 'submitted', hedge_id: 'hdg_a' } as SubmittedAction,
    { startedAt: clock.now(), before: { hedge_id: 'hdg_a', hedge_ids: ['hdg_a', 'hdg_b'], notional_usd: 1_000 } },
  );
  expect(reads).toBe(2);
  expect(result).not.toHaveProperty('openNow');
});

it('findClosedRecord: looks a few times at the cadence and gives up quietly when the record is slow; returns the record as soon as it appears, and never throws on a failing request', async () => {
  const clock = fakeClock();
  let calls = 0;
  const slow = testContext({ clock, fakeClient: { listHistory: async () => (calls++, []) } });
  const start = clock.now();
  expect(await findClosedRecord(slow.ctx, ['hdg_test1'])).toBeUndefined();
  expect([calls, clock.now() - start]).toEqual([3, 3000]);

  const record = { hedge_id: 'hdg_test1', net_pnl_usd: -3.5 } as HistoryRecord;
  calls = 0;
  const { ctx } = testContext({ clock, fakeClient: { listHistory: async () => (++calls === 2 ? [record] : []) } });
  expect(await findClosedRecord(ctx, ['hdg_test1'])).toEqual(record);
  const failing = testContext({ clock, fakeClient: { listHistory: () => Promise.reject(new Error('boom')) } });
  expect(await findClosedRecord(failing.ctx, ['hdg_test1'])).toBeUndefined();
});

it('findClosedRecord: the records of several hedges sum as `hedge history` totals them: each figure to the cent as its row shows it (half away from zero), a figure summed only where every record carries it', async () => {
  const records = [
    { hedge_id: 'hdg_a', net_pnl_usd: 0.005, fees_usdc: '-0.125', carry_usdc: 1, closed_at: '2026-01-02T00:00:00Z' },
    { hedge_id: 'hdg_b', net_pnl_usd: -1.114, fees_usdc: -0.125, closed_at: '2026-01-03T00:00:00Z' },
  ] as HistoryRecord[];
  const { ctx } = testContext({ clock: fakeClock(), fakeClient: { listHistory: async () => records } });
  // Summed unrounded these would be -1.109 and -0.25: the rows show 0.01 + -1.11 and -0.13 + -0.13.
  expect(await findClosedRecord(ctx, ['hdg_a', 'hdg_b'])).toEqual({
    hedge_ids: ['hdg_a', 'hdg_b'],
    net_pnl_usd: -1.1,
    fees_usdc: -0.26,
    closed_at: '2026-01-03T00:00:00Z',
  });
});
