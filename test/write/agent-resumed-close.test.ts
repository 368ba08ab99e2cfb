// An agent's close resumed (hedge mcp's resume tool, or `hedge resume`): the side is flat by then, yet the journal keeps
// what the close traded, so the agent's daily cap still counts it. A close sent without waiting (its entry holds the
// server's time but nothing of the side: the agent's limits read the book first) whose answer was lost although it
// landed, resumed past its key's lifetime: the side's absence is no proof either way, since what the side held at the
// send was never read. "Cannot tell" (exit 12), nothing sent, the journal left unknown; never "could not have landed",
// re-sent and journaled as rejected. Judged on the simulator's request log, its history and the journal's rows.
import { exits, journalEntries } from '../support/cli-runs.js';
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
  // --timeout on a clock hedge's pauses alone move: the wait runs it out, never the reads before the send.
  const simulator = await startSimulator({ fillDelayMs: HOUR, stepped: true, untimed: true });
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

it("an agent close with wait false, landed but unanswered: it counts what the agent's limits judged it trades; resumed 25 h later: exit 12, nothing sent, still unknown", async () => {
  const simulator = await startSimulator();
  simulator.seedOpen('buy', 4_000);
  const { call } = await startMcp(simulator, { args: ['--max-daily-notional', '5000'] });
  simulator.sandbox.setFaults({ dropAfterCommit: 1, match: { method: 'POST', path: '/hedges/close' } });
  expect(json(await call('close', { ...BUY, wait: false }))).toMatchObject({
    error: { code: 'outcome_unknown' },
  });
  simulator.sandbox.setFaults({ dropAfterCommit: 0, match: null });
  const [entry] = await journalEntries(simulator);
  expect(entry.outcome).toBe('unknown');
  // It landed: the side is closed, its record in the history.
  expect([simulator.active('buy'), simulator.historyCount()]).toEqual([[], 1]);
  const sent = simulator.requests('POST', '/hedges/close').length;

  // 4,000 unresolved and 3,000 pass the cap: refused, nothing sent.
  simulator.seedOpen('sell', 3_000);
  expect(json(await call('close', SELL))).toMatchObject(OVER_CAP);
  expect([simulator.requests('POST', '/hedges/close').length, simulator.active('sell').length]).toEqual([sent, 1]);

  simulator.advance(25 * HOUR);
  exits(
    await simulator.hedge(['resume', entry.id, '--yes']),
    12,
    'what it held when the close was sent was not read',
    'Nothing was sent',
  );
  expect(simulator.requests('POST', '/hedges/close')).toHaveLength(sent);
  expect((await journalEntries(simulator)).map((row) => [row.id, row.outcome])).toEqual([[entry.id, 'unknown']]);
});
