// The --watch loop (flows/watch.ts) in-process, on a fake clock and a fake client: the point is the
// loop — its cadence, stale refreshes and Retry-After, the errors that end it, alerts that fire once
// and --exit-on-alert, Ctrl-C, --timeout — not the network (book/watch.test.ts runs it for real).
import type { Position } from '../../src/platform/api/schemas.js';
import { ApiError, InvalidResponseError, NetworkError, StopSignal, UsageError } from '../../src/core/errors.js';
import { describeError } from '../../src/platform/terminal/exit-codes.js';
import type { WatchOptionValues, WatchTarget } from '../../src/features/book/watch.js';
import { watchCommand } from '../../src/cli/cmd/book/watch-outcome.js';
import type { GlobalOptions } from '../../src/platform/runtime/context.js';
import { fakeClock, testContext, type TestContextOptions } from '../support/client.js';
import { lines } from '../support/keeper.js';

const START = Date.parse('2026-03-02T09:00:00.000Z');
/** The time `ms` after the start, as the records write it. */
const at = (ms = 0) => new Date(START + ms).toISOString();

/**
 * A context on pipes over a fake client (stdout `columns` wide; `output`: --fields and --query as the output
 * layer applies them), its clock, the NDJSON records printed, and a watch (of positions unless told) run on it to
 * completion: `--timeout` (globals.timeout) or the controller ends it.
 */
function harness({ columns = 100, clock = fakeClock(START), ...rest }: TestContextOptions & { columns?: number }) {
  const run = testContext({ ...rest, clock, env: { TZ: 'UTC' } });
  Object.assign(run.io.stdout, { columns });
  const records = () => lines(run.stdout());
  /** Each record's kind: fresh data, a stale refresh, or an alert. */
  const kinds = () =>
    records().map((record) =>
      'alert' in record ? 'alert' : 'data' in record ? 'fresh' : record.stale === true ? 'stale' : '?',
    );
  const watch = (options: WatchOptionValues, target: WatchTarget = { kind: 'positions' }) =>
    watchCommand(run.ctx, target, options);
  return { ...run, clock, records, kinds, watch };
}

function position(overrides = {}) {
  return {
    market: 'USDTNGN',
    side: 'buy',
    hedge_id: 'hdg_one',
    notional_usd: 10_000,
    mark_price: 1532.41,
    net_pnl_usd: 12.5,
    accrued_carry_usdc: 1.2,
    net_margin_usd: 512.5,
    maturity_at: at(7 * 86_400_000),
    ...overrides,
  } as Position;
}

const serverDown = () =>
  new NetworkError('GET /positions failed on the server: HTTP 503 service_unavailable: down', {
    endpoint: 'GET /positions',
    attempts: 2,
    status: 503,
    code: 'service_unavailable',
  });

/** The answers in turn (an Error thrown); past them `then`, or a failure for a read not expected. */
const inTurn = (answers: Array<Error | Position[]>, then?: Position[]) => async () => {
  const answer = answers.shift() ?? then;
  if (answer === undefined) throw new Error('read past the answers');
  if (answer instanceof Error) throw answer;
  return answer;
};

it.each([
  // true: the default, every 2 s.
  [true, 0, [0, 2000, 4000, 6000]],
  ['1', 0, [0, 1000, 2000, 3000, 4000, 5000, 6000]],
  ['2', 700, [0, 2000, 4000, 6000]],
  // Never sooner than a second after the previous answer: 1 s plus the answer's 0.7 s.
  ['1', 700, [0, 1700, 3400, 5100, 6800]],
] as const)(
  '--watch cadence: --watch %s, answers taking %i ms: start to start, never a second after an answer, a {time, data} record of each stamped when it came, until --timeout: exit 0 with a note',
  async (seconds, answerMs, expected) => {
    const calls: number[] = [];
    let time = 0;
    const clock = fakeClock(START);
    const slowClock = { ...clock, now: () => clock.now() + time };
    const h = harness({
      clock: slowClock,
      globals: { timeout: 7 },
      fakeClient: {
        listPositions: async () => {
          calls.push(slowClock.now() - START);
          time += answerMs; // the request itself takes this long
          return [position()];
        },
      },
    });
    expect(await h.watch({ watch: seconds })).toBe(0);
    expect(calls).toEqual(expected);
    expect(h.records()).toEqual(expected.map((ms) => ({ time: at(ms + answerMs), data: [position()] })));
    expect(h.stderr()).toContain('Watch ended: --timeout (7 s) reached.');
  },
);

// --watch's own value is read as test/cli/decimals.test.ts reads it.
// [what, options, the refusal, target (positions unless given), globals]
it.each<[string, WatchOptionValues, RegExp, WatchTarget?, Partial<GlobalOptions>?]>([
  [
    'an alert without --watch',
    { alertPnl: '-500' },
    /^--alert-pnl: only with --watch; add --watch to `hedge positions`\.$/,
  ],
  ['--exit-on-alert without an alert', { watch: true, exitOnAlert: true }, /^--exit-on-alert: needs an alert/],
  [
    '--alert-pnl on price',
    { watch: true, alertPnl: '0' },
    /^--alert-pnl: `price USDTNGN` shows no P&L/,
    { kind: 'price', market: 'USDTNGN' },
  ],
  [
    '--alert-maturity on account',
    { watch: true, alertMaturity: '1d' },
    /^--alert-maturity: `account` shows no maturity/,
    { kind: 'account' },
  ],
  [
    'hedges without an ID',
    { watch: true },
    /^--watch: on `hedges` it watches one hedge; give its ID/,
    { kind: 'hedge', filters: {} },
  ],
  [
    'hedges ID with --wait',
    { watch: true },
    /^--wait: cannot be combined with --watch\.$/,
    { kind: 'hedge', id: 'hdg_1', filters: { wait: true } },
  ],
  [
    '--format csv',
    { watch: true },
    /^--format csv: --watch writes a live view on a terminal, or NDJSON/,
    undefined,
    { format: 'csv' },
  ],
  ['a bad --alert-pnl', { watch: true, alertPnl: 'lots' }, /^--alert-pnl: "lots" is not allowed/],
  ['--count without --watch', { count: '3' }, /^--count: only with --watch; add --watch to `hedge positions`\.$/],
  [
    '--count 0',
    { watch: true, count: '0' },
    /^--count: "0" is not allowed; expected a whole number of refreshes from 1 to 1,000,000\.$/,
  ],
  ['--count 2.5', { watch: true, count: '2.5' }, /^--count: "2.5" is not allowed/, { kind: 'account' }],
])('--watch option checks (exit 2, nothing sent): %s', async (_name, options, message, target, globals) => {
  let sent = 0;
  const count = async () => (sent++, [] as never);
  const error = await harness({
    globals,
    fakeClient: { listPositions: count, getAccount: count, getHedge: count, listMarkets: count },
  })
    .watch(options, target)
    .catch((caught) => caught);
  expect(error).toBeInstanceOf(UsageError);
  expect(error.message).toMatch(message);
  expect([describeError(error).exitCode, sent]).toEqual([2, 0]);
});

it('--watch failures: marks a failed refresh stale and keeps going: fresh, stale, stale, fresh; --count N ends after N refreshes (stale ones count too) with exit 0 and a note, without a last pause; the data as --json would print it: --fields applied', async () => {
  const answers = [
    [position()],
    serverDown(),
    new InvalidResponseError('GET /positions answered HTTP 502 with a body that is not JSON.', {
      endpoint: 'GET /positions',
      status: 502,
    }),
    [position({ net_pnl_usd: 14 })],
  ];
  const h = harness({ output: { fields: ['market', 'net_pnl_usd'] }, fakeClient: { listPositions: inTurn(answers) } });
  expect(await h.watch({ watch: '2', count: '4' })).toBe(0);
  const records = h.records();
  expect(h.kinds()).toEqual(['fresh', 'stale', 'stale', 'fresh']);
  expect([answers, h.clock.now() - START]).toEqual([[], 6000]);
  expect(h.stderr()).toContain('Watch ended: --count 4 refreshes made.');
  expect(records[1]).toEqual({
    time: at(2000),
    stale: true,
    error: {
      code: 'service_unavailable',
      message: 'GET /positions failed on the server: HTTP 503 service_unavailable: down',
    },
    last_good: at(),
    next_at: at(4000),
  });
  expect(records[2].error).toEqual({
    code: 'unreadable',
    message: 'GET /positions answered HTTP 502 with a body that is not JSON.',
  });
  expect([records[0], records[3].data]).toEqual([
    { time: at(), data: [{ market: 'USDTNGN', net_pnl_usd: 12.5 }] },
    [{ market: 'USDTNGN', net_pnl_usd: 14 }],
  ]);
});

it.each([
  [401, 'unauthorized', 'bad key', 4],
  [403, 'forbidden', 'no', 4],
  [404, 'not_found', 'no such hedge', 3],
])(
  '--watch failures: ends on a %i with its own exit code, after the records already written',
  async (status, code, message, exitCode) => {
    const error = new ApiError({ status, code, message, endpoint: 'GET /positions' });
    const h = harness({ fakeClient: { listPositions: inTurn([[], [], error]) } });
    const thrown = await h.watch({ watch: '1' }).catch((caught) => caught);
    expect(thrown).toBe(error);
    expect(describeError(thrown).exitCode).toBe(exitCode);
    expect(h.records()).toHaveLength(2);
  },
);

it.each([
  ['ends with exit 0 on Ctrl-C, during a pause', new StopSignal('SIGINT', 130), 3, 0],
  ['keeps SIGTERM’s own exit code (143) for a supervisor', new StopSignal('SIGTERM', 143), 1, 143],
])('--watch stops: %s', async (_name, signal, after, exitCode) => {
  const controller = new AbortController();
  let refreshes = 0;
  const clock = fakeClock(START, () => {
    if (refreshes === after) controller.abort(signal);
  });
  const h = harness({ clock, controller, fakeClient: { listPositions: async () => (refreshes++, []) } });
  expect(await h.watch({ watch: '1' })).toBe(exitCode);
  expect([refreshes, h.records().length]).toEqual([after, after]);
});

function pnlClient(series: number[]) {
  return {
    listPositions: async () => {
      const pnl = series.shift() ?? 0;
      return [
        position({ net_pnl_usd: pnl / 2, side: 'buy' }),
        position({ net_pnl_usd: pnl / 2, side: 'sell', hedge_id: 'hdg_two' }),
      ];
    },
  };
}

it('--watch alerts: writes one alert record when net P&L (summed over positions) goes at or below the threshold, again only after it cleared; --exit-on-alert ends at the first alert with exit 10 (`alert`)', async () => {
  const h = harness({ globals: { timeout: 6 }, fakeClient: pnlClient([100, -600, -700, 50, -500, -800]) });
  expect(await h.watch({ watch: '1', alertPnl: '-500' })).toBe(0);
  expect(h.records().filter((record) => 'alert' in record)).toEqual([
    { time: at(1000), alert: { kind: 'pnl', net_pnl_usd: -600, threshold_usd: -500 } },
    { time: at(4000), alert: { kind: 'pnl', net_pnl_usd: -500, threshold_usd: -500 } },
  ]);
  // The alert follows the refresh it is about.
  expect(h.kinds()).toEqual('fresh fresh alert fresh fresh fresh alert fresh'.split(' '));
  const ended = harness({ fakeClient: pnlClient([100, 0, -600, -700]) });
  expect(await ended.watch({ watch: '1', alertPnl: '-500', exitOnAlert: true })).toBe(10);
  expect(ended.records().slice(3)).toEqual([
    { time: at(2000), alert: { kind: 'pnl', net_pnl_usd: -600, threshold_usd: -500 } },
  ]);
  expect(ended.stderr()).toContain(
    'Alert: net P&L -600.00 USD is at or below -500.00 USD. Ended by --exit-on-alert (exit 10).',
  );
});

it('--watch alerts: alerts on a hedge maturing within --alert-maturity (hedges ID), once', async () => {
  const maturity = at(3 * 3_600_000);
  const h = harness({
    globals: { timeout: 3 },
    fakeClient: {
      getHedge: async () => ({
        id: 'hdg_soon',
        market: 'USDTNGN',
        side: 'sell',
        notional_usd: 5000,
        tenor_days: 1,
        status: 'filled',
        maturity_at: maturity,
      }),
    },
  });
  expect(await h.watch({ watch: '1', alertMaturity: '6h' }, { kind: 'hedge', id: 'hdg_soon', filters: {} })).toBe(0);
  expect(h.records().filter((record) => 'alert' in record)).toEqual([
    {
      time: at(),
      alert: {
        kind: 'maturity',
        market: 'USDTNGN',
        side: 'sell',
        hedge_id: 'hdg_soon',
        maturity_at: maturity,
        seconds_left: 3 * 3600,
        within: '6h',
      },
    },
  ]);
});

/** The frames a run on a terminal drew, as log-update writes them: each after the erasing of the one before. */
const screensOf = (run: { stdout: () => string }) => run.stdout().split(/(?:\u001b\[2K\u001b\[1A)*\u001b\[2K\u001b\[G/);

it('--watch on a terminal: redraws in place: each frame erases exactly the lines of the one before, and the view keeps its size; shows STALE since the first failed refresh over the last good data, then clears it', async () => {
  let pnl = 10;
  const h = harness({
    tty: true,
    columns: 80,
    globals: { timeout: 4 },
    fakeClient: { listPositions: async () => [position({ net_pnl_usd: (pnl += 1), mark_price: 1500 + pnl })] },
  });
  expect(await h.watch({ watch: '2' })).toBe(0);
  // log-update: every frame after the first starts by erasing the previous one, line by line.
  const frames = screensOf(h);
  const erased = [...h.stdout().matchAll(/((?:\u001b\[2K\u001b\[1A)*)\u001b\[2K\u001b\[G/g)].map(
    (match) => match[1].length / '\u001b[2K\u001b[1A'.length + 1,
  );
  expect(frames.length).toBeGreaterThanOrEqual(4);
  const lineCounts = frames.slice(0, -1).map((frame) => frame.split('\n').length);
  expect(erased).toEqual(lineCounts);
  expect(new Set(lineCounts.slice(1)).size).toBe(1);
  const last = frames.at(-1)!;
  expect(last).toContain('Positions · every 2 s · last good refresh 09:00:02 · * changed · Ctrl-C to stop');
  // The columns and priorities of `hedge positions` (at 80 columns: side, reference,
  // notional, entry (— where the line has none), mark, net P&L, time left (to the hour, where net margin takes the
  // room of its seconds), then the side's P&L trend; then net margin, the first amount of the rest); the other
  // amounts wait for a wider terminal, and the screen says so on one line. The mark and the net P&L changed since
  // the refresh before: marked `*`, without colour.
  expect(last).toMatch(/^buy +— +10,000\.00 +— +1,512\.00\* +\+12\.00\* +512\.50 +6d 23h +▁█$/m);
  expect(last).toMatch(/^Hidden: accrued_carry_usdc, market — see --json, or a wider terminal\.$/m);
  expect(last).toMatch(/^Net P&L {2}\+12\.00 {2}▁█$/m);
  for (const line of last.split('\n')) expect(line.length).toBeLessThanOrEqual(80);
  // Nothing but the view on stdout: no NDJSON.
  expect(h.stdout()).not.toContain('"time"');
  const stale = harness({
    tty: true,
    globals: { timeout: 8 },
    fakeClient: {
      listPositions: inTurn([[position()], serverDown(), serverDown()], [position()]),
    },
  });
  await stale.watch({ watch: '2' });
  const screens = screensOf(stale);
  const staleScreen = screens.find((screen) => screen.includes('STALE'))!;
  expect(staleScreen).toContain(
    'STALE since 09:00:02 (service_unavailable: GET /positions failed on the server: HTTP 503',
  );
  expect(staleScreen).toContain('last good refresh 09:00:00');
  // The last good data, under the stale line's warning (one market: its rate unit names it).
  expect(staleScreen).toMatch(/^buy +— +10,000\.00 /m);
  expect(screens.filter((screen) => screen.includes('STALE since 09:00:02')).length).toBeGreaterThanOrEqual(2);
  expect(screens.at(-1)).not.toContain('STALE');
});
