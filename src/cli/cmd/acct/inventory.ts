// `hedge acct list` and `hedge acct show ID`: the relationships recorded, and one's memo reprinted with its events.
import { type CommandContext, type In, UsageError } from '../command-input.js';
import { lifeOf, readState } from '../../../features/acct/acct.js';
import { recordsElsewhere } from '../../../features/acct/acct-store.js';
import { LIST_FIELDS, printMemo } from '../../../features/acct/acct-view.js';
import { formatMoney } from '../../../core/number-format.js';

/** What these commands use of their context. */
export type Options = Pick<
  CommandContext,
  'credentials' | 'env' | 'journal' | 'journalChoice' | 'output' | 'rememberForCompletion'
>;

export const list = {
  async run(ctx: Options, _input: In<'ACCT_LIST'>) {
    const { relationships, closes } = await readState(ctx);
    ctx.rememberForCompletion({ relationships: [...relationships.keys()] });
    const rows = [...relationships.values()].map((designation) => {
      const { relationship: rel } = designation;
      const life = lifeOf(designation);
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
        status: life.endedOn ? `${life.endedBy} ${life.endedOn}` : 'designated',
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
    const { relationships } = await readState(ctx);
    const designation = relationships.get(args.id);
    if (!designation)
      throw new UsageError(
        `id: no relationship ${args.id} is designated; hedge acct list lists them.${relationships.size ? '' : await recordsElsewhere(ctx)}`,
      );
    printMemo(ctx.output, designation, options.markdown, { hedges: designation.hedges, events: designation.events });
  },
};
