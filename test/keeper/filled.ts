// Waiting for a keeper's side to hold exactly one filled hedge on the server, and matching its events.
import { filledActive } from '../support/keeper.js';
import { until } from '../support/polling.js';
import type { Simulator } from '../support/simulator.js';

/** Resolves once the server's `side` holds one filled hedge; fails naming `what`. */
export const oneFilled = (simulator: Simulator, side: 'buy' | 'sell', what: string) =>
  until(() => filledActive(simulator, side).length === 1, what);

/** Matches a keeper event of that kind with those fields (a string: its side). */
export const eventIs =
  (kind: string, more: string | Record<string, unknown> = {}) =>
  (event: Record<string, any>) =>
    event.event === kind &&
    Object.entries(typeof more === 'string' ? { side: more } : more).every(([key, value]) => event[key] === value);
