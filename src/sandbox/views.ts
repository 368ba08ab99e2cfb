// Wire shapes of the resources (spec section 2 and src/platform/api/wire-contract.md).

import type { Book, OpenRequest } from './book.js';
import type { WireDialect } from './dialects.js';
import { type AccountState, type HedgeState, type PositionBasis, toIso } from './engine-state.js';
import {
  type MarketDefinition,
  dailyCarryRatePct,
  grossPnlUsd,
  platformFeeUsdc,
  reductionClosesFully,
  roundExecutionPrice,
  roundMoney,
  roundRatePct,
  type Side,
} from './market-model.js';

/** The status a client sees: in some dialects an early close leaves the hedge `filled`. */
export function wireStatus(hedge: HedgeState, dialect: WireDialect, nowMs: number) {
  if (hedge.closeReason === 'closed')
    return nowMs - hedge.closedAtMs! < dialect.closedSettlingMs ? 'settling' : dialect.statusAfterEarlyClose;
  const change = hedge.pendingChange;
  // Closing: a close, or a reduce of about the whole notional, has been accepted and has not landed yet.
  if (
    hedge.status === 'filled' &&
    dialect.closingStatus !== null &&
    change &&
    (change.action === 'close' ||
      (change.action === 'reduce' && reductionClosesFully(hedge.notionalUsd, change.notionalUsd)))
  )
    return dialect.closingStatus;
  return hedge.status;
}

export function hedgeView(hedge: HedgeState, dialect: WireDialect, nowMs: number) {
  const status = wireStatus(hedge, dialect, nowMs);
  return {
    id: hedge.id,
    ...(hedge.clientReference !== undefined && { client_reference: hedge.clientReference }),
    market: hedge.market,
    side: hedge.side,
    // Settling after an early close (closedSettlingMs): its notional already gone.
    notional_usd: status === 'settling' && hedge.closeReason === 'closed' ? 0 : roundMoney(hedge.notionalUsd),
    tenor_days: hedge.tenorDays,
    status,
    order_tx_hash: hedge.orderTxHash,
    ...(hedge.fillTxHash !== undefined && { fill_tx_hash: hedge.fillTxHash }),
    ...(hedge.struckRate !== undefined && { struck_rate: hedge.struckRate }),
    units: roundMoney(hedge.notionalUsd),
    order_key: hedge.orderKey,
    opened_at: toIso(hedge.openedAtMs),
    ...(hedge.filledAtMs !== undefined && { filled_at: toIso(hedge.filledAtMs) }),
    maturity_at: toIso(hedge.maturityAtMs),
    // A hedge shown as still filled after its close carries no closing time either.
    ...(hedge.closedAtMs !== undefined && status === 'closed' && { closed_at: toIso(hedge.closedAtMs) }),
  };
}

/**
 * One line per open side (spec: "aggregated per side"), and the account's figures, as the views show them at `nowMs`
 * (with trailing views, all of it trails).
 */
export function positionViews(book: Book, account: AccountState, nowMs: number) {
  const { asOfMs, figures, positions } = book.shownBook(account, nowMs);
  const linesBySide: Record<string, PositionLine[]> = {};
  for (const hedge of positions)
    (linesBySide[`${hedge.market}:${hedge.side}`] ??= []).push(hedgeLine(book, hedge, asOfMs));
  return { figures, lines: Object.values(linesBySide).map(aggregateSide) };
}

type PositionLine = ReturnType<typeof hedgeLine>;

function hedgeLine(book: Book, hedge: PositionBasis, nowMs: number) {
  const entry = hedge.entryPrice!;
  const mark = book.midPrice(hedge.market, nowMs);
  return {
    market: hedge.market,
    side: hedge.side,
    hedge_id: hedge.id,
    notional_usd: roundMoney(hedge.notionalUsd),
    units: roundMoney(hedge.notionalUsd),
    entry_price: entry,
    mark_price: mark,
    ...money(
      roundMoney(grossPnlUsd(hedge.side, hedge.notionalUsd, entry, mark)),
      roundMoney(book.accruedCarryAt(hedge, nowMs)),
      platformFeeUsdc(hedge.notionalUsd),
      hedge.marginUsdc,
    ),
    opened_at: toIso(hedge.openedAtMs),
    maturity_at: toIso(hedge.maturityAtMs),
  };
}

/** A line's money: its P&L net of carry, and what closing it returns (margin plus net P&L, less the close fee). */
function money(gross: number, carry: number, closeFee: number, margin: number) {
  const net = roundMoney(gross - carry);
  return {
    gross_pnl_usd: gross,
    accrued_carry_usdc: carry,
    net_pnl_usd: net,
    close_fee_usdc: closeFee,
    margin_usdc: margin,
    net_margin_usd: roundMoney(margin + net - closeFee),
  };
}

/**
 * Several hedges on one side (dialects that allow it) make one line: amounts summed from each hedge's rounded
 * figures, so `net_margin_usd` is still exactly what closing them all returns; entry weighted by notional; the
 * identity (id, times) of the newest hedge, the one add acts on.
 */
function aggregateSide(lines: PositionLine[]) {
  if (lines.length === 1) return lines[0];
  const total = (key: keyof ReturnType<typeof money> | 'notional_usd' | 'units') =>
    roundMoney(lines.reduce((sum, line) => sum + line[key], 0));
  const notional = total('notional_usd');
  const weightedEntry = lines.reduce((sum, line) => sum + line.entry_price * line.notional_usd, 0) / notional;
  return {
    ...lines[lines.length - 1],
    notional_usd: notional,
    units: total('units'),
    entry_price: roundExecutionPrice(weightedEntry),
    ...money(total('gross_pnl_usd'), total('accrued_carry_usdc'), total('close_fee_usdc'), total('margin_usdc')),
  };
}

/** The account as of the same moment as the positions list. */
export function accountView(book: Book, account: AccountState, nowMs: number) {
  const { figures, lines: positions } = positionViews(book, account, nowMs);
  return {
    balance_usdc: figures.balanceUsdc,
    margin_in_use_usdc: figures.marginInUseUsdc,
    open_exposure_usd: figures.openExposureUsd,
    unrealized_pnl_usd: roundMoney(positions.reduce((sum, position) => sum + position.net_pnl_usd, 0)),
    open_positions: positions.length,
    available_exposure_usd: book.exposureLeftUsd(figures.openExposureUsd),
    exposure_cap_usd: book.config.exposureCapUsd,
  };
}

export function marketView(book: Book, { market, status }: MarketDefinition, nowMs: number) {
  const openInterest = book.totalOpenInterest(market);
  const bySide = (value: (side: Side) => number) => ({ buy: value('buy'), sell: value('sell') });
  return {
    market,
    status,
    price: book.midPrice(market, nowMs),
    available_capacity_usd: bySide((side) => book.availableCapacityUsd(market, side)),
    net_rate_daily_pct: bySide((side) => dailyCarryRatePct(openInterest, side)),
  };
}

export function quoteView(book: Book, { market, side, notionalUsd, tenorDays }: OpenRequest, nowMs: number) {
  const quote = book.quote(market, side, notionalUsd, nowMs);
  const dailyCarry = (notionalUsd * quote.dailyCarryRatePct) / 100;
  return {
    market,
    side,
    notional_usd: notionalUsd,
    tenor_days: tenorDays,
    maturity: toIso(nowMs + tenorDays * book.config.dayMs),
    pricing: {
      market_price: quote.marketPrice,
      execution_price: quote.executionPrice,
      price_impact_usd: quote.priceImpactUsd,
    },
    carry: {
      daily_usdc: roundMoney(dailyCarry),
      daily_rate_pct: quote.dailyCarryRatePct,
      total_usdc: roundMoney(dailyCarry * tenorDays),
      total_rate_pct: roundRatePct(quote.dailyCarryRatePct * tenorDays),
    },
    upfront: {
      required_margin_usdc: quote.requiredMarginUsdc,
      platform_fee_usdc: quote.platformFeeUsdc,
      total_upfront_usdc: roundMoney(quote.requiredMarginUsdc + quote.platformFeeUsdc),
    },
  };
}
