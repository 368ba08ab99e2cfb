// `hedge acct list [--entity CODE]`, `hedge acct show ID` and `hedge acct entities [FILE]`: the relationships recorded
// (every entity's, or one's), one's memo reprinted with its events, and the group's entities declared or listed.
import { type CommandContext, type In, UsageError } from '../command-input.js';
import {
  declareEntities,
  designationOf,
  entityOf,
  ratesOf,
  readState,
  standingOf,
  type AcctPorts,
} from '../../../features/acct/acct.js';
import { entityAsked, entityBooks } from '../../../features/acct/acct-ledger.js';
import { recordsElsewhere } from '../../../features/acct/acct-store.js';
import { parseEntities, type Entity, type Relationship } from '../../../features/acct/acct-files.js';
import { readInputFile, type InputPorts } from '../../../features/write/input-file.js';
import { heldNote, subjectOf } from '../../../features/acct/acct-approval.js';
import { ENTITY_FIELDS, LIST_FIELDS, printMemo } from '../../../features/acct/acct-view.js';
import { formatMoney } from '../../../core/number-format.js';
import { ruleOf } from '../../../features/acct/acct-rules.js';

/** What these commands use of their context. */
export type Options = Pick<
  CommandContext,
  'credentials' | 'env' | 'journal' | 'journalChoice' | 'output' | 'rememberForCompletion'
>;

export const list = {
  async run(ctx: Options, { options }: In<'ACCT_LIST'>) {
    const all = await readState(ctx, ratesOf());
    ctx.rememberForCompletion({ relationships: [...all.relationships.keys()] });
    // Every entity's relationships, each in its own currency (nothing is summed), or one entity's books.
    const asked = options.entity === undefined ? undefined : entityAsked(all, undefined, options.entity);
    const state = asked === undefined ? all : entityBooks(all, asked);
    const { relationships, closes, approval, entities } = state;
    const inBooks = (rel: Relationship) => asked === undefined || entityOf(rel, entities) === asked;
    // A designation four eyes holds is listed with its record: it counts once approved.
    const waiting = approval.pending.flatMap((record) =>
      record.kind === 'designation' && inBooks(designationOf(record).relationship)
        ? [{ ...designationOf(record), waiting: record.seq }]
        : [],
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
        item: `${formatMoney(Number(rel.hedged_item.amount))} ${rel.hedged_item.currency} ${rel.hedged_item.operation ?? rel.hedged_item.kind}${rel.hedged_item.expected_date ? `, ${rel.hedged_item.expected_date}` : ''}`,
        instrument:
          'references' in instrument
            ? instrument.references.join(' ')
            : `forward ${formatMoney(Number(instrument.notional))} ${instrument.currency} at ${instrument.contract_rate}, ${instrument.maturity}`,
        status: [
          standing.status,
          ...standing.pending.map((each) => `${each.what} pending approval (record ${each.seq})`),
        ].join('; '),
        reserve: closed ? closed.reserve_close : null,
        currency: closed ? closed.currency : null,
        reserve_as_of: closed ? closed.period_end : null,
        entity: entityOf(rel, entities) ?? null,
        type: rel.type,
        balance: ruleOf(rel.framework, rel.type).balance,
      };
    });
    await ctx.output.list(rows, LIST_FIELDS, {
      empty: `No relationship is designated yet${asked === undefined ? '' : ` in ${asked}'s books`}; record one with hedge acct designate FILE.${all.relationships.size ? '' : await recordsElsewhere(ctx)}`,
      columnNotes: [
        {
          text: 'Reserve: the balance its effective part goes to, in its currency, as the last closed period of its entity left it (hedge acct close).',
        },
      ],
    });
  },
};

export const show = {
  async run(ctx: Options, { args, options }: In<'ACCT_SHOW'>) {
    const { relationships, approval } = await readState(ctx, ratesOf());
    const waiting = approval.pending.find((record) => record.kind === 'designation' && subjectOf(record) === args.id);
    if (waiting) ctx.output.warn(`${args.id}: ${heldNote([waiting.seq])}`);
    const designation = relationships.get(args.id) ?? (waiting && designationOf(waiting));
    if (!designation)
      throw new UsageError(
        `id: no relationship ${args.id} is designated; hedge acct list lists them.${relationships.size ? '' : await recordsElsewhere(ctx)}`,
      );
    printMemo(ctx.output, designation, options.markdown, { hedges: designation.hedges, events: designation.events });
  },
};

export const entities = {
  async run(ctx: Options & InputPorts & AcctPorts, { args, options }: In<'ACCT_ENTITIES'>) {
    if (args.file !== undefined) {
      const { text, sourceName } = await readInputFile(ctx, args.file, 'entities file');
      const declared = parseEntities(text);
      if (typeof declared === 'string') throw new UsageError(`${sourceName}: ${declared}`);
      const { added, held } = await declareEntities(ctx, declared, options.by);
      ctx.output.document({ declared: added, pending_approval: held }, () =>
        ctx.output.note(
          added
            ? `Declared ${added} ${added === 1 ? 'entity' : 'entities'}; hedge acct entities lists them.${held.length ? ` ${heldNote(held)}` : ''}`
            : 'Nothing to declare: each is declared already, as given.',
        ),
      );
      return;
    }
    const { entities, approval } = await readState(ctx, ratesOf());
    // A declaration four eyes holds is listed with its record: it counts once approved.
    const rows = [
      ...[...entities.values()].map((entity) => ({ ...entity, status: 'declared' })),
      ...approval.pending.flatMap((record) =>
        record.kind === 'entity'
          ? [{ ...(record.body as Entity), status: `pending approval (record ${record.seq})` }]
          : [],
      ),
    ].map((entity) => ({ ...entity, default: entity.default === true }));
    await ctx.output.list(rows, ENTITY_FIELDS, {
      empty: "No entity is declared: the books are one company's. Declare the group's with hedge acct entities FILE.",
    });
  },
};
