// The keeper soak on trailing views (keeper-soak.ts), as long as `npm run soak:keeper -- --maturities
// 50 --kills 6 --seed S` asks: scripts/soak-keeper.mjs sets HEDGE_KEEPER_SOAK_* and the output files,
// and runs this file outside `npm test` (test/soak/vitest.config.ts), since it waits in real time.
import { describe, expect, it } from 'vitest';
import { describeKeeperSoak, estimatedRunMs, runKeeperSoak, type KeeperSoakOptions } from './keeper-soak.js';
import { soakSetting } from './soak-settings.js';

const number = (name: string) => Number(soakSetting(`HEDGE_KEEPER_SOAK_${name}`));

const options: KeeperSoakOptions = {
  seed: number('SEED'),
  maturities: number('MATURITIES'),
  kills: number('KILLS'),
  adds: number('ADDS'),
  addUsd: 250,
  // A roll is decided within a cycle of its roll_before and its close sent at once: it reaches the
  // server seconds before the maturity, and its open (shown a lag later) follows.
  dayMs: number('DAY_MS'),
  viewLagMs: number('LAG_MS'),
  settlementDelayMs: number('SETTLEMENT_DELAY_MS'),
  rollBefore: soakSetting('HEDGE_KEEPER_SOAK_ROLL_BEFORE'),
  intervalS: number('INTERVAL'),
  toleranceUsd: 0,
  sampleMs: 1_000,
  maxWallMs: 0,
  samplesFile: soakSetting('HEDGE_KEEPER_SOAK_SAMPLES'),
  keeperLogFile: soakSetting('HEDGE_KEEPER_SOAK_KEEPER_LOG'),
  log: (line: string) => console.log(line),
};
// A keeper that stops making maturities is a stall: the run gives up (a problem) at three times what it should take.
options.maxWallMs = 3 * estimatedRunMs(options) + 30_000;

describe('hedge keep soak on a server whose views trail the records, several hedges per side, late settlement', () => {
  it(
    `${options.maturities} maturities, ${options.kills} kill -9: never above target + other actors' adds, every hedge with its row's reference, no roll after settlement`,
    async () => {
      const result = await runKeeperSoak(options);
      const figures = describeKeeperSoak(result, options).join('\n');
      console.log(figures);
      expect(result.problems, figures).toEqual([]);
      expect(result.kills).toHaveLength(options.kills);
      // Both paths ran: the roll row was rolled, the settle row settled late and was re-opened.
      expect(result.maturities.rolled, figures).toBeGreaterThan(0);
      expect(result.maturities.settled, figures).toBeGreaterThan(0);
      expect(result.reopens, figures).toBeGreaterThan(0);
      // The other actor's add reached the server, so the bound's "+ what other actors added" was used.
      expect(result.adds.accepted, figures).toBeGreaterThan(0);
      expect(result.samples.length).toBeGreaterThan(0);
    },
    options.maxWallMs + 60_000,
  );
});
