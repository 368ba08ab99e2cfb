// The keeper soak on trailing views (keeper-soak.ts) inside the suite: a short day so a few
// maturities come in seconds, one kill -9 and restart, one add by another actor, every check the long
// run makes. `npm run soak:keeper -- --maturities 50 --kills 6 --seed S` runs it as long as asked
// (scripts/soak-keeper.mjs sets HEDGE_KEEPER_SOAK_* and the output files), printing the figures.
import { describe, expect, it } from 'vitest';
import { describeKeeperSoak, estimatedRunMs, runKeeperSoak, type KeeperSoakOptions } from './keeper-soak.js';

const env = process.env;
const long = env.HEDGE_KEEPER_SOAK_MATURITIES !== undefined;
const number = (name: string, fallback: number) => (env[name] === undefined ? fallback : Number(env[name]));

const options: KeeperSoakOptions = {
  seed: number('HEDGE_KEEPER_SOAK_SEED', 48),
  maturities: number('HEDGE_KEEPER_SOAK_MATURITIES', 5),
  kills: number('HEDGE_KEEPER_SOAK_KILLS', 1),
  adds: number('HEDGE_KEEPER_SOAK_ADDS', 1),
  addUsd: 250,
  // Short: a 10 s day, a 2 s lag and settlement delay, the roll row rolled 7 s before maturity;
  // long: a 30 s day, a 3 s lag, 5 s delay, 15 s. Either way a roll is decided within a cycle (2 s)
  // of its roll_before and its close is sent at once: it reaches the server seconds before the
  // maturity, and its open (shown a lag later) follows.
  dayMs: number('HEDGE_KEEPER_SOAK_DAY_MS', long ? 30_000 : 10_000),
  viewLagMs: number('HEDGE_KEEPER_SOAK_LAG_MS', long ? 3_000 : 2_000),
  settlementDelayMs: number('HEDGE_KEEPER_SOAK_SETTLEMENT_DELAY_MS', long ? 5_000 : 2_000),
  rollBefore: env.HEDGE_KEEPER_SOAK_ROLL_BEFORE ?? (long ? '15s' : '7s'),
  intervalS: number('HEDGE_KEEPER_SOAK_INTERVAL', 2),
  toleranceUsd: 0,
  sampleMs: 1_000,
  maxWallMs: 0,
  ...(env.HEDGE_KEEPER_SOAK_SAMPLES ? { samplesFile: env.HEDGE_KEEPER_SOAK_SAMPLES } : {}),
  ...(env.HEDGE_KEEPER_SOAK_KEEPER_LOG ? { keeperLogFile: env.HEDGE_KEEPER_SOAK_KEEPER_LOG } : {}),
  ...(long ? { log: (line: string) => console.log(line) } : {}),
};
// A keeper that stops making maturities is a stall: the run gives up (a problem) at three times what it should take.
options.maxWallMs = 3 * estimatedRunMs(options) + 30_000;

describe('hedge keep soak on a server whose views trail the records, several hedges per side, late settlement', () => {
  it(
    `${options.maturities} maturities, ${options.kills} kill -9: never above target + other actors' adds, every hedge with its row's reference, no roll after settlement`,
    async () => {
      const result = await runKeeperSoak(options);
      const figures = describeKeeperSoak(result, options).join('\n');
      if (long || env.HEDGE_KEEPER_SOAK_PRINT) console.log(figures);
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
