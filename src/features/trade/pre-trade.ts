// Pre-trade checks before open and add (design.md "Safety"): the market is listed (else bad input, exit 2) and
// open, and the notional fits both the side's capacity and the account's exposure headroom. The rules are pure
// functions of the facts; runPreTradeChecks reads the markets list and the account (in parallel) and throws the
// first problem they find.
import type { AccountFacts as Account, MarketFacts as Market } from '../../core/wire.js';
import { formatUsd } from '../../core/number-format.js';
import { DAY_MS, TENORS, type Side } from '../../core/vocabulary.js';
import { ApiError, AuthError, InterruptedError, PreTradeCheckError, UsageError } from '../../core/errors.js';
import { findMarket, unlistedMarketError } from '../../core/markets.js';
import type { HedgeClient } from '../../platform/api/client.js';
import type { CommandContext } from '../../platform/runtime/context.js';
import { messageOf, safeText } from '../../core/security/safe-text.js';

/** What the optional checks could not check (short names: "the exposure headroom"), said before the write (and in a live confirmation). */
export function uncheckedList(ports: Pick<CommandContext, 'notify'>) {
  return {
    items: [] as string[],
    warn: (text: string) => ports.notify({ kind: 'check-not-run', level: 'warn', text }),
  };
}
export type Unchecked = ReturnType<typeof uncheckedList>;

/** A live confirmation question that says what was not checked. */
export function questionWithUnchecked(question: string, unchecked: readonly string[] = []) {
  if (!unchecked.length) return question;
  return `${question.replace(/\?$/, '')} — not checked: ${unchecked.join(', ')}?`;
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
      `Pre-trade check: ${what} could not be checked (GET ${path}: ${safeText(messageOf(read.reason))}); the ${request.action} goes on and the server decides.`,
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

interface PreTradeRequest {
  market: string;
  side: Side;
  notionalUsd: number;
  /** "open" or "add": named in the messages. */
  action: 'open' | 'add';
}

const SKIP_HINT = 'Lower the notional, or pass --skip-checks to leave the decision to the server.';

/** Only the market checks (listed, open): used before the notional is known (the wizard). */
export function marketProblem(markets: Market[], market: string) {
  const found = findMarket(markets, market);
  if (!found) return unlistedMarketError(markets, market);
  if (found.status !== 'open') {
    return new PreTradeCheckError(
      'market_disabled',
      `Market ${found.market} is ${found.status}, not open for trading.`,
      { market: found.market, status: found.status },
      'Try again later; `hedge markets` shows its status.',
    );
  }
}

/** The notional checks for one side of a listed market; `freedUsd` counts as back in the side's capacity and the
 * account's headroom. */
export function notionalProblem(
  market: Market,
  account: Pick<Account, 'available_exposure_usd'>,
  request: Pick<PreTradeRequest, 'side' | 'notionalUsd' | 'action'>,
  freedUsd = 0,
) {
  const { side, notionalUsd, action } = request;
  const headroom = account.available_exposure_usd + freedUsd;
  const capacity = market.available_capacity_usd[side] + freedUsd;
  if (notionalUsd > headroom) {
    // Both limits, so that the size that would pass is read off the message: the smaller of the two.
    return new PreTradeCheckError(
      'exposure_exceeded',
      `Pre-trade check: ${action === 'add' ? 'adding' : 'opening'} ${formatUsd(notionalUsd)} would push the account over its exposure cap: ${formatUsd(headroom)} of headroom left (the ${side} capacity of ${market.market}: ${formatUsd(capacity)}; at most ${formatUsd(Math.max(0, Math.min(headroom, capacity)))} now).`,
      { requested_usd: notionalUsd, available_exposure_usd: headroom, available_capacity_usd: capacity },
      SKIP_HINT,
    );
  }
  if (notionalUsd > capacity) {
    return new PreTradeCheckError(
      'capacity_exceeded',
      `Pre-trade check: ${formatUsd(notionalUsd)} is more than the ${side} capacity of ${market.market}: ${formatUsd(capacity)} available.`,
      { side, requested_usd: notionalUsd, available_capacity_usd: capacity },
      SKIP_HINT,
    );
  }
}

export function preTradeProblem(
  facts: { markets: Market[]; account: Pick<Account, 'available_exposure_usd'> },
  request: PreTradeRequest,
  freedUsd?: number,
) {
  return (
    marketProblem(facts.markets, request.market) ??
    notionalProblem(findMarket(facts.markets, request.market)!, facts.account, request, freedUsd)
  );
}

/** Said (not refused) before quoting an open on a side the positions list already shows: the real service may allow several hedges per side, or answer 409; adding keeps one hedge and its maturity. */
export function sideAlreadyOpenNote(
  open: { market: string; side: Side; notionalUsd?: number; hedgeId?: string },
  addCommand: string,
) {
  const size = open.notionalUsd === undefined ? '' : formatUsd(open.notionalUsd);
  // The positions list's words (its hedge id and market) are the server's.
  const hedge = open.hedgeId ? `hedge ${safeText(open.hedgeId)}` : '';
  const detail = [size, hedge].filter(Boolean).join(', ');
  return (
    `Note: the ${open.side} side of ${safeText(open.market)} is already open${detail ? ` (${detail})` : ''}. ` +
    `To add to that hedge (same maturity): \`${addCommand}\`. Opening anyway asks the service for another hedge on the same side, which it may refuse.`
  );
}

/** The tenor to quote an addition with. */
export function additionQuoteTenor(maturityAt: string | undefined, nowMs: number, hedgeTenor?: number) {
  const daysLeft = daysUntil(maturityAt, nowMs);
  if (daysLeft === undefined) return TENORS.find((tenor) => tenor === hedgeTenor) ?? TENORS[0];
  return TENORS.find((tenor) => tenor >= daysLeft) ?? TENORS[TENORS.length - 1];
}

/** Days (fractional, never below zero) from now to a maturity; undefined when it cannot be read. */
export function daysUntil(maturityAt: string | undefined, nowMs: number) {
  const maturityMs = maturityAt === undefined ? Number.NaN : Date.parse(maturityAt);
  return Number.isNaN(maturityMs) ? undefined : Math.max(0, (maturityMs - nowMs) / DAY_MS);
}
