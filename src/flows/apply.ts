// What `hedge apply` shares with the resume flow: its journal group, how one of its steps is sent
// (no confirmation or rendering of its own: the run confirmed once and reports at the end), and the
// finishing of the actions an earlier apply left unresolved.
import type { HedgeClient } from '../api/client.js';
import type { JournalEntry } from '../journal/index.js';
import type { CommandContext } from '../runtime/context.js';
import { safeText } from '../security/safe-text.js';
import { finishJournaled, journaledAction, unfinishedOfThisAccount } from './resume.js';
import { confirmRowFromElsewhere } from './row-trust.js';
import type { WriteAction, WriteOptions } from './write-flow.js';

/** Every apply run's journal group starts with this; a later apply finishes what one left open. */
export const APPLY_GROUP_PREFIX = 'apply-';

/** Each step (and each resumed action) is sent once, waited to its end, and shown only in the run's report. */
export const SEND_AND_WAIT: WriteOptions = { wait: true, dryRun: false, fresh: false };

/**
 * The one confirmation of the run covered every action, and an agent's limits admitted the whole
 * plan before its first step (commands/apply.ts); their own results are shown in the report.
 */
export function asStep<S, R>(action: WriteAction<S, R>): WriteAction<S, R> {
  return { ...action, check: undefined, preview: undefined, confirmed: true, admitted: true };
}

/** One unfinished step of an earlier apply, as resuming it left it. */
export interface ResumedStep {
  entry: JournalEntry;
  /** `open USDTNGN buy`: the step in words. */
  what: string;
  /** The journal's outcome after the resume; `not-resumable` when apply cannot finish it (hedge resume can). */
  outcome: string;
}

/**
 * Finishes every unresolved action an earlier apply left in the journal for this account, oldest
 * first, each with its own key: the server replays what it already did or acts once. Runs before
 * planning, so the plan starts from a book where nothing is in flight. Each step is told through
 * the context's notices as it starts and ends; all of them are returned.
 */
export async function resumeUnfinishedApplies(ctx: CommandContext, client: HedgeClient): Promise<ResumedStep[]> {
  const unresolved = await unfinishedOfThisAccount(ctx, [APPLY_GROUP_PREFIX]);
  const steps: ResumedStep[] = [];
  for (const entry of unresolved) {
    const body = (entry.request.body ?? {}) as Record<string, unknown>;
    const what = `${entry.command} ${safeText(String(body.market ?? ''))} ${safeText(String(body.side ?? ''))}`.trim();
    const data = { journal_id: entry.id, leg: entry.leg ?? null };
    if (!journaledAction(ctx, client, entry)) {
      ctx.notify({ kind: 'step-not-resumable', level: 'warn', text: `Journal ${entry.id} (${safeText(entry.command)}) is not an action apply can finish; see \`${ctx.hedgeCommand('resume', entry.id)}\`.`, data });
      steps.push({ entry, what, outcome: 'not-resumable' });
      continue;
    }
    // A step begun on another machine (a team store's) is finished here only when a person says so.
    await confirmRowFromElsewhere(ctx, entry, 'finish it');
    ctx.notify({ kind: 'resuming-step', level: 'note', text: `Finishing the ${what} of an earlier apply (journal ${entry.id}, ${safeText(entry.leg ?? '')}) with its own key ${entry.idempotency_key} …`, data });
    // Not admitted with a plan: an agent's limits judge each step it finishes here (send-gate.ts).
    const result = await finishJournaled(ctx, client, entry, { wait: true, present: (action) => ({ ...asStep(action), admitted: false }) });
    const outcome = !result || result.kind === 'dry-run' ? 'unknown' : result.entry.outcome;
    ctx.notify({
      kind: 'resumed-step',
      level: 'note',
      text:
        outcome === 'failed'
          ? `Journal ${entry.id}: the ${what} failed on-chain (nothing was opened); the plan below starts from the book as it is.`
          : `Journal ${entry.id}: the ${what} is ${outcome}.`,
      data: { ...data, outcome },
    });
    steps.push({ entry, what, outcome });
  }
  return steps;
}
