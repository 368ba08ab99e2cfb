import { describe, expect, it } from 'vitest';

import { openBody } from '../support/engine.js';
import { useSimulators } from '../support/simulator.js';
import { post, read } from './http-calls.js';

const simulators = useSimulators();

describe('sandbox lifecycle over HTTP', () => {
  it('a fast clock settles a 7-day hedge in real milliseconds', async () => {
    let real = 1_700_000_000_000;
    const { sandbox } = await simulators({ preset: 'quick', fillDelayMs: 50, clockSpeed: 10_000, realNow: () => real });
    const opened = await post(sandbox, '/hedges', openBody('buy', 10_000, 7));
    // 7 days at 10,000x is about a minute of real time.
    real += 61_000;
    const hedge = await read(sandbox, `/hedges/${opened.body.data.id}`);
    expect(hedge.status).toBe('closed');
  });
});
