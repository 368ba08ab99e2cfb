// `--until EXPR` and dotted `--fields` end to end against the simulator. What is asserted is the
// exit code, what was printed and the server's request log; a fill is made to happen by moving the
// simulator's clock once the CLI is seen polling (never by waiting on the wall clock). The exact
// cadence and bound are pinned on a fake clock in scripting/until-loop.test.ts.
import type { ChildProcess } from 'node:child_process';
import { until } from '../support/polling.js';
import {
  apiData,
  colleagueCloses,
  MARKET,
  pinnedClockEnv,
  skippingClock,
  useSimulators,
} from '../support/simulator.js';
import { ok, okJson, exits } from '../support/cli-runs.js';

const start = useSimulators();
const LAND_MS = 3_600_000;
/** The message of a --json run's error document. */
const message = (run: { stderr: string }) => JSON.parse(run.stderr).error.message;

it('--until: hedges ID --until "status==\'filled\'": polls while submitted, prints the filled hedge once the fill lands', async () => {
  const t = await start({ fillDelayMs: LAND_MS });
  const id = okJson(await t.hedge(`open ${MARKET} buy 10000 --tenor 3 --no-wait --json`)).hedge_id;
  let child: ChildProcess | undefined;
  const running = t.hedge(`hedges ${id} --until status=='filled' --json`, {
    onSpawn: (spawned) => (child = spawned),
  });
  await until(
    () => t.requests('GET', `/hedges/${id}`).some((entry) => entry.status === 200),
    'the CLI polling the submitted hedge',
  );
  expect(t.hedges()[0].status).toBe('submitted');
  t.advance(LAND_MS);
  const result = await running;
  expect(child).toBeDefined();
  ok(result);
  expect(JSON.parse(result.stdout)).toMatchObject({ id, status: 'filled' });
  // Printed once: the poll that met the condition, not the ones before it.
  expect(result.stdout.trim().split('\n')[0]).toBe('{');
  expect(result.stdout.match(/"status"/g)).toHaveLength(1);
  expect(t.requests('GET', `/hedges/${id}`).length).toBeGreaterThanOrEqual(2);
});

it('--until on a hedge that can no longer change: closed and the condition false, it stops after one read with exit 17 and one line (the hedge under --json); a condition true on it is met as ever', async () => {
  const t = await start({ preset: 'frozen' });
  const { id } = t.seedOpen('buy', 10_000);
  await colleagueCloses(t, 'buy');
  expect(t.hedges()[0].status).toBe('closed');
  const reads = t.requests('GET', `/hedges/${id}`).length;
  const stopped = exits(await t.hedge(['hedges', id, '--until', "status=='filled'", '--json']), 17);
  expect(JSON.parse(stopped.stdout)).toMatchObject({ id, status: 'closed' });
  expect(JSON.parse(stopped.stderr).error).toMatchObject({
    code: 'until_never',
    class: 'until-never',
    message: `--until "status=='filled'" can never hold: hedge ${id} is closed, which is final, and the condition is false on it.`,
    details: { until: "status=='filled'", polls: 1 },
  });
  expect(t.requests('GET', `/hedges/${id}`).length - reads).toBe(1);
  // For a person: the one line and its hint, nothing on stdout.
  const said = exits(await t.hedge(['hedges', id, '--until', "status=='filled'"]), 17);
  expect([said.stdout, said.stderr.split('\n')[0]]).toEqual([
    '',
    `hedge: --until "status=='filled'" can never hold: hedge ${id} is closed, which is final, and the condition is false on it.`,
  ]);
  ok(await t.hedge(['hedges', id, '--until', "status=='closed'", '--json']));
});

it('--until is not offered on quote (a new quote each time: nothing to wait for): exit 2, nothing sent', async () => {
  const t = await start({ preset: 'frozen' });
  const run = exits(await t.hedge(['quote', MARKET, 'buy', '10000', '--tenor', '3', '--until', "status=='filled'"]), 2);
  expect(run.stderr).toMatch(/^hedge: unknown option '--until'/);
  expect(t.requests()).toEqual([]);
});

it('--until: on a terminal, a condition met at once shows what the command shows without it, from that one read', async () => {
  // Frozen server and CLI clocks: the two screens' "(… ago)" are read at the same instant.
  const t = await start({ preset: 'frozen' });
  const { id } = t.seedOpen('buy', 10_000);
  const screen = { columns: 80, rows: 40 };
  const env = pinnedClockEnv(t);
  const runs: Array<[string[], string, string]> = [
    [['whoami'], "key_check.status=='ok'", '/account'],
    [['hedges', id], "status=='filled'", `/hedges/${id}`],
  ];
  for (const [words, condition, path] of runs) {
    const shown = ok(await t.hedge(words, { screen, env }));
    const reads = t.requests('GET', path).length;
    expect(ok(await t.hedge([...words, '--until', condition], { screen, env })).stdout).toBe(shown.stdout);
    expect(t.requests('GET', path).length - reads).toBe(1);
  }
});

// A write refuses it, nothing sent: test/write/checked-before-sending.test.ts ("hedge api -X POST", a bad --until).
it('--until: history --until yesterday, banana or a misspelt field, report --until yesterday: exit 2 at once naming both readings (a date, or a condition on their own data), nothing sent; true at once: exit 0, the data printed, one request; never true in a pipe (TSV): exit 124 and nothing on stdout; an unknown hedge ends it at once (exit 3); a malformed condition sends nothing (exit 2); hedge api GET takes --until too; on history a condition on a field the data has, or on none (length(@)), is still polled', async () => {
  const t = await start();
  for (const [command, value] of [
    ['history', 'yesterday'],
    ['history', 'banana'],
    ['report', 'yesterday'],
    ['history', "stauts=='closed'"],
  ] as const) {
    const result = exits(await t.hedge(`${command} --until ${value} --json --timeout 30`), 2);
    expect(result.stdout).toBe('');
    expect(message(result)).toContain(
      `is neither a date (2026-11-01, an ISO time, or 7d / 2w / 1mo ago) nor a condition on ${command}'s data`,
    );
    expect(message(result)).toContain(`${value.replace(/==.*/, '')} is not one of its fields`);
    expect(t.requests()).toEqual([]);
  }

  expect(okJson(await t.hedge(['account', '--until', 'balance_usdc > `0`', '--json']))).toHaveProperty('balance_usdc');
  expect(t.requests().map((entry) => [entry.method, entry.path])).toEqual([['GET', '/account']]);
  // --timeout 1 on a clock the run's pauses alone move: a loaded machine's start-up and reads take none of it.
  const result = exits(
    await t.hedge(['positions', '--until', 'length(@) > `0`', '--timeout', '1'], { clock: skippingClock(true) }),
    124,
  );
  expect(result.stdout).toBe('');
  expect(result.stderr).toMatch(
    /^hedge: --until "length\(@\) > `0`" did not hold within --timeout \(1 s\): \d+ reads?, /m,
  );

  const before = t.requests().length;
  exits(await t.hedge("hedges hdg_missing --until status=='filled'"), 3);
  // The id asked for, then the list it might be a short form of: no wait, no second round.
  expect(
    t
      .requests()
      .slice(before)
      .map((entry) => `${entry.method} ${entry.path}`),
  ).toEqual(['GET /hedges/hdg_missing', 'GET /hedges']);
  const malformed = exits(await t.hedge('positions --until [?side=='), 2);
  expect(malformed.stderr).toMatch(/^hedge: --until "\[\?side==": /m);
  expect(t.requests()).toHaveLength(before + 2);
  const read = okJson(
    await t.hedge(['api', '/account', '--until', 'data.balance_usdc > `0`', '--query', 'data.balance_usdc']),
  );
  expect(typeof read).toBe('number');

  expect(okJson(await t.hedge(['history', '--until', 'length(@) >= `0`', '--json']))).toEqual([]);
  ok(await t.hedge(['history', '--until', "[?side=='buy'] | length(@) == `0`", '--json']));
  expect(t.requests('GET', '/hedges/history').length).toBe(2);
});

it("--until on history and report: a date, or a condition on their own data: every name of a report's JSON is one its --until may read", async () => {
  const t = await start();
  const hedge = t.seedOpen('buy', 10_000);
  await apiData(t, 'POST', '/hedges/close', { market: MARKET, side: 'buy' });
  t.advance(60_000);
  expect(t.hedges().find((entry) => entry.id === hedge.id)!.status).toBe('closed');
  const { CONDITION_FIELDS } = await import('../../src/cli/cmd/book/report.js');
  for (const by of ['day', 'hedge']) {
    // Every name of the document, at any depth: each `"name":` of its JSON.
    const names = [...JSON.stringify(okJson(await t.hedge(`report --by ${by} --json`))).matchAll(/"([^"]+)":/g)].map(
      (m) => m[1],
    );
    expect(names.filter((name) => !CONDITION_FIELDS.includes(name))).toEqual([]);
  }
});

it("dotted --fields: quote: nested in JSON, flattened in CSV, the dotted names on the card; the values are the server's", async () => {
  const t = await start({ preset: 'frozen' });
  const fields = ['--fields', 'market,pricing.market_price,carry.total_usdc'];
  const args = ['quote', MARKET, 'buy', '10000', '--tenor', '3', ...fields];
  const direct = await apiData(t, 'POST', '/quotes', {
    market: MARKET,
    side: 'buy',
    notional_usd: 10_000,
    tenor_days: 3,
  });

  expect(okJson(await t.hedge([...args, '--json']))).toEqual({
    market: MARKET,
    pricing: { market_price: direct.pricing.market_price },
    carry: { total_usdc: direct.carry.total_usdc },
  });

  expect((await t.hedge([...args, '--format', 'csv'])).stdout).toBe(
    `market,pricing.market_price,carry.total_usdc\n${MARKET},${direct.pricing.market_price},${direct.carry.total_usdc}\n`,
  );

  const table = ok(await t.hedge([...args, '--format', 'table'], { env: { HEDGE_FORCE_TTY: '1', COLUMNS: '80' } }));
  expect(table.stdout).toMatch(/│ pricing\.market_price\s+│ [\d,]+\.\d+\s+│/);
  expect(table.stdout).toMatch(/│ carry\.total_usdc\s+│ [\d,]+\.\d\d\s+│/);
  expect(table.stdout).not.toContain('Execution price');
});

// A dotted name that reaches nothing: ui-formats.test.ts ("dotted --fields", in every format); exit 2: test/book/read-commands.test.ts ("refusals").
it('dotted --fields: markets: a nested side in every format; --json --fields: a name only the screen shows is not a field of the document: exit 2 (whoami, doctor)', async () => {
  const t = await start();
  const [header, row] = (await t.hedge('markets --fields market,available_capacity_usd.buy')).stdout.trim().split('\n');
  expect(header).toBe('market\tavailable_capacity_usd.buy');
  const [market] = await apiData(t, 'GET', '/markets');
  expect(row).toBe(`${market.market}\t${market.available_capacity_usd.buy}`);
  expect(okJson(await t.hedge('markets --json --fields market,net_rate_daily_pct.sell'))[0]).toEqual({
    market: market.market,
    net_rate_daily_pct: { sell: market.net_rate_daily_pct.sell },
  });
  const table = await t.hedge('markets --format table --fields market,available_capacity_usd.sell', {
    env: { HEDGE_FORCE_TTY: '1' },
  });
  // The column the default table draws for it (its label, its number format), asked by the dotted name.
  expect(table.stdout.split('\n')[0]).toMatch(/^Market\s+Capacity sell USD$/);
  const whoami = exits(await t.hedge('whoami --json --fields profile_source'), 2);
  expect(message(whoami)).toMatch(/^--fields: "profile_source" is not a field here; available: profile, /);
  const doctor = exits(await t.hedge('doctor --json --fields check'), 2);
  expect(message(doctor)).toBe('--fields: "check" is not a field here; available: ready, exit_code, checks.');
  expect(okJson(await t.hedge('doctor --json --fields ready'))).toEqual({ ready: expect.any(Boolean) });
});

it("--query: a number the query computes (a sum of the server's figures, a product) is printed as the decimal it stands for, never as binary floating point; the server's own numbers stay as sent", async () => {
  // A stopped clock: the positions the test reads are the ones hedge reads.
  const t = await start({ preset: 'frozen' });
  t.seedOpen('buy', 10_000);
  t.seedOpen('sell', 7_000);
  const sent = ((await apiData(t, 'GET', '/positions')) as Array<{ net_pnl_usd: number }>).map(
    (line) => line.net_pnl_usd,
  );
  expect(okJson(await t.hedge(['positions', '--query', '[].net_pnl_usd']))).toEqual(sent);
  // Figures in cents: their sum is in cents too.
  const sum = ok(await t.hedge(['positions', '--query', 'sum([].net_pnl_usd)'])).stdout;
  expect(sum).toBe(`${JSON.stringify(Number((sent[0] + sent[1]).toFixed(2)))}\n`);
  // 10,000 × 1.1 is 11000.000000000002 in binary floating point.
  const product = ok(await t.hedge(['positions', '--query', "[?side=='buy'] | [0].notional_usd * `1.1`"])).stdout;
  expect(product).toBe('11000\n');
});
