// Pre-trade checks before open and add (design.md "Safety"): the market is listed (else bad input, exit 2) and
// open, and the notional fits both the side's capacity and the account's exposure headroom.
import type { AccountFacts as Account, MarketFacts as Market } from '../../core/wire.js';
import { formatUsd } from '../../core/number-format.js';
import { DAY_MS, TENORS, type Side } from '../../core/vocabulary.js';
import { PreTradeCheckError } from '../../core/errors.js';
import { findMarket, unlistedMarketError } from '../../core/markets.js';

export interface PreTradeRequest {
  market: string;
  side: Side;
  notionalUsd: number;
  /** "open" or "add": named in the messages. */
  action: 'open' | 'add';
}

const SKIP_HINT = 'Lower the notional, or pass --skip-checks to leave the decision to the server.';

/** Only the market checks (listed, open): used before the notional is known (the wizard). */
export function marketProblem(markets: Market[], market: string) {
  const found = findMarket(markets, market);
  if (!found) return unlistedMarketError(markets, market);
  if (found.status !== 'open') {
    return new PreTradeCheckError(
      'market_disabled',
      `Market ${found.market} is ${found.status}, not open for trading.`,
      { market: found.market, status: found.status },
      'Try again later; `hedge markets` shows its status.',
    );
  }
}

/** The notional checks for one side of a listed market; `freedUsd` counts as back in the side's capacity and the
 * account's headroom. */
export function notionalProblem(
  market: Market,
  account: Pick<Account, 'available_exposure_usd'>,
  request: Pick<PreTradeRequest, 'side' | 'notionalUsd' | 'action'>,
  freedUsd = 0,
) {
  const { side, notionalUsd, action } = request;
  const headroom = account.available_exposure_usd + freedUsd;
  if (notionalUsd > headroom) {
    return new PreTradeCheckError(
      'exposure_exceeded',
      `Pre-trade check: ${action === 'add' ? 'adding' : 'opening'} ${formatUsd(notionalUsd)} would push the account over its exposure cap: ${formatUsd(headroom)} of headroom left.`,
      { requested_usd: notionalUsd, available_exposure_usd: headroom },
      SKIP_HINT,
    );
  }
  const capacity = market.available_capacity_usd[side] + freedUsd;
  if (notionalUsd > capacity) {
    return new PreTradeCheckError(
      'capacity_exceeded',
      `Pre-trade check: ${formatUsd(notionalUsd)} is more than the ${side} capacity of ${market.market}: ${formatUsd(capacity)} available.`,
      { side, requested_usd: notionalUsd, available_capacity_usd: capacity },
      SKIP_HINT,
    );
  }
}

export function preTradeProblem(
  facts: { markets: Market[]; account: Pick<Account, 'available_exposure_usd'> },
  request: PreTradeRequest,
  freedUsd?: number,
) {
  return (
    marketProblem(facts.markets, request.market) ??
    notionalProblem(findMarket(facts.markets, request.market)!, facts.account, request, freedUsd)
  );
}

/** Said (not refused) before quoting an open on a side the positions list already shows: the real service may allow several hedges per side, or answer 409; adding keeps one hedge and its maturity. */
export function sideAlreadyOpenNote(
  open: { market: string; side: Side; notionalUsd?: number; hedgeId?: string },
  addCommand: string,
) {
  const size = open.notionalUsd === undefined ? '' : formatUsd(open.notionalUsd);
  const hedge = open.hedgeId ? `hedge ${open.hedgeId}` : '';
  const detail = [size, hedge].filter(Boolean).join(', ');
  return (
    `Note: the ${open.side} side of ${open.market} is already open${detail ? ` (${detail})` : ''}. ` +
    `To add to that hedge (same maturity): \`${addCommand}\`. Opening anyway asks the service for another hedge on the same side, which it may refuse.`
  );
}

/** The tenor to quote an addition with. */
export function additionQuoteTenor(maturityAt: string | undefined, nowMs: number, hedgeTenor?: number) {
  const daysLeft = daysUntil(maturityAt, nowMs);
  if (daysLeft === undefined) return TENORS.find((tenor) => tenor === hedgeTenor) ?? TENORS[0];
  return TENORS.find((tenor) => tenor >= daysLeft) ?? TENORS[TENORS.length - 1];
}

/** Days (fractional, never below zero) from now to a maturity; undefined when it cannot be read. */
export function daysUntil(maturityAt: string | undefined, nowMs: number) {
  const maturityMs = maturityAt === undefined ? Number.NaN : Date.parse(maturityAt);
  return Number.isNaN(maturityMs) ? undefined : Math.max(0, (maturityMs - nowMs) / DAY_MS);
}
