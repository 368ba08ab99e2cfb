// `hedge resume` of an action that landed while its answer was lost tells one story: the book is
// read first, it shows the action landed, nothing is sent again, and the wait that follows is of
// that earlier send — never "Recorded as done; nothing was sent" and then "Submitted …".
import { describe, expect, it } from 'vitest';
import { MARKET, useSimulators } from '../support/simulator.js';
import { exits } from '../support/cli-runs.js';

const start = useSimulators();

describe('resume of an add that landed', () => {
  it('says the book shows it landed, sends nothing, and follows the earlier send to its end', async () => {
    const simulator = await start({ fillDelayMs: 100 });
    simulator.seedOpen('buy', 1_000);
    simulator.sandbox.setFaults({ dropAfterCommit: 1, match: { method: 'POST', path: '/hedges/add' } });
    exits(await simulator.hedge(['add', MARKET, 'buy', '250']), 5);
    simulator.sandbox.setFaults({ dropAfterCommit: 0, match: null });
    const writes = simulator.writes().length;

    const resumed = exits(await simulator.hedge(['resume'], { env: { HEDGE_KEY_LIFETIME: '0.0001' } }), 0);
    expect(simulator.writes()).toHaveLength(writes);
    for (const text of [
      'the book is read first, and if it is sent again',
      'The book shows it landed',
      'Nothing is sent again; following it to its end.',
      'Sent earlier: add, waiting for it to land',
      'Added 250.00 USD',
    ])
      expect(resumed.stderr).toContain(text);
    expect(resumed.stderr).not.toMatch(/Recorded as done|nothing was sent|Submitted|acts once/);
  });
});
