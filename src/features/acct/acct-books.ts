// A relationship's books, valued: its points (each month end and each event's day) from the recorded rates and the
// desk's hedges (read from the server), or from a forward held elsewhere, or from fair values given in a file; each
// amount in the functional currency at the rate of the day it happened. Reads only.
import { UsageError } from '../../core/errors.js';
import { utcDay } from '../../core/utc-text.js';
import { readNumber } from '../../core/number-format.js';
import { sameReference } from '../../core/input.js';
import { asFunctional } from '../../core/markets.js';
import type { HedgeClient } from '../../platform/api/client.js';
import { readHistoryRecord } from '../../platform/api/wire/fields.js';
import type { HistoryFacts } from '../../core/wire.js';
import { readDeal, type DealHedges } from '../book/deal.js';
import { recordStanding } from '../book/book.js';
import { walkHistory } from '../report/report.js';
import { rateProblem, type Relationship, type ValueLine } from './acct-files.js';
import { BeyondExact, exact, exactNumber, exactText, toCents, type Exact } from './acct-money.js';
import {
  criticalTerms,
  deskValuer,
  forwardPoints,
  forwardValues,
  hedgedItemBySpot,
  inFunctional,
  MissingRate,
  need,
  NoRate,
  rollForward,
  type CriticalTermsInput,
  type DeskHedge,
  type Mark,
  type PeriodValues,
  type Quote,
  type RateRow,
  type RelationshipRules,
  type RuleEvent,
} from './acct-rules.js';
import {
  functionalCurrency,
  lifeOf,
  maturityDay,
  QUOTE,
  quoteFor,
  serverDay,
  type AcctPorts,
  type Designation,
  type MarketRates,
} from './acct.js';

/** The hedges carrying a relationship's references, read from the server, with the server's day learned from them. */
export type DeskFacts = Awaited<ReturnType<typeof deskHedges>> & { today: string };

/** What a relationship's valuation reads from the server: its desk hedges (none for a forward held elsewhere). */
export async function deskFacts(ctx: Pick<AcctPorts, 'client'>, designation: Designation) {
  const { instrument } = designation.relationship;
  if (!('references' in instrument)) return undefined;
  const client = await ctx.client();
  const desk = await deskHedges(client, instrument.references);
  // Read after the hedges: the server's day, from its answers.
  return { ...desk, today: serverDay(client) };
}

/** Every month end (UTC) from `from` on and before `to`. */
function monthEnds(from: string, to: string) {
  const ends: string[] = [];
  for (let [year, month] = from.split('-').map(Number); ; month += 1) {
    const end = utcDay(Date.UTC(year, month, 0));
    if (end >= to) return ends;
    if (end >= from) ends.push(end);
  }
}

/** A relationship's points up to `last`: each month end from its designation on (the books' periods), each event's
 * day (valued on it), and `last` itself (the end asked for: a month's end, or an interim day). */
function pointsOf(designatedAt: string, last: string, eventDates: readonly string[]) {
  if (last < designatedAt) return [];
  const within = eventDates.filter((date) => date >= designatedAt && date < last);
  return [...new Set([...monthEnds(designatedAt, last), ...within, last])].sort();
}

/** Each point's values; a point at which nothing is held (an instrument settled, hedge accounting over) carries the
 * last values, with no rate asked for. `after`: the point before (none for the first). */
function valuesAt(
  ends: readonly string[],
  held: (date: string, after: string | undefined) => boolean,
  valueAt: (end: string, after: string | undefined) => Omit<PeriodValues, 'end'>,
) {
  let [last, after]: [PeriodValues | undefined, string | undefined] = [undefined, undefined];
  return ends.map((end) => {
    last = !held(end, after) && last ? { ...last, end, settlements: [] } : { end, ...valueAt(end, after) };
    after = end;
    return last;
  });
}

function rulesOf(designation: Designation, amortisation?: RelationshipRules['amortisation']) {
  const { relationship: rel } = designation;
  return {
    framework: rel.framework,
    type: rel.type,
    method: rel.method,
    excluded: rel.excluded,
    kind: rel.hedged_item.kind,
    designatedAt: rel.designated_at,
    itemDate: rel.hedged_item.expected_date,
    ratio: exact(rel.ratio)!,
    amortisation: amortisation && { ...amortisation, basis: rel.amortisation ?? 'days' },
    events: lifeOf(designation).events,
  };
}

const cents = (text: string | undefined) => (text === undefined ? 0n : toCents(exact(text)!));

const EVENT_WORDS: Record<RuleEvent['type'], string> = {
  occurred: 'its transaction happened',
  disposed: 'its operation was disposed of',
  'de-designated': 'it was de-designated',
  rebalanced: 'it was rebalanced',
  terminated: 'its instrument was terminated',
  settled: 'its instrument matures',
};

/** Rows a point each, computed; a figure past what hedge prints exactly is refused naming the relationship. */
function rolled(
  designation: Designation,
  periods: readonly PeriodValues[],
  spread?: RelationshipRules['amortisation'],
) {
  try {
    return rollForward(periods, rulesOf(designation, spread));
  } catch (error) {
    if (error instanceof BeyondExact)
      throw new UsageError(
        `${designation.relationship.id}: an amount of ${exactText([error.cents, 100n])} is past the largest hedge prints exactly (90071992547409.91); the relationship is not valued.`,
      );
    throw error;
  }
}

/** The relationship's points from a values file up to `until`: each month end after the designation, each event's
 * day, and the file's last day (an interim point), each needing the file's row while the instrument is held. */
export function fromValues(designation: Designation, lines: readonly ValueLine[], until: string) {
  const { relationship: rel } = designation;
  const early = lines.find((line) => line.date <= rel.designated_at);
  if (early)
    throw new UsageError(
      `--values: ${early.date} is not after the designation (${rel.designated_at}); values are cumulative since then.`,
    );
  const life = lifeOf(designation);
  const byDate = new Map(lines.map((line) => [line.date, line]));
  const lastRow = lines.at(-1)?.date ?? rel.designated_at;
  const last = [until, lastRow, life.finishedOn ?? until].sort()[0];
  const points = pointsOf(
    rel.designated_at,
    last,
    life.events.map((event) => event.date),
  ).filter((date) => date > rel.designated_at);
  const eventDays = life.events.flatMap((event) => (event.date <= until ? [event.date] : []));
  const missing = [...points, ...eventDays].find((date) => life.held(date) && !byDate.has(date));
  if (missing) {
    const event = life.events.find((each) => each.date === missing);
    throw new UsageError(
      `--values: no row for ${missing}, ${event ? `the day ${EVENT_WORDS[event.type]}` : 'a month end'}; every month end and event's day needs the values on it.`,
    );
  }
  const periods = valuesAt(
    points,
    (date) => life.held(date),
    (end) => {
      const line = byDate.get(end)!;
      return {
        instrument: cents(line.instrument_value),
        hedgedItem: cents(line.hedged_item_value),
        excluded: cents(line.excluded_value),
        fees: cents(line.fees),
      };
    },
  );
  return rolled(designation, periods);
}

/** A relationship's points, the rate each was valued at (none for values from a file), its hedges and currency, and
 * its critical terms where that is its method. */
export type Computed = ReturnType<typeof valueRelationship>;

/** A point's rate read as a desk hedge is marked at it. */
const markOf = (row: RateRow): Mark => ({
  date: row.date,
  spot: row.spot,
  atMs: Date.parse(row.at ?? `${row.date}T23:59:59.999Z`),
  carry: row.carry ?? new Map(),
  source: row.source,
});

/** The relationship valued from what is recorded (and the desk's hedges as read), up to `until`. */
export function valueRelationship(
  designation: Designation,
  rates: Map<string, MarketRates>,
  until: string,
  option: string,
  desk?: DeskFacts,
) {
  const rel = designation.relationship;
  const market = rates.get(rel.market);
  const start = rateOn(rel, market, rel.designated_at, option);
  const quote = quoteFor(rel, market!.quote);
  const used = new Map<string, RateRow>();
  const life = lifeOf(designation);
  // Each point up to `last` valued at its rate (every one read before any is valued).
  const valued = (
    last: string,
    held: (date: string, after: string | undefined) => boolean,
    valueAt: (at: RateRow, after: string | undefined) => Omit<PeriodValues, 'end'>,
  ) => {
    const points = pointsOf(
      rel.designated_at,
      last,
      life.events.map((event) => event.date),
    );
    let after: string | undefined;
    for (const end of points) {
      if (held(end, after)) used.set(end, rateOn(rel, market, end, option));
      after = end;
    }
    return valuesAt(points, held, (end, after) => valueAt(used.get(end)!, after));
  };
  const { instrument, hedged_item: item } = rel;
  const amount = exact(item.amount)!;
  let periods: PeriodValues[];
  let spread: RelationshipRules['amortisation'];
  let instrumentTerms: CriticalTermsInput['instrument'];
  // The instrument's terms, its amount in the hedged item's currency: converted at the designation's spot when it is
  // in another.
  const termsOf = (notional: Exact, currency: string, maturity: string | null, market: string | null) => ({
    amount:
      currency === item.currency
        ? notional
        : inFunctional(notional, start.spot, { functionalPerForeign: !quote.functionalPerForeign }),
    currency,
    maturity,
    market,
  });
  try {
    if ('notional' in instrument) {
      const terms = {
        hedgedAmount: amount,
        notional: exact(instrument.notional)!,
        contractRate: exact(instrument.contract_rate)!,
        designation: rel.designation,
        discountHedgedItem: rel.discount_hedged_item === true,
      };
      const last = life.finishedOn && life.finishedOn < until ? life.finishedOn : until;
      periods = valued(last, life.held, (at) => ({ ...forwardValues(terms, quote, start, at), fees: 0n }));
      // The forward points are spread over the forward's life: a time-period related item's (a recognised one) from
      // the cost of hedging reserve, and under ASC 815 any item's (amortised in earnings).
      if (
        rel.designation === 'spot' &&
        rel.excluded !== 'pnl' &&
        (item.kind === 'recognised' || rel.excluded === 'amortised')
      )
        spread = { total: forwardPoints(terms, quote, start), from: rel.designated_at, to: instrument.maturity };
      instrumentTerms = termsOf(terms.notional, instrument.currency, instrument.maturity, rel.market);
    } else {
      const book = deskBook(rel, life, market!, desk!);
      const last = book.finishedOn && book.finishedOn < until ? book.finishedOn : until;
      periods = valued(last, book.held, (at, after) => {
        const value = book.value(at.date);
        if (value.unknown.length)
          throw new UsageError(
            `${rel.id}: ${value.unknown.join(', ')} was open at ${at.at ?? `the end of ${at.date}`} with no entry price or carry recorded for it; record ${rel.market}'s rate while it is open (hedge acct rates --record --market ${rel.market}).`,
          );
        return {
          instrument: toCents(value.instrument),
          excluded: toCents(value.excluded),
          fees: value.fees,
          settled: value.settled,
          // Exact, for the designated share to be taken of before the one rounding.
          exact: { instrument: value.instrument, excluded: value.excluded },
          // The hedges closed since the point before (from the designation's day for the first).
          settlements: value.settlements.filter((each) => (after === undefined ? true : each.date > after)),
          hedgedItem: itemChange(rel, quote, amount, start, at),
          // A recognised item's remeasurement at spot, as with a forward held elsewhere (read for recognised items only).
          remeasured: hedgedItemBySpot(amount, quote, start, at),
        };
      });
      const { notionalUsd, maturity, markets } = desk!.live;
      instrumentTerms = termsOf(exact(String(notionalUsd))!, 'USD', maturity, [...markets].join(' ') || null);
    }
  } catch (error) {
    if (error instanceof MissingRate)
      throw new UsageError(
        `${option}: ${rel.market}'s rate for ${error.date} has no ${error.column}; the ${rel.designation} designation needs it.`,
      );
    if (error instanceof NoRate)
      throw new UsageError(
        `${option}: no rate of ${rel.market} for ${error.date} (${error.why}): each amount is translated at the rate of its day; import it (hedge acct rates FILE --market ${rel.market} --quote "…") or, for today, record it (hedge acct rates --record --market ${rel.market}).`,
      );
    throw error;
  }
  return {
    designation,
    results: rolled(designation, periods, spread),
    rates: used,
    hedgeIds: desk?.hedges.map((hedge) => hedge.id) ?? [],
    // A net investment has no date: a hedge of it closed early without another is flagged whenever it closed.
    closedEarly: desk?.earlyClosed.filter((hedge) => hedge.closed < (item.expected_date ?? '9999-12-31')) ?? [],
    currency: functionalCurrency(rel, market!.quote),
    ...(rel.method === 'critical_terms' && {
      criticalTerms: criticalTerms({
        instrument: instrumentTerms,
        ratio: exact(rel.ratio)!,
        // Designate refuses critical terms for an item with no date.
        item: { amount, currency: item.currency, expectedDate: item.expected_date!, market: rel.market },
        framework: rel.framework,
        maturityMatch: rel.maturity_match,
      }),
    }),
  };
}

/** The desk's hedges as the relationship's instrument: the hedges that are its (those opened by the day hedge
 * accounting ended), their values at each day (deskValuer), when something is held (hedge accounting on, or a hedge of
 * it not closed by the point before) and the day nothing is left to post (the transaction done and every hedge of it
 * closed). */
function deskBook(rel: Relationship, life: ReturnType<typeof lifeOf>, market: MarketRates, desk: DeskFacts) {
  const ended = life.endedOn;
  const hedges = desk.hedges.filter((hedge) => ended === undefined || utcDay(hedge.openedMs) <= ended);
  const closedOn = (hedge: DeskHedge) => (hedge.closed ? utcDay(hedge.closed.atMs) : undefined);
  const marks = [...market.rows.values()].map(markOf);
  // Each hedge's latest recorded carry, for a rate recorded without it (imported, or read before it opened).
  const observed = new Map<string, { atMs: number; carry: Exact }>();
  for (const mark of marks.toSorted((a, b) => a.atMs - b.atMs))
    for (const [id, carry] of mark.carry) observed.set(id, { atMs: mark.atMs, carry });
  const [, units, per] = QUOTE.exec(market.quote)!;
  const functional = functionalCurrency(rel, market.quote);
  // The hedges settle in USD: translated at a day's rate itself.
  const quote = { functionalPerForeign: asFunctional(per) === 'USD' };
  if (functional !== 'USD' && asFunctional(quote.functionalPerForeign ? units : per) !== functional)
    throw new UsageError(
      `functional_currency: ${functional} is not a currency of ${rel.market}'s rates (${market.quote}) beside USD; the desk's hedges settle in USD.`,
    );
  const markOn = (date: string) => {
    const row = market.rows.get(date);
    return row && markOf(rateOn(rel, market, date, 'the rates'));
  };
  const value = deskValuer({
    hedges,
    designatedAt: rel.designated_at,
    markOn,
    observed,
    ...(functional !== 'USD' && { translate: (usd: Exact, spot: Exact) => inFunctional(usd, spot, quote) }),
  });
  const closes = hedges.map(closedOn);
  const lastClose = closes.every(Boolean) ? (closes as string[]).toSorted().at(-1) : undefined;
  return {
    value,
    held: (date: string, after: string | undefined) =>
      life.held(date) &&
      (ended === undefined ||
        date <= ended ||
        hedges.some((hedge) => {
          const closed = closedOn(hedge);
          return closed === undefined || after === undefined || closed > after;
        })),
    finishedOn:
      life.doneOn && closes.every(Boolean) ? [life.doneOn, lastClose ?? life.doneOn].sort().at(-1) : undefined,
  };
}

/** The desk's hedges carrying the relationship's references, each from its own record (side, notional, the price it
 * was struck at, when it filled) and, once closed, its history record; a hedge whose figures cannot be read is named,
 * never taken as zero. */
async function deskHedges(client: HedgeClient, references: readonly string[]) {
  const deals: DealHedges[] = [];
  for (const reference of references) {
    const deal = await readDeal(client, reference);
    if (deal.problem)
      throw new UsageError(`instrument.references: the hedges of ${reference} were not read: ${deal.problem}.`);
    if (!deal.hedges.length)
      throw new UsageError(
        `instrument.references: no hedge of this account carries ${reference}; the relationship's hedges cannot be read (another profile's, or reset), so it is not valued.`,
      );
    deals.push(deal);
  }
  const closed = new Map<string, HistoryFacts>();
  await walkHistory(client, {}, (raw) => {
    const facts = readHistoryRecord(raw);
    const { hedgeId, clientReference, closedAt } = facts;
    // A record carries a reference itself, or is of a hedge that does.
    const carries = deals.some(
      (deal) => (hedgeId !== undefined && deal.referenceOf(hedgeId)) || sameReference(clientReference, deal.reference),
    );
    if (carries && closedAt) closed.set(hedgeId ?? `closed ${closedAt}`, facts);
  });
  const ms = (text: unknown) => (typeof text === 'string' ? Date.parse(text) : NaN);
  const num = (value: number | undefined) => (value === undefined ? undefined : exactNumber(value));
  const hedges: DeskHedge[] = [];
  const unreadable: string[] = [];
  const byId = <H extends { id: string }>(list: H[]) => new Map(list.map((hedge) => [hedge.id, hedge]));
  const records = byId(deals.flatMap((deal) => deal.hedges));
  for (const id of new Set([...records.keys(), ...closed.keys()])) {
    const record = records.get(id);
    const done = closed.get(id);
    // Its record as the side model reads it: being opened or failed, never filled (no exposure to value); without a
    // history record, only a filled one is valued, a closed one named below, one in a status hedge does not know refused.
    const standing = record && !done ? recordStanding(record) : undefined;
    if (!done && (!standing || standing.standing === 'opening' || 'failed' in standing)) continue;
    if (standing?.standing === 'settling')
      throw new UsageError(
        `instrument.references: ${standing.why}, and the history does not list it closed; the relationship is not valued until its hedges read so.`,
      );
    const side = done?.side ?? record?.side;
    const notional = num(done?.notionalUsd ?? readNumber(record?.notional_usd));
    const openedMs = ms(record?.filled_at ?? record?.opened_at ?? done?.openedAt);
    const entry = num(readNumber(record?.struck_rate) ?? done?.entryPrice);
    if (!side || !notional || Number.isNaN(openedMs) || standing?.standing === 'ended') {
      unreadable.push(id);
      continue;
    }
    hedges.push({
      id,
      side,
      notional,
      entry,
      openedMs,
      ...(record?.maturity_at !== undefined && { maturityMs: ms(record.maturity_at) }),
      closed: done && {
        atMs: ms(done.closedAt),
        gross: exactNumber(done.grossPnlUsd ?? 0),
        carry: exactNumber(done.carryUsd ?? 0),
        fees: exactNumber(done.feesUsd ?? 0),
      },
    });
  }
  // A hedge closed before its maturity and before the hedged item's date, with no hedge of the relationship opened on
  // or after its close to carry on the cover: what the relationship's test flags.
  const earlyClosed = hedges.flatMap((hedge) => {
    const maturity = ms(records.get(hedge.id)?.maturity_at);
    if (!hedge.closed || !(hedge.closed.atMs < maturity)) return [];
    const replaced = hedges.some((other) => other.id !== hedge.id && other.openedMs >= hedge.closed!.atMs - 60_000);
    return replaced ? [] : [{ id: hedge.id, closed: utcDay(hedge.closed.atMs), maturity: utcDay(maturity) }];
  });
  if (unreadable.length)
    throw new UsageError(
      `instrument.references: ${unreadable.join(', ')} cannot be valued (no side, notional, fill time or history record); the relationship is not valued without them.`,
    );
  // The live hedges' terms, for a critical-terms comparison: their notional, last maturity and markets.
  const live = { notionalUsd: 0, maturity: null as string | null, markets: new Set<string>() };
  const ended = new Set(closed.keys());
  for (const hedge of byId(deals.flatMap((deal) => deal.live(ended))).values()) {
    live.notionalUsd += readNumber(hedge.notional_usd) ?? 0;
    live.markets.add(hedge.market);
    const maturity = maturityDay(hedge);
    if (maturity !== null && maturity > (live.maturity ?? '')) live.maturity = maturity;
  }
  return { hedges, live, earlyClosed };
}

/** A rate of the market for `date`, or a refusal naming the date. */
function rateOn(rel: Relationship, market: MarketRates | undefined, date: string, option: string) {
  const row = market?.rows.get(date);
  if (!row)
    throw new UsageError(
      `${option}: no rate of ${rel.market} for ${date}; import it (hedge acct rates FILE --market ${rel.market} --quote "…") or, for today, record it (hedge acct rates --record --market ${rel.market}).`,
    );
  // A rate recorded by an older hedge that cannot be one (0, a negative price) is named, never divided by.
  const unfit = (['spot', 'forward', 'discount_factor'] as const)
    .map((column) => {
      const value = row[column === 'discount_factor' ? 'discountFactor' : column];
      return value && rateProblem(column, exactText(value));
    })
    .find(Boolean);
  if (unfit)
    throw new UsageError(
      `${option}: ${rel.market}'s recorded rate for ${date} cannot be a rate (${unfit}); correct it (hedge acct rates FILE --market ${rel.market} --quote "…" --correct --reason TEXT).`,
    );
  return row;
}

function itemChange(rel: Relationship, quote: Quote, amount: Exact, start: RateRow, at: RateRow) {
  if (rel.designation === 'spot') return hedgedItemBySpot(amount, quote, start, at);
  const byForward = (row: RateRow) => ({ ...row, spot: need(row, 'forward') });
  const forward = byForward(at);
  const discounted = hedgedItemBySpot(amount, quote, byForward(start), forward);
  const factor = need(at, 'discountFactor');
  return toCents([discounted * factor[0], 100n * factor[1]]);
}
