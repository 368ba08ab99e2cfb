// hedge reduce MARKET SIDE NOTIONAL — remove notional from the open hedge on a side (margin scales
// down with it), then wait until the positions list shows it (or the side is gone), and show what
// it realized: the reduced share of the position's figures and the balance before → after.
import type { InputOf } from '../../runner/command-spec.js';
import type { REDUCE } from '../specs.js';
import { dryRunResult, RESULT_FIELDS, writeResult } from '../../../platform/results/result-fields.js';
import type { CommandContext } from '../../../platform/runtime/context.js';
import { parseChangeOptions, runChange } from '../../../features/trade/change.js';
import { showTrade } from './trade-outcome.js';

export async function run(ctx: CommandContext, input: InputOf<typeof REDUCE>) {
  const { outcome, body } = await runChange(ctx, 'reduce', parseChangeOptions(input.args, input.options));
  return showTrade(ctx, 'reduce', outcome, body);
}

/** What `hedge reduce` prints, so that --fields is checked before anything is sent (ui/result-fields.ts). */
export const OUTPUT_FIELDS = (input: InputOf<typeof REDUCE>) =>
  input.options.dryRun ? dryRunResult() : writeResult(RESULT_FIELDS.reduce);
