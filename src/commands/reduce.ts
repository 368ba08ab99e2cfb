// hedge reduce MARKET SIDE NOTIONAL — remove notional from the open hedge on a side (margin scales
// down with it), then wait until the positions list shows it (or the side is gone).
import type { InputOf } from '../cli/command-spec.js';
import type { REDUCE } from '../cli/manifest.js';
import type { CommandContext } from '../runtime/context.js';
import { runChangeCommand } from './change-command.js';

export function run(ctx: CommandContext, input: InputOf<typeof REDUCE>): Promise<number> {
  return runChangeCommand(ctx, 'reduce', input.args, { ...input.options, skipChecks: true });
}
