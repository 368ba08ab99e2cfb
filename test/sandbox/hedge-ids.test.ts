// Hedge ids: unique across simulator restarts (a script's log must not see the same id twice from
// two test runs), sorted by creation; reproducible on a seeded, frozen simulator (trailing-views.test.ts
// compares the hedge lists of two such simulators).
import { describe, expect, it } from 'vitest';
import { openBody } from '../support/engine.js';
import { api, useSimulators } from '../support/simulator.js';

const start = useSimulators();

const ID = /^hdg_[a-z0-9]{24}$/;

async function openId(
  simulator: Awaited<ReturnType<typeof start>>,
  side: 'buy' | 'sell',
  key: string,
): Promise<string> {
  const opened = await api(simulator.sandbox, 'POST', '/hedges', { body: openBody(side, 10_000), idempotencyKey: key });
  expect(opened.status, JSON.stringify(opened.body)).toBe(200);
  return opened.body.data.id as string;
}

describe('sandbox hedge ids', () => {
  it('two starts, even on one frozen clock without a seed, give different ids of one shape (the random part)', async () => {
    const now = () => Date.parse('2026-03-02T09:00:00.000Z');
    const first = await openId(await start({ preset: 'plain', realNow: now }), 'buy', 'k-1');
    const second = await openId(await start({ preset: 'plain', realNow: now }), 'buy', 'k-1');
    // Same instant, same default seed: only the per-start random part tells them apart.
    expect([first, second]).toEqual([expect.stringMatching(ID), expect.stringMatching(ID)]);
    expect(first.slice(0, 13)).toBe(second.slice(0, 13));
    expect(second).not.toBe(first);
  });

  it('ids sort in creation order, also within one instant of sandbox time', async () => {
    const simulator = await start({ preset: 'frozen' });
    const ids: string[] = [];
    for (const [index, side] of (['buy', 'sell'] as const).entries())
      ids.push(await openId(simulator, side, `k-${index}`));
    simulator.advance(3_600_000);
    await api(simulator.sandbox, 'POST', '/hedges/close', {
      body: { market: 'USDTNGN', side: 'buy' },
      idempotencyKey: 'c-1',
    });
    simulator.advance(3_600_000);
    ids.push(await openId(simulator, 'buy', 'k-9'));
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
