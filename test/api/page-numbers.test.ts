// Lists paged by zero-based page number (the epsilon dialect: `?page=&size=`, 20 by default, `meta {page, size,
// total_pages, total_elements}`), read with no wire setting: the client asks its own page size (`limit`), learns the
// server's from its answer and keeps it while paging by number, reads its stated total, lists a row seen twice across
// pages that shifted once, and says when what it read is short of that total.
import { okJson } from '../support/cli-runs.js';
import { useSimulators, type Simulator } from '../support/simulator.js';

const start = useSimulators({ dialect: 'epsilon' });

/** 35 hedges closed (35 history records) and one open: 36 hedges, newest first. */
async function book() {
  const simulator = await start();
  simulator.sandbox.seedHedges({ apiKey: simulator.apiKey, count: 35 });
  simulator.advance(1_000);
  simulator.seedOpen('buy', 10_000);
  return simulator;
}

/** The server's own hedges, newest first, and its history records, newest first. */
const hedgesNewestFirst = (simulator: Simulator) =>
  simulator
    .hedges()
    .toSorted((a, b) => b.openedAtMs - a.openedAtMs || b.id.localeCompare(a.id))
    .map((hedge) => hedge.id);
const historyNewestFirst = (simulator: Simulator) =>
  Object.values(simulator.sandbox.engine.state.accounts)[0]
    .history.map((record) => record.hedge_id)
    .reverse();
/** The queries of the GETs of `path`, in order. */
const asked = (simulator: Simulator, path: string) => simulator.requests('GET', path).map((entry) => entry.query);

it('hedges --json and history --limit 60 --json: the server pages by number at 20 and ignores limit: every row read once (36 hedges, 35 records), the second page asked at the size the first was served at, nothing said', async () => {
  const simulator = await book();
  const hedges = await simulator.hedge('hedges --json');
  expect([okJson(hedges).map((hedge: { id: string }) => hedge.id), hedges.stderr]).toEqual([
    hedgesNewestFirst(simulator),
    '',
  ]);
  expect(asked(simulator, '/hedges')).toEqual([{ limit: '51' }, { limit: '51', size: '20', page: '1' }]);

  const history = await simulator.hedge('history --limit 60 --json');
  expect([okJson(history).map((record: { hedge_id: string }) => record.hedge_id), history.stderr]).toEqual([
    historyNewestFirst(simulator),
    '',
  ]);
  expect(okJson(history)).toHaveLength(35);
  expect(asked(simulator, '/hedges/history')).toEqual([{ limit: '60' }, { limit: '60', size: '20', page: '1' }]);
});

it('hedges --json on pages that shift while they are read (another desk opens a hedge between them): the row pushed onto the next page is listed once, and the hedge that came in front, not read, is said: 36 of the 37 the server counts', async () => {
  const simulator = await book();
  const before = hedgesNewestFirst(simulator);
  let reads = 0;
  // Another desk's open lands as the second page is asked: every row moves one place on.
  simulator.sandbox.setFaults({
    match: ({ method, path }) => {
      if (method === 'GET' && path === '/hedges' && ++reads === 2) simulator.seedOpen('sell', 5_000);
      return false;
    },
  });
  const run = await simulator.hedge('hedges --json');
  const ids = okJson(run).map((hedge: { id: string }) => hedge.id);
  expect([ids, new Set(ids).size]).toEqual([before, 36]);
  expect(run.stderr).toBe(
    'Only 36 of the 37 hedges the server counts could be read: its pages ended or moved before the rest. Run it again; `hedge doctor` shows how it pages.\n',
  );
  // Short of the total after the second page, the third was asked too (empty).
  expect(asked(simulator, '/hedges')).toEqual([
    { limit: '51' },
    { limit: '51', size: '20', page: '1' },
    { limit: '51', size: '20', page: '2' },
  ]);
});
