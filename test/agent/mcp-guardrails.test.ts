// The agent's limits over the real protocol: `hedge mcp --max-notional … --markets …` spawned by
// the official SDK's client against the simulator. A call over a limit is the documented tool
// error and the simulator receives no write; a bad limit stops the server before it serves. And
// the error catalogue as `hedge tools` prints it.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, describe, expect, it } from 'vitest';
import { EXIT_CODES } from '../../src/platform/terminal/exit-codes.js';
import { openJournal } from '../../src/platform/journal/index.js';
import { HEDGE_BIN, ROOT, baseEnv } from '../support/hedge-cli.js';
import { MARKET, useSimulators, type Simulator } from '../support/simulator.js';
import { okJson } from '../support/cli-runs.js';
import { expectRefused, expectDone, json } from './answers.js';

const BUY = { market: MARKET, side: 'buy' };

const startSimulator = useSimulators();
const transports: StdioClientTransport[] = [];
afterEach(async () => {
  await Promise.all(transports.splice(0).map((transport) => transport.close()));
});

async function serve(simulator: Simulator, args: string[]) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [HEDGE_BIN, 'mcp', ...args],
    env: { ...baseEnv(simulator.configDir), ...simulator.env },
    cwd: ROOT,
    stderr: 'pipe',
  });
  transports.push(transport);
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const client = new Client({ name: 'hedge-e2e-guardrails', version: '1.0.0' });
  await client.connect(transport);
  const call = async (name: string, callArgs: Record<string, unknown>) =>
    (await client.callTool({ name, arguments: callArgs })) as { isError?: boolean; content: Array<{ text: string }> };
  return { client, call, stderr: () => stderr };
}

describe('hedge mcp with limits', () => {
  it('refuses a call over --max-notional and one outside --markets with their documented errors; the server gets no write', async () => {
    const simulator = await startSimulator({ extraMarkets: [{ market: 'USDTKES', status: 'open', basePrice: 129.4 }] });
    const { client, call, stderr } = await serve(simulator, ['--max-notional', '5k', '--markets', 'USDTNGN']);
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
    expect(stderr()).toContain('hedge mcp: write limits — at most 5,000.00 USD per call, markets USDTNGN.');
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

describe('hedge tools: risk tiers and the error catalogue', () => {
  it('--errors --json covers every exit code; each tool in --json carries its risk and its errors with retry guidance', async () => {
    const simulator = await startSimulator();
    const catalogue: any[] = okJson(await simulator.hedge(['tools', '--errors', '--json']));
    const entry = (code: string) => catalogue.find((one) => one.code === code);
    expect(EXIT_CODES.filter(({ code }) => !catalogue.some((one) => one.exit_code === code))).toEqual([]);
    expect(entry('rate_limited')).toMatchObject({
      exit_code: 5,
      class: 'network',
      retryable: true,
      retry: 'same_call',
    });
    expect(entry('outcome_unknown')).toMatchObject({
      exit_code: 5,
      retryable: true,
      retry: 'resume',
    });

    const tools: any[] = JSON.parse((await simulator.hedge(['tools', '--json'])).stdout);
    const open = tools.find((tool) => tool.name === 'open')!;
    expect(open.risk).toMatchObject({ level: 'high', moves_money: true, journaled: true });
    expect(open.errors.map((error: { code: string }) => error.code)).toEqual(
      expect.arrayContaining(['usage', 'exposure_exceeded', 'outcome_unknown', 'max_notional_exceeded']),
    );
    expect(tools.find((tool) => tool.name === 'positions')!.risk).toMatchObject({ level: 'low', moves_money: false });
    expect(simulator.requests()).toEqual([]);

    expect((await simulator.hedge(['tools', '--errors'])).stdout.split('\n')[0]).toMatch(
      /^code\texit_code\tclass\tretryable\tretry\twhat_to_do/,
    );
  });
});
