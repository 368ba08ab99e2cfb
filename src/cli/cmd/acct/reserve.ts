// `hedge acct reserve --period P`: the cash-flow hedge reserve's roll-forward per relationship and period.
import type { CommandContext, In } from '../command-input.js';
import { parsePeriod } from '../../../features/acct/acct.js';
import { RESERVE_FIELDS } from '../../../features/acct/acct-view.js';
import { computeAll, periodRows } from './periods.js';
import type { InputPorts } from '../../../features/write/input-file.js';

/** What this command uses of its context. */
export type Options = InputPorts & Pick<CommandContext, 'client' | 'env' | 'output'>;

export async function run(ctx: Options, { args, options }: In<'ACCT_RESERVE'>) {
  const period = options.period === undefined ? undefined : parsePeriod(options.period);
  const computed = await computeAll(ctx, args.id, period?.to, options.values);
  const keys = [
    ...RESERVE_FIELDS.map((field) => field.key),
    'cost_of_hedging_open',
    'cost_of_hedging_reclassified',
    'currency',
  ];
  // The roll-forward's own figures: `hedge acct test` gives the rest of each period.
  const rows = periodRows(computed, (end) => period === undefined || end >= period.from).map((row) =>
    Object.fromEntries(keys.map((key) => [key, row[key as keyof typeof row]])),
  );
  await ctx.output.list(rows, RESERVE_FIELDS, {
    empty: 'No period of a relationship ends in this period.',
    columnNotes: [
      { text: 'Open + effective − reclassified = close on every row; a balance is positive when it is a credit.' },
    ],
  });
}
