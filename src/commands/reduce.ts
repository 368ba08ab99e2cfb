// hedge reduce MARKET SIDE NOTIONAL — remove notional from the open hedge on a side (margin scales
// down with it), then wait until the positions list shows it (or the side is gone), and show what
// it realized: the reduced share of the position's figures and the balance before → after.
import type { InputOf } from '../cli/command-spec.js';
import type { REDUCE } from './reduce.spec.js';
import type { CommandContext } from '../runtime/context.js';
import { runChangeCommand } from './change-command.js';

export function run(ctx: CommandContext, input: InputOf<typeof REDUCE>): Promise<number> {
  return runChangeCommand(ctx, 'reduce', input.args, { ...input.options, skipChecks: true });
}
