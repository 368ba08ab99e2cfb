// End to end on simulators that answer the spec's "not shown" parts another way: what a side shows is judged by the
// one side model (features/book/book.ts), so a close that worked exits 0, a filled hedge on a listed side is active
// without the history, the server's 404 for a whole id stands, and a reduce that closes the side says what it realized.
// Asserted on the simulator's state and request log.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { exits, lastJson, ok } from '../support/cli-runs.js';
import { activeSizes, hedgeOf } from '../support/keeper.js';
import {
  apiData,
  colleagueCloses,
  colleagueOpens,
  MARKET,
  useSimulators,
  type Simulator,
} from '../support/simulator.js';

const startSimulator = useSimulators({ stepped: true });

const historyOf = (simulator: Simulator) => Object.values(simulator.sandbox.engine.state.accounts)[0].history;

it('a close on a server that shows the early-closed hedge `settling` at notional 0 for a few seconds before `closed`: waited on as settling, then exit 0, never "open now" at 0.00 USD', async () => {
  const simulator = await startSimulator({ closedSettlingMs: 4_000 });
  const held = simulator.seedOpen('sell', 1_000);
  const closed = exits(await simulator.hedge(`close ${MARKET} sell --json`), 0);
  expect(closed.stderr).not.toMatch(/is open now/);
  expect(JSON.parse(closed.stdout)).toMatchObject({ hedge_id: held.id, status: 'closed' });
  // One close sent; the hedge closed on the server, and its record was read while it still said `settling`.
  expect([simulator.trades().map((entry) => entry.path), hedgeOf(simulator, held.id).status]).toEqual([
    ['/hedges/close'],
    'closed',
  ]);
  expect((await apiData(simulator, 'GET', `/hedges/${held.id}`)).status).toBe('closed');
});

it('open --ref with the reference of a hedge that is `filled` on its record and whose side is listed, on a server whose history pages by time (40 a page) with no next page named: refused as a duplicate (exit 3) without the history, nothing sent', async () => {
  const simulator = await startSimulator({ dialect: 'delta', unmarkedHistoryPages: true });
  // 45 hedges closed before: the history's one page of 40 holds only some of them.
  simulator.sandbox.seedHedges({ apiKey: simulator.apiKey, count: 45 });
  await colleagueOpens(simulator, 'sell', 1_000, 7, 'deal-11');
  const [active] = simulator.active('sell');
  const sent = simulator.trades().length;
  const refused = exits(await simulator.hedge(`open ${MARKET} sell 300 --tenor 7 --ref deal-11 --json`), 3);
  expect(lastJson(refused.stderr).error).toMatchObject({
    code: 'duplicate_client_reference',
    message: expect.stringContaining(`An active hedge already carries client reference "deal-11": ${active.id}`),
  });
  // Judged from the hedge's record and the positions line: the history was not read, nothing was sent.
  expect([
    simulator.requests('GET', '/hedges/history'),
    simulator.trades().length,
    activeSizes(simulator, 'sell'),
  ]).toEqual([[], sent, [[active.id, 1_000]]]);
});

it('hedges hdg_doesnotexist --json on a server whose hedge list cannot be read to its end (alpha: one page of 50, its page size not read): the server\'s 404 hedge_not_found for that id stands (exit 3), never "type the whole id"', async () => {
  const simulator = await startSimulator({ dialect: 'alpha' });
  simulator.sandbox.seedHedges({ apiKey: simulator.apiKey, count: 51 });
  const result = exits(await simulator.hedge('hedges hdg_doesnotexist --json'), 3, 'hedge_not_found');
  expect(result.stderr).not.toMatch(/type the whole id/);
  expect(simulator.requests('GET', '/hedges/hdg_doesnotexist').map((entry) => [entry.status, entry.errorCode])).toEqual(
    [[404, 'hedge_not_found']],
  );
});

it('a reduce of the whole side: --json says what it realized, as the close it is', async () => {
  const simulator = await startSimulator();
  const held = simulator.seedOpen('buy', 2_000);
  const body = JSON.parse(ok(await simulator.hedge(`reduce ${MARKET} buy 2000 --json`)).stdout);
  const [record] = historyOf(simulator).filter((one) => one.hedge_id === held.id);
  expect(body.realized).toMatchObject({
    hedge_id: held.id,
    notional_usd: record.notional_usd,
    net_pnl_usd: record.net_pnl_usd,
  });
  expect([simulator.trades().map((entry) => entry.path), hedgeOf(simulator, held.id).status]).toEqual([
    ['/hedges/reduce'],
    'closed',
  ]);
});

it("a deal's hedge closed early, shown `settling` at notional 0 on a server that shows that status before `closed`: history --ref lists its close and names no hedge still held; `hedges ID --watch` marks it settling in the side model's words and counts nothing down", async () => {
  const simulator = await startSimulator({ closedSettlingMs: 60_000 });
  await colleagueOpens(simulator, 'sell', 1_000, 7, 'deal-12');
  const [held] = simulator.active('sell');
  await colleagueCloses(simulator, 'sell');
  expect(await apiData(simulator, 'GET', `/hedges/${held.id}`)).toMatchObject({ status: 'settling', notional_usd: 0 });

  const history = ok(await simulator.hedge('history --ref deal-12 --json'));
  expect(JSON.parse(history.stdout).map((record: any) => record.hedge_id)).toEqual([held.id]);
  expect(history.stderr).not.toMatch(/still held/);

  const watched = ok(
    await simulator.hedge(`hedges ${held.id} --watch 1 --count 1`, { screen: { columns: 120, rows: 30 } }),
  ).stdout;
  expect(watched).toContain(
    `settling: hedge ${held.id} shows status "settling", which hedge does not know (neither open nor ended)`,
  );
  expect(watched).not.toMatch(/Matures in/);
  // Read only: nothing sent by hedge.
  expect(simulator.trades().map((entry) => entry.path)).toEqual(['/hedges', '/hedges/close']);
});

it("a deal's hedge closed early on a server that leaves it `filled` (alpha): history --ref and report --ref count its close and name no hedge still held, as the side model reads a filled hedge the history lists ended", async () => {
  const simulator = await startSimulator({ dialect: 'alpha' });
  await colleagueOpens(simulator, 'sell', 1_000, 7, 'deal-13');
  const [held] = simulator.active('sell');
  await colleagueCloses(simulator, 'sell');
  expect((await apiData(simulator, 'GET', `/hedges/${held.id}`)).status).toBe('filled');

  const history = ok(await simulator.hedge('history --ref deal-13 --json'));
  expect(JSON.parse(history.stdout).map((record: any) => record.hedge_id)).toEqual([held.id]);
  const report = ok(await simulator.hedge('report --ref deal-13 --json'));
  expect(JSON.parse(report.stdout).totals.count).toBe(1);
  for (const { stderr } of [history, report]) expect(stderr).not.toMatch(/still held/);
  expect(simulator.trades().map((entry) => entry.path)).toEqual(['/hedges', '/hedges/close']);
});

it("a target row's reference as a server keeps it in upper case (delta: deal-21 kept as DEAL-21): apply and the keeper take the side for the row's own, raising it by one add, never refused as holding another's hedges", async () => {
  const simulator = await startSimulator({ dialect: 'delta' });
  const file = join(simulator.configDir, 'target.csv');
  const target = (notional: number) =>
    writeFileSync(file, `market,side,notional_usd,tenor_days,client_reference\n${MARKET},buy,${notional},7,deal-21\n`);
  target(1_000);
  ok(await simulator.hedge(['apply', file, '--yes', '--json']));
  const [held] = simulator.active('buy');
  expect(held.clientReference).toBe('DEAL-21');
  target(1_500);
  ok(await simulator.hedge(['apply', file, '--yes', '--json']));
  target(2_000);
  ok(await simulator.hedge(['keep', file, '--once', '--converge']));
  // One open, then an add each: the same hedge throughout.
  expect([simulator.trades().map((entry) => entry.path), activeSizes(simulator, 'buy')]).toEqual([
    ['/hedges', '/hedges/add', '/hedges/add'],
    [[held.id, 2_000]],
  ]);
});
