// The report over what our simulator really serves: closed hedges from GET /hedges/history and an
// open position from GET /positions, read by the tolerant readers, reconcile to the cent.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readHistoryRecord, readPosition } from '../../src/platform/api/wire/fields.js';
import { REPORT_GROUPINGS, buildReport } from '../../src/features/report/report-rules.js';
import type { RunningSandbox } from '../../src/sandbox/index.js';
import { startSimulator, type Simulator } from '../support/simulator.js';

let simulator: Simulator | undefined;
let sandbox: RunningSandbox;

async function get(path: string) {
  const response = await fetch(`${sandbox.baseUrl}${path}`, { headers: { authorization: `Bearer ${sandbox.apiKey}` } });
  const envelope = (await response.json()) as { data: Array<Record<string, unknown>> };
  expect(response.status).toBe(200);
  return envelope.data;
}

beforeAll(async () => {
  // Real time frozen: the simulator's clock moves only by advance(), so carry cannot accrue between
  // two reads of the same position.
  const frozenRealTime = Date.UTC(2026, 10, 22, 8);
  simulator = await startSimulator({ preset: 'quick', seed: 'report-test', realNow: () => frozenRealTime });
  sandbox = simulator.sandbox;
  sandbox.seedHedges({ apiKey: sandbox.apiKey, count: 120 });
  const opened = await fetch(`${sandbox.baseUrl}/hedges`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${sandbox.apiKey}`,
      'content-type': 'application/json',
      'idempotency-key': 'report-open',
    },
    body: JSON.stringify({ market: 'USDTNGN', side: 'buy', notional_usd: 50_000, tenor_days: 7 }),
  });
  expect(opened.status).toBe(200);
  sandbox.clock.advance(3_600_000);
});

afterAll(async () => {
  await simulator?.close();
});

describe('report over the simulator', () => {
  it("totals equal the sum of the records' net_pnl_usd, and the groups the totals, for every --by", async () => {
    const raw = await get('/hedges/history?limit=500');
    expect(raw).toHaveLength(120);
    const exactNetCents = raw.reduce((sum, record) => sum + Math.round((record.net_pnl_usd as number) * 100), 0);
    const facts = raw.map(readHistoryRecord);
    for (const by of REPORT_GROUPINGS) {
      const report = buildReport(facts, [], { by });
      expect(report.excluded, by).toBe(0);
      expect(report.totals.count, by).toBe(120);
      expect(Math.round(report.totals.net_pnl_usd * 100), by).toBe(exactNetCents);
      expect(
        report.groups.reduce((sum, group) => sum + Math.round(group.net_pnl_usd * 100), 0),
        by,
      ).toBe(exactNetCents);
      expect(report.missing, by).toEqual({ notional_usd: 0, gross_pnl_usd: 0, carry_usdc: 0, fees_usdc: 0 });
    }
  });

  it('every figure of a simulator record is read', async () => {
    const [record] = await get('/hedges/history?limit=1');
    expect(readHistoryRecord(record)).toEqual({
      hedgeId: record.hedge_id,
      market: record.market,
      side: record.side,
      notionalUsd: record.notional_usd,
      tenorDays: record.tenor_days,
      openedAt: record.opened_at,
      closedAt: record.closed_at,
      ...(record.client_reference === undefined ? {} : { clientReference: record.client_reference }),
      entryPrice: record.entry_price,
      exitPrice: record.exit_price,
      grossPnlUsd: record.gross_pnl_usd,
      // Carry and fees on the account's side: the server's positive (paid) is negative.
      carryUsd: -(record.carry_usdc as number),
      feesUsd: -(record.fees_usdc as number),
      netPnlUsd: record.net_pnl_usd,
    });
  });

  it("the open position's unrealized P&L is the account's", async () => {
    const positions = await get('/positions');
    expect(positions).toHaveLength(1);
    const report = buildReport(
      [],
      positions.map((position) => ({ netPnlUsd: readPosition(position).netPnlUsd })),
      { by: 'side' },
    );
    const account = (await fetch(`${sandbox.baseUrl}/account`, {
      headers: { authorization: `Bearer ${sandbox.apiKey}` },
    }).then((response) => response.json())) as { data: { unrealized_pnl_usd: number } };
    expect(report.unrealized).toEqual({ positions: 1, net_pnl_usd: account.data.unrealized_pnl_usd });
  });
});
