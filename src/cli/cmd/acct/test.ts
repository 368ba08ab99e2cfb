// `hedge acct test [ID] --as-of DATE [--values FILE]`: each relationship's effectiveness per period.
import type { CommandContext, In } from '../command-input.js';
import { UsageError } from '../command-input.js';
import { safeText } from '../../../core/security/safe-text.js';
import { isDate } from '../../../features/acct/acct-files.js';
import { PERIOD_FIELDS } from '../../../features/acct/acct-view.js';
import { criticalTermsLine } from '../../../features/acct/acct-rules.js';
import { computeAll, periodRows } from './periods.js';
import type { InputPorts } from '../../../features/write/input-file.js';

/** What this command uses of its context. */
export type Options = InputPorts & Pick<CommandContext, 'client' | 'env' | 'output'>;

export async function run(ctx: Options, { args, options }: In<'ACCT_TEST'>) {
  if (options.asOf !== undefined && !isDate(options.asOf))
    throw new UsageError('--as-of: expected a date such as 2026-11-30 (YYYY-MM-DD).');
  const computed = await computeAll(ctx, args.id, options.asOf, options.values);
  const rows = periodRows(computed);
  await ctx.output.list(rows, PERIOD_FIELDS, {
    empty: 'No period ends after the designation yet.',
    columnNotes: [
      {
        text: 'A gain is positive; a reserve is positive when it is a credit (a deferred gain). The offset ratio is -instrument / hedged item. hedge prints figures: whether hedge accounting applies is your judgement.',
      },
      // The critical terms are the relationship's, not a period's: one line each, the amounts still by dollar offset.
      ...computed.flatMap(({ designation, criticalTerms }) =>
        criticalTerms
          ? [
              {
                // The markets are the server's text.
                text: safeText(
                  `${designation.relationship.id} critical terms (figures by cumulative dollar offset): ${criticalTermsLine(criticalTerms)}.`,
                ),
                alone: true,
              },
            ]
          : [],
      ),
    ],
  });
}
