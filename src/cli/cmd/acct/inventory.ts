// `hedge acct list`, `hedge acct show ID` and `hedge acct entities [FILE]`: the relationships recorded, one's memo
// reprinted with its events, and the group's entities declared or listed.
import { type CommandContext, type In, UsageError } from '../command-input.js';
import { declareEntities, lifeOf, ratesOf, readState, type AcctPorts } from '../../../features/acct/acct.js';
import { recordsElsewhere } from '../../../features/acct/acct-store.js';
import { parseEntities } from '../../../features/acct/acct-files.js';
import { readInputFile, type InputPorts } from '../../../features/write/input-file.js';
import { ENTITY_FIELDS, LIST_FIELDS, printMemo } from '../../../features/acct/acct-view.js';
import { formatMoney } from '../../../core/number-format.js';

/** What these commands use of their context. */
export type Options = Pick<
  CommandContext,
  'credentials' | 'env' | 'journal' | 'journalChoice' | 'output' | 'rememberForCompletion'
>;

export const list = {
  async run(ctx: Options, _input: In<'ACCT_LIST'>) {
    const { relationships, closes } = await readState(ctx, ratesOf());
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
        item: `${formatMoney(Number(rel.hedged_item.amount))} ${rel.hedged_item.currency} ${rel.hedged_item.operation ?? rel.hedged_item.kind}${rel.hedged_item.expected_date ? `, ${rel.hedged_item.expected_date}` : ''}`,
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
    const { relationships } = await readState(ctx, ratesOf());
    const designation = relationships.get(args.id);
    if (!designation)
      throw new UsageError(
        `id: no relationship ${args.id} is designated; hedge acct list lists them.${relationships.size ? '' : await recordsElsewhere(ctx)}`,
      );
    printMemo(ctx.output, designation, options.markdown, { hedges: designation.hedges, events: designation.events });
  },
};

export const entities = {
  async run(ctx: Options & InputPorts & AcctPorts, { args }: In<'ACCT_ENTITIES'>) {
    if (args.file !== undefined) {
      const { text, sourceName } = await readInputFile(ctx, args.file, 'entities file');
      const declared = parseEntities(text);
      if (typeof declared === 'string') throw new UsageError(`${sourceName}: ${declared}`);
      const added = await declareEntities(ctx, declared);
      ctx.output.document({ declared: added }, () =>
        ctx.output.note(
          added
            ? `Declared ${added} ${added === 1 ? 'entity' : 'entities'}; hedge acct entities lists them.`
            : 'Nothing to declare: each is declared already, as given.',
        ),
      );
      return;
    }
    const state = await readState(ctx, ratesOf());
    const rows = [...state.entities.values()].map((entity) => ({ ...entity, default: entity.default === true }));
    await ctx.output.list(rows, ENTITY_FIELDS, {
      empty: "No entity is declared: the books are one company's. Declare the group's with hedge acct entities FILE.",
    });
  },
};
