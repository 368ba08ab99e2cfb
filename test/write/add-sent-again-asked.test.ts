// A person's "yes" to an add on a LIVE key holds for the side the question showed. On a server with its own name for
// the amount (the simulator's beta dialect: `delta_usd`), the first request is refused for the name and the add goes
// again under the server's name: when a colleague swapped the side's hedge for another of the same notional meanwhile,
// that "yes" is not carried over to the hedge now there. Judged on the simulator's request log and hedges.
import { expect, it } from 'vitest';
import { LIVE_KEY } from '../support/keys.js';
import { startLiveKeyProxy } from '../support/servers/field-proxy.js';
import { MARKET, useSimulators, type Simulator } from '../support/simulator.js';
import { swappedAsAddArrives } from './swapped-side.js';
import { activeSizes } from '../support/keeper.js';

const startSimulator = useSimulators();
/** How many of the add's questions were answered on the screen. */
const answered = (screen: string) => screen.split('✔ LIVE Add').length - 1;

/** `hedge add USDTNGN buy 500` on a LIVE key, answering yes to the first question and no to any second. */
async function addLive(simulator: Simulator) {
  const proxy = await startLiveKeyProxy(simulator.sandbox);
  return simulator
    .hedge('add USDTNGN buy 500', {
      env: { HEDGE_API_KEY: LIVE_KEY, HEDGE_BASE_URL: proxy.baseUrl },
      person: async (person) => {
        for (const answer of ['y\r', 'n\r']) if (await person.asked('(y/N)')) person.type(answer);
      },
    })
    .finally(() => proxy.close());
}

it('beta, live: the side swapped for a hedge of the same notional while the add refused for its name was answered, the add is not sent again on the old "yes"; asked again naming the hedges, a No sends nothing (exit 8)', async () => {
  const simulator = await startSimulator({ dialect: 'beta' });
  const shown = simulator.seedOpen('buy', 1000);
  // A colleague's close and open of the same 1,000, in the engine as the refused add arrives.
  const swappedNow = swappedAsAddArrives(simulator, 1000);
  const run = await addLive(simulator);
  const swapped = swappedNow();

  expect(swapped).not.toBe('');
  expect(simulator.requests('POST', '/hedges/add').map((request) => [request.status, request.body])).toEqual([
    [400, { market: MARKET, side: 'buy', notional_usd: 500 }],
  ]);
  expect(activeSizes(simulator, 'buy')).toEqual([[swapped, 1000]]);
  expect([run.code, answered(run.stdout), run.stdout.replace(/\s+/g, ' ')], run.stdout).toEqual([
    8,
    2,
    expect.stringContaining(`in ${swapped} now, not the 1,000.00 USD in ${shown.id} shown`),
  ]);
});

it('beta, live: the side as the question showed it, the add refused for its name goes again on the one "yes" and lands once (exit 0)', async () => {
  const simulator = await startSimulator({ dialect: 'beta' });
  const hedge = simulator.seedOpen('buy', 1000);
  // A second question would take the No.
  const run = await addLive(simulator);

  expect([run.code, answered(run.stdout)], run.stdout).toEqual([0, 1]);
  expect(simulator.requests('POST', '/hedges/add').map((request) => request.status)).toEqual([400, 200]);
  expect(activeSizes(simulator, 'buy')).toEqual([[hedge.id, 1500]]);
});
