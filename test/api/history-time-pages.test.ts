// History paged by close time (`meta.next_before` sent back as `before`): records that share the close time at a page's
// edge are neither lost nor counted twice, whichever way the server reads `before`.
import { apiData, closedAfterEach, envFor, MARKET, useSimulators } from '../support/simulator.js';
import { startAnswerProxy } from '../support/servers/field-proxy.js';
import { ok, okJson } from '../support/cli-runs.js';

const startSimulator = useSimulators();
const proxied = closedAfterEach(startAnswerProxy);

/**
 * On delta with several hedges per side: `tied` hedges on one side ended by one close (one close time
 * for all), then `later` closed one by one after.
 */
async function closedTogether(tied: number, later: number) {
  const simulator = await startSimulator({ dialect: 'delta', severalPerSide: true });
  for (let index = 0; index < tied; index++) simulator.seedOpen('buy', 10_000 + index * 100);
  await apiData(simulator, 'POST', '/hedges/close', { market: MARKET, side: 'buy' });
  for (let index = 0; index < later; index++) {
    simulator.advance(1_000);
    simulator.seedOpen('sell', 10_000 + index * 100);
    await apiData(simulator, 'POST', '/hedges/close', { market: MARKET, side: 'sell' });
  }
  simulator.advance(1_000);
  const history = [...Object.values(simulator.sandbox.engine.state.accounts)[0].history];
  expect([history.length, new Set(history.slice(0, tied).map((record) => record.closed_at)).size]).toEqual([
    tied + later,
    1,
  ]);
  return { simulator, history, newestFirst: history.map((record) => record.hedge_id).reverse() };
}

/** The hedge ids of the records a run printed as JSON. */
const idsIn = (run: { stdout: string }) => JSON.parse(run.stdout).map((record: any) => record.hedge_id);
/** The records' net P&L summed, to the cent. */
const summed = (records: Array<{ net_pnl_usd: unknown }>) =>
  Math.round(records.reduce((total, record) => total + Number(record.net_pnl_usd) * 100, 0)) / 100;

it("history paged by close time: delta: 20 hedges ended by one close, the 40-record page edge among them: history, history --limit 50 and report read each once, the next page asked 1 ms past the edge with room for the 10 records at it; so too where the server's marker keeps the edge (before read as older-or-equal: the records at the edge given again are counted once)", async () => {
  const { simulator, history, newestFirst } = await closedTogether(20, 30);
  const pastEdge = new Date(Date.parse(history[0].closed_at) + 1).toISOString();
  const asked = () => simulator.requests('GET', '/hedges/history').map((entry) => entry.query);
  // The same reads straight, then through a proxy that moves the marker 1 ms on: the next page starts with every
  // record closed at the edge, those already read too.
  for (const env of [
    undefined,
    envFor(
      await proxied(simulator.sandbox, (request, envelope) => {
        const meta = envelope.meta as Record<string, unknown>;
        if (request.path === '/hedges/history' && typeof meta.next_before === 'string')
          meta.next_before = new Date(Date.parse(meta.next_before) + 1).toISOString();
      }),
    ),
  ]) {
    const listed = ok(await simulator.hedge('history --since 2000-01-01 --json', { env }));
    expect([idsIn(listed), listed.stderr]).toEqual([newestFirst, '']);
    // The second page asked 1 ms past the shared close time: the 10 tied records the first page could not hold.
    if (!env)
      expect(
        asked()
          .slice(0, 2)
          .map((query) => query.before),
      ).toEqual([undefined, pastEdge]);
    const limited = asked().length;
    expect(idsIn(ok(await simulator.hedge('history --limit 50 --json', { env })))).toEqual(newestFirst);
    if (!env) expect(asked().slice(limited)).toEqual([{ limit: '50' }, { limit: '20', before: pastEdge }]);
    const report = okJson(await simulator.hedge('report --since 2000-01-01 --json', { env }));
    expect(report).toMatchObject({ totals: { count: 50, net_pnl_usd: summed(history) }, complete: true });
  }
});

it('history paged by close time: delta: 45 hedges ended by one close, more than a 40-record page: no record counted twice, and the read said incomplete', async () => {
  const { simulator, history } = await closedTogether(45, 0);
  const listed = await simulator.hedge('history --since 2000-01-01 --json');
  const ids = idsIn(listed);
  // One page of 40 can be asked, no more: each of them once, and the reader told the rest may be missing.
  expect([ids.length, new Set(ids).size, listed.code]).toEqual([40, 40, 0]);
  const read = history.filter((record) => ids.includes(record.hedge_id));
  expect(read).toHaveLength(40);
  expect(listed.stderr).toMatch(/returned 40 closed hedges.*may be incomplete/);

  const report = await simulator.hedge('report --since 2000-01-01 --json');
  expect(JSON.parse(report.stdout)).toMatchObject({
    totals: { count: 40, net_pnl_usd: summed(read) },
    complete: false,
  });
  expect(report.stderr).toMatch(/returned 40 closed hedges.*may be incomplete/);
  // The marker was a time: the warning names no cursor field it never saw.
  expect(report.stderr).not.toContain('next_cursor');
});
