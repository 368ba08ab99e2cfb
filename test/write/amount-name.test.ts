// An add on a server with its own name for the amount (the simulator's beta dialect: `delta_usd`): the first request,
// refused for the name, did nothing, and the add goes again under the server's name. An agent's limits and its live
// confirmation judge that one trade once: neither the refused request nor the name it went out under counts against
// it. A person's (or an agent's) "yes" to it on a LIVE key holds for the side the question showed: when a colleague
// swapped the side's hedge for another of the same notional meanwhile, it is not carried over to the hedge now there.
// Judged on the simulator's request log, its hedges and the journal.
import { useToolboxes } from '../agent/toolbox-on.js';
import { BUY, expectDone, journal, json } from '../agent/answers.js';
import type { McpAnswer } from '../support/mcp.js';
import { call as callEngine } from '../support/engine.js';
import { startLiveKeyProxy } from '../support/servers/field-proxy.js';
import { FILL_DELAY_MS, MARKET, useSimulators, type Simulator } from '../support/simulator.js';
import { activeSizes } from '../support/keeper.js';

const startSimulator = useSimulators();
const toolboxOn = useToolboxes();

const adds = (simulator: Simulator) =>
  simulator.requests('POST', '/hedges/add').map((request) => [request.status, request.body]);

/**
 * A colleague's close and open of the same `notional` on the buy side, in the engine as the add named `notional_usd`
 * (the one the server refuses for the name) arrives: the new hedge's id once it is swapped.
 */
function swappedAsAddArrives(simulator: Simulator, notional: number) {
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

/** A beta server whose buy side holds a hedge of 10,000, and an agent's toolbox on it with `options`. */
function besideBeta(options = {}) {
  return startSimulator({ dialect: 'beta' }).then((simulator) => ({
    simulator,
    hedge: simulator.seedOpen('buy', 10_000),
    ...toolboxOn(simulator, options),
  }));
}
const LIVE = { live: true };

/** The add of `notional` that `answer` answered: sent refused for its name, then under the server's, landed once. */
async function landedOnce(simulator: Simulator, answer: McpAnswer, notional: number, held: [string, number]) {
  expectDone(answer);
  expect(adds(simulator)).toEqual([
    [400, { ...BUY, notional_usd: notional }],
    [200, { ...BUY, delta_usd: notional }],
  ]);
  expect(activeSizes(simulator, 'buy')).toEqual([held]);
  expect((await journal(simulator)).map((entry) => entry.outcome).sort()).toEqual(['done', 'rejected']);
}

it('beta, live: an add of 10,000 under caps of 15,000 a call and a day, confirmed with its token, goes again under the server name and lands once; the daily count then holds it once (a further 6,000 is over)', async () => {
  const limits = { maxNotionalUsd: 15_000, maxDailyNotionalUsd: 15_000 };
  const { simulator, hedge, call } = await besideBeta({ limits, ...LIVE });
  const preview = json(await call('add', { ...BUY, notional: 10_000 }));
  expect(adds(simulator)).toEqual([]);

  const confirmed = await call('add', { ...BUY, notional: 10_000, confirmation_token: preview.confirmation_token });
  await landedOnce(simulator, confirmed, 10_000, [hedge.id, 20_000]);

  // The day's count is the one add that landed: 10,000 and 6,000 pass 15,000; nothing more is sent.
  const refused = json(await call('add', { ...BUY, notional: 6_000 }));
  expect(refused.error).toMatchObject({
    code: 'max_daily_notional_exceeded',
    details: { used_last_24h_usd: 10_000, this_call_usd: 6_000 },
  });
  expect(adds(simulator)).toHaveLength(2);
});

it('beta, live: the side swapped for a hedge of the same notional while the add refused for its name was answered, the token does not send it again (preview_changed, nothing more sent)', async () => {
  const { simulator, hedge: shown, call } = await besideBeta(LIVE);
  const preview = json(await call('add', { ...BUY, notional: 5_000 }));
  // A colleague's close and open of the same 10,000, in the engine as the refused add arrives.
  const swappedNow = swappedAsAddArrives(simulator, 10_000);

  const refused = json(await call('add', { ...BUY, notional: 5_000, confirmation_token: preview.confirmation_token }));
  const swapped = swappedNow();
  expect(refused.error, JSON.stringify(refused)).toMatchObject({ code: 'preview_changed' });
  expect(JSON.stringify(refused.error)).toContain(`${shown.id} then, ${swapped} now`);
  expect(adds(simulator)).toEqual([[400, { ...BUY, notional_usd: 5_000 }]]);
  expect(activeSizes(simulator, 'buy')).toEqual([[swapped, 10_000]]);
});

/** How many of the add's questions were answered on the screen. */
const answered = (screen: string) => screen.split('✔ LIVE Add').length - 1;

/** `hedge add USDTNGN buy 500` at a terminal on a LIVE key, answering yes to the first question and no to any second. */
async function addLive(simulator: Simulator) {
  const proxy = await startLiveKeyProxy(simulator.sandbox);
  return simulator
    .hedge('add USDTNGN buy 500', {
      env: proxy.env,
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
  expect(adds(simulator)).toEqual([[400, { market: MARKET, side: 'buy', notional_usd: 500 }]]);
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
