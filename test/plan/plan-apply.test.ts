// hedge plan / hedge apply against a sandbox server: the target reached from an empty book, a
// second apply that sends nothing, an apply killed mid-way (SIGKILL while the server has not
// finished answering its first write) that converges when run again with every action once on
// the server, a plan over the exposure cap (exit 3, nothing sent), a file with bad rows (exit 2,
// no request at all), the plan's exit codes (0 at target, 9 with changes), and a server that ignores the page size
// and serves one page of 50 (alpha): a target side whose filled hedges lie past that page is never planned from the
// cut read (no add of what the side already holds). Asserts on the server's own state and log.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { useSimulators, type Simulator } from '../support/simulator.js';
import { killWhen, ok, okJson, exits } from '../support/cli-runs.js';
import { openBody } from '../support/engine.js';

const startTrading = useSimulators({ stepped: true });

function targetFile(rig: Simulator, name: string, rows: string[]) {
  const path = join(rig.configDir, name);
  writeFileSync(path, `${['market,side,notional_usd,tenor_days', ...rows].join('\n')}\n`);
  return path;
}

/** Open (filled) notional per side, from the server's own state. */
function book(rig: Simulator) {
  const sides: Record<string, number> = {};
  for (const { status, market, side, notionalUsd } of rig.hedges())
    if (status === 'filled') sides[`${market} ${side}`] = (sides[`${market} ${side}`] ?? 0) + notionalUsd;
  return sides;
}

/** The given fields of each row of a JSON report. */
const columns = (rows: any[], ...keys: string[]) => rows.map((row) => keys.map((key) => row[key]));

it('hedge plan and apply on one book: a file with several bad rows is exit 2 naming every line, no request at all; plan exits 9 when changes are needed, reading and quoting only; apply from an empty book opens both sides, then rebalances: closes and reduces first, then adds, the server holding each target; plan exits 0 at target, within --tolerance too', async () => {
  const trading = await startTrading();
  const bad = targetFile(trading, 'bad.csv', [
    'USDTNGN,up,10000,3',
    'USDTNGN,sell,5k,7',
    'usd-ngn,sell,5k,7',
    'USDTNGN,buy,10000,2',
  ]);
  for (const command of ['plan', 'apply']) {
    const result = exits(await trading.hedge(`${command} ${bad}`), 2, 'bad.csv:2: ', 'bad.csv:4: ', 'bad.csv:5: ');
    expect(result.stderr).not.toContain('bad.csv:3:');
    expect(result.stdout).toBe('');
  }
  expect(trading.sandbox.requestLog).toEqual([]);

  const planned = targetFile(trading, 'plan.csv', ['USDTNGN,buy,6000,3']);
  const plan = JSON.parse(exits(await trading.hedge(`plan ${planned} --json`), 9).stdout);
  expect(plan).toMatchObject({ at_target: false, totals: { actions: 1, added_usd: 6_000 } });
  expect(plan.steps[0]).toMatchObject({
    step: 1,
    action: 'open',
    market: 'USDTNGN',
    side: 'buy',
    current_usd: 0,
    target_usd: 6_000,
    delta_usd: 6_000,
  });
  // The quote's margin: 10% of the 6,000 USD to open.
  expect([
    plan.steps[0].quote.upfront.required_margin_usdc,
    trading.trades(),
    trading.writes().map((entry) => entry.path),
  ]).toEqual([600, [], ['/quotes']]);

  const file = targetFile(trading, 'target.csv', ['USDTNGN,buy,10000,3', 'USDTNGN,sell,5k,7']);
  const result = ok(await trading.hedge(`apply ${file} --json`));
  expect(book(trading)).toEqual({ 'USDTNGN buy': 10_000, 'USDTNGN sell': 5_000 });
  const report = JSON.parse(result.stdout);
  expect(columns(report, 'step', 'action', 'side', 'delta_usd', 'outcome')).toEqual([
    [1, 'open', 'buy', 10_000, 'filled'],
    [2, 'open', 'sell', 5_000, 'filled'],
  ]);
  for (const row of report) {
    expect(row.hedge_id).toMatch(/^hdg_/);
    expect(row.journal_id).toMatch(/^a_/);
  }
  expect(result.stderr).toContain('[1/2] open 10,000.00 USD buy USDTNGN (3 days) … filled');
  expect(result.stderr).toContain('[2/2] open 5,000.00 USD sell USDTNGN (7 days) … filled');
  const opens = trading.trades();
  expect(opens.map((entry) => entry.body)).toEqual([openBody('buy', 10_000, 3), openBody('sell', 5_000, 7)]);
  expect(new Set(opens.map((entry) => entry.idempotencyKey)).size).toBe(2);

  const next = targetFile(trading, 'next.csv', ['USDTNGN,buy,12000,3', 'USDTNGN,sell,0,']);
  expect(columns(okJson(await trading.hedge(`apply ${next} --json`)), 'action', 'side', 'delta_usd')).toEqual([
    ['close', 'sell', -5_000],
    ['add', 'buy', 2_000],
  ]);
  expect(book(trading)).toEqual({ 'USDTNGN buy': 12_000 });

  ok(await trading.hedge(`apply ${planned}`));
  exits(await trading.hedge(`plan ${planned}`), 0, 'At target: nothing to do.');
  // Within --tolerance counts as at target.
  const near = targetFile(trading, 'near.csv', ['USDTNGN,buy,6050,3']);
  exits(await trading.hedge(`plan ${near}`), 9);
  ok(await trading.hedge(`plan ${near} --tolerance 100`));
});

it('hedge apply: on a server with its own name for the add/reduce amount (beta): each change is refused once for the name, then sent under it; the server ends at the target', async () => {
  const rig = await startTrading({ dialect: 'beta', fillDelayMs: 20 });
  rig.seedOpen('buy', 10_000);
  rig.seedOpen('sell', 5_000);
  const file = targetFile(rig, 'target.csv', ['USDTNGN,buy,12000,3', 'USDTNGN,sell,2000,3']);
  expect(columns(okJson(await rig.hedge(`apply ${file} --json`)), 'action', 'side', 'delta_usd', 'outcome')).toEqual([
    ['reduce', 'sell', -3_000, 'done'],
    ['add', 'buy', 2_000, 'done'],
  ]);
  expect(book(rig)).toEqual({ 'USDTNGN buy': 12_000, 'USDTNGN sell': 2_000 });
  // The one refusal is the first change's guess; the second change goes out under the learned name at once.
  expect(rig.trades().map((entry) => [entry.path, entry.status, entry.body])).toEqual([
    ['/hedges/reduce', 400, { market: 'USDTNGN', side: 'sell', notional_usd: 3_000 }],
    ['/hedges/reduce', 200, { market: 'USDTNGN', side: 'sell', delta_usd: 3_000 }],
    ['/hedges/add', 200, { market: 'USDTNGN', side: 'buy', delta_usd: 2_000 }],
  ]);
});

it('hedge apply: killed with SIGKILL while its first write is held, then run again: the target is reached, every action once on the server', async () => {
  // In real time: the killed run may leave a lock that goes stale only as the wall clock moves.
  const rig = await startTrading({ stepped: false });
  const file = targetFile(rig, 'target.csv', ['USDTNGN,buy,7000,3', 'USDTNGN,sell,4000,7']);
  // The server commits the first open but never finishes its answer, so the kill lands while that
  // write is in flight however slow the machine is (a hold of fixed length would race the kill).
  rig.sandbox.setFaults({ stall: 'body', match: { method: 'POST', path: '/hedges' } });
  expect((await killWhen(rig, ['apply', file], () => rig.trades().length > 0, 'the first write')).signal).toBe(
    'SIGKILL',
  );
  expect([rig.trades().length, rig.hedges().length]).toEqual([1, 1]);
  rig.sandbox.setFaults({ stall: null, match: null });

  exits(await rig.hedge(`apply ${file} --json`), 0, 'of an earlier apply');
  expect(book(rig)).toEqual({ 'USDTNGN buy': 7_000, 'USDTNGN sell': 4_000 });
  expect(rig.hedges()).toHaveLength(2);

  // Every action has one key, and the server acted once per key (a repeat with the same key replays).
  const accepted = rig
    .trades()
    .filter((entry) => typeof entry.status === 'number' && entry.status >= 200 && entry.status < 300);
  // Two keys, two (key, body) pairs and two sides: each key carried one body, each side one key.
  const distinct = (of: (entry: (typeof accepted)[number]) => unknown) => new Set(accepted.map(of)).size;
  expect([
    distinct((entry) => entry.idempotencyKey),
    distinct((entry) => `${entry.idempotencyKey} ${JSON.stringify(entry.body)}`),
    distinct((entry) => (entry.body as { side: string }).side),
  ]).toEqual([2, 2, 2]);

  // And a third run is at target: an empty report and no POST at all.
  const writes = rig.writes().length;
  expect(okJson(await rig.hedge(`apply ${file} --json`))).toEqual([]);
  expect([rig.writes().length, book(rig)]).toEqual([writes, { 'USDTNGN buy': 7_000, 'USDTNGN sell': 4_000 }]);
});

it('a side opened outside hedge while an earlier step ran: its step is not sent, exit 12 naming the hedge, and apply again is at target (hedge apply)', async () => {
  const rig = await startTrading({ severalPerSide: true });
  rig.seedOpen('buy', 5_000);
  const file = targetFile(rig, 'target.csv', ['USDTNGN,buy,7000,3', 'USDTNGN,sell,4000,3']);
  // A colleague's open of the sell side lands on the server as the plan's first step (the buy add) arrives.
  let colleague: string | undefined;
  rig.sandbox.setFaults({
    match: ({ method, path }) => {
      if (colleague === undefined && method === 'POST' && path === '/hedges/add')
        colleague = rig.seedOpen('sell', 4_000).id;
      return false;
    },
  });
  const run = exits(await rig.hedge(`apply ${file} --yes --json`), 12, 'Step 2 was not sent.');
  expect(run.stderr).toContain(
    `The sell side of USDTNGN moved since the plan was made: it holds 4,000.00 USD in ${colleague} now, not the no hedge planned on`,
  );
  expect(columns(JSON.parse(run.stdout), 'step', 'action', 'side', 'outcome')).toEqual([
    [1, 'add', 'buy', 'done'],
    [2, 'open', 'sell', 'not_sent'],
  ]);
  // The server: the add, and no open of the sell side from hedge; the side holds the colleague's 4,000 alone.
  expect(rig.trades().map((entry) => [entry.path, entry.body])).toEqual([
    ['/hedges/add', { market: 'USDTNGN', side: 'buy', notional_usd: 2_000 }],
  ]);
  expect(book(rig)).toEqual({ 'USDTNGN buy': 7_000, 'USDTNGN sell': 4_000 });
  rig.sandbox.setFaults({ match: null });
  expect(okJson(await rig.hedge(`apply ${file} --json`))).toEqual([]);
  expect(rig.sends()).toHaveLength(1);
});

it('hedge apply: over the exposure cap: exit 3 listing the check, nothing sent', async () => {
  const trading = await startTrading({ exposureCapUsd: 20_000 });
  const file = targetFile(trading, 'big.csv', ['USDTNGN,buy,30000,3']);
  exits(await trading.hedge(`apply ${file} --yes`), 3, 'exposure_exceeded', 'big.csv:2:');
  const plan = exits(await trading.hedge(`plan ${file} --json`), 3);
  // The sandbox also bounds a side's capacity by the cap: both checks are listed.
  expect(JSON.parse(plan.stdout).problems).toEqual(
    expect.arrayContaining([expect.objectContaining({ code: 'exposure_exceeded', line: 2, step: 1 })]),
  );
  expect(JSON.parse(plan.stderr).error).toMatchObject({ code: 'plan_check_failed', class: 'rejected' });
  expect([trading.writes(), trading.hedges()]).toEqual([[], []]);
});

it("hedge apply: a step that fails: the re-run it suggests names the file as the shell reads it back and the run's --tolerance, and plans the same", async () => {
  const trading = await startTrading();
  mkdirSync(join(trading.configDir, 'desk targets'));
  // Within the tolerance, a held buy 1,000 is at a target of 1,050; a re-run without it would add 50.
  trading.seedOpen('buy', 1_000);
  // Every open from here fails.
  trading.sandbox.setFailRate(1);
  const file = targetFile(trading, 'desk targets/target.csv', ['USDTNGN,buy,1050,3', 'USDTNGN,sell,5000,3']);
  const quoted = `'${file}' --tolerance 100`;
  const failed = exits(
    await trading.hedge(['apply', file, '--tolerance', '100', '--yes']),
    6,
    `Running \`hedge apply ${quoted}\` again`,
    `then run \`hedge apply ${quoted}\` again`,
  );
  // The command as printed, read as a shell reads it.
  const suggested = /then run `hedge (.*?)` again/.exec(failed.stderr)![1];
  const words = [...suggested.matchAll(/'([^']*)'|(\S+)/g)].map((match) => match[1] ?? match[2]);
  expect(words).toEqual(['apply', file, '--tolerance', '100']);
  exits(await trading.hedge([...words, '--yes']), 6);
  expect(trading.trades().map((entry) => entry.body)).toEqual([1, 2].map(() => openBody('sell', 5_000, 3)));
});

it('51 filled buy hedges past the one page of 50 (alpha), a target of their 51,000: plan and apply cannot tell (exit 12), "Nothing was sent" naming HEDGE_WIRE_PAGE_SIZE_PARAM, no write sent', async () => {
  const rig = await startTrading({ dialect: 'alpha' });
  for (let count = 0; count < 51; count++) rig.seedOpen('buy', 1_000);
  const file = targetFile(rig, 'target.csv', ['USDTNGN,buy,51000,7']);
  for (const command of [
    ['plan', file],
    ['apply', file, '--yes'],
  ])
    expect(exits(await rig.hedge(command), 12, 'HEDGE_WIRE_PAGE_SIZE_PARAM').stderr).toMatch(
      /The buy side of USDTNGN cannot be told: the hedge records may be cut at 50 filled hedges.*Nothing was sent/,
    );
  expect(rig.requests('POST').filter((entry) => entry.path !== '/quotes')).toEqual([]);
});
