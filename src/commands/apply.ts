// `hedge apply FILE`: bring the book to a target file. First every unresolved action of an earlier
// apply (killed or cut off) is finished with its own key (flows/apply.ts, through the one resume flow); then the plan is computed anew from live
// state and shown, confirmed once, and carried out step by step through the one write flow — each
// step journaled (one group per run, one leg per step) and waited to resolution. A second apply at
// target sends nothing. `--dry-run` is `hedge plan`.
import type { HedgeClient } from '../api/client.js';
import type { InputOf } from '../cli/command-spec.js';
import type { APPLY } from './apply.spec.js';
import { RESULT_FIELDS, writeResult } from '../ui/result-fields.js';
import type { PlanStep } from '../domain/plan.js';
import { HeldError, OrderFailedError } from '../errors.js';
import { describeError } from '../exit-codes.js';
import { withAccountLock, withSideLocks } from '../flows/account-lock.js';
import { confirmOrStop, guardLiveAction } from '../flows/live-guard.js';
import { buildTargetPlan, checkPlanRequests, parseTolerance, planCheckError, planTarget, planTrades, readTargetFile, type TargetPlanOptions } from '../flows/target-plan.js';
import { exitCodeNamed } from '../exit-codes.js';
import { outputColumns, showPlan } from './plan-outcome.js';
import { stepAction } from '../flows/trade-actions.js';
import { runWrite } from '../flows/write-flow.js';
import { APPLY_GROUP_PREFIX, asStep, resumeUnfinishedApplies, SEND_AND_WAIT } from '../flows/apply.js';
import { describeHolder, type Holder, type JournalEntry } from '../journal/index.js';
import type { CommandContext } from '../runtime/context.js';
import { safeText } from '../security/safe-text.js';
import { describeStep, renderApplyReport, renderPlan, type ApplyReportRow } from '../ui/plan-view.js';
import { utcStamp } from '../domain/utc-text.js';

export interface ApplyOptions extends TargetPlanOptions {
  dryRun: boolean;
}

export function parseApplyOptions(input: InputOf<typeof APPLY>): ApplyOptions {
  return { file: input.args.file, toleranceUsd: parseTolerance(input.options.tolerance), dryRun: input.options.dryRun === true };
}

function groupId(ctx: CommandContext): string {
  return `${APPLY_GROUP_PREFIX}${utcStamp(ctx.clock.now())}`;
}

function reportRow(index: number, step: PlanStep, entry: Pick<JournalEntry, 'id' | 'outcome' | 'hedge_id'> | undefined, outcome?: string): ApplyReportRow {
  return {
    step: index + 1,
    action: step.action,
    market: step.market,
    side: step.side,
    delta_usd: step.deltaUsd,
    outcome: outcome ?? entry?.outcome ?? 'not_run',
    hedge_id: entry?.hedge_id ?? null,
    journal_id: entry?.id ?? null,
  };
}

export async function runApply(ctx: CommandContext, opts: ApplyOptions): Promise<number> {
  if (opts.dryRun) return showPlan(ctx, await planTarget(ctx, opts), opts);
  // The file first (exit 2 with nothing read), then the live guard (a refused live run sends nothing).
  const target = await readTargetFile(ctx, opts.file);
  const guard = await guardLiveAction(ctx, { action: 'apply a target book', dryRun: false });
  const client = await ctx.client();
  // Read the book, decide, send and see it land under one lock: a second apply (or roll) of this
  // account waits, then plans from the book as the first one left it.
  return withAccountLock(ctx, 'the book of this account', ['book'], async ({ waitedFor }) => {
    // And every side the target names, from the plan to the last step's landing: an add or a
    // close of one of them by another actor waits for this apply, or this apply for it.
    return withSideLocks(ctx, target.rows, async () => {
      const resumed = (await resumeUnfinishedApplies(ctx, client)).length;
      return applyPlan(ctx, client, opts, target, guard, { waitedFor, resumed });
    });
  });
}

async function applyPlan(
  ctx: CommandContext,
  client: HedgeClient,
  opts: ApplyOptions,
  target: Awaited<ReturnType<typeof readTargetFile>>,
  guard: Awaited<ReturnType<typeof guardLiveAction>>,
  locked: { waitedFor?: Holder; resumed: number },
): Promise<number> {
  const quoted = await buildTargetPlan(ctx, client, target, opts.toleranceUsd);
  const { steps } = quoted.plan;
  if (!ctx.output.isJson) await renderPlan(ctx.output, quoted, { columns: outputColumns(ctx), preview: true });
  if (quoted.plan.problems.length > 0) throw planCheckError(ctx, quoted, { problemsAsData: ctx.output.isJson });
  // An agent's checks judge this plan — the one carried out below, under this lock — whole: its
  // limits, and on a live key the plan its confirmation token was issued for.
  await checkPlanRequests(ctx, client, steps);
  await ctx.tradeGate?.admit(planTrades(steps), 'apply');
  if (steps.length === 0) {
    if (locked.waitedFor && locked.resumed === 0) {
      // Exit 0 of a write means this command's action happened: here another process's did.
      throw new HeldError(
        `The book reached the target of ${safeText(target.sourceName)} while this run waited for another hedge process (${safeText(describeHolder(locked.waitedFor))}): there was nothing left to do, and this run sent nothing.`,
        { holder: locked.waitedFor, hint: `See what it did with \`${ctx.hedgeCommand('journal')}\`; the book is at the target.` },
      );
    }
    if (ctx.output.isJson) await renderApplyReport(ctx.output, []);
    return exitCodeNamed('ok');
  }

  // One confirmation for the whole run: on a terminal unless --yes (the guard already required
  // --yes for a live key without one); without a terminal on a test key, none.
  if (ctx.interactive && !ctx.globals.yes) {
    const live = guard.live ? `${ctx.output.chalk.red.bold('LIVE')} ` : '';
    await confirmOrStop(ctx, `${live}Apply ${steps.length} action${steps.length === 1 ? '' : 's'}?`);
  }

  const group = groupId(ctx);
  const journal = await ctx.journal();
  const rows: ApplyReportRow[] = [];
  for (const [index, step] of steps.entries()) {
    const leg = `step-${index + 1}`;
    const label = `[${index + 1}/${steps.length}] ${describeStep(step)}`;
    try {
      const result = await runWrite(ctx, asStep(stepAction(ctx, client, step, group, leg)), SEND_AND_WAIT);
      const entry = result.kind === 'dry-run' ? undefined : result.entry;
      rows.push(reportRow(index, step, entry));
      if (entry?.outcome === 'failed') {
        throw new OrderFailedError(
          `Step ${index + 1} (${describeStep(step)}) failed on-chain: nothing was opened, and the reserved margin and fee were released.`,
          entry.hedge_id ?? '',
          `Check the market with \`${ctx.hedgeCommand('markets')}\`, then run \`${ctx.hedgeCommand('apply', opts.file)}\` again: it plans anew from the book as it is.`,
        );
      }
      ctx.output.note(`${label} … ${entry?.outcome ?? 'done'}${entry?.hedge_id ? ` (${safeText(entry.hedge_id)})` : ''}`);
    } catch (error) {
      const description = describeError(error);
      if (rows.length === index) {
        // Reading the journal for the report must never replace the step's own outcome (a team
        // store lost while the step waited: the step was sent, and its error says so).
        const entry = await journal.list().then(
          (entries) => entries.find((candidate) => candidate.group === group && candidate.leg === leg),
          () => null,
        );
        rows.push(reportRow(index, step, entry ?? undefined, entry === null ? 'unknown' : entry ? undefined : 'not_sent'));
      }
      ctx.output.note(ctx.output.chalk.red(`${label} … ${rows[index]!.outcome} (${safeText(description.code)})`));
      for (const [later, rest] of steps.entries()) if (later > index) rows.push(reportRow(later, rest, undefined));
      await renderApplyReport(ctx.output, rows);
      ctx.output.warn(`Apply stopped at step ${index + 1} of ${steps.length}; ${steps.length - index - 1} step${steps.length - index - 1 === 1 ? '' : 's'} not run. Running \`${ctx.hedgeCommand('apply', opts.file)}\` again finishes what is unresolved and plans anew.`);
      throw error;
    }
  }
  await renderApplyReport(ctx.output, rows);
  ctx.output.success(`Applied ${steps.length} action${steps.length === 1 ? '' : 's'}: the book is at the target of ${safeText(target.sourceName)}.`);
  return exitCodeNamed('ok');
}

export function run(ctx: CommandContext, input: InputOf<typeof APPLY>): Promise<number> {
  return runApply(ctx, parseApplyOptions(input));
}

/**
 * What `hedge apply` prints, so that --fields is checked before anything is sent
 * (ui/result-fields.ts); `--dry-run` is `hedge plan`, a read whose names are checked on its data.
 */
export const OUTPUT_FIELDS = (input: InputOf<typeof APPLY>) => (input.options.dryRun ? undefined : writeResult(RESULT_FIELDS.apply));
