// Shared by open, close, add, reduce and resume (not a command): the one place a trade's outcome,
// returned by the write flow, is shown and turned into the command's ending — an open that failed
// on-chain is raised as its error (exit code from errors.ts), anything else ends with 0.
import type { Quote } from '../../../platform/api/schemas.js';
import { tradeView } from '../../../features/trade/trade-actions.js';
import type { WriteOutcome } from '../../../features/write/write-flow.js';
import { type CommandContext, OrderFailedError } from '../command-input.js';
import { renderDryRun } from '../../../platform/results/dry-run-view.js';
import { renderTrade } from '../../../platform/results/write-outcome.js';
import { dryRunResult, RESULT_FIELDS, writeResult } from '../../../platform/results/result-fields.js';

/** What a write command prints (a trade's, or `api`'s envelope), so that --fields is checked before anything is sent (ui/result-fields.ts). */
export const writeFields =
  (name: keyof typeof RESULT_FIELDS, dryRunNames?: readonly string[]) => (input: { options: { dryRun?: boolean } }) =>
    input.options.dryRun ? dryRunResult(dryRunNames) : writeResult(RESULT_FIELDS[name]);

/** `quote`: the one shown before an open. */
export function showTrade(ctx: CommandContext, outcome: WriteOutcome<unknown, unknown>, quote?: Quote) {
  if (outcome.kind === 'dry-run') {
    renderDryRun(ctx.output, outcome.planned);
    return 0;
  }
  const view = tradeView(outcome);
  if (view) renderTrade(ctx.output, view, ctx.hedgeCommand, quote);
  // An open that failed on-chain is an error once shown (exit code from errors.ts, as any failure).
  if (view?.kind === 'open-resolved' && view.hedge.status === 'failed')
    throw new OrderFailedError(
      `The order for hedge ${view.hedge.id} failed on-chain: nothing was opened, and the reserved margin and fee were released.`,
      view.hedge.id,
      `Check the market with \`${ctx.hedgeCommand('markets')}\`, then open again (a new run uses a new idempotency key).`,
    );
  return 0;
}
