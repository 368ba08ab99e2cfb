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

it('gamma: a close resumed while its hedge is still `settling` exits 7 as its first run did and sends nothing; once the close lands, a resume ends it done', async () => {
  const simulator = await startSimulator({ dialect: 'gamma', fillDelayMs: HOUR });
  const hedge = simulator.seedOpen('sell', 1_000, KES);
  const first = exits(await simulator.hedge(['close', KES, 'sell', '--yes', '--timeout', '2']), 7, 'was accepted');
  const [entry] = await journalEntries(simulator);
  expect(entry.outcome).toBe('submitted');
  expect(first.stderr).toContain(`hedge resume ${entry.id}`);
  const settling = async () => (await simulator.api('GET', `/hedges/${hedge.id}`)).body.data.status;
  expect(await settling()).toBe('settling');

  const resumed = await simulator.hedge(['resume', entry.id, '--yes', '--timeout', '2']);
  exits(resumed, 7, 'the server accepted this close', 'Nothing is sent again', `hedge resume ${entry.id}`);
  expect(resumed.stderr).not.toContain('cannot be told');
  // The server received the one close, under this action's key; the hedge is still settling, nothing else moved.
  expect(simulator.requests('POST', '/hedges/close').map((write) => [write.idempotencyKey, write.status])).toEqual([
    [entry.idempotency_key, 200],
  ]);
  expect([await settling(), simulator.historyCount()]).toEqual(['settling', 0]);
  expect((await journalEntries(simulator)).map((row) => [row.id, row.outcome])).toEqual([[entry.id, 'submitted']]);

  // The close lands on the server: the next resume follows it to its end, done, one close on the server's record.
  simulator.advance(HOUR);
  ok(await simulator.hedge(['resume', entry.id, '--yes', '--timeout', '20']));
  expect([await settling(), simulator.historyCount()]).toEqual(['closed', 1]);
  expect((await journalEntries(simulator)).map((row) => [row.id, row.outcome])).toEqual([[entry.id, 'done']]);
  expect(simulator.requests('POST', '/hedges/close')).toHaveLength(1);
});

it('gamma: a whole reduce resumed while its hedge is still `settling` exits 7 as its first run did and sends nothing; once it lands, a resume ends it', async () => {
  const simulator = await startSimulator({ dialect: 'gamma', fillDelayMs: HOUR });
  const hedge = simulator.seedOpen('sell', 1_000, KES);
  // Gamma refuses the amount's first name: that request did nothing, and the reduce goes again under a key of its own.
  exits(await simulator.hedge(['reduce', KES, 'sell', '1000', '--yes', '--timeout', '2']), 7, 'was accepted');
  const entry = (await journalEntries(simulator)).find((row) => row.outcome === 'submitted')!;
  const reduces = () =>
    simulator.requests('POST', '/hedges/reduce').map((write) => [write.idempotencyKey, write.status]);
  const sent = reduces();
  expect(sent.filter(([key]) => key === entry.idempotency_key)).toEqual([[entry.idempotency_key, 200]]);
  const status = async () => (await simulator.api('GET', `/hedges/${hedge.id}`)).body.data.status;
  expect(await status()).toBe('settling');

  const resumed = await simulator.hedge(['resume', entry.id, '--yes', '--timeout', '2']);
  exits(resumed, 7, 'the server accepted this reduce', 'Nothing is sent again', `hedge resume ${entry.id}`);
  expect(resumed.stderr).not.toContain('cannot be told');
  expect([reduces(), await status()]).toEqual([sent, 'settling']);

  simulator.advance(HOUR);
  ok(await simulator.hedge(['resume', entry.id, '--yes', '--timeout', '20']));
  expect([reduces(), await status(), simulator.historyCount()]).toEqual([sent, 'closed', 1]);
  expect((await journalEntries(simulator)).find((row) => row.id === entry.id)?.outcome).toBe('done');
});
