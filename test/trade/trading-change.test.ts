// add, reduce (partial and whole) and close against a sandbox server, each waited until the change
// is visible, with the server's state checked afterwards; no_open_hedge is a clear exit 3.
import { describe, expect, it } from 'vitest';
import { openFilledThroughCli, useSimulators } from '../support/simulator.js';
import { ok, okJson, exits } from '../support/cli-runs.js';

const startTrading = useSimulators();

describe('hedge add / reduce / close', () => {
  it('a side of several hedges (alpha): add and reduce --json report the side after the change, whichever hedge the server booked it on', async () => {
    const trading = await startTrading({ dialect: 'alpha' });
    const first = trading.seedOpen('buy', 1000);
    const second = trading.seedOpen('buy', 500);
    const added = okJson(await trading.hedge('add USDTNGN buy 200 --json'));
    // The server booked the add on its newest hedge; the side is what a script reads either way.
    expect(trading.active('buy').map((hedge) => [hedge.id, hedge.notionalUsd])).toEqual([
      [first.id, 1000],
      [second.id, 700],
    ]);
    expect(added).toMatchObject({
      market: 'USDTNGN',
      side: 'buy',
      notional_usd: 1700,
      hedge: { id: second.id, notional_usd: 700 },
      answer: { hedge_id: second.id, action: 'add', notional_usd: 200 },
    });
    const reduced = okJson(await trading.hedge('reduce USDTNGN buy 300 --json'));
    expect(reduced).toMatchObject({
      notional_usd: 1400,
      hedge: { id: second.id, notional_usd: 400 },
      answer: { action: 'reduce', notional_usd: 300 },
    });
  });

  it('close waits until the side leaves the positions, then shows what it returned and the realized figures', async () => {
    const trading = await startTrading();
    const buyId = await openFilledThroughCli(trading, 'buy', '12000');
    const sellId = await openFilledThroughCli(trading, 'sell', '3000');
    const closed = okJson(await trading.hedge('close USDTNGN buy --json'));
    const account = Object.values(trading.sandbox.engine.state.accounts)[0]!;
    // The buy side is gone from the server's positions; the sell side is untouched.
    expect(account.hedges[buyId]!.status).toBe('closed');
    expect(Object.values(account.activeHedgeIds)).toEqual([sellId]);
    const record = account.history.find((entry) => entry.hedge_id === buyId)!;
    expect(closed).toMatchObject({ hedge_id: buyId, status: 'closed', market: 'USDTNGN', side: 'buy' });
    expect(typeof closed.net_margin_usd).toBe('number');
    // What the close returned: the 1,200 margin plus the realized P&L less the 0.05% close fee (6).
    // The CLI shows the position's last view before the close landed; the simulator's market moves
    // with real time in between, so the two agree to within that move, not to the cent.
    const credited = 1_200 + record.gross_pnl_usd - record.carry_usdc - 6;
    expect(Math.abs(closed.net_margin_usd - credited)).toBeLessThan(50);
    expect(closed.realized).toEqual(record);
    expect(closed.order_tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
    // The close was confirmed from GET /positions, polled no faster than once a second.
    const close = trading.writes().find((entry) => entry.path === '/hedges/close')!;
    const polls = trading.sandbox.requestLog.filter(
      (entry) => entry.path === '/positions' && entry.realTimeMs > close.realTimeMs,
    );
    // The close lands 100 ms after it is sent, so the first poll (a second later) already sees it;
    // then one read of the side's hedge records (every filled one, and the newest page) sees it there
    // too: the poll's list is not asked again.
    expect(polls).toHaveLength(1);
    expect(polls[0]!.realTimeMs - close.realTimeMs).toBeGreaterThanOrEqual(1000);
    expect(
      trading.sandbox.requestLog.filter(
        (entry) => entry.path === '/hedges' && entry.method === 'GET' && entry.realTimeMs > polls[0]!.realTimeMs,
      ),
    ).toHaveLength(2);
  });

  it('close on a terminal-less run prints the realized P&L lines in plain mode', async () => {
    const trading = await startTrading();
    const id = await openFilledThroughCli(trading, 'sell', '4000');
    const result = ok(await trading.hedge('close USDTNGN sell'));
    expect(result.stderr).toContain('Closed: the sell position on USDTNGN is no longer open.');
    // A record in TSV: a header row of keys and one row of values.
    const [keys, values] = result.stdout
      .trim()
      .split('\n')
      .map((line) => line.split('\t'));
    const lines = Object.fromEntries(keys!.map((key, index) => [key, values![index]!]));
    const record = Object.values(trading.sandbox.engine.state.accounts)[0]!.history[0]!;
    expect(lines.hedge_id).toBe(id);
    // The record's figures as sent: carry and fees keep the server's sign (positive = the account pays).
    for (const key of ['net_pnl_usd', 'gross_pnl_usd', 'carry_usdc', 'fees_usdc'] as const)
      expect(Number(lines[key]), key).toBe(record[key]);
    expect(lines.net_margin_usd).toMatch(/^\d+(\.\d+)?$/);
  });

  it('no_open_hedge is exit 3 with the code, a sentence and what to do next; add and reduce on a side every view shows flat send nothing', async () => {
    const trading = await startTrading();
    for (const args of [
      ['add', 'USDTNGN', 'buy', '1000'],
      ['reduce', 'USDTNGN', 'sell', '1000'],
    ]) {
      const result = exits(
        await trading.hedge(args),
        3,
        `There is no ${args[2]} hedge on USDTNGN to ${args[0]}: its hedge records and the positions list both show the side flat. Nothing was sent.`,
        'hedge positions',
      );
      expect(result.stderr).not.toMatch(/idempotency key/);
    }
    // Both views were read; nothing was journaled, nothing was sent.
    expect(trading.requests('GET', '/positions').length).toBeGreaterThanOrEqual(2);
    expect(trading.writes()).toEqual([]);
    // --skip-checks leaves it to the server, which refuses it; so does a close.
    for (const args of [
      ['add', 'USDTNGN', 'buy', '1000', '--skip-checks'],
      ['close', 'USDTNGN', 'buy'],
    ]) {
      const result = exits(
        await trading.hedge(args),
        3,
        'There is no open hedge on that market and side. (no_open_hedge, HTTP 404)',
      );
      expect(result.stderr).toMatch(/idempotency key: [0-9a-f-]{36}/);
      expect(result.stderr).toContain('hedge positions');
    }
    expect(trading.writes().map((write) => [write.path, write.status])).toEqual([
      ['/hedges/add', 404],
      ['/hedges/close', 404],
    ]);
    expect(trading.hedges()).toEqual([]);
  });

  it('--no-wait on add returns the submitted action at once', async () => {
    const trading = await startTrading();
    const id = await openFilledThroughCli(trading, 'buy', '1000');
    const before = trading.sandbox.requestLog.length;
    const result = okJson(await trading.hedge('add USDTNGN buy 1000 --no-wait --json'));
    expect(result).toMatchObject({ hedge_id: id, action: 'add', status: 'submitted' });
    // Nothing was polled after the write: no GET of the hedge, no wait.
    const after = trading.sandbox.requestLog.slice(before).map((entry) => `${entry.method} ${entry.path}`);
    // The pre-trade reads (in parallel, so in either order), the side's book (its positions line and
    // hedge records) and the quote for the addition, then the write, and nothing after it.
    expect(after.at(-1)).toBe('POST /hedges/add');
    expect(after.indexOf('POST /quotes')).toBe(after.length - 2);
    expect([...after].sort()).toEqual([
      'GET /account',
      'GET /hedges',
      'GET /hedges',
      'GET /markets',
      'GET /positions',
      'POST /hedges/add',
      'POST /quotes',
    ]);
  });
});
