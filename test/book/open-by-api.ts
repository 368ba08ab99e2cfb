// Opening a hedge as another client would, for the read tests of this folder.
import { openBody } from '../support/engine.js';
import { apiData, type Simulator } from '../support/simulator.js';

/** Opens a hedge over plain HTTP (nothing journaled here) and returns its id. */
export const openByApi = async (
  simulator: Simulator,
  side: 'buy' | 'sell',
  notional: number,
  tenor: number,
  ref?: string,
) => (await apiData(simulator, 'POST', '/hedges', openBody(side, notional, tenor, { client_reference: ref }))).hedge_id;
