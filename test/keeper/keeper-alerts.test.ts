// The keeper's alert rules (domain/alerts.ts) on a fake clock: once per row and cause when a
// condition starts, once when it clears, never again in between.
import { NO_ALERTS, stepAlerts, type CycleObservation } from '../../src/core/alerts.js';
import type { KeepEvent } from '../../src/core/keep-rules.js';
import { reconcileSide, towardTarget } from '../../src/features/book/book.js';

const T0 = Date.parse('2026-03-02T09:00:00Z');
const MINUTE = 60_000;

function row(side: 'buy' | 'sell', current: number | null, rollAt?: number) {
  return {
    market: 'USDTNGN',
    side,
    target_usd: 1000,
    current_usd: current,
    state: 'covered',
    next_action: rollAt === undefined ? null : 'roll',
    next_action_at: rollAt === undefined ? null : new Date(T0 + rollAt * MINUTE).toISOString(),
  };
}

/** A cycle's rows: one side, flat or at its target. */
const [BUY_FLAT, BUY_AT_TARGET, SELL_FLAT, SELL_AT_TARGET] = [
  [row('buy', null)],
  [row('buy', 1000)],
  [row('sell', null)],
  [row('sell', 1000)],
];
/** An event of the keeper's on USDTNGN `side`, or of the whole cycle without one. */
const event = (name: string, side?: string, more: Record<string, unknown> = {}) =>
  ({ event: name, at: '', ...(side ? { market: 'USDTNGN', side } : {}), ...more }) as KeepEvent;
const refused = (side: string) => event('error', side, { action: 'reopen', code: 'exposure_exceeded', message: 'cap' });
const unreachable = event('error', undefined, { phase: 'read', code: 'network', message: 'refused' });
const drift = (side: string, notional: number, more = {}) =>
  event('drift', side, { notional_usd: notional, target_usd: 1000, ...more });

/** A cycle's observation; `at` and `server`: minutes after T0 of the cycle (by default its place in the list) and of the server's clock. */
type Step = Partial<CycleObservation> & { at?: number; server?: number };

/** The cycles one after another: every notice, and each said as `started|recovered KEY +Nm`. */
function run(steps: Step[]) {
  let state = NO_ALERTS;
  const notices = steps.flatMap(({ at, server, events = [], ...rest }, index) => {
    const minute = at ?? index;
    const result = stepAlerts(state, {
      toleranceUsd: 0,
      nowMs: T0 + minute * MINUTE,
      events,
      ...(server === undefined ? {} : { serverNowMs: T0 + server * MINUTE }),
      ...rest,
    });
    state = result.state;
    return result.notices.map((notice) => ({ ...notice, at: minute }));
  });
  return { state, notices, said: notices.map(({ alert, key, at }) => `${alert} ${key} +${at}m`) };
}

it('stepAlerts: two rows refused for ten cycles: two alerts, then two recovered once both are at target', () => {
  const { notices, said, state } = run([
    ...Array.from({ length: 10 }, (_, index) => ({
      // Backing off, a row is not retried every cycle: no error event on odd cycles.
      events: index % 2 === 0 ? [refused('buy'), refused('sell')] : [],
      rows: [...BUY_FLAT, ...SELL_FLAT],
    })),
    { at: 12, rows: [...BUY_AT_TARGET, ...SELL_AT_TARGET] },
  ]);
  expect(said).toEqual([
    'started refused|USDTNGN buy +0m',
    'started refused|USDTNGN sell +0m',
    'recovered refused|USDTNGN buy +12m',
    'recovered refused|USDTNGN sell +12m',
  ]);
  expect(notices[2]).toMatchObject({ duration_s: 720 });
  expect(notices[0].text).toContain('USDTNGN buy: refused');
  expect(notices[2].text).toBe('hedge keep recovered — USDTNGN buy: refused (held 12 min)');
  expect(state.active.size).toBe(0);
});

const due = [row('sell', 1000, 30)];
const dueCovered = [row('sell', 1000, 0)];
const over = [row('buy', 1500)];
const held1250 = [row('buy', 1250)];
const unknownBuy = [{ ...row('buy', null), current_unknown: true as const }];
const dueBuy = { rows: [row('buy', 1000, 30)], server: 29 };
const storeDown = { events: [event('error', undefined, { phase: 'cycle', code: 'state', message: 'down' })] };
const down = { events: [unreachable], rows: BUY_FLAT };
const low = { exposureHeadroomUsd: 900, capacityUsd: new Map([['USDTNGN buy', 400]]) };
const fine = { exposureHeadroomUsd: 90_000, capacityUsd: new Map([['USDTNGN buy', 50_000]]) };
// [what the cycles show, the cycles, every notice said]
it.each([
  [
    'a re-open whose wait ran out with the order standing (still_pending) is no refusal: no alert',
    [
      {
        events: [event('error', 'buy', { action: 'reopen', code: 'still_pending', message: 'still submitted' })],
        rows: BUY_FLAT,
      },
      { rows: BUY_AT_TARGET },
    ],
    [],
  ],
  [
    'a store outage of many cycles is one alert and one recovery; the rows stand meanwhile',
    [{ events: [refused('buy')], rows: BUY_FLAT }, storeDown, storeDown, storeDown, { rows: BUY_FLAT }],
    ['started refused|USDTNGN buy +0m', 'started store_unreachable +1m', 'recovered store_unreachable +4m'],
  ],
  [
    'the server unreachable: once, and recovered by the first cycle that reads the book',
    [down, down, down, { rows: BUY_AT_TARGET }],
    ['started server_unreachable +0m', 'recovered server_unreachable +3m'],
  ],
  [
    'a side that settled instead of rolling is a missed roll, cleared when it is covered again',
    [
      { rows: due, server: 0 },
      // Not due yet and flat: a close by someone else, not a missed roll.
      { rows: SELL_FLAT, server: 1 },
      { rows: due, server: 2 },
      // The server's clock passed the due time and the side is flat, with no roll: it settled.
      { rows: SELL_FLAT, server: 40 },
      { rows: SELL_FLAT, server: 41 },
      { events: [event('reopen', 'sell')], rows: SELL_FLAT, server: 42 },
      { rows: SELL_AT_TARGET, server: 43 },
    ],
    ['started missed_roll|USDTNGN sell +3m', 'recovered missed_roll|USDTNGN sell +6m'],
  ],
  [
    "flat after the keeper's own roll (its open refused) is a refusal, not a missed roll",
    [
      {
        events: [event('error', 'sell', { action: 'roll', code: 'capacity_exceeded', message: 'no capacity' })],
        rows: dueCovered,
        server: 1,
      },
      { rows: SELL_FLAT, server: 2 },
    ],
    ['started refused|USDTNGN sell +0m'],
  ],
  [
    'a re-open in the cycle that finds a side settled does not hide the missed roll',
    [
      { rows: dueCovered, server: -1 },
      { events: [event('reopen', 'sell')], rows: SELL_FLAT, server: 30 },
      { rows: SELL_AT_TARGET, server: 31 },
    ],
    ['started missed_roll|USDTNGN sell +1m', 'recovered missed_roll|USDTNGN sell +2m'],
  ],
  [
    'drift: once while it holds (said by an event or seen in the rows), recovered at target',
    [{ events: [drift('buy', 1500)], rows: over }, { rows: over }, { rows: BUY_AT_TARGET }],
    ['started drift|USDTNGN buy +0m', 'recovered drift|USDTNGN buy +2m'],
  ],
  [
    // As in the keeper soak on a lagging server: a colleague's add left the side at 1250, and every
    // roll makes the side settle (current unknown) for a few cycles; none of those may clear the drift.
    'drift is not recovered by a cycle that cannot tell what the side holds (settling on a server whose views trail): only at target',
    [
      { events: [drift('buy', 1250)], rows: held1250 },
      { rows: BUY_FLAT },
      { events: [event('roll', 'buy')], rows: BUY_FLAT },
      { rows: held1250 },
      { rows: BUY_AT_TARGET },
    ],
    ['started drift|USDTNGN buy +0m', 'recovered drift|USDTNGN buy +4m'],
  ],
  [
    'a side closed outside the keeper (drift, change open) stays an alert while it is flat, and recovers once it holds its target again',
    [
      { events: [drift('sell', 0, { change: 'open' })], rows: SELL_FLAT },
      { rows: SELL_FLAT },
      { rows: SELL_AT_TARGET },
    ],
    ['started drift|USDTNGN sell +0m', 'recovered drift|USDTNGN sell +2m'],
  ],
  [
    // The keeper soak's short run: the roll fell due, a colleague's add landed on the record and the
    // positions list had not caught up, so the next cycle could not tell the side (settling); it then
    // held 1,250 and was rolled. That was paged "1000 USD settled instead of being rolled".
    'a side that cannot be told this cycle (settling) is not a missed roll; the last side it was told is judged once it can',
    [dueBuy, { rows: unknownBuy, server: 31 }, { rows: held1250, server: 32 }],
    ['started drift|USDTNGN buy +2m'],
  ],
  [
    "a book that could not be read at the roll's time (the server down a cycle) is not a missed roll either",
    [dueBuy, { events: [unreachable], rows: unknownBuy, server: 31 }, { ...dueBuy, server: 32 }],
    ['started server_unreachable +1m', 'recovered server_unreachable +2m'],
  ],
  [
    // A hedge that matured unrolled is settling (shown filled, then listed after its settlement) before
    // the side is flat: the missed roll is said once the side is seen flat, judged on the side last told.
    'a hedge that matured unrolled is a missed roll once its side is seen flat, judged on the side last told',
    [
      dueBuy,
      { rows: unknownBuy, server: 31 },
      { rows: unknownBuy, server: 32 },
      { rows: BUY_FLAT, server: 33 },
      { rows: BUY_AT_TARGET, server: 34 },
    ],
    ['started missed_roll|USDTNGN buy +3m', 'recovered missed_roll|USDTNGN buy +4m'],
  ],
  [
    'a row removed from the target clears its alerts',
    [{ events: [refused('buy')], rows: BUY_FLAT }, { rows: [] }],
    ['started refused|USDTNGN buy +0m', 'recovered refused|USDTNGN buy +1m'],
  ],
  ['drift within the tolerance is no drift', [{ rows: [row('buy', 1040)], toleranceUsd: 50 }], []],
  [
    "headroom below the threshold: the exposure cap and a row's capacity, each once; not judged in a cycle that did not read it",
    [low, low, undefined, fine].map((headroom) => ({ rows: BUY_AT_TARGET, headroom, thresholdUsd: 1000 })),
    [
      'started exposure_headroom_low +0m',
      'started capacity_low|USDTNGN buy +0m',
      'recovered exposure_headroom_low +3m',
      'recovered capacity_low|USDTNGN buy +3m',
    ],
  ],
] as Array<[string, Step[], string[]]>)('stepAlerts: %s', (_name, steps, said) => {
  expect(run(steps).said).toEqual(said);
});

it('stepAlerts: a held side drifts for the alerts exactly when the keeper would bring it back to target', () => {
  // Held at 0 is a side whose records and positions line give no notional: held all the same, as the keeper judges it.
  for (const [held, toleranceUsd] of [
    [0, 0],
    [950, 50],
    [949.99, 50],
    [1050.01, 50],
    [1000, 0],
    [0, 1000],
  ]) {
    const line = held ? { notionalUsd: held } : {};
    const book = reconcileSide([{ id: 'hdg_a', status: 'filled', ...line }], line, T0);
    const keeperDrifts = towardTarget(book, 1000, toleranceUsd) !== undefined;
    const said = run([{ rows: [row('buy', held)], toleranceUsd }]).said;
    expect({ held, toleranceUsd, said }).toEqual({
      held,
      toleranceUsd,
      said: keeperDrifts ? ['started drift|USDTNGN buy +0m'] : [],
    });
  }
  // Flat under a target is re-opened, not drifted.
  expect(run([{ rows: BUY_FLAT, toleranceUsd: 0 }]).said).toEqual([]);
});
