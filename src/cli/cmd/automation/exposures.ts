// `hedge exposures FILE`: the target book a treasury's receivables and payables imply under a policy; no write.
import { type CommandContext, type In, echo, parseDecimal, UsageError } from '../command-input.js';
import { resolvePolicy, type PolicyFlags } from '../../../features/exposures/exposure-policy.js';
import { gatherExposureReport, gatherExposures } from '../../../features/exposures/exposures.js';
import { accountName, htmlTarget } from '../../../features/report/report.js';
import { writeNamedFile } from '../../../core/security/bounded-read.js';
import {
  exposureReportHtml,
  PLAN_VIEW,
  REPORT_VIEW,
  renderExposureSections,
} from '../../../features/exposures/exposures-view.js';
import type { WritePorts } from '../../../features/write/ports.js';

/** What this command uses of its context. */
export type Options = WritePorts & Pick<CommandContext, 'output'>;

export async function run(ctx: Options, { args, options }: In<'EXPOSURES'>) {
  // Every option checked before anything is read: a bad one is a UsageError (exit 2) naming it.
  const feeBps =
    options.feeBps === undefined
      ? undefined
      : parseDecimal(options.feeBps, {
          name: '--fee-bps',
          unit: 'basis points of the notional traded',
          min: 0,
          max: 1000,
          example: '5',
        });
  // --report: coverage, cost to date and effectiveness from history, instead of the plan ahead.
  const report = options.report === true;
  const view = report ? REPORT_VIEW : PLAN_VIEW;
  const allowed = Object.keys(view.sections);
  const section = options.show?.trim().toLowerCase();
  if (section !== undefined && !allowed.includes(section))
    throw new UsageError(
      `--show: ${echo(options.show!)} is not allowed${report ? ' with --report' : ''}; expected one of ${allowed.join(', ')}.`,
    );
  if (options.html !== undefined && !report)
    throw new UsageError(
      '--html: only with --report (the HTML file is the report of coverage, cost and effectiveness).',
    );
  const html = options.html === undefined ? undefined : htmlTarget(options.html);
  // The option names are the policy flags' names; the flags alone are checked now, before any file is read.
  const flags: PolicyFlags = options;
  resolvePolicy({}, flags);
  const opts = { file: args.file, policyFile: options.policy, flags };
  if (!report)
    return renderExposureSections(ctx.output, await gatherExposures(ctx, { ...opts, feeBps }), view, section);
  const reportView = await gatherExposureReport(ctx, opts);
  await renderExposureSections(ctx.output, reportView, view, section);
  if (html === undefined) return;
  writeNamedFile(
    html,
    exposureReportHtml(reportView, accountName(await ctx.credentials()), new Date(ctx.clock.now()).toISOString()),
    '--html',
  );
  ctx.output.note(`HTML report written to ${html}`);
}
