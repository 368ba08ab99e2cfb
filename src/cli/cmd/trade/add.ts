// hedge add MARKET SIDE NOTIONAL — add notional to the open hedge on a side (same maturity): the
// added notional is quoted first (execution price, margin, fee), then sent and waited for until the
// positions list shows it; the position before → after is shown (flows/trade-actions.ts).
import type { InputOf } from '../../runner/command-spec.js';
import type { ADD } from '../specs.js';
import { dryRunResult, RESULT_FIELDS, writeResult } from '../../../platform/results/result-fields.js';
import type { CommandContext } from '../../../platform/runtime/context.js';
import { parseChangeOptions, runChange } from '../../../features/trade/change.js';
import { showTrade } from './trade-outcome.js';

export async function run(ctx: CommandContext, input: InputOf<typeof ADD>) {
  const { outcome, body } = await runChange(ctx, 'add', parseChangeOptions(input.args, input.options));
  return showTrade(ctx, 'add', outcome, body);
}

/** What `hedge add` prints, so that --fields is checked before anything is sent (ui/result-fields.ts). */
export const OUTPUT_FIELDS = (input: InputOf<typeof ADD>) =>
  input.options.dryRun ? dryRunResult() : writeResult(RESULT_FIELDS.add);
