// `hedge acct approve RECORD` and `hedge acct policy`: four eyes, a policy kept in the records' own chain; a pending
// record approved (or rejected) by an approval record of its own.
import { type CommandContext, type In, parseWholeNumber, safeText, UsageError } from '../command-input.js';
import { approvals, booksSaid, decide, setPolicy, subjectOf } from '../../../features/acct/acct-approval.js';
import { madeBy, readRecords } from '../../../features/acct/acct-store.js';

/** What these commands use of their context. */
export type Options = Pick<CommandContext, 'clock' | 'credentials' | 'env' | 'journal' | 'journalChoice' | 'output'>;

export const approve = {
  async run(ctx: Options, { args, options }: In<'ACCT_APPROVE'>) {
    const seq = parseWholeNumber(
      args.record,
      'RECORD',
      1,
      Number.MAX_SAFE_INTEGER,
      'the number of the pending record (hedge acct log shows it)',
    );
    const reason = options.reason?.trim();
    if (options.reject && !reason) throw new UsageError('--reject: needs its --reason ("the amount is wrong").');
    if (reason !== undefined && !options.reject) throw new UsageError('--reason: goes with --reject only.');
    const { added, target } = await decide(ctx, seq, options.reject ? reason : undefined, options.by);
    const what = `record ${seq} (${target.kind} of ${subjectOf(target)}${booksSaid(target)}, by ${madeBy(target)})`;
    ctx.output.document({ seq: added.seq, ...added.body, by: added.by }, () =>
      ctx.output.note(
        safeText(
          options.reject
            ? `Rejected ${what} in record ${added.seq}: it never counts.`
            : `Approved ${what} in record ${added.seq}: it counts from now on.`,
        ),
      ),
    );
  },
};

export const policy = {
  async run(ctx: Options, { options }: In<'ACCT_POLICY'>) {
    const wanted = options.fourEyes;
    if (wanted !== undefined && wanted !== 'on' && wanted !== 'off')
      throw new UsageError('--four-eyes: expected on or off.');
    const set = wanted === undefined ? undefined : await setPolicy(ctx, wanted === 'on', options.by);
    const made = set?.made;
    const state = approvals(set?.records ?? (await readRecords(ctx, 'all')));
    const pending = state.pending.map((record) => ({
      seq: record.seq,
      kind: record.kind,
      subject: subjectOf(record),
      ...(record.kind === 'close' && record.body.entity !== undefined && { entity: record.body.entity }),
      by: madeBy(record) ?? null,
      recorded_at: record.recorded_at,
    }));
    const offWaits = made !== undefined && state.pending.some((record) => record.seq === made.seq);
    ctx.output.document({ four_eyes: state.fourEyes, pending }, () =>
      ctx.output.note(
        safeText(
          [
            offWaits
              ? `Four eyes stays on until another person approves turning it off (hedge acct approve ${made.seq}).`
              : `Four eyes is ${state.fourEyes ? 'on: a designation, a correction, a de-designation, a close and an entity declared count once another person approves them (hedge acct approve RECORD)' : 'off: every record counts as it is made'}${wanted !== undefined && made === undefined ? ' already' : ''}.`,
            ...(pending.length
              ? [
                  `Pending: ${state.pending.map((record) => `record ${record.seq} (${record.kind} of ${subjectOf(record)}${booksSaid(record)}, by ${madeBy(record)})`).join('; ')}.`,
                ]
              : []),
          ].join(' '),
        ),
      ),
    );
  },
};
