// What `hedge apply` shares with the resume flow: its journal group, how one of its steps is sent
// (no confirmation or rendering of its own: the run confirmed once and reports at the end), and the
// finishing of the actions an earlier apply left unresolved.
import type { HedgeClient } from '../api/client.js';
import type { CommandContext } from '../runtime/context.js';
import { safeText } from '../security/safe-text.js';
import { finishJournaled, journaledAction, unfinishedOfThisAccount } from './resume.js';
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

/**
 * Finishes every unresolved action an earlier apply left in the journal for this account, oldest
 * first, each with its own key: the server replays what it already did or acts once. Runs before
 * planning, so the plan starts from a book where nothing is in flight.
 */
export async function resumeUnfinishedApplies(ctx: CommandContext, client: HedgeClient): Promise<number> {
  const unresolved = await unfinishedOfThisAccount(ctx, [APPLY_GROUP_PREFIX]);
  for (const entry of unresolved) {
    const body = (entry.request.body ?? {}) as Record<string, unknown>;
    const what = `${entry.command} ${safeText(String(body.market ?? ''))} ${safeText(String(body.side ?? ''))}`.trim();
    if (!journaledAction(ctx, client, entry)) {
      ctx.output.warn(`Journal ${entry.id} (${safeText(entry.command)}) is not an action apply can finish; see \`${ctx.hedgeCommand('resume', entry.id)}\`.`);
      continue;
    }
    ctx.output.note(`Finishing the ${what} of an earlier apply (journal ${entry.id}, ${safeText(entry.leg ?? '')}) with its own key ${entry.idempotency_key} …`);
    const result = await finishJournaled(ctx, client, entry, { wait: true, present: asStep });
    const outcome = !result || result.kind === 'dry-run' ? 'unknown' : result.entry.outcome;
    ctx.output.note(
      outcome === 'failed'
        ? `Journal ${entry.id}: the ${what} failed on-chain (nothing was opened); the plan below starts from the book as it is.`
        : `Journal ${entry.id}: the ${what} is ${outcome}.`,
    );
  }
  return unresolved.length;
}
