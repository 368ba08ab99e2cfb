// The concurrent-history checker (history.ts) as part of the suite: a few short histories on fixed
// seeds inside `npm test`; `npm run chaos -- --histories N --seed S` runs as many as asked (the
// runner sets HEDGE_CHAOS_HISTORIES and HEDGE_CHAOS_SEED). A failing history prints its seed and
// every step, so it can be replayed alone.
import { describe, expect, it } from 'vitest';
import { describeHistory, runHistory } from './history.js';

const histories = Number(process.env.HEDGE_CHAOS_HISTORIES ?? 2);
const firstSeed = Number(process.env.HEDGE_CHAOS_SEED ?? 36);
const actors = (seed: number) => 2 + (seed % 3);

describe('random concurrent histories on one side, judged by the server', () => {
  it(`${histories} histories from seed ${firstSeed}: notional, exit 0s and journal agree with the server`, async () => {
    const failures: string[] = [];
    const summary: string[] = [];
    for (let seed = firstSeed; seed < firstSeed + histories; seed++) {
      const result = await runHistory({ seed, actors: actors(seed), opsPerActor: Number(process.env.HEDGE_CHAOS_OPS ?? 3), killShare: 0.25 });
      summary.push(`seed ${seed}: ${result.ops.length} actions, ${result.ops.filter((op) => op.killAfterMs !== undefined).length} killed, ${result.problems.length === 0 ? 'ok' : 'FAILED'}`);
      if (result.problems.length > 0) failures.push(describeHistory(result));
    }
    if (process.env.HEDGE_CHAOS_HISTORIES) console.log(summary.join('\n'));
    expect(failures, failures.join('\n\n')).toEqual([]);
  }, 600_000 * Math.max(1, Math.ceil(histories / 4)));
});
