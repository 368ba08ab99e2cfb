// A close (or a whole reduce) on a server that shows a hedge in a status of its own while the close
// lands (the simulator's gamma dialect: `settling`), bounded by --timeout before it lands: the first
// run exits 7 (accepted, not settled yet). Its resume, while the server still shows the hedge
// settling, is the same outcome: the server's answer to this action (journaled) proves it was
// accepted, and the settling side is it landing, so the resume follows it without sending it again —
// exit 7, never "cannot tell". Judged on the simulator's own state and request log.
import { expect, it } from 'vitest';
import { exits, journalEntries, ok } from '../support/cli-runs.js';
import { useSimulators } from '../support/simulator.js';
import { HOUR } from '../support/keeper.js';

const startSimulator = useSimulators({ stepped: true });
// Gamma lists USDTNGN disabled.
const KES = 'USDTKES';

it.each([
  [
    'gamma: a close resumed while its hedge is still `settling` exits 7 as its first run did and sends nothing; once the close lands, a resume ends it done',
    'close',
    [],
    [],
  ],
  // Gamma refuses the amount's first name: that request did nothing (journaled rejected), and the reduce goes again
  // under a key of its own.
  [
    'gamma: a whole reduce resumed while its hedge is still `settling` exits 7 as its first run did and sends nothing; once it lands, a resume ends it',
    'reduce',
    ['1000'],
    [400],
  ],
])('%s', async (_name, command, amount, refused) => {
  const simulator = await startSimulator({ dialect: 'gamma', fillDelayMs: HOUR });
  const hedge = simulator.seedOpen('sell', 1_000, KES);
  const first = exits(
    await simulator.hedge([command, KES, 'sell', ...amount, '--yes', '--timeout', '2']),
    7,
    'was accepted',
  );
  const [entry] = await journalEntries(simulator);
  expect(first.stderr).toContain(`hedge resume ${entry.id}`);
  /** The server's status of the hedge, its history's length, the action's requests and the journal's rows. */
  const state = async () => [
    (await simulator.api('GET', `/hedges/${hedge.id}`)).body.data.status,
    simulator.historyCount(),
    simulator.requests('POST', `/hedges/${command}`).map((write) => [write.idempotencyKey, write.status]),
    (await journalEntries(simulator)).map((row) => [row.id, row.outcome]),
  ];
  const sent = [
    ...refused.map((status) => [expect.not.stringContaining(entry.idempotency_key), status]),
    [entry.idempotency_key, 200],
  ];
  const rejected = refused.map(() => [expect.any(String), 'rejected']);
  const settling = ['settling', 0, sent, [[entry.id, 'submitted'], ...rejected]];
  expect(await state()).toEqual(settling);

  const resumed = await simulator.hedge(['resume', entry.id, '--yes', '--timeout', '2']);
  exits(resumed, 7, `the server accepted this ${command}`, 'Nothing is sent again', `hedge resume ${entry.id}`);
  expect(resumed.stderr).not.toContain('cannot be told');
  // Nothing sent again, under any key; the hedge is still settling, nothing else moved.
  expect(await state()).toEqual(settling);

  // It lands on the server: the next resume follows it to its end, done, one record in the server's history.
  simulator.advance(HOUR);
  ok(await simulator.hedge(['resume', entry.id, '--yes', '--timeout', '20']));
  expect(await state()).toEqual(['closed', 1, sent, [[entry.id, 'done'], ...rejected]]);
});
