// `hedge apply FILE`: the run is the flow (features/plan/apply.ts); this shows the plan before the question, and the outcome.
import { type CommandContext, type In, describeError, exitCodeNamed, safeText, plural } from '../command-input.js';
import { RESULT_FIELDS, writeResult } from '../../../platform/results/result-fields.js';
import { applyWords, parseTolerance, planCheckError } from '../../../features/plan/target-plan.js';
import { showPlan } from './plan.js';
import { applyTarget, stepLabel } from '../../../features/plan/apply.js';
import { renderApplyReport, renderPlan } from '../../../features/plan/plan-view.js';
import type { WritePorts } from '../../../features/write/ports.js';

/** What this command uses of its context. */
export type Options = WritePorts & Pick<CommandContext, 'output'>;

export async function run(ctx: Options, { args, options }: In<'APPLY'>) {
  const opts = { file: args.file, toleranceUsd: parseTolerance(options.tolerance), adopt: options.adopt ?? [] };
  if (options.dryRun) return showPlan(ctx, opts);
  // Under --json the plan is not shown: the report (or the problems, as data) is the document.
  const { output } = ctx;
  const outcome = await applyTarget(ctx, opts, output.isJson ? undefined : (quoted) => renderPlan(output, quoted));
  const { steps } = outcome.quoted.plan;
  switch (outcome.kind) {
    case 'fails-checks':
      throw planCheckError(ctx, outcome.quoted);
    case 'at-target':
      // An empty report: a JSON reader's document; text output says nothing.
      await renderApplyReport(output, []);
      return exitCodeNamed('ok');
    case 'stopped': {
      const { rows, stoppedAt: index, error } = outcome;
      output.note(
        output.chalk.red(
          `${stepLabel(index, steps)} … ${rows[index].outcome} (${safeText(describeError(error).code)})`,
        ),
      );
      await renderApplyReport(output, rows);
      output.warn(
        `Apply stopped at step ${index + 1} of ${steps.length}; ${plural(steps.length - index - 1, 'step')} not run. Running \`${ctx.hedgeCommand(...applyWords(opts))}\` again finishes what is unresolved and plans anew.`,
      );
      throw error;
    }
    case 'applied':
      await renderApplyReport(output, outcome.rows);
      output.success(
        `Applied ${plural(steps.length, 'action')}: the book is at the target of ${safeText(outcome.quoted.source)}.`,
      );
      return exitCodeNamed('ok');
  }
}

/**
 * What `hedge apply` prints, so that --fields is checked before anything is sent
 * (platform/results/result-fields.ts); `--dry-run` is `hedge plan`, a read whose names are checked on its data.
 */
export const OUTPUT_FIELDS = ({ options }: In<'APPLY'>) =>
  options.dryRun ? undefined : writeResult(RESULT_FIELDS.apply);
