// A close sent without waiting (here an agent's, whose limits read the book first, so its entry holds the server's
// time but nothing of the side) whose answer was lost although it landed, resumed past its key's lifetime: the side's
// absence is no proof either way, since what the side held at the send was never read. "Cannot tell" (exit 12),
// nothing sent, the journal left unknown; never "could not have landed", re-sent and journaled as rejected.
// Judged on the simulator's request log, its history and the journal.
import { expect, it } from 'vitest';
import { exits, journalEntries } from '../support/cli-runs.js';
import { useSimulators } from '../support/simulator.js';
import { useMcpServers } from '../support/mcp.js';
import { HOUR } from '../support/keeper.js';
import { BUY, json } from '../agent/answers.js';

const startSimulator = useSimulators();
const startMcp = useMcpServers();

it('an agent close with wait false, landed but unanswered, resumed 25 h later: exit 12, nothing sent, still unknown', async () => {
  const simulator = await startSimulator();
  simulator.seedOpen('buy', 4_000);
  const { call } = await startMcp(simulator, { args: ['--max-notional', '50000'] });
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
