// `hedge resume [ID]`: finishes an unresolved action with its own idempotency key, so the server answers it with
// the original result, or acts once if the first request never arrived.
import { type CommandContext, type In, safeText } from '../command-input.js';
import { RESUMED_FIELDS, writeResult } from '../../../platform/results/result-fields.js';
import { chooseEntryToResume, planResume, resumeEntry } from '../../../features/trade/resume.js';
import { printAnswers } from '../../../platform/results/api-answer.js';
import { renderRollOutcome } from '../trade/roll.js';
import { showTrade } from '../trade/trade-outcome.js';
import { utcClock } from '../../../core/utc-text.js';
import type { WritePorts } from '../../../features/write/ports.js';

/** What this command uses of its context. */
export type Options = WritePorts & Pick<CommandContext, 'output'>;

export async function run(ctx: Options, { args, options }: In<'RESUME'>) {
  // A journal id or a unique part of one; none: this account's newest unresolved entry.
  const entry = await chooseEntryToResume(ctx, args.id?.trim() || undefined);
  if (!entry) {
    ctx.output.note(
      `Nothing to resume: every action in the journal is resolved. See them with \`${ctx.hedgeCommand('journal')}\`.`,
    );
    return 0;
  }
  const plan = await planResume(ctx, entry);
  if (plan.kind !== 'roll')
    ctx.output.note(
      ctx.output.chalk.yellow(
        `Resuming the ${safeText(entry.command)} started ${utcClock(entry.created_at)} UTC with key ${safeText(entry.idempotency_key)} (journal ${entry.id}, outcome ${entry.outcome}): the book is read first, and if it is sent again, its key lets the server act at most once.`,
      ),
    );
  // --resend-unproven: a person's word that an action past its key's lifetime did not land.
  const resumed = await resumeEntry(ctx, plan, {
    wait: options.wait !== false,
    resendUnproven: options.resendUnproven === true,
  });
  // Shown as its own command would have shown it; the exit code follows from it.
  switch (resumed.kind) {
    case 'roll':
      return renderRollOutcome(ctx, resumed.rolled);
    case 'api':
      if (resumed.outcome.kind === 'submitted' || resumed.outcome.kind === 'resolved')
        printAnswers(ctx.output, [resumed.outcome.answer]);
      return 0;
    case 'trade':
      return showTrade(ctx, resumed.outcome);
  }
}

/** What `hedge resume` prints — what the resumed command would have — checked before anything is sent (platform/results/result-fields.ts). */
export const OUTPUT_FIELDS = writeResult(RESUMED_FIELDS);
