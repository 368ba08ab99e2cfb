// The books over a range: each relationship valued (one that cannot be is named, the others still reported), its
// points gathered into calendar months, the closed months as they were posted, and what changed since in a closed
// month posted as adjusting entries in the first open month, on a line of the roll-forward of its own. A close posts
// months in order, computed inside the store's hold from the records the hold reads.
import { HedgeError, InterruptedError, UsageError } from '../../core/errors.js';
import { utcDay } from '../../core/utc-text.js';
import { asFunctional } from '../../core/markets.js';
import type { CommandContext } from '../../platform/runtime/context.js';
import { inputFileProblems, readInputFile, type InputPorts } from '../write/input-file.js';
import { FIX_ROWS, parseValuesFile, type Relationship, type ValueLine } from './acct-files.js';
import { BeyondExact, centsNumber, exact, exactText, toCents } from './acct-money.js';
import {
  asNumbers,
  balanced,
  monthRows,
  periodEntries,
  ruleOf,
  type Mark,
  type MonthRow,
  type RateRow,
} from './acct-rules.js';
import { deskFacts, fromValues, valueRelationship, type Computed, type DeskFacts } from './acct-books.js';
import {
  booksToday,
  entityOf,
  functionalCurrency,
  occurrenceTarget,
  quotesOf,
  ratesOf,
  readState,
  recorded,
  type AcctPorts,
  type Close,
  type Recorded,
} from './acct.js';
import { appendRecords, recordsElsewhere, type AcctRecord, type RatesNeeded } from './acct-store.js';
import { awaitsSaid, heldOf, pendingProblem } from './acct-approval.js';
import type { JsonObject } from '../../core/objects.js';

type Row = Record<string, unknown>;

/** What the books read: the records, the server (the desk's hedges, the books' today) and values files. */
export type LedgerPorts = AcctPorts & InputPorts & Pick<CommandContext, 'signal' | 'deadline'>;

/** A report's or a close's range: one relationship or every one, fair values from files for some, and its days. */
export interface BooksRequest {
  id?: string;
  /** The entity whose books (none: the only books there are, or the relationship's). */
  entity?: string;
  /** Fair values given in a file (cumulative since designation), by relationship id. */
  values: ReadonlyMap<string, string>;
  /** The first day shown (none: from the start). */
  from?: string;
  /** The last day: a period's end or --as-of; none, or one after today: today. */
  to?: string;
  /** What set the last day, as a refusal names it. */
  option: string;
  /** A period of more than a month (a quarter, a year): its roll-forward has a line for the whole of it. */
  label?: string;
}

/** A relationship that could not be valued, and why. */
export interface NotValued {
  id: string;
  error: HedgeError;
}

/** What a relationship is valued from besides the records: the desk's hedges as read, or a values file's rows. */
type Input = { id: string; desk?: DeskFacts; lines?: readonly ValueLine[] };

/** Between one step of the work and the next: a signal that came meanwhile is heard (it ends the command), and past
 * --timeout the command ends, nothing printed. */
async function checkpoint({ clock, deadline, signal }: LedgerPorts) {
  await new Promise((resolve) => setImmediate(resolve));
  if (signal.aborted) throw new InterruptedError('Stopped; nothing was printed.', { stoppedBy: signal.reason });
  if (deadline !== undefined && clock.now() >= deadline)
    throw new UsageError(
      '--timeout: the figures were not worked out in time; nothing was printed. Give a longer --timeout, or fewer periods (--as-of, --period, a shorter --values).',
    );
}

/** A refusal of one relationship's figures (a missing rate, an unreadable hedge): the others are still valued. */
const notValued = (error: unknown) => error instanceof HedgeError && !(error instanceof InterruptedError);

/** The relationships a request is of that were designated by `until`, with what each is valued from: its desk
 * hedges read from the server now, or its values file read now. */
async function gather(ctx: LedgerPorts, state: Recorded, request: BooksRequest, until: string) {
  const chosen = request.id === undefined ? [...state.relationships.values()] : [state.relationships.get(request.id)!];
  for (const id of request.values.keys())
    if (!state.relationships.has(id))
      throw new UsageError(`--values: no relationship ${id} is designated; hedge acct list lists them.`);
  const inputs = new Map<string, Input>();
  const failed: NotValued[] = [];
  for (const { relationship: rel } of chosen) {
    if (rel.designated_at > until) continue;
    await checkpoint(ctx);
    try {
      const file = request.values.get(rel.id);
      if (file === undefined)
        inputs.set(rel.id, { id: rel.id, desk: await deskFacts(ctx, state.relationships.get(rel.id)!) });
      else inputs.set(rel.id, { id: rel.id, lines: await valueLines(ctx, file, until) });
    } catch (error) {
      if (!notValued(error)) throw error;
      failed.push({ id: rel.id, error: error as HedgeError });
    }
  }
  return { inputs, failed };
}

/** A values file's rows up to `until`, or its problems refused. */
async function valueLines(ctx: LedgerPorts, file: string, until: string) {
  const { text, sourceName } = await readInputFile(ctx, file, 'values file');
  const read = parseValuesFile(text, sourceName);
  if ('problems' in read) throw inputFileProblems(sourceName, read.problems, FIX_ROWS);
  return read.rows.filter((line) => line.date <= until);
}

/** The currency of a relationship valued from a file: its functional currency, named or read from its rates' quote. */
function valuesCurrency(rel: Relationship, quoted: string | undefined) {
  if (quoted) return functionalCurrency(rel, quoted);
  if (rel.functional_currency) return asFunctional(rel.functional_currency);
  throw new UsageError(
    `functional_currency: ${rel.id} names none and no rate of ${rel.market} is recorded to read it from; import its rates (hedge acct rates FILE --market ${rel.market} --quote "…").`,
  );
}

/** Each relationship gathered, valued up to `until` from the records `state` holds. */
async function valueAll(
  ctx: LedgerPorts,
  state: Recorded,
  inputs: ReadonlyMap<string, Input>,
  until: string,
  option: string,
) {
  const computed: Computed[] = [];
  const failed: NotValued[] = [];
  for (const input of inputs.values()) {
    await checkpoint(ctx);
    const designation = state.relationships.get(input.id)!;
    const rel = designation.relationship;
    try {
      computed.push(
        input.lines
          ? {
              designation,
              results: fromValues(designation, input.lines, until),
              rates: new Map<string, RateRow>(),
              hedgeIds: [],
              closedEarly: [],
              currency: valuesCurrency(rel, state.rates.get(rel.market)?.quote),
            }
          : valueRelationship(designation, state.rates, until, option, input.desk),
      );
    } catch (error) {
      if (!notValued(error)) throw error;
      failed.push({ id: input.id, error: error as HedgeError });
    }
  }
  return { computed, failed };
}

/** The rate a row was valued at, and where it came from. */
const rateColumns = (rate: Pick<Mark, 'spot' | 'source'> | undefined) => ({
  rate: rate ? exactText(rate.spot) : null,
  rate_source: rate?.source ?? null,
});

/** A journal line as printed: its amount a debit (positive) or a credit; with its rate, the way the rate is quoted
 * (what the posting file translates the amount back to the transaction currency by). */
export const journalRow = (
  { amount, ...line }: Row & { amount: bigint },
  rate?: Pick<Mark, 'spot' | 'source'>,
  quote?: string,
) => ({
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
  ...(rate && quote && { rate_quote: quote }),
  description: line.description,
});

/** A relationship's months, with what the rows print beside the figures. */
interface Month {
  id: string;
  row: MonthRow & { adjustment: bigint; cost_of_hedging_adjustment: bigint };
  currency: string;
  rate?: RateRow;
  more: Row;
}

/** Each relationship's month rows and its journal lines, a point's entries each; every entry balances. */
function booksOf(computed: readonly Computed[], quotes: Recorded['rates']) {
  const months: Month[] = [];
  const journal: Row[] = [];
  const failed: NotValued[] = [];
  for (const { designation, results, rates, hedgeIds, currency, criticalTerms, closedEarly } of computed) {
    const rel = designation.relationship;
    try {
      const lines = results.flatMap((point) => {
        const entries = periodEntries(rel.id, point, occurrenceTarget(rel));
        // Every entry balances, or nothing is printed: an entry that does not is a fault of hedge's, never a posting.
        if (!balanced(entries)) throw new Error(`an entry of ${rel.id} at ${point.period_end} does not balance`);
        return entries.map(({ hedge_id, rate, ...line }) =>
          journalRow(
            { ...line, hedge_ids: hedge_id ?? hedgeIds.join(' '), currency },
            rate ?? rates.get(point.period_end),
            quotes.get(rel.market)?.quote,
          ),
        );
      });
      const more = {
        ...(criticalTerms && { critical_terms: criticalTerms }),
        // A designated hedge closed before its maturity and the hedged item's date, the cover not carried on.
        ...(closedEarly.length && { hedges_closed_early: closedEarly }),
      };
      months.push(
        ...monthRows(results).map((row) => ({
          id: rel.id,
          row: { ...row, adjustment: 0n, cost_of_hedging_adjustment: 0n },
          currency,
          rate: rates.get(row.period_end),
          more,
        })),
      );
      journal.push(...lines);
    } catch (error) {
      if (!(error instanceof BeyondExact)) throw error;
      failed.push({
        id: rel.id,
        error: new UsageError(
          `${rel.id}: an amount of ${exactText([error.cents, 100n])} is past the largest hedge prints exactly (90071992547409.91); the relationship is not valued.`,
        ),
      });
    }
  }
  return { months, journal, failed };
}

const dayAfter = (day: string) => utcDay(Date.parse(`${day}T00:00:00Z`) + 86_400_000);
const lineCents = (row: Row) => toCents(exact(String(row.debit))!) - toCents(exact(String(row.credit))!);

/** The last day closed (none before the first close). */
const closedTo = (closes: readonly Close[]) =>
  closes.reduce((latest, close) => (close.to > latest ? close.to : latest), '');

/** The balance a relationship's effective part goes to (its journal role), by its row of the rules table. */
type BalanceOf = (id: string) => string;

/** What a relationship's posted journal leaves in its balance and the cost of hedging reserve, a credit positive: what
 * the first open month opens at. */
function postedBalances(closes: readonly Close[], id: string, balance: string) {
  let [reserve, cost] = [0n, 0n];
  for (const close of closes)
    for (const line of close.journal)
      if (line.relationship_id === id) {
        if (line.role === balance) reserve -= lineCents(line);
        if (line.role === 'cost_of_hedging_reserve') cost -= lineCents(line);
      }
  return { reserve, cost };
}

/** What the computed entries of the closed periods now say beyond what was posted: an entry a relationship, dated the
 * first day after the last close (the first open month), under a new id (`ID/DATE/adjustment`). */
function adjustments(closes: readonly Close[], journal: readonly Row[], chosen: (row: Row) => boolean) {
  if (!closes.length) return [];
  const date = dayAfter(closedTo(closes));
  const moves = new Map<string, Map<string, bigint>>();
  const count = (row: Row, sign: bigint) => {
    const byRole = moves.get(String(row.relationship_id)) ?? new Map<string, bigint>();
    byRole.set(String(row.role), (byRole.get(String(row.role)) ?? 0n) + sign * lineCents(row));
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
              description: 'adjustment: figures dated in a closed month changed after it was closed',
              amount,
            }),
          ],
    ),
  );
}

/** The reserve's adjustment and the cost of hedging reserve's, a credit positive, from a relationship's adjusting
 * lines. */
function adjusted(lines: readonly Row[], id: string, balance: string) {
  const sum = (role: string) =>
    lines.reduce(
      (total, line) => (line.relationship_id === id && line.role === role ? total - lineCents(line) : total),
      0n,
    );
  return { reserve: sum(balance), cost: sum('cost_of_hedging_reserve') };
}

/** The first open month's rows open at what the posted journal left, with its adjustment on a line of its own:
 * open + effective − reclassified + adjustment = close. A relationship with nothing else in that month (it ended in a
 * closed one) gets a roll-forward line of the adjustment alone, which is returned. */
function openFromPosted(months: Month[], closes: readonly Close[], adjusting: readonly Row[], balanceOf: BalanceOf) {
  if (!closes.length) return [];
  const first = dayAfter(closedTo(closes));
  const ids = new Set([...months.map((month) => month.id), ...adjusting.map((line) => String(line.relationship_id))]);
  const alone: Row[] = [];
  for (const id of ids) {
    const balance = balanceOf(id);
    const posted = postedBalances(closes, id, balance);
    const adjustment = adjusted(adjusting, id, balance);
    const month = months.find((each) => each.id === id && each.row.period === first.slice(0, 7));
    if (month)
      Object.assign(month.row, {
        reserve_open: posted.reserve,
        cost_of_hedging_open: posted.cost,
        adjustment: adjustment.reserve,
        cost_of_hedging_adjustment: adjustment.cost,
      });
    else if (adjustment.reserve !== 0n || adjustment.cost !== 0n)
      alone.push({
        relationship_id: id,
        period: first.slice(0, 7),
        period_end: first,
        ...asNumbers({
          effective: 0n,
          reserve_open: posted.reserve,
          reclassified: 0n,
          adjustment: adjustment.reserve,
          reserve_close: posted.reserve + adjustment.reserve,
          cost_of_hedging_open: posted.cost,
          cost_of_hedging_movement: 0n,
          cost_of_hedging_reclassified: 0n,
          cost_of_hedging_adjustment: adjustment.cost,
          cost_of_hedging_close: posted.cost + adjustment.cost,
        }),
        balance,
        currency: adjusting.find((line) => line.relationship_id === id)?.currency ?? null,
      });
  }
  return alone;
}

/** A month row as printed: the relationship first, its amounts as JSON numbers. */
const printed = ({ id, row, currency, rate, more }: Month): Row => ({
  relationship_id: id,
  ...asNumbers(row),
  currency,
  ...rateColumns(rate),
  ...more,
});

/** The roll-forward's line for a period of several months, a relationship each: its first month's opening, the
 * months' movements, its last month's close. */
function periodLines(rows: readonly Row[], label: string) {
  const byId = new Map<string, Row[]>();
  for (const row of rows)
    byId.set(String(row.relationship_id), [...(byId.get(String(row.relationship_id)) ?? []), row]);
  return [...byId].map(([id, list]) => {
    const [first, last] = [list[0], list.at(-1)!];
    const sum = (key: string) =>
      centsNumber(list.reduce((total, row) => total + toCents(exact(String(row[key] ?? 0))!), 0n));
    return {
      relationship_id: id,
      period: label,
      period_end: last.period_end,
      effective: sum('effective'),
      reserve_open: first.reserve_open,
      reclassified: sum('reclassified'),
      adjustment: sum('adjustment'),
      reserve_close: last.reserve_close,
      balance: last.balance,
      cost_of_hedging_open: first.cost_of_hedging_open,
      cost_of_hedging_movement: sum('cost_of_hedging_movement'),
      cost_of_hedging_reclassified: sum('cost_of_hedging_reclassified'),
      cost_of_hedging_adjustment: sum('cost_of_hedging_adjustment'),
      cost_of_hedging_close: last.cost_of_hedging_close,
      currency: last.currency,
    };
  });
}

export const RESERVE_KEYS = [
  'relationship_id',
  'period',
  'period_end',
  'effective',
  'reserve_open',
  'reclassified',
  'adjustment',
  'reserve_close',
  // Which balance the reserve's figures are of: the cash-flow hedge reserve, the hedged item's adjustment or the
  // translation reserve.
  'balance',
  'cost_of_hedging_open',
  'cost_of_hedging_movement',
  'cost_of_hedging_reclassified',
  'cost_of_hedging_adjustment',
  'cost_of_hedging_close',
  // What the roll-forward is made of: every field the contract of --json names, in the currency it is in.
  'instrument_change',
  'hedged_item_change',
  'ratio',
  'ineffective',
  'excluded',
  'currency',
  'rate',
  'rate_source',
];

/** The books over a range, from `inputs` gathered already and the records `state` holds: the closed months as posted,
 * the open ones computed, each relationship that could not be valued named. */
async function ledger(
  ctx: LedgerPorts,
  state: Recorded,
  inputs: ReadonlyMap<string, Input>,
  request: BooksRequest,
  until: string,
) {
  const { closes } = state;
  const chosen = (row: Row) => request.id === undefined || row.relationship_id === request.id;
  const valued = await valueAll(ctx, state, inputs, until, request.option);
  const fresh = booksOf(valued.computed, state.rates);
  const adjusting = adjustments(closes, fresh.journal, chosen);
  const balanceOf = (id: string) => {
    const { relationship: rel } = state.relationships.get(id)!;
    return ruleOf(rel.framework, rel.type).balance;
  };
  const alone = openFromPosted(fresh.months, closes, adjusting, balanceOf);
  const closedOn = (date: unknown) => closes.some((close) => String(date) >= close.from && String(date) <= close.to);
  const within = (date: unknown) => String(date) >= (request.from ?? '') && String(date) <= until;
  // Closed rows first, then the open ones, each in date order (a sort keeps the order of a date's rows).
  const merge = (posted: Row[], open: Row[], date: string) =>
    [...posted.filter(chosen), ...open.filter((row) => !closedOn(row[date]))]
      .filter((row) => within(row[date]))
      .sort((a, b) => String(a[date]).localeCompare(String(b[date])));
  const test = merge(
    closes.flatMap((close) => close.test),
    fresh.months.map(printed),
    'period_end',
  );
  const months = merge(
    closes.flatMap((close) => close.reserve),
    [...fresh.months.map(printed), ...alone].map((row) =>
      Object.fromEntries(RESERVE_KEYS.map((key) => [key, row[key] ?? null])),
    ),
    'period_end',
  );
  const journal = merge(
    closes.flatMap((close) => close.journal),
    [...fresh.journal, ...adjusting],
    'date',
  );
  const reserve = request.label ? [...months, ...periodLines(months, request.label)] : months;
  return { test, reserve, journal, computed: valued.computed, failed: [...valued.failed, ...fresh.failed] };
}

/** The entity whose books a request is of: the one asked for (declared), the relationship's, or the only one the
 * relationships are kept in; refused where that would mix two entities' books, each in its own currency. */
export function entityAsked(state: Recorded, id: string | undefined, asked: string | undefined) {
  const { entities, relationships } = state;
  if (asked !== undefined && !entities.has(asked))
    throw new UsageError(
      `--entity: ${asked} is not a declared entity (${entities.size ? `declared: ${[...entities.keys()].join(', ')}` : 'none is declared'}); hedge acct entities lists them.`,
    );
  const own = id === undefined ? undefined : relationships.get(id)?.relationship;
  if (own) {
    const kept = entityOf(own, entities);
    if (asked !== undefined && kept !== asked)
      throw new UsageError(`--entity: ${id} is in ${kept ?? 'no entity'}'s books, not ${asked}'s.`);
    return kept;
  }
  if (asked !== undefined) return asked;
  const kept = new Set([...relationships.values()].map(({ relationship }) => entityOf(relationship, entities)));
  if (kept.size > 1)
    throw new UsageError(
      `--entity: the relationships are in the books of ${[...kept].map((code) => `${code} (${entities.get(code!)?.functional_currency})`).join(', ')}, each in its own currency, never summed; give --entity CODE, or a relationship's ID.`,
    );
  return [...kept][0];
}

/** One entity's books: the relationships it keeps and its closes (a close recorded before any entity was declared is
 * the books' that relationships naming none are in); every record while no entity is declared. */
export function entityBooks(state: Recorded, entity: string | undefined): Recorded {
  if (!state.entities.size) return state;
  return {
    ...state,
    relationships: new Map(
      [...state.relationships].filter(([, { relationship }]) => entityOf(relationship, state.entities) === entity),
    ),
    closes: state.closes.filter((close) => closeEntity(state, close) === entity),
  };
}

/** The entity a close is of: its own, else the default (a close recorded before any entity was declared). */
const closeEntity = (state: Recorded, close: { entity?: string }) =>
  close.entity ?? [...state.entities.values()].find((each) => each.default)?.code;

/** The rates the relationships gathered are valued from up to `until`: of each one's market, the years from its
 * designation to `until`'s; a desk's from its first hedge's opening (if earlier) and on to today's, as the latest
 * carry recorded of each of its hedges counts; of one valued from a file, its quote alone. */
function ratesValuing(state: Recorded, inputs: ReadonlyMap<string, Input>, until: string, today: string): RatesNeeded {
  const yearOf = (day: string) => Number(day.slice(0, 4));
  return () =>
    [...inputs.values()].map(({ id, desk, lines }) => {
      const rel = state.relationships.get(id)!.relationship;
      const opened = desk?.hedges.map((hedge) => utcDay(hedge.openedMs)) ?? [];
      const from = yearOf([rel.designated_at, ...opened].sort()[0]);
      const to = lines ? from - 1 : yearOf(desk ? today : until);
      return {
        market: rel.market,
        years: Array.from({ length: Math.max(0, to - from + 1) }, (_, at) => `${from + at}`),
      };
    });
}

/** The books over a range, as `test`, `reserve` and `journal` print them: up to its last day, or today (the books'
 * today); a range wholly in closed months is printed as posted, nothing computed. One entity's books at a time. */
export async function booksFor(ctx: LedgerPorts, request: BooksRequest) {
  // The relationships first; the rates they are valued from once their hedges are read.
  const all = await readState(ctx, ratesOf());
  const waiting = request.id !== undefined && pendingProblem(all.approval, request.id, 'id');
  if (waiting && !all.relationships.has(request.id!)) throw new UsageError(waiting);
  const entity = entityAsked(all, request.id, request.entity);
  const books = entityBooks(all, entity);
  if (request.id === undefined ? !books.relationships.size : !books.relationships.has(request.id))
    throw new UsageError(
      `id: ${request.id === undefined ? `no relationship is designated yet${entity === undefined ? '' : ` in ${entity}'s books`}` : `no relationship ${request.id} is designated`}; record one with hedge acct designate FILE.${all.relationships.size ? '' : await recordsElsewhere(ctx)}`,
    );
  const today = await booksToday(ctx);
  const until = request.to === undefined || request.to > today ? today : request.to;
  // A range wholly in closed months is printed as posted: nothing is valued (its adjustments fall after it).
  const closedWhole = until <= closedTo(books.closes);
  const { inputs, failed } = closedWhole
    ? { inputs: new Map<string, Input>(), failed: [] }
    : await gather(ctx, books, request, until);
  // Books printed as posted still say each market's quote.
  const rates = inputs.size
    ? ratesValuing(books, inputs, until, today)
    : ratesOf(...quotesOf(books.relationships.values()));
  const state = entityBooks(await readState(ctx, rates), entity);
  const printed = await ledger(ctx, state, inputs, request, until);
  return { ...printed, failed: [...failed, ...printed.failed], closedWhole, state, entity };
}

/** `2026-11`, `2026-Q4` or `2026`: its months, each with its first and last day. */
function monthsOf(from: string, to: string) {
  const months: Array<{ period: string; from: string; to: string }> = [];
  for (let day = from; day <= to;) {
    const [year, month] = day.split('-').map(Number);
    const last = utcDay(Date.UTC(year, month, 0));
    months.push({ period: day.slice(0, 7), from: day, to: last });
    day = dayAfter(last);
  }
  return months;
}

/** The months of a period still to close, in order: refused when each is closed already, or when a month before the
 * first of them is still open (the months from the first designation, or the last close, close in order). */
function monthsToClose(state: Recorded, period: { name: string; from: string; to: string }, entity?: string) {
  // A close of these books waiting for approval is decided before the next: months close in order.
  const waiting = state.approval.pending.find(
    (record) => record.kind === 'close' && closeEntity(state, record.body) === entity,
  );
  if (waiting) throw new UsageError(awaitsSaid(waiting, '--period'));
  const last = closedTo(state.closes);
  const open = monthsOf(period.from, period.to).filter((month) => month.to > last);
  if (!open.length) {
    const closed = state.closes.find((close) => close.from <= period.to && close.to >= period.from)!;
    throw new UsageError(
      `--period: ${period.name} is closed already (${closed.period}, ${closed.from} to ${closed.to}); a closed month never changes: what changes in it later posts adjusting entries in the first open month.`,
    );
  }
  if (last && open[0].from !== dayAfter(last))
    throw new UsageError(
      `--period: months close in order; close ${dayAfter(last).slice(0, 7)} first (the last closed is ${state.closes.find((close) => close.to === last)!.period}).`,
    );
  const first = [...state.relationships.values()].map((each) => each.relationship.designated_at).sort()[0];
  // A period wholly before the first designation has nothing to close: its books start there.
  if (!last && first && (open[0].from.slice(0, 7) > first.slice(0, 7) || open.at(-1)!.to < first))
    throw new UsageError(
      `--period: months close in order from the first designation (${first}); close ${first.slice(0, 7)} first.`,
    );
  return open;
}

/** Refuses a close one of whose relationships cannot be valued, naming each: a close holds the whole books. */
function refuseUnvalued(name: string, failed: readonly NotValued[]) {
  if (!failed.length) return;
  if (failed.length === 1) throw failed[0].error;
  throw new UsageError(
    `--period: ${name} is not closed: ${failed.map((each) => `${each.id}: ${each.error.message}`).join(' ')}`,
  );
}

/** Closes a period's months still open, in order, each recorded with its rows as `test`, `reserve` and `journal`
 * print them; computed inside the store's hold from the records read under it, the server's hedges read before. */
export async function closeMonths(
  ctx: LedgerPorts,
  period: { name: string; from: string; to: string },
  values: ReadonlyMap<string, string>,
  { entity: asked, by }: { entity?: string; by?: string } = {},
) {
  // What is refused before the server is read needs no rate: the rates are read once, under the hold.
  const all = await readState(ctx, ratesOf());
  const entity = entityAsked(all, undefined, asked);
  const state = entityBooks(all, entity);
  const today = await booksToday(ctx);
  if (period.to >= today)
    throw new UsageError(`--period: ${period.name} has not ended (today is ${today}); close it after ${period.to}.`);
  monthsToClose(state, period, entity);
  const request = { values, to: period.to, option: '--period' };
  const { inputs, failed } = await gather(ctx, state, request, period.to);
  refuseUnvalued(period.name, failed);
  let before: readonly AcctRecord[] = [];
  const added = await appendRecords(
    ctx,
    'close',
    ratesValuing(state, inputs, period.to, today),
    async (records) => {
      let held = entityBooks(recorded((before = records)), entity);
      const months = monthsToClose(held, period, entity);
      const late = [...held.relationships.values()].find(
        ({ relationship: rel }) => rel.designated_at <= period.to && !inputs.has(rel.id),
      );
      if (late)
        throw new UsageError(
          `--period: ${late.relationship.id} was designated while the close read the hedges; nothing was closed: run it again.`,
        );
      const bodies: Close[] = [];
      for (const month of months) {
        const books = await ledger(ctx, held, inputs, { ...request, from: month.from, to: month.to }, month.to);
        refuseUnvalued(month.period, books.failed);
        const close = {
          ...(entity !== undefined && { entity }),
          ...month,
          test: books.test,
          reserve: books.reserve,
          journal: books.journal,
        };
        bodies.push(close);
        held = { ...held, closes: [...held.closes, close] };
      }
      return bodies as unknown as JsonObject[];
    },
    { by },
  );
  return { closed: added.map((record) => record.body as unknown as Close), held: heldOf(before, added) };
}
