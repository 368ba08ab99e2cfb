// What the agent's and the person's adds on a beta server (`delta_usd`) share: a colleague swapping the side's hedge
// while the add refused for its name is answered.
import { call as callEngine } from '../support/engine.js';
import { FILL_DELAY_MS, MARKET, type Simulator } from '../support/simulator.js';

/**
 * A colleague's close and open of the same `notional` on the buy side, in the engine as the add named `notional_usd`
 * (the one the server refuses for the name) arrives: the new hedge's id once it is swapped.
 */
export function swappedAsAddArrives(simulator: Simulator, notional: number) {
  let swapped = '';
  simulator.sandbox.setFaults({
    match: ({ method, path, body }) => {
      if (swapped || method !== 'POST' || path !== '/hedges/add') return false;
      if (!(body && typeof body === 'object' && 'notional_usd' in body)) return false;
      const closed = callEngine(simulator.sandbox.engine, simulator.sandbox.clock.now(), 'POST', '/hedges/close', {
        key: simulator.apiKey,
        idempotencyKey: 'colleague-close',
        body: { market: MARKET, side: 'buy' },
      });
      if (closed.status !== 200) throw new Error(`colleague close failed: ${JSON.stringify(closed.body)}`);
      simulator.advance(FILL_DELAY_MS + 1);
      swapped = simulator.seedOpen('buy', notional).id;
      return false;
    },
  });
  return () => swapped;
}
