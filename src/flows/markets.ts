// The live markets list decides what is tradable (never a hard-coded list).
import type { HedgeClient, MarketList } from '../api/client.js';
import type { Market } from '../api/schemas.js';
import { findMarket, unlistedMarketError } from '../domain/markets.js';

export async function requireListedMarket(client: HedgeClient, market: string): Promise<{ market: Market; list: MarketList }> {
  const list = await client.listMarkets();
  const found = findMarket(list.markets, market);
  if (!found) throw unlistedMarketError(list.markets, market);
  return { market: found, list };
}
