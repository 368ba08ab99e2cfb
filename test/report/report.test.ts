// `hedge report` and `hedge history --since/--until` end to end: the binary against a simulator
// whose closed hedges come from real opens and closes (through the CLI and the API) and from an
// automatic settlement at maturity, on a clock that moves only by advance(). Every figure is
// checked against the simulator's own state and GET /hedges/history, to the cent.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { HistoryRecord } from '../../src/sandbox/engine-state.js';
import { ok, okJson, exits } from '../support/cli-runs.js';
import { tempDir, type HedgeArgs } from '../support/hedge-cli.js';
import { apiData, startSimulator, useSimulators, type Simulator } from '../support/simulator.js';

/** Monday 2 March 2026, 09:00 UTC; the simulator's clock moves only by advance(). */
const START_MS = Date.parse('2026-03-02T09:00:00.000Z');
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const NGN = { market: 'USDTNGN' };

let trading: Simulator;
const files = tempDir('hedge-report-');
const start = useSimulators();
const api = (method: 'GET' | 'POST', path: string, body?: unknown) => apiData(trading, method, path, body);
const historyQueries = (simulator: Simulator) =>
  simulator.requests('GET', '/hedges/history').map((entry) => entry.query);

const cli = (args: HedgeArgs) => trading.hedge(args);
const cliOk = async (args: HedgeArgs) => ok(await cli(args)).stdout;
const advance = (ms: number) => trading.sandbox.clock.advance(ms);

/** The simulator's own closed-hedge records (oldest first). */
function engineHistory() {
  return Object.values(trading.sandbox.engine.state.accounts).flatMap((account) => account.history);
}

const cents = (value: number) => Math.round(value * 100);
const sumCents = (values: number[]) => values.reduce((sum, value) => sum + cents(value), 0);
/** The net P&L of closed-hedge records, in cents. */
const netCents = (records: Array<{ net_pnl_usd: number }>) => sumCents(records.map((record) => record.net_pnl_usd));
/** A simulator on START_MS with `count` closed hedges seeded (`report-e2e-NAME`), and its account. */
async function seeded(name: string, count: number, options = {}) {
  const simulator = await start({ realNow: () => START_MS, seed: `report-e2e-${name}`, ...options });
  simulator.sandbox.seedHedges({ apiKey: simulator.apiKey, count });
  const [account] = Object.values(simulator.sandbox.engine.state.accounts);
  return { simulator, account };
}
/** What a run that must exit 0 printed, line by line. */
const cliLines = async (args: string) => (await cliOk(args)).trimEnd().split('\n');
/** The keys of a report's groups, in its order. */
const keysOf = (report: any) => report.groups.map((group: any) => group.key);
/** The ids `hedge history ARGS --json` lists, in its order. */
const historyIds = async (args: string) =>
  JSON.parse(await cliOk(`history ${args} --json`)).map((record: any) => record.hedge_id);
/** `hedge report ARGS --json`, which must exit 0. */
const reportJson = async (args: string) => okJson(await cli(`report ${args} --json`));

beforeAll(async () => {
  trading = await startSimulator({ fillDelayMs: 100, realNow: () => START_MS, seed: 'report-e2e' });

  // A: opened and closed early through the CLI on Monday 2 March (ISO week 10).
  // Each step waits a second more: the fill comes after 100 ms.
  await cliOk('open USDTNGN buy 10000 --tenor 1 --ref DEAL-A --no-wait --json');
  advance(1000 + 2 * HOUR);
  await cliOk('close USDTNGN buy --no-wait --json');
  advance(1000);

  // B: a 1-day sell left to settle by itself at maturity (Tuesday 3 March).
  await api('POST', '/hedges', {
    ...NGN,
    side: 'sell',
    notional_usd: 20_000,
    tenor_days: 1,
    client_reference: 'DEAL-B',
  });
  advance(1000 + DAY + HOUR);

  // C: a week later (ISO week 11), opened and closed early through the CLI.
  advance(7 * DAY);
  await cliOk('open USDTNGN buy 15000 --tenor 3 --no-wait --json');
  advance(1000 + HOUR / 2);
  // The same close as A's, moments later on this machine's clock: --again says it is meant.
  await cliOk('close USDTNGN buy --no-wait --json --again');

  // D: a month later (April), opened and closed early through the API.
  advance(1000 + 30 * DAY);
  await api('POST', '/hedges', { ...NGN, side: 'sell', notional_usd: 5000, tenor_days: 3, client_reference: 'DEAL-D' });
  advance(1000 + HOUR);
  await api('POST', '/hedges/close', { ...NGN, side: 'sell' });

  // Still open: its unrealized P&L has a line of its own, outside the realized figures.
  advance(1000);
  await api('POST', '/hedges', { ...NGN, side: 'buy', notional_usd: 7000, tenor_days: 7 });
  advance(1000 + HOUR);
});

afterAll(async () => {
  await trading?.close();
  files.remove();
});

describe('hedge report', () => {
  /** A closed hedge's group by each time, side, tenor and market (weeks are written out below). */
  const keyOf = (record: HistoryRecord) => ({
    day: record.closed_at.slice(0, 10),
    month: record.closed_at.slice(0, 7),
    side: record.side,
    tenor: String(record.tenor_days),
    market: record.market,
  });

  for (const by of ['day', 'week', 'month', 'side', 'tenor', 'market'] as const) {
    it(`--by ${by}: groups sum to the totals, and the totals equal GET /hedges/history to the cent`, async () => {
      const before = trading.sandbox.requestLog.length;
      const report = await reportJson(`--by ${by}`);
      const wire = await api('GET', '/hedges/history?limit=500');
      const history = engineHistory();
      const { totals, groups } = report;

      expect(report).toMatchObject({ by, complete: true, totals: { count: wire.length } });
      expect(cents(totals.net_pnl_usd)).toBe(netCents(wire));
      // Carry and fees on the account's side: the server's positive (paid) is negative in the report.
      for (const [figure, sign, sent] of [
        ['net_pnl_usd', 1, 'net_pnl_usd'],
        ['fees_pnl_usdc', -1, 'fees_usdc'],
        ['carry_pnl_usdc', -1, 'carry_usdc'],
        ['gross_pnl_usd', 1, 'gross_pnl_usd'],
        ['notional_usd', 1, 'notional_usd'],
      ] as const)
        expect(cents(totals[figure]), figure).toBe(sign * sumCents(history.map((record) => record[sent])));
      expect(sumCents(groups.map((group: any) => group.net_pnl_usd))).toBe(cents(totals.net_pnl_usd));
      expect(groups.reduce((sum: any, group: any) => sum + group.count, 0)).toBe(totals.count);

      // Each group holds exactly the simulator's records with that key.
      if (by === 'week') {
        expect(groups.map((group: any) => [group.key, group.count])).toEqual([
          ['2026-W10', 2],
          ['2026-W11', 1],
          ['2026-W15', 1],
        ]);
      } else {
        const key = (record: HistoryRecord) => keyOf(record)[by];
        const keys = [...new Set(history.map(key))].sort((a, b) =>
          by === 'tenor' ? Number(a) - Number(b) : a < b ? -1 : 1,
        );
        expect(groups.map((group: any) => [group.key, cents(group.net_pnl_usd)])).toEqual(
          keys.map((name) => [name, netCents(history.filter((record) => key(record) === name))]),
        );
      }

      // The open position is on its own line: the account's unrealized P&L, not in the totals.
      const [position] = await api('GET', '/positions');
      expect(report.unrealized).toEqual({ positions: 1, net_pnl_usd: position.net_pnl_usd });

      // The CLI's two requests: reads only, history asking for the largest page.
      const cliRequests = trading.sandbox.requestLog.slice(before, before + 2);
      expect([
        cliRequests.map((entry) => `${entry.method} ${entry.path}`).sort(),
        cliRequests.find((entry) => entry.path === '/hedges/history')?.query,
      ]).toEqual([['GET /hedges/history', 'GET /positions'], { limit: '500' }]);
    });
  }

  it('--since (inclusive) and --until (exclusive) filter on the close time: the report, and history listing exactly the closed hedges of the period', async () => {
    // oldest first: A, B, C, D
    const [a, b, c, d] = engineHistory();
    /** Count and net P&L in cents of a report's totals. */
    const counted = ({ totals }: any) => [totals.count, cents(totals.net_pnl_usd)];
    const report = await reportJson(`--by side --since ${b.closed_at} --until ${d.closed_at}`);
    expect([counted(report), counted(await reportJson('--since 2026-03-10'))]).toEqual([
      [2, sumCents([b.net_pnl_usd, c.net_pnl_usd])],
      [2, sumCents([c.net_pnl_usd, d.net_pnl_usd])],
    ]);
    expect(report.cumulative.map((point: any) => point.at)).toEqual(
      [b.closed_at, c.closed_at].map((at) => new Date(at).toISOString()),
    );
    expect([
      await historyIds(`--since ${b.closed_at} --until ${d.closed_at}`),
      await historyIds('--until 2026-03-03'),
      await historyIds('--since 2026-03-10T00:00:00Z --limit 1'),
    ]).toEqual([[c.hedge_id, b.hedge_id], [a.hedge_id], [d.hedge_id]]);
    // A header row of keys, then the one closed hedge of the period.
    expect(
      ok(await cli('history --since 2026-04-01'))
        .stdout.trim()
        .split('\n')
        .map((line) => line.split('\t')[0]),
    ).toEqual(['hedge_id', d.hedge_id]);
  });

  it("a period with no closed hedge: totals of 0 in JSON and on stderr beside the rows, never unknown; a time ago counts back from the server's time, not this machine's (months ahead here)", async () => {
    expect(engineHistory().filter((record) => record.closed_at >= '2026-05')).toEqual([]);
    expect(await historyIds('--since 2026-05-01')).toEqual([]);
    const report = await reportJson('--by side --since 2026-05-01');
    expect([report.groups, report.totals]).toEqual([
      [],
      { count: 0, notional_usd: 0, gross_pnl_usd: 0, carry_pnl_usdc: 0, fees_pnl_usdc: 0, net_pnl_usd: 0 },
    ]);
    expect(ok(await cli('report --by side --since 2026-05-01')).stderr).toContain(
      'Total\tcount=0\tnotional_usd=0.00\tgross_pnl_usd=0.00\tcarry_pnl_usdc=0.00\tfees_pnl_usdc=0.00\tnet_pnl_usd=0.00',
    );
    const [, , , d] = engineHistory();
    const serverNow = trading.sandbox.clock.now();
    expect(Date.now() - serverNow).toBeGreaterThan(30 * DAY);
    const ago = await reportJson('--since 7d');
    expect([await historyIds('--since 7d'), ago.totals.count]).toEqual([[d.hedge_id], 1]);
    // The Date header is to the second: the period starts within a few seconds of the server's time less 7 days.
    expect(Math.abs(Date.parse(ago.since) - (serverNow - 7 * DAY))).toBeLessThan(5000);
  });

  it('--format csv: the documented header, then one row per group matching the JSON; tsv (in a pipe): the header row, then the rows; --fields picks report columns in tsv and csv; --no-header drops the header', async () => {
    const report = await reportJson('--by tenor');
    const [csvHeader, ...rows] = await cliLines('report --by tenor --format csv');
    expect(csvHeader).toBe('group,count,notional_usd,gross_pnl_usd,carry_pnl_usdc,fees_pnl_usdc,net_pnl_usd');
    const cells = rows.map((row) => row.split(','));
    expect([
      [cells.map((row) => row[0]), cells.map((row) => Number(row[1]))],
      cells.map((row) => cents(Number(row[6]))),
    ]).toEqual([
      [keysOf(report), report.groups.map((group: any) => group.count)],
      report.groups.map((group: any) => cents(group.net_pnl_usd)),
    ]);
    expect(sumCents(cells.map((row) => Number(row[6])))).toBe(netCents(engineHistory()));
    for (const row of cells) for (const money of row.slice(2)) expect(money).toMatch(/^-?\d+\.\d{2}$/);

    const [header, ...tsvRows] = await cliLines('report --by tenor');
    expect([header, tsvRows.map((row) => row.split('\t')[0])]).toEqual([
      'group\tcount\tnotional_usd\tgross_pnl_usd\tcarry_pnl_usdc\tfees_pnl_usdc\tnet_pnl_usd',
      keysOf(report),
    ]);
    expect(await cliLines('report --by tenor --format csv --fields net_pnl_usd,group')).toEqual([
      'net_pnl_usd,group',
      ...report.groups.map((group: any) => `${group.net_pnl_usd.toFixed(2)},${group.key}`),
    ]);
    expect(await cliLines('report --by tenor --fields group --no-header')).toEqual(keysOf(report));
    exits(
      await cli('report --format csv --fields group,bogus'),
      2,
      '--fields: "bogus" is not a report column; expected some of group, count, notional_usd',
    );
  });

  it('--html FILE: one self-contained page whose totals are the JSON totals; the closed hedges with reference, entry and exit rate, notional and amount locked, each totals cell the sum of its column to the cent', async () => {
    const path = join(files.path, 'report.html');
    const result = await cli(`report --by month --html ${path} --json`);
    const report = okJson(result);
    expect(result.stderr).toContain(path);
    const html = readFileSync(path, 'utf8');
    // Each totals card names its JSON field and holds its number as the JSON has it (data-value).
    for (const field of 'net_pnl_usd gross_pnl_usd carry_pnl_usdc fees_pnl_usdc notional_usd count'.split(' ')) {
      const shown = new RegExp(`data-total="${field}" data-value="([^"]*)"`).exec(html)?.[1];
      expect(cents(Number(shown)), field).toBe(cents(report.totals[field]));
    }
    for (const external of 'http: https: // url( @import <script <img <link'.split(' '))
      expect(html.toLowerCase(), external).not.toContain(external);
    // The account and environment are named — a simulator on this machine, not its temporary port; the key never is.
    for (const named of ['TEST', 'a simulator on this machine']) expect(html).toContain(named);
    const { port, apiKey } = trading.sandbox;
    for (const secret of [String(port), apiKey, apiKey.slice(-12)]) expect(html).not.toContain(secret);
    /** The text of each TAG element inside `text`. */
    const cells = (text: string, tag: string) =>
      [...text.matchAll(new RegExp(`<${tag}(?: [^>]*)?>([\\s\\S]*?)</${tag}>`, 'g'))].map((match) => match[1]);
    const table = /<table class="hedges">([\s\S]*?)<\/table>/.exec(html)![1];
    const heads = cells(table, 'th');
    for (const title of 'Ref|Entry rate|Exit rate|Notional (USD)|Locked|Net P&amp;L'.split('|'))
      expect(heads).toContain(title);
    const rows = cells(cells(table, 'tbody')[0], 'tr').map((row) => cells(row, 'td'));
    expect(rows).toHaveLength(4);
    const number = (text: string) => Number(text.replace(/<[^>]+>/g, '').replace(/[,+]/g, ''));
    for (const record of engineHistory()) {
      // The id is shortened on the page (as in the terminal), whole in its title.
      const row = rows.find((candidate) => candidate[1].includes(`title="${record.hedge_id}"`))!;
      expect(row[2]).toBe(record.client_reference ?? '—');
      expect([number(row[6]), number(row[7])]).toEqual(
        [record.entry_price, record.exit_price].map((rate) => Number(rate.toFixed(2))),
      );
    }
    const foot = cells(cells(table, 'tfoot')[0], 'th');
    // Columns 8 to 13: notional, locked, gross, carry, fees, net (the footer's label spans the first six).
    for (const column of [8, 9, 10, 11, 12, 13])
      expect(sumCents(rows.map((row) => number(row[column]))), heads[column]).toBe(cents(number(foot[column - 5])));
  });

  it('bad --by, --since, --until or --format: exit 2 naming the option and its forms, nothing sent; a month is written 1mo (30m is refused as ambiguous)', async () => {
    const before = trading.sandbox.requestLog.length;
    const asked = historyQueries(trading).length;
    const cases: Array<[HedgeArgs, RegExp | string]> = [
      ['report --by year', /--by: "year" is not allowed; expected one of day, week, month, side, tenor, market/],
      ['report --since yesterday', /--since: "yesterday" is not allowed; expected a date \(2026-11-01/],
      ['report --until 2026-02-30', /--until: "2026-02-30" is not allowed/],
      ['report --since 2026-03-10 --until 2026-03-01', /--since .* must be before --until/],
      ['report --format xml', /--format: "xml" is not allowed; expected one of table, tsv, csv, json, ndjson/],
      ['report --format csv --json', /--json and --format csv/],
      [`report --html ${join(files.path, 'missing-folder', 'r.html')}`, /--html: the folder .* does not exist/],
      [['history', '--since', '3 days ago'], /--since: "3 days ago" is not allowed/],
      [
        'history --since 30m',
        'hedge: --since: "30m" is ambiguous here: write 30mo for a month (m is minutes in hedge journal).\n',
      ],
      [
        'report --until 1M',
        'hedge: --until: "1M" is ambiguous here: write 1mo for a month (m is minutes in hedge journal).\n',
      ],
    ];
    for (const [args, message] of cases) {
      const result = await cli(args);
      expect(result.code, String(args)).toBe(2);
      if (typeof message === 'string') expect(result.stderr, String(args)).toBe(message);
      else expect(result.stderr, String(args)).toMatch(message);
      expect(result.stdout).toBe('');
    }
    expect(trading.sandbox.requestLog.length).toBe(before);

    // The month form is read: the history is asked for, as for any other --since.
    ok(await cli('history --since 1mo --json'));
    expect(historyQueries(trading).length).toBeGreaterThan(asked);
  });
});

it('hedge report reconciles deal by deal: --by hedge: each closed hedge with its reference, entry and exit rate, notional and the quote amount locked, in JSON and CSV; totals are the sums of the rows to the cent; --ref keeps the closed hedges that carry it', async () => {
  const report = await reportJson('--by hedge');
  const history = engineHistory();
  const [header, ...csvLines] = await cliLines('report --by hedge --format csv');
  expect(header).toBe(
    'group,client_reference,market,side,closed_at,entry_price,exit_price,notional_usd,quote_currency,quote_amount_locked,gross_pnl_usd,carry_pnl_usdc,fees_pnl_usdc,net_pnl_usd',
  );
  const rows = csvLines.map((line) => line.split(','));
  expect(keysOf(report).sort()).toEqual(history.map((record) => record.hedge_id).sort());
  for (const { hedge_id, client_reference = null, entry_price, exit_price, notional_usd } of history) {
    const group = report.groups.find((candidate: any) => candidate.key === hedge_id);
    expect(group.deal).toMatchObject({ client_reference, entry_price, exit_price, quote_currency: 'NGN' });
    expect([cents(group.deal.quote_amount_locked), group.notional_usd]).toEqual([
      cents(notional_usd * entry_price),
      notional_usd,
    ]);
    const row = rows.find((candidate) => candidate[0] === hedge_id)!;
    // CSV: client_reference, entry_price and exit_price are the second, sixth and seventh columns.
    expect([row[1], Number(row[5]), Number(row[6])]).toEqual([client_reference ?? '', entry_price, exit_price]);
  }
  expect(report.groups.map((group: any) => group.deal.client_reference).sort()).toEqual(
    ['DEAL-A', 'DEAL-B', 'DEAL-D', null].sort(),
  );
  for (const figure of 'notional_usd gross_pnl_usd carry_pnl_usdc fees_pnl_usdc net_pnl_usd'.split(' '))
    expect(sumCents(report.groups.map((group: any) => group[figure])), figure).toBe(cents(report.totals[figure]));
  for (const figure of ['net_pnl_usd', 'notional_usd'])
    expect(sumCents(rows.map((row) => Number(row[header.split(',').indexOf(figure)]))), `csv ${figure}`).toBe(
      cents(report.totals[figure]),
    );
  expect(report.locked).toEqual([
    {
      quote_currency: 'NGN',
      amount: sumCents(report.groups.map((group: any) => group.deal.quote_amount_locked)) / 100,
      count: 4,
    },
  ]);

  const deal = await reportJson('--by hedge --ref DEAL-B');
  const b = history.find((record) => record.client_reference === 'DEAL-B')!;
  expect([keysOf(deal), cents(deal.totals.net_pnl_usd)]).toEqual([[b.hedge_id], cents(b.net_pnl_usd)]);
});

describe('hedge report on more than a page of history', () => {
  it('follows the simulator\'s cursor to the last page: every closed hedge, "complete": true', async () => {
    const { simulator: paged, account } = await seeded('paged', 1_201);
    const result = await paged.hedge('report --by month --json');
    const report = okJson(result);
    expect([report.complete, report.totals.count]).toEqual([true, 1_201]);
    expect(result.stderr).not.toMatch(/incomplete/);
    const [first, ...more] = historyQueries(paged);
    expect([
      [first, more.length],
      more.every((query) => query.limit === '500' && typeof query.cursor === 'string'),
    ]).toEqual([[{ limit: '500' }, 2], true]);
    // The net P&L is the server's own, record for record.
    expect(cents(report.totals.net_pnl_usd)).toBe(netCents(account.history));
  });

  it('a server with no cursor, exactly 500 closed hedges back: a warning on stderr and "complete": false', async () => {
    const { simulator: full } = await seeded('full', 501, { dialect: 'alpha' });
    const result = await full.hedge('report --by month --json', { env: { HEDGE_WIRE_PAGE_SIZE_PARAM: 'page_size' } });
    const report = okJson(result);
    expect([report.complete, report.totals.count]).toEqual([false, 500]);
    expect(result.stderr).toMatch(/returned 500 closed hedges.*may be incomplete/s);
    expect(historyQueries(full)).toEqual([{ page_size: '500' }]);
  });
});

it('hedge report and history against a server that ignores the page size: alpha (one page of its own 50, `limit` ignored, no cursor): 51 closed hedges are never summed as 50 without a word; told its name, all 51; history --ref and report --by hedge say their hedge records may be cut at 50, never join from them silently', async () => {
  const { simulator: alpha, account } = await seeded('alpha', 51, { dialect: 'alpha' });
  expect(account.history).toHaveLength(51);
  const warned =
    /returned 50 closed hedges and no next page, and the server may not read the page size.*may be incomplete.*HEDGE_WIRE_PAGE_SIZE_PARAM/s;

  const result = await alpha.hedge('report --by month --json');
  const report = okJson(result);
  expect([report.complete, report.totals.count]).toEqual([false, 50]);
  expect(result.stderr).toMatch(warned);
  // The history as asked (alpha ignores `limit`), then a page of one to see whether the size is read.
  expect(historyQueries(alpha)).toEqual([{ limit: '500' }, { limit: '1' }]);

  const period = await alpha.hedge('history --since 2000-01-01 --json');
  expect(okJson(period)).toHaveLength(50);
  expect(period.stderr).toMatch(warned);
  expect(historyQueries(alpha).slice(2)).toEqual([{ limit: '500' }, { limit: '1' }]);

  // A period whose start lies inside the page read is whole, cut or not: nothing said, no page of one.
  const since = account.history[10].closed_at;
  const inside = account.history.filter((record) => Date.parse(record.closed_at) >= Date.parse(since));
  const recent = await alpha.hedge(`history --since ${since} --json`);
  expect(
    okJson(recent)
      .map((record: any) => record.hedge_id)
      .sort(),
  ).toEqual(inside.map((record) => record.hedge_id).sort());
  expect(recent.stderr).toBe('');
  expect(historyQueries(alpha).slice(4)).toEqual([{ limit: '500' }]);

  // Its own name given: the page of one comes back as one, so the 51 read are the whole history.
  const told = await alpha.hedge('report --by month --json', { env: { HEDGE_WIRE_PAGE_SIZE_PARAM: 'page_size' } });
  const whole = okJson(told);
  expect([whole.complete, whole.totals.count]).toEqual([true, 51]);
  expect(cents(whole.totals.net_pnl_usd)).toBe(netCents(account.history));
  expect(told.stderr).not.toMatch(/incomplete/);
  expect(historyQueries(alpha).slice(5)).toEqual([{ page_size: '500' }, { page_size: '1' }]);

  // Deal references read from its hedge records: history --ref and report --by hedge say those may be cut
  // at 50, never join from them silently. One deal of 51 hedges whose closed-hedge records carry no
  // reference: it is joined from the hedge records.
  for (const hedge of Object.values(account.hedges)) hedge.clientReference = 'DEAL-7';
  for (const record of account.history) delete record.client_reference;
  const hedgeQueries = () => alpha.requests('GET', '/hedges').map((entry) => entry.query);

  const deal = await alpha.hedge('history --ref DEAL-7 --json');
  expect(okJson(deal).length).toBeLessThanOrEqual(50);
  expect(deal.stderr).toMatch(
    /The list may be cut at 50 hedge records: .*HEDGE_WIRE_PAGE_SIZE_PARAM.* A closed hedge past them whose history record carries no reference is not joined to its deal/s,
  );
  expect(hedgeQueries()).toEqual([
    { client_reference: 'DEAL-7', limit: '500' },
    { client_reference: 'DEAL-7', limit: '1' },
  ]);
  expect((await alpha.hedge('report --by hedge --json')).stderr).toMatch(
    /The list may be cut at 50 hedge records: .* A closed hedge past them whose history record carries no reference is not joined to its deal/s,
  );
  expect(hedgeQueries().slice(2)).toEqual([{ limit: '500' }, { limit: '1' }]);

  const byDeal = await alpha.hedge('report --by hedge --ref DEAL-7 --json');
  expect(byDeal.stderr).toMatch(/The list may be cut at 50 hedge records: .* is not joined to its deal/s);
  expect(okJson(byDeal).complete).toBe(false);
});

it('closed hedges without a readable close time: are left out (and counted on stderr) when filtering or grouping by time, kept otherwise', async () => {
  const { simulator: odd, account } = await seeded('undated', 3);
  const undated = account.history[1] as Partial<HistoryRecord>;
  delete undated.closed_at;
  const leftOut = /1 closed hedge left out: no readable close time/;

  expect(okJson(await odd.hedge('history --json'))).toHaveLength(3);
  const filtered = await odd.hedge('history --since 2000-01-01 --json');
  const kept = okJson(filtered).map((record: any) => record.hedge_id);
  expect(kept).toHaveLength(2);
  expect(kept).not.toContain(undated.hedge_id);
  expect(filtered.stderr).toMatch(leftOut);

  const bySide = okJson(await odd.hedge('report --by side --json'));
  expect([bySide.totals.count, bySide.undated]).toEqual([3, 1]);
  expect(cents(bySide.totals.net_pnl_usd)).toBe(netCents(account.history));

  const byDay = await odd.hedge('report --by day --json');
  expect(okJson(byDay)).toMatchObject({ totals: { count: 2 }, excluded: 1 });
  expect(byDay.stderr).toMatch(leftOut);
});

it('figures the server gives past the cent: history and report round each figure once, half away from zero: the Total row is the sum of the rows above it, and the report total', async () => {
  const { simulator: fine, account } = await seeded('half-cents', 2);
  // Half cents as the server may write them (a float holds 1.005 just below the half).
  account.history[0].net_pnl_usd = 1.005;
  account.history[1].net_pnl_usd = 2.675;
  expect(
    (await apiData(fine, 'GET', '/hedges/history?limit=500')).map((record: any) => record.net_pnl_usd).sort(),
  ).toEqual([1.005, 2.675]);

  const screen = ok(await fine.hedge('history --fields hedge_id,net_pnl_usd', { screen: { columns: 120, rows: 20 } }));
  expect([...screen.stdout.matchAll(/^hdg_\S+ +(\S+)$/gm)].map(([, value]) => value).sort()).toEqual([
    '+1.01',
    '+2.68',
  ]);
  expect(screen.stdout).toMatch(/^Total \(2 hedges\) +\+3\.69$/m);
  expect((await fine.hedge('history')).stderr).toContain('net_pnl_usd=3.69');
  expect(okJson(await fine.hedge('report --by side --json')).totals.net_pnl_usd).toBe(3.69);
});
