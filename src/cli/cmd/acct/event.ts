// `hedge acct event ID --occurred DATE | --de-designate DATE --reason …`: an event of a relationship, appended.
import { type CommandContext, type In, UsageError } from '../command-input.js';
import { isDate } from '../../../features/acct/acct-files.js';
import { recordEvent, type AcctEvent } from '../../../features/acct/acct.js';

/** What this command uses of its context. */
export type Options = Pick<CommandContext, 'client' | 'clock' | 'credentials' | 'env' | 'output'>;

export async function run(ctx: Options, { args, options }: In<'ACCT_EVENT'>) {
  const { occurred, deDesignate, reason, notExpected, correct } = options;
  if ((occurred === undefined) === (deDesignate === undefined))
    throw new UsageError('--occurred or --de-designate: expected one of them, with a date such as 2026-11-30.');
  const date = (occurred ?? deDesignate)!;
  const option = occurred !== undefined ? '--occurred' : '--de-designate';
  if (!isDate(date)) throw new UsageError(`${option}: expected a date such as 2026-11-30 (YYYY-MM-DD).`);
  if (deDesignate !== undefined && !reason?.trim())
    throw new UsageError('--reason: a de-designation needs its reason (--reason "the sale was cancelled").');
  if (correct && !reason?.trim())
    throw new UsageError('--reason: a correction needs its reason (--reason "the delivery was on the 1st").');
  if (occurred !== undefined && ((reason !== undefined && !correct) || notExpected))
    throw new UsageError('--reason and --not-expected go with --de-designate (or --reason with --correct) only.');
  const event: AcctEvent = {
    relationship_id: args.id,
    type: occurred !== undefined ? 'occurred' : 'de-designated',
    date,
    ...(reason !== undefined && deDesignate !== undefined && { reason: reason.trim() }),
    ...(deDesignate !== undefined && { still_expected: !notExpected }),
  };
  await recordEvent(ctx, event, correct ? { reason: reason!.trim() } : undefined);
  ctx.output.document(event, () =>
    ctx.output.note(
      `${correct ? 'Corrected' : 'Recorded'}: ` +
        (event.type === 'occurred'
          ? `${args.id}'s hedged transaction happened on ${date}; its reserves are reclassified in that period.`
          : `${args.id} de-designated on ${date}${event.still_expected ? '; its reserve stays until the transaction happens' : '; the transaction is no longer expected, so its reserve goes to P&L'}.`),
    ),
  );
}
