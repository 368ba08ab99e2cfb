import type { MarketFacts } from './wire.js';
import { UsageError } from './errors.js';
import { echo } from './input.js';

/** The quote currency of a market: a pair quoted against USDT (`USDTNGN` → `NGN`, naira per USDT). */
export function quoteCurrencyOf(market: string) {
  return /^USDT([A-Z]{3})$/.exec(market.toUpperCase())?.[1];
}

export function findMarket<M extends { market: string }>(markets: readonly M[], market: string) {
  return markets.find((entry) => entry.market.toUpperCase() === market.toUpperCase());
}

/** The live list decides what is tradable. */
export function unlistedMarketError(markets: MarketFacts[], market: string) {
  const listed = markets.map((entry) => entry.market);
  return new UsageError(
    `market: ${echo(market)} is not listed for this account; listed: ${listed.join(', ') || 'none'}.`,
  );
}
