import type { MarketFacts } from './wire.js';
import { UsageError } from './errors.js';
import { echo } from './input.js';

/** The quote currency of a market: a pair quoted against USDT (`USDTNGN` → `NGN`, naira per USDT). */
export function quoteCurrencyOf(market: string) {
  return /^USDT([A-Z]{3})$/.exec(market.toUpperCase())?.[1];
}

/** USDT and USDC are read as USD: a company's books and exposures are kept in a currency, not a token. */
export const asFunctional = (currency: string) => (currency === 'USDT' || currency === 'USDC' ? 'USD' : currency);

/** A market's two currencies: as its entry in the markets list names them (`base`/`quote`, or `base_currency`/`quote_currency`: the spec shows neither), else read from its id (`USDTNGN`: USDT and NGN); undefined when neither says. */
export function pairOf(market: string, listed?: Readonly<Record<string, unknown>>) {
  const code = (value: unknown) =>
    typeof value === 'string' && /^[A-Z]{2,6}$/i.test(value) ? value.toUpperCase() : undefined;
  const base = code(listed?.base_currency ?? listed?.base);
  const quote = code(listed?.quote_currency ?? listed?.quote);
  if (base && quote) return { base, quote };
  const fromId = quoteCurrencyOf(market);
  return fromId ? { base: 'USDT', quote: fromId } : undefined;
}

/** What a side protects against, from the pair (docs/exposures.md "Direction by economics"): the price is quote currency per base, so `buy` gains as it rises (the quote currency weakens), `sell` as it falls. */
export function sideGains(side: 'buy' | 'sell', { base, quote }: { base: string; quote: string }) {
  return side === 'buy'
    ? `buy gains as ${quote} weakens (more ${quote} per ${base})`
    : `sell gains as ${quote} strengthens (fewer ${quote} per ${base})`;
}

/** What a side covers, in the user's terms, for books kept in USD (docs/exposures.md "Direction by economics"): `buy`
 * a receivable in the quote currency (its value falls as that currency weakens), `sell` a payable in it. */
export function sideCovers(side: 'buy' | 'sell', { quote }: { quote: string }) {
  return `${side} covers ${quote} ${side === 'buy' ? 'receivables' : 'payables'} (books in USD)`;
}

/** Which side covers a payable or a receivable in the quote currency, for books kept in USD: the inverse of sideCovers. */
export const sideCovering = (has: 'payable' | 'receivable') =>
  has === 'payable' ? ('sell' as const) : ('buy' as const);

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
