// The sandbox's market: a GMX-v2-like synthetic perpetual turned into fixed-tenor hedges.

import { hashInts, hashString } from './prng.js';

export type Side = 'buy' | 'sell';

export type SideAmounts = Record<Side, number>;

export interface MarketDefinition {
  market: string;
  status: 'open' | 'disabled';
  /** Level the price path oscillates around, quote currency per USDT. */
  basePrice: number;
  /** Open interest held by the rest of the market (other venues' traders). */
  backgroundOpenInterestUsd: SideAmounts;
}

const HOUR_MS = 3_600_000;
export const DAY_MS = 24 * HOUR_MS;

/** Each market, its base price and its background open interest (buy, sell). */
const CATALOGUE: readonly MarketDefinition[] = (
  [
    ['USDTNGN', 1530, 2_100_000, 1_900_000],
    ['USDTKES', 129.4, 1_400_000, 1_250_000],
    ['USDTGHS', 15.45, 900_000, 1_000_000],
  ] as const
).map(([market, basePrice, buy, sell]) => ({
  market,
  status: 'open',
  basePrice,
  backgroundOpenInterestUsd: { buy, sell },
}));

export const MARKET_MODEL = {
  startBalanceUsdc: 1_000_000,
  /** Per-account aggregate exposure cap (the spec's "per-hedge limit"); options can override. */
  defaultExposureCapUsd: 1_000_000,
  /** Most open interest one side of a market can hold, all accounts plus background. */
  marketCapacityPerSideUsd: 5_000_000,
  /** Margin reserved from the balance, as a share of notional (10x leverage). */
  marginRate: 0.1,
  /** Fee charged on every notional that is opened, added, reduced or closed early. */
  platformFeeRate: 0.0005,
  tenorsDays: [1, 3, 7] as readonly number[],
  /** A reduce this close to the whole notional closes the hedge instead of leaving dust. */
  fullReduceShare: 0.995,
  minRemainingNotionalUsd: 1,
  impact: {
    // GMX v2 prices impact as factor × (imbalance_before² − imbalance_after²).
    negativeFactor: 1e-9,
    positiveFactor: 5e-10,
  },
  carry: {
    // Funding: the heavier side pays the lighter side, scaled by how lopsided the book is.
    fundingDailyPctAtFullImbalance: 0.6,
    // Borrowing: both sides pay for the pool capacity they use.
    borrowDailyPctAtFullUse: 0.02,
    // The lighter side shares the funding the heavier side pays; bound it so that a nearly empty side does not
    // earn absurd rates.
    maxEarningMultiple: 3,
  },
  pricePath: {
    // Two waves give trends over days and intraday swings; hashed per-minute noise makes consecutive quotes differ
    // slightly, so a fill's struck rate is not the quoted one.
    slowWave: { amplitude: 0.012, periodMs: 11 * DAY_MS },
    fastWave: { amplitude: 0.004, periodMs: 26 * HOUR_MS },
    noise: { amplitude: 0.0005, bucketMs: 60_000 },
  },
  catalogue: CATALOGUE,
} as const;

function roundTo(value: number, decimals: number) {
  const factor = 10 ** decimals;
  const rounded = Math.round((value + Number.EPSILON * Math.sign(value)) * factor) / factor;
  return Object.is(rounded, -0) ? 0 : rounded;
}

// Money to the cent, mid prices to 3 decimals, execution prices and rates to 4.
export const roundMoney = (value: number) => roundTo(value, 2);
export const roundExecutionPrice = (value: number) => roundTo(value, 4);
export const roundRatePct = roundExecutionPrice;

/** Indicative mid rate at a sandbox time: the same seed and time always give the same price. */
export function midPrice(seed: number, definition: MarketDefinition, timeMs: number) {
  const { slowWave, fastWave, noise } = MARKET_MODEL.pricePath;
  const marketHash = hashString(definition.market);
  const phase = (salt: number) => (hashInts(seed, marketHash, salt) / 0x1_0000_0000) * 2 * Math.PI;
  const wave = (spec: { amplitude: number; periodMs: number }, salt: number) =>
    spec.amplitude * Math.sin((2 * Math.PI * timeMs) / spec.periodMs + phase(salt));

  // Noise is interpolated between per-minute anchors so the path is continuous: a price read twice a few
  // milliseconds apart moves by a hair, not by a whole noise step.
  const bucket = Math.floor(timeMs / noise.bucketMs);
  const progress = timeMs / noise.bucketMs - bucket;
  const anchor = (index: number) => (hashInts(seed, marketHash, 3, index) / 0x1_0000_0000) * 2 - 1;
  const smooth = progress * progress * (3 - 2 * progress);
  const noiseShare = noise.amplitude * (anchor(bucket) + (anchor(bucket + 1) - anchor(bucket)) * smooth);

  return roundTo(definition.basePrice * (1 + wave(slowWave, 1) + wave(fastWave, 2) + noiseShare), 3);
}

export function priceImpactUsd(openInterest: SideAmounts, side: Side, deltaUsd: number) {
  const after = { ...openInterest, [side]: openInterest[side] + deltaUsd };
  const imbalanceBefore = Math.abs(openInterest.buy - openInterest.sell);
  const imbalanceAfter = Math.abs(after.buy - after.sell);
  const factor =
    imbalanceAfter < imbalanceBefore ? MARKET_MODEL.impact.positiveFactor : MARKET_MODEL.impact.negativeFactor;
  return factor * (imbalanceBefore ** 2 - imbalanceAfter ** 2);
}

/** Signed daily carry of a side in percent: positive means the side pays, negative it earns. */
export function dailyCarryRatePct(openInterest: SideAmounts, side: Side) {
  const { fundingDailyPctAtFullImbalance, borrowDailyPctAtFullUse, maxEarningMultiple } = MARKET_MODEL.carry;
  const total = openInterest.buy + openInterest.sell;
  const own = openInterest[side];
  const other = openInterest[side === 'buy' ? 'sell' : 'buy'];
  const borrow = (borrowDailyPctAtFullUse * own) / MARKET_MODEL.marketCapacityPerSideUsd;
  if (total <= 0) return roundRatePct(borrow);

  // A balanced book pays no funding: the heavier side's share is then 0.
  const fundingPaidByHeavier = (fundingDailyPctAtFullImbalance * Math.abs(own - other)) / total;
  const funding =
    own >= other
      ? fundingPaidByHeavier
      : -fundingPaidByHeavier * Math.min(other / Math.max(own, 1), maxEarningMultiple);
  return roundRatePct(borrow + funding);
}

/** Carry in USDC for a notional over a span of time at a fixed daily rate (a day `dayMs` long). */
export function carryUsdc(notionalUsd: number, dailyRatePct: number, durationMs: number, dayMs: number) {
  return (notionalUsd * dailyRatePct * durationMs) / (100 * dayMs);
}

export function requiredMarginUsdc(notionalUsd: number) {
  return roundMoney(notionalUsd * MARKET_MODEL.marginRate);
}

/** The spec: "a reduction covering roughly the whole position closes it fully" (no dust left). */
export function reductionClosesFully(openNotionalUsd: number, reductionUsd: number) {
  return (
    reductionUsd >= openNotionalUsd * MARKET_MODEL.fullReduceShare ||
    openNotionalUsd - reductionUsd < MARKET_MODEL.minRemainingNotionalUsd
  );
}

export function platformFeeUsdc(notionalUsd: number) {
  return roundMoney(notionalUsd * MARKET_MODEL.platformFeeRate);
}

export function marketHeadroomUsd(openInterest: SideAmounts, side: Side) {
  return Math.max(0, MARKET_MODEL.marketCapacityPerSideUsd - openInterest[side]);
}

/**
 * Price P&L in USD: a buy of N USD at entry E is N USDT bought for N×E naira; at mark M it is worth N×M naira, so
 * N×(M−E) naira or N×(M−E)/M USD.
 */
export function grossPnlUsd(side: Side, notionalUsd: number, entryPrice: number, markPrice: number) {
  const buyPnl = (notionalUsd * (markPrice - entryPrice)) / markPrice;
  return side === 'buy' ? buyPnl : -buyPnl;
}

/** What opening (or adding) `notionalUsd` on a side costs right now, given total open interest. */
export function quoteIncrease(
  seed: number,
  definition: MarketDefinition,
  openInterest: SideAmounts,
  side: Side,
  notionalUsd: number,
  timeMs: number,
) {
  const mid = midPrice(seed, definition, timeMs);
  const impact = priceImpactUsd(openInterest, side, notionalUsd);
  return {
    marketPrice: mid,
    executionPrice: roundExecutionPrice(mid * (side === 'buy' ? 1 - impact / notionalUsd : 1 + impact / notionalUsd)),
    priceImpactUsd: roundMoney(impact),
    // The carry a new hedge locks in is the rate of the book it creates, so a big trade that deepens the imbalance
    // also locks in a worse carry.
    dailyCarryRatePct: dailyCarryRatePct({ ...openInterest, [side]: openInterest[side] + notionalUsd }, side),
    requiredMarginUsdc: requiredMarginUsdc(notionalUsd),
    platformFeeUsdc: platformFeeUsdc(notionalUsd),
  };
}
