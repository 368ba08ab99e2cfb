// `hedge plan FILE`: the actions that reach a target file, in execution order, with the checks simulated; no write.
import type { InputOf } from '../../runner/command-spec.js';
import type { PLAN } from '../specs.js';
import { parseTolerance, planTarget } from '../../../features/plan/target-plan.js';
import { showPlan } from './plan-outcome.js';
import type { CommandContext } from '../../../platform/runtime/context.js';

export async function run(ctx: CommandContext, input: InputOf<typeof PLAN>) {
  const opts = { file: input.args.file, toleranceUsd: parseTolerance(input.options.tolerance) };
  return showPlan(ctx, await planTarget(ctx, opts), opts);
}
