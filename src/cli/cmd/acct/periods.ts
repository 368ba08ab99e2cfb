// `hedge acct test`, `reserve` and `journal`: the relationships asked for, each computed up to a date from the rates
// and the desk's hedges or from a values file, as rows a period each.
import * as z from 'zod/mini';
import { type CommandContext, type In, InterruptedError, safeText, UsageError } from '../command-input.js';
import { inputFileProblems, readInputFile, type InputPorts } from '../../../features/write/input-file.js';
import { FIX_ROWS, parseDate, parseValuesFile, type Relationship } from '../../../features/acct/acct-files.js';
import { asFunctional } from '../../../core/markets.js';
import {
  compute,
  fromValues,
  functionalCurrency,
  occurrenceTarget,
  overlappingClose,
  parsePeriod,
  booksToday,
  readState,
  recordClose,
  type Close,
  type Computed,
  type Designation,
  type Recorded,
} from '../../../features/acct/acct.js';
import {
  balanced,
  criticalTermsLine,
  periodEntries,
  ROLES,
  type RateRow,
  type Role,
} from '../../../features/acct/acct-rules.js';
import { JOURNAL_VIEW, PERIOD_VIEW, RESERVE_FIELDS, RESERVE_VIEW } from '../../../features/acct/acct-view.js';
import { readBoundedJson } from '../../../core/security/json-keys.js';
import { MAX_INPUT_FILE_BYTES } from '../../../core/security/bounded-read.js';
import { centsNumber, exact, exactText, toCents } from '../../../features/acct/acct-money.js';
import { utcDay } from '../../../core/utc-text.js';

type Row = Record<string, unknown>;

/** What these commands use of their context. */
export type Options = InputPorts &
  Pick<
    CommandContext,
    'client' | 'credentials' | 'env' | 'journal' | 'journalChoice' | 'output' | 'rememberForCompletion'
  >;

/** The relationships asked for, each computed up to `until` (default today); `option` is named by a refusal. */
async function computeAll(
  ctx: Options,
  state: Recorded,
  id: string | undefined,
  valuesFile: string | undefined,
  until: string | undefined,
  option = until === undefined ? 'today' : '--as-of',
) {
  ctx.rememberForCompletion({ relationships: [...state.relationships.keys()] });
  if (valuesFile !== undefined && id === undefined)
    throw new UsageError('--values: give the relationship ID the values are of.');
  const chosen = id === undefined ? [...state.relationships.values()] : [state.relationships.get(id)];
  if (chosen[0] === undefined)
    throw new UsageError(
      `id: ${id === undefined ? 'no relationship is designated yet' : `no relationship ${id} is designated`}; record one with hedge acct designate FILE.`,
    );
  const computed: Computed[] = [];
  for (const designation of chosen as Designation[]) {
    await checkpoint(ctx);
    if (valuesFile === undefined) {
      computed.push(await compute(ctx, designation, state.rates, until, option));
      continue;
    }
    const end = until ?? utcDay(ctx.clock.now());
    const { text, sourceName } = await readInputFile(ctx, valuesFile, 'values file');
    const read = parseValuesFile(text, sourceName);
    if ('problems' in read) throw inputFileProblems(sourceName, read.problems, FIX_ROWS);
    const lines = read.rows.filter((line) => line.date <= end);
    await checkpoint(ctx);
    const rel = designation.relationship;
    const results = fromValues(designation, lines, end);
    const currency = valuesCurrency(rel, state.rates.get(rel.market)?.quote);
    computed.push({ designation, results, rates: new Map(), hedgeIds: [], closedEarly: [], currency });
  }
  await checkpoint(ctx);
  return computed;
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

/** The rate a row was valued at, and where it came from. */
const rateColumns = (rate: RateRow | undefined) => ({
  rate: rate ? exactText(rate.spot) : null,
  rate_source: rate?.source ?? null,
});

/** One row a relationship and period, the relationship's names first. */
function periodRows(computed: readonly Computed[]) {
  return computed.flatMap(({ designation, results, rates, currency, criticalTerms, closedEarly }) =>
    results.map(({ cents: _, ...result }) => ({
      relationship_id: designation.relationship.id,
      ...result,
      currency,
      ...rateColumns(rates.get(result.period_end)),
      ...(criticalTerms && { critical_terms: criticalTerms }),
      // A designated hedge closed before its maturity and the hedged item's date, the cover not carried on.
      ...(closedEarly.length && { hedges_closed_early: closedEarly }),
    })),
  );
}

/** A journal line as printed: its amount a debit (positive) or a credit. */
const journalRow = ({ amount, ...line }: Row & { amount: bigint }, rate?: RateRow) => ({
  entry_id: line.entry_id,
  relationship_id: line.relationship_id,
  hedge_ids: line.hedge_ids,
  date: line.date,
  role: line.role,
  account: line.role,
  debit: amount > 0n ? centsNumber(amount) : 0,
  credit: amount < 0n ? centsNumber(-amount) : 0,
  currency: line.currency,
  ...rateColumns(rate),
  description: line.description,
});

const ACCOUNTS = z.partialRecord(
  z.enum(ROLES),
  z.string().check(z.regex(/^[\x20-\x7e]{1,64}$/, 'expected a GL account')),
);

/** The period's rows as `test`, `reserve` and `journal` print them (the journal's accounts by role). */
function booksOf(computed: readonly Computed[]) {
  const test: Row[] = periodRows(computed);
  const reserve = test.map((row) => Object.fromEntries(RESERVE_KEYS.map((key) => [key, row[key]])));
  const journal: Row[] = computed.flatMap(({ designation, results, rates, hedgeIds, currency }) =>
    results.flatMap((result) => {
      const lines = periodEntries(designation.relationship.id, result, occurrenceTarget(designation.relationship));
      // Every entry balances, or nothing is printed: an entry that does not is a fault of hedge's, never a posting.
      if (!balanced(lines))
        throw new Error(`an entry of ${designation.relationship.id} at ${result.period_end} does not balance`);
      const rate = rates.get(result.period_end);
      return lines.map((line) => journalRow({ ...line, hedge_ids: hedgeIds.join(' '), currency }, rate));
    }),
  );
  return { test, reserve, journal };
}

/** The range `--period` or `--as-of` asks for (at most one of them). */
function rangeOf(options: { period?: string; asOf?: string }) {
  if (options.asOf !== undefined) parseDate('--as-of', options.asOf);
  const period = options.period === undefined ? undefined : parsePeriod(options.period);
  if (period && options.asOf !== undefined) throw new UsageError('--as-of and --period: give one of them.');
  // A refusal names the option that set the date: --period's end, --as-of, or today.
  return { from: period?.from, to: period?.to ?? options.asOf, option: period && `--period ${options.period}` };
}

/** The books over `range`: a closed period's rows as it was closed; the rest computed, with an adjusting entry in the
 * first open period for whatever has changed since in a closed one (a late rate, an event). */
async function booksFor(
  ctx: Options,
  id: string | undefined,
  values: string | undefined,
  range: ReturnType<typeof rangeOf>,
  state?: Recorded,
) {
  const { from = '', to: until } = range;
  state ??= await readState(ctx);
  const closes = values === undefined ? state.closes : [];
  const chosen = (row: Row) => id === undefined || row.relationship_id === id;
  // Each of the books, by the key its rows are dated by.
  const books = (rows: (kind: 'test' | 'reserve' | 'journal', date: string) => Row[]) => ({
    test: rows('test', 'period_end'),
    reserve: rows('reserve', 'period_end'),
    journal: rows('journal', 'date'),
  });
  // A period asked for that is closed whole: its rows as closed, nothing computed.
  const whole = closes.find((close) => close.from === from && close.to === until);
  if (whole) return { ...books((kind) => whole[kind].filter(chosen)), state, computed: undefined };
  const computed = await computeAll(ctx, state, id, values, until, range.option);
  const fresh = booksOf(computed);
  fresh.journal.push(...adjustments(closes, fresh.journal, chosen));
  const closedOn = (date: unknown) => closes.some((close) => String(date) >= close.from && String(date) <= close.to);
  const within = (date: unknown) => String(date) >= from && (until === undefined || String(date) <= until);
  // Closed rows first, then the open ones, each in date order (a sort keeps the order of a date's rows).
  const merged = books((kind, date) =>
    [...closes.flatMap((close) => close[kind].filter(chosen)), ...fresh[kind].filter((row) => !closedOn(row[date]))]
      .filter((row) => within(row[date]))
      .sort((a, b) => String(a[date]).localeCompare(String(b[date]))),
  );
  return { ...merged, state, computed };
}

/** What the computed entries of the closed periods now say beyond what was closed: an entry a relationship, dated the
 * first day after the last close (the first open period), under a new id (`ID/DATE/adjustment`). */
function adjustments(closes: readonly Close[], journal: readonly Row[], chosen: (row: Row) => boolean) {
  if (!closes.length) return [];
  const last = closes.reduce((latest, close) => (close.to > latest ? close.to : latest), '');
  const date = utcDay(Date.parse(`${last}T00:00:00Z`) + 86_400_000);
  const cents = (row: Row) => toCents(exact(String(row.debit))!) - toCents(exact(String(row.credit))!);
  const moves = new Map<string, Map<string, bigint>>();
  const count = (row: Row, sign: bigint) => {
    const byRole = moves.get(String(row.relationship_id)) ?? new Map<string, bigint>();
    byRole.set(String(row.role), (byRole.get(String(row.role)) ?? 0n) + sign * cents(row));
    moves.set(String(row.relationship_id), byRole);
  };
  for (const close of closes) {
    for (const row of journal) if (String(row.date) >= close.from && String(row.date) <= close.to) count(row, 1n);
    for (const row of close.journal.filter(chosen)) count(row, -1n);
  }
  const like = new Map(journal.map((row) => [String(row.relationship_id), row]));
  return [...moves].flatMap(([relationship, byRole]) =>
    [...byRole].flatMap(([role, amount]) =>
      amount === 0n
        ? []
        : [
            journalRow({
              entry_id: `${relationship}/${date}/adjustment`,
              relationship_id: relationship,
              hedge_ids: like.get(relationship)?.hedge_ids ?? '',
              date,
              role,
              currency: like.get(relationship)?.currency ?? null,
              description: 'adjustment: figures dated in a closed period changed after it was closed',
              amount,
            }),
          ],
    ),
  );
}

const RESERVE_KEYS = [
  ...RESERVE_FIELDS.map((field) => field.key),
  // The roll-forward and what it is made of: every field the contract of --json names, in the currency it is in.
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

/** Says the adjusting entries a journal holds, on stderr. */
function sayAdjustments(ctx: Options, journal: readonly Row[]) {
  const ids = new Set(journal.flatMap((row) => (String(row.entry_id).endsWith('/adjustment') ? [row.entry_id] : [])));
  if (ids.size)
    ctx.output.note(
      `${[...ids].join(', ')}: adjusting entries, posted in the first open period: figures dated in a closed period changed after it was closed.`,
    );
}

export const test = {
  async run(ctx: Options, { args, options }: In<'ACCT_TEST'>) {
    const range = rangeOf(options);
    const books = await booksFor(ctx, args.id, options.values, range);
    const rows = books.test;
    // The critical terms' line is the relationship's, read again only where they are its method.
    const computed = rows.some((row) => row.critical_terms)
      ? (books.computed ?? (await computeAll(ctx, books.state, args.id, options.values, range.to, range.option)))
      : [];
    await ctx.output.list(rows, PERIOD_VIEW, {
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
        ...closedEarlyNotes(rows),
      ],
    });
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
    const rows = (await booksFor(ctx, args.id, options.values, rangeOf(options))).reserve;
    await ctx.output.list(rows, RESERVE_VIEW, {
      empty: 'No period of a relationship ends in this period.',
      columnNotes: [
        { text: 'Open + effective − reclassified = close on every row; a balance is positive when it is a credit.' },
      ],
    });
  },
};

export const journal = {
  async run(ctx: Options, { args, options }: In<'ACCT_JOURNAL'>) {
    const range = rangeOf(options);
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
    const { journal: entries } = await booksFor(ctx, args.id, options.values, range);
    const rows = entries.map((row) => ({ ...row, account: accounts[row.role as Role] ?? row.role }));
    sayAdjustments(ctx, rows);
    await ctx.output.list(rows, JOURNAL_VIEW, { empty: 'No entries in this period.' });
  },
};

export const close = {
  async run(ctx: Options & Pick<CommandContext, 'clock'>, { options }: In<'ACCT_CLOSE'>) {
    const period = parsePeriod(options.period);
    const name = options.period!.trim().toUpperCase();
    const state = await readState(ctx);
    const overlapping = overlappingClose(state.closes, period);
    if (overlapping)
      throw new UsageError(
        `--period: ${overlapping.period} is closed already (${overlapping.from} to ${overlapping.to}); a closed period never changes: what changes in it later posts adjusting entries in the first open period.`,
      );
    const today = await booksToday(ctx);
    if (period.to >= today)
      throw new UsageError(`--period: ${name} has not ended (today is ${today}); close it after ${period.to}.`);
    // Every relationship valued up to the period's end: a missing rate is refused naming its date.
    const { test, reserve, journal } = await booksFor(
      ctx,
      undefined,
      undefined,
      { ...period, option: '--period' },
      state,
    );
    await recordClose(ctx, { period: name, ...period, test, reserve, journal });
    sayAdjustments(ctx, journal);
    const summary = { period: name, ...period, period_ends: test.length, journal_lines: journal.length };
    ctx.output.document(summary, () =>
      ctx.output.note(
        `Closed ${name} (${period.from} to ${period.to}): ${test.length} period ends, ${journal.length} journal lines; test, reserve and journal print them as closed from now on.`,
      ),
    );
  },
};
