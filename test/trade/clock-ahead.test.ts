// A server whose clock runs 45 s ahead of this machine's and that sends no Date header: a process that has not
// opened a hedge knows its clock only from below (the stamps in its answers). A side whose hedge matures in about
// two minutes by the server's clock is in step, never "past its maturity": positions shows its time left, and a
// reduce (a full one too) goes through at once (an add: the conformance matrix's "add: clock ahead"; quoted for the days
// left on its clock: trade/trading-details.test.ts). The server is
// moved ahead with advance(), never waited for. On a server 10 min ahead, --watch's maturity alert and countdown
// count on its clock too.
import { MARKET, useSimulators } from '../support/simulator.js';
import { exits, ok, okJson } from '../support/cli-runs.js';
import { activeSizes } from '../support/keeper.js';

const start = useSimulators({ stepped: true });

it("a server 45 s ahead without a Date header: maturities on the server's clock: after a close of the sell side, positions shows the buy hedge in step with its two minutes left, not past its maturity; reduce USDTNGN buy 300 exits 0 without reading the side again, and a full reduce of the rest too", async () => {
  // A buy and a sell of 1,000 whose 7-day tenor is 140 s (a day of 20 s).
  const simulator = await start({ noDateHeader: true, dayMs: 20_000 });
  simulator.advance(45_000);
  const buy = simulator.seedOpen('buy', 1_000);
  simulator.seedOpen('sell', 1_000);
  ok(await simulator.hedge(`close ${MARKET} sell --yes`));
  expect(simulator.active('sell')).toEqual([]);
  expect(simulator.sends('/hedges/close')).toHaveLength(1);
  // Still two minutes from its maturity on the server's own clock.
  expect(buy.maturityAtMs - simulator.sandbox.clock.now()).toBeGreaterThan(120_000);
  expect(simulator.active('buy').map((hedge) => hedge.status)).toEqual(['filled']);

  const json = ok(await simulator.hedge('positions --json'));
  expect(JSON.parse(json.stdout)).toMatchObject([
    { side: 'buy', notional_usd: 1_000, side_book: { state: 'in-step', why: null, hedges: [{ id: buy.id }] } },
  ]);
  expect(json.stderr).not.toContain('settling');

  const table = ok(await simulator.hedge('positions', { screen: { columns: 160, rows: 40 } }));
  expect(table.stdout).not.toContain('past its maturity');
  // The side's Left column and its hedge's line count from the server's time, as the side was judged.
  expect(table.stdout).toMatch(/^USDTNGN +buy .* 2m$/m);
  expect(table.stdout).toMatch(new RegExp(`└ ${buy.id} +— +1,000\\.00 USD +filled +2m +\\d{4}-`));

  const from = simulator.sandbox.requestLog.length;
  ok(await simulator.hedge(`reduce ${MARKET} buy 300 --yes --timeout 8`));
  expect(activeSizes(simulator, 'buy')).toEqual([[buy.id, 700]]);
  // No side read again while it "settles": one read of the book before the send, none in a settling loop.
  // The requests the server received since, as `METHOD /path`.
  const sent = simulator
    .requests()
    .slice(from)
    .map((entry) => `${entry.method} ${entry.path}`);
  expect(
    sent.slice(0, sent.indexOf('POST /hedges/reduce')).filter((request) => request === 'GET /positions'),
  ).toHaveLength(1);

  expect(okJson(await simulator.hedge(`reduce ${MARKET} buy 700 --yes --timeout 8 --json`))).toMatchObject({
    market: MARKET,
    side: 'buy',
  });
  expect(simulator.sends('/hedges/reduce')).toHaveLength(2);
  expect(simulator.active('buy')).toEqual([]);
});

it("a server 10 min ahead, its Date header and its records alike: --watch and a hedge's card count maturities on its clock: hedges ID: its card's maturity says the time left on the server's clock, as the hedges list does; positions --watch --alert-maturity 5m fires for a hedge 140 s from its maturity there (14 min by ours), with its time left there", async () => {
  // A buy of 1,000 whose 7-day tenor is 140 s (a day of 20 s).
  const simulator = await start({ dayMs: 20_000 });
  simulator.advance(600_000);
  const buy = simulator.seedOpen('buy', 1_000);
  expect(buy.maturityAtMs - simulator.sandbox.clock.now()).toBeLessThan(180_000);
  expect(ok(await simulator.hedge(`hedges ${buy.id}`, { screen: { columns: 160, rows: 40 } })).stdout).toMatch(
    /Maturity +│ \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC \(in 2m\) /,
  );

  const leftMs = buy.maturityAtMs - simulator.sandbox.clock.now();
  expect(leftMs).toBeLessThan(300_000);

  // --exit-on-alert: it ends at the first alert with exit 10, after the refresh (one read) and its alert record.
  const reads = simulator.requests('GET', '/positions').length;
  const run = exits(await simulator.hedge(`positions --watch 5 --alert-maturity 5m --exit-on-alert --count 1`), 10);
  const records = run.stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
  expect(records.map((record) => (record.alert ? 'alert' : 'data'))).toEqual(['data', 'alert']);
  expect(records[1].alert).toEqual({
    kind: 'maturity',
    market: 'USDTNGN',
    side: 'buy',
    hedge_id: buy.id,
    maturity_at: expect.any(String),
    seconds_left: expect.any(Number),
    within: '5m',
  });
  expect(run.stderr).toContain('Ended by --exit-on-alert (exit 10).');
  expect(simulator.requests('GET', '/positions').slice(reads)).toHaveLength(1);
  const secondsLeft = records[1].alert.seconds_left;
  expect(secondsLeft).toBeLessThanOrEqual(Math.ceil(leftMs / 1000));
  expect(secondsLeft).toBeGreaterThan(leftMs / 1000 - 60);
  // The closing line says the time left on the server's clock too: about two minutes, not fourteen.
  expect(run.stderr).toMatch(/matures in 2 min( \d+ s)? /);
  expect(simulator.writes()).toEqual([]);
});
