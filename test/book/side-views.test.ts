// The read side, end to end against the simulator: several hedges on one side and the
// deal followed through every roll. `positions` shows each side's line with its hedges from their
// records, and a side whose views disagree as settling — never flat because one view trails;
// `maturities` is a row per hedge; `history --ref` and `report` follow one deal (a client_reference)
// across the hedges its rolls opened, joining the reference from the hedge records where a history
// record carries none. What is asserted is the output against the server's own state and its
// request log; no network is mocked (a proxy in front of the simulator plays a poorer server).
import stringWidth from 'string-width';
import { startAnswerProxy } from '../support/servers/field-proxy.js';
import type { HedgeArgs } from '../support/hedge-cli.js';
import {
  apiData,
  envFor,
  FILL_DELAY_MS,
  MARKET,
  pinnedClockEnv,
  skippingClock,
  useSimulators,
  type Simulator,
} from '../support/simulator.js';
import { printedTable } from '../support/output/table-text.js';
import { exits, ok, okJson } from '../support/cli-runs.js';
import { hedgeOf, lines, writeTarget } from '../support/keeper.js';
import { openByApi } from './open-by-api.js';
import { clientFor } from '../support/client.js';
import { sourceFor, type WatchRow } from '../../src/features/book/watch-model.js';

const startSimulator = useSimulators();

/** The command on a frozen simulator with the CLI's clock pinned to it, a table at 80 columns unless `env` says otherwise; it must exit 0. */
const frozen = async (simulator: Simulator, args: HedgeArgs, env = {}) =>
  ok(await simulator.hedge(args, { env: { ...pinnedClockEnv(simulator), COLUMNS: '80', ...env } }));
/** …its stdout read as JSON. */
const frozenJson = async (simulator: Simulator, args: HedgeArgs) => JSON.parse((await frozen(simulator, args)).stdout);

/** Moves the server's clock past the fill of the hedges just opened. */
const filled = (simulator: Simulator) => simulator.advance(FILL_DELAY_MS + 1);

/** The printed lines, each checked to fit 80 columns. */
function screenLines(stdout: string) {
  const lines = stdout.trimEnd().split('\n');
  for (const line of lines) expect(stringWidth(line), line).toBeLessThanOrEqual(80);
  return lines;
}

/** The table's lines from its first row on (its header may take one line or two), every line checked to fit. */
function rowLines(stdout: string) {
  return screenLines(stdout).slice(printedTable(stdout)!.ruleAt + 1);
}

it("several hedges on one side (severalPerSide): positions: the side's one line with both its hedges under it (id, reference, notional, status, time left), every line within 80 columns; maturities: a row per hedge; positions --ref and --watch --ref find the side by any of its hedges (the line names only the newest); positions when the hedge records are not there: a server that lists no hedge records: the positions as sent, and that the records held none; GET /hedges refused: the positions still shown (side_book null), and why the hedges are not", async () => {
  const simulator = await startSimulator({ preset: 'frozen', severalPerSide: true });
  const short = await openByApi(simulator, 'buy', 10_000, 1, 'DEAL-7');
  const long = await openByApi(simulator, 'buy', 3_000, 7, 'DEAL-8');
  filled(simulator);
  // The server: two filled hedges on the side, and one positions line for it (the newest hedge's id).
  expect(simulator.active('buy').map((hedge) => [hedge.id, hedge.status])).toEqual([
    [short, 'filled'],
    [long, 'filled'],
  ]);
  const listed = await apiData(simulator, 'GET', '/positions');
  expect(listed).toMatchObject([{ side: 'buy', notional_usd: 13_000, hedge_id: long }]);

  const table = await frozen(simulator, 'positions --format table');
  expect(rowLines(table.stdout)).toEqual([
    expect.stringMatching(/^buy +DEAL-7, DEAL-8 +13,000\.00 /),
    // Soonest maturity first, each with its own reference, notional, status and time left.
    expect.stringMatching(new RegExp(`^  └ ${short}  DEAL-7  10,000\\.00 USD  filled  23h 59m$`)),
    expect.stringMatching(new RegExp(`^  └ ${long}  DEAL-8   3,000\\.00 USD  filled   6d 23h$`)),
  ]);
  expect(table.stderr).not.toContain('settling');
  // Wider: the maturity in UTC joins each hedge's line.
  expect(
    (await frozen(simulator, 'positions --format table', { COLUMNS: '120' })).stdout
      .split('\n')
      .filter((line) => line.startsWith('  └ ')),
  ).toEqual([
    expect.stringMatching(new RegExp(`^  └ ${short} .* 2026-03-03 09:00 UTC$`)),
    expect.stringMatching(new RegExp(`^  └ ${long} .* 2026-03-09 09:00 UTC$`)),
  ]);

  // --json: the server's position object untouched; the side's references at the top (one field
  // only for one reference, all of them always) and its book beside it under `side_book`.
  const positions = await frozenJson(simulator, 'positions --json');
  expect(Object.keys(positions[0]).slice(0, 2)).toEqual(['client_reference', 'client_references']);
  expect(positions).toEqual([
    {
      ...listed[0],
      client_reference: null,
      client_references: ['DEAL-7', 'DEAL-8'],
      side_book: expect.objectContaining({
        state: 'in-step',
        why: null,
        records_notional_usd: 13_000,
        hedges: [
          await apiData(simulator, 'GET', `/hedges/${short}`),
          await apiData(simulator, 'GET', `/hedges/${long}`),
        ],
      }),
    },
  ]);
  // CSV: the one reference column, both joined.
  expect(
    (await frozen(simulator, 'positions --format csv --fields side,client_reference')).stdout.trim().split('\n'),
  ).toEqual(['side,client_reference', 'buy,"DEAL-7, DEAL-8"']);
  // The hedges came from their records (every filled one, and the newest page), not from the line.
  expect(simulator.requests('GET', '/hedges').some((entry) => entry.query.status === 'filled')).toBe(true);
  // maturities: a row per hedge, each with its own maturity, not one per side line (the side's P&L left to positions).
  expect(await frozenJson(simulator, 'maturities --json')).toMatchObject(
    [
      [short, 'DEAL-7', 10_000, '2026-03-03', 1],
      [long, 'DEAL-8', 3_000, '2026-03-09', 7],
    ].map(([hedge_id, client_reference, notional_usd, day, tenor_days]) => ({
      hedge_id,
      side: 'buy',
      client_reference,
      notional_usd,
      day,
      maturity_at: `${day}T09:00:00.000Z`,
      tenor_days,
      net_pnl_usd: null,
      accrued_carry_usdc: null,
    })),
  );
  const maturities = screenLines((await frozen(simulator, 'maturities --format table')).stdout);
  expect(maturities).toEqual(
    expect.arrayContaining(['Tue 03 Mar 2026 · 1 hedge · 10,000.00 USD', 'Mon 09 Mar 2026 · 1 hedge · 3,000.00 USD']),
  );
  expect(maturities.filter((line) => /^09:00 /.test(line))).toEqual([
    expect.stringMatching(/ buy +DEAL-7 +10,000\.00 /),
    expect.stringMatching(/ buy +DEAL-8 +3,000\.00 /),
  ]);
  expect([
    await frozenJson(simulator, 'positions --json --ref DEAL-7 --fields side'),
    (await frozenJson(simulator, 'positions --watch 1 --count 1 --ref DEAL-7 --fields side')).data,
  ]).toEqual([[{ side: 'buy' }], [{ side: 'buy' }]]);
  // One hedge left on the side (a reduce takes the newest first): its reference is `client_reference`.
  await apiData(simulator, 'POST', '/hedges/reduce', { market: MARKET, side: 'buy', notional_usd: 3_000 });
  filled(simulator);
  expect(simulator.active('buy').map((hedge) => hedge.id)).toEqual([short]);
  expect(await frozenJson(simulator, 'positions --json --fields side,client_reference,client_references')).toEqual([
    { side: 'buy', client_reference: 'DEAL-7', client_references: ['DEAL-7'] },
  ]);
  // --raw: the server's data as sent, nothing added.
  expect((await frozenJson(simulator, 'positions --json --raw'))[0]).not.toHaveProperty('client_references');

  // Positions when the hedge records are not there: a server that lists none, then GET /hedges refused.
  const bookless = [{ side: 'buy', notional_usd: 10_000, side_book: null }];
  {
    const proxy = await startAnswerProxy(simulator.sandbox, (request, envelope) => {
      if (request.method === 'GET' && request.path === '/hedges') envelope.data = [];
    });
    try {
      const json = await frozen(simulator, 'positions --json', envFor(proxy));
      expect(JSON.parse(json.stdout)).toMatchObject(bookless);
      expect(json.stderr).toContain('Hedges not shown: GET /hedges returned no hedge records');
      expect(json.stderr).not.toContain('settling');
    } finally {
      await proxy.close();
    }

    const asked = simulator.requests('GET', '/hedges').length;
    simulator.sandbox.setFaults({
      nextError: { count: 100, status: 403, code: 'forbidden', message: 'this key may not list hedges' },
      match: { method: 'GET', path: '/hedges' },
    });
    const json = await frozen(simulator, 'positions --json');
    expect(JSON.parse(json.stdout)).toMatchObject(bookless);
    expect(json.stderr).toMatch(/Hedges not shown: GET \/hedges failed \(.*this key may not list hedges.*\)/);
    expect(
      simulator
        .requests('GET', '/hedges')
        .slice(asked)
        .every((entry) => entry.errorCode === 'forbidden'),
    ).toBe(true);
    const table = await frozen(simulator, 'positions --format table');
    expect(rowLines(table.stdout)[0]).toMatch(/^buy +— +10,000\.00 /);
    expect(table.stdout).not.toContain('└');
    // maturities lists the side from its positions line alone, and says why.
    const maturities = await frozen(simulator, 'maturities --json');
    expect(JSON.parse(maturities.stdout)).toMatchObject([{ side: 'buy', notional_usd: 10_000 }]);
    expect(maturities.stderr).toContain('Hedges not read: GET /hedges failed');
  }
});

const LAG_MS = 3_000;

it('a server whose positions list trails the hedge records (viewLagMs): right after another client\'s open the side is settling, not flat: a row with the reason on a terminal (--until draws it as positions does, never "no line yet"), a warning in JSON; in step once the list catches up; right after a close the list still shows the side whose hedge has closed on its record: settling, with the line kept as sent', async () => {
  const simulator = await startSimulator({ preset: 'frozen', viewLagMs: LAG_MS });
  const id = await openByApi(simulator, 'buy', 2_000, 1, 'DEAL-9');
  filled(simulator);
  // The server itself: the record is filled, the positions list shows nothing yet.
  expect(simulator.active('buy').map((hedge) => hedge.status)).toEqual(['filled']);
  expect(await apiData(simulator, 'GET', '/positions')).toEqual([]);

  const table = await frozen(simulator, 'positions --format table');
  expect(table.stdout).not.toContain('No open positions');
  const lines = rowLines(table.stdout);
  expect(lines[0]).toMatch(/buy +DEAL-9 +2,000\.00 /);
  // The reason is wrapped to the width, never cut.
  expect(lines.slice(1).join(' ').replace(/\s+/g, ' ')).toContain(
    `settling: hedge ${id} is filled on its record, not in the positions list yet`,
  );
  expect(lines.at(-1)).toMatch(new RegExp(`^  └ ${id}  DEAL-9  2,000\\.00 USD  filled  23h 59m$`));
  // The condition holds on the server's list (empty for now); what is drawn is the command's own table.
  const until = await frozen(simulator, ['positions', '--until', 'length(@) == `0`', '--format', 'table']);
  expect(until.stdout).not.toContain('no line yet');
  expect(until.stdout).toContain(`settling: hedge ${id} is filled on its record`);
  expect(until.stdout).toBe(table.stdout);

  // JSON is the server's list (empty); the side's state is said on stderr, not hidden.
  const json = await frozen(simulator, 'positions --json');
  expect(JSON.parse(json.stdout)).toEqual([]);
  expect(json.stderr).toContain(
    `The buy side of USDTNGN is settling: hedge ${id} is filled on its record, not in the positions list yet.`,
  );
  // A script that asks for the side's book by name is not refused on a list that is empty for now.
  expect(await frozenJson(simulator, 'positions --json --fields side,side_book')).toEqual([]);
  // And the hedge matures all the same: maturities lists it (no positions line to give its P&L).
  const maturities = await frozen(simulator, 'maturities --json');
  expect(JSON.parse(maturities.stdout)).toMatchObject([
    { hedge_id: id, notional_usd: 2_000, client_reference: 'DEAL-9', net_pnl_usd: null },
  ]);
  expect(maturities.stderr).toContain('is settling');

  // Past the lag every view agrees: in step, nothing said.
  simulator.advance(LAG_MS);
  const after = await frozen(simulator, 'positions --json');
  const inStep = { side: 'buy', side_book: { state: 'in-step', hedges: [{ id }] } };
  expect(JSON.parse(after.stdout)).toMatchObject([{ ...inStep, notional_usd: 2_000 }]);
  expect(after.stderr).not.toContain('settling');
  expect(await frozenJson(simulator, 'positions --json --fields side,side_book')).toMatchObject([inStep]);

  // Right after a close the list still shows the side whose hedge has closed on its record: settling, the line kept as sent.
  const sold = await openByApi(simulator, 'sell', 4_000, 3, 'DEAL-5');
  simulator.advance(FILL_DELAY_MS + LAG_MS + 1);
  await apiData(simulator, 'POST', '/hedges/close', { market: MARKET, side: 'sell' });
  filled(simulator);
  expect(hedgeOf(simulator, sold).status).toBe('closed');
  const listed = await apiData(simulator, 'GET', '/positions');
  expect(listed).toMatchObject([{ side: 'buy' }, { side: 'sell', hedge_id: sold }]);

  const [, position] = await frozenJson(simulator, 'positions --json');
  // The line's own (closed) hedge gives the reference, as the table's Ref column.
  expect(position).toEqual({
    ...listed[1],
    client_reference: 'DEAL-5',
    client_references: ['DEAL-5'],
    side_book: {
      state: 'settling',
      why: expect.stringContaining('not filled on their records'),
      records_notional_usd: 0,
      hedges: [],
    },
  });
  const closedTable = await frozen(simulator, 'positions --format table');
  // The line is the closed hedge's deal: its reference still reads from that hedge's record.
  expect(rowLines(closedTable.stdout)[2]).toMatch(/^sell +DEAL-5 +4,000\.00 /);
  expect(closedTable.stdout).toContain('settling: the positions list still shows the side');
});

it('a side whose hedge is past the 50 filled hedges read: positions says the records may be cut, and an add or a keeper of the side (held: its row unknown, never re-opened) cannot tell at once (exit 12) naming what to set, nothing sent, on a server that ignores the page size (alpha: 50 a page, no next page)', async () => {
  const simulator = await startSimulator({ dialect: 'alpha' });
  const buy = simulator.seedOpen('buy', 10_000);
  // 50 newer filled hedges on the other side (alpha opens another hedge on an open side): the buy is the 51st.
  for (let count = 0; count < 50; count++) simulator.seedOpen('sell', 1_000);
  expect(simulator.hedges().filter((hedge) => hedge.status === 'filled')).toHaveLength(51);
  const filledQueries = () =>
    simulator
      .requests('GET', '/hedges')
      .map((entry) => entry.query)
      .filter((query) => query.status === 'filled');
  const cut = /the hedge records may be cut at 50 filled hedges/;
  expect(ok(await simulator.hedge('positions --json')).stderr).toMatch(cut);
  // Read once, checked once: no wait on records that reading again would not change.
  const readOnce = [
    { status: 'filled', limit: '500' },
    { status: 'filled', limit: '1' },
  ];
  expect(filledQueries()).toEqual(readOnce);
  // --timeout 5 on a clock the run's pauses alone move: a loaded machine's start-up and reads take none of it.
  const untimed = { clock: skippingClock(true) };
  expect(
    exits(await simulator.hedge('add USDTNGN buy 1000 --timeout 5 --json', untimed), 12, 'HEDGE_WIRE_PAGE_SIZE_PARAM')
      .stderr,
  ).toMatch(/The buy side of USDTNGN cannot be told: the hedge records may be cut at 50 filled hedges/);
  expect(simulator.requests('POST', '/hedges/add')).toEqual([]);
  expect(hedgeOf(simulator, buy.id).notionalUsd).toBe(10_000);
  expect(filledQueries().slice(2)).toEqual(readOnce);
  const keep = exits(
    await simulator.hedge(['keep', writeTarget(simulator, ['USDTNGN,buy,10000,7,,']), '--once', '--json']),
    12,
  );
  const said = `${keep.stdout}\n${keep.stderr}`;
  expect(said).toMatch(
    /The buy side of USDTNGN cannot be told: the hedge records may be cut at 50 filled hedges.*Nothing was sent/,
  );
  expect(said).toMatch(/HEDGE_WIRE_PAGE_SIZE_PARAM/);
  expect(lines(keep.stdout).find((event) => event.event === 'cycle')!.rows[0]).toMatchObject({
    current_unknown: true,
    state: expect.stringMatching(/^settling: /),
  });
  expect(simulator.requests('POST').filter((entry) => entry.path !== '/quotes')).toEqual([]);
});

it('one deal followed across its rolls: opened with --ref DEAL-7 and rolled twice: history --ref and report follow it through all three hedges', async () => {
  const simulator = await startSimulator();
  ok(await simulator.hedge('open USDTNGN buy 1000 --tenor 1 --ref DEAL-7 --json'));
  for (const _roll of [1, 2]) ok(await simulator.hedge('roll USDTNGN buy --tenor 1 --yes'));
  // The server: three hedges of the deal, each open carrying its reference; two closed by the rolls.
  expect(simulator.requests('POST', '/hedges').map((entry) => (entry.body as any).client_reference)).toEqual(
    Array(3).fill('DEAL-7'),
  );
  const deal = simulator.hedges().filter((hedge) => hedge.clientReference === 'DEAL-7');
  expect(deal.map((hedge) => hedge.status)).toEqual(['closed', 'closed', 'filled']);
  const [first, second, third] = deal.map((hedge) => hedge.id);

  const history = ok(await simulator.hedge('history --ref DEAL-7 --json'));
  expect(
    JSON.parse(history.stdout)
      .map((record: any) => record.hedge_id)
      .sort(),
  ).toEqual([first, second].sort());
  // The deal's hedge held after the last roll is named beside the history, which cannot list it yet.
  expect(history.stderr).toContain(`DEAL-7 is still held: ${third} (1,000.00 USD, filled, matures`);
  // The deal's hedges were asked for by their reference (the spec's filter).
  expect(simulator.requests('GET', '/hedges').some((entry) => entry.query.client_reference === 'DEAL-7')).toBe(true);

  const byHedge = ok(await simulator.hedge('report --by hedge --ref DEAL-7 --json'));
  expect(JSON.parse(byHedge.stdout).groups.map((group: any) => [group.key, group.deal.client_reference])).toEqual([
    [first, 'DEAL-7'],
    [second, 'DEAL-7'],
  ]);
  expect(byHedge.stderr).toContain(`DEAL-7 is still held: ${third}`);

  // The third hedge settles at its maturity: the whole deal is in the history.
  simulator.advance(86_401_000);
  expect(hedgeOf(simulator, third).status).toBe('closed');
  const settled = ok(await simulator.hedge('history --ref DEAL-7 --json'));
  const records: any[] = JSON.parse(settled.stdout);
  expect(records.map((record) => record.hedge_id).sort()).toEqual([first, second, third].sort());
  expect(records.every((record) => record.client_reference === 'DEAL-7')).toBe(true);
  expect(settled.stderr).not.toContain('still held');

  const at80 = async (args: string) => {
    const { stdout } = ok(await simulator.hedge(args, { env: { COLUMNS: '80' } }));
    screenLines(stdout);
    return stdout;
  };
  // The totals row: its label whole, or (the hedge id hidden at 80 columns) its short form.
  expect(await at80('history --ref DEAL-7 --format table')).toMatch(/^Total \(3(?: hedges)?\) +3,000\.00 /m);

  // --by ref: the deal is one line, its three hedges and their net P&L to the cent.
  const byRef = okJson(await simulator.hedge('report --by ref --json'));
  const cents = records.reduce((sum, record) => sum + Math.round(record.net_pnl_usd * 100), 0);
  expect(byRef.groups).toMatchObject([
    { key: 'DEAL-7', label: 'DEAL-7', count: 3, notional_usd: 3_000, net_pnl_usd: cents / 100 },
  ]);
  const byRefTable = await at80('report --by ref --format table');
  expect(byRefTable).toMatch(/^P&L by deal reference, all history$/m);
  expect(byRefTable).toMatch(/^DEAL-7 +3 +3,000\.00 /m);
});

it("one deal followed across its rolls: a history whose records carry no reference: the deal is joined from its hedges' records by hedge id, shown but never added to the JSON", async () => {
  const simulator = await startSimulator();
  ok(await simulator.hedge('open USDTNGN sell 2000 --tenor 1 --ref DEAL-3 --json'));
  ok(await simulator.hedge('roll USDTNGN sell --tenor 1 --yes'));
  ok(await simulator.hedge('open USDTNGN buy 1000 --tenor 1 --ref DEAL-4 --json'));
  ok(await simulator.hedge('close USDTNGN buy --json'));
  const dealFirst = simulator.hedges().find((hedge) => hedge.clientReference === 'DEAL-3')!.id;
  // A server whose history records do not carry the reference (the spec does not show the field).
  const proxy = await startAnswerProxy(simulator.sandbox, (request, envelope) => {
    if (request.path === '/hedges/history' && Array.isArray(envelope.data))
      for (const record of envelope.data) delete record.client_reference;
  });
  try {
    const run = (args: string) => simulator.hedge(args, { env: envFor(proxy) });
    const sent = await apiData(proxy, 'GET', '/hedges/history');
    expect(sent.map((record: object) => 'client_reference' in record)).toEqual([false, false]);

    const records = okJson(await run('history --ref DEAL-3 --json'));
    expect(records.map((record: any) => record.hedge_id)).toEqual([dealFirst]);
    expect(records[0]).not.toHaveProperty('client_reference');
    expect(
      ok(await run('history --ref DEAL-3 --format tsv --fields hedge_id,client_reference'))
        .stdout.trim()
        .split('\n'),
    ).toEqual(['hedge_id\tclient_reference', `${dealFirst}\tDEAL-3`]);
    expect(okJson(await run('report --by ref --json')).groups.map((group: any) => [group.key, group.count])).toEqual([
      ['DEAL-3', 1],
      ['DEAL-4', 1],
    ]);
  } finally {
    await proxy.close();
  }
});

it("positions --watch marks a settling side under its row in the side model's words, as positions does, and reads the side again while it settles: right after a close on a server whose positions list trails, the line stays with its mark; past the lag, no line and no mark", async () => {
  const simulator = await startSimulator({ preset: 'frozen', viewLagMs: LAG_MS });
  await openByApi(simulator, 'sell', 4_000, 3, 'DEAL-5');
  simulator.advance(FILL_DELAY_MS + LAG_MS + 1);
  const refresh = sourceFor(() => {}, { kind: 'positions' }, true, true, false);
  const { client } = clientFor(simulator.sandbox);
  const rows = async () =>
    ((await refresh(client)).view.rows as WatchRow[]).map((row) => [row.values.side, row.settling]);
  expect(await rows()).toEqual([['sell', undefined]]);

  await apiData(simulator, 'POST', '/hedges/close', { market: MARKET, side: 'sell' });
  filled(simulator);
  const [position] = await frozenJson(simulator, 'positions --json');
  expect(position.side_book).toMatchObject({ state: 'settling', why: expect.stringContaining('still shows the side') });
  expect(await rows()).toEqual([['sell', position.side_book.why]]);
  simulator.advance(LAG_MS);
  expect(await rows()).toEqual([]);
});

it('a hedge whose maturity the server wrote unreadably ("2026-13-45") or blank: its line under the side and the deal\'s "still held" sentence show it as sent, never labelled UTC, and a blank one not at all', async () => {
  const simulator = await startSimulator({ preset: 'frozen', severalPerSide: true });
  await openByApi(simulator, 'buy', 10_000, 1, 'DEAL-7');
  const long = await openByApi(simulator, 'buy', 3_000, 7, 'DEAL-8');
  filled(simulator);
  for (const written of ['2026-13-45', '']) {
    const proxy = await startAnswerProxy(simulator.sandbox, (request, envelope) => {
      for (const item of [envelope.data].flat() as Array<Record<string, unknown>>)
        if (request.path.startsWith('/hedges') && item?.id === long) item.maturity_at = written;
    });
    try {
      const table = await frozen(simulator, 'positions --format table', { COLUMNS: '120', ...envFor(proxy) });
      const line = table.stdout.split('\n').find((row) => row.includes(long))!;
      expect(line).toMatch(new RegExp(`DEAL-8 +3,000\\.00 USD +filled${written ? ` +${written}` : ''}$`));
      expect(line).not.toContain('UTC');
      const held = await frozen(simulator, 'history --ref DEAL-8 --format table', { COLUMNS: '200', ...envFor(proxy) });
      expect(held.stdout + held.stderr).toContain(
        `${long} (3,000.00 USD, filled${written ? `, matures ${written}` : ''}). Its hedges`,
      );
    } finally {
      await proxy.close();
    }
  }
});
