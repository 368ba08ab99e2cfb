// The safety rails of the state-changing commands, proven on the server side: pre-trade checks
// that stop a write before it is sent (and the server's own refusal with --skip-checks), live keys
// that are refused without a terminal or --yes before any request at all, and an automatic retry
// after a dropped connection that leaves exactly one hedge.
import { describe, expect, it } from 'vitest';
import { LIVE_KEY } from '../support/keys.js';
import { openFilledThroughCli, useSimulators } from '../support/simulator.js';

const startTrading = useSimulators();

describe('pre-trade checks', () => {
  it('exposure over the account headroom is caught before sending: exit 3, the numbers, no POST', async () => {
    const trading = await startTrading({ exposureCapUsd: 50_000 });
    await openFilledThroughCli(trading, 'buy', '40000');
    const writesBefore = trading.writes().length;
    const result = await trading.hedge(['open', 'USDTNGN', 'sell', '20000', '--tenor', '3']);
    expect(result.code).toBe(3);
    expect(result.stderr).toContain(
      '20,000.00 USD would push the account over its exposure cap: 10,000.00 USD of headroom left',
    );
    expect(result.stderr).toContain('available_exposure_usd: 10000');
    expect(result.stderr).toContain('--skip-checks');
    expect(trading.writes()).toHaveLength(writesBefore);
    expect(trading.hedges()).toHaveLength(1);

    const add = await trading.hedge(['add', 'USDTNGN', 'buy', '10001']);
    expect(add.code).toBe(3);
    expect(add.stderr).toMatch(/adding 10,001\.00 USD would push the account over its exposure cap/);
    expect(trading.writes()).toHaveLength(writesBefore);
  });

  it('with --skip-checks the server decides: its exposure_exceeded is shown the same way (exit 3)', async () => {
    const trading = await startTrading({ exposureCapUsd: 50_000 });
    await openFilledThroughCli(trading, 'buy', '40000');
    const result = await trading.hedge(['open', 'USDTNGN', 'sell', '20000', '--tenor', '3', '--skip-checks']);
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('(exposure_exceeded, HTTP 400)');
    expect(result.stderr).toContain('available_exposure_usd: 10000');
    expect(result.stderr).toMatch(/idempotency key: [0-9a-f-]{36}/);
    const refused = trading
      .writes()
      .filter((entry) => entry.path === '/hedges' && entry.errorCode === 'exposure_exceeded');
    expect(refused).toHaveLength(1);
    expect(trading.hedges()).toHaveLength(1);
  });

  it('a notional over the side capacity is caught before sending', async () => {
    const trading = await startTrading();
    const result = await trading.hedge(['open', 'USDTNGN', 'buy', '900m', '--tenor', '1']);
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/would push the account over its exposure cap|more than the buy capacity/);
    expect(trading.writes()).toEqual([]);
  });

  it('a market that is not listed is refused before sending', async () => {
    const trading = await startTrading();
    const result = await trading.hedge(['open', 'USDTKES', 'buy', '1000', '--tenor', '1']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('market: "USDTKES" is not listed for this account; listed: USDTNGN');
    expect(trading.writes()).toEqual([]);
  });
});

describe('live keys', () => {
  it('without a terminal and without --yes: exit 2, the LIVE banner, and no request at all (not even a read)', async () => {
    const trading = await startTrading();
    for (const args of [
      ['open', 'USDTNGN', 'buy', '1000', '--tenor', '3'],
      ['add', 'USDTNGN', 'buy', '1000'],
      ['reduce', 'USDTNGN', 'buy', '1000'],
      ['close', 'USDTNGN', 'buy', '--json'],
    ]) {
      const result = await trading.hedge(args, { env: { HEDGE_API_KEY: LIVE_KEY } });
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toContain(' LIVE ');
      expect(result.stderr).toMatch(
        /--yes is required to .* with a LIVE key \(there is no terminal to confirm on\); nothing was sent/,
      );
      expect(result.stderr).not.toContain(LIVE_KEY);
      expect(result.stdout).toBe('');
    }
    expect(trading.sandbox.requestLog).toEqual([]);
  });

  it('with --yes the command goes ahead (and the sandbox, which accepts test keys only, refuses it: exit 4)', async () => {
    const trading = await startTrading();
    const result = await trading.hedge(['close', 'USDTNGN', 'buy', '--yes'], { env: { HEDGE_API_KEY: LIVE_KEY } });
    expect(result.code).toBe(4);
    expect(result.stderr).toContain(' LIVE ');
    expect(trading.sandbox.requestLog.map((entry) => entry.errorCode)).toEqual(['live_key_refused']);
  });

  it('--dry-run needs no --yes: it sends nothing', async () => {
    const trading = await startTrading();
    const result = await trading.hedge(['close', 'USDTNGN', 'sell', '--dry-run'], { env: { HEDGE_API_KEY: LIVE_KEY } });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('POST ');
    expect(result.stdout).toContain('/hedges/close');
    expect(result.stdout).toContain('Authorization: Bearer hpk_live…UvWx');
    expect(trading.sandbox.requestLog).toEqual([]);
  });
});

describe('idempotency under faults', () => {
  it('a connection dropped after the server committed the open is retried with the same key: exactly one hedge', async () => {
    const trading = await startTrading();
    trading.sandbox.setFaults({ nextDropAfterCommit: 1, match: { method: 'POST', path: '/hedges' } });
    const result = await trading.hedge(['open', 'USDTNGN', 'buy', '10000', '--tenor', '3', '--json']);
    expect(result.code).toBe(0);
    expect(trading.hedges()).toHaveLength(1);
    const hedge = JSON.parse(result.stdout);
    expect(hedge).toMatchObject({ id: trading.hedges()[0]!.id, status: 'filled' });
    const opens = trading.writes().filter((entry) => entry.path === '/hedges');
    expect(opens.map((entry) => entry.status)).toEqual(['dropped', 200]);
    expect(new Set(opens.map((entry) => entry.idempotencyKey)).size).toBe(1);
  });

  it('a dropped close is retried with the same key and closes once', async () => {
    const trading = await startTrading();
    const id = await openFilledThroughCli(trading, 'sell', '5000');
    trading.sandbox.setFaults({ nextDropAfterCommit: 1, match: { method: 'POST', path: '/hedges/close' } });
    const result = await trading.hedge(['close', 'USDTNGN', 'sell', '--json']);
    expect(result.code).toBe(0);
    const account = Object.values(trading.sandbox.engine.state.accounts)[0]!;
    expect(account.hedges[id]!.status).toBe('closed');
    expect(account.history).toHaveLength(1);
    const closes = trading.writes().filter((entry) => entry.path === '/hedges/close');
    expect(closes).toHaveLength(2);
    expect(closes[0]!.idempotencyKey).toBe(closes[1]!.idempotencyKey);
  });

  it('--idempotency-key resumes an open whose outcome was unknown: the server replays it, nothing doubles', async () => {
    const trading = await startTrading();
    const first = await trading.hedge([
      'open',
      'USDTNGN',
      'buy',
      '3000',
      '--tenor',
      '3',
      '--json',
      '--idempotency-key',
      'desk-run-77',
    ]);
    expect(first.code).toBe(0);
    const again = await trading.hedge([
      'open',
      'USDTNGN',
      'buy',
      '3000',
      '--tenor',
      '3',
      '--json',
      '--idempotency-key',
      'desk-run-77',
    ]);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout).id).toBe(JSON.parse(first.stdout).id);
    expect(trading.hedges()).toHaveLength(1);
  });
});
