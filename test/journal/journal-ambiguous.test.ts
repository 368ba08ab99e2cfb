// One key per action, and what an answer does not tell.
// - An ambiguous answer to a write — a 200 carrying an error, data and an error at once, a 400
//   carrying data — says nothing certain about what the server did: `hedge open` ends with exit 5
//   (outcome unknown) and prints the key, never "rejected"; the journal entry stays unresolved, and
//   the same command again reuses its key, so the server holds one hedge (a re-run that then lands:
//   journal-kill.test.ts). The simulator's engine acts before the fault rewrites its answer, so the
//   hedge really is open each time.
// - A key stands for one request. `--idempotency-key` naming a journal entry made for another request
//   (another body, another command) is refused before anything is sent, and that entry keeps its
//   outcome; a write refused for want of time under --timeout never left the machine, so its entry is
//   resolved (abandoned), not left "unknown" for the next run to resume; a --ref shaped like an API key
//   is bad input.
// Counted on the simulator's request log and the journal on disk.
import { useSimulators } from '../support/simulator.js';
import { exits, journalEntries, lastJson, ok } from '../support/cli-runs.js';

const startSimulator = useSimulators({ stepped: true });

const OPEN = 'open USDTNGN buy 10000 --tenor 3';

it.each(['error-in-200', 'data-and-error', 'data-in-400'] as const)(
  'an ambiguous answer to POST /hedges, %s: exit 5 with the key and its resume command, never "rejected", the entry unresolved; run again, the same key: one hedge',
  async (kind) => {
    const simulator = await startSimulator();
    simulator.sandbox.setFaults({ nextMalformed: { count: 2, kind }, match: { method: 'POST', path: '/hedges' } });
    const first = exits(await simulator.hedge(OPEN), 5);
    const [sent] = simulator.requests('POST', '/hedges');
    expect(sent.fault).toBe(`malformed-${kind}`);
    const key = sent.idempotencyKey!;
    const [pending] = await journalEntries(simulator, '--pending');
    expect(pending).toMatchObject({ command: 'open', outcome: 'unknown', idempotency_key: key });
    for (const said of [key, `hedge resume ${pending.id}`]) expect(first.stderr).toContain(said);
    expect(first.stderr).not.toMatch(/rejected/i);
    // Run again, its answer as ambiguous: the same key, the same exit (in JSON, outcome_unknown).
    const again = exits(await simulator.hedge(`${OPEN} --json`), 5);
    expect(lastJson(again.stderr)).toMatchObject({ error: { code: 'outcome_unknown', idempotency_key: key } });
    expect(simulator.requests('POST', '/hedges').map((entry) => entry.idempotencyKey)).toEqual([key, key]);
    expect(simulator.hedges()).toHaveLength(1);
  },
);

it('a write refused before it was sent: a --ref shaped like an API key is bad input, exit 2 naming --ref, no request at all; an --idempotency-key from an entry with another body, exit 2, that entry keeping its outcome; --timeout too short for the write: exit 5 saying nothing was sent, the entry abandoned and the next run starting afresh', async () => {
  const simulator = await startSimulator();
  const result = exits(
    await simulator.hedge('open USDTNGN buy 1000 --tenor 3 --ref desk_live_20240101abcd'),
    2,
    '--ref: the reference looks like an API key',
  );
  expect(result.stderr).not.toContain('desk_live_20240101abcd');
  expect(simulator.requests()).toHaveLength(0);

  // --idempotency-key names one request: a key from an entry with another body is refused (exit 2), nothing is sent,
  // and that entry keeps its outcome.
  simulator.seedOpen('buy', 10_000);
  // An add answered 5xx on every attempt: its outcome unknown, its entry unresolved, with its key.
  simulator.sandbox.setFaults({ next5xx: 5, match: { method: 'POST', path: '/hedges/add' } });
  exits(await simulator.hedge('add USDTNGN buy 500'), 5);
  const [pending] = await journalEntries(simulator);
  expect(pending).toMatchObject({ command: 'add', outcome: 'unknown' });
  const writesBefore = simulator.writes().length;

  exits(
    await simulator.hedge(`add USDTNGN buy 700 --idempotency-key ${pending.idempotency_key}`),
    2,
    `--idempotency-key: that key belongs to journal ${pending.id}`,
    `hedge resume ${pending.id}`,
  );
  expect(simulator.writes()).toHaveLength(writesBefore);
  const after = await journalEntries(simulator);
  expect(after.map((entry) => [entry.id, entry.outcome])).toEqual([[pending.id, 'unknown']]);

  simulator.seedOpen('sell', 5_000);
  const short = exits(await simulator.hedge('close USDTNGN sell --no-wait --timeout 0.5'), 5, 'nothing was sent');
  expect(short.stderr).not.toContain('outcome is unknown');
  expect(simulator.writes()).toHaveLength(writesBefore);
  const [entry] = await journalEntries(simulator);
  expect(entry).toMatchObject({ command: 'close', outcome: 'abandoned' });

  const again = ok(await simulator.hedge('close USDTNGN sell --no-wait'));
  expect(again.stderr).not.toContain('Resuming');
  const closes = simulator.requests('POST', '/hedges/close');
  expect(closes).toHaveLength(1);
  expect(closes[0].idempotencyKey).not.toBe(entry.idempotency_key);
});
