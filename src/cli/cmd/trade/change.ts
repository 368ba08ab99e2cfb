// hedge add / reduce MARKET SIDE NOTIONAL: change the open hedge on a side (an add keeps its maturity), then wait
// until the positions list shows the change (or the side is gone).
import type { CommandModule } from '../../runner/command-spec.js';
import type { CommandContext, In } from '../command-input.js';
import { parseChangeOptions, runChange } from '../../../features/trade/change.js';
import { showTrade, writeFields } from './trade-outcome.js';
import type { WritePorts } from '../../../features/write/ports.js';

/** What this command uses of its context. */
export type Options = WritePorts & Pick<CommandContext, 'output'>;

/** Typed by reduce's input: add's is the same and --skip-checks. */
function changeCommand(action: 'add' | 'reduce'): CommandModule<In<'REDUCE'>> {
  return {
    async run(ctx: Options, input) {
      return showTrade(ctx, await runChange(ctx, action, parseChangeOptions(input.args, input.options)));
    },
    OUTPUT_FIELDS: writeFields(action),
  };
}

export const add = changeCommand('add');
export const reduce = changeCommand('reduce');
