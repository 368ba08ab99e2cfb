// The four state-changing actions of the API as data for the one write flow (write-flow.ts): how
// each is planned, sent, waited for and shown. Commands, `hedge resume`, roll, apply and the agent
// interface all build their writes from these.
import type { ChangeRequest, HedgeClient, OpenRequest, SideRequest } from '../api/client.js';
import type { ApiRequest } from '../api/transport.js';
import type { Hedge, HistoryRecord, OpenedHedge, Quote, SubmittedAction } from '../api/schemas.js';
import { formatMoney, formatUsd } from '../domain/money.js';
import { additionQuoteTenor, daysUntil } from '../domain/pre-trade.js';
import { NotAppliedError, OrderFailedError, UnresolvedError } from '../errors.js';
import { safeText } from '../security/safe-text.js';
import type { CommandContext } from '../runtime/context.js';
import { formatRate, shortHash } from '../ui/format.js';
import { renderAdditionQuote, renderClosed, renderHedge, renderPositionChange, renderSubmitted } from '../ui/trade-result.js';
import { findSide, readBook, type BookPosition } from './positions.js';
import { expectedAfterChange, findClosedRecord, waitForHedgeStatus, waitForOwnChange, waitForSideClosed, type ChangeOutcome } from './wait.js';
import { reconcileChange, reconcileClose, reconcileOpen } from './reconcile.js';
import type { WriteAction } from './write-flow.js';

export type TradeCommand = 'open' | 'add' | 'reduce' | 'close';

/** Hooks a caller may add to an action: checks, a preview and its question, the argv to journal. */
export interface ActionExtras {
  check?: () => Promise<void>;
  preview?: () => Promise<void>;
  argv: string[];
  group?: string;
  leg?: string;
  /** The quote shown before an open: its execution price is compared with the struck rate. */
  quote?: Quote;
}

/**
 * The command line each write is journaled under (and shown in hints): one builder per write, used
 * by its command, apply's steps and the keeper alike.
 */
export function openArgv(request: Pick<OpenRequest, 'market' | 'side' | 'notional_usd' | 'tenor_days' | 'client_reference'>): string[] {
  return ['open', request.market, request.side, String(request.notional_usd), '--tenor', String(request.tenor_days), ...(request.client_reference ? ['--ref', request.client_reference] : [])];
}

export function changeArgv(action: 'add' | 'reduce', request: Pick<ChangeRequest, 'market' | 'side' | 'notional_usd'>): string[] {
  return [action, request.market, request.side, String(request.notional_usd)];
}

export function closeArgv(request: SideRequest): string[] {
  return ['close', request.market, request.side];
}

function txNote(hash: unknown): string {
  return typeof hash === 'string' && hash ? ` (tx ${shortHash(hash)})` : '';
}

export function openAction(ctx: CommandContext, client: HedgeClient, request: OpenRequest, extras: ActionExtras): WriteAction<OpenedHedge, Hedge> {
  const days = request.tenor_days === 1 ? '1 day' : `${request.tenor_days} days`;
  return {
    command: 'open',
    verb: 'open a hedge',
    side: { market: request.market, side: request.side },
    argv: extras.argv,
    group: extras.group,
    leg: extras.leg,
    plan: (key) => client.planOpen(request, key),
    check: extras.check,
    preview: extras.preview,
    question: () =>
      `Open ${request.side} ${formatMoney(request.notional_usd)} USD on ${request.market} for ${days}` +
      (extras.quote ? ` at about ${extras.quote.pricing.execution_price}, ${formatMoney(extras.quote.upfront.total_upfront_usdc)} USDC upfront?` : '?'),
    send: (key) => client.openHedge(request, key),
    trades: async () => [{ market: request.market, notionalUsd: request.notional_usd }],
    reconcile: async (entry) => (await reconcileOpen(client, entry)) as Awaited<ReturnType<NonNullable<WriteAction<OpenedHedge, Hedge>['reconcile']>>>,
    submitted: (answer) => ({ hedge_id: answer.hedge_id, order_tx_hash: answer.order_tx_hash ?? undefined }),
    wait: (answer, { startedAt }) =>
      waitForHedgeStatus(ctx, answer.hedge_id, { label: `Submitted ${answer.hedge_id}${txNote(answer.order_tx_hash)}, waiting for the fill`, startedAt }),
    outcome: (hedge) => (hedge.status === 'failed' ? 'failed' : 'filled'),
    renderSubmitted: (answer) => {
      const follow = ctx.hedgeCommand('hedges', answer.hedge_id, '--wait');
      renderSubmitted(ctx.output, answer, { title: 'Hedge submitted', footer: [`Follow it with: ${follow}`] });
      if (!ctx.output.isHuman && !ctx.output.isJson) ctx.output.note(`Submitted ${answer.hedge_id}; follow it with: ${follow}`);
    },
    renderResolved: (hedge) => {
      if (hedge.status === 'failed') {
        renderHedge(ctx.output, hedge, { title: 'Order failed', quote: extras.quote });
        throw new OrderFailedError(
          `The order for hedge ${hedge.id} failed on-chain: nothing was opened, and the reserved margin and fee were released.`,
          hedge.id,
          `Check the market with \`${ctx.hedgeCommand('markets')}\`, then open again (a new run uses a new idempotency key).`,
        );
      }
      if (hedge.status === 'closed') ctx.output.warn(`Hedge ${hedge.id} was already closed when it was read (it filled and then closed or settled).`);
      else if (!ctx.output.isJson) ctx.output.success(`Filled: hedge ${hedge.id}.`);
      renderHedge(ctx.output, hedge, { title: hedge.status === 'closed' ? 'Hedge (closed)' : 'Hedge filled', quote: extras.quote });
    },
  };
}

/** What an add or reduce waited for: the positions list's answer, the hedge, and what a reduce realized. */
export type ChangeResult = ChangeOutcome & {
  hedge?: Hedge;
  /** reduce: the account's balance once the change landed (compared with the one read before). */
  balanceAfterUsdc?: number;
  /** A reduce that closed the position: its history record, when it came in time. */
  realized?: HistoryRecord;
};

/**
 * What differs between an add and a reduce: the endpoint, the words, and what each shows around
 * the send. An add is quoted before it is confirmed (POST /quotes for the added notional) and shows
 * the position before → after; a reduce reads the balance before and after, to show what it
 * realized (a reduction is proportional; its answer carries none of this).
 */
interface ChangeKind {
  action: 'add' | 'reduce';
  verb: string;
  /** The title of its "submitted" card. */
  submittedTitle: string;
  plan: (client: HedgeClient, request: ChangeRequest, key: string) => ApiRequest;
  send: (client: HedgeClient, request: ChangeRequest, key: string) => Promise<SubmittedAction>;
  question: (request: ChangeRequest, cost: string) => string;
  done: (notionalUsd: number) => string;
  /** Quote the change before it is confirmed (and show it). */
  quotesFirst: boolean;
  /** Read the account's balance before and after (what a reduce released). */
  readsBalance: boolean;
}

const CHANGE_KINDS: Record<'add' | 'reduce', ChangeKind> = {
  add: {
    action: 'add',
    verb: 'add to a hedge',
    submittedTitle: 'Add submitted',
    plan: (client, request, key) => client.planAdd(request, key),
    send: (client, request, key) => client.addToHedge(request, key),
    question: ({ market, side, notional_usd }, cost) => `Add ${formatUsd(notional_usd)} to the ${side} hedge on ${market}${cost}?`,
    done: (notionalUsd) => `Added ${formatUsd(notionalUsd)}`,
    quotesFirst: true,
    readsBalance: false,
  },
  reduce: {
    action: 'reduce',
    verb: 'reduce a hedge',
    submittedTitle: 'Reduce submitted',
    plan: (client, request, key) => client.planReduce(request, key),
    send: (client, request, key) => client.reduceHedge(request, key),
    question: ({ market, side, notional_usd }) => `Remove ${formatUsd(notional_usd)} from the ${side} hedge on ${market}?`,
    done: (notionalUsd) => `Reduced by ${formatUsd(notionalUsd)}`,
    quotesFirst: false,
    readsBalance: true,
  },
};

/** What one change learns before it is sent, kept for its wait and its rendering. */
interface ChangeSeen {
  /** The side's position, read once by whichever needs it first (the wait's baseline, or the quote). */
  position?: Promise<BookPosition | undefined>;
  before?: BookPosition;
  balanceBeforeUsdc?: number;
  quote?: Quote;
}

function positionBefore(ctx: CommandContext, client: HedgeClient, request: ChangeRequest, seen: ChangeSeen): Promise<BookPosition | undefined> {
  return (seen.position ??= readBook({ client, log: (line) => ctx.log(line) }).then((book) => findSide(book, request.market, request.side)));
}

function readBalance(ctx: CommandContext, client: HedgeClient): Promise<number | undefined> {
  return client.getAccount().then(
    (account) => account.balance_usdc,
    (error: unknown) => {
      if (ctx.signal.aborted) throw error;
      return undefined;
    },
  );
}

/** The addition quoted for its cost before it is confirmed, at the hedge's own maturity. */
async function quoteAddition(ctx: CommandContext, client: HedgeClient, request: ChangeRequest, seen: ChangeSeen): Promise<void> {
  const { market, side, notional_usd: notionalUsd } = request;
  const position = await positionBefore(ctx, client, request, seen);
  if (!position) {
    ctx.output.note(`No ${side} position on ${market} shows in the positions list, so the addition is not quoted; the server decides (\`${ctx.hedgeCommand('positions')}\`).`);
    return;
  }
  // The addition keeps the hedge's maturity; a position silent about it is completed from its hedge.
  const hedge = position.maturityAt === undefined && position.hedgeId ? await client.getHedge(position.hedgeId).catch(() => undefined) : undefined;
  const maturityAt = position.maturityAt ?? hedge?.maturity_at ?? undefined;
  const now = ctx.clock.now();
  seen.quote = await client.createQuote({ market, side, notional_usd: notionalUsd, tenor_days: additionQuoteTenor(maturityAt, now, hedge?.tenor_days) });
  renderAdditionQuote(ctx.output, seen.quote, { maturityAt, daysLeft: daysUntil(maturityAt, now), position });
}

/** Add or reduce: one shape, configured by its kind (CHANGE_KINDS). */
export function changeAction(
  ctx: CommandContext,
  client: HedgeClient,
  action: 'add' | 'reduce',
  request: ChangeRequest,
  extras: ActionExtras,
): WriteAction<SubmittedAction, ChangeResult | undefined> {
  const kind = CHANGE_KINDS[action];
  const { market, side, notional_usd: notionalUsd } = request;
  const check = ctx.hedgeCommand('positions');
  const seen: ChangeSeen = {};
  const submittedCard = (answer: SubmittedAction) => renderSubmitted(ctx.output, answer, { title: kind.submittedTitle, footer: [`Check it with: ${check}`] });

  return {
    command: action,
    verb: kind.verb,
    side: { market, side },
    argv: extras.argv,
    group: extras.group,
    leg: extras.leg,
    plan: (key) => kind.plan(client, request, key),
    check: extras.check,
    preview: kind.quotesFirst
      ? async () => {
          await extras.preview?.();
          await quoteAddition(ctx, client, request, seen);
        }
      : extras.preview,
    // The notional before the change, read before the send and journaled: the wait (and a resumed
    // one) ends when the positions list shows another.
    before: async () => {
      const [position, balance] = await Promise.all([positionBefore(ctx, client, request, seen), kind.readsBalance ? readBalance(ctx, client) : undefined]);
      seen.before = position;
      seen.balanceBeforeUsdc = balance;
      if (position?.notionalUsd === undefined) return undefined;
      return { baseline_notional_usd: position.notionalUsd, ...(position.hedgeId ? { hedge_id: position.hedgeId } : {}) };
    },
    question: () =>
      kind.question(request, seen.quote ? ` at about ${formatRate(seen.quote.pricing.execution_price)}, ${formatMoney(seen.quote.upfront.total_upfront_usdc)} USDC upfront` : ''),
    send: (key) => kind.send(client, request, key),
    trades: async () => [{ market, notionalUsd }],
    reconcile: async (entry) =>
      (await reconcileChange(ctx, client, entry, { action, market, side, notionalUsd })) as Awaited<ReturnType<NonNullable<WriteAction<SubmittedAction, ChangeResult | undefined>['reconcile']>>>,
    submitted: (answer) => ({ hedge_id: answer.hedge_id ?? undefined, order_tx_hash: answer.order_tx_hash ?? undefined }),
    wait: (answer, run) => waitForChange(ctx, client, request, kind, seen, answer, run),
    outcome: () => 'done',
    renderSubmitted: submittedCard,
    renderResolved: (outcome, answer, run) => {
      if (!outcome) submittedCard(answer);
      else renderChange(ctx, request, kind, seen, outcome, answer, run.entry?.context?.baseline_notional_usd);
    },
  };
}

/** Waits until the positions list shows the change, then reads the hedge (and a reduce's balance and record). */
async function waitForChange(
  ctx: CommandContext,
  client: HedgeClient,
  request: ChangeRequest,
  kind: ChangeKind,
  seen: ChangeSeen,
  answer: SubmittedAction,
  { startedAt, before }: { startedAt: number; before?: Record<string, unknown> },
): Promise<ChangeResult | undefined> {
  const { market, side } = request;
  const { action } = kind;
  const baseline = typeof before?.baseline_notional_usd === 'number' ? before.baseline_notional_usd : undefined;
  if (baseline === undefined) {
    ctx.output.note(`The ${side} position on ${market} was not in the positions list before the ${action}, so its landing cannot be watched. Check it with: ${ctx.hedgeCommand('positions')}`);
    return undefined;
  }
  const outcome = await waitForOwnChange(ctx, {
    label: `Submitted ${action}${txNote(answer.order_tx_hash)}, waiting for it to land`,
    startedAt,
    market,
    side,
    baselineNotionalUsd: baseline,
    changeUsd: request.notional_usd,
    action,
  });
  // Confirmed by the positions list; the hedge itself is read once more to show it whole.
  const hedgeId = answer.hedge_id ?? outcome.position?.hedgeId ?? (typeof before?.hedge_id === 'string' ? before.hedge_id : undefined);
  if (outcome.closed && !expectedAfterChange(action, baseline, request.notional_usd).closes) await sideGoneFirst(ctx, client, request, action, baseline, hedgeId);
  const [hedge, balanceAfterUsdc, realized] = await Promise.all([
    hedgeId ? client.getHedge(hedgeId).catch(() => undefined) : undefined,
    seen.balanceBeforeUsdc !== undefined ? readBalance(ctx, client) : undefined,
    // A reduce of about the whole position closed it: its record says what it realized.
    outcome.closed && hedgeId && ctx.output.isHuman ? findClosedRecord(ctx, hedgeId) : undefined,
  ]);
  return { ...outcome, hedge, balanceAfterUsdc, realized };
}

/**
 * The side left the positions list although this change would not close it: the hedge settled (a
 * maturity) or was closed. Its own record says whether the change is in it — landed, then settled
 * (the caller goes on: it happened) — or not: then it did not happen (NotAppliedError, exit 3). A
 * record that shows neither cannot tell (exit 12).
 */
async function sideGoneFirst(ctx: CommandContext, client: HedgeClient, request: ChangeRequest, action: 'add' | 'reduce', baseline: number, hedgeId: string | undefined): Promise<void> {
  const { market, side, notional_usd: changeUsd } = request;
  const expected = expectedAfterChange(action, baseline, changeUsd).notionalUsd;
  const hedge = hedgeId ? await client.getHedge(hedgeId).catch(() => undefined) : undefined;
  const notional = hedge?.notional_usd;
  const near = (a: number, b: number) => Math.abs(a - b) < 0.005;
  if (notional !== undefined && near(notional, expected)) {
    ctx.output.note(`The ${side} hedge on ${market} ${safeText(hedge!.id)} carries the ${action} (${formatUsd(notional)}) and has since left the positions list (it settled or was closed).`);
    return;
  }
  const details = { market, side, hedge_id: hedgeId ?? null, before_usd: baseline, ...(notional === undefined ? {} : { hedge_notional_usd: notional }) };
  if (notional !== undefined && near(notional, baseline)) {
    throw new NotAppliedError(
      `The ${action} of ${formatUsd(changeUsd)} did not happen: the ${side} hedge on ${market} (${safeText(hedgeId!)}) settled or was closed at ${formatUsd(baseline)} before the ${action} reached it; its margin is back in the balance.`,
      { hint: `The side is flat now: see \`${ctx.hedgeCommand('positions')}\`; open a new hedge if it should be covered.`, details },
    );
  }
  throw new UnresolvedError(
    `The ${side} side of ${market} left the positions list during the ${action}, and ${hedge ? `its hedge shows ${notional === undefined ? 'no readable notional' : formatUsd(notional)}` : 'its hedge cannot be read'}: whether the ${action} happened before it settled or closed cannot be told.`,
    { hint: `See \`${ctx.hedgeCommand('history')}\`, then record what happened.`, details },
  );
}

/** The change as it landed: people get the position before → after (or the close it became). */
function renderChange(
  ctx: CommandContext,
  request: ChangeRequest,
  kind: ChangeKind,
  seen: ChangeSeen,
  outcome: ChangeResult,
  answer: SubmittedAction,
  baseline: unknown,
): void {
  const { market, side, notional_usd: notionalUsd } = request;
  const { action } = kind;
  if (!ctx.output.isJson) {
    const now = outcome.closed
      ? 'is now closed'
      : outcome.notionalUsd !== undefined
        ? `is now ${formatUsd(outcome.notionalUsd)}${typeof baseline === 'number' ? ` (was ${formatUsd(baseline)})` : ''}`
        : 'has changed';
    ctx.output.success(`${kind.done(notionalUsd)}: the ${side} hedge on ${market} ${now}.`);
  }
  const hedgeId = outcome.hedge?.id ?? answer.hedge_id ?? seen.before?.hedgeId;
  const inFull = hedgeId ? [`The hedge in full: ${ctx.hedgeCommand('hedges', hedgeId)}`] : [];
  if (outcome.closed) {
    // A reduce of about the whole position closes it: shown as a close (JSON: the hedge as today).
    if (ctx.output.isHuman) {
      renderClosed(ctx.output, {
        ...answer,
        ...(hedgeId ? { hedge_id: hedgeId } : {}),
        status: 'closed',
        net_margin_usd: seen.before?.netMarginUsd ?? null,
        realized: outcome.realized ?? null,
      });
      return;
    }
  } else {
    // People get the position before → after instead of the whole hedge; other modes keep the
    // hedge on stdout as the server sent it, with the same figures in a line on stderr.
    renderPositionChange(
      ctx.output,
      {
        action,
        market,
        side,
        changeUsd: notionalUsd,
        before: seen.before,
        after: outcome.position,
        orderTxHash: answer.order_tx_hash ?? undefined,
        quotedPrice: seen.quote?.pricing.execution_price,
        balanceBeforeUsdc: seen.balanceBeforeUsdc,
        balanceAfterUsdc: outcome.balanceAfterUsdc,
      },
      inFull,
    );
    if (ctx.output.isHuman) return;
  }
  if (outcome.hedge) renderHedge(ctx.output, outcome.hedge, { title: outcome.closed ? 'Hedge (closed)' : `Hedge after the ${action}` });
  else if (outcome.position) renderHedge(ctx.output, outcome.position.raw, { title: `Position after the ${action}` });
  else renderSubmitted(ctx.output, { ...answer, status: 'closed' }, { title: 'Position closed' });
}

export interface CloseResult {
  estimate?: number;
  hedgeId?: string;
  realized?: HistoryRecord;
}

export function closeAction(ctx: CommandContext, client: HedgeClient, request: SideRequest, extras: ActionExtras): WriteAction<SubmittedAction, CloseResult> {
  const { market, side } = request;
  let estimate: number | undefined;
  let hedgeBefore: string | undefined;
  return {
    command: 'close',
    verb: 'close a position',
    side: { market, side },
    argv: extras.argv,
    group: extras.group,
    leg: extras.leg,
    plan: (key) => client.planClose(request, key),
    check: extras.check,
    preview: extras.preview,
    // What closing is expected to return is the position's net margin right before the close.
    before: async () => {
      const position = findSide(await readBook({ client, log: (line) => ctx.log(line) }), market, side);
      estimate = position?.netMarginUsd;
      hedgeBefore = position?.hedgeId;
      // The notional closed, journaled too: an agent's daily cap counts it (agent/guardrails.ts).
      const notional = position?.notionalUsd;
      return {
        ...(estimate === undefined ? {} : { net_margin_usd: estimate }),
        ...(hedgeBefore ? { hedge_id: hedgeBefore } : {}),
        ...(notional === undefined ? {} : { notional_usd: notional }),
      };
    },
    question: () => `Close the ${side} position on ${market}${estimate === undefined ? '' : ` (returns about ${formatMoney(estimate)} USD)`}?`,
    send: (key) => client.closeHedge(request, key),
    // A close trades the side's whole notional, as the book shows it right before the send.
    trades: async () => [{ market, notionalUsd: findSide(await readBook({ client, log: (line) => ctx.log(line) }), market, side)?.notionalUsd ?? 0 }],
    reconcile: async (entry) => (await reconcileClose(ctx, client, entry, request)) as Awaited<ReturnType<NonNullable<WriteAction<SubmittedAction, CloseResult>['reconcile']>>>,
    submitted: (answer) => ({ hedge_id: answer.hedge_id ?? hedgeBefore, order_tx_hash: answer.order_tx_hash ?? undefined }),
    wait: async (answer, { startedAt, before }) => {
      const kept = before ?? {};
      const hedgeId = answer.hedge_id ?? (typeof kept.hedge_id === 'string' ? kept.hedge_id : undefined);
      await waitForSideClosed(ctx, { label: `Submitted close${txNote(answer.order_tx_hash)}, waiting for the ${side} position to close`, startedAt, market, side, hedgeId });
      const realized = hedgeId ? await findClosedRecord(ctx, hedgeId) : undefined;
      return { estimate: typeof kept.net_margin_usd === 'number' ? kept.net_margin_usd : undefined, hedgeId, realized };
    },
    outcome: () => 'done',
    renderSubmitted: (answer) => renderSubmitted(ctx.output, answer, { title: 'Close submitted', footer: [`Check it with: ${ctx.hedgeCommand('positions')}`] }),
    renderResolved: (result, answer) => {
      if (!ctx.output.isJson) ctx.output.success(`Closed: the ${side} position on ${market} is no longer open.`);
      renderClosed(ctx.output, {
        ...answer,
        ...(result.hedgeId ? { hedge_id: result.hedgeId } : {}),
        status: 'closed',
        net_margin_usd: result.estimate ?? null,
        realized: result.realized ?? null,
      });
    },
  };
}

/** The action a journal entry was, rebuilt from its recorded request (for `hedge resume`). */
export function actionFromJournal(
  ctx: CommandContext,
  client: HedgeClient,
  command: string,
  body: Record<string, unknown>,
  argv: string[],
  // An apply step stays a leg of its run: its journal entry is matched with its group and leg.
  from: { group?: string; leg?: string } = {},
): WriteAction<unknown, unknown> | undefined {
  const extras = { argv, group: from.group, leg: from.leg };
  switch (command as TradeCommand) {
    case 'open':
      return openAction(ctx, client, body as unknown as OpenRequest, extras) as WriteAction<unknown, unknown>;
    case 'add':
    case 'reduce':
      return changeAction(ctx, client, command as 'add' | 'reduce', client.changeRequestFromBody(body), extras) as WriteAction<unknown, unknown>;
    case 'close':
      return closeAction(ctx, client, body as unknown as SideRequest, extras) as WriteAction<unknown, unknown>;
    default:
      return undefined;
  }
}
