// End to end on the simulator: the books belong to the account a key opens (two servers on one machine never see or
// block each other; a new key of the account keeps them). What is asserted is the records as hedge reads them back
// and the simulator's own state: no acct command sends a write.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { exits, ok, okJson } from '../support/cli-runs.js';
import { colleagueOpens, MARKET, useSimulators, type Simulator } from '../support/simulator.js';
import { KEY_A, KEY_B, KEY_C } from '../support/keys.js';
import { ROOT } from '../support/hedge-cli.js';

const start = useSimulators();
const DAY = 24 * 3_600_000;
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const serverDay = (simulator: Simulator) => dayOf(simulator.sandbox.clock.now());
const EXAMPLE = JSON.parse(readFileSync(join(ROOT, 'docs', 'examples', 'relationship.json'), 'utf8'));

/** A relationship over the desk's hedges carrying `reference`, designated on `day`. */
const deskRelationship = (id: string, reference: string, day: string, item: Record<string, string>, more = {}) => ({
  ...EXAMPLE,
  id,
  framework: 'ifrs9',
  designated_at: day,
  market: MARKET,
  hedged_item: { ...EXAMPLE.hedged_item, kind: 'forecast', expected_date: dayOf(Date.parse(day) + 30 * DAY), ...item },
  instrument: { references: [reference] },
  designation: 'spot',
  excluded: 'pnl',
  ...more,
});

function writer(dir: string) {
  return (name: string, content: unknown) => {
    const path = join(dir, name);
    writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
    return path;
  };
}

const ids = (rows: Array<{ id: string }>) => rows.map((row) => row.id);

it('two accounts on one machine (two servers, two hpk_test_ keys): each keeps its own relationships and rates, neither sees nor blocks the other', async () => {
  const [a, b] = [await start(), await start()];
  expect(a.apiKey.split('_')[0]).toBe(b.apiKey.split('_')[0]);
  // One machine: one config and state folder for both.
  const machine = a.configDir;
  const file = writer(machine);
  for (const simulator of [a, b]) {
    const run = (args: string[]) => simulator.hedge(args, { configDir: machine });
    await colleagueOpens(simulator, 'buy', 2_000, 7, 'COVER-1');
    // The same day's rate on each server, and a relationship under the same id: neither is "recorded already".
    ok(await run(['acct', 'rates', '--record', '--market', MARKET]));
    const day = serverDay(simulator);
    const path = file('r.json', deskRelationship('NGN-1', 'COVER-1', day, { currency: 'NGN', amount: '3m' }));
    ok(await run(['acct', 'designate', path]));
    simulator.advance(DAY);
    ok(await run(['acct', 'rates', '--record', '--market', MARKET]));
  }
  for (const simulator of [a, b]) {
    const run = (args: string[]) => simulator.hedge(args, { configDir: machine });
    expect(ids(okJson(await run(['acct', 'list', '--json'])))).toEqual(['NGN-1']);
    // Its own server's prices alone.
    const rates = okJson(await run(['acct', 'rates', '--market', MARKET, '--json']));
    expect(rates).toHaveLength(2);
    for (const rate of rates) expect(rate.source).toContain(`GET /prices at ${simulator.baseUrl} (`);
    const [row] = okJson(await run(['acct', 'test', 'NGN-1', '--json']));
    expect(row.period_end).toBe(serverDay(simulator));
    // Reads only: the one write each server saw is the colleague's open.
    expect(simulator.writes().map((entry) => entry.path)).toEqual(['/hedges']);
  }
});

it('a new key of the account keeps its books and values them; a key another account holds at that address is refused naming the hedges, never valued at 0', async () => {
  // KEY_A and KEY_B open one account (a key rotated); KEY_C another.
  const simulator = await start({ preset: 'keys', knownAccountIds: { [KEY_A]: 'acct_one', [KEY_B]: 'acct_one' } });
  const as = (key: string) => ({ env: { HEDGE_API_KEY: key } });
  const file = writer(simulator.configDir);
  await colleagueOpens(simulator, 'buy', 2_000, 7, 'PAY-1');
  ok(await simulator.hedge(['acct', 'rates', '--record', '--market', MARKET], as(KEY_A)));
  const day = serverDay(simulator);
  const path = file('r.json', deskRelationship('PAY-1-REL', 'PAY-1', day, { currency: 'NGN', amount: '1m' }));
  ok(await simulator.hedge(['acct', 'designate', path], as(KEY_A)));
  simulator.advance(DAY);
  ok(await simulator.hedge(['acct', 'rates', '--record', '--market', MARKET], as(KEY_B)));
  const [byA] = okJson(await simulator.hedge(['acct', 'test', 'PAY-1-REL', '--json'], as(KEY_A)));
  const [byB] = okJson(await simulator.hedge(['acct', 'test', 'PAY-1-REL', '--json'], as(KEY_B)));
  expect(byB).toEqual(byA);
  exits(
    await simulator.hedge(['acct', 'test', 'PAY-1-REL'], as(KEY_C)),
    2,
    'instrument.references: no hedge of this account carries PAY-1',
  );
});
