// The executor of a plan of steps (an apply's, a roll's close then open): the book's and the sides' locks, one
// confirmation bound to what was shown, then each step through the one write flow in turn, with its own key.
import type { JournalEntry, Holder } from '../../platform/journal/index.js';
import type { WritePorts } from '../write/ports.js';
import { withAccountLock, withSideLocks } from '../write/account-lock.js';
import type { TradeRecord } from './trade-actions.js';
import { sendTrade } from './change.js';

/** One step: the record of its write, and what the plan knows of it from the journal. */
export interface PlanStepRun {
  record: TradeRecord;
  /** The key journaled for it earlier (a resumed step is sent again under it); unset: a new key. */
  idempotencyKey?: string;
  wait: boolean;
  /** Already resolved in the journal: not sent again, its entry is its outcome. */
  done?: JournalEntry;
  /** Right before the send, with the earlier steps' results: a result that stands instead of sending, or a throw that stops the plan. */
  before?(earlier: readonly StepResult[]): Promise<StepResult | void>;
  /** The send threw: a result the plan goes on with, or a throw (the error, reworded) that stops it. */
  failed?(error: unknown, earlier: readonly StepResult[]): Promise<StepResult>;
}

/** What a step came to; `skipped` says why it was not sent (`entry` then is absent). */
interface StepResult {
  entry?: JournalEntry;
  answer?: unknown;
  result?: unknown;
  skipped?: string;
}

/** The plan's lock on the book, then each of its sides' (a second apply or roll waits); `waitedFor`: who held the book meanwhile. */
export function underPlanLocks<T>(
  ports: WritePorts,
  sides: ReadonlyArray<{ market: string; side: string }>,
  body: (waitedFor: Holder | undefined) => Promise<T>,
) {
  return withAccountLock(ports, 'the book of this account', ['book'], ({ waitedFor }) =>
    withSideLocks(ports, sides, () => body(waitedFor)),
  );
}

/** Each step sent and waited for in turn, under the one confirmation that covered the plan; the first that throws stops the
 * run: a result for each step carried out, `stoppedAt` the step whose error (or `after`'s) stopped it. */
export async function runSteps(
  ports: WritePorts,
  steps: readonly PlanStepRun[],
  after?: (index: number, result: StepResult) => void,
) {
  const results: StepResult[] = [];
  for (const [index, step] of steps.entries()) {
    try {
      results.push(
        step.done ? { entry: step.done } : ((await step.before?.(results)) ?? (await send(ports, step, results))),
      );
      after?.(index, results[index]);
    } catch (error) {
      return { results, stoppedAt: index, error };
    }
  }
  return { results };
}

async function send(ports: WritePorts, step: PlanStepRun, earlier: readonly StepResult[]) {
  // The plan's one confirmation covered it, with its checks, and an agent's limits admitted the whole plan.
  const record = { ...step.record, confirmed: true, admitted: true, checked: true };
  const options = { wait: step.wait, dryRun: false, fresh: false, idempotencyKey: step.idempotencyKey };
  try {
    const outcome = await sendTrade(ports, await ports.client(), record, options);
    if (outcome.kind === 'dry-run') return {};
    if (outcome.kind === 'recorded') return { entry: outcome.entry };
    return {
      entry: outcome.entry,
      answer: outcome.answer,
      ...(outcome.kind === 'resolved' && { result: outcome.result }),
    };
  } catch (error) {
    if (!step.failed) throw error;
    return step.failed(error, earlier);
  }
}
