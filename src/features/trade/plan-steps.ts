// What a plan of steps (an apply's, a roll's close then open) is carried out under: the book's and the sides' locks,
// one confirmation bound to what was shown, then each step through the one write flow in turn, with its own key.
import type { JournalEntry, Holder, ListOptions } from '../../platform/journal/index.js';
import type { WritePorts } from '../write/ports.js';
import { withAccountLock, withSideLocks } from '../write/account-lock.js';
import type { TradeRecord } from './trade-actions.js';
import { sendTrade } from './change.js';
import { identityOf, sentBy } from '../write/identity.js';
import { confirmAsShown } from '../write/as-shown.js';
import type { Trade } from '../../platform/runtime/context.js';

/** This account's entries of the groups whose id starts with `groupPrefix`, as `query` lists them (newest first). */
export async function ownGroupEntries(ports: WritePorts, groupPrefix: string, query: ListOptions) {
  const [journal, identity] = await Promise.all([ports.journal(), identityOf(ports)]);
  return (await journal.list(query)).filter((entry) => sentBy(identity, entry) && entry.group?.startsWith(groupPrefix));
}

/** What a plan is built, confirmed and carried out under: the book's lock (a second apply or roll waits; `waitedFor`:
 * who held it meanwhile), then each of its sides' through the one side-lock function runWrite re-enters. `book`
 * false: a keeper's step, whose sides alone it decides from. */
export function underPlanLocks<T>(
  ports: WritePorts,
  sides: ReadonlyArray<{ market: string; side: string }>,
  body: (waitedFor: Holder | undefined) => Promise<T>,
  { book = true } = {},
) {
  const underSides = (waitedFor?: Holder) => withSideLocks(ports, sides, () => body(waitedFor));
  return book ? withAccountLock(ports, 'the book of this account', ['book'], underSides) : underSides();
}

/** One step sent and waited for (`wait`), with the key journaled for it earlier (a resumed step) or a new one: the
 * plan's one confirmation covered it, with its checks, and an agent's limits admitted the whole plan. */
export async function sendStep(ports: WritePorts, record: TradeRecord, wait: boolean, idempotencyKey?: string) {
  return (await sendTrade(
    ports,
    await ports.client(),
    { ...record, approved: { by: 'plan' } },
    { wait, dryRun: false, fresh: false, idempotencyKey },
  )) as {
    entry: JournalEntry;
    answer?: unknown;
    result?: unknown;
  };
}

/** A plan shown and confirmed once: `show` presents it and says what it showed, with the question to ask (none: the plan
 * stands as shown). A "yes" holds for the trades shown: a book that moved under the question sends nothing, is said
 * (`moved`), and the plan is built and shown anew. */
export async function confirmedPlan<P extends { trades: readonly Trade[] }, S extends { question?: string }>(
  ports: WritePorts,
  build: () => Promise<P>,
  show: (plan: P) => Promise<S>,
  bound: { live: boolean; moved: (shown: P, now: P) => void },
) {
  for (let plan = await build(); ;) {
    const shown = await show(plan);
    if (shown.question === undefined) return { plan, shown };
    let now = plan;
    const asShown = await confirmAsShown(ports, shown.question, {
      live: bound.live,
      shown: plan.trades,
      now: async () => (now = await build()).trades,
      moved: () => bound.moved(plan, now),
    });
    if (asShown) return { plan, shown };
    plan = now;
  }
}

/** What a step of a plan did: its journal row, and what the write flow was answered and read (null: not due, nothing sent). */
export type StepDone = Awaited<ReturnType<typeof sendStep>> | null;

/** A step of a plan as the executor carries it out: its record (the plan's group, its leg) and the key journaled for it
 * earlier (a resumed step), else a new one. */
export interface PlanRunStep {
  record: TradeRecord;
  key?: string;
  /** false: sent, not waited for (--no-wait). */
  wait?: boolean;
  /** Under the plan's locks right before the send, given what the steps before it did: throws when the plan no longer
   * holds for it; a value (not undefined) stands for the step, and nothing is sent. */
  before?: (done: readonly StepDone[]) => Promise<StepDone | undefined>;
  /** A send that failed: throws (said for the plan), or what stands for the step. */
  failed?: (error: unknown, done: readonly StepDone[]) => Promise<StepDone>;
}

/** The executor of every plan of steps (an apply's, a roll's close then open): each step in turn through the one write
 * flow, the first that fails stopping the plan (`stoppedAt`, from 0, with its error); `each` hears every step done and
 * may stop the plan there. The plan's one confirmation covered every step, and an agent's limits admitted it whole. */
export async function runPlanSteps(
  ports: WritePorts,
  steps: readonly PlanRunStep[],
  each?: (index: number, done: StepDone) => void,
) {
  const done: StepDone[] = [];
  for (const [index, step] of steps.entries()) {
    try {
      const instead = await step.before?.(done);
      const result =
        instead !== undefined
          ? instead
          : await sendStep(ports, step.record, step.wait ?? true, step.key).catch(async (error: unknown) => {
              if (!step.failed) throw error;
              return step.failed(error, done);
            });
      done.push(result);
      each?.(index, result);
    } catch (error) {
      return { done, stoppedAt: index, error };
    }
  }
  return { done };
}
