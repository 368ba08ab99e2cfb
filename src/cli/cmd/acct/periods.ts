// `hedge acct test`, `reserve` and `journal`: the relationships asked for, each computed up to a date from the rates
// and the desk's hedges or from a values file, as rows a period each.
import * as z from 'zod/mini';
import { type CommandContext, type In, InterruptedError, safeText, UsageError } from '../command-input.js';
import { readInputFile, type InputPorts } from '../../../features/write/input-file.js';
import { isDate, parseValuesFile, type Relationship } from '../../../features/acct/acct-files.js';
import {
  compute,
  fromValues,
  asFunctional,
  functionalCurrency,
  occurrenceTarget,
  parsePeriod,
  recorded,
  todayOf,
  type Computed,
} from '../../../features/acct/acct.js';
import { readRecords } from '../../../features/acct/acct-store.js';
import { balanced, criticalTermsLine, periodEntries, ROLES, type Role } from '../../../features/acct/acct-rules.js';
import { JOURNAL_FIELDS, PERIOD_FIELDS, RESERVE_FIELDS } from '../../../features/acct/acct-view.js';
import { readBoundedJson } from '../../../core/security/json-keys.js';
import { MAX_INPUT_FILE_BYTES } from '../../../core/security/bounded-read.js';
import { centsNumber, exactText } from '../../../features/acct/acct-money.js';

/** What these commands use of their context. */
export type Options = InputPorts & Pick<CommandContext, 'client' | 'credentials' | 'env' | 'output'>;

/** The relationships asked for, each computed up to `until` (default today), with the periods that end on or after `from`. */
async function computeAll(
  ctx: Options,
  id: string | undefined,
  valuesFile: string | undefined,
  until: string | undefined,
  from = '',
) {
  const state = recorded(await readRecords(ctx));
  if (valuesFile !== undefined && id === undefined)
    throw new UsageError('--values: give the relationship ID the values are of.');
  const chosen = id === undefined ? [...state.relationships.values()] : [state.relationships.get(id)];
  if (chosen[0] === undefined)
    throw new UsageError(
      `id: ${id === undefined ? 'no relationship is designated yet' : `no relationship ${id} is designated`}; record one with hedge acct designate FILE.`,
    );
  const end = until ?? todayOf(ctx.clock.now());
  const computed: Computed[] = [];
  for (const designation of chosen) {
    await checkpoint(ctx);
    if (valuesFile !== undefined) {
      const { text, sourceName } = await readInputFile(ctx, valuesFile, 'values file');
      const read = parseValuesFile(text, sourceName);
      if ('problems' in read)
        throw new UsageError(`${sourceName}: ${read.problems.map((p) => `line ${p.line}: ${p.message}`).join('\n')}`);
      const lines = read.rows.filter((line) => line.date <= end);
      await checkpoint(ctx);
      const quoted = state.rates.get(designation!.relationship.market)?.quote;
      computed.push({
        designation: designation!,
        results: fromValues(designation!, lines, end),
        rates: new Map(),
        hedgeIds: [],
        currency: valuesCurrency(designation!.relationship, quoted),
      });
    } else {
      computed.push(await compute(ctx, designation!, state.rates, until, until === undefined ? 'today' : '--as-of'));
    }
  }
  await checkpoint(ctx);
  return computed.map((each) => ({ ...each, results: each.results.filter((result) => result.period_end >= from) }));
}

/** Between one step of the work and the next: a signal that came meanwhile is heard (it ends the command), and past
 * --timeout the command ends, nothing printed. */
async function checkpoint({ clock, deadline, signal }: Options) {
  await new Promise((resolve) => setImmediate(resolve));
  if (signal.aborted) throw new InterruptedError('Stopped; nothing was printed.', { stoppedBy: signal.reason });
  if (deadline !== undefined && clock.now() >= deadline)
    throw new UsageError(
      '--timeout: the figures were not worked out in time; nothing was printed. Give a longer --timeout, or fewer periods (--as-of, --period, a shorter --values).',
    );
}

/** The currency of a relationship valued from a file: its functional currency, named or read from its rates' quote. */
function valuesCurrency(rel: Relationship, quoted: string | undefined) {
  if (quoted) return functionalCurrency(rel, quoted);
  if (rel.functional_currency) return asFunctional(rel.functional_currency);
  throw new UsageError(
    `functional_currency: ${rel.id} names none and no rate of ${rel.market} is recorded to read it from; import its rates (hedge acct rates FILE --market ${rel.market} --quote "…").`,
  );
}

/** One row a relationship and period, the relationship's names first. */
function periodRows(computed: readonly Computed[]) {
  return computed.flatMap(({ designation, results, rates, currency, criticalTerms }) =>
    results.map(({ cents: _, ...result }) => ({
      relationship_id: designation.relationship.id,
      ...result,
      currency,
      rate: rates.has(result.period_end) ? exactText(rates.get(result.period_end)!.spot) : null,
      rate_source: rates.get(result.period_end)?.source ?? null,
      ...(criticalTerms && { critical_terms: criticalTerms }),
    })),
  );
}

const ACCOUNTS = z.partialRecord(
  z.enum(ROLES),
  z.string().check(z.regex(/^[\x20-\x7e]{1,64}$/, 'expected a GL account')),
);

export const test = {
  async run(ctx: Options, { args, options }: In<'ACCT_TEST'>) {
    if (options.asOf !== undefined && !isDate(options.asOf))
      throw new UsageError('--as-of: expected a date such as 2026-11-30 (YYYY-MM-DD).');
    const computed = await computeAll(ctx, args.id, options.values, options.asOf);
    const rows = periodRows(computed);
    await ctx.output.list(rows, PERIOD_FIELDS, {
      empty: 'No period ends after the designation yet.',
      columnNotes: [
        {
          text: 'A gain is positive; a reserve is positive when it is a credit (a deferred gain). The offset ratio is -instrument / hedged item. hedge prints figures: whether hedge accounting applies is your judgement.',
        },
        // The critical terms are the relationship's, not a period's: one line each, the amounts still by dollar offset.
        ...computed.flatMap(({ designation, criticalTerms }) =>
          criticalTerms
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
      ],
    });
  },
};

export const reserve = {
  async run(ctx: Options, { args, options }: In<'ACCT_RESERVE'>) {
    const period = options.period === undefined ? undefined : parsePeriod(options.period);
    const computed = await computeAll(ctx, args.id, options.values, period?.to, period?.from);
    // The roll-forward and what it is made of: every field the contract of --json names, in the currency it is in.
    const keys = [
      ...RESERVE_FIELDS.map((field) => field.key),
      'instrument_change',
      'hedged_item_change',
      'ratio',
      'ineffective',
      'excluded',
      'cost_of_hedging_open',
      'cost_of_hedging_reclassified',
      'currency',
      'rate',
      'rate_source',
    ];
    // The roll-forward's own figures: `hedge acct test` gives the rest of each period.
    const rows = periodRows(computed).map((row) =>
      Object.fromEntries(keys.map((key) => [key, row[key as keyof typeof row]])),
    );
    await ctx.output.list(rows, RESERVE_FIELDS, {
      empty: 'No period of a relationship ends in this period.',
      columnNotes: [
        { text: 'Open + effective − reclassified = close on every row; a balance is positive when it is a credit.' },
      ],
    });
  },
};

export const journal = {
  async run(ctx: Options, { args, options }: In<'ACCT_JOURNAL'>) {
    const period = options.period === undefined ? undefined : parsePeriod(options.period);
    let accounts: Partial<Record<Role, string>> = {};
    if (options.accounts !== undefined) {
      const { text, sourceName } = await readInputFile(ctx, options.accounts, 'accounts file');
      const map = readBoundedJson(text, { maxBytes: MAX_INPUT_FILE_BYTES, maxDepth: 2 }, ACCOUNTS);
      if (typeof map === 'string')
        throw new UsageError(
          `--accounts ${sourceName}: ${map}; expected {"role": "account"} for roles ${ROLES.join(', ')}.`,
        );
      accounts = map;
    }
    const computed = await computeAll(ctx, args.id, options.values, period?.to, period?.from);
    const rows = computed.flatMap(({ designation, results, rates, hedgeIds, currency }) =>
      results.flatMap((result) => {
        const lines = periodEntries(designation.relationship.id, result, occurrenceTarget(designation.relationship));
        // Every entry balances, or nothing is printed: an entry that does not is a fault of hedge's, never a posting.
        if (!balanced(lines))
          throw new Error(`an entry of ${designation.relationship.id} at ${result.period_end} does not balance`);
        const rate = rates.get(result.period_end);
        return lines.map((line) => ({
          entry_id: line.entry_id,
          relationship_id: line.relationship_id,
          hedge_ids: hedgeIds.join(' '),
          date: line.date,
          role: line.role,
          account: accounts[line.role] ?? line.role,
          debit: line.amount > 0n ? centsNumber(line.amount) : 0,
          credit: line.amount < 0n ? centsNumber(-line.amount) : 0,
          currency,
          rate: rate ? exactText(rate.spot) : null,
          rate_source: rate?.source ?? null,
          description: line.description,
        }));
      }),
    );
    await ctx.output.list(rows, JOURNAL_FIELDS, { empty: 'No entries in this period.' });
  },
};
