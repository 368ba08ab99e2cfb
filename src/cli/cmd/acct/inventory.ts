// `hedge acct list` and `hedge acct show ID`: the relationships recorded, and one's memo reprinted with its events.
import { type CommandContext, type In, UsageError } from '../command-input.js';
import { designationOf, readState, standingOf } from '../../../features/acct/acct.js';
import { recordsElsewhere } from '../../../features/acct/acct-store.js';
import { heldNote, subjectOf } from '../../../features/acct/acct-approval.js';
import { LIST_FIELDS, printMemo } from '../../../features/acct/acct-view.js';
import { formatMoney } from '../../../core/number-format.js';

/** What these commands use of their context. */
export type Options = Pick<
  CommandContext,
  'credentials' | 'env' | 'journal' | 'journalChoice' | 'output' | 'rememberForCompletion'
>;

export const list = {
  async run(ctx: Options, _input: In<'ACCT_LIST'>) {
    const state = await readState(ctx);
    const { relationships, closes, approval } = state;
    ctx.rememberForCompletion({ relationships: [...relationships.keys()] });
    // A designation four eyes holds is listed with its record: it counts once approved.
    const waiting = approval.pending.flatMap((record) =>
      record.kind === 'designation' ? [{ ...designationOf(record), waiting: record.seq }] : [],
    );
    const rows = [...relationships.values(), ...waiting].map((designation) => {
      const { relationship: rel } = designation;
      const standing =
        'waiting' in designation
          ? { status: `pending approval (record ${designation.waiting})`, pending: [] }
          : standingOf(designation, state);
      // The reserve as the last closed period left it: a figure of the books, not one computed now.
      const closed = closes
        .flatMap((close) => close.reserve.filter((row) => row.relationship_id === rel.id))
        .sort((a, b) => String(a.period_end).localeCompare(String(b.period_end)))
        .at(-1);
      const instrument = rel.instrument;
      return {
        id: rel.id,
        framework: rel.framework,
        designated_at: rel.designated_at,
        item: `${formatMoney(Number(rel.hedged_item.amount))} ${rel.hedged_item.currency} ${rel.hedged_item.kind}, ${rel.hedged_item.expected_date}`,
        instrument:
          'references' in instrument
            ? instrument.references.join(' ')
            : `forward ${formatMoney(Number(instrument.notional))} ${instrument.currency} at ${instrument.contract_rate}, ${instrument.maturity}`,
        status: [
          standing.status,
          ...standing.pending.map((each) => `${each.what} pending approval (record ${each.seq})`),
        ].join('; '),
        reserve: closed ? closed.reserve_close : null,
        reserve_as_of: closed ? closed.period_end : null,
      };
    });
    await ctx.output.list(rows, LIST_FIELDS, {
      empty: `No relationship is designated yet; record one with hedge acct designate FILE.${rows.length ? '' : await recordsElsewhere(ctx)}`,
      columnNotes: [{ text: 'Reserve: as the last closed period left it (hedge acct close).' }],
    });
  },
};

export const show = {
  async run(ctx: Options, { args, options }: In<'ACCT_SHOW'>) {
    const { relationships, approval } = await readState(ctx);
    const waiting = approval.pending.find((record) => record.kind === 'designation' && subjectOf(record) === args.id);
    if (waiting) ctx.output.warn(`${args.id}: ${heldNote(waiting.seq)}`);
    const designation = relationships.get(args.id) ?? (waiting && designationOf(waiting));
    if (!designation)
      throw new UsageError(
        `id: no relationship ${args.id} is designated; hedge acct list lists them.${relationships.size ? '' : await recordsElsewhere(ctx)}`,
      );
    printMemo(ctx.output, designation, options.markdown, { hedges: designation.hedges, events: designation.events });
  },
};
