// A side read from hedge records that may be cut (alpha: one page of 50, `limit` not read, no further page) never
// confirms or decides a write: what the read cannot hold is "cannot tell" (exit 12), said with what to set. Asserted
// on the simulator's state and request log; a proxy in front of it plays a server whose positions line gives no
// notional (the spec names no field for it), so the side is sized from its records.
import { exits, journalEntries } from '../support/cli-runs.js';
import { hedgeOf, activeSizes } from '../support/keeper.js';
import { startAnswerProxy } from '../support/servers/field-proxy.js';
import { apiData, colleagueCloses, colleagueOpens, envFor, useSimulators } from '../support/simulator.js';
import { openByApi } from './open-by-api.js';

const startSimulator = useSimulators();

it('an add whose wait reads the side cut (a colleague opened 49 hedges meanwhile): cannot tell at the first read, never "something outside this run moved the side" after the whole wait', async () => {
  // --timeout 5 on a clock the run's pauses alone move: a loaded machine's start-up and reads take none of it.
  const simulator = await startSimulator({ dialect: 'alpha', stepped: true, untimed: true });
  const older = simulator.seedOpen('buy', 1_000);
  simulator.sandbox.seedHedges({ apiKey: simulator.apiKey, count: 1, status: 'closed' });
  const newer = simulator.seedOpen('buy', 2_000);
  let added = false;
  const proxy = await startAnswerProxy(simulator.sandbox, (request, envelope) => {
    // Every name hedge would read a position's notional from (api/wire/fields.ts), gone.
    if (request.path === '/positions')
      for (const line of envelope.data as Array<Record<string, unknown>>)
        for (const name of Object.keys(line))
          if (/notional|size|amount|exposure|position_usd/.test(name)) delete line[name];
    // Once the add is answered, 49 newer filled hedges on the other side put the older buy past the page of 50.
    if (request.method === 'POST' && request.path === '/hedges/add' && envelope.data && !added) {
      added = true;
      for (let count = 0; count < 49; count++) simulator.seedOpen('sell', 1_000);
    }
  });
  try {
    const sentBefore = simulator.requests().length;
    const add = exits(
      await simulator.hedge('add USDTNGN buy 500 --timeout 5 --json', {
        env: { ...envFor(proxy), HEDGE_WIRE_NOTIONAL_FIELD: 'amount_usd' },
      }),
      12,
      'HEDGE_WIRE_PAGE_SIZE_PARAM',
    );
    expect(add.stderr).toMatch(
      /The buy side of USDTNGN cannot be told: the hedge records may be cut at 50 filled hedges/,
    );
    expect(add.stderr).not.toMatch(/something outside this run moved the side/);
    // Sent once; it landed on the newer hedge: the side holds 3 500, of which the read after it showed 2 500.
    expect(simulator.sends('/hedges/add')).toHaveLength(1);
    expect(activeSizes(simulator, 'buy').sort()).toEqual(
      [
        [older.id, 1_000],
        [newer.id, 2_500],
      ].sort(),
    );
    // Journaled as what it is: sent, its outcome unknown (for `hedge journal resolve`).
    const [entry] = await journalEntries(simulator);
    expect(entry).toMatchObject({ command: 'add', outcome: 'unknown' });
    // The wait read the side once after the add and stopped: one page of one asked, not a poll to the bound.
    const after = simulator.requests().slice(sentBefore);
    const reads = after.slice(after.findIndex((entry) => entry.path === '/hedges/add') + 1);
    expect(reads.filter((entry) => entry.path === '/positions')).toHaveLength(1);
    expect(reads.filter((entry) => entry.path === '/hedges' && entry.query.limit === '1')).toHaveLength(1);
  } finally {
    await proxy.close();
  }
});

it('a side whose early-closed hedge (alpha leaves it `filled`) is past the 50 history records read: an add waits within its bound (a trailing view may still bring the side into step), then cannot tell, saying the history may be cut and what to set; open --ref re-using the reference of that early-closed hedge: cannot tell (exit 12), never "an active hedge already carries" it; nothing sent', async () => {
  const simulator = await startSimulator({ dialect: 'alpha' });
  const early = await openByApi(simulator, 'buy', 1_000, 7, 'DEAL-9');
  simulator.advance(1_000);
  // Closed (alpha leaves it `filled`), then 50 hedges closed since, hours later (most opened before it): the early
  // close is the 51st history record, past alpha's one page.
  await colleagueCloses(simulator, 'buy');
  expect((await apiData(simulator, 'GET', `/hedges/${early}`)).status).toBe('filled');
  simulator.advance(60 * 3_600_000);
  simulator.sandbox.seedHedges({ apiKey: simulator.apiKey, count: 50 });
  expect(simulator.historyCount()).toBe(51);
  /** What the reads of the history asked (each query) from the `from`th request on. */
  const historyReads = (from: number) =>
    simulator
      .requests()
      .slice(from)
      .filter((entry) => entry.path === '/hedges/history')
      .map((entry) => entry.query);
  const beforeAdd = simulator.requests().length;
  expect(hedgeOf(simulator, early).status).toBe('closed');
  // The hedge itself is among the 50 newest hedges.
  expect((await apiData(simulator, 'GET', '/hedges')).map((hedge: any) => hedge.id)).toContain(early);
  expect(
    exits(
      await simulator.hedge('add USDTNGN buy 100 --timeout 3 --json', {
        env: { HEDGE_WIRE_NOTIONAL_FIELD: 'amount_usd' },
      }),
      12,
      'HEDGE_WIRE_PAGE_SIZE_PARAM',
    ).stderr,
  ).toMatch(
    new RegExp(
      `The buy side of USDTNGN cannot be told: the history may be cut at 50 records .*whether ${early} ended cannot be read.*Nothing was sent`,
    ),
  );
  expect(simulator.requests('POST', '/hedges/add')).toEqual([]);
  // Each read of the history asks its newest page under the page size; one page of one, once, to check it.
  const history = historyReads(beforeAdd);
  expect(history.filter((query) => query.limit === '1')).toEqual([{ limit: '1' }]);
  expect(history.filter((query) => query.limit !== '1').length).toBeGreaterThan(1);
  expect(history.every((query) => query.limit === '500' || query.limit === '1')).toBe(true);

  const beforeOpen = simulator.requests().length;
  const open = exits(
    await simulator.hedge('open USDTNGN buy 1000 --tenor 3 --ref DEAL-9 --yes'),
    12,
    'HEDGE_WIRE_PAGE_SIZE_PARAM',
    '--allow-duplicate-ref',
  );
  expect(open.stderr).toMatch(
    new RegExp(
      `Whether hedge ${early}, which carries client reference "DEAL-9", has ended cannot be told: .*history .*may be cut at 50 records.*Nothing was sent`,
    ),
  );
  expect(open.stderr).not.toMatch(/An active hedge already carries/);
  expect(simulator.requests('POST', '/hedges').slice(1)).toEqual([]);
  expect(historyReads(beforeOpen)).toEqual([{ limit: '500' }, { limit: '1' }]);
});

it('open --ref whose reference an active hedge carries behind 20 newer closed ones carrying it: refused (exit 3), nothing sent, no second hedge of the deal', async () => {
  const simulator = await startSimulator();
  await colleagueOpens(simulator, 'buy', 1_000, 7, 'DEAL-5');
  const [active] = simulator.active('buy');
  // The deal's reference re-used 20 times since on the other side, each hedge closed again.
  for (let count = 0; count < 20; count++) {
    await colleagueOpens(simulator, 'sell', 1_000, 7, 'DEAL-5');
    await colleagueCloses(simulator, 'sell');
  }
  expect(simulator.hedges().filter((hedge) => hedge.clientReference === 'DEAL-5')).toHaveLength(21);
  const opens = simulator.requests('POST', '/hedges').length;
  exits(
    await simulator.hedge('open USDTNGN sell 1000 --tenor 3 --ref DEAL-5 --yes'),
    3,
    `An active hedge already carries client reference "DEAL-5": ${active.id}`,
  );
  expect(simulator.requests('POST', '/hedges')).toHaveLength(opens);
  expect(simulator.active('sell')).toEqual([]);
});
