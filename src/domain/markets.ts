import type { HedgeClient, MarketList } from '../api/client.js';
import type { Market } from '../api/schemas.js';
import { UsageError } from '../errors.js';
import { echo } from './input.js';

/** The live list decides what is tradable: an unlisted market names the listed ones (exit 2). */
export async function requireListedMarket(client: HedgeClient, market: string): Promise<{ market: Market; list: MarketList }> {
  const list = await client.listMarkets();
  const found = list.markets.find((entry) => entry.market.toUpperCase() === market);
  if (!found) {
    const listed = list.markets.map((entry) => entry.market);
    throw new UsageError(`market: ${echo(market)} is not listed for this account; listed: ${listed.join(', ') || 'none'}.`);
  }
  return { market: found, list };
}
