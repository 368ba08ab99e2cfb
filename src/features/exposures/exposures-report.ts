// `hedge exposures FILE --report`: coverage per week, cost to date and effectiveness (the dollar-offset
// ratio, 80–125% effective) of the account's hedges against the exposures; pure rules (docs/exposures.md).
import type { Exposure } from './exposures-file.js';
import {
  amountUsd,
  coverPnlUsd,
  coverSide,
  dollarOffset,
  exposureRevaluationUsd,
  marketsOf,
  ratioAt,
  targetBook,
  type ExposurePolicy,
  type Prices,
} from './exposures-rules.js';
import { cents } from '../../core/money.js';
import { DAY_MS, type Side } from '../../core/vocabulary.js';
import { utcDay, utcIso } from '../../core/utc-text.js';

/** One hedge of the account, closed or open, as the report needs it. */
export interface CoverHedge {
  market: string;
  side: Side;
  notionalUsd: number;
  openedAtMs: number;
  /** Undefined while open. */
  closedAtMs?: number;
  entryPrice?: number;
  exitPrice?: number;
  /** Realized price P&L (closed hedges). */
  grossPnlUsd?: number;
  /** As the server signs them: positive = paid by the account. */
  carryUsd?: number;
  feesUsd?: number;
}

/** 00:00 UTC of the Monday on or before `ms`. */
export function weekStart(ms: number): number {
  const day = Math.floor(ms / DAY_MS) * DAY_MS;
  const weekday = (new Date(day).getUTCDay() + 6) % 7;
  return day - weekday * DAY_MS;
}

/** Whether a hedge was held at `ms` (opened at or before it, not yet closed). */
function heldAt(hedge: CoverHedge, ms: number): boolean {
  return hedge.openedAtMs <= ms && (hedge.closedAtMs === undefined || hedge.closedAtMs > ms);
}

function signOf(side: Side): number {
  return side === 'buy' ? 1 : -1;
}

export function coveragePerWeek(
  exposures: readonly Exposure[],
  policy: ExposurePolicy,
  prices: Prices,
  hedges: readonly CoverHedge[],
  nowMs: number,
) {
  const markets = marketsOf(exposures);
  const inMarkets = hedges.filter((hedge) => markets.includes(hedge.market));
  const first = Math.min(nowMs, ...inMarkets.map((hedge) => hedge.openedAtMs));
  const rows = [];
  for (let week = weekStart(first); week <= nowMs; week += 7 * DAY_MS) {
    const at = Math.min(week + 7 * DAY_MS, nowMs);
    const book = targetBook(exposures, policy, prices, at);
    for (const market of markets) {
      const price = prices[market];
      if (price === undefined) continue;
      const live = exposures.filter((exposure) => exposure.market === market && exposure.dueMs > at);
      const signed = live.map((exposure) => {
        const side = coverSide(exposure, policy.functional);
        return side === undefined ? 0 : signOf(side) * amountUsd(exposure, price);
      });
      const held = inMarkets.filter((hedge) => hedge.market === market && heldAt(hedge, at));
      const net = signed.reduce((total, value) => total + value, 0);
      const exposure = policy.netting ? Math.abs(net) : signed.reduce((total, value) => total + Math.abs(value), 0);
      const hedged = policy.netting
        ? Math.max(0, held.reduce((total, hedge) => total + signOf(hedge.side) * hedge.notionalUsd, 0) * Math.sign(net))
        : held.reduce((total, hedge) => total + hedge.notionalUsd, 0);
      const target = book.filter((row) => row.market === market).reduce((total, row) => total + row.target_usd, 0);
      rows.push({
        /** The Monday the week starts on (UTC). */
        week: utcDay(week),
        /** When the figures were taken: the week's end, or now. */
        at: utcIso(at),
        market,
        exposure_usd: cents(exposure),
        /** What the policy would hold then (at today's price). */
        target_usd: cents(target),
        /** What the hedges held then, in the exposure's direction. */
        hedged_usd: cents(hedged),
        /** hedged / exposure, in percent; null with no exposure. */
        coverage_pct: exposure < 0.005 ? null : Math.round((hedged / exposure) * 10_000) / 100,
      });
    }
  }
  return rows;
}

/** Carry and fees of the closed hedges of each market, summed in cents on the account's side (- paid). */
export function costToDate(markets: readonly string[], hedges: readonly CoverHedge[]) {
  return [...markets].sort().map((market) => {
    const closed = hedges.filter((hedge) => hedge.market === market && hedge.closedAtMs !== undefined);
    // Summed in whole cents: the total reconciles to the cent with the records it comes from.
    const carryCents = closed.reduce((total, hedge) => total + Math.round((hedge.carryUsd ?? 0) * 100), 0);
    const feeCents = closed.reduce((total, hedge) => total + Math.round((hedge.feesUsd ?? 0) * 100), 0);
    return {
      market,
      closed_hedges: closed.length,
      carry_usdc: carryCents / 100,
      fees_usdc: feeCents / 100,
      cost_usdc: (carryCents + feeCents) / 100,
    };
  });
}

/** The price a hedge recorded nearest to `ms` (an entry at its open, an exit at its close), else `fallback`. */
function priceNear(hedges: readonly CoverHedge[], ms: number, fallback: number): number {
  let best: { distance: number; price: number } | undefined;
  for (const hedge of hedges) {
    for (const [at, price] of [
      [hedge.openedAtMs, hedge.entryPrice],
      [hedge.closedAtMs, hedge.exitPrice],
    ] as const) {
      if (at === undefined || price === undefined || !(price > 0)) continue;
      const distance = Math.abs(at - ms);
      if (!best || distance < best.distance) best = { distance, price };
    }
  }
  return best?.price ?? fallback;
}

export function effectiveness(
  exposures: readonly Exposure[],
  policy: ExposurePolicy,
  prices: Prices,
  hedges: readonly CoverHedge[],
  nowMs: number,
) {
  const rows = [];
  for (const market of marketsOf(exposures)) {
    const mine = hedges.filter((hedge) => hedge.market === market).sort((a, b) => a.openedAtMs - b.openedAtMs);
    const price = prices[market];
    const first = mine.find((hedge) => hedge.entryPrice !== undefined && hedge.entryPrice > 0);
    const inMarket = exposures.filter((exposure) => exposure.market === market);
    if (!first || price === undefined) {
      for (const exposure of inMarket) {
        rows.push({
          id: exposure.id,
          market,
          cover_side: coverSide(exposure, policy.functional) ?? null,
          first_cover_at: null,
          first_price: null,
          price_to: price ?? null,
          exposure_change_usd: null,
          cover_pnl_usd: null,
          offset_pct: null,
          effective: null,
        });
      }
      continue;
    }
    const firstPrice = first.entryPrice!;
    const t0 = first.openedAtMs;
    const coverTotal = mine.reduce((total, hedge) => {
      if (hedge.closedAtMs !== undefined) {
        if (hedge.grossPnlUsd !== undefined) return total + hedge.grossPnlUsd;
        if (hedge.entryPrice !== undefined && hedge.exitPrice !== undefined)
          return total + coverPnlUsd(hedge.side, hedge.notionalUsd, hedge.entryPrice, hedge.exitPrice);
        return total;
      }
      return hedge.entryPrice === undefined
        ? total
        : total + coverPnlUsd(hedge.side, hedge.notionalUsd, hedge.entryPrice, price);
    }, 0);
    // Each exposure's signed weight: the size it was to be covered at when the first cover was struck.
    const weights = inMarket.map((exposure) => {
      const side = coverSide(exposure, policy.functional);
      if (side === undefined) return 0;
      return signOf(side) * amountUsd(exposure, firstPrice) * ratioAt(exposure, policy, t0).ratio;
    });
    const weightSum = weights.reduce((total, weight) => total + weight, 0);
    inMarket.forEach((exposure, index) => {
      const side = coverSide(exposure, policy.functional);
      const to = exposure.dueMs <= nowMs ? priceNear(mine, exposure.dueMs, price) : price;
      const change = exposureRevaluationUsd(exposure, policy.functional, firstPrice, to);
      const cover = Math.abs(weightSum) < 1e-9 ? 0 : (coverTotal * weights[index]!) / weightSum;
      const offset =
        side === undefined || weights[index] === 0 ? { ratio_pct: null, effective: null } : dollarOffset(cover, change);
      rows.push({
        id: exposure.id,
        market,
        cover_side: side ?? null,
        first_cover_at: utcIso(t0),
        first_price: firstPrice,
        /** The price the revaluation runs to: at the due date, or today. */
        price_to: to,
        exposure_change_usd: side === undefined ? null : cents(change),
        cover_pnl_usd: side === undefined ? null : cents(cover),
        offset_pct: offset.ratio_pct,
        /** Within 80–125%; null while nothing has moved or nothing covered it. */
        effective: offset.effective,
      });
    });
  }
  return rows;
}

export function exposureReport(
  exposures: readonly Exposure[],
  policy: ExposurePolicy,
  prices: Prices,
  hedges: readonly CoverHedge[],
  nowMs: number,
) {
  return {
    coverage: coveragePerWeek(exposures, policy, prices, hedges, nowMs),
    cost: costToDate(marketsOf(exposures), hedges),
    effectiveness: effectiveness(exposures, policy, prices, hedges, nowMs),
  };
}
