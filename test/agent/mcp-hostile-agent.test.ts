// A hostile agent against `hedge mcp` under the operator's limits, through the official SDK's client
// (test/support/mcp.ts), judged by the simulator's own state and request log:
//   - a call over a limit is the documented tool error, and a bad limit stops the server at once;
//   - the limits are checked on the plan that is carried out (inline rows, with and without a
//     decoy file named `rows` in the working directory; trades split around a cap; odd spellings);
//   - calls racing the daily cap never send more than the cap;
//   - a close is judged on what the side holds when it is sent — an add still landing included, and
//     again before the retry that follows a 409 `action_pending` — and the daily count takes what
//     it closed.
import { writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { keyFingerprint } from '../../src/platform/journal/index.js';
import { rowSealer, type SealedFields } from '../../src/platform/journal/row-integrity.js';
import { tempDir } from '../support/hedge-cli.js';
import { useMcpServers } from '../support/mcp.js';
import { until } from '../support/polling.js';
import { appendRow } from '../support/journal-rows.js';
import { activeNotional } from '../support/keeper.js';
import { FILL_DELAY_MS, MARKET, useSimulators, type Simulator } from '../support/simulator.js';
import { BUY, everything, expectDone, expectRefused, journal, json, SELL } from './answers.js';

const startSimulator = useSimulators({ stepped: true });
const startServer = useMcpServers();

const desk = tempDir('hedge-hostile-desk-');
const plainDesk = tempDir('hedge-hostile-plain-');
afterAll(() => [desk, plainDesk].forEach((dir) => dir.remove()));
// The decoy: a file named `rows` (one small row) where the server starts.
writeFileSync(join(desk.path, 'rows'), `market,side,notional_usd,tenor_days\n${MARKET},buy,500,7\n`);
writeFileSync(join(desk.path, 'target.csv'), `market,side,notional_usd,tenor_days\n${MARKET},buy,5000,7\n`);
async function serve(simulator: Simulator, args: string[], cwd = plainDesk.path) {
  return (await startServer(simulator, { args, cwd })).call;
}

/** What the server acted on: every POST that trades (quotes act on nothing). */
const tradesSent = (simulator: Simulator) => simulator.writes().filter((entry) => entry.path !== '/quotes');
/** The notional the server holds open, on both sides. */
const heldUsd = (simulator: Simulator) => activeNotional(simulator, 'buy') + activeNotional(simulator, 'sell');
const row = (notional: number, side = 'buy') => ({ market: MARKET, side, notional_usd: notional, tenor_days: 7 });
/** A refusal under a limit (class rejected, exit 3) with these details. */
const overLimit = (details: object, code = 'max_notional_exceeded') => ({
  error: { code, class: 'rejected', details },
  exit_code: 3,
});
/** The notionals of the trades the server was sent. */
const sentUsd = (simulator: Simulator) => tradesSent(simulator).map((entry) => (entry.body as any).notional_usd);

it.each([
  ['inline rows over the cap, a decoy file named rows beside', desk.path, [row(50_000)], 0],
  ['inline rows over the cap, no decoy', plainDesk.path, [row(50_000)], 0],
  ['inline rows under the cap, a decoy beside (the rows are what is sent)', desk.path, [row(800)], 800],
  ['inline rows under the cap, no decoy', plainDesk.path, [row(800)], 800],
  ['a trade split around the cap in one plan (two sides of 600)', plainDesk.path, [row(600), row(600, 'sell')], 0],
] as const)('the limits judge the plan that is carried out: apply: %s', async (_name, cwd, rows, sent) => {
  const simulator = await startSimulator();
  const call = await serve(simulator, ['--max-notional', '1000', '--max-daily-notional', '2000'], cwd);
  const answer = await call('apply', { rows });
  if (!sent) expectRefused(answer, overLimit({}));
  else expectDone(answer);
  expect(sentUsd(simulator)).toEqual(sent ? [sent] : []);
  expect(heldUsd(simulator)).toBe(sent);
});

it('the limits judge the plan that is carried out: a close on a server whose positions list trails its records is judged on the side as both views agree: 15,000 filled a moment ago is not closed under a 10,000 cap', async () => {
  const simulator = await startSimulator({ viewLagMs: 3_000 });
  // Opened by another client: filled on its record at once, in the positions list 3 s later.
  expect(
    (await simulator.api('POST', '/hedges', { body: row(15_000, 'sell'), idempotencyKey: 'desk-open-15k' })).status,
  ).toBe(200);
  simulator.advance(FILL_DELAY_MS + 1);
  const call = await serve(simulator, ['--max-notional', '10000']);
  expectRefused(await call('close', SELL), overLimit({ this_call_usd: 15_000 }));
  expect(simulator.requests('POST', '/hedges/close')).toEqual([]);
  expect(heldUsd(simulator)).toBe(15_000);
});

it("the limits judge the plan that is carried out: odd spellings of an amount over the cap: each refused, nothing over it is sent; apply of a file under the roots is judged on that file, and its preview (dry run) is not limited; apply finishing an earlier apply's unfinished step judges that step too: 5,000 left by a killed CLI apply is not sent under a 1,000 cap", async () => {
  const simulator = await startSimulator();
  const call = await serve(simulator, ['--max-notional', '1000'], desk.path);
  for (const notional of [
    '50k',
    '5e4',
    '50_000',
    ' 50000 ',
    '0.05m',
    50_000,
    '49999.999',
    '1e309',
    '-50000',
    '0x1000',
  ]) {
    const answer = await call('open', { ...BUY, notional, tenor: 3 });
    expect(answer.isError, everything(answer)).toBe(true);
    expect([2, 3]).toContain(json(answer).exit_code);
  }
  expectRefused(await call('apply', { file: 'target.csv' }), overLimit({ this_call_usd: 5_000 }));
  expectDone(await call('apply', { file: 'target.csv', dry_run: true }));
  // Nothing is ever taken back: none was sent if none is there after the last.
  expect(tradesSent(simulator)).toEqual([]);
  // What a CLI apply killed before its step was answered leaves: a sealed, unheld row of its group.
  const sealed: SealedFields = {
    id: 'a_killed0001',
    created_at: new Date().toISOString(),
    environment: 'test',
    base_url_host: new URL(simulator.baseUrl).host,
    key_id: keyFingerprint(simulator.apiKey),
    host: hostname(),
    command: 'open',
    request: { method: 'POST', path: '/hedges', body: row(5_000) },
    idempotency_key: 'killed-apply-step-0001',
    group: 'apply-20261123T000000000Z-abcdef',
    leg: 'step-1',
  };
  appendRow(simulator.configDir, {
    ...sealed,
    seal: rowSealer(simulator.apiKey).seal(sealed),
    argv: ['apply', 'target.csv'],
    outcome: 'pending',
    holder: null,
  });
  expectRefused(await call('apply', { rows: [row(500, 'sell')] }), overLimit({ this_call_usd: 5_000 }));
  expect(tradesSent(simulator)).toEqual([]);
  expect(heldUsd(simulator)).toBe(0);
});

it('calls racing the daily cap: six adds of 1,000 at once under a 3,500 daily cap: three reach the server, the rest are refused', async () => {
  const simulator = await startSimulator();
  simulator.seedOpen('buy', 10_000);
  const call = await serve(simulator, ['--max-daily-notional', '3500']);
  const answers = await Promise.all(
    Array.from({ length: 6 }, () => call('add', { ...BUY, notional: 1_000, again: true })),
  );
  expect(sentUsd(simulator)).toEqual([1_000, 1_000, 1_000]);
  expect(answers.filter((answer) => answer.isError).map((answer) => json(answer).error.code)).toEqual(
    Array(3).fill('max_daily_notional_exceeded'),
  );
  expect(heldUsd(simulator)).toBe(13_000);
});

/**
 * A frozen simulator whose buy side holds 9,000 and another client's add of `added` still landing (its clock stands
 * until advance()); an agent's close under `args`, the add let land once the close has met the server's 409 (a
 * change still landing): its retry follows a second later.
 */
async function closeWhileAdding(added: number, args: string[], closeArgs: Record<string, unknown>) {
  const simulator = await startSimulator({ preset: 'frozen' });
  simulator.seedOpen('buy', 9_000);
  const answer = await simulator.api('POST', '/hedges/add', {
    body: { ...BUY, notional_usd: added },
    idempotencyKey: `elsewhere-${added}`,
  });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  const call = await serve(simulator, args);
  const [close] = await Promise.all([
    call('close', closeArgs),
    until(
      () => simulator.requests('POST', '/hedges/close').some((entry) => entry.status === 409),
      'the close answered 409 action_pending',
    ).then(() => simulator.advance(FILL_DELAY_MS + 1)),
  ]);
  return { simulator, call, close };
}
const closes = (simulator: Simulator) =>
  simulator.requests('POST', '/hedges/close').map((entry) => [entry.status, entry.errorCode]);

it('a close is judged on what the side holds when it is sent, and counted as what it closed: open 9k, add 9k with wait false, close under --max-notional 10k --max-daily-notional 30k: the close is refused, nothing closed', async () => {
  // Fills and landings take 2 s, so the add is still landing when the close comes.
  const simulator = await startSimulator({ fillDelayMs: 2_000 });
  const call = await serve(simulator, ['--max-notional', '10k', '--max-daily-notional', '30k']);
  expectDone(await call('open', { ...BUY, notional: 9_000, tenor: 7 }));
  expectDone(await call('add', { ...BUY, notional: 9_000, wait: false }));
  expectRefused(
    await call('close', BUY),
    overLimit({ max_notional_usd: 10_000, this_call_usd: expect.toSatisfy((usd) => usd >= 18_000) }),
  );
  expect(simulator.requests('POST', '/hedges/close')).toEqual([]);
  expect(simulator.active('buy')).toHaveLength(1);
  expect((await journal(simulator)).map((entry) => entry.command).sort()).toEqual(['add', 'open']);
});

it('a close is judged on what the side holds when it is sent, and counted as what it closed: --max-notional 10k alone: a close that meets 409 while 9,100 lands is judged again before its retry (18,100), and refused', async () => {
  const { simulator, close } = await closeWhileAdding(9_100, ['--max-notional', '10k'], BUY);
  expectRefused(close, overLimit({ this_call_usd: 18_100, max_notional_usd: 10_000 }));
  expect(json(close).error.message).toMatch(/it was not sent again\.$/);
  // One close reached the server, and it did nothing; the side holds all of its 18,100.
  expect(closes(simulator)).toEqual([[409, 'action_pending']]);
  expect(simulator.active('buy').map((hedge) => hedge.notionalUsd)).toEqual([18_100]);
  const [entry] = await journal(simulator);
  expect(entry).toMatchObject({ command: 'close', outcome: 'rejected', error_code: 'max_notional_exceeded' });
});

it('a close is judged on what the side holds when it is sent, and counted as what it closed: --max-daily-notional 30k: a close counts what it closed (18,000 after a retry), so the next 13,000 is refused', async () => {
  const { simulator, call, close } = await closeWhileAdding(9_000, ['--max-daily-notional', '30k'], {
    ...BUY,
    wait: false,
  });
  expectDone(close);
  expect(closes(simulator)).toEqual([
    [409, 'action_pending'],
    [200, null],
  ]);
  const [entry] = await journal(simulator);
  expect(entry).toMatchObject({ command: 'close', outcome: 'done', traded_usd: 18_000 });

  expectRefused(
    await call('open', { ...SELL, notional: 13_000, tenor: 7, wait: false }),
    overLimit({ used_last_24h_usd: 18_000, this_call_usd: 13_000 }, 'max_daily_notional_exceeded'),
  );
  expect(simulator.requests('POST', '/hedges')).toEqual([]);
});

it('the limits as documented: a bad limit stops the server at once (exit 2, one line); a good one refuses a call over --max-notional and one outside --markets with their documented errors; the server gets no write', async () => {
  const simulator = await startSimulator({ extraMarkets: [{ market: 'USDTKES', status: 'open', basePrice: 129.4 }] });
  // A bad limit stops the server at once: exit 2, one line, nothing sent.
  const result = await simulator.hedge(['mcp', '--max-daily-notional', 'lots']);
  expect(result.code, result.stderr).toBe(2);
  expect(result.stderr).toMatch(/^hedge: --max-daily-notional: "lots" is not allowed; expected a positive USD amount/);
  const { client, call, close } = await startServer(simulator, {
    args: ['--max-notional', '5k', '--markets', 'USDTNGN'],
  });
  expect((await client.listTools()).tools.find((tool) => tool.name === 'open')!.description).toContain(
    'Limits set by the operator: at most 5,000.00 USD per call, markets USDTNGN',
  );

  const over = await call('open', { ...BUY, notional: '10k', tenor: 3 });
  expectRefused(over, overLimit({ this_call_usd: 10_000, max_notional_usd: 5_000 }));
  expect(json(over).error.message).toBe(
    "open: this call trades 10,000.00 USD, over this agent's cap of 5,000.00 USD per call (hedge mcp --max-notional); nothing was sent.",
  );
  expectRefused(
    await call('open', { market: 'USDTKES', side: 'buy', notional: 1_000, tenor: 3 }),
    overLimit({ market: 'USDTKES', allowed_markets: ['USDTNGN'] }, 'market_not_allowed'),
  );
  expect(simulator.requests()).toEqual([]);
  expect(await journal(simulator)).toEqual([]);
  // Reads are not limited: a quote on the other market is answered.
  expectDone(await call('quote', { market: 'USDTKES', side: 'buy', notional: 10_000, tenor: 1 }));

  const fits = await call('open', { market: 'usdtngn', side: 'buy', notional: 5_000, tenor: 3 });
  expectDone(fits);
  expect(json(fits)).toMatchObject({ notional_usd: 5_000, status: 'filled' });
  expect(simulator.requests('POST', '/hedges').map((entry) => (entry.body as any).market)).toEqual(['USDTNGN']);
  expect(await close()).toContain('hedge mcp: write limits — at most 5,000.00 USD per call, markets USDTNGN.');
});
