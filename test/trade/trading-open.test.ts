// hedge open, flag-driven, against a sandbox server over HTTP: filled, failed on-chain, --no-wait,
// --timeout and --dry-run (bad input and missing arguments: reliability/bad-input.test.ts). Each test checks the server's own
// state or request log, not only what the CLI printed.
import { describe, expect, it } from 'vitest';
import { useSimulators } from '../support/simulator.js';
import { IDEMPOTENCY_KEY } from '../support/output/text.js';
import { ok, okJson, exits } from '../support/cli-runs.js';

const startTrading = useSimulators();

describe('hedge open', () => {
  it('quotes, submits once and waits for the fill: struck rate against the quote, hashes whole, maturity', async () => {
    const trading = await startTrading();
    const result = exits(
      await trading.hedge('open USDTNGN buy 10k --tenor 3 --ref DEAL-42'),
      0,
      'waiting for the fill',
    );

    const [hedge] = trading.hedges();
    expect(trading.hedges()).toHaveLength(1);
    expect(hedge).toMatchObject({
      status: 'filled',
      notionalUsd: 10_000,
      tenorDays: 3,
      side: 'buy',
      clientReference: 'DEAL-42',
    });

    // A record in TSV: a header row of keys and one row of values.
    const [keys, values] = result.stdout
      .trim()
      .split('\n')
      .map((line) => line.split('\t'));
    const lines = Object.fromEntries(keys!.map((key, index) => [key, values![index]!]));
    expect(lines.id).toBe(hedge!.id);
    expect(lines.status).toBe('filled');
    expect(Number(lines.struck_rate)).toBe(hedge!.struckRate);
    // The quote's price, not the fill's: the simulator's market moves with real time between the
    // two, by far less than 0.1% in the seconds of a test.
    expect(
      Math.abs(hedge!.struckRate! - Number(lines.quoted_execution_price)) / Number(lines.quoted_execution_price),
    ).toBeLessThan(0.001);
    // On the account's side (docs/output.md "Sign convention"): a buy struck below the quote is positive.
    const bps =
      ((Number(lines.quoted_execution_price) - hedge!.struckRate!) / Number(lines.quoted_execution_price)) * 10_000;
    expect(Number(lines.slippage_bps)).toBeCloseTo(bps, 1);
    expect(lines.order_tx_hash).toBe(hedge!.orderTxHash);
    expect(lines.fill_tx_hash).toBe(hedge!.fillTxHash);
    expect(lines.order_key).toBe(hedge!.orderKey);
    expect(lines.maturity_at).toBe(new Date(hedge!.maturityAtMs).toISOString());
    expect(lines.units).toBe('10000');

    // Quote first, then exactly one POST /hedges carrying an Idempotency-Key; then polls of the hedge.
    const log = trading.sandbox.requestLog.map((entry) => `${entry.method} ${entry.path}`);
    expect(log.indexOf('POST /quotes')).toBeLessThan(log.indexOf('POST /hedges'));
    const writes = trading.requests('POST', '/hedges');
    expect(writes).toHaveLength(1);
    expect(writes[0]!.idempotencyKey).toMatch(IDEMPOTENCY_KEY);
    expect(writes[0]!.body).toEqual({
      market: 'USDTNGN',
      side: 'buy',
      notional_usd: 10_000,
      tenor_days: 3,
      client_reference: 'DEAL-42',
    });
    const polls = trading.sandbox.requestLog.filter(
      (entry) => entry.method === 'GET' && entry.path === `/hedges/${hedge!.id}`,
    );
    // The fill lands 100 ms after the open, so the first poll (a second later) already sees it.
    expect(polls).toHaveLength(1);
    expect(polls[0]!.realTimeMs - writes[0]!.realTimeMs).toBeGreaterThanOrEqual(1000);
  });

  it('--json prints only the final hedge on stdout', async () => {
    const trading = await startTrading();
    const result = ok(await trading.hedge('open USDTNGN sell 2500 --tenor 1 --json'));
    const hedge = JSON.parse(result.stdout);
    expect(hedge).toMatchObject({ id: trading.hedges()[0]!.id, status: 'filled', side: 'sell', notional_usd: 2500 });
    expect(typeof hedge.struck_rate).toBe('number');
    expect(result.stderr).not.toContain('waiting');
  });

  it('an order that fails on-chain exits 6 and says nothing was opened', async () => {
    const trading = await startTrading({ failRate: 1 });
    const result = exits(await trading.hedge('open USDTNGN buy 10000 --tenor 3'), 6);
    expect(result.stderr).toMatch(/failed on-chain: nothing was opened/);
    const [hedge] = trading.hedges();
    expect(hedge!.status).toBe('failed');
    expect(result.stderr).toContain(hedge!.id);
  });

  it('--no-wait returns at submitted without polling the hedge', async () => {
    const trading = await startTrading({ fillDelayMs: 60_000 });
    const result = okJson(await trading.hedge('open USDTNGN buy 10000 --tenor 7 --no-wait --json'));
    const submitted = result;
    expect(submitted.status).toBe('submitted');
    expect(submitted.hedge_id).toBe(trading.hedges()[0]!.id);
    expect(submitted.order_tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(
      trading.sandbox.requestLog.some((entry) => entry.method === 'GET' && entry.path.startsWith('/hedges/')),
    ).toBe(false);
  });

  it('times out with exit 7 and the command that resumes the wait; the order stands', async () => {
    const trading = await startTrading({ fillDelayMs: 60_000 });
    // --timeout counts from the start of the command, and a write needs a second of it left to be
    // sent at all: 4 s leaves the start-up, the quote and the pre-trade reads seconds to spare on a
    // loaded machine (2 s left them under one), so the run always reaches the wait it times out in.
    const result = exits(await trading.hedge('open USDTNGN buy 10000 --tenor 3 --timeout 4'), 7);
    expect(trading.requests('POST', '/hedges')).toHaveLength(1);
    const [hedge] = trading.hedges();
    expect(hedge!.status).toBe('submitted');
    expect(result.stderr).toContain(`hedge hedges ${hedge!.id} --wait`);
    expect(result.stderr).toMatch(/order stands/);
    // Never two polls of the hedge under a second apart.
    const polls = trading.sandbox.requestLog.filter((entry) => entry.path === `/hedges/${hedge!.id}`);
    for (let i = 1; i < polls.length; i++)
      expect(polls[i]!.realTimeMs - polls[i - 1]!.realTimeMs).toBeGreaterThanOrEqual(1000);
  });

  it('--dry-run prints the exact request with the key redacted and sends no write', async () => {
    const trading = await startTrading();
    const result = ok(
      await trading.hedge('open USDTNGN buy 10000 --tenor 3 --ref D-1 --dry-run --idempotency-key resume-me-1'),
    );
    expect(result.stdout).toContain(`POST ${trading.sandbox.baseUrl}/hedges`);
    expect(result.stdout).toContain('Idempotency-Key: resume-me-1');
    expect(result.stdout).toMatch(/Authorization: Bearer hpk_test…[A-Za-z0-9]{4}/);
    expect(result.stdout).not.toContain(trading.sandbox.apiKey);
    expect(result.stdout).toContain('"notional_usd": 10000');
    expect(result.stdout).toContain('"client_reference": "D-1"');
    expect(result.stderr).toMatch(/NOT sent/);
    expect(trading.writes()).toEqual([]);
    expect(trading.hedges()).toEqual([]);
  });

  it('--dry-run --json is the planned request as one JSON document', async () => {
    const trading = await startTrading();
    const result = ok(await trading.hedge('open USDTNGN sell 1m --tenor 1 --dry-run --json --skip-checks'));
    const planned = JSON.parse(result.stdout);
    expect(planned).toMatchObject({
      dry_run: true,
      method: 'POST',
      path: '/hedges',
      body: { market: 'USDTNGN', side: 'sell', notional_usd: 1_000_000, tenor_days: 1 },
    });
    expect(planned.headers['Idempotency-Key']).toBe(planned.idempotency_key);
    // --skip-checks: not even the read-only pre-trade requests.
    expect(trading.sandbox.requestLog).toEqual([]);
  });
});
