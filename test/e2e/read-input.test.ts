// Bad input on the read commands: exit 2, exactly one line on stderr naming the argument and
// what is allowed, nothing on stdout, and nothing received by the server (its request log).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { quoteSchema } from '../../src/api/schemas.js';
import type { RunningSandbox } from '../../src/sandbox/index.js';
import { runHedge, tempDir } from '../support/hedge-cli.js';
import { startSimulator, type Simulator } from '../support/simulator.js';

let simulator: Simulator;
let sandbox: RunningSandbox;
let config: { path: string; remove: () => void };

const quote = (market: string, side: string, notional: string, ...rest: string[]) => ['quote', market, side, notional, ...rest];

/** [argv, what the one stderr line must say] — none of these may reach the server. */
const REFUSED_BEFORE_ANY_REQUEST: Array<[string[], RegExp]> = [
  [quote('USDTNGN', 'hold', '10000', '--tenor', '3'), /^hedge: side: "hold" is not allowed; expected buy or sell\.$/],
  [quote('USDTNGN', 'buy', '10000', '--tenor', '2'), /^hedge: --tenor: "2" is not allowed; expected 1, 3 or 7 \(days\)\.$/],
  [quote('USDTNGN', 'buy', '10000'), /^hedge: --tenor: missing; expected 1, 3 or 7 \(days\)\.$/],
  [quote('USDTNGN', 'buy', '0', '--tenor', '3'), /^hedge: notional: "0" is not allowed; expected a positive USD amount/],
  [quote('USDTNGN', 'buy', '-5', '--tenor', '3'), /^hedge: notional: "-5" is not allowed; expected a positive USD amount/],
  [quote('USDTNGN', 'buy', 'abc', '--tenor', '3'), /^hedge: notional: "abc" is not allowed; expected a positive USD amount/],
  [quote('USDTNGN', 'buy', '1e400', '--tenor', '3'), /^hedge: notional: "1e400" is not allowed; expected a positive USD amount/],
  [quote('USD-NGN', 'buy', '10000', '--tenor', '3'), /^hedge: market: "USD-NGN" is not a market name/],
  [['price', 'usd/ngn'], /^hedge: market: "usd\/ngn" is not a market name/],
  [['hedges', '--limit', '0'], /^hedge: --limit: "0" is not allowed; expected a whole number from 1 to 500\.$/],
  [['hedges', '--limit', '501'], /^hedge: --limit: "501" is not allowed; expected a whole number from 1 to 500\.$/],
  [['history', '--limit', '0'], /^hedge: --limit: "0" is not allowed; expected a whole number from 1 to 500\.$/],
  [['history', '--limit', '501'], /^hedge: --limit: "501" is not allowed; expected a whole number from 1 to 500\.$/],
  [['hedges', '--status', 'open'], /^hedge: --status: "open" is not allowed; expected one of submitting, submitted, filled, failed, closed\.$/],
  [['hedges', '--wait'], /^hedge: --wait: needs a hedge ID/],
  [['hedges', '12345'], /^hedge: id: "12345" is not a hedge id; expected hdg_/],
  [['hedges', 'hdg_abc', '--status', 'filled'], /^hedge: --status: filters the list; it cannot be combined with a hedge ID\.$/],
];

beforeAll(async () => {
  simulator = await startSimulator({ preset: 'frozen' });
  sandbox = simulator.sandbox;
  config = tempDir();
});

afterAll(async () => {
  await simulator?.close();
  config?.remove();
});

describe('bad input on the read commands', () => {
  it('each bad value exits 2 with one line on stderr, and the server receives nothing', async () => {
    const env = simulator.env;
    const results = [];
    // A few at a time: they are independent, but the test machine has two cores.
    for (let start = 0; start < REFUSED_BEFORE_ANY_REQUEST.length; start += 6) {
      const batch = REFUSED_BEFORE_ANY_REQUEST.slice(start, start + 6);
      results.push(...(await Promise.all(batch.map(([args]) => runHedge(args, { env, configDir: config.path })))));
    }
    results.forEach((result, index) => {
      const [args, expected] = REFUSED_BEFORE_ANY_REQUEST[index];
      const where = `hedge ${args.join(' ')}\n${result.stderr}`;
      expect(result.code, where).toBe(2);
      expect(result.stdout, where).toBe('');
      const errorLines = result.stderr.trimEnd().split('\n');
      expect(errorLines, where).toHaveLength(1);
      expect(errorLines[0], where).toMatch(expected);
    });
    expect(sandbox.requestLog).toEqual([]);
  });

  it('under --json a bad value is one JSON error line on stderr, stdout empty', async () => {
    const result = await runHedge([...quote('USDTNGN', 'buy', '10000', '--tenor', '2'), '--json'], { env: simulator.env, configDir: config.path });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    const errorLines = result.stderr.trimEnd().split('\n');
    expect(errorLines).toHaveLength(1);
    expect(JSON.parse(errorLines[0])).toMatchObject({ error: { code: 'usage', message: expect.stringContaining('--tenor') } });
    expect(sandbox.requestLog).toEqual([]);
  });

  it('an unlisted market names the listed ones; quote asks for the list only after the refusal (quote-requests.test.ts)', async () => {
    const before = sandbox.requestLog.length;
    const env = simulator.env;
    const [quoted, priced] = await Promise.all([
      runHedge(quote('eurngn', 'buy', '10000', '--tenor', '3'), { env, configDir: config.path }),
      runHedge(['price', 'EURNGN'], { env, configDir: config.path }),
    ]);
    for (const result of [quoted, priced]) {
      expect(result.code, result.stderr).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr.trimEnd().split('\n')).toEqual(['hedge: market: "EURNGN" is not listed for this account; listed: USDTNGN.']);
    }
    // The two ran at once, so their requests interleave: counted, not ordered.
    expect(sandbox.requestLog.slice(before).map((entry) => `${entry.method} ${entry.path}`).sort()).toEqual(['GET /markets', 'GET /markets', 'POST /quotes']);
  });

  it('a lower-case market and a 10k notional are normalised and work', async () => {
    const before = sandbox.requestLog.length;
    const result = await runHedge(quote('usdtngn', 'BUY', '10k', '--tenor', '3', '--json'), { env: simulator.env, configDir: config.path });
    expect(result.code, result.stderr).toBe(0);
    const parsed = quoteSchema.parse(JSON.parse(result.stdout));
    expect(parsed).toMatchObject({ market: 'USDTNGN', side: 'buy', notional_usd: 10_000, tenor_days: 3 });
    const sent = sandbox.requestLog.slice(before);
    expect(sent.map((entry) => `${entry.method} ${entry.path}`)).toEqual(['POST /quotes']);
    expect(sent[0].body).toEqual({ market: 'USDTNGN', side: 'buy', notional_usd: 10_000, tenor_days: 3 });
  });
});
