// Every read command against one sandbox with a known history, in the three output modes:
// --json parses, matches the schema and equals what the API answered (nothing dropped); plain
// (no TTY) has a header row of keys over the expected tab-separated rows; the forced-TTY table (80
// columns) matches a reviewed snapshot.
// The sandbox's clock is frozen and the CLI's clock pinned to it, so the snapshots are stable.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import {
  accountSchema,
  hedgeSchema,
  historyRecordSchema,
  marketSchema,
  positionSchema,
  quoteSchema,
} from '../../src/platform/api/schemas.js';
import type { RunningSandbox } from '../../src/sandbox/index.js';
import { runHedge, tempDir } from '../support/hedge-cli.js';
import { FROZEN_KEY } from '../support/keys.js';
import { apiData, pinnedClockEnv, startSimulator, type Simulator } from '../support/simulator.js';
import { printedLines as lines } from '../support/output/text.js';
import { HEDGE_COLUMNS, POSITION_COLUMNS } from './columns.js';

const priceSchema = z.looseObject({ market: z.string(), price: z.number(), timestamp: z.string() });
const wireHistorySchema = z.extend(historyRecordSchema, {
  hedge_id: z.string(),
  entry_price: z.number(),
  exit_price: z.number(),
  gross_pnl_usd: z.number(),
  carry_usdc: z.number(),
  fees_usdc: z.number(),
  closed_at: z.string(),
});

let simulator: Simulator;
let sandbox: RunningSandbox;
let config: { path: string; remove: () => void };
let buyId: string;
let sellId: string;

/**
 * The same command three ways, concurrently: --json read against `schema` and, given `wire`, equal to
 * what GET `wire` answers (nothing dropped).
 */
async function inAllModes<S extends z.ZodMiniType>(args: string, schema: S, wire?: string) {
  const env = { ...simulator.env, ...pinnedClockEnv(simulator) };
  const [json, plain, tty] = await Promise.all([
    runHedge(`${args} --json`, { env, configDir: config.path }),
    runHedge(args, { env, configDir: config.path }),
    runHedge(args, { env: { ...env, HEDGE_FORCE_TTY: '1' }, configDir: config.path }),
  ]);
  for (const result of [json, plain, tty]) expect(result.code, result.stderr).toBe(0);
  const data = JSON.parse(json.stdout);
  const check = schema.safeParse(data);
  expect(check.success, JSON.stringify(check.error?.issues)).toBe(true);
  if (wire) expect(data).toEqual(await apiData(sandbox, 'GET', wire));
  return { json, plain, tty, data: data as z.infer<S> };
}

/** TSV as records: the header row's keys over each row's cells (formats: a header row of field keys). */
function tsvRecords(text: string) {
  const [header, ...rows] = lines(text).map((line) => line.split('\t'));
  return rows.map((cells) => Object.fromEntries(header.map((key, index) => [key, cells[index]])));
}

beforeAll(async () => {
  simulator = await startSimulator({ preset: 'frozen' });
  sandbox = simulator.sandbox;
  // Three closed (settled and closed early) and one failed hedge, all in the past.
  sandbox.seedHedges({ apiKey: FROZEN_KEY, count: 3, status: 'closed' });
  sandbox.seedHedges({ apiKey: FROZEN_KEY, count: 1, status: 'failed' });
  buyId = (
    await apiData(sandbox, 'POST', '/hedges', {
      market: 'USDTNGN',
      side: 'buy',
      notional_usd: 25_000,
      tenor_days: 7,
      client_reference: 'DEAL-42',
    })
  ).id;
  // An hour later the buy has filled and carried; the sell submitted now stays `submitted` (frozen clock).
  sandbox.clock.advance(3_600_000);
  sellId = (
    await apiData(sandbox, 'POST', '/hedges', { market: 'USDTNGN', side: 'sell', notional_usd: 10_000, tenor_days: 3 })
  ).id;
  config = tempDir();
});

afterAll(async () => {
  await simulator?.close();
  config?.remove();
});

describe('read commands in every output mode', () => {
  it('markets', async () => {
    const { plain, tty, data: markets } = await inAllModes('markets', z.array(marketSchema), '/markets');
    const [m] = markets;
    expect(lines(plain.stdout)).toEqual([
      'market\tstatus\tprice\tcapacity_buy_usd\tcapacity_sell_usd\tcarry_buy_daily_pct\tcarry_sell_daily_pct',
      [
        m.market,
        m.status,
        m.price,
        m.available_capacity_usd.buy,
        m.available_capacity_usd.sell,
        m.net_rate_daily_pct.buy,
        m.net_rate_daily_pct.sell,
      ].join('\t'),
    ]);
    expect(tty.stdout).toMatchSnapshot();
  });

  it.each([
    ['price without a market lists every listed market', 'price'],
    ['price of one market', 'price USDTNGN'],
  ])('%s', async (_name, args) => {
    const { plain, tty, data } = await inAllModes(args, z.array(priceSchema), '/prices?symbols=USDTNGN');
    // --json is the server's data as it came: the list GET /prices answered, of one market here.
    const [price, ...others] = data;
    expect([price.market, others]).toEqual(['USDTNGN', []]);
    // One record: a header row of keys and one row, its time in full.
    expect(lines(plain.stdout)).toEqual(['market\tprice\ttimestamp', `USDTNGN\t${price.price}\t${price.timestamp}`]);
    expect(plain.stdout).toMatch(/\t\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z\n$/);
    expect(tty.stdout).toMatchSnapshot();
  });

  it('quote USDTNGN buy 10000 --tenor 3 (the example, exactly as typed)', async () => {
    const { json, plain, tty, data: quote } = await inAllModes('quote USDTNGN buy 10000 --tenor 3', quoteSchema);
    expect(quote).toEqual(
      await apiData(sandbox, 'POST', '/quotes', {
        market: 'USDTNGN',
        side: 'buy',
        notional_usd: 10_000,
        tenor_days: 3,
      }),
    );
    const [rows, ...more] = tsvRecords(plain.stdout);
    expect(more).toEqual([]);
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

  it('hedges lists newest first, every field in the documented column order (hashes whole)', async () => {
    const { plain, tty, data: hedges } = await inAllModes('hedges', z.array(hedgeSchema), '/hedges');
    expect(hedges).toHaveLength(6);
    expect(hedges.slice(0, 2).map((h) => h.id)).toEqual([sellId, buyId]);
    const [header, ...rows] = lines(plain.stdout).map((line) => line.split('\t'));
    expect(header).toEqual(HEDGE_COLUMNS);
    expect(rows.map((row) => row[0])).toEqual(hedges.map((h) => h.id));
    const buy = hedges[1];
    expect(rows[1]).toEqual([
      buyId,
      'DEAL-42',
      'USDTNGN',
      'buy',
      '25000',
      '7',
      'filled',
      String(buy.struck_rate),
      buy.opened_at,
      buy.maturity_at,
      buy.filled_at,
      '',
      String(buy.units),
      buy.order_key,
      buy.order_tx_hash,
      buy.fill_tx_hash,
    ]);
    expect(buy.order_tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
    // On screen the hash is shortened (0x5f12…157b), or its column left out at 80 columns.
    expect(tty.stdout).not.toContain(buy.order_tx_hash!);
    expect(tty.stdout).toMatchSnapshot();
  });

  it('hedges ID shows one hedge in full: tx hashes whole in TSV, shortened on screen', async () => {
    const { plain, tty, data: hedge } = await inAllModes(`hedges ${buyId}`, hedgeSchema, `/hedges/${buyId}`);
    const [rows, ...more] = tsvRecords(plain.stdout);
    expect(more).toEqual([]);
    // Every field the hedge has, and the known ones it lacks as empty cells (closed_at: still open).
    expect(Object.keys(rows).sort()).toEqual([...Object.keys(hedge), 'closed_at'].sort());
    for (const [key, value] of Object.entries(hedge)) expect(rows[key]).toBe(String(value));
    expect(rows.closed_at).toBe('');
    expect(rows.order_tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(rows.fill_tx_hash).toBe(hedge.fill_tx_hash);
    for (const hash of [hedge.order_tx_hash!, hedge.fill_tx_hash!, hedge.order_key!]) {
      expect(tty.stdout).not.toContain(hash);
      expect(tty.stdout).toContain(`${hash.slice(0, 6)}…${hash.slice(-4)}`);
    }
    expect(tty.stdout).toMatchSnapshot();
  });

  it('history with realized P&L and totals (a row in the table, stderr in plain mode, absent from JSON)', async () => {
    const { plain, tty, data: records } = await inAllModes('history', z.array(wireHistorySchema), '/hedges/history');
    expect(records).toHaveLength(3);
    const rows = lines(plain.stdout);
    expect(rows).toHaveLength(4);
    expect(rows[0].split('\t').slice(0, 2)).toEqual(['hedge_id', 'client_reference']);
    expect(rows.slice(1).map((row) => row.split('\t')[0])).toEqual(records.map((r) => r.hedge_id));
    expect(plain.stdout).not.toMatch(/total/i);
    const netTotal = Math.round(records.reduce((sum, r) => sum + r.net_pnl_usd * 100, 0)) / 100;
    expect(plain.stderr).toContain(`Total (3 hedges)\t`);
    expect(plain.stderr).toContain(`net_pnl_usd=${netTotal}`);
    // The totals row: its label whole, or (80 columns, the hedge id hidden) its short form.
    expect(tty.stdout).toMatch(/^Total \(3(?: hedges)?\) +340,000\.00 /m);
    expect(tty.stdout).toMatchSnapshot();
  });

  it('positions: one line per open side (the submitted sell is not a position)', async () => {
    const { plain, tty, data } = await inAllModes('positions', z.array(positionSchema));
    const listed = data as Array<Record<string, unknown>>;
    // The server's position objects untouched, every field kept; beside them, under names of
    // hedge's own, the side's references and its book: its state and its live hedge as the record shows it.
    const positions = listed.map(
      ({ side_book: _book, client_reference: _one, client_references: _all, ...sent }) => sent,
    ) as Array<z.infer<typeof positionSchema>>;
    expect(positions).toEqual(await apiData(sandbox, 'GET', '/positions'));
    expect(listed.map(({ client_reference, client_references }) => ({ client_reference, client_references }))).toEqual([
      { client_reference: 'DEAL-42', client_references: ['DEAL-42'] },
    ]);
    expect(listed.map((position) => position.side_book)).toEqual([
      {
        state: 'in-step',
        why: null,
        records_notional_usd: 25_000,
        hedges: [await apiData(sandbox, 'GET', `/hedges/${buyId}`)],
      },
    ]);
    expect(positions.map((p) => [p.market, p.side, p.hedge_id])).toEqual([['USDTNGN', 'buy', buyId]]);
    const [header, row] = lines(plain.stdout).map((line) => line.split('\t'));
    const p = positions[0] as Record<string, unknown>;
    const order = POSITION_COLUMNS;
    expect(header).toEqual(order);
    // The deal reference is the hedge's (GET /hedges), joined in; JSON stays the positions as sent.
    expect(p.client_reference).toBeUndefined();
    expect(row).toEqual(order.map((k) => (k === 'client_reference' ? 'DEAL-42' : String(p[k]))));
    expect(tty.stdout).toContain('DEAL-42');
    expect(lines(plain.stdout)).toHaveLength(2);
    expect(tty.stdout).toMatchSnapshot();
  });

  it('account', async () => {
    const { plain, tty, data: account } = await inAllModes('account', accountSchema, '/account');
    const [header, row, ...more] = lines(plain.stdout).map((line) => line.split('\t'));
    expect(more).toEqual([]);
    expect(header).toEqual([
      'balance_usdc',
      'margin_in_use_usdc',
      'open_exposure_usd',
      'unrealized_pnl_usd',
      'open_positions',
      'available_exposure_usd',
      'exposure_cap_usd',
    ]);
    expect(row[0]).toBe(String(account.balance_usdc));
    expect(row[4]).toBe('1');
    expect(tty.stdout).toMatchSnapshot();
  });
});
