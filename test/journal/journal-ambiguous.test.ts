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
// - `hedge resume` of an action that landed while its answer was lost tells one story: the book is
//   read first, it shows the action landed, nothing is sent again, and the wait that follows is of
//   that earlier send — never "Recorded as done; nothing was sent" and then "Submitted …".
// Counted on the simulator's request log and the journal on disk.
import { describe, expect, it } from 'vitest';
import { MARKET, useSimulators, type Simulator } from '../support/simulator.js';
import { exits, journalEntries, lastJson } from '../support/cli-runs.js';

const startSimulator = useSimulators();

const OPEN = ['open', 'USDTNGN', 'buy', '10000', '--tenor', '3'];

function opens(simulator: Simulator) {
  return simulator.writes().filter((entry) => entry.path === '/hedges');
}

describe('an ambiguous answer to POST /hedges', () => {
  it.each(['error-in-200', 'data-and-error', 'data-in-400'] as const)(
    '%s: exit 5 with the key and its resume command, never "rejected", the entry unresolved; run again, the same key: one hedge',
    async (kind) => {
      const simulator = await startSimulator();
      simulator.sandbox.setFaults({ nextMalformed: { count: 2, kind }, match: { method: 'POST', path: '/hedges' } });
      const first = exits(await simulator.hedge(OPEN), 5);
      const [sent] = opens(simulator);
      expect(sent.fault).toBe(`malformed-${kind}`);
      const key = sent.idempotencyKey!;
      const [pending] = await journalEntries(simulator, '--pending');
      expect(pending).toMatchObject({ command: 'open', outcome: 'unknown', idempotency_key: key });
      for (const said of [key, `hedge resume ${pending.id}`]) expect(first.stderr).toContain(said);
      expect(first.stderr).not.toMatch(/rejected/i);
      // Run again, its answer as ambiguous: the same key, the same exit (in JSON, outcome_unknown).
      const again = exits(await simulator.hedge([...OPEN, '--json']), 5);
      expect(lastJson(again.stderr)).toMatchObject({ error: { code: 'outcome_unknown', idempotency_key: key } });
      expect(opens(simulator).map((entry) => entry.idempotencyKey)).toEqual([key, key]);
      expect(simulator.hedges()).toHaveLength(1);
    },
  );
});

describe('--idempotency-key names one request', () => {
  it('a key from an entry with another body is refused (exit 2), nothing is sent, and that entry keeps its outcome', async () => {
    const simulator = await startSimulator();
    simulator.seedOpen('buy', 10_000);
    // An add answered 5xx on every attempt: its outcome unknown, its entry unresolved, with its key.
    simulator.sandbox.setFaults({ next5xx: 5, match: { method: 'POST', path: '/hedges/add' } });
    exits(await simulator.hedge(['add', 'USDTNGN', 'buy', '500']), 5);
    const [pending] = await journalEntries(simulator);
    expect(pending).toMatchObject({ command: 'add', outcome: 'unknown' });
    const writesBefore = simulator.writes().length;

    exits(
      await simulator.hedge(['add', 'USDTNGN', 'buy', '700', '--idempotency-key', pending.idempotency_key]),
      2,
      `--idempotency-key: that key belongs to journal ${pending.id}`,
      `hedge resume ${pending.id}`,
    );
    expect(simulator.writes()).toHaveLength(writesBefore);
    const after = await journalEntries(simulator);
    expect(after.map((entry) => [entry.id, entry.outcome])).toEqual([[pending.id, 'unknown']]);
  });
});

describe('a write refused before it was sent', () => {
  it('--timeout too short for the write: exit 5 saying nothing was sent; the entry is abandoned and the next run starts afresh', async () => {
    const simulator = await startSimulator();
    simulator.seedOpen('sell', 5_000);
    const short = exits(
      await simulator.hedge(['close', 'USDTNGN', 'sell', '--no-wait', '--timeout', '0.5']),
      5,
      'nothing was sent',
    );
    expect(short.stderr).not.toContain('outcome is unknown');
    expect(simulator.writes()).toHaveLength(0);
    const [entry] = await journalEntries(simulator);
    expect(entry).toMatchObject({ command: 'close', outcome: 'abandoned' });

    const again = exits(await simulator.hedge(['close', 'USDTNGN', 'sell', '--no-wait']), 0);
    expect(again.stderr).not.toContain('Resuming');
    const closes = simulator.writes().filter((request) => request.path === '/hedges/close');
    expect(closes).toHaveLength(1);
    expect(closes[0].idempotencyKey).not.toBe(entry.idempotency_key);
  });
});

describe('--ref shaped like an API key', () => {
  it('is bad input: exit 2 naming --ref, no request at all', async () => {
    const simulator = await startSimulator();
    const result = exits(
      await simulator.hedge(['open', 'USDTNGN', 'buy', '1000', '--tenor', '3', '--ref', 'desk_live_20240101abcd']),
      2,
      '--ref: the reference looks like an API key',
    );
    expect(result.stderr).not.toContain('desk_live_20240101abcd');
    expect(simulator.requests()).toHaveLength(0);
  });
});

describe('resume of an add that landed', () => {
  it('says the book shows it landed, sends nothing, and follows the earlier send to its end', async () => {
    const simulator = await startSimulator({ fillDelayMs: 100 });
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
