// The pre-trade checks against live facts: reads the markets list and the account (in parallel) and throws the
// first problem the pure rules (pre-trade-rules.ts) find.
import type { HedgeClient } from '../../platform/api/client.js';
import type { Market } from '../../platform/api/schemas.js';
import { preTradeProblem, type PreTradeRequest } from './pre-trade-rules.js';
import { findMarket, unlistedMarketError } from '../../core/markets.js';
import { ApiError, AuthError, InterruptedError, PreTradeCheckError, UsageError } from '../../core/errors.js';
import type { CommandContext } from '../../platform/runtime/context.js';
import { messageOf } from '../../core/security/safe-text.js';

/** What the checks before a trade use: they read the book and say what they saw. */
export type PreTradePorts = Pick<CommandContext, 'notify' | 'hedgeCommand'>;

/** What the optional checks could not check (short names: "the exposure headroom"), said before the write (and in a live confirmation). */
export function uncheckedList(ports: PreTradePorts) {
  return {
    items: [] as string[],
    warn: (text: string) => ports.notify({ kind: 'check-not-run', level: 'warn', text }),
  };
}
export type Unchecked = ReturnType<typeof uncheckedList>;

/** A live confirmation question that says what was not checked. */
export function questionWithUnchecked(question: string, unchecked: Unchecked) {
  if (!unchecked.items.length) return question;
  return `${question.replace(/\?$/, '')} — not checked: ${unchecked.items.join(', ')}?`;
}

/** A failed read that must still stop the command: the key refused (the write would be too), a Ctrl-C, bad input. */
export function mustStop(error: unknown) {
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
  const problem = preTradeProblem(
    {
      markets:
        listRead.status === 'fulfilled'
          ? listRead.value.markets
          : [{ market, status: 'open', available_capacity_usd: { buy: NO_LIMIT, sell: NO_LIMIT } } as Market],
      account: accountRead.status === 'fulfilled' ? accountRead.value : { available_exposure_usd: NO_LIMIT },
    },
    request,
    freedUsd,
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
