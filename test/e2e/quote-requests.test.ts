// `hedge quote` costs one request when it succeeds (POST /quotes); the markets list is asked for
// only after a refusal, to say whether the market is why. Counted on the simulator's own log.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../support/simulator.js';

let simulator: Simulator;
const sent = (before: number) =>
  simulator
    .requests()
    .slice(before)
    .map((entry) => `${entry.method} ${entry.path} ${entry.status}`);

beforeAll(async () => {
  simulator = await startSimulator({
    preset: 'frozen',
    extraMarkets: [{ market: 'USDTGHS', status: 'disabled', basePrice: 15.4 }],
  });
});

afterAll(async () => {
  await simulator?.close();
});

describe('quote: requests on the wire', () => {
  it('a good quote is one request, POST /quotes, with the normalised body', async () => {
    const before = simulator.requests().length;
    const result = await simulator.hedge(['quote', 'usdtngn', 'Buy', '10k', '--tenor', '3', '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      market: 'USDTNGN',
      side: 'buy',
      notional_usd: 10_000,
      tenor_days: 3,
    });
    expect(sent(before)).toEqual(['POST /quotes 200']);
    expect(simulator.requests().at(-1)!.body).toEqual({
      market: 'USDTNGN',
      side: 'buy',
      notional_usd: 10_000,
      tenor_days: 3,
    });
  });

  it('an unlisted market: the refusal, then the list to name the listed ones; exit 2 as bad input', async () => {
    const before = simulator.requests().length;
    const result = await simulator.hedge(['quote', 'EURNGN', 'buy', '10000', '--tenor', '3']);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr.trimEnd().split('\n')).toEqual([
      'hedge: market: "EURNGN" is not listed for this account; listed: USDTNGN, USDTGHS.',
    ]);
    expect(sent(before)).toEqual(['POST /quotes 400', 'GET /markets 200']);
  });

  it('a listed market that is not open: the API refusal (exit 3), its hint naming the status and the open markets', async () => {
    const before = simulator.requests().length;
    const result = await simulator.hedge(['quote', 'USDTGHS', 'sell', '10000', '--tenor', '7', '--json']);
    expect(result.code).toBe(3);
    expect(result.stdout).toBe('');
    expect(JSON.parse(result.stderr).error).toMatchObject({
      code: 'market_disabled',
      class: 'rejected',
      status: 400,
      hint: 'USDTGHS is disabled on the markets list; open now: USDTNGN.',
    });
    expect(sent(before)).toEqual(['POST /quotes 400', 'GET /markets 200']);
  });

  it('bad input that can be decided locally still sends nothing', async () => {
    const before = simulator.requests().length;
    const result = await simulator.hedge(['quote', 'USDTNGN', 'buy', '10000', '--tenor', '2']);
    expect(result.code).toBe(2);
    expect(result.stderr.trimEnd().split('\n')).toEqual([
      'hedge: --tenor: "2" is not allowed; expected 1, 3 or 7 (days).',
    ]);
    expect(sent(before)).toEqual([]);
  });
});
