import { describe, expect, it } from 'vitest';

import { createClock } from '../../src/sandbox/clock.js';
import { MARKET_MODEL, grossPnlUsd, midPrice, priceImpactUsd, seedHash } from '../../src/sandbox/market-model.js';

describe('sandbox clock', () => {
  it('runs at origin + real elapsed × speed + manual offset', () => {
    let real = 1_000;
    const clock = createClock({ realNow: () => real, speed: 60, originMs: 5_000_000 });
    expect(clock.now()).toBe(5_000_000);
    real += 1_000;
    expect(clock.now()).toBe(5_060_000);
    clock.advance(40_000);
    expect(clock.now()).toBe(5_100_000);
    expect(() => clock.advance(-1)).toThrow();
    expect(() => createClock({ speed: 0 })).toThrow();
  });

  it('starts at the real time by default', () => {
    const clock = createClock({ realNow: () => 42_000 });
    expect(clock.now()).toBe(42_000);
  });
});

describe('market model', () => {
  const [usdtngn] = MARKET_MODEL.markets;

  it('is a continuous, seeded path: tiny moves over a second, same price for the same seed and time', () => {
    const seed = seedHash('model');
    const t = Date.UTC(2026, 0, 1);
    expect(midPrice(seed, usdtngn, t)).toBe(midPrice(seedHash('model'), usdtngn, t));
    expect(Math.abs(midPrice(seed, usdtngn, t + 1000) - midPrice(seed, usdtngn, t))).toBeLessThan(1);
  });

  it('prices impact as factor × (imbalance before² − imbalance after²)', () => {
    const book = { buy: 2_000_000, sell: 1_000_000 };
    expect(priceImpactUsd(book, 'buy', 100_000)).toBeCloseTo(
      MARKET_MODEL.impact.negativeFactor * (1e12 - 1.1e6 ** 2),
      6,
    );
    expect(priceImpactUsd(book, 'sell', 100_000)).toBeCloseTo(
      MARKET_MODEL.impact.positiveFactor * (1e12 - 0.9e6 ** 2),
      6,
    );
  });

  it('computes P&L as notional × (mark − entry) / mark for a buy and the opposite for a sell', () => {
    expect(grossPnlUsd('buy', 100_000, 1500, 1530)).toBeCloseTo((100_000 * 30) / 1530, 8);
    expect(grossPnlUsd('sell', 100_000, 1500, 1530)).toBeCloseTo((-100_000 * 30) / 1530, 8);
  });
});
