// `open --ref REF`'s guard: the hedges carrying the reference, judged by the side model. Apart from the checks of
// pre-trade.ts, so that a quote's checks load none of the side model.
import type { HedgeClient } from '../../platform/api/client.js';
import type { Hedge } from '../../platform/api/schemas.js';
import { formatUsd } from '../../core/number-format.js';
import { MAX_PAGE_SIZE } from '../../core/wire.js';
import { PreTradeCheckError, UnresolvedError } from '../../core/errors.js';
import { SideViews } from '../book/side-book.js';
import { holdsHedge, recordStanding, stillLive, type SideBook } from '../book/book.js';
import { messageOf, safeText } from '../../core/security/safe-text.js';
import { sameReference } from '../../core/input.js';
import { shellWord } from '../../core/program.js';
import { mustStop, type PreTradePorts, type Unchecked } from './pre-trade.js';

/** `open --ref REF`: a client reference names one deal; an active hedge carrying it already refuses the open. */
export async function refuseDuplicateReference(
  ports: PreTradePorts,
  client: HedgeClient,
  reference: string,
  unchecked: Unchecked,
) {
  let hedges;
  try {
    // Every hedge carrying it, up to MAX_PAGE_SIZE in one request: the active one need not be the newest.
    hedges = await client.listHedges({ clientReference: reference, limit: MAX_PAGE_SIZE });
  } catch (error) {
    if (mustStop(error)) throw error;
    unchecked.items.push('the duplicate reference');
    unchecked.warn(
      `Could not check whether an active hedge already carries client reference ${JSON.stringify(reference)} (GET /hedges: ${messageOf(error)}); the open goes on.`,
    );
    return;
  }
  const carrying = hedges.filter((hedge) => sameReference(hedge.client_reference, reference));
  // What each status says is the side model's (book.ts): opening and filled are active, a status it does not know is not.
  const unknown = carrying.filter((hedge) => recordStanding(hedge).standing === 'settling');
  if (unknown.length) {
    ports.notify({
      kind: 'reference-unknown-status',
      level: 'note',
      text: `Note: ${unknown.map((hedge) => `${hedge.id} (${hedge.status})`).join(', ')} carries this reference with a status hedge does not know; not counted as active.`,
    });
  }
  let active = carrying.filter((hedge) => stillLive(hedge));
  // A filled hedge is as its side's views show it (book.ts): held on a side in step (the history unread), ended (a
  // server may leave an early-closed hedge `filled`, which the history lists), or neither when the history may be cut.
  const filled = active.filter((hedge) => recordStanding(hedge).standing === 'filled');
  const books = filled.length ? await sideBooksOf(client, filled) : [];
  const bookOf = (hedge: Hedge) => books[filled.indexOf(hedge)] as SideBook | undefined;
  const held = filled.filter((hedge) => bookOf(hedge) && holdsHedge(bookOf(hedge)!, hedge.id));
  if (held.length) active = held;
  else {
    active = active.filter((hedge) => !bookOf(hedge)?.ended.includes(hedge.id));
    // Only filled ones left, and a history that may list them past what was read: neither in use nor free.
    const count = active.every((hedge) => recordStanding(hedge).standing === 'filled')
      ? active.map((hedge) => bookOf(hedge)?.historyCut).find((cut) => cut !== undefined)
      : undefined;
    if (active.length && count !== undefined)
      throw new UnresolvedError(
        `Whether hedge ${safeText(active[0].id)}, which carries client reference ${JSON.stringify(reference)}, has ended cannot be told: it is filled on its record, and the history read may be cut at ${count} records (the server gave no next page; it may not read the page size hedge sends). Nothing was sent.`,
        {
          details: { client_reference: reference, hedge_ids: active.map((hedge) => hedge.id), history_read: count },
          hint: `\`hedge doctor\` shows how the server pages; set HEDGE_WIRE_PAGE_SIZE_PARAM to its page-size parameter. Once it has ended, or to open another one anyway, add --allow-duplicate-ref.`,
        },
      );
  }
  if (!active.length) return;
  const first = active[0];
  throw new PreTradeCheckError(
    'duplicate_client_reference',
    `An active hedge already carries client reference ${JSON.stringify(reference)}: ${first.id} (${first.status}, ${first.side} ${formatUsd(first.notional_usd)} on ${first.market}). Nothing was sent.`,
    { client_reference: reference, hedge_ids: active.map((hedge) => hedge.id) },
    `Look at it with \`${ports.hedgeCommand('hedges', '--ref', shellWord(reference))}\`; to open another one anyway, add --allow-duplicate-ref.`,
  );
}

/** The book of each hedge's side, as one read of its views shows it; none when they cannot be read. */
async function sideBooksOf(client: HedgeClient, filled: readonly Hedge[]) {
  try {
    const views = await SideViews.read(client);
    return await Promise.all(filled.map((hedge) => views.book(hedge.market, hedge.side)));
  } catch (error) {
    if (mustStop(error)) throw error;
    return [];
  }
}
