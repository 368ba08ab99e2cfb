// hedge open MARKET SIDE NOTIONAL --tenor D [--ref REF] — or, on a terminal without them, the
// wizard. Quote first (the card on a terminal), submit POST /hedges with one Idempotency-Key,
// then wait for `filled` (print the hedge, struck rate against the quote) or `failed` (exit 6).
import type { HedgeClient, OpenRequest } from '../api/client.js';
import type { Hedge, OpenedHedge, Quote, Side, Tenor } from '../api/schemas.js';
import type { CommandInput } from './manifest.js';
import type { CommandContext } from '../context.js';
import { printDryRun } from '../domain/dry-run.js';
import { idempotencyKeyFor } from '../domain/idempotency.js';
import { parseClientReference, parseMarket, parseNotional, parseSide, parseTenor } from '../domain/input.js';
import { guardLiveAction, type LiveGuard } from '../domain/live-guard.js';
import { runPreTradeChecks } from '../domain/pre-trade.js';
import { waitForHedgeStatus } from '../domain/wait.js';
import { sendWrite, writeOptions, type WriteOptions } from '../domain/write.js';
import { OrderFailedError, StillPendingError, UsageError } from '../errors.js';
import { formatMoney, shortHash } from '../ui/format.js';
import { renderHedge, renderSubmitted } from '../ui/trade-result.js';

interface OpenArgs {
  market?: string;
  side?: Side;
  notionalUsd?: number;
  tenorDays?: Tenor;
  clientReference?: string;
}

function parseGiven(input: CommandInput): OpenArgs {
  const { args, options } = input;
  return {
    market: args.market === undefined ? undefined : parseMarket(args.market),
    side: args.side === undefined ? undefined : parseSide(args.side),
    notionalUsd: args.notional === undefined ? undefined : parseNotional(args.notional),
    tenorDays: options.tenor === undefined ? undefined : parseTenor(String(options.tenor)),
    clientReference: parseClientReference(options.ref),
  };
}

function missingNames(given: OpenArgs): string[] {
  const missing: string[] = [];
  if (given.market === undefined) missing.push('MARKET');
  if (given.side === undefined) missing.push('SIDE');
  if (given.notionalUsd === undefined) missing.push('NOTIONAL');
  if (given.tenorDays === undefined) missing.push('--tenor');
  return missing;
}

export async function run(ctx: CommandContext, input: CommandInput): Promise<number> {
  const given = parseGiven(input);
  const write = writeOptions(input.options, idempotencyKeyFor(input.options.idempotencyKey));
  const skipChecks = input.options.skipChecks === true;
  const missing = missingNames(given);
  if (missing.length > 0 && (!ctx.interactive || write.dryRun)) {
    const why = write.dryRun
      ? '--dry-run needs every argument (the wizard quotes, and a dry run sends nothing)'
      : ctx.globals.input
        ? 'no terminal to ask on'
        : '--no-input';
    throw new UsageError(
      `missing ${missing.join(', ')} (${why}); usage: hedge open MARKET SIDE NOTIONAL --tenor 1|3|7 [--ref REF]. On a terminal, \`hedge open\` alone starts a wizard.`,
    );
  }
  // Decided before any request, reads included: a refused live run sends nothing at all.
  const guard = await guardLiveAction(ctx, { action: 'open a hedge', dryRun: write.dryRun });
  const client = await ctx.client();

  if (missing.length > 0) {
    const { runOpenWizard } = await import('../ui/open-wizard.js');
    const answers = await runOpenWizard(ctx, client, given, { skipChecks, live: guard.live });
    const request: OpenRequest = {
      market: answers.market,
      side: answers.side,
      notional_usd: answers.notionalUsd,
      tenor_days: answers.tenorDays,
      client_reference: answers.clientReference,
    };
    return submitAndWait(ctx, client, request, answers.quote, write);
  }

  const request: OpenRequest = {
    market: given.market!,
    side: given.side!,
    notional_usd: given.notionalUsd!,
    tenor_days: given.tenorDays!,
    client_reference: given.clientReference,
  };
  // A resumed run skips the checks: if the first run acted, its own hedge now uses the headroom,
  // and the server answers a repeated key with the original result before checking anything.
  if (!skipChecks && !write.resumed) {
    await runPreTradeChecks(client, { market: request.market, side: request.side, notionalUsd: request.notional_usd, action: 'open' });
  } else if (write.resumed) {
    ctx.log('--idempotency-key given: pre-trade checks skipped (the server replays the original outcome or decides).');
  }
  if (write.dryRun) {
    await printDryRun(ctx, client.planOpen(request, write.idempotencyKey));
    return 0;
  }
  const quote = await client.createQuote({
    market: request.market,
    side: request.side,
    notional_usd: request.notional_usd,
    tenor_days: request.tenor_days,
  });
  if (ctx.output.isHuman) {
    const { renderQuoteCard } = await import('../ui/quote-card.js');
    ctx.output.write(renderQuoteCard(ctx.output, quote, ctx.clock.now()));
  }
  await confirmLive(guard, request, quote);
  return submitAndWait(ctx, client, request, quote, write);
}

async function confirmLive(guard: LiveGuard, request: OpenRequest, quote: Quote): Promise<void> {
  const days = request.tenor_days === 1 ? '1 day' : `${request.tenor_days} days`;
  await guard.confirm(
    `Open ${request.side} ${formatMoney(request.notional_usd)} USD on ${request.market} for ${days} at about ${quote.pricing.execution_price}, ${formatMoney(quote.upfront.total_upfront_usdc)} USDC upfront?`,
  );
}

async function submitAndWait(ctx: CommandContext, client: HedgeClient, request: OpenRequest, quote: Quote, write: WriteOptions): Promise<number> {
  const opened: OpenedHedge = await sendWrite(ctx, write.idempotencyKey, () => client.openHedge(request, write.idempotencyKey));
  const submittedAt = ctx.clock.now();
  const hedgeId = opened.hedge_id;
  const resume = `hedge hedges ${hedgeId} --wait`;
  if (!write.wait) {
    renderSubmitted(ctx.output, opened, { title: 'Hedge submitted', footer: [`Follow it with: ${resume}`] });
    if (!ctx.output.isHuman && !ctx.output.isJson) ctx.output.note(`Submitted ${hedgeId}; follow it with: ${resume}`);
    return 0;
  }
  const label = `Submitted ${hedgeId}${opened.order_tx_hash ? ` (tx ${shortHash(opened.order_tx_hash)})` : ''}, waiting for the fill`;
  let hedge: Hedge;
  try {
    hedge = await waitForHedgeStatus(ctx, hedgeId, { label, startedAt: submittedAt });
  } catch (error) {
    // A script still gets the hedge's id and last known state on stdout when the wait runs out.
    if (error instanceof StillPendingError && ctx.output.isJson) ctx.output.json(error.record ?? opened);
    throw error;
  }
  if (hedge.status === 'failed') {
    renderHedge(ctx.output, hedge, { title: 'Order failed', quote });
    throw new OrderFailedError(
      `The order for hedge ${hedge.id} failed on-chain: nothing was opened, and the reserved margin and fee were released.`,
      hedge.id,
      'Check the market with `hedge markets`, then open again (a new run uses a new idempotency key).',
    );
  }
  if (hedge.status === 'closed') {
    ctx.output.warn(`Hedge ${hedge.id} was already closed when it was read (it filled and then closed or settled).`);
  } else if (!ctx.output.isJson) {
    ctx.output.success(`Filled: hedge ${hedge.id}.`);
  }
  renderHedge(ctx.output, hedge, { title: hedge.status === 'closed' ? 'Hedge (closed)' : 'Hedge filled', quote });
  return 0;
}
