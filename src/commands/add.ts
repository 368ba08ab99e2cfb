// hedge add MARKET SIDE NOTIONAL — grows the open hedge on that side (same maturity); pre-trade
// checked like an open, then waited until the new notional is visible. See domain/change.ts.
import type { CommandContext } from '../context.js';
import { runChange } from '../domain/change.js';
import type { CommandInput } from './manifest.js';

export function run(ctx: CommandContext, input: CommandInput): Promise<number> {
  return runChange(ctx, input, 'add');
}
