// `hedge apply` as a flow: an earlier apply's unresolved actions finished with their own keys, then the
// plan built from the live book, confirmed once and carried out step by step under the locks.
import type { HedgeClient } from '../../platform/api/client.js';
import type { PlanStep } from '../../core/plan.js';
import { formatUsd, plural } from '../../core/number-format.js';
import { utcStamp } from '../../core/utc-text.js';
import { HeldError, OrderFailedError, UnresolvedError } from '../../core/errors.js';
import { describeHolder, type JournalEntry, type SideAfter } from '../../platform/journal/index.js';
import type { WritePorts } from '../write/ports.js';
import { safeText } from '../../core/security/safe-text.js';
import { guardLiveAction, hedgesWords } from '../write/confirm.js';
import {
  againWords,
  applyWords,
  buildTargetPlan,
  checkPlanRequests,
  notThisRowsError,
  readTargetFile,
  type QuotedPlan,
  type TargetPlanOptions,
} from './target-plan.js';
import { days, stepRecord } from '../trade/trade-actions.js';
import { confirmedPlan, finishEarlierSteps, journaledPlan, runStep, type StepDone } from '../trade/plan-steps.js';
import { readSidesAsAnswered } from '../write/wait.js';
import { lock } from '../write/write-flow.js';
import type { Held } from '../write/write-run.js';
import { sideAfterOf } from '../book/side-book.js';
import { sameSide } from '../book/book.js';

/** Every apply run's journal group starts with this; a later apply finishes what one left open. */
const APPLY_GROUP_PREFIX = 'apply-';

// What an apply run did, as data (commands/apply.ts renders it and chooses the exit code).

/** One step of the run as its report shows it; its outcome one of filled / done / failed / rejected / unknown / pending / not_sent / not_run. */
export type ApplyReportRow = ReturnType<typeof reportRow>;

/** A step's row: `outcome` when the journal entry does not say it (or there is none). */
function reportRow(index: number, step: PlanStep, entry?: JournalEntry, outcome?: string) {
  return {
    step: index + 1,
    action: step.action,
    market: step.market,
    side: step.side,
    delta_usd: step.deltaUsd,
    outcome: entry?.outcome ?? outcome ?? 'not_run',
    hedge_id: entry?.hedge_id ?? null,
    journal_id: entry?.id ?? null,
  };
}

/** Brings the book to the target file: the file, then the live guard, then all else under the locks; a failed step stops the run. */
export async function applyTarget(
  ports: WritePorts,
  opts: TargetPlanOptions,
  /** Shows the plan before the one confirmation, awaited so the question follows the table. */
  showPlan?: (quoted: QuotedPlan) => Promise<void>,
) {
  const target = await readTargetFile(ports, opts.file, againWords('apply', opts));
  const guard = await guardLiveAction(ports, { action: 'apply a target book' });
  const client = await ports.client();
  const plan = () => buildTargetPlan(ports, client, target, opts);
  return lock(ports, {
    sides: target.rows,
    book: true,
    run: async (held, waitedFor) => {
      // An earlier apply's unresolved steps, finished first with their own keys.
      const resumed = await finishEarlierSteps(ports, APPLY_GROUP_PREFIX, 'apply', held);
      // One confirmation for the whole run (the guard already required --yes for a live key without a terminal).
      const { plan: quoted } = await confirmedPlan(
        ports,
        plan,
        async (shown) => {
          await showPlan?.(shown);
          if (shown.plan.problems.length || shown.plan.notThisRows.length) return {};
          // An agent's checks judge this plan whole (its limits, and a live key's confirmation token).
          await checkPlanRequests(ports, client, shown);
          const { length } = shown.plan.steps;
          return {
            question:
              length && ports.interactive && !ports.globals.yes ? `Apply ${plural(length, 'action')}?` : undefined,
          };
        },
        {
          live: guard.live,
          // A colleague elsewhere may have moved a side while the question was open.
          moved: () =>
            ports.notify({
              kind: 'moved-since-asked',
              level: 'warn',
              text: 'The book moved while you were asked: the plan is no longer the one shown. Nothing was sent; here is the plan as the book is now.',
            }),
        },
      );
      // A side holding hedges that are not its row's is the user's to adopt: nothing was sent.
      if (quoted.plan.notThisRows.length) throw notThisRowsError(ports, quoted, opts);
      // The plan fails pre-trade checks: nothing was sent.
      if (quoted.plan.problems.length) return { kind: 'fails-checks' as const, quoted };
      if (!quoted.plan.steps.length) {
        if (waitedFor && !resumed) {
          // Exit 0 of a write means this command's action happened: here another process's did.
          throw new HeldError(
            `The book reached the target of ${safeText(target.sourceName)} while this run waited for another hedge process (${safeText(describeHolder(waitedFor))}): there was nothing left to do, and this run sent nothing.`,
            {
              holder: waitedFor,
              hint: `See what it did with \`${ports.hedgeCommand('journal')}\`; the book is at the target.`,
            },
          );
        }
        // The book was at the target: nothing to do, nothing sent.
        return { kind: 'at-target' as const, quoted };
      }
      return { ...(await carryOut(ports, client, quoted, opts, held)), quoted };
    },
  });
}

/** Each step sent and waited for in turn, right after its side is seen as the plan read it; the first that fails stops
 * the run. */
async function carryOut(
  ports: WritePorts,
  client: HedgeClient,
  quoted: QuotedPlan,
  run: TargetPlanOptions,
  held: Held,
) {
  const { steps } = quoted.plan;
  const group = `${APPLY_GROUP_PREFIX}${utcStamp(ports.clock.now())}`;
  const rerun = () => `run \`${ports.hedgeCommand(...applyWords(run))}\` again: it plans anew from the book as it is.`;
  const leg = (index: number) => `step-${index + 1}`;
  const done: StepDone[] = [];
  let stopped: { at: number; error: unknown } | undefined;
  for (const [index, step] of steps.entries()) {
    try {
      // The plan holds for each side as it was read: one moved by an actor outside hedge meanwhile is not acted on.
      const planned = quoted.trades[index].held;
      const { books } = await readSidesAsAnswered(ports, client, [step], true);
      const now = sideAfterOf(books[0]);
      if (!sameSide(now, planned))
        throw new UnresolvedError(
          `The ${step.side} side of ${safeText(step.market)} moved since the plan was made: it holds ${holds(now)} now, not the ${holds(planned)} planned on; something outside hedge changed it. Step ${index + 1} was not sent.`,
          {
            details: { market: step.market, side: step.side, planned, now },
            hint: `See the side with \`${ports.hedgeCommand('positions')}\`, then ${rerun()}`,
          },
        );
      const { entry } = (done[index] = await runStep(ports, { record: stepRecord(step, group, leg(index)) }, held))!;
      if (entry.outcome === 'failed')
        throw new OrderFailedError(
          `Step ${index + 1} (${describeStep(step)}) failed on-chain: nothing was opened, and the reserved margin and fee were released.`,
          entry.hedge_id ?? '',
          `Check the market with \`${ports.hedgeCommand('markets')}\`, then ${rerun()}`,
        );
      ports.notify({
        kind: 'applied-step',
        level: 'note',
        text: `${stepLabel(index, steps)} … ${entry.outcome}${entry.hedge_id ? ` (${safeText(entry.hedge_id)})` : ''}`,
      });
    } catch (error) {
      stopped = { at: index, error };
      break;
    }
  }
  // A row per step: each done, its journal entry; the later ones `not_run`.
  const rows = steps.map((step, index) => reportRow(index, step, done[index]?.entry));
  if (!stopped) return { kind: 'applied' as const, rows };
  const index = stopped.at;
  if (!done[index]) {
    // Reading the journal for the report never replaces the step's own outcome.
    const entry = await journaledPlan(ports, group).then(
      ({ row }) => row(leg(index)),
      () => null,
    );
    rows[index] = reportRow(index, steps[index], entry ?? undefined, entry === null ? 'unknown' : 'not_sent');
  }
  // Step `stoppedAt` (from 0) ended in `error`.
  return { kind: 'stopped' as const, rows, stoppedAt: index, error: stopped.error };
}

/** What a side holds, in words: "4,000.00 USD in hdg_1", or "no hedge". */
const holds = (side: SideAfter) =>
  side.hedge_ids.length ? `${formatUsd(side.notional_usd)} in ${hedgesWords(side)}` : 'no hedge';

/** `[2/3] add 5,000.00 USD to buy USDTNGN`: a step of the run as its progress line names it. */
export function stepLabel(index: number, steps: readonly PlanStep[]) {
  return `[${index + 1}/${steps.length}] ${describeStep(steps[index])}`;
}

/** How a step reads in the progress lines of `apply`: "add 5,000.00 USD to buy USDTNGN". */
function describeStep(step: PlanStep) {
  const market = safeText(step.market);
  const amount = formatUsd(Math.abs(step.deltaUsd));
  switch (step.action) {
    case 'open':
      return `open ${amount} ${step.side} ${market}${step.tenorDays === undefined ? '' : ` (${days(step.tenorDays)})`}`;
    case 'add':
      return `add ${amount} to ${step.side} ${market}`;
    case 'reduce':
      return `reduce ${step.side} ${market} by ${amount}`;
    case 'close':
      return `close ${step.side} ${market} (${formatUsd(step.currentUsd)})`;
  }
}
