// The trading commands against a sandbox server over HTTP, each checked on the server's own state or
// request log, not only on what the CLI printed: open (filled, failed on-chain, --no-wait, --timeout,
// --dry-run; bad input and missing arguments: reliability/bad-input.test.ts); add, reduce and close,
// each waited until the change is visible, no_open_hedge a clear exit 3; and the safety rails —
// pre-trade checks that stop a write before it is sent (the server's own refusal with --skip-checks),
// live keys refused without a terminal or --yes before any request at all.
import { LIVE_KEY } from '../support/keys.js';
import { closedAfterEach, openFilledThroughCli, useSimulators } from '../support/simulator.js';
import { startLiveKeyProxy } from '../support/servers/field-proxy.js';
import { IDEMPOTENCY_KEY } from '../support/output/text.js';
import { ok, okJson, exits } from '../support/cli-runs.js';
import { openBody } from '../support/engine.js';

const startTrading = useSimulators({ stepped: true });
/** https in front of the simulator, the live key passed on as it came (the simulator refuses it). */
const liveProxy = closedAfterEach(startLiveKeyProxy);

/** A record in TSV: a header row of keys and one row of values. */
function tsvRecord(stdout: string) {
  const [keys, values] = stdout
    .trim()
    .split('\n')
    .map((line) => line.split('\t'));
  return Object.fromEntries(keys.map((key, index) => [key, values[index]]));
}

it('hedge open: quotes, submits once and waits for the fill: struck rate against the quote, hashes whole, maturity', async () => {
  // In real time: the poll's cadence is checked.
  const trading = await startTrading({ stepped: false });
  const result = exits(await trading.hedge('open USDTNGN buy 10k --tenor 3 --ref DEAL-42'), 0, 'waiting for the fill');

  const [hedge] = trading.hedges();
  expect(trading.hedges()).toMatchObject([
    { status: 'filled', notionalUsd: 10_000, tenorDays: 3, side: 'buy', clientReference: 'DEAL-42' },
  ]);

  const lines = tsvRecord(result.stdout);
  expect(lines).toMatchObject({
    id: hedge.id,
    status: 'filled',
    order_tx_hash: hedge.orderTxHash,
    fill_tx_hash: hedge.fillTxHash,
    order_key: hedge.orderKey,
    maturity_at: new Date(hedge.maturityAtMs).toISOString(),
    units: '10000',
  });
  const [struck, quoted] = [hedge.struckRate!, Number(lines.quoted_execution_price)];
  expect(Number(lines.struck_rate)).toBe(struck);
  // The quote's price, not the fill's: the simulator's market moves with real time between the
  // two, by far less than 0.1% in the seconds of a test.
  expect(Math.abs(struck - quoted) / quoted).toBeLessThan(0.001);
  // On the account's side (docs/output.md "Sign convention"): a buy struck below the quote is positive.
  expect(Number(lines.slippage_bps)).toBeCloseTo(((quoted - struck) / quoted) * 10_000, 1);

  // Quote first, then exactly one POST /hedges carrying an Idempotency-Key; then polls of the hedge.
  const write = trading.writes()[1];
  expect(trading.writes().map((entry) => entry.path)).toEqual(['/quotes', '/hedges']);
  expect(write.idempotencyKey).toMatch(IDEMPOTENCY_KEY);
  expect(write.body).toEqual(openBody('buy', 10_000, 3, { client_reference: 'DEAL-42' }));
  const polls = trading.requests('GET', `/hedges/${hedge.id}`);
  // The fill lands 100 ms after the open, so the first poll (a second later) already sees it.
  expect(polls).toHaveLength(1);
  expect(polls[0].realTimeMs - write.realTimeMs).toBeGreaterThanOrEqual(1000);
});

// --timeout counts from the start of the command, and a write needs a second of it left to be
// sent at all: 4 s leaves the start-up, the quote and the pre-trade reads seconds to spare on a
// loaded machine (2 s left them under one), so the run always reaches the wait it times out in.
it.each([
  [
    'an order that fails on-chain exits 6 and says nothing was opened',
    { failRate: 1 },
    '',
    6,
    'failed on-chain: nothing was opened',
    'failed',
    'ID',
  ],
  [
    'times out with exit 7 and the command that resumes the wait; the order stands',
    // The bound on a clock hedge's pauses alone move: the wait runs it out, never the reads before the send.
    { fillDelayMs: 60_000, untimed: true },
    ' --timeout 4',
    7,
    'order stands',
    'submitted',
    'hedge hedges ID --wait',
  ],
])('hedge open: %s', async (_name, options, flags, code, said, status, naming) => {
  const trading = await startTrading(options);
  const result = exits(await trading.hedge(`open USDTNGN buy 10000 --tenor 3${flags}`), code, said);
  const [hedge] = trading.hedges();
  expect([trading.requests('POST', '/hedges').length, hedge.status]).toEqual([1, status]);
  // It names the hedge (ID), with the command that resumes the wait where there is one.
  expect(result.stderr).toContain(naming.replace('ID', hedge.id));
});

it('hedge open: --no-wait returns at submitted without polling the hedge; on add, it returns the submitted action at once', async () => {
  const trading = await startTrading({ fillDelayMs: 60_000 });
  const submitted = okJson(await trading.hedge('open USDTNGN buy 10000 --tenor 7 --no-wait --json'));
  const id = trading.hedges()[0].id;
  expect(submitted).toMatchObject({
    status: 'submitted',
    hedge_id: id,
    order_tx_hash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
  });
  expect(trading.requests('GET', /^\/hedges\//)).toEqual([]);

  // Past its fill: an add to it.
  trading.advance(60_001);
  const before = trading.sandbox.requestLog.length;
  expect(okJson(await trading.hedge('add USDTNGN buy 1000 --no-wait --json'))).toMatchObject({
    hedge_id: id,
    action: 'add',
    status: 'submitted',
  });
  // Nothing was polled after the write: no GET of the hedge, no wait.
  const after = trading.sandbox.requestLog.slice(before).map((entry) => `${entry.method} ${entry.path}`);
  // The pre-trade reads (in parallel, so in either order), the side's book (its positions line and
  // hedge records) and the quote for the addition, then the write, and nothing after it.
  expect(after.at(-1)).toBe('POST /hedges/add');
  expect(after.indexOf('POST /quotes')).toBe(after.length - 2);
  expect([...after].sort()).toEqual([
    'GET /account',
    'GET /hedges',
    'GET /hedges',
    'GET /markets',
    'GET /positions',
    'POST /hedges/add',
    'POST /quotes',
  ]);
});

it('hedge open: --dry-run prints the exact request with the key redacted and sends no write; with --json it is the planned request as one JSON document', async () => {
  const trading = await startTrading();
  const result = exits(
    await trading.hedge('open USDTNGN buy 10000 --tenor 3 --ref D-1 --dry-run --idempotency-key resume-me-1'),
    0,
    'NOT sent',
  );
  for (const text of [
    `POST ${trading.sandbox.baseUrl}/hedges`,
    'Idempotency-Key: resume-me-1',
    '"notional_usd": 10000',
    '"client_reference": "D-1"',
  ])
    expect(result.stdout).toContain(text);
  expect(result.stdout).toMatch(/Authorization: Bearer hpk_test…[A-Za-z0-9]{4}/);
  expect(result.stdout).not.toContain(trading.sandbox.apiKey);
  expect(trading.writes()).toEqual([]);
  expect(trading.hedges()).toEqual([]);

  // --json: the planned request as one JSON document.
  const before = trading.requests().length;
  const planned = okJson(await trading.hedge('open USDTNGN sell 1m --tenor 1 --dry-run --json --skip-checks'));
  expect(planned).toEqual({
    dry_run: true,
    method: 'POST',
    url: `${trading.sandbox.baseUrl}/hedges`,
    path: '/hedges',
    headers: {
      Authorization: expect.stringMatching(/^Bearer hpk_test…\w{4}$/),
      'Content-Type': 'application/json',
      'Idempotency-Key': planned.idempotency_key,
    },
    body: openBody('sell', 1_000_000, 1),
    idempotency_key: expect.stringMatching(IDEMPOTENCY_KEY),
  });
  // --skip-checks: not even the read-only pre-trade requests.
  expect(trading.requests().slice(before)).toEqual([]);
});

it('hedge add / reduce / close: open --json prints only the final hedge on stdout; close waits until the side leaves the positions, then shows what it returned and the realized figures; on a terminal-less run, the realized P&L lines in plain mode', async () => {
  const trading = await startTrading();
  const buyId = await openFilledThroughCli(trading, 'buy', '12000');
  const opened = ok(await trading.hedge('open USDTNGN sell 2500 --tenor 1 --json'));
  const sell = JSON.parse(opened.stdout);
  expect(sell).toMatchObject({
    id: trading.active('sell')[0].id,
    status: 'filled',
    side: 'sell',
    notional_usd: 2500,
  });
  expect(typeof sell.struck_rate).toBe('number');
  expect(opened.stderr).not.toContain('waiting');
  // In real time: the poll's cadence is checked.
  const closed = okJson(await trading.hedge('close USDTNGN buy --json', { clock: undefined }));
  const account = Object.values(trading.sandbox.engine.state.accounts)[0];
  // The buy side is gone from the server's positions; the sell side is untouched.
  expect(account.hedges[buyId].status).toBe('closed');
  expect(Object.values(account.activeHedgeIds)).toEqual([sell.id]);
  const record = account.history.find((entry) => entry.hedge_id === buyId)!;
  expect(closed).toMatchObject({ hedge_id: buyId, status: 'closed', market: 'USDTNGN', side: 'buy' });
  expect(typeof closed.net_margin_usd).toBe('number');
  // What the close returned: the 1,200 margin plus the realized P&L less the 0.05% close fee (6).
  // The CLI shows the position's last view before the close landed; the simulator's market moves
  // with real time in between, so the two agree to within that move, not to the cent.
  const credited = 1_200 + record.gross_pnl_usd - record.carry_usdc - 6;
  expect(Math.abs(closed.net_margin_usd - credited)).toBeLessThan(50);
  expect(closed.realized).toEqual(record);
  expect(closed.order_tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
  // The close was confirmed from GET /positions, polled no faster than once a second.
  const [close] = trading.requests('POST', '/hedges/close');
  const polls = trading.requests('GET', '/positions').filter((entry) => entry.realTimeMs > close.realTimeMs);
  // The close lands 100 ms after it is sent, so the first poll (a second later) already sees it;
  // then one read of the side's hedge records (every filled one, and the newest page) sees it there
  // too: the poll's list is not asked again.
  expect(polls).toHaveLength(1);
  expect(polls[0].realTimeMs - close.realTimeMs).toBeGreaterThanOrEqual(1000);
  expect(trading.requests('GET', '/hedges').filter((entry) => entry.realTimeMs > polls[0].realTimeMs)).toHaveLength(2);
  const lines = tsvRecord(
    exits(await trading.hedge('close USDTNGN sell'), 0, 'Closed: the sell position on USDTNGN is no longer open.')
      .stdout,
  );
  const sold = account.history[1];
  expect([lines.hedge_id, sold.hedge_id]).toEqual([sell.id, sell.id]);
  // The record's figures as sent: carry and fees keep the server's sign (positive = the account pays).
  for (const key of ['net_pnl_usd', 'gross_pnl_usd', 'carry_usdc', 'fees_usdc'] as const)
    expect(Number(lines[key]), key).toBe(sold[key]);
  expect(lines.net_margin_usd).toMatch(/^\d+(\.\d+)?$/);
});

it('hedge add / reduce / close: no_open_hedge is exit 3 with the code, a sentence and what to do next; add, reduce and close on a side every view shows flat send nothing', async () => {
  const trading = await startTrading();
  for (const [verb, side, amount] of [
    ['add', 'buy', ' 1000'],
    ['reduce', 'sell', ' 1000'],
    ['close', 'buy', ''],
  ]) {
    expect(
      exits(
        await trading.hedge(`${verb} USDTNGN ${side}${amount}`),
        3,
        `There is no ${side} hedge on USDTNGN to ${verb}: its hedge records and the positions list both show the side flat. Nothing was sent.`,
        'hedge positions',
      ).stderr,
    ).not.toMatch(/idempotency key/);
  }
  // Both views were read; nothing was journaled, nothing was sent.
  expect(trading.requests('GET', '/positions').length).toBeGreaterThanOrEqual(3);
  expect(trading.writes()).toEqual([]);
  expect(JSON.parse((await trading.hedge('journal --json')).stdout)).toEqual([]);
  // --skip-checks leaves it to the server, which refuses it.
  expect(
    exits(
      await trading.hedge('add USDTNGN buy 1000 --skip-checks'),
      3,
      'There is no open hedge on that market and side. (no_open_hedge, HTTP 404)',
      'hedge positions',
    ).stderr,
  ).toMatch(/idempotency key: [0-9a-f-]{36}/);
  expect(trading.writes().map((write) => [write.path, write.status])).toEqual([['/hedges/add', 404]]);
  expect(trading.hedges()).toEqual([]);
});

it('pre-trade checks: a market that is not listed is refused before sending (exit 2); exposure over the account headroom is caught before sending: exit 3, the numbers, no POST; with --skip-checks the server decides: its exposure_exceeded is shown the same way (exit 3)', async () => {
  const trading = await startTrading({ exposureCapUsd: 50_000 });
  // A market that is not listed is refused before sending.
  exits(
    await trading.hedge('open USDTKES buy 1000 --tenor 1'),
    2,
    'market: "USDTKES" is not listed for this account; listed: USDTNGN',
  );
  expect(trading.writes()).toEqual([]);
  await openFilledThroughCli(trading, 'buy', '40000');
  const writesBefore = trading.writes().length;
  exits(
    await trading.hedge('open USDTNGN sell 20000 --tenor 3'),
    3,
    '20,000.00 USD would push the account over its exposure cap: 10,000.00 USD of headroom left',
    'available_exposure_usd: 10000',
    '--skip-checks',
  );
  expect(trading.writes()).toHaveLength(writesBefore);
  expect(trading.hedges()).toHaveLength(1);

  exits(
    await trading.hedge('add USDTNGN buy 10001'),
    3,
    'adding 10,001.00 USD would push the account over its exposure cap',
  );
  expect(trading.writes()).toHaveLength(writesBefore);

  // With --skip-checks the server decides: its exposure_exceeded is shown the same way (exit 3).
  expect(
    exits(
      await trading.hedge('open USDTNGN sell 20000 --tenor 3 --skip-checks'),
      3,
      '(exposure_exceeded, HTTP 400)',
      'available_exposure_usd: 10000',
    ).stderr,
  ).toMatch(/idempotency key: [0-9a-f-]{36}/);
  expect(trading.requests('POST', '/hedges').filter((entry) => entry.errorCode === 'exposure_exceeded')).toHaveLength(
    1,
  );
  expect(trading.hedges()).toHaveLength(1);
});

it('live keys without a terminal and without --yes: exit 2, the LIVE banner, and no request at all (not even a read); --dry-run needs no --yes and sends nothing; with --yes the command goes ahead (and the sandbox, which accepts test keys only, refuses it: exit 4)', async () => {
  const trading = await startTrading();
  const live = { env: (await liveProxy(trading.sandbox, { served: false })).env };
  for (const args of [
    'open USDTNGN buy 1000 --tenor 3',
    'add USDTNGN buy 1000',
    'reduce USDTNGN buy 1000',
    'close USDTNGN buy --json',
    'roll USDTNGN buy --tenor 7',
  ]) {
    const result = exits(await trading.hedge(args, live), 2, ' LIVE ');
    expect(result.stderr).toMatch(
      /--yes is required to .* with a LIVE key \(there is no terminal to confirm on\); nothing was sent/,
    );
    expect(result.stderr).not.toContain(LIVE_KEY);
    expect(result.stdout).toBe('');
  }
  const dry = ok(await trading.hedge('close USDTNGN sell --dry-run', live));
  for (const text of ['POST ', '/hedges/close', 'Authorization: Bearer hpk_live…UvWx'])
    expect(dry.stdout).toContain(text);
  expect(trading.sandbox.requestLog).toEqual([]);

  exits(await trading.hedge('close USDTNGN buy --yes', live), 4, ' LIVE ');
  expect(trading.sandbox.requestLog.map((entry) => entry.errorCode)).toEqual(['live_key_refused']);
});
