// From a treasury's exposures to the hedge book that covers them, as pure rules over the exposures,
// a policy, the prices and a time: direction by economics, ratio by bucket, netting, sizing (docs/exposures.md).
import type { Exposure } from './exposures-file.js';
import type { HistoryFacts } from '../../core/wire.js';
import { quoteCurrencyOf } from '../../core/markets.js';
import { cents, toAccountSide, toCents } from '../../core/money.js';
import { DAY_MS, SIDES, TENORS, type Side } from '../../core/vocabulary.js';
import { utcDay, utcIso } from '../../core/utc-text.js';
import { weekStart } from '../report/report-rules.js';
import { FRAMEWORK_RULES } from '../acct/acct-rules.js';

export const DEFAULT_POLICY = {
  /** Sorted by withinDays (up to that many days to due, inclusive), ratio 0..1; the last has none (beyond). */
  buckets: [{ withinDays: 30, ratio: 1 }, { withinDays: 90, ratio: 0.75 }, { ratio: 0.5 }] as {
    withinDays?: number;
    ratio: number;
  }[],
  /** The re-size band, in percent of the target: nothing is traded while the book is within it. */
  bandPct: 5,
  /** `current`: USD notional at today's price; `fixed`: at the price of the exposure's first cover. */
  sizing: 'current' as 'current' | 'fixed',
  /** The currency the company's books are in: USD (default) or a market's quote currency. */
  functional: 'USD',
  netting: true,
};

export type ExposurePolicy = typeof DEFAULT_POLICY;

/** Market → mid price (quote currency per USDT); as `firstCover`, exposure id → the price its first cover was sized at (sizing `fixed`). */
type Prices = Record<string, number>;

/** The markets of the exposures, sorted. */
export const marketsOf = (exposures: readonly Exposure[]) =>
  [...new Set(exposures.map((exposure) => exposure.market))].sort();

// ---- one exposure --------------------------------------------------------------------------

/** The side that covers the exposure, or undefined when it carries no FX risk for these books. */
export function coverSide(exposure: Pick<Exposure, 'market' | 'type' | 'currency'>, functional: string) {
  const quote = quoteCurrencyOf(exposure.market);
  // Books in another market's currency, or in a third currency, are looked at from USD: the
  // account settles in USD and one market's hedge cannot cover a cross.
  const view = functional === quote ? quote : 'USD';
  if (exposure.currency === view) return;
  // From USD a receivable is covered by a buy; from the quote currency a payable is.
  return (exposure.type === 'receivable') === (view === 'USD') ? 'buy' : 'sell';
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

/** The sum of `value` over `items`, added in their order. */
export const sum = <T>(items: readonly T[], value: (item: T) => number = Number) =>
  items.reduce((total, item) => total + value(item), 0);

/** The exposures of a market not yet due at `atMs`, each in USD at `price`, signed by the side that covers it. */
const liveUsd = (exposures: readonly Exposure[], functional: string, market: string, price: number, atMs: number) =>
  exposures
    .filter((exposure) => exposure.market === market && exposure.dueMs > atMs)
    .map((exposure) => signedUsd(exposure, functional, price));

/** The ratio and the bucket ("≤30d", "≤90d", ">90d") a time to due falls in. */
export function ratioAt(exposure: Pick<Exposure, 'dueMs' | 'hedgeRatio'>, { buckets }: ExposurePolicy, nowMs: number) {
  const days = (exposure.dueMs - nowMs) / DAY_MS;
  if (days <= 0) return { ratio: 0, bucket: 'due' };
  if (exposure.hedgeRatio !== undefined) return { ratio: exposure.hedgeRatio, bucket: 'file' };
  // The last bucket has no bound (a policy's ratios always end with one): some bucket holds every time.
  const index = buckets.findIndex(({ withinDays }) => withinDays === undefined || days <= withinDays);
  const { ratio, withinDays } = buckets[index];
  const before = buckets[index - 1]?.withinDays;
  return { ratio, bucket: withinDays !== undefined ? `≤${withinDays}d` : before === undefined ? 'any' : `>${before}d` };
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
    const { id, market, type, amount, currency, dueMs } = exposure;
    const { ratio, bucket } = ratioAt(exposure, policy, nowMs);
    const side = coverSide(exposure, policy.functional);
    // Sizing `fixed`: at the price of the exposure's first cover.
    const price = (policy.sizing === 'fixed' ? firstCover[id] : undefined) ?? prices[market];
    const usd = price === undefined ? 0 : amountUsd(exposure, price);
    return {
      id,
      market,
      type,
      amount,
      currency,
      due: utcIso(dueMs),
      days_to_due: cents((dueMs - nowMs) / DAY_MS),
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
export function longestTenorBy(untilMs: number, nowMs: number) {
  const days = (untilMs - nowMs) / DAY_MS;
  return TENORS.findLast((tenor) => tenor <= days) ?? TENORS[0];
}

/** The target book at `nowMs`: a row for each side of each market with an exposure (0 = flat); an exposure due within `dueLeadMs` counts as due. */
export function targetBook(
  exposures: readonly Exposure[],
  policy: ExposurePolicy,
  prices: Prices,
  nowMs: number,
  firstCover: Prices = {},
  dueLeadMs = 0,
) {
  const lines = exposureLines(exposures, policy, prices, nowMs, firstCover);
  return marketsOf(exposures).flatMap((market) => {
    const live = lines.filter(
      (line) => line.market === market && line.cover_side !== null && Date.parse(line.due) > nowMs + dueLeadMs,
    );
    const needs = { buy: 0, sell: 0 };
    for (const line of live) needs[line.cover_side as Side] += line.hedge_usd;
    return SIDES.map((side) => {
      const need = needs[side];
      const target = cents(policy.netting ? Math.max(0, need - needs[side === 'buy' ? 'sell' : 'buy']) : need);
      // Netted, the side covers every live exposure of its market; apart, its own.
      const covered = live.filter((line) => line.hedge_usd > 0 && (policy.netting || line.cover_side === side));
      // A side holding anything covers a line of it (a sum above 0 has a part above 0).
      const untilMs = Math.max(...covered.map((line) => Date.parse(line.due)));
      const band = (target * policy.bandPct) / 100;
      return {
        market,
        side,
        target_usd: target,
        /** The band: the book is left alone while the side holds between these. */
        band_low_usd: cents(Math.max(0, target - band)),
        band_high_usd: cents(target + band),
        /** The tenor an open uses: the longest that matures by the side's last due date (at least 1). */
        tenor_days: target > 0 ? longestTenorBy(untilMs, nowMs) : null,
        /** The last due date the side covers: a hedge maturing after it is not renewed. */
        until: target > 0 ? utcIso(untilMs) : null,
        /** The exposures this side covers (netted ones included). */
        exposures: target > 0 ? covered.map((line) => line.id) : [],
      };
    });
  });
}

/** The keeper's target rows at `nowMs`, every side a row (0 = flat). `dueLeadMs`: an exposure due within that long counts as due, so a keeper reduces the last cycle before a due date, never after (the book never above the cover). */
export function targetRowsAt(...args: Parameters<typeof targetBook>) {
  const [exposures, policy, prices, nowMs, firstCover = {}, dueLeadMs = 0] = args;
  // Within the lead each side holds the smallest target of any moment of it: nothing pushes a side up
  // before its time (a netted payable let go early would raise it above today's cover).
  const ahead = targetBook(...args);
  const books = [nowMs, ...changeTimes(exposures, policy, nowMs).filter((atMs) => atMs <= nowMs + dueLeadMs)].map(
    (atMs) => targetBook(exposures, policy, prices, atMs, firstCover),
  );
  return books[0].map((row, index) => {
    const later = ahead[index];
    const notionalUsd = Math.min(...books.map((book) => book[index].target_usd));
    // A side holds a tenor exactly when it holds an until.
    const { tenor_days: tenor, until } = later.target_usd > 0 ? later : row;
    return {
      market: row.market,
      side: row.side,
      notionalUsd,
      ...(notionalUsd === 0 || until === null ? {} : { tenorDays: tenor!, untilMs: Date.parse(until) }),
      line: index + 1,
    };
  });
}

// ---- the schedule of changes ----------------------------------------------------------------

/** Each moment after `nowMs` the target can change without the price moving: a due date, a bucket boundary. */
export function changeTimes(exposures: readonly Exposure[], policy: ExposurePolicy, nowMs: number) {
  // A bucket's boundary is `withinDays` (always > 0) before the due date; the last bucket has none.
  const times = exposures.flatMap(({ dueMs, hedgeRatio }) => [
    dueMs,
    ...(hedgeRatio === undefined ? policy.buckets.map(({ withinDays = 0 }) => dueMs - withinDays * DAY_MS) : []),
  ]);
  return [...new Set(times.filter((at) => at > nowMs))].sort((a, b) => a - b);
}

function reasonAt(exposures: readonly Exposure[], policy: ExposurePolicy, market: string, atMs: number) {
  return exposures
    .flatMap((exposure) => {
      const { bucket } = ratioAt(exposure, policy, atMs);
      if (exposure.market !== market) return [];
      if (exposure.dueMs === atMs) return `${exposure.id} due`;
      const enters = exposure.hedgeRatio === undefined && ratioAt(exposure, policy, atMs - 1).bucket !== bucket;
      return enters ? `${exposure.id} enters ${bucket}` : [];
    })
    .join(', ');
}

/** The target's changes at today's price, each due date and bucket boundary in time order. */
export function scheduleOfChanges(
  exposures: readonly Exposure[],
  policy: ExposurePolicy,
  prices: Prices,
  nowMs: number,
) {
  const times = changeTimes(exposures, policy, nowMs);
  const books = [nowMs, ...times].map((at) => targetBook(exposures, policy, prices, at));
  // Every book has the same rows in the same order: a market's buy and sell.
  return times.flatMap((at, step) =>
    books[step + 1].flatMap((row, index) => {
      const from = books[step][index].target_usd;
      // Targets are in cents: a difference that rounds to none is no change.
      const change = cents(row.target_usd - from);
      if (!change) return [];
      return {
        at: utcIso(at),
        market: row.market,
        side: row.side,
        from_usd: from,
        to_usd: row.target_usd,
        change_usd: change,
        /** What happens then: "INV-1 due", "INV-2 enters ≤30d". */
        reason: reasonAt(exposures, policy, row.market, at),
      };
    }),
  );
}

// ---- the projected cost ----------------------------------------------------------------------

/** The cost of holding the target to each due date at today's carry and fee (opens, changes and rolls each pay a fee). */
export function projectedCost(
  exposures: readonly Exposure[],
  policy: ExposurePolicy,
  prices: Prices,
  nowMs: number,
  // Market → the daily carry per side in percent, signed as the server signs it (positive: the account pays);
  // market → the platform fee as a share of the notional traded (a quote's fee / its notional), absent: unknown.
  carryDailyPct: Record<string, Record<Side, number>>,
  feeRates: Record<string, number | undefined>,
) {
  const times = changeTimes(exposures, policy, nowMs);
  return marketsOf(exposures).flatMap((market) => {
    const mine = exposures.filter((exposure) => exposure.market === market);
    const feeRate = feeRates[market];
    const carry = carryDailyPct[market] ?? { buy: 0, sell: 0 };
    // Both sides start flat (never maturing): the first step opens today's target. A step replaces a side's state.
    const flat = { notional: 0, maturityMs: Infinity };
    const state = { buy: flat, sell: flat };
    let [carryTotal, feesTotal, rolls, now] = [0, 0, 0, nowMs];
    const step = () => {
      for (const row of targetBook(exposures, policy, prices, now).filter((row) => row.market === market)) {
        const held = state[row.side];
        const target = row.target_usd;
        // Matured: rolled into the target (a fee on both legs), or let go (the target is 0 then).
        const matured = held.maturityMs <= now;
        const roll = matured && target > 0;
        const traded = matured ? (roll ? held.notional + target : 0) : Math.abs(target - held.notional);
        if (!matured && !cents(traded)) continue;
        feesTotal += traded * (feeRate ?? 0);
        rolls += Number(roll);
        // A side holding anything holds a tenor.
        state[row.side] = {
          notional: target,
          maturityMs:
            target === 0 ? Infinity : roll || held.notional === 0 ? now + row.tenor_days! * DAY_MS : held.maturityMs,
        };
      }
    };
    step();
    const lastDue = Math.max(nowMs, ...mine.map((exposure) => exposure.dueMs));
    const out = [];
    while (now < lastDue) {
      const next = Math.min(
        ...SIDES.map((side) => state[side].maturityMs),
        lastDue,
        times.find((at) => at > now) ?? lastDue,
      );
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
          /** carry + fees (carry alone when the fee is not known: no fee is counted then). */
          cost_usdc: toAccountSide(cents(carryTotal + feesTotal)),
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
    const exposed = sum(liveUsd(exposures, policy.functional, market, price, nowMs));
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

/** US GAAP's (ASC 815) dollar-offset band, in percent: a cover is effective there when it offsets 80% to 125% of the
 * change; IFRS 9 draws no such line. */
export const EFFECTIVE_BAND_PCT = FRAMEWORK_RULES.asc815.brightLine.map((share) => share * 100);

/** What an exposure gained (+) or lost (-) in USD as the price went from `fromPrice` to `toPrice`. */
export function exposureRevaluationUsd(exposure: Exposure, functional: string, fromPrice: number, toPrice: number) {
  return -signedUsd(exposure, functional, fromPrice) * ((toPrice - fromPrice) / toPrice);
}

/** A hedge's price P&L (USD) from entry to mark: the service's NDF. */
export function coverPnlUsd(side: Side, notionalUsd: number, entryPrice: number, markPrice: number) {
  return (signOf(side) * (notionalUsd * (markPrice - entryPrice))) / markPrice;
}

/** The dollar-offset ratio: how much of the exposure's change the cover offset, in percent (−cover P&L / exposure change). Undefined while the exposure has not moved. */
export function dollarOffset(coverPnl: number, exposureChange: number) {
  if (!cents(exposureChange)) return { ratio_pct: null, effective: null };
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

export function coveragePerWeek(
  exposures: readonly Exposure[],
  policy: ExposurePolicy,
  prices: Prices,
  hedges: readonly CoverHedge[],
  nowMs: number,
) {
  const markets = marketsOf(exposures);
  const inMarkets = hedges.filter((hedge) => markets.includes(hedge.market));
  const rows = [];
  const first = weekStart(Math.min(nowMs, ...inMarkets.map((hedge) => hedge.openedAtMs)));
  for (let week = first; week <= nowMs; week += 7 * DAY_MS) {
    const at = Math.min(week + 7 * DAY_MS, nowMs);
    const book = targetBook(exposures, policy, prices, at);
    for (const market of markets) {
      const price = prices[market];
      if (price === undefined) continue;
      const signed = liveUsd(exposures, policy.functional, market, price, at);
      const net = sum(signed);
      const exposure = policy.netting ? Math.abs(net) : sum(signed, Math.abs);
      // What was held then (opened at or before, not yet closed); netted, in the direction of the net exposure.
      const held = inMarkets.filter(
        (hedge) => hedge.market === market && hedge.openedAtMs <= at && (hedge.closedAtMs ?? Infinity) > at,
      );
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
        coverage_pct: !cents(exposure) ? null : Math.round((hedged / exposure) * 10_000) / 100,
      });
    }
  }
  return rows;
}

/** Carry and fees of the closed hedges of each market (in marketsOf's order), summed in cents on the account's side (- paid). */
export function costToDate(markets: readonly string[], hedges: readonly CoverHedge[]) {
  return markets.map((market) => {
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
  let best = { distance: Infinity, price: fallback };
  for (const hedge of hedges)
    for (const [at = NaN, price = 0] of [
      [hedge.openedAtMs, hedge.entryPrice],
      [hedge.closedAtMs, hedge.exitPrice],
    ] as const) {
      // A time or price not recorded is passed over (a NaN distance is never nearer).
      const distance = Math.abs(at - ms);
      if (price > 0 && distance < best.distance) best = { distance, price };
    }
  return best.price;
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
  const { functional } = policy;
  return marketsOf(exposures).flatMap((market) => {
    const mine = hedgesOf(hedges, market);
    const price = prices[market];
    const first = firstCoverOf(mine);
    const firstPrice = first?.entryPrice ?? 0;
    const t0 = first?.openedAtMs ?? 0;
    const inMarket = exposures.filter((exposure) => exposure.market === market);
    const pnlTo = (hedge: CoverHedge, to: number | undefined) =>
      hedge.entryPrice === undefined || to === undefined
        ? 0
        : coverPnlUsd(hedge.side, hedge.notionalUsd, hedge.entryPrice, to);
    // Realized when closed (the server's figure, else from the exit price); marked at today's price while open.
    const coverTotal = sum(mine, (hedge) =>
      hedge.closedAtMs === undefined ? pnlTo(hedge, price) : (hedge.grossPnlUsd ?? pnlTo(hedge, hedge.exitPrice)),
    );
    // Each exposure's signed weight: the size it was to be covered at when the first cover was struck.
    const weights = inMarket.map(
      (exposure) => signedUsd(exposure, functional, firstPrice) * ratioAt(exposure, policy, t0).ratio,
    );
    const weightSum = sum(weights);
    return inMarket.map((exposure, index) => {
      const side = coverSide(exposure, functional);
      const head = { id: exposure.id, market, cover_side: side ?? null };
      if (!first || price === undefined) return { ...head, ...UNMEASURED, price_to: price ?? null };
      const to = exposure.dueMs <= nowMs ? priceNear(mine, exposure.dueMs, price) : price;
      const change = exposureRevaluationUsd(exposure, functional, firstPrice, to);
      const cover = Math.abs(weightSum) < 1e-9 ? 0 : (coverTotal * weights[index]) / weightSum;
      // Uncovered (no FX risk, or no weight): no ratio, as for an exposure that has not moved.
      const offset = dollarOffset(cover, weights[index] === 0 ? 0 : change);
      return {
        ...head,
        first_cover_at: utcIso(t0),
        first_price: firstPrice,
        /** The price the revaluation runs to: at the due date, or today. */
        price_to: to,
        exposure_change_usd: side === undefined ? null : cents(change),
        cover_pnl_usd: side === undefined ? null : cents(cover),
        offset_pct: offset.ratio_pct,
        /** Within 80–125%; null while nothing has moved or nothing covered it. */
        effective: offset.effective,
      };
    });
  });
}
