// hedge add / hedge reduce MARKET SIDE NOTIONAL: change the open hedge on a side (same maturity),
// then wait until the change is visible. The open notional is read from GET /positions before the
// write; the wait ends when the hedge's notional moves away from it (or the hedge closes: a reduce
// of the whole notional). One module for both: they differ only in the endpoint, the pre-trade
// checks (an add grows exposure, a reduce cannot) and the words.
import type { ChangeRequest } from '../api/client.js';
import type { SubmittedAction } from '../api/schemas.js';
import type { CommandContext } from '../context.js';
import type { CommandInput } from '../commands/manifest.js';
import { StillPendingError } from '../errors.js';
import { formatUsd, shortHash } from '../ui/format.js';
import { renderHedge, renderSubmitted } from '../ui/trade-result.js';
import { printDryRun } from './dry-run.js';
import { idempotencyKeyFor } from './idempotency.js';
import { parseMarket, parseNotional, parseSide } from './input.js';
import { guardLiveAction } from './live-guard.js';
import { runPreTradeChecks } from './pre-trade.js';
import { findPosition, notionalOf, POSITIONS_RESUME, waitForNotionalChange } from './wait.js';
import { sendWrite, writeOptions } from './write.js';

export type ChangeAction = 'add' | 'reduce';

export async function runChange(ctx: CommandContext, input: CommandInput, action: ChangeAction): Promise<number> {
  const market = parseMarket(input.args.market);
  const side = parseSide(input.args.side);
  const notionalUsd = parseNotional(input.args.notional);
  const write = writeOptions(input.options, idempotencyKeyFor(input.options.idempotencyKey));
  // A reduce cannot push exposure up, so only an add is checked before it is sent.
  const checked = action === 'add' && input.options.skipChecks !== true && !write.resumed;
  const guard = await guardLiveAction(ctx, { action: action === 'add' ? 'add to a hedge' : 'reduce a hedge', dryRun: write.dryRun });
  const client = await ctx.client();
  const request: ChangeRequest = { market, side, notional_usd: notionalUsd };
  const plan = () => (action === 'add' ? client.planAdd(request, write.idempotencyKey) : client.planReduce(request, write.idempotencyKey));

  if (write.dryRun) {
    if (checked) await runPreTradeChecks(client, { market, side, notionalUsd, action: 'add' });
    await printDryRun(ctx, plan());
    return 0;
  }
  const [, positions] = await Promise.all([
    checked ? runPreTradeChecks(client, { market, side, notionalUsd, action: 'add' }) : undefined,
    write.wait ? client.listPositions() : undefined,
  ]);
  const before = positions ? findPosition(positions, market, side) : undefined;

  await guard.confirm(
    action === 'add'
      ? `Add ${formatUsd(notionalUsd)} to the ${side} hedge on ${market}?`
      : `Remove ${formatUsd(notionalUsd)} from the ${side} hedge on ${market}?`,
  );
  const submitted: SubmittedAction = await sendWrite(ctx, write.idempotencyKey, () =>
    action === 'add' ? client.addToHedge(request, write.idempotencyKey) : client.reduceHedge(request, write.idempotencyKey),
  );
  const startedAt = ctx.clock.now();
  const title = action === 'add' ? 'Add submitted' : 'Reduce submitted';
  if (!write.wait) {
    renderSubmitted(ctx.output, submitted, { title, footer: [`Check it with: ${POSITIONS_RESUME}`] });
    return 0;
  }

  const baseline = notionalOf(before);
  if (baseline === undefined || write.resumed) {
    // Without the notional from before this run's own write, a change cannot be told from no
    // change: report the submitted action instead of waiting for something that may have landed.
    renderSubmitted(ctx.output, submitted, { title, footer: [`Check it with: ${POSITIONS_RESUME}`] });
    ctx.output.note(
      write.resumed
        ? `Resumed with --idempotency-key: the ${action} may already have landed, so there is nothing to wait for here. Check it with: ${POSITIONS_RESUME}`
        : `The ${side} position on ${market} was not in the positions list before the ${action}, so its landing cannot be watched. Check it with: ${POSITIONS_RESUME}`,
    );
    return 0;
  }

  const hedgeId = submitted.hedge_id ?? (typeof before?.hedge_id === 'string' ? before.hedge_id : undefined);
  const tx = submitted.order_tx_hash ? ` ${shortHash(submitted.order_tx_hash)}` : '';
  let outcome;
  try {
    outcome = await waitForNotionalChange(ctx, {
      label: `Submitted ${action}${tx}, waiting for it to land`,
      startedAt,
      market,
      side,
      baselineNotionalUsd: baseline,
      hedgeId,
      action,
    });
  } catch (error) {
    if (error instanceof StillPendingError && ctx.output.isJson) ctx.output.json(submitted);
    throw error;
  }

  if (!ctx.output.isJson) {
    const done = action === 'add' ? `Added ${formatUsd(notionalUsd)}` : `Reduced by ${formatUsd(notionalUsd)}`;
    const now = outcome.closed
      ? 'is now closed'
      : outcome.notionalUsd !== undefined
        ? `is now ${formatUsd(outcome.notionalUsd)} (was ${formatUsd(baseline)})`
        : 'has changed';
    ctx.output.success(`${done}: the ${side} hedge on ${market} ${now}.`);
  }
  if (outcome.hedge) {
    renderHedge(ctx.output, outcome.hedge, { title: outcome.closed ? 'Hedge (closed)' : `Hedge after the ${action}` });
  } else if (outcome.position) {
    renderHedge(ctx.output, outcome.position, { title: `Position after the ${action}` });
  } else {
    renderSubmitted(ctx.output, { ...submitted, status: 'closed' }, { title: 'Position closed' });
  }
  return 0;
}
