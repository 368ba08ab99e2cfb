// The pre-trade checks against live facts: reads the markets list and the account (in parallel)
// and throws the first problem the pure rules (domain/pre-trade.ts) find. Nothing is sent. Also
// the "already open" note said before an open is quoted.
import type { HedgeClient } from '../api/client.js';
import { preTradeProblem, sideAlreadyOpenNote, type PreTradeFacts, type PreTradeRequest } from '../domain/pre-trade.js';
import type { Side } from '../domain/vocabulary.js';
import type { CommandContext } from '../runtime/context.js';
import { findSide, readBook, type BookPosition } from './positions.js';

/** Reads what the checks need: the live markets list and the account summary, in parallel. */
export async function fetchPreTradeFacts(client: HedgeClient): Promise<PreTradeFacts> {
  const [list, account] = await Promise.all([client.listMarkets(), client.getAccount()]);
  return { markets: list.markets, account };
}

/** Fetches the facts and throws the first failed check; returns the facts for later use. */
export async function runPreTradeChecks(client: HedgeClient, request: PreTradeRequest): Promise<PreTradeFacts> {
  const facts = await fetchPreTradeFacts(client);
  const problem = preTradeProblem(facts, request);
  if (problem) throw problem;
  return facts;
}

/**
 * Before an open is quoted: when the positions list already shows that side, say so and point to
 * `hedge add` (a note on stderr, never a refusal). Returns the open position, if any. A failed read
 * only drops the note: the open itself decides.
 */
export async function noteIfSideOpen(
  ctx: CommandContext,
  client: HedgeClient,
  request: { market: string; side: Side; notionalUsd: number },
  book?: BookPosition[],
): Promise<BookPosition | undefined> {
  let open: BookPosition | undefined;
  try {
    open = findSide(book ?? (await readBook({ client, log: (line) => ctx.log(line) })), request.market, request.side);
  } catch (error) {
    if (ctx.signal.aborted) throw error;
    ctx.log(`positions: not read before the open (${error instanceof Error ? error.message : String(error)}); no "already open" note`);
    return undefined;
  }
  if (open) {
    const add = ctx.hedgeCommand('add', request.market, request.side, String(request.notionalUsd));
    ctx.output.warn(sideAlreadyOpenNote({ market: request.market.toUpperCase(), side: request.side, notionalUsd: open.notionalUsd, hedgeId: open.hedgeId }, add));
  }
  return open;
}
