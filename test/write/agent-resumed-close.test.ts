// An agent's close resumed after it landed (hedge mcp's resume tool): the side is flat by then, yet the journal keeps
// what the close traded, so the agent's daily cap still counts it. Judged on the simulator's request log and the
// journal's rows.
import { expect, it } from 'vitest';
import { useSimulators } from '../support/simulator.js';
import { useMcpServers } from '../support/mcp.js';
import { HOUR } from '../support/keeper.js';
import { BUY, expectDone, journal, json, SELL } from '../agent/answers.js';

const startSimulator = useSimulators();
const startMcp = useMcpServers();
/** 4,000 counted and 3,000 asked: over the daily cap of 5,000. */
const OVER_CAP = {
  error: { code: 'max_daily_notional_exceeded', details: { used_last_24h_usd: 4_000, this_call_usd: 3_000 } },
};

it("a close of 4,000 resumed once it landed still counts 4,000 toward the agent's daily cap of 5,000", async () => {
  const simulator = await startSimulator({ fillDelayMs: HOUR });
  simulator.seedOpen('buy', 4_000);
  const { call } = await startMcp(simulator, { args: ['--max-daily-notional', '5000', '--timeout', '2'] });
  const rows = async () => (await journal(simulator)).map((row) => [row.outcome, row.traded_usd]);

  // Accepted, not landed within --timeout: exit 7, the entry journaled with what it trades.
  expect(json(await call('close', BUY))).toMatchObject({ exit_code: 7 });
  const [entry] = await journal(simulator);
  expect(await rows()).toEqual([['submitted', 4_000]]);

  simulator.advance(HOUR);
  const resumed = await call('resume', { id: entry.id });
  expectDone(resumed);
  expect(await rows()).toEqual([['done', 4_000]]);

  // 4,000 and 3,000 pass the cap: refused, nothing sent.
  simulator.seedOpen('sell', 3_000);
  expect(json(await call('close', SELL))).toMatchObject(OVER_CAP);
  expect(simulator.requests('POST', '/hedges/close').map((write) => write.idempotencyKey)).toEqual([
    entry.idempotency_key,
  ]);
});

it("a close not waited for whose answer was lost (it landed) counts what the agent's limits judged it trades", async () => {
  const simulator = await startSimulator();
  simulator.seedOpen('buy', 4_000);
  const { call } = await startMcp(simulator, { args: ['--max-daily-notional', '5000'] });
  simulator.sandbox.setFaults({ dropAfterCommit: 1, match: { method: 'POST', path: '/hedges/close' } });
  expect(json(await call('close', { ...BUY, wait: false }))).toMatchObject({
    error: { code: 'outcome_unknown' },
  });
  simulator.sandbox.setFaults({ dropAfterCommit: 0, match: null });
  expect([simulator.active('buy'), simulator.historyCount()]).toEqual([[], 1]);
  const sent = simulator.requests('POST', '/hedges/close').length;

  // 4,000 unresolved and 3,000 pass the cap: refused, nothing sent.
  simulator.seedOpen('sell', 3_000);
  expect(json(await call('close', SELL))).toMatchObject(OVER_CAP);
  expect([simulator.requests('POST', '/hedges/close').length, simulator.active('sell').length]).toEqual([sent, 1]);
});
