// hedge close MARKET SIDE — closes the position on that side, waits until the side leaves
// GET /positions (the spec's confirmation), then shows what closing returned (the position's
// net_margin_usd just before the close) and, when the record appears in time, the realized figures.
import type { Position, SubmittedAction } from '../api/schemas.js';
import type { CommandContext } from '../context.js';
import { printDryRun } from '../domain/dry-run.js';
import { idempotencyKeyFor } from '../domain/idempotency.js';
import { parseMarket, parseSide } from '../domain/input.js';
import { guardLiveAction } from '../domain/live-guard.js';
import { findClosedRecord, findPosition, POSITIONS_RESUME, waitForSideClosed } from '../domain/wait.js';
import { sendWrite, writeOptions } from '../domain/write.js';
import { StillPendingError } from '../errors.js';
import { formatMoney, shortHash } from '../ui/format.js';
import { renderClosed, renderSubmitted } from '../ui/trade-result.js';
import type { CommandInput } from './manifest.js';

export async function run(ctx: CommandContext, input: CommandInput): Promise<number> {
  const market = parseMarket(input.args.market);
  const side = parseSide(input.args.side);
  const write = writeOptions(input.options, idempotencyKeyFor(input.options.idempotencyKey));
  const guard = await guardLiveAction(ctx, { action: 'close a position', dryRun: write.dryRun });
  const client = await ctx.client();
  const request = { market, side };
  if (write.dryRun) {
    await printDryRun(ctx, client.planClose(request, write.idempotencyKey));
    return 0;
  }

  // What closing is expected to return is the position's net margin right before the close.
  const before: Position | undefined = findPosition(await client.listPositions(), market, side);
  const estimate = typeof before?.net_margin_usd === 'number' ? before.net_margin_usd : undefined;
  await guard.confirm(
    `Close the ${side} position on ${market}${estimate === undefined ? '' : ` (returns about ${formatMoney(estimate)} USD)`}?`,
  );
  const submitted: SubmittedAction = await sendWrite(ctx, write.idempotencyKey, () => client.closeHedge(request, write.idempotencyKey));
  const startedAt = ctx.clock.now();
  if (!write.wait) {
    renderSubmitted(ctx.output, submitted, { title: 'Close submitted', footer: [`Check it with: ${POSITIONS_RESUME}`] });
    return 0;
  }

  const tx = submitted.order_tx_hash ? ` ${shortHash(submitted.order_tx_hash)}` : '';
  try {
    await waitForSideClosed(ctx, { label: `Submitted close${tx}, waiting for the ${side} position to close`, startedAt, market, side });
  } catch (error) {
    if (error instanceof StillPendingError && ctx.output.isJson) ctx.output.json(submitted);
    throw error;
  }
  if (!ctx.output.isJson) ctx.output.success(`Closed: the ${side} position on ${market} is no longer open.`);

  const hedgeId = submitted.hedge_id ?? (typeof before?.hedge_id === 'string' ? before.hedge_id : undefined);
  const realized = hedgeId ? await findClosedRecord(ctx, hedgeId) : undefined;
  renderClosed(ctx.output, {
    ...submitted,
    ...(hedgeId ? { hedge_id: hedgeId } : {}),
    status: 'closed',
    net_margin_usd: estimate ?? null,
    realized: realized ?? null,
  });
  return 0;
}
