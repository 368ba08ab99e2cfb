// A keeper against a server that ignores the page size and serves one page of 50 (alpha): a side whose filled hedges
// lie past that page is never read as short of its target (no second hedge), and is said at once as one that cannot
// be told, with what to set. Asserted on the simulator's request log.
import { describe, expect, it } from 'vitest';
import { lines, writeTarget } from '../support/keeper.js';
import { useSimulators } from '../support/simulator.js';
import { eventIs } from './filled.js';

const startSimulator = useSimulators({ stepped: true });

describe('hedge keep on a side past the 50 hedges alpha reads', () => {
  it('51 filled buy hedges kept at their 51,000: held, said at once as cannot tell naming HEDGE_WIRE_PAGE_SIZE_PARAM (--once exit 12), no write sent', async () => {
    const simulator = await startSimulator({ dialect: 'alpha' });
    for (let count = 0; count < 51; count++) simulator.seedOpen('buy', 1_000);
    const keep = await simulator.hedge(['keep', writeTarget(simulator, ['USDTNGN,buy,51000,7,,']), '--once', '--json']);
    expect(keep.code, keep.stderr + keep.stdout).toBe(12);
    const said = `${keep.stdout}\n${keep.stderr}`;
    expect(said).toMatch(
      /The buy side of USDTNGN cannot be told: the hedge records may be cut at 50 filled hedges.*Nothing was sent/,
    );
    expect(said).toMatch(/HEDGE_WIRE_PAGE_SIZE_PARAM/);
    expect(lines(keep.stdout).find(eventIs('cycle'))!.rows[0]).toMatchObject({
      current_unknown: true,
      state: expect.stringMatching(/^settling: /),
    });
    expect(simulator.requests('POST').filter((entry) => entry.path !== '/quotes')).toEqual([]);
  });
});
