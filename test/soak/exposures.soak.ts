// The exposures soak (exposures-soak.ts), as long as `npm run soak -- --days 90 --seed S --kills K`
// asks: scripts/soak-exposures.mjs sets HEDGE_SOAK_* and the samples file, and runs this file outside
// `npm test` (test/soak/vitest.config.ts), since it waits in real time.
import { describe, expect, it } from 'vitest';
import {
  describeSoak,
  NINETY_DAY_SCHEDULE,
  runExposuresSoak,
  SHORT_SCHEDULE,
  type SoakOptions,
} from './exposures-soak.js';
import { soakSetting } from './soak-settings.js';

const days = Number(soakSetting('HEDGE_SOAK_DAYS'));
const options: SoakOptions = {
  days,
  seed: Number(soakSetting('HEDGE_SOAK_SEED')),
  kills: Number(soakSetting('HEDGE_SOAK_KILLS')),
  clockSpeed: Number(soakSetting('HEDGE_SOAK_CLOCK_SPEED')),
  intervalS: Number(soakSetting('HEDGE_SOAK_INTERVAL')),
  // The 90-day shape (three buckets, seven rows) from 30 days up; a few rows for a short soak.
  schedule: days >= 30 ? NINETY_DAY_SCHEDULE : SHORT_SCHEDULE,
  samplesFile: soakSetting('HEDGE_SOAK_SAMPLES'),
  keeperLogFile: soakSetting('HEDGE_SOAK_KEEPER_LOG'),
  log: (line) => console.log(line),
};
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
