// hedge add MARKET SIDE NOTIONAL — add notional to the open hedge on a side (same maturity), then
// wait until the positions list shows it.
import type { InputOf } from '../cli/command-spec.js';
import type { ADD } from '../cli/manifest.js';
import type { CommandContext } from '../runtime/context.js';
import { runChangeCommand } from './change-command.js';

export function run(ctx: CommandContext, input: InputOf<typeof ADD>): Promise<number> {
  return runChangeCommand(ctx, 'add', input.args, input.options);
}
