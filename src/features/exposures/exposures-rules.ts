// From a treasury's exposures to the hedge book that covers them, as pure rules over the exposures,
// a policy, the prices and a time: direction by economics, ratio by bucket, netting, sizing (docs/exposures.md).
import type { Exposure } from './exposures-file.js';
import type { HistoryFacts } from '../../core/wire.js';
import { quoteCurrencyOf } from '../../core/markets.js';
import { cents, toAccountSide } from '../../core/money.js';
import { DAY_MS, SIDES, TENORS, type Side } from '../../core/vocabulary.js';
import { utcDay, utcIso } from '../../core/utc-text.js';
import { toCents, weekStart } from '../report/report-rules.js';

export interface RatioBucket {
  /** Up to this many days to due (inclusive); undefined: every exposure further away. */
  withinDays?: number;
  /** 0..1 */
  ratio: number;
}

export interface ExposurePolicy {
  /** Sorted by withinDays; the last has none (beyond). */
  buckets: RatioBucket[];
  /** The re-size band, in percent of the target: nothing is traded while the book is within it. */
  bandPct: number;
  /** `current`: USD notional at today's price; `fixed`: at the price of the exposure's first cover. */
  sizing: 'current' | 'fixed';
  /** The currency the company's books are in: USD (default) or a market's quote currency. */
  functional: string;
  netting: boolean;
}

export const DEFAULT_POLICY: ExposurePolicy = {
  buckets: [{ withinDays: 30, ratio: 1 }, { withinDays: 90, ratio: 0.75 }, { ratio: 0.5 }],
  bandPct: 5,
  sizing: 'current',
  functional: 'USD',
  netting: true,
};

/** Market → mid price (quote currency per USDT); as `firstCover`, exposure id → the price its first cover was sized at (sizing `fixed`). */
export type Prices = Readonly<Record<string, number>>;

/** The markets of the exposures, sorted. */
export const marketsOf = (exposures: readonly Exposure[]) =>
  [...new Set(exposures.map((exposure) => exposure.market))].sort();

// ---- one exposure --------------------------------------------------------------------------

/** The side that covers the exposure, or undefined when it carries no FX risk for these books. */
export function coverSide(exposure: Pick<Exposure, 'market' | 'type' | 'currency'>, functional: string) {
  const quote = quoteCurrencyOf(exposure.market);
  // Books in another market's currency, or in a third currency, are looked at from USD: the
  // account settles in USD and one market's hedge cannot cover a cross.
  const view = quote !== undefined && functional === quote ? quote : 'USD';
  if (exposure.currency === view) return;
  if (view === 'USD') return exposure.type === 'receivable' ? 'buy' : 'sell';
  return exposure.type === 'payable' ? 'buy' : 'sell';
}

/** The exposure in USD at a price (an amount in USD is itself). */
export function amountUsd(exposure: Pick<Exposure, 'amount' | 'currency'>, price: number) {
  return exposure.currency === 'USD' ? exposure.amount : exposure.amount / price;
}

const signOf = (side: Side) => (side === 'buy' ? 1 : -1);

/** The exposure in USD at a price, signed by the side that covers it (+ buy); 0 when it carries no FX risk. */
function signedUsd(exposure: Exposure, functional: string, price: number) {
  const side = coverSide(exposure, functional);
  return side === undefined ? 0 : signOf(side) * amountUsd(exposure, price);
}

const sum = <T>(items: readonly T[], value: (item: T) => number) =>
  items.reduce((total, item) => total + value(item), 0);

/** The exposures of a market not yet due at `atMs`. */
const liveIn = (exposures: readonly Exposure[], market: string, atMs: number) =>
  exposures.filter((exposure) => exposure.market === market && exposure.dueMs > atMs);

/** "≤30d", "≤90d", ">90d" — the bucket a time to due falls in. */
function bucketLabel(policy: ExposurePolicy, index: number) {
  const bucket = policy.buckets[index];
  if (bucket.withinDays !== undefined) return `≤${bucket.withinDays}d`;
  const before = policy.buckets[index - 1]?.withinDays;
  return before === undefined ? 'any' : `>${before}d`;
}

export function ratioAt(exposure: Pick<Exposure, 'dueMs' | 'hedgeRatio'>, policy: ExposurePolicy, nowMs: number) {
  const days = (exposure.dueMs - nowMs) / DAY_MS;
  if (days <= 0) return { ratio: 0, bucket: 'due' };
  if (exposure.hedgeRatio !== undefined) return { ratio: exposure.hedgeRatio, bucket: 'file' };
  const index = policy.buckets.findIndex((bucket) => bucket.withinDays === undefined || days <= bucket.withinDays);
  if (index < 0) return { ratio: 0, bucket: 'none' };
  return { ratio: policy.buckets[index].ratio, bucket: bucketLabel(policy, index) };
}

/** Each exposure as the policy sees it at `nowMs`. An exposure whose market has no price is sized 0. */
export function exposureLines(
  exposures: readonly Exposure[],
  policy: ExposurePolicy,
  prices: Prices,
  nowMs: number,
  firstCover: Prices = {},
) {
  return exposures.map((exposure) => {
    const { ratio, bucket } = ratioAt(exposure, policy, nowMs);
    const side = coverSide(exposure, policy.functional);
    // Sizing `fixed`: at the price of the exposure's first cover.
    const price = (policy.sizing === 'fixed' ? firstCover[exposure.id] : undefined) ?? prices[exposure.market];
    const usd = price === undefined ? 0 : amountUsd(exposure, price);
    return {
      id: exposure.id,
      market: exposure.market,
      type: exposure.type,
      amount: exposure.amount,
      currency: exposure.currency,
      due: utcIso(exposure.dueMs),
      days_to_due: cents((exposure.dueMs - nowMs) / DAY_MS),
      bucket,
      ratio,
      cover_side: side ?? null,
      exposure_usd: cents(usd),
      hedge_usd: side === undefined ? 0 : cents(usd * ratio),
      sizing_price: price ?? null,
    };
  });
}

// ---- the book ------------------------------------------------------------------------------

/** The longest tenor that matures by `untilMs`, or 1 day when even that does not. */
export function tenorFor(untilMs: number, nowMs: number) {
  const days = (untilMs - nowMs) / DAY_MS;
  return [...TENORS].reverse().find((tenor) => tenor <= days) ?? TENORS[0];
}

/** The target book at `nowMs`: a row for each side of each market with an exposure (0 = flat). */
export function targetBook(
  exposures: readonly Exposure[],
  policy: ExposurePolicy,
  prices: Prices,
  nowMs: number,
  firstCover: Prices = {},
  { dueLeadMs = 0 }: { dueLeadMs?: number } = {},
) {
  const lines = exposureLines(exposures, policy, prices, nowMs, firstCover);
  const dueOf = new Map(exposures.map((exposure) => [exposure.id, exposure.dueMs]));
  return marketsOf(exposures).flatMap((market) => {
    const live = lines.filter(
      (line, index) => line.market === market && line.cover_side !== null && exposures[index].dueMs > nowMs + dueLeadMs,
    );
    const needs = { buy: 0, sell: 0 };
    for (const line of live) needs[line.cover_side as Side] += line.hedge_usd;
    const held: Record<Side, number> = policy.netting
      ? { buy: Math.max(0, needs.buy - needs.sell), sell: Math.max(0, needs.sell - needs.buy) }
      : needs;
    return SIDES.map((side) => {
      const target = cents(held[side]);
      // Netted, the side covers every live exposure of its market; apart, its own.
      const covered = live.filter((line) => line.hedge_usd > 0 && (policy.netting || line.cover_side === side));
      const untilMs = covered.length ? Math.max(...covered.map((line) => dueOf.get(line.id)!)) : undefined;
      const band = (target * policy.bandPct) / 100;
      const holds = target > 0 && untilMs !== undefined;
      return {
        market,
        side,
        target_usd: target,
        /** The band: the book is left alone while the side holds between these. */
        band_low_usd: cents(Math.max(0, target - band)),
        band_high_usd: cents(target + band),
        /** The tenor an open uses: the longest that matures by the side's last due date (at least 1). */
        tenor_days: holds ? tenorFor(untilMs, nowMs) : null,
        /** The last due date the side covers: a hedge maturing after it is not renewed. */
        until: holds ? utcIso(untilMs) : null,
        /** The exposures this side covers (netted ones included). */
        exposures: target > 0 ? covered.map((line) => line.id) : [],
      };
    });
  });
}

export type BookTarget = ReturnType<typeof targetBook>[number];

/** The keeper's target rows at `nowMs`, every side a row (0 = flat). `dueLeadMs`: an exposure due within that long counts as due, so a keeper reduces the last cycle before a due date, never after (the book never above the cover). */
export function targetRowsAt(...args: Parameters<typeof targetBook>) {
  const [exposures, policy, prices, nowMs, firstCover = {}, { dueLeadMs = 0 } = {}] = args;
  const bookAt = (atMs: number, lead = 0) =>
    targetBook(exposures, policy, prices, atMs, firstCover, { dueLeadMs: lead });
  const now = bookAt(nowMs);
  // Within the lead each side holds the smallest target of any moment of it: nothing pushes a side up
  // before its time (a netted payable let go early would raise it above today's cover).
  const ahead = bookAt(nowMs, dueLeadMs);
  const between = changeTimes(exposures, policy, nowMs)
    .filter((atMs) => atMs <= nowMs + dueLeadMs)
    .map((atMs) => bookAt(atMs));
  return now.map((row, index) => {
    const later = ahead[index];
    const notionalUsd = Math.min(row.target_usd, ...between.map((book) => book[index].target_usd));
    const { tenor_days: tenor, until } = later.target_usd > 0 ? later : row;
    return {
      market: row.market,
      side: row.side,
      notionalUsd,
      ...(notionalUsd === 0 || tenor === null ? {} : { tenorDays: tenor }),
      ...(notionalUsd === 0 || until === null ? {} : { untilMs: Date.parse(until) }),
      line: index + 1,
    };
  });
}

// ---- the schedule of changes ----------------------------------------------------------------

/** Each moment after `nowMs` the target can change without the price moving: a due date, a bucket boundary. */
export function changeTimes(exposures: readonly Exposure[], policy: ExposurePolicy, nowMs: number) {
  const times = new Set<number>();
  for (const exposure of exposures) {
    if (exposure.dueMs > nowMs) times.add(exposure.dueMs);
    if (exposure.hedgeRatio !== undefined) continue;
    for (const bucket of policy.buckets) {
      if (bucket.withinDays === undefined) continue;
      const at = exposure.dueMs - bucket.withinDays * DAY_MS;
      if (at > nowMs && at < exposure.dueMs) times.add(at);
    }
  }
  return [...times].sort((a, b) => a - b);
}

function reasonAt(exposures: readonly Exposure[], policy: ExposurePolicy, market: string, atMs: number) {
  const parts: string[] = [];
  for (const exposure of exposures) {
    if (exposure.market !== market) continue;
    if (exposure.dueMs === atMs) parts.push(`${exposure.id} due`);
    else if (exposure.hedgeRatio === undefined) {
      const before = ratioAt(exposure, policy, atMs - 1);
      const after = ratioAt(exposure, policy, atMs);
      if (before.bucket !== after.bucket) parts.push(`${exposure.id} enters ${after.bucket}`);
    }
  }
  return parts.join(', ');
}

/** The target's changes at today's price, each due date and bucket boundary in time order. */
export function scheduleOfChanges(
  exposures: readonly Exposure[],
  policy: ExposurePolicy,
  prices: Prices,
  nowMs: number,
) {
  let before = targetBook(exposures, policy, prices, nowMs);
  return changeTimes(exposures, policy, nowMs).flatMap((at) => {
    const after = targetBook(exposures, policy, prices, at);
    // Every book has the same rows in the same order: a market's buy and sell.
    const changes = after.flatMap((row, index) => {
      const from = before[index].target_usd;
      if (Math.abs(row.target_usd - from) < 0.005) return [];
      return {
        at: utcIso(at),
        market: row.market,
        side: row.side,
        from_usd: from,
        to_usd: row.target_usd,
        change_usd: cents(row.target_usd - from),
        /** What happens then: "INV-1 due", "INV-2 enters ≤30d". */
        reason: reasonAt(exposures, policy, row.market, at),
      };
    });
    before = after;
    return changes;
  });
}

// ---- the projected cost ----------------------------------------------------------------------

interface CostRates {
  /** Market → the daily carry per side in percent, signed as the server signs it (positive: the account pays). */
  carryDailyPct: Readonly<Record<string, Readonly<Record<Side, number>>>>;
  /** Market → the platform fee as a share of the notional traded (a quote's fee / its notional); absent: unknown. */
  feeRate: Readonly<Record<string, number | undefined>>;
}

/** The cost of holding the target to each due date at today's carry and fee (opens, changes and rolls each pay a fee). */
export function projectedCost(
  exposures: readonly Exposure[],
  policy: ExposurePolicy,
  prices: Prices,
  rates: CostRates,
  nowMs: number,
) {
  const times = changeTimes(exposures, policy, nowMs);
  return marketsOf(exposures).flatMap((market) => {
    const mine = exposures.filter((exposure) => exposure.market === market);
    const feeRate = rates.feeRate[market];
    const fee = feeRate ?? 0;
    const carry = rates.carryDailyPct[market] ?? { buy: 0, sell: 0 };
    const bookAt = (ms: number) => targetBook(exposures, policy, prices, ms).filter((row) => row.market === market);
    const maturityOf = (row: BookTarget) => now + (row.tenor_days ?? 1) * DAY_MS;
    // Both sides start flat: the first step opens today's target.
    const state: Record<Side, { notional: number; maturityMs?: number }> = {
      buy: { notional: 0 },
      sell: { notional: 0 },
    };
    let carryTotal = 0;
    let feesTotal = 0;
    let rolls = 0;
    let now = nowMs;
    const step = () => {
      for (const row of bookAt(now)) {
        const held = state[row.side];
        const target = row.target_usd;
        if (held.maturityMs !== undefined && held.maturityMs <= now) {
          // Matured: rolled into the target, or let go.
          if (target > 0) {
            feesTotal += (held.notional + target) * fee;
            rolls += 1;
            state[row.side] = { notional: target, maturityMs: maturityOf(row) };
          } else {
            state[row.side] = { notional: 0 };
          }
        } else if (Math.abs(target - held.notional) >= 0.005) {
          feesTotal += Math.abs(target - held.notional) * fee;
          state[row.side] = {
            notional: target,
            maturityMs: target === 0 ? undefined : held.notional === 0 ? maturityOf(row) : held.maturityMs,
          };
        }
      }
    };
    step();
    const lastDue = Math.max(nowMs, ...mine.map((exposure) => exposure.dueMs));
    const scheduled = times.filter((at) => at <= lastDue);
    const out = [];
    while (now < lastDue) {
      const maturities = SIDES.map((side) => state[side].maturityMs ?? 0).filter((ms) => ms > now);
      const next = Math.min(...maturities, scheduled.find((at) => at > now) ?? lastDue);
      for (const side of SIDES) carryTotal += (state[side].notional * carry[side] * (next - now)) / DAY_MS / 100;
      now = next;
      step();
      const due = mine.filter((exposure) => exposure.dueMs === now);
      if (due.length) {
        out.push({
          /** A due date of the market's exposures. */
          due: utcIso(now),
          market,
          /** The exposures due then. */
          exposures: due.map((exposure) => exposure.id).join(' '),
          /** Carry from now to then, on the account's side (negative: the account pays). */
          carry_pnl_usdc: toAccountSide(cents(carryTotal)),
          /** Fees of every open, add, reduce, close and roll from now to then; null when the fee is not known. */
          fees_pnl_usdc: feeRate === undefined ? null : toAccountSide(cents(feesTotal)),
          rolls,
          /** carry + fees (carry alone when the fee is not known). */
          cost_usdc: toAccountSide(cents(carryTotal + (feeRate === undefined ? 0 : feesTotal))),
        });
      }
    }
    return out;
  });
}

// ---- stress ----------------------------------------------------------------------------------

const STRESS_SHOCKS_PCT = [-30, -10, 10, 30] as const;

/** An instant price move per shock (+ = the quote currency weakens). A buy struck at P is worth N·(P'−P)/P' at P' (the service's NDF), a sell the opposite, so a 100% cover nets to 0. */
export function stressTable(exposures: readonly Exposure[], policy: ExposurePolicy, prices: Prices, nowMs: number) {
  const book = targetBook(exposures, policy, prices, nowMs);
  return marketsOf(exposures).flatMap((market) => {
    const price = prices[market];
    if (price === undefined) return [];
    const exposed = sum(liveIn(exposures, market, nowMs), (exposure) => signedUsd(exposure, policy.functional, price));
    const cover = sum(book, (row) => (row.market === market ? signOf(row.side) * row.target_usd : 0));
    return STRESS_SHOCKS_PCT.map((shock) => {
      const stressed = price * (1 + shock / 100);
      const move = (stressed - price) / stressed;
      // What the exposures (all of them, not only the hedged part) and the target cover gain (+) or lose (-) in USD.
      const exposureChange = cents(-exposed * move);
      const coverPnl = cents(cover * move);
      return {
        market,
        shock_pct: shock,
        price: Math.round(stressed * 1e6) / 1e6,
        exposure_change_usd: exposureChange,
        cover_pnl_usd: coverPnl,
        net_usd: cents(exposureChange + coverPnl),
      };
    });
  });
}

// ---- effectiveness ---------------------------------------------------------------------------

/** US GAAP's (ASC 815) dollar-offset band: a cover is effective there when it offsets 80% to 125% of the change; IFRS 9 draws no such line. */
export const EFFECTIVE_BAND_PCT = [80, 125] as const;

/** What an exposure gained (+) or lost (-) in USD as the price went from `fromPrice` to `toPrice`. */
export function exposureRevaluationUsd(
  exposure: Pick<Exposure, 'market' | 'type' | 'currency' | 'amount'>,
  functional: string,
  fromPrice: number,
  toPrice: number,
) {
  const side = coverSide(exposure, functional);
  if (side === undefined) return 0;
  return -signOf(side) * amountUsd(exposure, fromPrice) * ((toPrice - fromPrice) / toPrice);
}

/** A hedge's price P&L (USD) from entry to mark: the service's NDF. */
export function coverPnlUsd(side: Side, notionalUsd: number, entryPrice: number, markPrice: number) {
  const buy = (notionalUsd * (markPrice - entryPrice)) / markPrice;
  return side === 'buy' ? buy : -buy;
}

/** The dollar-offset ratio: how much of the exposure's change the cover offset, in percent (−cover P&L / exposure change). Undefined while the exposure has not moved. */
export function dollarOffset(coverPnl: number, exposureChange: number) {
  if (Math.abs(exposureChange) < 0.005) return { ratio_pct: null, effective: null };
  const ratio = (-coverPnl / exposureChange) * 100;
  return {
    ratio_pct: cents(ratio),
    effective: ratio >= EFFECTIVE_BAND_PCT[0] && ratio <= EFFECTIVE_BAND_PCT[1],
  };
}

// ---- hedge exposures --report --------------------------------------------------------------
// Coverage per week, cost to date and effectiveness (the dollar-offset ratio; ASC 815's 80–125% verdict)
// of the account's hedges against the exposures.

/** One hedge of the account, closed or open, as the report needs it: its prices, realized P&L, carry and fees as history reads them (on the account's side). */
export type CoverHedge = Pick<HistoryFacts, 'entryPrice' | 'exitPrice' | 'grossPnlUsd' | 'carryUsd' | 'feesUsd'> & {
  market: string;
  side: Side;
  notionalUsd: number;
  openedAtMs: number;
  /** Undefined while open. */
  closedAtMs?: number;
};

/** Whether a hedge was held at `ms` (opened at or before it, not yet closed). */
function heldAt(hedge: CoverHedge, ms: number) {
  return hedge.openedAtMs <= ms && (hedge.closedAtMs === undefined || hedge.closedAtMs > ms);
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
      const signed = liveIn(exposures, market, at).map((exposure) => signedUsd(exposure, policy.functional, price));
      const held = inMarkets.filter((hedge) => hedge.market === market && heldAt(hedge, at));
      const net = sum(signed, (value) => value);
      const exposure = policy.netting ? Math.abs(net) : sum(signed, Math.abs);
      const hedged = policy.netting
        ? Math.max(0, sum(held, (hedge) => signOf(hedge.side) * hedge.notionalUsd) * Math.sign(net))
        : sum(held, (hedge) => hedge.notionalUsd);
      const target = sum(book, (row) => (row.market === market ? row.target_usd : 0));
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
    // Summed in whole cents, each rounded as `hedge report` rounds it: the two reconcile to the cent.
    const carryCents = sum(closed, (hedge) => toCents(hedge.carryUsd ?? 0));
    const feeCents = sum(closed, (hedge) => toCents(hedge.feesUsd ?? 0));
    return {
      market,
      closed_hedges: closed.length,
      carry_pnl_usdc: carryCents / 100,
      fees_pnl_usdc: feeCents / 100,
      cost_usdc: (carryCents + feeCents) / 100,
    };
  });
}

/** The price a hedge recorded nearest to `ms` (an entry at its open, an exit at its close), else `fallback`. */
function priceNear(hedges: readonly CoverHedge[], ms: number, fallback: number) {
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

/** An exposure's effectiveness before its market has a cover with a price, or a price today; price_to stays in its place. */
const UNMEASURED = {
  first_cover_at: null,
  first_price: null,
  price_to: null,
  exposure_change_usd: null,
  cover_pnl_usd: null,
  offset_pct: null,
  effective: null,
};

/** A market's hedges, the earliest opened first. */
export const hedgesOf = (hedges: readonly CoverHedge[], market: string) =>
  hedges.filter((hedge) => hedge.market === market).sort((a, b) => a.openedAtMs - b.openedAtMs);

/** The first cover of hedges in opening order: the earliest with an entry price. */
export const firstCoverOf = (mine: readonly CoverHedge[]) => mine.find((hedge) => (hedge.entryPrice ?? 0) > 0);

export function effectiveness(
  exposures: readonly Exposure[],
  policy: ExposurePolicy,
  prices: Prices,
  hedges: readonly CoverHedge[],
  nowMs: number,
) {
  return marketsOf(exposures).flatMap((market) => {
    const mine = hedgesOf(hedges, market);
    const price = prices[market];
    const first = firstCoverOf(mine);
    const inMarket = exposures.filter((exposure) => exposure.market === market);
    if (!first || price === undefined)
      return inMarket.map((exposure) => ({
        id: exposure.id,
        market,
        cover_side: coverSide(exposure, policy.functional) ?? null,
        ...UNMEASURED,
        price_to: price ?? null,
      }));
    const firstPrice = first.entryPrice!;
    const t0 = first.openedAtMs;
    const coverTotal = sum(mine, (hedge) => {
      // Realized when closed (the server's figure, else from the exit price); marked at today's price while open.
      const to = hedge.closedAtMs === undefined ? price : hedge.exitPrice;
      if (hedge.closedAtMs !== undefined && hedge.grossPnlUsd !== undefined) return hedge.grossPnlUsd;
      return hedge.entryPrice === undefined || to === undefined
        ? 0
        : coverPnlUsd(hedge.side, hedge.notionalUsd, hedge.entryPrice, to);
    });
    // Each exposure's signed weight: the size it was to be covered at when the first cover was struck.
    const weights = inMarket.map(
      (exposure) => signedUsd(exposure, policy.functional, firstPrice) * ratioAt(exposure, policy, t0).ratio,
    );
    const weightSum = sum(weights, (weight) => weight);
    return inMarket.map((exposure, index) => {
      const side = coverSide(exposure, policy.functional);
      const to = exposure.dueMs <= nowMs ? priceNear(mine, exposure.dueMs, price) : price;
      const change = exposureRevaluationUsd(exposure, policy.functional, firstPrice, to);
      const cover = Math.abs(weightSum) < 1e-9 ? 0 : (coverTotal * weights[index]) / weightSum;
      const offset =
        side === undefined || weights[index] === 0 ? { ratio_pct: null, effective: null } : dollarOffset(cover, change);
      return {
        id: exposure.id,
        market,
        cover_side: side ?? null,
        first_cover_at: utcIso(t0) as string | null,
        first_price: firstPrice as number | null,
        /** The price the revaluation runs to: at the due date, or today. */
        price_to: to as number | null,
        exposure_change_usd: side === undefined ? null : cents(change),
        cover_pnl_usd: side === undefined ? null : cents(cover),
        offset_pct: offset.ratio_pct,
        /** Within 80–125%; null while nothing has moved or nothing covered it. */
        effective: offset.effective,
      };
    });
  });
}
