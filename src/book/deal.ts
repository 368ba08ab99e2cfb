// One deal followed across its hedges (issue 48). A deal is the `client_reference` its hedges carry:
// a roll, a keeper's step and apply keep it on the new hedge, so a deal rolled twice is three
// hedges. The history is the realized side of it, but the spec does not show whether a closed-hedge
// record carries the reference: where one does not, it is joined from the hedge records by hedge id.
// Reads only; what is said about it is the command's.
import type { HedgeClient } from '../api/client.js';
import type { Hedge } from '../api/schemas.js';
import { sameReference } from '../core/input.js';
import { MAX_PAGE_SIZE } from '../api/wire/unspecified.js';
import { messageOf } from '../security/safe-text.js';

export interface DealHedges {
  reference: string;
  /** Every hedge the records show carrying the reference, newest first. */
  hedges: Hedge[];
  /** Ids of those hedges: a history record without a reference of its own is the deal's when its hedge is one. */
  ids: ReadonlySet<string>;
  /** Its hedges still held or being opened: filled, submitted, or a status the spec does not name (never final). */
  live: Hedge[];
  /** The records may hold more of the deal's hedges than were read (the server signalled more). */
  more: boolean;
  /** Why the records could not be read: then only the history's own references count. */
  problem?: string;
}

const ENDED = new Set(['closed', 'failed']);

/**
 * The deal's hedges from their records: GET /hedges with the spec's `client_reference` filter, every
 * page the server offers — and filtered here again, as the design asks of a query a server may not
 * honour. A failed read is a problem to say, not a failure of the command.
 */
export async function readDeal(client: HedgeClient, reference: string): Promise<DealHedges> {
  try {
    const list = await client.readHedges({ clientReference: reference, limit: Number.POSITIVE_INFINITY });
    const hedges = list.items.filter((hedge) => sameReference(hedge.client_reference, reference));
    return {
      reference,
      hedges,
      ids: new Set(hedges.map((hedge) => hedge.id)),
      live: hedges.filter((hedge) => !ENDED.has(hedge.status)),
      more: list.more,
    };
  } catch (error) {
    return {
      reference,
      hedges: [],
      ids: new Set(),
      live: [],
      more: false,
      problem: `GET /hedges failed (${messageOf(error)})`,
    };
  }
}

/** The reference of each hedge the records show (the newest page: MAX_PAGE_SIZE), for history records that carry none. */
export interface HedgeReferences {
  referenceOf(hedgeId: string): string | undefined;
  problem?: string;
}

export async function readHedgeReferences(client: HedgeClient): Promise<HedgeReferences> {
  try {
    const hedges = await client.listHedges({ limit: MAX_PAGE_SIZE });
    const byId = new Map(
      hedges.flatMap((hedge) =>
        typeof hedge.client_reference === 'string' && hedge.client_reference !== ''
          ? [[hedge.id, hedge.client_reference] as const]
          : [],
      ),
    );
    return { referenceOf: (hedgeId) => byId.get(hedgeId) };
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
    ...(deal.problem !== undefined ? { problem: deal.problem } : {}),
  };
}
