// `hedge acct event ID --occurred DATE [--share S | --amount A] | --disposed DATE [--share S | --amount A] |
// --de-designate DATE --reason … [--not-expected] |
// --rebalance DATE --ratio R --reason … | --terminate DATE --reason …`: an event of a relationship's life, appended.
import { type CommandContext, type In, parseWholeNumber, UsageError } from '../command-input.js';
import { parseDate } from '../../../features/acct/acct-files.js';
import { EVENT_KINDS, recordEvent, type AcctEvent, type Ground } from '../../../features/acct/acct.js';
import { DE_DESIGNATION_GROUNDS } from '../../../core/vocabulary.js';
import { heldNote } from '../../../features/acct/acct-approval.js';
import { exact, exactText } from '../../../features/acct/acct-money.js';

/** What this command uses of its context. */
export type Options = Pick<
  CommandContext,
  'client' | 'clock' | 'credentials' | 'env' | 'journal' | 'journalChoice' | 'output'
>;

/** A positive decimal (at most 1 where it is a share), or the line refusing it. */
function positive(option: string, raw: string, atMostOne: boolean) {
  const value = exact(raw);
  if (!value || value[0] <= 0n || (atMostOne && value[0] > value[1]))
    throw new UsageError(
      `${option}: expected ${atMostOne ? 'a share over 0 and at most 1, such as 0.25' : 'a positive decimal number such as 250000'}.`,
    );
  return exactText(value);
}

export async function run(ctx: Options, { args, options }: In<'ACCT_EVENT'>) {
  const given = EVENT_KINDS.filter(([key]) => options[key] !== undefined);
  if (given.length !== 1)
    throw new UsageError(
      '--occurred, --disposed, --de-designate, --rebalance or --terminate: expected one of them, with a date such as 2026-11-30.',
    );
  const [[key, option, type]] = given;
  const date = parseDate(option, options[key]!);
  const { reason, notExpected, share, amount, ratio, correct, ground } = options;
  const record =
    correct === undefined
      ? undefined
      : parseWholeNumber(
          correct,
          '--correct',
          1,
          Number.MAX_SAFE_INTEGER,
          'the number of the event record to correct (hedge acct log ID gives it)',
        );
  const ends = type === 'occurred' || type === 'disposed';
  if ((!ends || record !== undefined) && !reason?.trim())
    throw new UsageError(
      `--reason: ${record !== undefined ? 'a correction' : option} needs its reason (--reason "the sale was cancelled").`,
    );
  if (ends && reason !== undefined && record === undefined)
    throw new UsageError(`--reason: not with ${option} (but with --correct).`);
  if (notExpected && type !== 'de-designated') throw new UsageError('--not-expected goes with --de-designate only.');
  if (ground !== undefined && type !== 'de-designated') throw new UsageError('--ground goes with --de-designate only.');
  if (ground !== undefined && !(DE_DESIGNATION_GROUNDS as readonly string[]).includes(ground))
    throw new UsageError(
      `--ground: expected one of ${DE_DESIGNATION_GROUNDS.join(', ')} (the transaction no longer expected: --not-expected).`,
    );
  if ((share !== undefined || amount !== undefined) && !ends)
    throw new UsageError('--share and --amount go with --occurred or --disposed only.');
  if (share !== undefined && amount !== undefined) throw new UsageError('--share or --amount: expected one of them.');
  if ((ratio !== undefined) !== (type === 'rebalanced'))
    throw new UsageError(
      '--ratio: goes with --rebalance, which needs it (the new designated share of the instrument).',
    );
  const event: AcctEvent = {
    relationship_id: args.id,
    type,
    date,
    ...(reason !== undefined && !ends && { reason: reason.trim() }),
    ...(ground !== undefined && { ground: ground as Ground }),
    ...(type === 'de-designated' && { still_expected: !notExpected }),
    ...(share !== undefined && { share: positive('--share', share, true) }),
    ...(amount !== undefined && { amount: positive('--amount', amount, false) }),
    ...(ratio !== undefined && { ratio: positive('--ratio', ratio, true) }),
  };
  const { rules, held } = await recordEvent(
    ctx,
    event,
    record === undefined ? undefined : { record, reason: reason!.trim() },
    options.by,
  );
  const part = share !== undefined ? ` (a share of ${share})` : amount !== undefined ? ` (${amount} of it)` : '';
  const said = {
    occurred: `its hedged transaction happened on ${date}${part}; its reserves are reclassified in that period, in that proportion of what is left`,
    disposed: `its foreign operation was disposed of on ${date}${part}; that proportion of what is left of its translation reserve is reclassified to profit or loss in that period`,
    'de-designated': `de-designated on ${date}${event.still_expected ? `; ${rules.afterwards}` : '; the transaction is no longer expected, so its reserve goes to P&L'}`,
    rebalanced: `rebalanced on ${date}: the designated share of the instrument is ${ratio} from then on`,
    terminated: `its instrument was terminated on ${date} and settled in cash; ${rules.afterwards}`,
  }[type];
  const done = record === undefined ? 'Recorded' : `Corrected (record ${record})`;
  ctx.output.document({ ...event, pending_approval: held }, () =>
    ctx.output.note(`${done}: ${args.id} ${said}.${held.length ? ` ${heldNote(held)}` : ''}`),
  );
}
