// One deal followed across its hedges by `client_reference`; where a closed-hedge record lacks the
// reference, it is joined from the hedge records by id.
import type { HedgeClient } from '../../platform/api/client.js';
import { MAX_PAGE_SIZE } from '../../core/wire.js';
import { sameReference } from '../../core/input.js';
import { messageOf, safeText } from '../../core/security/safe-text.js';
import { stillLive } from './book.js';

/** GET /hedges as far as `limit` (filtered by `clientReference` on the server); a failed read is a problem to say (its
 * `error` for a caller it fails), not a failure; `read`: the records read, which may be short of what the server holds
 * (lists' `more` and `cutAt`). */
async function readRecords(client: HedgeClient, limit: number, clientReference?: string) {
  try {
    const list = await client.readHedges({ clientReference, limit, checkCut: true });
    return { items: list.items, read: { ...list, limit } };
  } catch (error) {
    return { items: [], problem: `GET /hedges failed (${safeText(messageOf(error))})`, error };
  }
}

/** A deal's hedges (`live`: those the side model holds live, neither ended nor settling, given the hedges a history
 * read lists closed), and `nowMs`: the server's time when read, which its maturities are shown against. */
export type DealHedges = Awaited<ReturnType<typeof readDeal>>;

/** How history records that carry no reference are joined to one: the reference of a hedge by its id. */
export type HedgeReferences = Pick<DealHedges, 'referenceOf'>;

/** The deal's hedges: GET /hedges filtered by `client_reference` on the server and again here (a server may not honour
 * it); as a join, its own reference for each of its hedges. */
export async function readDeal(client: HedgeClient, reference: string) {
  const { items, problem, error, read } = await readRecords(client, Infinity, reference);
  const hedges = items.filter((hedge) => sameReference(hedge.client_reference, reference));
  const ids = new Set(hedges.map((hedge) => hedge.id));
  return {
    reference,
    problem,
    error,
    read,
    hedges,
    referenceOf: (hedgeId: string) => (ids.has(hedgeId) ? reference : undefined),
    live: (ended?: ReadonlySet<string>) => hedges.filter((hedge) => stillLive(hedge, ended)),
    nowMs: client.transport.serverNow().bestMs,
  };
}

/** The reference of each hedge the records show (the newest page: MAX_PAGE_SIZE), for history records that carry none. */
export async function readHedgeReferences(client: HedgeClient) {
  const { items, ...read } = await readRecords(client, MAX_PAGE_SIZE);
  const byId = new Map(items.flatMap((hedge) => (hedge.client_reference ? [[hedge.id, hedge.client_reference]] : [])));
  return { ...read, referenceOf: (hedgeId: string) => byId.get(hedgeId) };
}
