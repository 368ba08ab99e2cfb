// The live markets list decides what is tradable (never a hard-coded list).
import type { HedgeClient } from '../../platform/api/client.js';
import { findMarket, unlistedMarketError } from '../../core/markets.js';
import { isRejection } from '../../core/errors.js';

/** A market the live list does not show is refused (exit 2); its entry otherwise. */
export async function requireListedMarket(client: HedgeClient, market: string) {
  const { markets } = await client.listMarkets();
  const found = findMarket(markets, market);
  if (!found) throw unlistedMarketError(markets, market);
  return found;
}

const NOT_ABOUT_THE_MARKET =
  'exposure_exceeded capacity_exceeded insufficient_balance idempotency_key_reuse rate_limited'.split(' ');

/** A refused request naming `market`, explained from the markets list: not listed or not open → the API's error (it was
 * sent: the server's answer stands) with a hint naming the markets that are; else the refusal as it was. Returns the
 * error to throw. */
export async function explainMarketRefusal(client: HedgeClient, market: string, error: unknown) {
  // A 404 or 409 may be the market's (not found, not open); a 401 or 403 is the key's.
  if (!isRejection(error) || [401, 403].includes(error.status) || NOT_ABOUT_THE_MARKET.includes(error.code))
    return error;
  const list = await client.listMarkets().catch(() => undefined);
  if (!list) return error;
  const found = findMarket(list.markets, market);
  if (!found)
    return error.withHint(
      `${market} is not on the markets list; listed: ${list.markets.map((entry) => entry.market).join(', ') || 'none'}.`,
    );
  if (found.status === 'open') return error;
  const open = list.markets.filter((entry) => entry.status === 'open').map((entry) => entry.market);
  return error.withHint(
    `${found.market} is ${found.status} on the markets list; open now: ${open.join(', ') || 'none'}.`,
  );
}
