// `hedge plan FILE`: the actions that reach a target file, in execution order, with the checks simulated; no write.
// Its plan is also `apply --dry-run`'s: quoted, shown and turned into the exit code — 0 at target, `changes` (10)
// when it would trade, the failed pre-trade checks raised (exit 3) after it.
import { type CommandContext, type In, exitCodeNamed } from '../command-input.js';
import {
  applyWords,
  parseTolerance,
  planCheckError,
  planTarget,
  type TargetPlanOptions,
} from '../../../features/plan/target-plan.js';
import { planAsData, renderPlan } from '../../../features/plan/plan-view.js';
import type { WritePorts } from '../../../features/write/ports.js';

/** What this command uses of its context. */
export type Options = WritePorts & Pick<CommandContext, 'output'>;

export async function run(ctx: Options, input: In<'PLAN'>) {
  const { tolerance, adopt } = input.options;
  return showPlan(ctx, { file: input.args.file, toleranceUsd: parseTolerance(tolerance), adopt: adopt ?? [] });
}

/** The plan as `hedge plan` (and `apply --dry-run`) shows it; `applyWords` name the command that carries it out. */
export async function showPlan(ctx: Options, opts: TargetPlanOptions) {
  const { output } = ctx;
  const quoted = await planTarget(ctx, opts);
  await output.document(planAsData(quoted), () => renderPlan(output, quoted, ctx.hedgeCommand(...applyWords(opts))));
  if (quoted.plan.problems.length) throw planCheckError(ctx, quoted);
  return exitCodeNamed(quoted.plan.atTarget ? 'ok' : 'changes');
}
