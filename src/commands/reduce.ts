// hedge reduce MARKET SIDE NOTIONAL — shrinks the open hedge on that side (margin scales down with
// it; about the whole notional closes it), then waits until the change is visible. See domain/change.ts.
import type { CommandContext } from '../context.js';
import { runChange } from '../domain/change.js';
import type { CommandInput } from './manifest.js';

export function run(ctx: CommandContext, input: CommandInput): Promise<number> {
  return runChange(ctx, input, 'reduce');
}
