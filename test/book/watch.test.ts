// `--watch` through the real binary against the simulator. What is asserted is the server's own
// record (the request log) and the process's outcome: the cadence of GET /positions, a fault burst
// survived as stale records, Retry-After honoured, the alert exit (10), the authentication exit
// (4), and the live view on a real pseudo-terminal (redrawn on a resize, Ctrl-C → exit 0, cursor back).
// Runs are bounded by --count (refreshes), not by --timeout: how many records a run writes never
// depends on how fast a loaded machine is; faults are aimed at the Nth request, not at a moment.
// The NDJSON runs wait on a skipping clock that is the request log's too: a pause ends at once, in full in the log.
import { apiData, useSimulators, type Simulator } from '../support/simulator.js';
import { spawnInTerminal, KEYS, type Terminal } from '../support/servers/pseudo-terminal.js';
import { exits, ok, okJson } from '../support/cli-runs.js';
import { lines as records } from '../support/keeper.js';

const simulator = useSimulators();

const kinds = (list: any[]) => list.map((record) => (record.alert ? 'alert' : record.stale ? 'stale' : 'data'));

/** GET /positions as the server received them. */
const positionReads = (sim: Simulator) => sim.requests('GET', '/positions');
/** The records of a watch that must exit 0. */
const watched = async (sim: Simulator, args: string) => records(ok(await sim.hedge(args)).stdout);

it('hedge positions --watch (NDJSON): writes one {time, data} line per refresh, never reading /positions twice within a second, and ends after --count refreshes with exit 0; applies --query to each record’s data, as --json does; watches one hedge with `hedges ID --watch` and price with `price MARKET --watch`; --alert-pnl on account reads its unrealized P&L (exit 10 when at or below, after the refresh and its alert record; the record and exit of a maturity alert: trade/clock-ahead.test.ts)', async () => {
  // A buy of 10,000 open.
  const sim = await simulator({ skipping: true });
  sim.seedOpen('buy', 10_000);
  const result = ok(await sim.hedge('positions --watch 1 --count 3'));
  expect(result.stderr).toContain('Watch ended: --count 3 refreshes made.');
  const lines = records(result.stdout);
  // One line per GET /positions the server answered: the data it sent, timestamped.
  const reads = positionReads(sim);
  expect(reads).toHaveLength(3);
  expect(lines).toHaveLength(3);
  for (const line of lines) {
    expect(Object.keys(line).sort()).toEqual(['data', 'time']);
    expect(Number.isNaN(Date.parse(line.time))).toBe(false);
    expect(line.data).toMatchObject([{ market: 'USDTNGN', side: 'buy', notional_usd: 10_000 }]);
  }
  // A refresh starts at least 1 s after the previous answer arrived, so the server never sees two
  // reads under a second apart, whatever the latency did.
  const arrivals = reads.map((entry) => entry.realTimeMs);
  for (const gap of arrivals.slice(1).map((time, index) => time - arrivals[index]))
    expect(gap).toBeGreaterThanOrEqual(1000);
  expect(sim.writes()).toEqual([]);

  expect((await watched(sim, 'positions --watch 1 --count 2 --query [].side')).map((line) => line.data)).toEqual([
    ['buy'],
    ['buy'],
  ]);
  const [hedge] = sim.hedges();
  expect((await watched(sim, `hedges ${hedge.id} --watch 1 --count 2`)).map((line) => line.data.id)).toEqual([
    hedge.id,
    hedge.id,
  ]);
  expect(sim.requests('GET', `/hedges/${hedge.id}`)).toHaveLength(2);
  const priceLines = await watched(sim, 'price USDTNGN --watch 1 --count 2');
  expect(priceLines).toHaveLength(2);
  expect(sim.requests('GET', '/prices')).toHaveLength(2);
  for (const line of priceLines) expect(JSON.stringify(line.data)).toContain('USDTNGN');

  const [data, alert] = records(exits(await sim.hedge('account --watch --alert-pnl 1m --exit-on-alert'), 10).stdout);
  expect(alert.alert).toEqual({
    kind: 'pnl',
    net_pnl_usd: data.data.unrealized_pnl_usd,
    threshold_usd: 1_000_000,
  });
});

it('hedge positions --watch (NDJSON): an authentication error ends the watch with exit 4 after one request; --timeout bounds a watch too: it ends with exit 0 and a note, one record per read the server answered', async () => {
  const sim = await simulator({ skipping: true });
  const refused = await sim.hedge('positions --watch 1', {
    env: { HEDGE_API_KEY: 'hpk_test_NotAKeyThisServerKnows000001' },
  });
  expect([refused.code, refused.stdout]).toEqual([4, '']);
  expect(sim.requests()).toHaveLength(1);

  const result = ok(await sim.hedge('positions --watch 1 --timeout 1'));
  expect(result.stderr).toContain('Watch ended: --timeout (1 s) reached.');
  // How many reads fit in a second is the machine's business (the unit test steps a fake clock
  // through the cadence); whatever came is whole records, never more than the server answered.
  const lines = records(result.stdout);
  for (const line of lines) expect(Object.keys(line).sort()).toEqual(['data', 'time']);
  expect(lines.length).toBeLessThanOrEqual(positionReads(sim).filter((entry) => entry.status === 200).length);
});

it('hedge positions --watch (NDJSON): survives a burst of 5xx answers: stale records while it lasts, fresh data after, exit 0; honours Retry-After: after a 503 asking for 3 s, the next read waits for it', async () => {
  const sim = await simulator({ skipping: true });
  sim.seedOpen('sell', 5_000);
  // After the first good read, the next four GET /positions fail: two refreshes' worth (each
  // refresh tries twice).
  let seen = 0;
  sim.sandbox.setFaults({
    next5xx: 4,
    match: ({ method, path }) => method === 'GET' && path === '/positions' && ++seen >= 2,
  });
  const list = await watched(sim, 'positions --watch 1 --count 4');
  expect(kinds(list)).toEqual(['data', 'stale', 'stale', 'data']);
  const stale = list[1];
  expect(['internal_error', 'service_unavailable']).toContain(stale.error.code);
  expect(stale.error.message).toMatch(/^GET \/positions failed on the server: HTTP 50[03]/);
  expect(stale.last_good).toBe(list[0].time);
  // Each stale refresh tried twice (one quick retry), then the next refresh got through (a 503 counted as a 500).
  const statuses = positionReads(sim).map((entry) => entry.status);
  expect(statuses.slice(0, 6).map((status) => (status === 503 ? 500 : status))).toEqual([200, 500, 500, 500, 500, 200]);

  // Retry-After honoured: the next GET /positions after the first of a new watch is refused with Retry-After: 3.
  const before = statuses.length;
  seen = 0;
  sim.sandbox.setFaults({
    next503RetryAfter: { count: 1, retryAfter: '3' },
    match: ({ method, path }) => method === 'GET' && path === '/positions' && ++seen >= 2,
  });
  expect(kinds(await watched(sim, 'positions --watch 1 --count 3'))).toEqual(['data', 'stale', 'data']);
  // Not retried inside the refresh, and not read again before the 3 s are up.
  const [first, refused, next] = positionReads(sim).slice(before);
  expect([first.status, refused.status, next.status]).toEqual([200, 503, 200]);
  expect(next.realTimeMs - refused.realTimeMs).toBeGreaterThanOrEqual(3000);
});

it('hedge positions --watch (NDJSON): --alert-maturity on a side of several hedges alerts on each hedge maturing within it, and the live view counts the side down to its soonest maturity, not the one its positions line names', async () => {
  const sim = await simulator({ skipping: true, severalPerSide: true });
  const older = sim.seedOpen('buy', 10_000);
  sim.advance(2 * 86_400_000);
  const newer = sim.seedOpen('buy', 5_000);
  // The side's one line names the newest hedge and its maturity, 7 days out; the older one matures in 5.
  const [line] = await apiData(sim, 'GET', '/positions');
  expect([line.notional_usd, line.hedge_id, Date.parse(line.maturity_at)]).toEqual([
    15_000,
    newer.id,
    newer.maturityAtMs,
  ]);
  expect(
    (await watched(sim, 'positions --watch 1 --count 1 --alert-maturity 6d'))
      .filter((record) => record.alert)
      .map((record) => [record.alert.hedge_id, Date.parse(record.alert.maturity_at)]),
  ).toEqual([[older.id, older.maturityAtMs]]);
  expect(sim.writes()).toEqual([]);
  // The older hedge settles in 5 days less the moments the opens took; the line names the newer, 7 days out.
  const [row] = ok(await sim.hedge('positions --watch 1 --count 1', { screen: { columns: 120, rows: 30 } }))
    .stdout.split('\n')
    .filter((line) => /^buy\b/.test(line));
  expect(row).toMatch(/ 4d 23:5\d:\d\d /);
});

it('hedge positions --watch (NDJSON): --watch in a pipe: each record’s data is what --json prints (one shape whatever the server names and shapes), --raw as sent', async () => {
  for (const dialect of ['alpha', 'gamma'] as const) {
    const sim = await simulator({ skipping: true, dialect });
    const once = okJson(await sim.hedge('price USDTNGN --json'));
    expect(once).toEqual(
      [{ market: 'USDTNGN', price: expect.any(Number), timestamp: expect.any(String) }].map((shape) =>
        expect.objectContaining(shape),
      ),
    );
    const streamed = await watched(sim, 'price USDTNGN --watch 1 --count 2');
    expect(streamed).toHaveLength(2);
    for (const line of streamed) {
      expect(Object.keys(line.data[0])).toEqual(Object.keys(once[0]));
      expect(line.data).toEqual([expect.objectContaining({ market: 'USDTNGN', price: expect.any(Number) })]);
    }
    // --raw: GET /prices' data as the server sent it (alpha keyed by market, gamma `{rates: [...]}`).
    const raw = await watched(sim, 'price USDTNGN --watch 1 --count 1 --raw');
    const sent = await apiData(sim, 'GET', '/prices?symbols=USDTNGN');
    expect(Object.keys(raw[0].data)).toEqual(Object.keys(sent));
    // The account too: our names in the pipe, with or without --json (alpha says `upnl_usd`).
    const account = okJson(await sim.hedge('account --json'));
    for (const args of ['account --watch 1 --count 1', 'account --watch 1 --count 1 --json']) {
      const [line] = await watched(sim, args);
      expect(Object.keys(line.data).sort()).toEqual(Object.keys(account).sort());
    }
  }
});

/** `positions --watch SECONDS` on a pseudo-terminal, one position open: `act` on it, then the screen drawn (scrolled-off
 * lines included), one view title on it; the process killed whatever happened. */
async function watching(seconds: string, cols: number, act: (term: Terminal) => Promise<void>) {
  const sim = await simulator();
  sim.seedOpen('buy', 10_000);
  const term = spawnInTerminal({
    configDir: sim.configDir,
    args: ['positions', '--watch', seconds],
    env: sim.env,
    cols,
    rows: 40,
  });
  try {
    await act(term);
    const drawn = await term.drawn();
    const screen = drawn.map((line) => line.text).join('\n');
    expect(
      drawn.filter((line) => line.text.startsWith('Positions · every')),
      screen,
    ).toHaveLength(1);
    return { drawn, screen, raw: term.raw() };
  } finally {
    term.kill();
  }
}

it('hedge positions --watch on a terminal that changes: a resize redraws the view at the new width with nothing of the old one left above it', async () => {
  const { drawn, screen } = await watching('1', 100, async (term) => {
    await term.waitFor('Hidden at 100 columns');
    term.resize(60, 40);
    // At 60 (time left kept before the rates) the note counts what it left out where naming it does not fit a line.
    await term.waitFor('Hidden: 4 columns — see --json, or a wider terminal.');
    // One refresh more at the new width: whatever the old frame left would be above it.
    await term.waitFor('Net P&L  ');
  });
  expect(screen).not.toContain('Hidden at 100 columns');
  for (const line of drawn) expect(line.wrapped, line.text).toBe(false);
});

// How each frame erases the one before is the in-process view's (watch-loop.test.ts); on a real terminal, what stays.
it('hedge positions --watch on a terminal that changes: Ctrl-C ends it with exit 0, one final view drawn whole over the echoed ^C, and the cursor shown again', async () => {
  // Every 5 s at 60 columns: between refreshes the view does not change (its countdown is to the hour).
  const { drawn, screen, raw } = await watching('5', 60, async (term) => {
    await term.waitFor('Net P&L  ');
    term.write(KEYS.CTRL_C);
    expect(await term.exitCode).toBe(0);
  });
  // The view is the last thing on the screen: no ^C line, nothing drawn twice.
  expect(drawn.at(-1)!.text, screen).toMatch(/^Net P&L {2}/);
  expect(
    drawn.filter((line) => line.text.startsWith('Net P&L  ')),
    screen,
  ).toHaveLength(1);
  expect(screen).toMatch(/last good refresh \d\d:\d\d:\d\d/);
  // The cursor, hidden while drawing, is shown again once the watch is over.
  expect(raw.lastIndexOf('\u001b[?25h')).toBeGreaterThan(raw.lastIndexOf('\u001b[?25l'));
});
