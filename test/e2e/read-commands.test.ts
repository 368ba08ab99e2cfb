// Every read command against one sandbox with a known history, in the three output modes:
// --json parses, matches the schema and equals what the API answered (nothing dropped); plain
// (no TTY) has the expected tab-separated rows; the forced-TTY table matches a reviewed snapshot.
// The sandbox's clock is frozen and the CLI's clock pinned to it, so the snapshots are stable.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  accountSchema,
  hedgeSchema,
  historyRecordSchema,
  marketSchema,
  positionSchema,
  quoteSchema,
} from '../../src/api/schemas.js';
import type { RunningSandbox } from '../../src/sandbox/index.js';
import { runHedge, tempDir, type RunResult } from '../support/hedge-cli.js';
import { api, lines, sandboxEnv, startFrozenSandbox, TEST_KEY } from '../support/read.js';

const priceSchema = z.looseObject({ market: z.string(), price: z.number(), timestamp: z.string() });
const wireHistorySchema = historyRecordSchema.extend({
  hedge_id: z.string(),
  entry_price: z.number(),
  exit_price: z.number(),
  gross_pnl_usd: z.number(),
  carry_usdc: z.number(),
  fees_usdc: z.number(),
  closed_at: z.string(),
});

let sandbox: RunningSandbox;
let config: { path: string; remove: () => void };
let buyId: string;
let sellId: string;

interface Modes {
  json: RunResult;
  plain: RunResult;
  tty: RunResult;
}

/** The same command three ways, concurrently. */
async function inAllModes(args: string[]): Promise<Modes> {
  const env = sandboxEnv(sandbox, true);
  const [json, plain, tty] = await Promise.all([
    runHedge([...args, '--json'], { env, configDir: config.path }),
    runHedge(args, { env, configDir: config.path }),
    runHedge(args, { env: { ...env, HEDGE_FORCE_TTY: '1' }, configDir: config.path }),
  ]);
  for (const result of [json, plain, tty]) expect(result.code, result.stderr).toBe(0);
  return { json, plain, tty };
}

function parsed<S extends z.ZodType>(schema: S, result: RunResult): z.infer<S> {
  const value = JSON.parse(result.stdout) as unknown;
  const check = schema.safeParse(value);
  expect(check.success, JSON.stringify(check.error?.issues)).toBe(true);
  return value as z.infer<S>;
}

beforeAll(async () => {
  sandbox = await startFrozenSandbox();
  // Three closed (settled and closed early) and one failed hedge, all in the past.
  sandbox.seedHedges({ apiKey: TEST_KEY, count: 3, status: 'closed' });
  sandbox.seedHedges({ apiKey: TEST_KEY, count: 1, status: 'failed' });
  buyId = (await api(sandbox, 'POST', '/hedges', { market: 'USDTNGN', side: 'buy', notional_usd: 25_000, tenor_days: 7, client_reference: 'DEAL-42' })).id;
  // An hour later the buy has filled and carried; the sell submitted now stays `submitted` (frozen clock).
  sandbox.clock.advance(3_600_000);
  sellId = (await api(sandbox, 'POST', '/hedges', { market: 'USDTNGN', side: 'sell', notional_usd: 10_000, tenor_days: 3 })).id;
  config = tempDir();
});

afterAll(async () => {
  await sandbox?.close();
  config?.remove();
});

describe('read commands in every output mode', () => {
  it('markets', async () => {
    const { json, plain, tty } = await inAllModes(['markets']);
    const markets = parsed(marketSchema.array(), json);
    expect(markets).toEqual(await api(sandbox, 'GET', '/markets'));
    const [m] = markets;
    expect(lines(plain.stdout)).toEqual([
      [m.market, m.status, m.price, m.available_capacity_usd.buy, m.available_capacity_usd.sell, m.net_rate_daily_pct.buy, m.net_rate_daily_pct.sell].join('\t'),
    ]);
    expect(tty.stdout).toMatchSnapshot();
  });

  it('price without a market lists every listed market', async () => {
    const { json, plain, tty } = await inAllModes(['price']);
    const prices = parsed(priceSchema.array(), json);
    expect(prices).toEqual(await api(sandbox, 'GET', '/prices?symbols=USDTNGN'));
    expect(prices.map((p) => p.market)).toEqual(['USDTNGN']);
    expect(lines(plain.stdout)).toEqual([`USDTNGN\t${prices[0].price}\t${prices[0].timestamp}`]);
    expect(plain.stdout).toMatch(/\t\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z\n$/);
    expect(tty.stdout).toMatchSnapshot();
  });

  it('price of one market', async () => {
    const { json, plain, tty } = await inAllModes(['price', 'USDTNGN']);
    const price = parsed(priceSchema, json);
    expect([price]).toEqual(await api(sandbox, 'GET', '/prices?symbols=USDTNGN'));
    expect(lines(plain.stdout)).toEqual([`market\tUSDTNGN`, `price\t${price.price}`, `timestamp\t${price.timestamp}`]);
    expect(tty.stdout).toMatchSnapshot();
  });

  it('quote USDTNGN buy 10000 --tenor 3 (the example, exactly as typed)', async () => {
    const { json, plain, tty } = await inAllModes(['quote', 'USDTNGN', 'buy', '10000', '--tenor', '3']);
    const quote = parsed(quoteSchema, json);
    expect(quote).toEqual(await api(sandbox, 'POST', '/quotes', { market: 'USDTNGN', side: 'buy', notional_usd: 10_000, tenor_days: 3 }));
    const rows = Object.fromEntries(lines(plain.stdout).map((line) => line.split('\t') as [string, string]));
    expect(rows).toMatchObject({
      market: 'USDTNGN',
      side: 'buy',
      notional_usd: '10000',
      tenor_days: '3',
      'pricing.market_price': String(quote.pricing.market_price),
      'pricing.execution_price': String(quote.pricing.execution_price),
      'pricing.price_impact_usd': String(quote.pricing.price_impact_usd),
      'carry.daily_usdc': String(quote.carry.daily_usdc),
      'carry.total_rate_pct': String(quote.carry.total_rate_pct),
      'upfront.total_upfront_usdc': String(quote.upfront.total_upfront_usdc),
      maturity: quote.maturity,
    });
    expect(Number(rows.price_impact_bps)).toBeCloseTo((quote.pricing.price_impact_usd / 10_000) * 10_000, 2);
    expect(plain.stderr).toContain('reserves nothing');
    expect(json.stderr).toBe('');
    expect(tty.stdout).toContain('reserves nothing');
    expect(tty.stdout).toMatchSnapshot();
  });

  it('hedges lists newest first, without the detail-only fields', async () => {
    const { json, plain, tty } = await inAllModes(['hedges']);
    const hedges = parsed(hedgeSchema.array(), json);
    expect(hedges).toEqual(await api(sandbox, 'GET', '/hedges'));
    expect(hedges).toHaveLength(6);
    expect(hedges.slice(0, 2).map((h) => h.id)).toEqual([sellId, buyId]);
    const rows = lines(plain.stdout).map((line) => line.split('\t'));
    expect(rows.map((row) => row[0])).toEqual(hedges.map((h) => h.id));
    expect(rows[1]).toEqual([
      buyId,
      'DEAL-42',
      'USDTNGN',
      'buy',
      '25000',
      '7',
      'filled',
      String(hedges[1].struck_rate),
      hedges[1].opened_at,
      hedges[1].maturity_at,
    ]);
    expect(plain.stdout).not.toContain(hedges[1].order_tx_hash!);
    expect(tty.stdout).toMatchSnapshot();
  });

  it('hedges ID shows one hedge in full, tx hashes whole', async () => {
    const { json, plain, tty } = await inAllModes(['hedges', buyId]);
    const hedge = parsed(hedgeSchema, json);
    expect(hedge).toEqual(await api(sandbox, 'GET', `/hedges/${buyId}`));
    const rows = Object.fromEntries(lines(plain.stdout).map((line) => line.split('\t') as [string, string]));
    expect(Object.keys(rows).sort()).toEqual(Object.keys(hedge).sort());
    expect(rows.order_tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(rows.fill_tx_hash).toBe(hedge.fill_tx_hash);
    expect(tty.stdout).toContain(hedge.order_tx_hash!);
    expect(tty.stdout).toContain(hedge.fill_tx_hash!);
    expect(tty.stdout).toContain(hedge.order_key!);
    expect(tty.stdout).toMatchSnapshot();
  });

  it('history with realized P&L and totals (a row in the table, stderr in plain mode, absent from JSON)', async () => {
    const { json, plain, tty } = await inAllModes(['history']);
    const records = parsed(wireHistorySchema.array(), json);
    expect(records).toEqual(await api(sandbox, 'GET', '/hedges/history'));
    expect(records).toHaveLength(3);
    const rows = lines(plain.stdout);
    expect(rows).toHaveLength(3);
    expect(rows.map((row) => row.split('\t')[0])).toEqual(records.map((r) => r.hedge_id));
    expect(plain.stdout).not.toMatch(/total/i);
    const netTotal = Math.round(records.reduce((sum, r) => sum + r.net_pnl_usd * 100, 0)) / 100;
    expect(plain.stderr).toContain(`Total (3 hedges)\t`);
    expect(plain.stderr).toContain(`net_pnl_usd=${netTotal}`);
    expect(tty.stdout).toContain('Total (3 hedges)');
    expect(tty.stdout).toMatchSnapshot();
  });

  it('positions: one line per open side (the submitted sell is not a position)', async () => {
    const { json, plain, tty } = await inAllModes(['positions']);
    const positions = parsed(positionSchema.array(), json);
    expect(positions).toEqual(await api(sandbox, 'GET', '/positions'));
    expect(positions.map((p) => [p.market, p.side, p.hedge_id])).toEqual([['USDTNGN', 'buy', buyId]]);
    const [row] = lines(plain.stdout).map((line) => line.split('\t'));
    const p = positions[0] as Record<string, unknown>;
    expect(row.slice(0, 11)).toEqual(
      ['market', 'side', 'notional_usd', 'entry_price', 'mark_price', 'gross_pnl_usd', 'accrued_carry_usdc', 'net_pnl_usd', 'close_fee_usdc', 'margin_usdc', 'net_margin_usd'].map((k) => String(p[k])),
    );
    expect(lines(plain.stdout)).toHaveLength(1);
    expect(tty.stdout).toMatchSnapshot();
  });

  it('account', async () => {
    const { json, plain, tty } = await inAllModes(['account']);
    const account = parsed(accountSchema, json);
    expect(account).toEqual(await api(sandbox, 'GET', '/account'));
    const rows = lines(plain.stdout).map((line) => line.split('\t'));
    expect(rows.map((row) => row[0])).toEqual([
      'balance_usdc',
      'margin_in_use_usdc',
      'open_exposure_usd',
      'unrealized_pnl_usd',
      'open_positions',
      'available_exposure_usd',
      'exposure_cap_usd',
    ]);
    expect(rows[0][1]).toBe(String(account.balance_usdc));
    expect(rows[4][1]).toBe('1');
    expect(tty.stdout).toMatchSnapshot();
  });
});
