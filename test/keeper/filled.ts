// A keeper test on a simulator of its own; waiting for a keeper's side to hold exactly one filled hedge on the
// server, what a side holds, and matching its events.
import { activeNotional, filledActive, HOUR, keeperTest, type KeeperRig } from '../support/keeper.js';
import { until } from '../support/polling.js';
import type { Simulator, SimulatorOptions } from '../support/simulator.js';

/** Resolves once the server's `side` holds one filled hedge; fails naming `what`. */
export const oneFilled = (simulator: Simulator, side: 'buy' | 'sell', what: string) =>
  until(() => filledActive(simulator, side).length === 1, what);

/** Matches a keeper event of that kind with those fields (a string: its side). */
export const eventIs =
  (kind: string, more: string | Record<string, unknown> = {}) =>
  (event: Record<string, any>) =>
    event.event === kind &&
    Object.entries(typeof more === 'string' ? { side: more } : more).every(([key, value]) => event[key] === value);

/** Asserts that the server's `side` holds `usd` in all (the sell side, 2,000, unless told). */
export const holds = (simulator: Simulator, usd = 2000, side: 'buy' | 'sell' = 'sell') =>
  expect(activeNotional(simulator, side)).toBe(usd);

/** Moves the server's clock to half an hour before a 7-day hedge opened now matures: within any roll_before. */
export const nearMaturity = (simulator: Simulator) => simulator.advance(7 * 24 * HOUR - HOUR / 2);

/** A keeper test on a simulator of its own, started with `options`. */
export const keeperCase = (
  name: string,
  options: SimulatorOptions,
  body: (simulator: Simulator, rig: KeeperRig) => Promise<unknown>,
) => keeperTest(name, async ({ rig }) => body(await rig.start(options), rig));
