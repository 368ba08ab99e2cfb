// The hedge a typed id names: the id whole, or the part of one a table showed (its start, its end,
// or both around `…`), found in the hedge list as git finds a short hash.
import type { HedgeClient } from '../../platform/api/client.js';
import { echo, idMatches, isWholeHedgeId } from '../../core/input.js';
import { ApiError, UsageError } from '../../core/errors.js';
import { safeText } from '../../core/security/safe-text.js';

const NAMED = 5;

/** GET /hedges/{id} for a whole id (its 404 stands unless the list holds it in another case); a part of one is looked
 * up in the list first. */
export async function findHedge(client: HedgeClient, typed: string) {
  let unknown: ApiError | undefined;
  if (isWholeHedgeId(typed)) {
    try {
      return await client.getHedge(typed);
    } catch (error) {
      if (!(error instanceof ApiError) || error.status !== 404) throw error;
      unknown = error;
    }
  }
  const list = await client.readHedges({ limit: Infinity, checkCut: true });
  const ids = [...new Set(list.items.map((hedge) => hedge.id).filter((id) => idMatches(typed, id)))];
  if (ids.length > 1) {
    const more = ids.length > NAMED ? ` and ${ids.length - NAMED} more` : '';
    throw new UsageError(
      `id: ${echo(typed)} matches ${ids.length} hedges: ${ids.slice(0, NAMED).map(safeText).join(', ')}${more}.`,
      { hint: 'Type more of the id.' },
    );
  }
  // The server's 404 for a whole id is its answer (a list read whole may still find the id in another case).
  if (unknown && !ids.length) throw unknown;
  // A list that may be cut cannot tell: the hedge meant may be past what was read, beside or instead of a match.
  if (list.more || list.cutAt !== undefined) {
    const seen = ids.length ? ` (of those, ${safeText(ids[0])} matches)` : '';
    throw new UsageError(
      `id: hedge cannot tell which hedge ${echo(typed)} names: ${unknown ? 'no hedge has it as its whole id, and ' : ''}it read ${list.items.length} hedges${seen} where the server may hold more; type the whole id (hdg_…), which the server is asked for by name.`,
    );
  }
  if (ids.length === 1) return client.getHedge(ids[0]);
  throw new UsageError(`id: no hedge of this account matches ${echo(typed)}.`, {
    hint: 'List your hedges with `hedge hedges` and copy the id from there.',
  });
}
