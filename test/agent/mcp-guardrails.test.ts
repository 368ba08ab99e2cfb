// The agent's limits over the real protocol: `hedge mcp --max-notional … --markets …` spawned by
// the official SDK's client against the simulator. A call over a limit is the documented tool
// error and the simulator receives no write; a bad limit stops the server before it serves.
import { describe, expect, it } from 'vitest';
import { openJournal } from '../../src/platform/journal/index.js';
import { useMcpServers } from '../support/mcp.js';
import { MARKET, useSimulators } from '../support/simulator.js';
import { expectRefused, expectDone, json } from './answers.js';

const BUY = { market: MARKET, side: 'buy' };

const startSimulator = useSimulators();
const serve = useMcpServers();

describe('hedge mcp with limits', () => {
  it('refuses a call over --max-notional and one outside --markets with their documented errors; the server gets no write', async () => {
    const simulator = await startSimulator({ extraMarkets: [{ market: 'USDTKES', status: 'open', basePrice: 129.4 }] });
    const { client, call, close } = await serve(simulator, { args: ['--max-notional', '5k', '--markets', 'USDTNGN'] });
    const open = (await client.listTools()).tools.find((tool) => tool.name === 'open')!;
    expect(open.description).toContain('Limits set by the operator: at most 5,000.00 USD per call, markets USDTNGN');

    const big = await call('open', { ...BUY, notional: '10k', tenor: 3 });
    expectRefused(big, {
      error: {
        code: 'max_notional_exceeded',
        class: 'rejected',
        details: { this_call_usd: 10_000, max_notional_usd: 5_000 },
        message:
          "open: this call trades 10,000.00 USD, over this agent's cap of 5,000.00 USD per call (hedge mcp --max-notional); nothing was sent.",
      },
      exit_code: 3,
    });
    const elsewhere = await call('open', { market: 'USDTKES', side: 'buy', notional: 1_000, tenor: 3 });
    expect(json(elsewhere)).toMatchObject({
      error: { code: 'market_not_allowed', details: { market: 'USDTKES', allowed_markets: ['USDTNGN'] } },
      exit_code: 3,
    });
    expect(simulator.requests()).toEqual([]);
    expect(await openJournal({ dir: simulator.configDir }).list()).toEqual([]);

    const fits = await call('open', { ...BUY, notional: 5_000, tenor: 3 });
    expectDone(fits);
    expect(json(fits)).toMatchObject({ notional_usd: 5_000, status: 'filled' });
    expect(simulator.requests('POST', '/hedges')).toHaveLength(1);
    expect(await close()).toContain('hedge mcp: write limits — at most 5,000.00 USD per call, markets USDTNGN.');
  });

  it('a bad limit stops the server at once: exit 2, one line, nothing sent', async () => {
    const simulator = await startSimulator();
    const result = await simulator.hedge(['mcp', '--max-daily-notional', 'lots']);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toMatch(
      /^hedge: --max-daily-notional: "lots" is not allowed; expected a positive USD amount/,
    );
    expect(simulator.requests()).toEqual([]);
  });
});
