// hedge add / reduce MARKET SIDE NOTIONAL: change the open hedge on a side (an add keeps its maturity), then wait
// until the positions list shows the change (or the side is gone).
import type { CommandModule, InputOf } from '../../runner/command-spec.js';
import type { REDUCE } from '../specs.js';
import { dryRunResult, RESULT_FIELDS, writeResult } from '../../../platform/results/result-fields.js';
import { parseChangeOptions, runChange } from '../../../features/trade/change.js';
import { showTrade } from './trade-outcome.js';

/** Typed by reduce's input: add's is the same and --skip-checks. */
function changeCommand(action: 'add' | 'reduce'): CommandModule<InputOf<typeof REDUCE>> {
  return {
    async run(ctx, input) {
      const { outcome, body } = await runChange(ctx, action, parseChangeOptions(input.args, input.options));
      return showTrade(ctx, action, outcome, body);
    },
    // What the command prints, so that --fields is checked before anything is sent (ui/result-fields.ts).
    OUTPUT_FIELDS: (input) => (input.options.dryRun ? dryRunResult() : writeResult(RESULT_FIELDS[action])),
  };
}

export const add = changeCommand('add');
export const reduce = changeCommand('reduce');
