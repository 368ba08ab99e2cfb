// hedge exposures FILE against a frozen simulator (prices and time the same every run, the CLI's
// clock pinned to the server's): the target book, schedule, cost and stress in JSON checked against
// the server's own price and carry; the row formats with --show and --fields; --functional NGN and
// --no-netting; a file with bad rows (exit 2, one line per problem, no request at all); and nothing
// but reads and one quote on the server's log — no hedge exists after any run.
// With --report, on a history the test makes (a buy opened, closed early, opened again; a sell left
// open): the cost to date reconciles to the cent with the server's own history, the current week's
// coverage is what the server holds, the effectiveness rows follow the first cover; and the HTML
// file, measured in a real Chromium where one is installed (skipped with the reason otherwise): both
// charts drawn at a size, the 80–125% band there, nothing wider than the window.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  apiData,
  closedAfter,
  envFor,
  FILL_DELAY_MS,
  FROZEN_START_MS,
  pinnedClockEnv,
  useSimulators,
  type Simulator,
} from '../support/simulator.js';
import { startRewriteProxy } from '../support/servers/field-proxy.js';
import { ok, okJson, exits } from '../support/cli-runs.js';
import type { HedgeArgs } from '../support/hedge-cli.js';
import { CHROMIUM, LAUNCH } from '../support/servers/chromium.js';
import { lines as records } from '../support/keeper.js';

const startSimulator = useSimulators();
const DAY_MS = 86_400_000;
const day = (days: number) => new Date(FROZEN_START_MS + days * DAY_MS).toISOString().slice(0, 10);

function exposuresFile(rig: Simulator, name: string, lines: string[]) {
  const path = join(rig.configDir, name);
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

it("hedge exposures: a file with bad rows: exit 2, one line per row and field, and no request reaches the server. With --fee-bps asks no quote at all: --show and --fields give one section as CSV; from NGN books and --no-netting; a table names the policy and every section. Then it shows the netted target book, its schedule, cost and stress, from the server's price; nothing is traded", async () => {
  const rig = await startSimulator({ preset: 'frozen' });
  const run = (args: HedgeArgs) => rig.hedge(args, { env: pinnedClockEnv(rig) });
  const bad = exposuresFile(rig, 'bad.csv', [
    'id,market,type,amount,currency,due',
    `A,USDTNGN,receivible,1m,NGN,${day(5)}`,
    'B,USDTNGN,payable,12,EUR,soon',
  ]);
  expect(
    exits(await run(`exposures ${bad}`), 2)
      .stderr.split('\n')
      .filter((line) => line.startsWith(`${bad}:`)),
  ).toEqual([
    `${bad}:2: row 1: type: missing or not allowed; expected receivable or payable.`,
    `${bad}:3: row 2: currency: missing or not allowed; expected USD or NGN (the market's quote currency).`,
    `${bad}:3: row 2: due: missing or not allowed; expected a date (2027-01-15, midnight UTC) or a timestamp with its zone (2027-01-15T17:00:00+01:00).`,
  ]);
  exits(await run(`exposures ${bad} --ratios 90:75,30:100`), 2, '--ratios: the days must be above 0 and grow');
  expect(rig.requests()).toEqual([]);

  // Six exposures over 90 days: NGN and USD amounts, receivables and payables, one due inside a 7-day tenor.
  const file = exposuresFile(rig, 'exposures.csv', [
    'id,market,type,amount,currency,due,hedge_ratio',
    `INV-1,USDTNGN,receivable,450m,NGN,${day(45)},`,
    `FRT-2,USDTNGN,payable,120000000,NGN,${day(62)},`,
    `INV-3,USDTNGN,receivable,250000,USD,${day(20)},`,
    `AP-4,USDTNGN,payable,100k,USD,${day(10)},`,
    `INV-5,USDTNGN,receivable,60m,NGN,${day(3)},`,
    `INV-6,USDTNGN,receivable,900m,NGN,${day(90)},0.5`,
  ]);
  // Books in a currency the file's markets are not quoted in would be read as USD: refused, before any request.
  exits(
    await run(`exposures ${file} --functional EUR`),
    2,
    '--functional: EUR is neither USD nor the quote currency of every market in the file (USDTNGN: NGN); expected USD, or the one quote currency of its markets.',
  );
  expect(rig.requests()).toEqual([]);
  const lines = ok(await run(`exposures ${file} --fee-bps 5 --show stress --format csv --fields shock_pct,net_usd`))
    .stdout.trim()
    .split('\n');
  expect([lines[0], lines.slice(1).map((line) => line.split(',')[0])]).toEqual([
    'shock_pct,net_usd',
    ['-30', '-10', '10', '30'],
  ]);

  // From NGN books the USD payable is covered by buy, the USD receivable by sell; --no-netting holds both sides.
  const book = okJson(await run(`exposures ${file} --functional NGN --no-netting --fee-bps 5 --show book --json`));
  // AP-4: 100,000 USD due in 10 days (100%); INV-3: 250,000 USD due in 20 days (100%); the NGN amounts carry no risk.
  expect(book.map((row: any) => [row.side, row.target_usd, row.exposures, row.tenor_days])).toEqual([
    ['buy', 100_000, ['AP-4'], 7],
    ['sell', 250_000, ['INV-3'], 7],
  ]);

  const table = ok(await run(`exposures ${file} --format table --fee-bps 5`));
  for (const title of 'Exposures as the policy sees them now|Target book now|Schedule of changes|Projected cost to each due date|Stress'.split(
    '|',
  ))
    expect(table.stdout).toContain(title);
  expect(table.stderr.replace(/\n/g, ' ')).toContain(
    'hedge ratio 100% within 30d, 75% within 90d, 50% beyond; re-size band ±5%',
  );
  expect([rig.writes(), rig.hedges()]).toEqual([[], []]);

  const data = okJson(await run(`exposures ${file} --json`));
  // The server's own price and carry of USDTNGN.
  const market = (await apiData(rig, 'GET', '/markets')).find((entry: any) => entry.market === 'USDTNGN');
  const [price, buy] = [Number(market.price), Number(market.net_rate_daily_pct.buy)];
  expect(data.as_of).toBe(new Date(FROZEN_START_MS).toISOString());
  // NDJSON, like TSV and CSV, is one section's rows (the book unless --show says another), a line each.
  expect(records(ok(await run(`exposures ${file} --fee-bps 5 --format ndjson`)).stdout)).toEqual(data.book);
  expect([data.prices, data.fees.USDTNGN]).toEqual([{ USDTNGN: price }, { rate_bps: 5, from: 'quote' }]);
  // Netted from USD books: INV-1 (75%), INV-5 (100%), INV-6 (its own 50%) bought; FRT-2 (75%) sold; USD amounts carry no risk.
  // Each exposure's cover is sized to the cent, and the book is their sum.
  const cents = (value: number) => Math.round(value * 100) / 100;
  const net = cents(
    cents((450e6 * 0.75) / price) + cents(60e6 / price) + cents((900e6 * 0.5) / price) - cents((120e6 * 0.75) / price),
  );
  expect(data.book).toEqual([
    expect.objectContaining({
      side: 'buy',
      target_usd: net,
      tenor_days: 7,
      until: new Date(`${day(90)}T00:00:00Z`).toISOString(),
    }),
    expect.objectContaining({ side: 'sell', target_usd: 0, tenor_days: null }),
  ]);
  expect(data.book[0].band_high_usd).toBeCloseTo(net * 1.05, 1);
  expect(data.exposures.filter((line: any) => line.cover_side === null).map((line: any) => line.id)).toEqual([
    'INV-3',
    'AP-4',
  ]);
  // The schedule: INV-5 due at day 3 (inside the first 7-day hedge), INV-1 into ≤30d at day 15, FRT-2 at day 32, and each due date.
  expect(data.schedule.map((change: any) => [change.at.slice(0, 10), change.reason])).toEqual([
    [day(3), 'INV-5 due'],
    [day(15), 'INV-1 enters ≤30d'],
    [day(32), 'FRT-2 enters ≤30d'],
    [day(45), 'INV-1 due'],
    [day(62), 'FRT-2 due'],
    [day(90), 'INV-6 due'],
  ]);
  expect(data.schedule.at(-1).to_usd).toBe(0);
  // Cost to the first due date: 3 days of the buy side at today's carry; fees on the open and INV-5's reduce;
  // on the account's side (- paid), as the server's carry rate (positive: paid) is turned round.
  const first = data.cost[0];
  expect(first.exposures).toBe('INV-5');
  // The due date is a date (midnight UTC): 2.625 days after the frozen 09:00.
  const held = (Date.parse(`${day(3)}T00:00:00Z`) - FROZEN_START_MS) / DAY_MS;
  expect(first.carry_pnl_usdc).toBeCloseTo(-(net * buy * held) / 100, 1);
  expect(first.fees_pnl_usdc).toBeCloseTo(-(net * 0.0005 + (60e6 / price) * 0.0005), 1);
  expect(first.cost_usdc).toBeCloseTo(first.carry_pnl_usdc + first.fees_pnl_usdc, 1);
  expect(data.cost.map((row: any) => row.due.slice(0, 10))).toEqual([3, 10, 20, 45, 62, 90].map(day));
  expect(data.cost.at(-1).rolls).toBeGreaterThan(10);
  expect(data.stress.map((row: any) => row.shock_pct)).toEqual([-30, -10, 10, 30]);
  for (const row of data.stress) expect(row.net_usd).toBeCloseTo(row.exposure_change_usd + row.cover_pnl_usd, 1);
  // Nothing traded: one quote, no hedge.
  expect([rig.hedges(), rig.writes().map((entry) => entry.path)]).toEqual([[], ['/quotes']]);
});

it('hedge exposures: warns of the exposure cap only for what reaching the target adds to what is held', async () => {
  const rig = await startSimulator({ preset: 'frozen', exposureCapUsd: 400_000 });
  /** The target of an NGN receivable of `naira` due in 20 days, and what was said. */
  const run = async (naira: string) => {
    const file = exposuresFile(rig, 'ngn.csv', [
      'id,market,type,amount,currency,due',
      `INV-1,USDTNGN,receivable,${naira},NGN,${day(20)}`,
    ]);
    const result = await rig.hedge(`exposures ${file} --show book --fee-bps 5 --json`, {
      env: pinnedClockEnv(rig),
    });
    return { target: okJson(result)[0].target_usd, stderr: result.stderr };
  };
  const above = /available exposure .*: the server would refuse part of it/;
  const available = async () => (await apiData(rig, 'GET', '/account')).available_exposure_usd;

  // About 250,000 USD bought at 100% (due in 20 days).
  const flat = await run('382.5m');
  expect(flat.target).toBeGreaterThan(200_000);
  expect(flat.target).toBeLessThan(await available());
  expect(flat.stderr).not.toMatch(above);

  // Held already: reaching the target adds nothing, though the target is above the headroom left.
  rig.seedOpen('buy', flat.target);
  expect(await available()).toBe(400_000 - flat.target);
  const held = await run('382.5m');
  expect(held.target).toBe(flat.target);
  expect(held.target).toBeGreaterThan(await available());
  expect(held.stderr).not.toMatch(above);

  // About 450,000: more than held by over the headroom left.
  const over = await run('688.5m');
  expect(over.target - flat.target).toBeGreaterThan(await available());
  expect(over.stderr).toMatch(above);
  expect(rig.writes().filter((entry) => entry.path !== '/quotes')).toEqual([]);
});

async function withHistory(dialect?: 'alpha') {
  const rig = await startSimulator({ preset: 'frozen', dialect });
  rig.seedOpen('buy', 300_000);
  rig.advance(2 * DAY_MS);
  await apiData(rig, 'POST', '/hedges/close', { market: 'USDTNGN', side: 'buy' });
  rig.advance(FILL_DELAY_MS + 1);
  rig.seedOpen('buy', 250_000);
  rig.seedOpen('sell', 20_000);
  rig.advance(DAY_MS);
  return rig;
}

/** `hedge exposures FILE --report` and `args` (--json) on the pinned clock (or `env`); FILE holds three exposures against
 * that history: a receivable and a payable in NGN, a payable in USD. */
const reportOf = (rig: Simulator, env: NodeJS.ProcessEnv = pinnedClockEnv(rig), ...args: string[]) =>
  rig.hedge(
    [
      'exposures',
      exposuresFile(rig, 'exposures.csv', [
        'id,market,type,amount,currency,due',
        `INV-1,USDTNGN,receivable,450m,NGN,${day(40)}`,
        `FRT-2,USDTNGN,payable,120m,NGN,${day(50)}`,
        `AP-3,USDTNGN,payable,100k,USD,${day(20)}`,
      ]),
      '--report',
      ...(args.length > 0 ? args : ['--json']),
    ],
    { env },
  );

it("hedge exposures --report: cost to date reconciles to the cent with history; the week's coverage is what the server holds; --show cost --format csv is its rows alone; nothing is sent; a server that leaves an early-closed hedge `filled` (alpha) counts it once, as closed, never as still held; cost to date rounds as `hedge report` does: carry and fees in more decimals than cents give the same figures; a closed hedge whose close time cannot be read is left out and counted, never a NaN figure", async () => {
  const rig = await withHistory();
  const postsBefore = rig.writes().length;
  const data = okJson(await reportOf(rig));

  const history = await apiData(rig, 'GET', '/hedges/history');
  expect(history).toHaveLength(1);
  const [carry, fees] = [Number(history[0].carry_usdc), Number(history[0].fees_usdc)];
  // On the account's side: the server's positive (paid) is negative here.
  expect(data.cost).toEqual([
    {
      market: 'USDTNGN',
      closed_hedges: 1,
      carry_pnl_usdc: -carry,
      fees_pnl_usdc: -fees,
      cost_usdc: -(Math.round(carry * 100) + Math.round(fees * 100)) / 100,
    },
  ]);

  // Weeks from the first cover (Monday 2 March) to now (Thursday 5 March): one.
  expect(data.coverage.map((row: any) => row.week)).toEqual(['2026-03-02']);
  const week = data.coverage[0];
  // Netted: the book holds 250,000 buy − 20,000 sell in the exposure's (buy) direction.
  expect(week.hedged_usd).toBe(230_000);
  expect(week.coverage_pct).toBeCloseTo((230_000 / week.exposure_usd) * 100, 2);
  expect(week.at).toBe(new Date(rig.sandbox.clock.now()).toISOString());

  const first = rig.hedges().sort((a, b) => a.openedAtMs - b.openedAtMs)[0];
  const byId = Object.fromEntries(data.effectiveness.map((row: any) => [row.id, row]));
  expect(byId['INV-1']).toMatchObject({
    cover_side: 'buy',
    first_cover_at: new Date(first.openedAtMs).toISOString(),
    first_price: first.entryPrice,
  });
  expect(byId['FRT-2'].cover_side).toBe('sell');
  expect(byId['AP-3']).toMatchObject({ cover_side: null, offset_pct: null });
  // The payable's share of the cover is opposite to the receivable's, as its revaluation is.
  expect(Math.sign(byId['INV-1'].cover_pnl_usd)).toBe(-Math.sign(byId['FRT-2'].cover_pnl_usd));
  expect(byId['INV-1'].offset_pct).toBeCloseTo(byId['FRT-2'].offset_pct, 6);

  // --show cost --format csv is the cost rows alone.
  const csv = ok(await reportOf(rig, undefined, '--show', 'cost', '--format', 'csv'));
  expect(csv.stdout.trim().split('\n')[0]).toBe('market,closed_hedges,carry_pnl_usdc,fees_pnl_usdc,cost_usdc');
  expect(rig.writes().length).toBe(postsBefore);

  // The same history on a server that lists the early-closed hedge in history and still as filled (alpha).
  const alpha = await withHistory('alpha');
  const [closed] = await apiData(alpha, 'GET', '/hedges/history');
  expect((await apiData(alpha, 'GET', '/hedges?status=filled')).map((hedge: any) => hedge.id)).toContain(closed.hedge);
  const net = (await apiData(alpha, 'GET', '/positions')).reduce(
    (sum: number, line: any) => sum + (line.direction === 'buy' ? 1 : -1) * Number(line.size_usd),
    0,
  );
  expect(net).toBe(230_000);
  const alphaData = okJson(await reportOf(alpha));
  expect(alphaData.coverage.map((row: any) => [row.week, row.hedged_usd])).toEqual([['2026-03-02', net]]);
  expect(alphaData.cost).toMatchObject([{ market: 'USDTNGN', closed_hedges: 1 }]);
  // The dollar offset of the covers held: the receivable's and the payable's shares as on a server that says `closed`.
  expect(alphaData.effectiveness).toEqual(data.effectiveness);

  /** `body` run with the env of a proxy rewriting each history record of `rig` with `fields`. */
  const viaHistoryProxy = (fields: object, body: (env: NodeJS.ProcessEnv) => Promise<void>) =>
    closedAfter(
      startRewriteProxy(rig.sandbox, (path, item) => path === '/hedges/history' && Object.assign(item, fields)),
      (proxy) => body({ ...pinnedClockEnv(rig), ...envFor(proxy) }),
    );
  // USDC to more decimals than cents, on a half cent each: 0.125 paid in carry, 1.005 in fees.
  await viaHistoryProxy({ carry_usdc: 0.125, fees_usdc: 1.005 }, async (env) => {
    const report = okJson(await reportOf(rig, env));
    const [market] = okJson(await rig.hedge('report --by market --json', { env })).groups;
    expect([market.key, market.count, rig.historyCount()]).toEqual(['USDTNGN', 1, 1]);
    expect(report.cost).toEqual([
      {
        market: 'USDTNGN',
        closed_hedges: 1,
        carry_pnl_usdc: market.carry_pnl_usdc,
        fees_pnl_usdc: market.fees_pnl_usdc,
        cost_usdc: -1.14,
      },
    ]);
    expect([market.carry_pnl_usdc, market.fees_pnl_usdc]).toEqual([-0.13, -1.01]);
  });
  await viaHistoryProxy({ closed_at: 'yesterday' }, async (env) => {
    const run = await reportOf(rig, env);
    expect([okJson(run).cost[0].closed_hedges, /NaN/.test(run.stdout)]).toEqual([0, false]);
    expect(run.stderr).toContain(
      '1 closed hedge of history without a readable market, side, notional or close time: left out of the report.',
    );
  });
});

it("hedge exposures --report: every filled hedge counts as held, past the server's own page of 50 (alpha: several hedges a side)", async () => {
  const rig = await startSimulator({ preset: 'frozen', dialect: 'alpha' });
  for (let index = 0; index < 51; index += 1) rig.seedOpen('buy', 1000);
  rig.advance(DAY_MS);
  expect(rig.active('buy')).toHaveLength(51);
  // Asked without a page size, the server answers its own page of 50.
  expect(await apiData(rig, 'GET', '/hedges?status=filled')).toHaveLength(50);
  // A server that does not read the page size hedge sends: the 50 it gives are counted, and said to be maybe cut.
  const cut = await reportOf(rig);
  expect(okJson(cut).coverage.map((row: any) => row.hedged_usd)).toEqual([50_000]);
  expect(cut.stderr).toContain('may hold more than the 50 filled hedges read');
  // Told the server's page-size name, hedge asks for its largest page.
  const env = { ...pinnedClockEnv(rig), HEDGE_WIRE_PAGE_SIZE_PARAM: 'page_size' };
  const data = okJson(await reportOf(rig, env));
  expect(data.coverage.map((row: any) => row.hedged_usd)).toEqual([51_000]);
  expect(rig.requests('GET', '/hedges').map((entry) => entry.query)).toContainEqual({
    status: 'filled',
    page_size: '500',
  });
});

it.skipIf(!CHROMIUM)(
  'hedge exposures --report: the HTML report in Chromium: both charts drawn, the 80–125% band marked, nothing wider than the window (needs chromium; skipped without it)',
  async () => {
    const rig = await withHistory();
    const html = join(rig.configDir, 'report.html');
    ok(await reportOf(rig, undefined, '--html', html, '--json'));
    const page = readFileSync(html, 'utf8');
    expect(page).not.toMatch(/<script|https?:\/\//);

    // The page with a measuring script added (a copy: the report itself holds no script).
    const measured = join(rig.configDir, 'measured.html');
    const measure = `<script>window.addEventListener('load', () => {
      const box = (el) => { const r = el.getBoundingClientRect(); return { w: Math.round(r.width), h: Math.round(r.height) }; };
      const charts = [...document.querySelectorAll('svg.chart')].map((el) => ({ name: el.dataset.chart, ...box(el) }));
      const band = document.querySelector('[data-band="80-125"]');
      const tables = [...document.querySelectorAll('.scroll')].map((el) => el.scrollWidth - el.clientWidth);
      const out = { charts, tables, band: band ? box(band) : null, scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth,
        bars: document.querySelectorAll('svg.chart .bar').length };
      const pre = document.createElement('pre'); pre.id = 'measure'; pre.textContent = JSON.stringify(out); document.body.appendChild(pre);
    });</script>`;
    writeFileSync(measured, page.replace('</body>', `${measure}</body>`));
    const dom = execFileSync(
      CHROMIUM!,
      [
        ...LAUNCH,
        `--user-data-dir=${join(rig.configDir, 'profile')}`,
        '--window-size=800,1200',
        '--virtual-time-budget=5000',
        '--dump-dom',
        `file://${measured}`,
      ],
      { encoding: 'utf8', timeout: 60_000, stdio: ['ignore', 'pipe', 'ignore'] },
    );
    const found = /<pre id="measure">(.*?)<\/pre>/s.exec(dom);
    expect(found, 'the measuring script ran').not.toBeNull();
    const out = JSON.parse(found![1].replace(/&quot;/g, '"').replace(/&amp;/g, '&'));
    expect(out.charts.map((chart: any) => chart.name)).toEqual(['coverage', 'effectiveness']);
    for (const chart of out.charts) {
      expect(chart.w).toBeGreaterThan(300);
      expect(chart.h).toBeGreaterThan(80);
    }
    expect(out.band.w).toBeGreaterThan(20);
    expect(out.bars).toBeGreaterThanOrEqual(4);
    expect(out.scrollWidth).toBeLessThanOrEqual(out.innerWidth);
    // Every table fits its page: none scrolls sideways (the effectiveness table's ten columns included).
    expect(out.tables).toHaveLength(3);
    for (const overflow of out.tables) expect(overflow).toBeLessThanOrEqual(0);
  },
);
