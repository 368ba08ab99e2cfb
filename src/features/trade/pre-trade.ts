// The pre-trade checks against live facts: reads the markets list and the account (in parallel) and throws the
// first problem the pure rules (domain/pre-trade.ts) find.
import type { HedgeClient } from '../../platform/api/client.js';
import type { Account, Hedge, Market } from '../../platform/api/schemas.js';
import { formatUsd } from '../../core/number-format.js';
import { preTradeProblem, type PreTradeRequest } from './pre-trade-rules.js';
import { findMarket, unlistedMarketError } from '../../core/markets.js';
import { MAX_PAGE_SIZE } from '../../core/wire.js';
import {
  ApiError,
  AuthError,
  InterruptedError,
  PreTradeCheckError,
  UnresolvedError,
  UsageError,
} from '../../core/errors.js';
import type { CommandContext } from '../../platform/runtime/context.js';
import { SideViews } from '../book/side-book.js';
import { holdsHedge, recordStanding, stillLive, type SideBook } from '../book/book.js';
import { messageOf, safeText } from '../../core/security/safe-text.js';
import { sameReference } from '../../core/input.js';
import { shellWord } from '../../core/program.js';

/** What the checks before a trade use: they read the book and say what they saw. */
type PreTradePorts = Pick<CommandContext, 'notify' | 'hedgeCommand'>;

/** What the optional checks could not check (short names: "the exposure headroom"), said before the write (and in a live confirmation). */
export function uncheckedList(ports: PreTradePorts) {
  return {
    items: [] as string[],
    warn: (text: string) => ports.notify({ kind: 'check-not-run', level: 'warn', text }),
  };
}
type Unchecked = ReturnType<typeof uncheckedList>;

/** A live confirmation question that says what was not checked. */
export function questionWithUnchecked(question: string, unchecked: Unchecked) {
  if (!unchecked.items.length) return question;
  return `${question.replace(/\?$/, '')} — not checked: ${unchecked.items.join(', ')}?`;
}

/** A failed read that must still stop the command: the key refused (the write would be too), a Ctrl-C, bad input. */
function mustStop(error: unknown) {
  return (
    error instanceof AuthError ||
    error instanceof InterruptedError ||
    error instanceof UsageError ||
    (error instanceof ApiError && [401, 403].includes(error.status))
  );
}

/** Headroom and capacity without a limit: the check that needs them is skipped. */
const NO_LIMIT = Number.POSITIVE_INFINITY;

/** Fetches the facts and throws the first failed check; what could not be read is said, and the check skipped
 * (without `unchecked`, thrown). `freedUsd` counts as back in the side's capacity and the account's headroom. */
export async function runPreTradeChecks(
  client: HedgeClient,
  request: PreTradeRequest,
  unchecked?: Unchecked,
  freedUsd = 0,
  listed?: Market[],
) {
  const { market, side } = request;
  const [listRead, accountRead] = await Promise.allSettled([
    listed ? { markets: listed } : client.listMarkets(),
    client.getAccount(),
  ]);
  const unread = [
    [listRead, ['the market status', 'the side capacity'], `the market's status and ${side} capacity`, '/markets'],
    [accountRead, ['the exposure headroom'], "the account's exposure headroom", '/account'],
  ] as const;
  for (const [read] of unread)
    if (read.status === 'rejected' && (!unchecked || mustStop(read.reason))) throw read.reason;
  for (const [read, items, what, path] of unread) {
    if (read.status === 'fulfilled') continue;
    unchecked?.items.push(...items);
    unchecked?.warn(
      `Pre-trade check: ${what} could not be checked (GET ${path}: ${messageOf(read.reason)}); the ${request.action} goes on and the server decides.`,
    );
  }
  // What was not read limits nothing: an open market without a capacity limit, an account without a headroom limit.
  const account =
    accountRead.status === 'fulfilled' ? accountRead.value : ({ available_exposure_usd: NO_LIMIT } as Account);
  const problem = preTradeProblem(
    {
      markets:
        listRead.status === 'fulfilled'
          ? listRead.value.markets.map((listed) =>
              listed.market.toUpperCase() === market
                ? {
                    ...listed,
                    available_capacity_usd: {
                      ...listed.available_capacity_usd,
                      [side]: listed.available_capacity_usd[side] + freedUsd,
                    },
                  }
                : listed,
            )
          : [{ market, status: 'open', available_capacity_usd: { buy: NO_LIMIT, sell: NO_LIMIT } } as Market],
      account: { ...account, available_exposure_usd: account.available_exposure_usd + freedUsd },
    },
    request,
  );
  if (problem) throw problem;
}

/** The markets list before a request that names a market: one it does not show is refused (exit 2) before anything else is
 * sent; a list that cannot be read (undefined) leaves the decision to the server, unless the key was refused or the run stopped. */
export async function readListedMarkets(client: HedgeClient, market: string) {
  const listed = await client.listMarkets().then(
    ({ markets }) => markets,
    (error: unknown): undefined => {
      if (mustStop(error)) throw error;
    },
  );
  if (listed && !findMarket(listed, market)) throw unlistedMarketError(listed, market);
  return listed;
}

/** An open's checks on a size that is only quoted (run beside the quote request, on the markets list read before it): the problem an open of it would be refused for, to be said, never to refuse the quote. */
export async function quotedSizeProblem(
  client: HedgeClient,
  request: Omit<PreTradeRequest, 'action'>,
  listed?: Market[],
) {
  try {
    await runPreTradeChecks(client, { ...request, action: 'open' }, { items: [], warn: () => undefined }, 0, listed);
  } catch (error) {
    return error instanceof PreTradeCheckError ? error : undefined;
  }
}

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
