// One deal followed across its hedges by `client_reference`; where a closed-hedge record lacks the
// reference, it is joined from the hedge records by id.
import type { HedgeClient } from '../../platform/api/client.js';
import { MAX_PAGE_SIZE } from '../../core/wire.js';
import { sameReference } from '../../core/input.js';
import { messageOf } from '../../core/security/safe-text.js';
import { FINAL } from './book.js';

/** A deal's hedges (`live`: those not ended), and `nowMs`: the server's time when read, which its maturities are shown against. */
export type DealHedges = Awaited<ReturnType<typeof readDeal>>;

/** The deal's hedges: GET /hedges filtered by `client_reference` on the server and again here (a server may not honour it); a failed read is a problem to say, not a failure; `read` says whether it may be short. */
export async function readDeal(client: HedgeClient, reference: string) {
  let problem: string | undefined;
  const list = await client
    .readHedges({ clientReference: reference, limit: Infinity, checkCut: true })
    .catch((error: unknown) => {
      problem = `GET /hedges failed (${messageOf(error)})`;
      return { items: [], more: false };
    });
  const hedges = list.items.filter((hedge) => sameReference(hedge.client_reference, reference));
  return {
    reference,
    problem,
    read: { ...list, limit: Infinity },
    ids: new Set(hedges.map((hedge) => hedge.id)),
    live: hedges.filter((hedge) => !FINAL.has(hedge.status)),
    nowMs: client.transport.serverNow().bestMs,
  };
}

/** The reference of each hedge the records show (the newest page: MAX_PAGE_SIZE), for history records that carry none. */
export interface HedgeReferences {
  referenceOf(hedgeId: string): string | undefined;
  problem?: string;
  /** The hedge records read, which may be short of `limit` (lists' `more` and `cutAt`). */
  read?: ShortRead;
}

/** A list read as far as `limit`, and whether it may hold less than the server has. */
export interface ShortRead {
  items: readonly unknown[];
  more: boolean;
  cutAt?: number;
  limit: number;
}

export async function readHedgeReferences(client: HedgeClient): Promise<HedgeReferences> {
  try {
    const list = await client.readHedges({ limit: MAX_PAGE_SIZE, checkCut: true });
    const byId = new Map(
      list.items.flatMap((hedge) => (hedge.client_reference ? [[hedge.id, hedge.client_reference]] : [])),
    );
    return { referenceOf: (hedgeId) => byId.get(hedgeId), read: { ...list, limit: MAX_PAGE_SIZE } };
  } catch (error) {
    return {
      referenceOf: () => undefined,
      problem: `GET /hedges failed (${messageOf(error)})`,
    };
  }
}

/** The deal's references as a join: its own reference for each of its hedges. */
export function dealReferences(deal: DealHedges): HedgeReferences {
  return {
    referenceOf: (hedgeId) => (deal.ids.has(hedgeId) ? deal.reference : undefined),
    problem: deal.problem,
    read: deal.read,
  };
}
