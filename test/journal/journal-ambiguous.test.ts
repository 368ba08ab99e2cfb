// An ambiguous answer to a write — a 200 carrying an error, data and an error at once, a 400
// carrying data — says nothing certain about what the server did: `hedge open` ends with exit 5
// (outcome unknown) and prints the key, never "rejected"; the journal entry stays unresolved, and
// the same command again reuses its key, so the server holds one hedge (a re-run that then lands:
// journal-kill.test.ts). The simulator's engine acts
// before the fault rewrites its answer, so the hedge really is open each time.
import { describe, expect, it } from 'vitest';
import { useSimulators, type Simulator } from '../support/simulator.js';
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
      expect(sent!.fault).toBe(`malformed-${kind}`);
      const key = sent!.idempotencyKey!;
      const [pending] = await journalEntries(simulator, '--pending');
      expect(pending).toMatchObject({ command: 'open', outcome: 'unknown', idempotency_key: key });
      for (const said of [key, `hedge resume ${pending!.id}`]) expect(first.stderr).toContain(said);
      expect(first.stderr).not.toMatch(/rejected/i);
      // Run again, its answer as ambiguous: the same key, the same exit (in JSON, outcome_unknown).
      const again = exits(await simulator.hedge([...OPEN, '--json']), 5);
      expect(lastJson(again.stderr)).toMatchObject({ error: { code: 'outcome_unknown', idempotency_key: key } });
      expect(opens(simulator).map((entry) => entry.idempotencyKey)).toEqual([key, key]);
      expect(simulator.hedges()).toHaveLength(1);
    },
  );
});
