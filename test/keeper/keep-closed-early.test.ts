// A colleague's early close of a kept side, between two keeper cycles, on the reference dialect (the hedge shows
// `closed`) and on alpha (it stays `filled` on GET /hedges; only the history says it ended): on both the close stands
// (drift, change "open") and no re-open is sent. Asserted on the simulator's request log.
import { describe, expect, it } from 'vitest';
import { keepOnce, writeTarget } from '../support/keeper.js';
import { MARKET, useSimulators } from '../support/simulator.js';
import { tempFolders } from '../support/hedge-cli.js';
import { eventIs } from './filled.js';

const startSimulator = useSimulators({ stepped: true });
const colleagueDir = tempFolders('hedge-colleague-');

describe("hedge keep after a colleague's early close", () => {
  it.each(['reference', 'alpha'] as const)(
    '%s: the kept buy side closed from another config dir is left flat as drift, no POST /hedges sent',
    async (dialect) => {
      const simulator = await startSimulator({ dialect });
      const hedge = simulator.seedOpen('buy', 1_000);
      const file = writeTarget(simulator, ['USDTNGN,buy,1000,7,,']);
      await keepOnce(simulator, file);
      const closed = await simulator.hedge(['close', MARKET, 'buy', '--yes'], { configDir: colleagueDir() });
      expect(closed.code, closed.stderr).toBe(0);
      expect(simulator.active('buy')).toHaveLength(0);
      expect((await keepOnce(simulator, file, 0, '--json')).find(eventIs('drift'))).toMatchObject({
        side: 'buy',
        change: 'open',
        hedge_ids: [hedge.id],
      });
      expect(simulator.requests('POST', '/hedges')).toEqual([]);
      expect(simulator.active('buy')).toHaveLength(0);
    },
  );
});
