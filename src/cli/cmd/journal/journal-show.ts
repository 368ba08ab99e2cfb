// `hedge journal show ID`: one journal entry in full — request, idempotency key, outcome.
import type { CommandContext, In } from '../command-input.js';
import { checkUnresolvedRows, findJournalEntry } from '../../../features/write/row-trust.js';
import { isUnresolved, resumeWithItsCredentials } from '../../../platform/journal/index.js';
import { renderJournalEntry } from '../../../platform/results/journal-fields.js';

/** What this command uses of its context. */
export type Options = Pick<CommandContext, 'credentials' | 'hedgeCommand' | 'journal' | 'origin' | 'output'>;

export async function run(ctx: Options, { args }: In<'JOURNAL_SHOW'>) {
  const entry = await findJournalEntry(ctx, await ctx.journal(), args.id);
  const check = (await checkUnresolvedRows(ctx, [entry]))?.get(entry.id);
  const unverified = check === 'unsealed' || check === 'forged';
  const footer = isUnresolved(entry)
    ? [
        ctx.output.chalk.yellow(
          unverified
            ? `Unresolved and unverified: hedge will not send it again. Look at the book, then \`${ctx.hedgeCommand('journal', 'resolve', entry.id, '--not-landed')}\` (or --landed).`
            : // Under the profile it was sent with: another profile's key is another account, and is refused.
              `Unresolved: finish it with ${entry.profile ? resumeWithItsCredentials(entry) : `\`${ctx.hedgeCommand('resume', entry.id)}\``} (same key, acts at most once).`,
        ),
      ]
    : undefined;
  renderJournalEntry(ctx.output, entry, footer, check);
}
