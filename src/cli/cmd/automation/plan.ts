// `hedge plan FILE`: what it takes to bring the book to a target file — current → target per side,
// the action (open, add, reduce, close) in execution order, each open/add quoted for its cost, and
// the pre-trade checks simulated over the whole plan. Sends no write. Exit 0 at target, 9 when
// changes are needed, 3 when a check fails (after the plan is shown), 2 for a bad file.
import type { InputOf } from '../../runner/command-spec.js';
import type { PLAN } from '../specs.js';
import { parseTolerance, planTarget } from '../../../features/plan/target-plan.js';
import { showPlan } from './plan-outcome.js';
import type { CommandContext } from '../../../platform/runtime/context.js';

export async function run(ctx: CommandContext, input: InputOf<typeof PLAN>) {
  const opts = { file: input.args.file, toleranceUsd: parseTolerance(input.options.tolerance) };
  return showPlan(ctx, await planTarget(ctx, opts), opts);
}
