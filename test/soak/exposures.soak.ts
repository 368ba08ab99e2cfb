// The exposures soak (exposures-soak.ts), as long as `npm run soak -- --days 90 --seed S --kills K`
// asks: scripts/soak-exposures.mjs sets HEDGE_SOAK_* and the samples file, and runs this file outside
// `npm test` (test/soak/vitest.config.ts), since it waits in real time.
import { describeSoak, runExposuresSoak, soakOptions } from './exposures-soak.js';

const options = soakOptions();
const boundMs = ((options.days * 86_400_000) / options.clockSpeed) * 1.5 + 60_000;

describe('hedge keep --exposures soak on a fast clock, judged by the server', () => {
  it(
    `${options.days} server days, ${options.kills} kill -9: within the band, never above it, flat after the last due date, the report reconciles`,
    async () => {
      const result = await runExposuresSoak(options);
      const figures = describeSoak(result, options);
      console.log(figures.join('\n'));
      expect(result.problems, figures.join('\n')).toEqual([]);
      expect(result.kills).toBe(options.kills);
      expect(result.cycleSamples).toBeGreaterThan(3);
      // The keeper traded: the book was not flat all along, and history holds what it closed.
      expect(result.samples.some((sample) => sample.heldBuy > 0)).toBe(true);
      expect(result.report.closedHedges).toBeGreaterThan(0);
    },
    boundMs,
  );
});
