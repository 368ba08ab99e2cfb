// A close, or a reduce of the whole side, on a side of several hedges (the simulator's alpha dialect) bounded by
// --timeout before it lands (exit 7), then resumed once it has: the resume names every hedge the action ended and
// shows their history records' figures summed, as the first run would have, never one hedge's figures for the side.
// Judged on the simulator's own state and request log.
import { expect, it } from 'vitest';
import { exits, journalEntries, ok } from '../support/cli-runs.js';
import { MARKET, useSimulators } from '../support/simulator.js';
import { HOUR } from '../support/keeper.js';
import { expectSummedCard, summed } from './closed-card.js';

const startSimulator = useSimulators();
/** Wide enough that no card row wraps: the assertions read whole rows. */
const WIDE = { COLUMNS: '160' };

it.each([
  ['close', [] as string[], '/hedges/close'],
  ['reduce', ['1500'], '/hedges/reduce'],
])(
  'alpha: a %s of a side of two hedges resumed after it landed names both hedges and their summed figures',
  async (command, amount, path) => {
    const simulator = await startSimulator({ dialect: 'alpha', fillDelayMs: HOUR });
    const ids = [simulator.seedOpen('buy', 1_000).id, simulator.seedOpen('buy', 500).id];
    exits(await simulator.hedge([command, MARKET, 'buy', ...amount, '--yes', '--timeout', '2']), 7, 'accepted');
    const entry = (await journalEntries(simulator)).find((row) => row.outcome === 'submitted')!;
    const sent = () => simulator.requests('POST', path).map((write) => [write.idempotencyKey, write.status]);
    const before = sent();
    expect(before.filter(([key]) => key === entry.idempotency_key)).toEqual([[entry.idempotency_key, 200]]);

    simulator.advance(HOUR);
    const resumed = ok(
      await simulator.hedge(['resume', entry.id, '--yes', '--timeout', '20', '--format', 'table'], { env: WIDE }),
    );
    // Nothing sent again; both hedges ended on the server, each with its history record, 1,500 between them.
    expect([sent(), summed(simulator, ids)('notional_usd')]).toEqual([before, 1_500]);
    expectSummedCard(simulator, resumed.stdout, ids);
  },
);
