// An ambiguous answer to a write — a 200 carrying an error, data and an error at once, a 400
// carrying data — says nothing certain about what the server did: `hedge open` ends with exit 5
// (outcome unknown) and prints the key, never "rejected"; the journal entry stays unresolved, and
// the same command again reuses its key, so the server holds one hedge. The simulator's engine acts
// before the fault rewrites its answer, so the hedge really is open each time.
import { describe, expect, it } from 'vitest';
import { useSimulators, type Simulator } from '../support/simulator.js';
import { exits, journalEntries } from '../support/cli-runs.js';

const startSimulator = useSimulators();

const OPEN = ['open', 'USDTNGN', 'buy', '10000', '--tenor', '3'];

interface Entry {
  id: string;
  command: string;
  outcome: string;
  idempotency_key: string;
  hedge_id?: string;
}

const journal = journalEntries<Entry>;

function opens(simulator: Simulator) {
  return simulator.writes().filter((entry) => entry.path === '/hedges');
}

describe('an ambiguous answer to POST /hedges', () => {
  it('200 with an error: exit 5 with the key, the entry unresolved; the same command again reuses the key — one hedge', async () => {
    const simulator = await startSimulator();
    simulator.sandbox.setFaults({
      nextMalformed: { count: 1, kind: 'error-in-200' },
      match: { method: 'POST', path: '/hedges' },
    });

    const first = exits(await simulator.hedge(OPEN), 5);
    const [sent] = opens(simulator);
    expect(opens(simulator)).toHaveLength(1);
    expect(sent!.status).toBe(200);
    expect(sent!.fault).toBe('malformed-error-in-200');
    const key = sent!.idempotencyKey!;
    expect(first.stderr).toContain(key);
    expect(first.stderr).not.toMatch(/rejected/i);
    expect(simulator.hedges()).toHaveLength(1);

    const [pending] = await journal(simulator, '--pending');
    expect(pending).toMatchObject({ command: 'open', outcome: 'unknown', idempotency_key: key });
    expect(first.stderr).toContain(`hedge resume ${pending!.id}`);

    const again = exits(await simulator.hedge([...OPEN, '--json']), 0, `Resuming the open started`, key);
    expect(opens(simulator).map((entry) => [entry.idempotencyKey, entry.status])).toEqual([
      [key, 200],
      [key, 200],
    ]);
    expect(simulator.hedges()).toHaveLength(1);
    expect(JSON.parse(again.stdout)).toMatchObject({ id: simulator.hedges()[0]!.id, status: 'filled' });
    const entries = await journal(simulator);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ id: pending!.id, outcome: 'filled', hedge_id: simulator.hedges()[0]!.id });
  });

  it.each(['data-and-error', 'data-in-400'] as const)(
    '%s: exit 5 with the key (JSON error outcome_unknown), the entry unresolved, the hedge open once',
    async (kind) => {
      const simulator = await startSimulator();
      simulator.sandbox.setFaults({ nextMalformed: { count: 1, kind }, match: { method: 'POST', path: '/hedges' } });
      const result = exits(await simulator.hedge([...OPEN, '--json']), 5);
      const key = opens(simulator)[0]!.idempotencyKey!;
      expect(JSON.parse(result.stderr)).toMatchObject({ error: { code: 'outcome_unknown', idempotency_key: key } });
      expect(await journal(simulator, '--pending')).toMatchObject([
        { command: 'open', outcome: 'unknown', idempotency_key: key },
      ]);
      expect(simulator.hedges()).toHaveLength(1);
    },
  );
});
