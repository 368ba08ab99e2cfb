// `hedge plan FILE`: the actions that reach a target file, in execution order, with the checks simulated; no write.
import type { CommandContext, In } from '../command-input.js';
import { parseTolerance } from '../../../features/plan/target-plan.js';
import { showPlan } from './plan-outcome.js';

export async function run(ctx: CommandContext, input: In<'PLAN'>) {
  const opts = { file: input.args.file, toleranceUsd: parseTolerance(input.options.tolerance) };
  return showPlan(ctx, opts);
}
