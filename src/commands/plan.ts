// `hedge plan FILE`: what it takes to bring the book to a target file — current → target per side,
// the action (open, add, reduce, close) in execution order, each open/add quoted for its cost, and
// the pre-trade checks simulated over the whole plan. Sends no write. Exit 0 at target, 9 when
// changes are needed, 3 when a check fails (after the plan is shown), 2 for a bad file.
import type { InputOf } from '../cli/command-spec.js';
import type { PLAN } from './plan.spec.js';
import { buildTargetPlan, exitCodeNamed, parseTolerance, planCheckError, readTargetFile, type TargetPlanOptions } from '../flows/target-plan.js';
import type { CommandContext } from '../runtime/context.js';
import { planAsData, renderPlan } from '../ui/plan-view.js';
import { terminalColumns } from '../ui/width.js';

export type PlanOptions = TargetPlanOptions;

export function parsePlanOptions(input: InputOf<typeof PLAN>): PlanOptions {
  return { file: input.args.file, toleranceUsd: parseTolerance(input.options.tolerance) };
}

/** The terminal's width for the table (the stream's own when it is a TTY, else COLUMNS, else 80). */
export function outputColumns(ctx: CommandContext): number {
  return terminalColumns({ isTTY: ctx.io.stdoutIsTTY, columns: (ctx.io.stdout as { columns?: number }).columns, env: ctx.env });
}

/** Shared with `apply --dry-run`: shows the plan and returns its exit code (or throws the failed checks). */
export async function runPlan(ctx: CommandContext, opts: PlanOptions, applyWords: string[] = ['apply']): Promise<number> {
  // The whole file is checked before anything is read from the server.
  const target = await readTargetFile(ctx, opts.file);
  const client = await ctx.client();
  const quoted = await buildTargetPlan(ctx, client, target, opts.toleranceUsd);
  if (ctx.output.isJson) ctx.output.json(planAsData(quoted));
  else {
    const tolerance = opts.toleranceUsd > 0 ? ['--tolerance', String(opts.toleranceUsd)] : [];
    renderPlan(ctx.output, quoted, { columns: outputColumns(ctx), applyCommand: ctx.hedgeCommand(...applyWords, opts.file, ...tolerance) });
  }
  if (quoted.plan.problems.length > 0) throw planCheckError(ctx, quoted);
  return quoted.plan.atTarget ? exitCodeNamed('ok') : exitCodeNamed('changes');
}

export function run(ctx: CommandContext, input: InputOf<typeof PLAN>): Promise<number> {
  return runPlan(ctx, parsePlanOptions(input));
}
