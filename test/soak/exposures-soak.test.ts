// The exposures soak (exposures-soak.ts) inside the suite: a few server days on a fast clock, the
// real keeper killed with SIGKILL once and started again, every check the 90-day run makes.
// `npm run soak -- --days 90 --seed S --kills K` runs it as long as asked (scripts/soak-exposures.mjs
// sets HEDGE_SOAK_* and the samples file), printing the figures.
import { describe, expect, it } from 'vitest';
import {
  describeSoak,
  NINETY_DAY_SCHEDULE,
  runExposuresSoak,
  SHORT_SCHEDULE,
  type SoakOptions,
} from './exposures-soak.js';

const long = process.env.HEDGE_SOAK_DAYS !== undefined;
const days = Number(process.env.HEDGE_SOAK_DAYS ?? 2);
const options: SoakOptions = {
  days,
  seed: Number(process.env.HEDGE_SOAK_SEED ?? 39),
  kills: Number(process.env.HEDGE_SOAK_KILLS ?? 1),
  // Short: 2 server days in ≈ 15 s of real time; long: as the runner says (default 2 server hours a second).
  clockSpeed: Number(process.env.HEDGE_SOAK_CLOCK_SPEED ?? (long ? 7200 : 12_000)),
  // Short: a 3 s cycle, so that the kill's restart (up to 1 s, the start, the 0.5 s clock probe)
  // stays within the two-cycle lead on a loaded machine too; the runner's default is 2.
  intervalS: Number(process.env.HEDGE_SOAK_INTERVAL ?? (long ? 2 : 3)),
  // The 90-day shape (three buckets, seven rows) from 30 days up; a few rows for a short soak.
  schedule: days >= 30 ? NINETY_DAY_SCHEDULE : SHORT_SCHEDULE,
  ...(process.env.HEDGE_SOAK_SAMPLES ? { samplesFile: process.env.HEDGE_SOAK_SAMPLES } : {}),
  ...(process.env.HEDGE_SOAK_KEEPER_LOG ? { keeperLogFile: process.env.HEDGE_SOAK_KEEPER_LOG } : {}),
  ...(long ? { log: (line: string) => console.log(line) } : {}),
};
const boundMs = ((options.days * 86_400_000) / options.clockSpeed) * 1.5 + 60_000;

describe('hedge keep --exposures soak on a fast clock, judged by the server', () => {
  it(
    `${options.days} server days, ${options.kills} kill -9: within the band, never above it, flat after the last due date, the report reconciles`,
    async () => {
      const result = await runExposuresSoak(options);
      const figures = describeSoak(result, options);
      if (long) console.log(figures.join('\n'));
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
