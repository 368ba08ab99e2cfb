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
  booksToday,
  recordClose,
  recorded,
  todayOf,
  type Close,
  type Computed,
} from '../../../features/acct/acct.js';
import { readRecords } from '../../../features/acct/acct-store.js';
import { balanced, criticalTermsLine, periodEntries, ROLES, type Role } from '../../../features/acct/acct-rules.js';
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
  id: string | undefined,
  valuesFile: string | undefined,
  until: string | undefined,
  option = until === undefined ? 'today' : '--as-of',
) {
  const state = recorded(await readRecords(ctx));
  ctx.rememberForCompletion({ relationships: [...state.relationships.keys()] });
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
      if ('problems' in read) {
        // A problem of the whole file (line 0: not JSON, empty) names the file itself.
        const said = read.problems.map((p) => (p.line ? `line ${p.line}: ${p.message}` : p.message)).join('\n');
        throw new UsageError(said.startsWith(sourceName) ? said : `${sourceName}: ${said}`);
      }
      const lines = read.rows.filter((line) => line.date <= end);
      await checkpoint(ctx);
      const quoted = state.rates.get(designation!.relationship.market)?.quote;
      computed.push({
        designation: designation!,
        results: fromValues(designation!, lines, end),
        rates: new Map(),
        hedgeIds: [],
        closedEarly: [],
        currency: valuesCurrency(designation!.relationship, quoted),
      });
    } else {
      computed.push(await compute(ctx, designation!, state.rates, until, option));
    }
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

/** One row a relationship and period, the relationship's names first. */
function periodRows(computed: readonly Computed[]) {
  return computed.flatMap(({ designation, results, rates, currency, criticalTerms, closedEarly }) =>
    results.map(({ cents: _, ...result }) => ({
      relationship_id: designation.relationship.id,
      ...result,
      currency,
      rate: rates.has(result.period_end) ? exactText(rates.get(result.period_end)!.spot) : null,
      rate_source: rates.get(result.period_end)?.source ?? null,
      ...(criticalTerms && { critical_terms: criticalTerms }),
      // A designated hedge closed before its maturity and the hedged item's date, the cover not carried on.
      ...(closedEarly.length && { hedges_closed_early: closedEarly }),
    })),
  );
}

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
      return lines.map((line) => ({
        entry_id: line.entry_id,
        relationship_id: line.relationship_id,
        hedge_ids: hedgeIds.join(' '),
        date: line.date,
        role: line.role,
        account: line.role,
        debit: line.amount > 0n ? centsNumber(line.amount) : 0,
        credit: line.amount < 0n ? centsNumber(-line.amount) : 0,
        currency,
        rate: rate ? exactText(rate.spot) : null,
        rate_source: rate?.source ?? null,
        description: line.description,
      }));
    }),
  );
  return { test, reserve, journal };
}

/** The books from `from` to `until`: a closed period's rows as it was closed; the rest computed, with an adjusting
 * entry in the first open period for whatever has changed since in a closed one (a late rate, an event). */
async function booksFor(
  ctx: Options,
  id: string | undefined,
  values: string | undefined,
  until?: string,
  from = '',
  option?: string,
) {
  const closes = values === undefined ? recorded(await readRecords(ctx)).closes : [];
  const chosen = (row: Row) => id === undefined || row.relationship_id === id;
  const asClosed = (pick: (close: Close) => Row[]) => closes.flatMap((close) => pick(close).filter(chosen));
  // A period asked for that is closed whole: its rows as closed, nothing computed.
  const whole = closes.find((close) => close.from === from && close.to === until);
  if (whole)
    return {
      test: whole.test.filter(chosen),
      reserve: whole.reserve.filter(chosen),
      journal: whole.journal.filter(chosen),
    };
  const fresh = booksOf(await computeAll(ctx, id, values, until, option));
  const closedOn = (date: unknown) => closes.some((close) => String(date) >= close.from && String(date) <= close.to);
  const within = (date: unknown) => String(date) >= from && (until === undefined || String(date) <= until);
  // Closed rows first, then the open ones, each in date order (a sort keeps the order of a date's rows).
  const merged = (closed: Row[], computed: Row[], date: string) =>
    [...closed, ...computed.filter((row) => !closedOn(row[date]))]
      .filter((row) => within(row[date]))
      .sort((a, b) => String(a[date]).localeCompare(String(b[date])));
  return {
    test: merged(
      asClosed((close) => close.test),
      fresh.test,
      'period_end',
    ),
    reserve: merged(
      asClosed((close) => close.reserve),
      fresh.reserve,
      'period_end',
    ),
    journal: merged(
      asClosed((close) => close.journal),
      [...fresh.journal, ...adjustments(closes, fresh.journal, chosen)],
      'date',
    ),
  };
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
            {
              entry_id: `${relationship}/${date}/adjustment`,
              relationship_id: relationship,
              hedge_ids: like.get(relationship)?.hedge_ids ?? '',
              date,
              role,
              account: role,
              debit: amount > 0n ? centsNumber(amount) : 0,
              credit: amount < 0n ? centsNumber(-amount) : 0,
              currency: like.get(relationship)?.currency ?? null,
              rate: null,
              rate_source: null,
              description: 'adjustment: figures dated in a closed period changed after it was closed',
            },
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
    if (options.asOf !== undefined && !isDate(options.asOf))
      throw new UsageError('--as-of: expected a date such as 2026-11-30 (YYYY-MM-DD).');
    const period = options.period === undefined ? undefined : parsePeriod(options.period);
    if (period && options.asOf !== undefined) throw new UsageError('--as-of and --period: give one of them.');
    const until = period?.to ?? options.asOf;
    // A refusal names the option that set the date: --period's end, --as-of, or today.
    const option = period ? `--period ${options.period}` : undefined;
    const rows = (await booksFor(ctx, args.id, options.values, until, period?.from, option)).test;
    // The critical terms' line is the relationship's, read again only where they are its method.
    const computed = rows.some((row) => row.critical_terms)
      ? await computeAll(ctx, args.id, options.values, until, option)
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
    const period = options.period === undefined ? undefined : parsePeriod(options.period);
    const option = period ? `--period ${options.period}` : undefined;
    const rows = (await booksFor(ctx, args.id, options.values, period?.to, period?.from, option)).reserve;
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
    const option = period ? `--period ${options.period}` : undefined;
    const { journal: entries } = await booksFor(ctx, args.id, options.values, period?.to, period?.from, option);
    const rows = entries.map((row) => ({ ...row, account: accounts[row.role as Role] ?? row.role }));
    sayAdjustments(ctx, rows);
    await ctx.output.list(rows, JOURNAL_VIEW, { empty: 'No entries in this period.' });
  },
};

export const close = {
  async run(ctx: Options & Pick<CommandContext, 'clock'>, { options }: In<'ACCT_CLOSE'>) {
    const period = parsePeriod(options.period);
    const name = options.period!.trim().toUpperCase();
    const overlapping = recorded(await readRecords(ctx)).closes.find(
      (each) => each.from <= period.to && each.to >= period.from,
    );
    if (overlapping)
      throw new UsageError(
        `--period: ${overlapping.period} is closed already (${overlapping.from} to ${overlapping.to}); a closed period never changes: what changes in it later posts adjusting entries in the first open period.`,
      );
    const today = await booksToday(ctx);
    if (period.to >= today)
      throw new UsageError(`--period: ${name} has not ended (today is ${today}); close it after ${period.to}.`);
    // Every relationship valued up to the period's end: a missing rate is refused naming its date.
    const books = await booksFor(ctx, undefined, undefined, period.to, period.from, '--period');
    await recordClose(ctx, { period: name, ...period, ...books });
    sayAdjustments(ctx, books.journal);
    const summary = { period: name, ...period, period_ends: books.test.length, journal_lines: books.journal.length };
    ctx.output.document(summary, () =>
      ctx.output.note(
        `Closed ${name} (${period.from} to ${period.to}): ${books.test.length} period ends, ${books.journal.length} journal lines; test, reserve and journal print them as closed from now on.`,
      ),
    );
  },
};
