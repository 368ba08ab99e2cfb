// The keeper soak on trailing views (keeper-soak.ts), as long as `npm run soak:keeper -- --maturities
// 50 --kills 6 --seed S` asks: scripts/soak-keeper.mjs sets HEDGE_KEEPER_SOAK_* and the output files,
// and runs this file outside `npm test` (test/soak/vitest.config.ts), since it waits in real time.
import { describeKeeperSoak, keeperSoakOptions, maxWallMs, runKeeperSoak } from './keeper-soak.js';

const options = keeperSoakOptions();

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
    maxWallMs(options) + 60_000,
  );
});
