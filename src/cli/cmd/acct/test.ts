// `hedge acct test [ID] --as-of DATE [--values FILE]`: each relationship's effectiveness per period.
import type { CommandContext, In } from '../command-input.js';
import { UsageError } from '../command-input.js';
import { isDate } from '../../../features/acct/acct-files.js';
import { PERIOD_FIELDS } from '../../../features/acct/acct-view.js';
import { computeAll, periodRows } from './periods.js';

export async function run(ctx: CommandContext, { args, options }: In<'ACCT_TEST'>) {
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
    ],
  });
}
