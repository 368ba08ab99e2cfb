// The safety rails of the state-changing commands, proven on the server side: pre-trade checks
// that stop a write before it is sent (and the server's own refusal with --skip-checks), live keys
// that are refused without a terminal or --yes before any request at all.
import { describe, expect, it } from 'vitest';
import { LIVE_KEY } from '../support/keys.js';
import { openFilledThroughCli, useSimulators } from '../support/simulator.js';
import { ok, exits } from '../support/cli-runs.js';

const startTrading = useSimulators();

describe('pre-trade checks', () => {
  it('exposure over the account headroom is caught before sending: exit 3, the numbers, no POST', async () => {
    const trading = await startTrading({ exposureCapUsd: 50_000 });
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

    const add = exits(await trading.hedge('add USDTNGN buy 10001'), 3);
    expect(add.stderr).toMatch(/adding 10,001\.00 USD would push the account over its exposure cap/);
    expect(trading.writes()).toHaveLength(writesBefore);
  });

  it('with --skip-checks the server decides: its exposure_exceeded is shown the same way (exit 3)', async () => {
    const trading = await startTrading({ exposureCapUsd: 50_000 });
    await openFilledThroughCli(trading, 'buy', '40000');
    const result = exits(
      await trading.hedge('open USDTNGN sell 20000 --tenor 3 --skip-checks'),
      3,
      '(exposure_exceeded, HTTP 400)',
      'available_exposure_usd: 10000',
    );
    expect(result.stderr).toMatch(/idempotency key: [0-9a-f-]{36}/);
    const refused = trading
      .writes()
      .filter((entry) => entry.path === '/hedges' && entry.errorCode === 'exposure_exceeded');
    expect(refused).toHaveLength(1);
    expect(trading.hedges()).toHaveLength(1);
  });

  it('a market that is not listed is refused before sending', async () => {
    const trading = await startTrading();
    exits(
      await trading.hedge('open USDTKES buy 1000 --tenor 1'),
      2,
      'market: "USDTKES" is not listed for this account; listed: USDTNGN',
    );
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
      ['roll', 'USDTNGN', 'buy', '--tenor', '7'],
    ]) {
      const result = exits(await trading.hedge(args, { env: { HEDGE_API_KEY: LIVE_KEY } }), 2, ' LIVE ');
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
    exits(await trading.hedge('close USDTNGN buy --yes', { env: { HEDGE_API_KEY: LIVE_KEY } }), 4, ' LIVE ');
    expect(trading.sandbox.requestLog.map((entry) => entry.errorCode)).toEqual(['live_key_refused']);
  });

  it('--dry-run needs no --yes: it sends nothing', async () => {
    const trading = await startTrading();
    const result = ok(await trading.hedge('close USDTNGN sell --dry-run', { env: { HEDGE_API_KEY: LIVE_KEY } }));
    expect(result.stdout).toContain('POST ');
    expect(result.stdout).toContain('/hedges/close');
    expect(result.stdout).toContain('Authorization: Bearer hpk_live…UvWx');
    expect(trading.sandbox.requestLog).toEqual([]);
  });
});
