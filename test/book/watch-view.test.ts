// The --watch screen (ui/watch-view.ts), rendered without a terminal: what changed since the last
// refresh is marked (inverse video with colour, `*` without), the countdown ticks with the clock,
// sparklines grow over the session, stale and alert lines, and every line fits the width.
import { makeChalk } from '../../src/platform/terminal/color.js';
import { Output } from '../../src/platform/terminal/output.js';
import {
  applyFresh,
  clockTimeIn,
  describeAlert,
  emptyWatchState,
  formatCountdown,
  renderWatchScreen,
} from '../../src/features/book/watch-view.js';
import type { WatchModel } from '../../src/features/book/watch-model.js';
import { displayWidth } from '../../src/platform/terminal/width.js';
import { PassThrough } from 'node:stream';

const START = Date.parse('2026-03-02T09:00:00.000Z');

function formatter(colour: boolean) {
  const streams = { stdout: new PassThrough(), stderr: new PassThrough() };
  const output = new Output({ format: 'table', chalk: makeChalk(colour), streams, now: () => START });
  return output.humanValue.bind(output);
}

type WatchState = ReturnType<typeof emptyWatchState>;

/** The screen of `state` `ms` after START, `columns` wide. */
const screen = (state: WatchState, ms: number, columns = 120, colour = false) =>
  renderWatchScreen(state, {
    columns,
    chalk: makeChalk(colour),
    now: START + ms,
    format: formatter(colour),
    clockTime: clockTimeIn('UTC'),
  });

/** A watch refreshing every `everyMs`, with a refresh of each of `models` in turn, 2 s apart from START. */
function watching(everyMs: number, ...models: WatchModel[]) {
  const state = emptyWatchState(everyMs);
  models.forEach((model, index) => applyFresh(state, model, START + index * 2000, formatter(false)));
  return state;
}

function positionsModel(mark: number, pnl: number): WatchModel {
  return {
    title: 'Positions',
    layout: 'table',
    fields: [
      { key: 'market', label: 'Market' },
      { key: 'side', label: 'Side', kind: 'side' },
      { key: 'notional_usd', label: 'Notional', kind: 'money' },
      { key: 'mark_price', label: 'Mark', kind: 'rate' },
      { key: 'net_pnl_usd', label: 'Net P&L', kind: 'pnl' },
      { key: 'accrued_carry_usdc', label: 'Carry', kind: 'money' },
    ],
    priority: 'market side net_pnl_usd mark_price matures_in notional_usd trend accrued_carry_usdc'.split(' '),
    rows: [
      {
        key: 'USDTNGN:buy',
        values: {
          market: 'USDTNGN',
          side: 'buy',
          notional_usd: 10_000,
          mark_price: mark,
          net_pnl_usd: pnl,
          accrued_carry_usdc: 1.25,
        },
        maturityAt: new Date(START + 2 * 86_400_000 + 3_723_000).toISOString(),
      },
    ],
    empty: 'No open positions.',
    countdown: 'Matures in',
    trend: { label: 'Mark trend', key: 'mark_price' },
    total: { label: 'Net P&L', value: pnl },
  };
}

it('renderWatchScreen: marks the values that changed since the previous refresh with `*` without colour, and only those: not a move below the shown precision, nor a value that did not change; its trend stays level', () => {
  const state = watching(2000, positionsModel(1530, 10), positionsModel(1531, 10));
  expect(screen(state, 2000)).toEqual([
    'Positions · every 2 s · last good refresh 09:00:02 · * changed · Ctrl-C to stop',
    // Only the mark changed: only its column makes room for the `*` (the others' values stay as they are).
    'Market   Side   Notional       Mark  Net P&L  Carry   Matures in  Mark trend',
    '───────  ────  ─────────  ─────────  ───────  ─────  ───────────  ──────────',
    'USDTNGN  buy   10,000.00  1,531.00*   +10.00   1.25  2d 01:02:01  ▁█',
    'Net P&L  +10.00  ▄▄',
  ]);
  // Not a move below the shown precision: the trend is drawn from the marks as shown (1,530.00 twice): level, not a rise.
  expect(screen(watching(2000, positionsModel(1530.001, 10), positionsModel(1530.004, 10)), 2000)[3]).toBe(
    'USDTNGN  buy   10,000.00  1,530.00   +10.00   1.25  2d 01:02:01  ▄▄',
  );
});

it('renderWatchScreen: shows a change in inverse video with colour, and nothing else inverted', () => {
  const state = watching(2000, positionsModel(1530, 10), positionsModel(1530, -4));
  const lines = screen(state, 2000, 120, true);
  const row = lines[3];
  // SGR 7 is inverse: around the P&L only.
  expect(row.match(/\u001b\[7m/g)).toHaveLength(1);
  expect(row).toMatch(/\u001b\[7m[^\u001b]*(\u001b\[31m)?-4\.00/);
  expect(lines[0]).not.toContain('* changed');
});

it("renderWatchScreen: ticks the countdown with the clock between refreshes; counts down on the server's clock: one 10 min ahead of ours shows 10 min less, and ticks with ours", () => {
  const ahead = emptyWatchState(5000);
  applyFresh(ahead, positionsModel(1530, 10), START, formatter(false), 600_000);
  const ticks = (state: WatchState) => [0, 1000, 3000].map((ms) => / (\d+d [\d:]+) /.exec(screen(state, ms)[3])![1]);
  expect([ticks(watching(5000, positionsModel(1530, 10))), ticks(ahead)]).toEqual([
    ['2d 01:02:03', '2d 01:02:02', '2d 01:02:00'],
    ['2d 00:52:03', '2d 00:52:02', '2d 00:52:00'],
  ]);
});

it('renderWatchScreen: a maturity the server wrote unreadably counts nothing down: a dash, never NaN', () => {
  const model = positionsModel(1530, 10);
  model.rows[0].maturityAt = 'soon';
  const shown = screen(watching(5000, model), 0).join('\n');
  expect(shown).toContain('Matures in');
  expect(shown).not.toContain('NaN');
  expect(shown).toMatch(/USDTNGN.*—/);
  // Narrow, where the column counts to the hour beside a readable one: still a dash, never a blank.
  const [buy] = positionsModel(1530, 10).rows;
  const sell = { key: 'USDTNGN:sell', values: { ...buy.values, side: 'sell' }, maturityAt: 'soon' };
  const both = { ...positionsModel(1530, 10), rows: [buy, sell] };
  const narrow = screen(watching(5000, both), 0, 52).filter((line) => line.startsWith('USDTNGN'));
  expect(narrow).toEqual([
    expect.stringMatching(/^USDTNGN {2}buy .* {2}2d 1h$/),
    expect.stringMatching(/^USDTNGN {2}sell .* —$/),
  ]);
});

it('renderWatchScreen: fits 40 and 60 columns by dropping the least important columns, never the market, side or P&L, and says on the screen what it left out: a dim note under the table, on one line, never cut', () => {
  const state = watching(2000, positionsModel(1530, 10));
  const model = positionsModel(1530, 10);
  const columns = [
    ...model.fields.map(({ key, label }) => [key, label]),
    ['matures_in', 'Matures in'],
    ['trend', 'Mark trend'],
  ];
  for (const width of [40, 60]) {
    const lines = screen(state, 0, width);
    for (const line of lines) expect(displayWidth(line)).toBeLessThanOrEqual(width);
    // The title wraps between its parts: the table starts after its last line.
    const title = lines.findIndex((line) => line.endsWith('Ctrl-C to stop'));
    expect(title).toBeGreaterThan(0);
    const shown = lines[title + 1];
    expect(shown).toMatch(/^Market +Side +.*Net P&L/);
    expect(lines[title + 3]).toMatch(/^USDTNGN +buy .*\+10\.00/);
    const missing = columns.filter(([, label]) => !shown.includes(label)).map(([key]) => key);
    expect(missing).toContain('accrued_carry_usdc');
    // One line, then the total: every column of the model not in the header named, or counted.
    const note = lines[title + 4];
    expect(lines[title + 5]).toMatch(/^Net P&L/);
    const named = /^Hidden(?: at \d+ columns)?: (.*?)(?:, \+(\d+) more)? — see --json, or a wider terminal\.$/.exec(
      note,
    );
    if (width === 40) expect(note).toBe(`Hidden: ${missing.length} columns — see --json.`);
    else {
      const names = named![1].split(', ');
      expect([names.every((key) => missing.includes(key)), names.length + Number(named![2] ?? 0)]).toEqual([
        true,
        missing.length,
      ]);
    }
  }
  // Wide enough: nothing to say.
  expect(screen(state, 0, 200).join('\n')).not.toContain('Hidden');
});

it('renderWatchScreen: grows a sparkline over the session', () => {
  const state = watching(1000, ...[1500, 1510, 1505, 1520].map((mark) => positionsModel(mark, 0)));
  expect(screen(state, 6000)[3]).toMatch(/ ▁▅▃█$/);
});

it('renderWatchScreen: says stale since when, why and when the next try is, over the last good data', () => {
  const state = watching(2000, positionsModel(1530, 10));
  state.stale = { since: START + 2000, reason: 'service_unavailable: HTTP 503', nextAt: START + 7000 };
  const lines = screen(state, 4000);
  expect(lines[0]).toContain('last good refresh 09:00:00');
  expect(lines[3]).toMatch(/^USDTNGN/);
  expect(lines[lines.length - 1]).toBe('STALE since 09:00:02 (service_unavailable: HTTP 503) · next try in 3 s');
});

it('renderWatchScreen: lists the alerts that hold, with the time each fired; server text is made harmless', () => {
  const state = watching(2000, positionsModel(1530, -600));
  state.alerts = [
    { alert: { kind: 'pnl', key: 'pnl', netPnlUsd: -600, thresholdUsd: -500 }, at: START },
    {
      alert: {
        kind: 'maturity',
        key: 'maturity:x',
        maturityAt: new Date(START + 3_600_000).toISOString(),
        secondsLeft: 3600,
        within: '6h',
        market: 'USD\u001b[2JNGN',
        side: 'buy',
        hedgeId: 'hdg_x',
      },
      at: START,
    },
  ];
  expect(screen(state, 0).slice(-2)).toEqual([
    'ALERT 09:00:00 net P&L -600.00 USD is at or below -500.00 USD',
    'ALERT 09:00:00 USD\\x1b[2JNGN buy (hdg_x) matures in 60 min (--alert-maturity 6h)',
  ]);
});

it('renderWatchScreen: shows a card (account, one hedge) with its trend line, and an empty list as its sentence', () => {
  const card = (pnl: number): WatchModel => ({
    title: 'Account',
    layout: 'card',
    fields: [
      { key: 'balance_usdc', label: 'Balance (USDC)', kind: 'money' },
      { key: 'unrealized_pnl_usd', label: 'Unrealized P&L (USD)', kind: 'pnl' },
    ],
    priority: ['balance_usdc', 'unrealized_pnl_usd'],
    rows: [{ key: 'account', values: { balance_usdc: 1000, unrealized_pnl_usd: pnl } }],
    empty: '',
    trend: { label: 'P&L trend', key: 'unrealized_pnl_usd' },
  });
  expect(screen(watching(2000, card(5), card(-5)), 2000, 80).slice(1)).toEqual([
    'Balance (USDC)        1,000.00 ',
    'Unrealized P&L (USD)  -5.00*',
    'P&L trend             █▁',
  ]);
  const empty = watching(2000, { ...positionsModel(1, 1), rows: [], total: undefined });
  expect(screen(empty, 0, 80).slice(1)).toEqual(['No open positions.']);
});

it.each([
  [0, 'matured'],
  [-5000, 'matured'],
  [999, '00:00:00'],
  [59_000, '00:00:59'],
  [3_600_000, '01:00:00'],
  [86_400_000 + 61_000, '1d 00:01:01'],
])('formatCountdown and describeAlert: %d ms → %s', (ms, text) => {
  expect(formatCountdown(ms)).toBe(text);
});

it('formatCountdown and describeAlert: says a maturity already past has been reached', () => {
  expect(
    describeAlert(
      { kind: 'maturity', key: 'k', maturityAt: new Date(START - 1).toISOString(), secondsLeft: 0, within: '1h' },
      START,
    ),
  ).toBe('a hedge has reached maturity (--alert-maturity 1h)');
});

it('clockTimeIn: shows the time of day in the given zone, and falls back to the local one for a bad zone', () => {
  expect([clockTimeIn('UTC')(START), clockTimeIn('Africa/Lagos')(START)]).toEqual(['09:00:00', '10:00:00']);
  expect(clockTimeIn('Not/AZone')(START)).toBe(new Date(START).toTimeString().slice(0, 8));
});

it("renderWatchScreen: a model settling is marked under its rows in the side model's words, wrapped to the width, never cut", () => {
  const why = 'hedge hdg_a shows status "settling", which hedge does not know (neither open nor ended)';
  const lines = screen(watching(2000, { ...positionsModel(1530, 10), settling: why }), 0, 60);
  const at = lines.findIndex((line) => line.startsWith('settling: '));
  expect(at).toBeGreaterThan(3);
  expect(
    lines
      .slice(
        at,
        lines.findIndex((line) => line.startsWith('Net P&L')),
      )
      .join(' ')
      .replace(/\s+/g, ' '),
  ).toBe(`settling: ${why}`);
  for (const line of lines) expect(displayWidth(line)).toBeLessThanOrEqual(60);
  expect(screen(watching(2000, positionsModel(1530, 10)), 0).some((line) => line.startsWith('settling'))).toBe(false);
});

it('renderWatchScreen: a settling side is marked under its own row, as the positions list marks it, wrapped to the width', () => {
  const why = 'the positions list still shows the side, whose hedges are not filled on their records';
  const model = positionsModel(1530, 10);
  const lines = screen(watching(2000, { ...model, rows: [{ ...model.rows[0], settling: why }] }), 0, 60);
  const row = lines.findIndex((line) => line.startsWith('USDTNGN'));
  expect(lines.slice(row + 1, row + 3)).toEqual([
    '  settling: the positions list still shows the side, whose',
    '    hedges are not filled on their records',
  ]);
  for (const line of lines) expect(displayWidth(line)).toBeLessThanOrEqual(60);
});
