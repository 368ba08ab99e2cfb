// An id hedge shows shortened (`hdg_0mw…9bif` at 80 columns) is taken back wherever an id is taken:
// as shown, or its start or its end alone, as git takes a short hash. Resolving it reads the hedge
// list (or the journal); an ambiguous one lists the candidates (exit 2); nothing is written.
//
// `hedge hedges ID --wait`: polls until the hedge is final; a filled hedge exits 0, a failed one
// exits 6 (order failed) with the hedge still printed. The sandboxes run on real time here so the
// fill lands while the CLI waits (300 ms after the open, well before its first poll a second later).
import { hedgeSchema } from '../../src/platform/api/schemas.js';
import { apiData, MARKET, useSimulators, type Simulator } from '../support/simulator.js';
import { exits, journalEntries, ok, okJson } from '../support/cli-runs.js';
import { openBody } from '../support/engine.js';

const start = useSimulators({ stepped: true });
/** A simulator on real time whose opens fill (or fail) 300 ms after they are sent. */
const onRealTime = (failRate = 0) => start({ seed: 7, fillDelayMs: 300, failRate, stepped: false });
const order = openBody('buy', 10_000, 1);
/** `hedge hedges …` against `on`. */
const hedges = (on: Simulator, args: string) => on.hedge(`hedges ${args}`);

it('hedges ID: --wait waits for the fill (exit 0), and for a failure (exit 6, the hedge still on stdout); a hedge already final is returned at once, with one request', async () => {
  const [filling, failing] = await Promise.all([onRealTime(), onRealTime(1)]);
  const [toFill, toFail] = await Promise.all([
    apiData(filling, 'POST', '/hedges', order),
    apiData(failing, 'POST', '/hedges', order),
  ]);
  expect([toFill.status, toFail.status]).toEqual(['submitted', 'submitted']);
  const [filled, failed, failedPlain] = await Promise.all([
    hedges(filling, `${toFill.id} --wait --json`),
    hedges(failing, `${toFail.id} --wait --json`),
    hedges(failing, `${toFail.id} --wait`),
  ]);
  ok(filled);
  expect(hedgeSchema.parse(JSON.parse(filled.stdout))).toMatchObject({ id: toFill.id, status: 'filled' });

  exits(failed, 6);
  expect(hedgeSchema.parse(JSON.parse(failed.stdout))).toMatchObject({ id: toFail.id, status: 'failed' });
  expect(JSON.parse(failed.stderr.trim())).toMatchObject({
    error: { code: 'order_failed', details: { hedge_id: toFail.id } },
  });

  exits(failedPlain, 6);
  const [keys, values] = failedPlain.stdout.split('\n').map((line) => line.split('\t'));
  expect(values[keys.indexOf('status')]).toBe('failed');
  expect(failedPlain.stderr).toContain(`Hedge ${toFail.id} failed on-chain`);

  // A hedge already final is returned at once, with one request.
  const hedge = await apiData(filling, 'POST', '/hedges', { ...order, side: 'sell' });
  // Past its fill on the simulator's clock (no sleep): the hedge is final before the CLI asks.
  filling.advance(300);
  const before = filling.sandbox.requestLog.length;
  expect(JSON.parse(ok(await hedges(filling, `${hedge.id} --wait --json`)).stdout)).toMatchObject({
    id: hedge.id,
    status: 'filled',
  });
  expect(filling.sandbox.requestLog.slice(before).map((entry) => `${entry.method} ${entry.path}`)).toEqual([
    `GET /hedges/${hedge.id}`,
  ]);
});

it('hedges ID: at 80 columns each id the list shortens, pasted back, is that hedge — as shown, and by its end alone; so is a journal id; an id that names several hedges, or none, is exit 2', async () => {
  const simulator = await start();
  for (const [side, ref] of [
    ['buy', 'DEAL-7'],
    ['sell', 'DEAL-8'],
  ] as const) {
    ok(await simulator.hedge(`open ${MARKET} ${side} 1000 --tenor 3 --ref ${ref} --json`));
  }
  const writes = simulator.writes().length;
  const table = ok(await simulator.hedge('hedges', { env: { HEDGE_FORCE_TTY: '1', COLUMNS: '80' } }));
  const shown = [...table.stdout.matchAll(/^(hdg_\S*…\S+) /gm)].map((match) => match[1]);
  expect(shown).toHaveLength(2);
  const ids = simulator.hedges().map((hedge) => hedge.id);
  const found: string[] = [];
  for (const typed of [...shown, ...shown.map((id) => id.split('…')[1])]) {
    found.push(okJson(await simulator.hedge(`hedges ${typed} --json`)).id);
  }
  expect(found.slice(0, 2).sort()).toEqual([...ids].sort());
  expect(found.slice(2)).toEqual(found.slice(0, 2));

  // A live view of one hedge takes it too.
  const watched = ok(await simulator.hedge(['hedges', shown[0], '--watch', '1', '--count', '1', '--format', 'ndjson']));
  expect(JSON.parse(watched.stdout.trim()).data.id).toBe(found[0]);
  expect(simulator.writes()).toHaveLength(writes);

  // `journal show` takes the end of a journal id, or its start and end around …
  const [{ id }] = await journalEntries(simulator);
  for (const typed of [id.slice(-5), `${id.slice(0, 6)}…${id.slice(-4)}`])
    expect(okJson(await simulator.hedge(`journal show ${typed} --json`)).id).toBe(id);

  // An id that names several hedges lists them (exit 2); one that names none says so (exit 2); nothing is written.
  const lists = simulator.requests('GET', /^\/hedges(\?|$)/).length;
  const ambiguous = exits(await simulator.hedge('hedges hdg_'), 2, '"hdg_" matches 2 hedges');
  for (const id of ids) expect(ambiguous.stderr).toContain(id);
  exits(await simulator.hedge('hedges zz…zz'), 2, 'no hedge of this account matches "zz…zz"');
  expect(simulator.requests('GET', /^\/hedges(\?|$)/).length).toBeGreaterThanOrEqual(lists + 2);
  expect(simulator.writes()).toHaveLength(writes);
});
