// A key stands for one request. `--idempotency-key` naming a journal entry made for another request
// (another body, another command) is refused before anything is sent, and that entry keeps its
// outcome; a write refused for want of time under --timeout never left the machine, so its entry is
// resolved (abandoned), not left "unknown" for the next run to resume; a --ref shaped like an API key
// is bad input. Counted on the simulator's request log and the journal on disk.
import { describe, expect, it } from 'vitest';
import { useSimulators } from '../support/simulator.js';
import { exits, journalEntries } from '../support/cli-runs.js';

const startSimulator = useSimulators();

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
      await simulator.hedge(['add', 'USDTNGN', 'buy', '700', '--idempotency-key', pending!.idempotency_key]),
      2,
      `--idempotency-key: that key belongs to journal ${pending!.id}`,
      `hedge resume ${pending!.id}`,
    );
    expect(simulator.writes()).toHaveLength(writesBefore);
    const after = await journalEntries(simulator);
    expect(after.map((entry) => [entry.id, entry.outcome])).toEqual([[pending!.id, 'unknown']]);
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
    expect(closes[0]!.idempotencyKey).not.toBe(entry!.idempotency_key);
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
