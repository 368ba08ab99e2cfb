// `hedge acct test`, `reserve`, `journal` and `close`: the books over a range (acct-ledger), a row a relationship and
// month, printed; a relationship that cannot be valued is named under the others, and the command ends non-zero.
import { type CommandContext, describeError, type In, safeText, UsageError } from '../command-input.js';
import type { InputPorts } from '../../../features/write/input-file.js';
import { parseDate } from '../../../features/acct/acct-files.js';
import { parsePeriod } from '../../../features/acct/acct.js';
import { criticalTermsLine, type Role } from '../../../features/acct/acct-rules.js';
import { booksFor, closeMonths, type BooksRequest, type NotValued } from '../../../features/acct/acct-ledger.js';
import {
  byRelationship,
  JOURNAL_VIEW,
  periodView,
  POSTING_FIELDS,
  RESERVE_VIEW,
  testNotes,
} from '../../../features/acct/acct-view.js';
import { heldNote } from '../../../features/acct/acct-approval.js';
import { postingLines, readAccounts, unmappedRoles } from '../../../features/acct/acct-posting.js';

type Row = Record<string, unknown>;

/** A ledger, as an ERP names one. */
const LEDGER = /^[A-Za-z0-9][A-Za-z0-9._-]{0,31}$/;

/** What these commands use of their context. */
export type Options = InputPorts &
  Pick<
    CommandContext,
    'client' | 'credentials' | 'env' | 'journal' | 'journalChoice' | 'output' | 'rememberForCompletion'
  >;

/** The range `--period` or `--as-of` asks for (at most one of them), with the relationship and its values file. */
function requestOf(
  id: string | undefined,
  options: { period?: string; asOf?: string; values?: string; entity?: string },
): BooksRequest {
  if (options.asOf !== undefined) parseDate('--as-of', options.asOf);
  const period = options.period === undefined ? undefined : parsePeriod(options.period);
  if (period && options.asOf !== undefined) throw new UsageError('--as-of and --period: give one of them.');
  if (options.values !== undefined && id === undefined)
    throw new UsageError('--values: give the relationship ID the values are of.');
  const label = options.period?.trim().toUpperCase();
  return {
    id,
    ...(options.entity !== undefined && { entity: options.entity }),
    values: new Map(options.values === undefined ? [] : [[id!, options.values]]),
    from: period?.from,
    to: period?.to ?? options.asOf,
    // A refusal names the option that set the date: --period's end, --as-of, or today.
    option: period ? `--period ${label}` : options.asOf === undefined ? 'today' : '--as-of',
    // A quarter or a year: its roll-forward has a line for the whole period besides its months'.
    ...(period && period.from.slice(0, 7) !== period.to.slice(0, 7) && { label }),
  };
}

/** The books asked for, each relationship remembered for completion. */
async function books(ctx: Options, request: BooksRequest) {
  const found = await booksFor(ctx, request);
  ctx.rememberForCompletion({ relationships: [...found.state.relationships.keys()] });
  // One asked for by its id is refused as it is, nothing printed: nothing else was asked.
  if (request.id !== undefined && found.failed.length) throw found.failed[0].error;
  if (found.closedWhole && request.values.size)
    ctx.output.note(
      '--values: the period is closed; its figures are printed as they were posted (a closed month never changes: values that differ post an adjustment in the first open month).',
    );
  return found;
}

/** Each relationship that could not be valued, said under the others; the exit code the first one's. */
function sayNotValued(ctx: Options, failed: readonly NotValued[]) {
  if (!failed.length) return 0;
  for (const { id, error } of failed) ctx.output.warn(safeText(`${id}: not valued: ${error.message}`));
  return describeError(failed[0].error).exitCode;
}

/** Says the adjusting entries a journal holds, on stderr. */
function sayAdjustments(ctx: Options, journal: readonly Row[]) {
  const ids = new Set(journal.flatMap((row) => (String(row.entry_id).endsWith('/adjustment') ? [row.entry_id] : [])));
  if (ids.size)
    ctx.output.note(
      `${[...ids].join(', ')}: adjusting entries, posted in the first open month: figures dated in a closed month changed after it was closed.`,
    );
}

/** Rows a person reads under their relationship's heading (JSON, TSV and CSV keep the books' order), with `notes`
 * said once under the table. */
function onScreen(
  ctx: Options,
  rows: Row[],
  view: Parameters<Options['output']['list']>[1],
  empty: string,
  notes: ReadonlyArray<{ text: string; alone?: boolean }>,
) {
  return ctx.output.list(rows, view, {
    empty,
    columnNotes: notes,
    people: (shown) => {
      const grouped = byRelationship(rows);
      return shown.list(grouped.rows, view, { empty, columnNotes: notes, sections: grouped.sections });
    },
  });
}

export const test = {
  async run(ctx: Options, { args, options }: In<'ACCT_TEST'>) {
    const request = requestOf(args.id, options);
    const found = await books(ctx, request);
    const rows = found.test;
    const frameworks = new Map(
      [...found.state.relationships.values()].map(({ relationship: rel }) => [rel.id, rel.framework] as const),
    );
    await onScreen(ctx, rows, periodView(frameworks), 'No month of a relationship in this range.', [
      {
        text: 'A row a month (the last one to its day); a gain is positive, a reserve positive when it is a credit (a deferred gain); the offset ratio is -instrument / hedged item. hedge prints figures: whether hedge accounting applies is your judgement.',
      },
      ...testNotes(rows, frameworks).map((text) => ({ text: safeText(text), alone: true })),
      // The critical terms are the relationship's, not a period's: one line each, the amounts still by dollar offset.
      ...found.computed.flatMap(({ designation, criticalTerms }) =>
        criticalTerms && rows.some((row) => row.relationship_id === designation.relationship.id)
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
      ...closedEarlyNotes(rows),
    ]);
    return sayNotValued(ctx, found.failed);
  },
};

/** A line for each relationship one of whose designated hedges closed before its maturity and the item's date. */
function closedEarlyNotes(rows: readonly Row[]) {
  const flagged = new Map<string, string>();
  for (const row of rows) {
    const early = row.hedges_closed_early as Array<{ id: string; closed: string; maturity: string }> | undefined;
    if (early)
      flagged.set(
        String(row.relationship_id),
        `${String(row.relationship_id)}: ${early.map((hedge) => `${hedge.id} closed on ${hedge.closed}, before its maturity ${hedge.maturity}`).join('; ')}, and no hedge carries the cover on: the hedged item's date is later. De-designate, or designate the hedge that replaces it.`,
      );
  }
  return [...flagged.values()].map((text) => ({ text: safeText(text), alone: true }));
}

export const reserve = {
  async run(ctx: Options, { args, options }: In<'ACCT_RESERVE'>) {
    const request = requestOf(args.id, options);
    const found = await books(ctx, request);
    await onScreen(ctx, found.reserve, RESERVE_VIEW, 'No month of a relationship in this range.', [
      {
        text: 'A line a month: open + effective − reclassified + adjustment = close, and each month opens at the last one’s close; a balance is positive when it is a credit.',
      },
    ]);
    return sayNotValued(ctx, found.failed);
  },
};

export const journal = {
  async run(ctx: Options, { args, options }: In<'ACCT_JOURNAL'>) {
    const request = requestOf(args.id, options);
    const accounts = options.accounts === undefined ? {} : await readAccounts(ctx, options.accounts);
    const { gl, ledger } = options;
    if (gl && options.accounts === undefined)
      throw new UsageError('--gl: needs --accounts FILE, the GL account of each role posted to.');
    if (ledger !== undefined && !gl) throw new UsageError('--ledger: goes with --gl (the posting file).');
    if (ledger !== undefined && !LEDGER.test(ledger))
      throw new UsageError('--ledger: expected a ledger: letters, digits, ., _ or -, up to 32, such as 0L.');
    const found = await books(ctx, request);
    sayAdjustments(ctx, found.journal);
    if (gl) {
      const { rates, relationships, entities } = found.state;
      const quotes = new Map([...rates].map(([market, each]) => [market, each.quote]));
      const of = new Map([...relationships].map(([id, designation]) => [id, designation.relationship]));
      // Refused before a line is written: a role with no account, a relationship in no entity's books.
      const lines = postingLines(found.journal, { accounts, ledger, relationships: of, quotes, entities });
      await ctx.output.list(lines, POSTING_FIELDS, { empty: 'No postings in this period.' });
      return sayNotValued(ctx, found.failed);
    }
    const rows = found.journal.map((row) => ({ ...row, account: accounts[row.role as Role] ?? row.role }));
    const unmapped = options.accounts === undefined ? [] : unmappedRoles(found.journal, accounts);
    if (unmapped.length)
      ctx.output.warn(
        `--accounts: no GL account for ${unmapped.join(', ')}: shown as the role (the posting file, --gl, refuses it).`,
      );
    await onScreen(ctx, rows, JOURNAL_VIEW, 'No entries in this period.', [
      { text: 'Debits and credits in each relationship’s currency; every entry balances.' },
    ]);
    return sayNotValued(ctx, found.failed);
  },
};

/** `--values ID=FILE`: the relationship a values file is of, each once. */
function valuesFiles(given: readonly string[] | undefined) {
  const files = new Map<string, string>();
  for (const each of given ?? []) {
    const [, id, file] = /^([A-Za-z0-9][A-Za-z0-9._-]{0,63})=(.+)$/.exec(each) ?? [];
    if (!id)
      throw new UsageError(
        `--values: ${safeText(each)} is not allowed; expected ID=FILE, the relationship and its values file.`,
      );
    if (files.has(id)) throw new UsageError(`--values: ${id} is given twice; expected one values file a relationship.`);
    files.set(id, file);
  }
  return files;
}

export const close = {
  async run(ctx: Options & Pick<CommandContext, 'clock'>, { options }: In<'ACCT_CLOSE'>) {
    const period = parsePeriod(options.period);
    const name = options.period!.trim().toUpperCase();
    const { closed, held } = await closeMonths(ctx, { name, ...period }, valuesFiles(options.values), {
      entity: options.entity,
      by: options.by,
    });
    const journal = closed.flatMap((month) => month.journal);
    sayAdjustments(ctx, journal);
    const months = closed.map((month) => month.period);
    const summary = {
      ...(closed[0].entity !== undefined && { entity: closed[0].entity }),
      period: name,
      ...period,
      months,
      rows: closed.reduce((sum, month) => sum + month.test.length, 0),
      journal_lines: journal.length,
      pending_approval: held,
    };
    ctx.output.document(summary, () =>
      ctx.output.note(
        `Closed ${closed[0].entity === undefined ? '' : `${closed[0].entity}'s `}${months.join(', ')} (${closed[0].from} to ${closed.at(-1)!.to}): ${summary.rows} relationship-months, ${journal.length} journal lines; ${held.length ? heldNote(held) : 'test, reserve and journal print them as closed from now on.'}`,
      ),
    );
  },
};
