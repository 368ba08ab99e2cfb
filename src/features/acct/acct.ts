// The accounts' flows: what is recorded (relationships, their events, rates), and each relationship's periods computed
// from the rates, the desk's own hedges (history and positions) or fair values given in a file. Reads only: the
// server is never sent a write.
import { UsageError } from '../../core/errors.js';
import { utcDay } from '../../core/utc-text.js';
import { readNumber } from '../../core/number-format.js';
import { sameReference } from '../../core/input.js';
import type { CommandContext } from '../../platform/runtime/context.js';
import type { HedgeClient } from '../../platform/api/client.js';
import { readHistoryRecord } from '../../platform/api/wire/fields.js';
import type { HistoryFacts } from '../../core/wire.js';
import { readDeal, type DealHedges } from '../book/deal.js';
import { recordStanding } from '../book/book.js';
import { walkHistory } from '../report/report.js';
import { appendRecords, type AcctRecord } from './acct-store.js';
import type { Relationship, ValueLine } from './acct-files.js';
import { exact, exactNumber, sub, toCents, type Cents, type Exact } from './acct-money.js';
import {
  criticalTerms,
  deskValueAt,
  forwardPoints,
  forwardValues,
  hedgedItemBySpot,
  inFunctional,
  MissingRate,
  need,
  rollForward,
  type CriticalTermsInput,
  type DeskHedge,
  type PeriodValues,
  type Quote,
  type RateRow,
  type RelationshipRules,
} from './acct-rules.js';

/** What the accounting flows use of a command's context. */
type AcctPorts = Pick<CommandContext, 'client' | 'clock' | 'env' | 'credentials'>;

export interface AcctEvent {
  relationship_id: string;
  type: 'occurred' | 'de-designated';
  date: string;
  reason?: string;
  still_expected?: boolean;
}

export interface Designation {
  relationship: Relationship;
  recordedAt: string;
  recordedLate?: string;
  hash: string;
  events: AcctEvent[];
}

interface MarketRates {
  quote: string;
  rows: Map<string, RateRow>;
}

/** What the records say: each relationship with its events, and each market's rates. */
export function recorded(records: readonly AcctRecord[]) {
  const relationships = new Map<string, Designation>();
  const rates = new Map<string, MarketRates>();
  for (const record of records) {
    const body = record.body as Record<string, never>;
    if (record.kind === 'designation')
      relationships.set(body.relationship['id'], {
        relationship: body.relationship,
        recordedAt: record.recorded_at,
        recordedLate: body.recorded_late,
        hash: record.hash,
        events: [],
      });
    else if (record.kind === 'event') relationships.get(body.relationship_id)?.events.push(record.body as never);
    else if (record.kind === 'rates') {
      const market = rates.get(body.market) ?? { quote: body.quote, rows: new Map() };
      for (const row of body.rows as Array<Record<string, string>>) market.rows.set(row.date, rateRow(row));
      rates.set(body.market, market);
    } else if (record.kind === 'correction') {
      // A correction stands in for what it corrects from then on; the record it corrects stays as it was.
      if (body.of === 'rates')
        for (const row of body.rows as Array<Record<string, string>>)
          rates.get(body.market)?.rows.set(row.date, rateRow(row));
      else {
        const found = relationships.get(body.relationship_id);
        if (found) found.events = [body.event];
      }
    }
  }
  return { relationships, rates };
}

function rateRow(row: Record<string, string>): RateRow {
  const read = (text: string | undefined) => (text ? exact(text) : undefined);
  const carry = row.carry as unknown as Record<string, string> | undefined;
  return {
    date: row.date,
    spot: exact(row.spot)!,
    forward: read(row.forward),
    discountFactor: read(row.discount_factor),
    source: row.source,
    ...(row.at && { at: row.at }),
    ...(carry && { carry: new Map(Object.entries(carry).map(([id, text]) => [id, exact(text)!])) }),
  };
}

export const todayOf = utcDay;

const QUOTE = /^([A-Z]{3,5}) per ([A-Z]{3,5})$/;

/** `"NGN per USDT"`: how a market's rates read (the first currency's units for one of the second). */
export function parseQuote(raw: string | undefined) {
  const value = raw?.trim().replace(/\s+/g, ' ').toUpperCase().replace(' PER ', ' per ');
  if (!value || !QUOTE.test(value))
    throw new UsageError('--quote: missing or not allowed; expected the quote direction once, such as "NGN per USDT".');
  return value;
}

/** How the market's rates turn the hedged item's currency into the functional currency. */
export function quoteFor(relationship: Relationship, quote: string): Quote {
  const [, units, per] = QUOTE.exec(quote)!;
  const currency = relationship.hedged_item.currency;
  if (currency !== units && currency !== per)
    throw new UsageError(
      `hedged_item.currency: ${currency} is not a currency of ${relationship.market}'s rates (${quote}); expected ${per} or ${units}.`,
    );
  return { functionalPerForeign: currency === per };
}

// ---- Designation and events ----

/** The hedges carrying `reference` (`all`), and of them those the side model holds live (`live`): a filled one the
 * history lists closed is not (a server may leave an early-closed hedge `filled`), the history read only then, up to
 * the last of them. */
async function referenceHedges(client: HedgeClient, reference: string) {
  const deal = await readDeal(client, reference);
  if (deal.error !== undefined) throw deal.error;
  const filled = new Set(
    deal.live().flatMap((hedge) => (recordStanding(hedge).standing === 'filled' ? [hedge.id] : [])),
  );
  const ended = new Set<string>();
  if (filled.size)
    await walkHistory(client, {}, (raw) => {
      const id = readHistoryRecord(raw).hedgeId;
      if (id !== undefined && filled.has(id)) ended.add(id);
      return ended.size < filled.size;
    });
  return { live: deal.live(ended).length, all: deal.hedges.length };
}

/** Refuses a relationship that cannot be recorded (one line naming the field), then records it with its hash;
 * `beforeRecord` is given it sealed, before it is recorded (a memo written first: when that fails, nothing is). */
export async function designate(
  ctx: AcctPorts,
  relationship: Relationship,
  recordedLate: string | undefined,
  beforeRecord?: (designation: Designation) => void,
) {
  const { instrument } = relationship;
  // The references are checked against the hedge records (a read) before anything is recorded; the books' today is
  // then the server's, learned from those answers.
  let today = todayOf(ctx.clock.now());
  if ('references' in instrument) {
    const client = await ctx.client();
    for (const reference of instrument.references) {
      const found = await referenceHedges(client, reference);
      if (found.all === 0)
        throw new UsageError(
          `instrument.references: no hedge carries ${reference}; expected references your hedges carry (see hedge hedges --ref ${reference}).`,
        );
      if (found.live === 0 && recordedLate === undefined)
        throw new UsageError(
          `instrument.references: every hedge carrying ${reference} is already closed; a designation names hedges still held, or give --recorded-late REASON.`,
        );
    }
    today = todayOf(client.transport.serverNow().bestMs);
  }
  const at = relationship.designated_at;
  if (at > today)
    throw new UsageError(
      `designated_at: ${at} is in the future; a designation is dated the day it is recorded (${today}).`,
    );
  if (at < today && recordedLate === undefined)
    throw new UsageError(
      `designated_at: ${at} is before today (${today}), the day it is recorded; documentation is contemporaneous: date it ${today}, or give --recorded-late REASON for a relationship brought over from elsewhere.`,
    );
  if (relationship.hedged_item.expected_date < at)
    throw new UsageError(`hedged_item.expected_date: before designated_at; expected a date on or after ${at}.`);
  if ('notional' in instrument && instrument.currency !== relationship.hedged_item.currency)
    throw new UsageError(
      `instrument.currency: ${instrument.currency} is not the hedged item's currency (${relationship.hedged_item.currency}); expected the currency the forward delivers.`,
    );
  const [record] = await appendRecords(
    ctx,
    'designation',
    (records) => {
      if (recorded(records).relationships.has(relationship.id))
        throw new UsageError(
          `id: ${relationship.id} is already designated; a relationship is never edited: de-designate it (hedge acct event ${relationship.id} --de-designate DATE --reason …) and designate a new one under another id.`,
        );
      return [{ relationship, ...(recordedLate !== undefined && { recorded_late: recordedLate }) }];
    },
    beforeRecord && (([sealed]) => beforeRecord(recorded([sealed]).relationships.get(relationship.id)!)),
  );
  return recorded([record]).relationships.get(relationship.id)!;
}

/** Records that the hedged transaction happened, or a de-designation; with `correction`, the reason the relationship's
 * recorded event is replaced by this one (an appended correction: the earlier record stays). */
export async function recordEvent(ctx: AcctPorts, event: AcctEvent, correction?: { reason: string }) {
  const today = todayOf(ctx.clock.now());
  const option = event.type === 'occurred' ? '--occurred' : '--de-designate';
  if (event.date > today)
    throw new UsageError(
      `${option}: ${event.date} is after today (${today}); an event is recorded once it has happened.`,
    );
  await appendRecords(ctx, correction ? 'correction' : 'event', (records) => {
    const found = recorded(records).relationships.get(event.relationship_id);
    if (!found)
      throw new UsageError(`id: no relationship ${event.relationship_id} is designated (hedge acct test lists them).`);
    if (event.date < found.relationship.designated_at)
      throw new UsageError(`${option}: before the designation (${found.relationship.designated_at}).`);
    // An event ends a relationship: it has one at most.
    const [ended] = found.events;
    if (correction) {
      if (!ended)
        throw new UsageError(
          `--correct: ${event.relationship_id} has no event to correct; record it without --correct.`,
        );
      return [{ of: 'event', relationship_id: event.relationship_id, event: { ...event }, reason: correction.reason }];
    }
    if (ended)
      throw new UsageError(
        `id: ${event.relationship_id} already ended (${ended.type} ${ended.date}); a relationship is never edited: correct its event with --correct --reason TEXT.`,
      );
    return [{ ...event }];
  });
}

/** Appends a market's rates; a date already recorded with other figures is refused (recorded rates never change); with
 * `correction`, the dates recorded with other figures are corrected (an appended correction: the earlier record stays). */
export async function recordRates(
  ctx: AcctPorts,
  market: string,
  quote: string,
  rows: Array<Record<string, string>>,
  correction?: { reason: string },
) {
  let added = 0;
  if (correction) {
    await appendRecords(ctx, 'correction', (records) => {
      const existing = recorded(records).rates.get(market);
      const missing = rows.find((row) => !existing?.rows.has(row.date));
      if (missing)
        throw new UsageError(
          `--correct: no rate of ${market} is recorded for ${missing.date}; import it without --correct.`,
        );
      const changed = rows.filter((row) => !sameRate(existing!.rows.get(row.date)!, rateRow(row)));
      added = changed.length;
      return changed.length ? [{ of: 'rates', market, rows: changed, reason: correction.reason }] : [];
    });
    return added;
  }
  await appendRecords(ctx, 'rates', (records) => {
    const existing = recorded(records).rates.get(market);
    if (existing && existing.quote !== quote)
      throw new UsageError(
        `--quote: ${market}'s rates are recorded as ${existing.quote}; expected the same direction.`,
      );
    const fresh = rows.filter((row) => {
      const earlier = existing?.rows.get(row.date);
      if (!earlier) return true;
      if (!sameRate(earlier, rateRow(row)))
        throw new UsageError(
          `date: ${row.date} is recorded already with other rates for ${market}; recorded rates are never changed: correct them with --correct --reason TEXT.`,
        );
      return false;
    });
    added = fresh.length;
    return fresh.length ? [{ market, quote, rows: fresh }] : [];
  });
  return added;
}

/** The same figures (1.2 and 1.20 are one rate) are no change. */
function sameRate(earlier: RateRow, later: RateRow) {
  return (['spot', 'forward', 'discountFactor'] as const).every((key) => {
    const [x, y] = [earlier[key], later[key]];
    return x === undefined || y === undefined ? x === y : x[0] * y[1] === y[0] * x[1];
  });
}

// ---- Periods ----

/** The period ends: the last (`until`, or the day the relationship ended, if earlier) and every date before it a rate
 * is recorded for after the designation (the dates the books are valued at), in order. */
function periodEnds({ relationship, events: [ended] }: Designation, until: string, rateDates: Iterable<string>) {
  const last = ended && ended.date < until ? ended.date : until;
  const valued = [...rateDates].filter((date) => date > relationship.designated_at && date < last);
  // No period ends on or before the designation: the books are measured from it.
  return [...new Set(valued), ...(last > relationship.designated_at ? [last] : [])].sort();
}

export function rulesOf(designation: Designation, amortisation?: RelationshipRules['amortisation']): RelationshipRules {
  const { relationship: rel, events } = designation;
  const occurred = events.find((event) => event.type === 'occurred');
  const ended = events.find((event) => event.type === 'de-designated');
  return {
    framework: rel.framework,
    method: rel.method,
    excluded: rel.excluded,
    kind: rel.hedged_item.kind,
    designatedAt: rel.designated_at,
    ...(amortisation && { amortisation }),
    ...(occurred && { occurred: occurred.date }),
    ...(ended && { deDesignated: { date: ended.date, stillExpected: ended.still_expected !== false } }),
  };
}

const cents = (text: string | undefined) => (text === undefined ? 0n : toCents(exact(text)!));

/** The relationship's periods from a values file: one a date of the file. */
export function fromValues(designation: Designation, lines: readonly ValueLine[]) {
  const periods: PeriodValues[] = lines.map((line) => ({
    end: line.date,
    instrument: cents(line.instrument_value),
    hedgedItem: cents(line.hedged_item_value),
    excluded: cents(line.excluded_value),
    fees: 0n,
  }));
  const early = lines.find((line) => line.date <= designation.relationship.designated_at);
  if (early)
    throw new UsageError(
      `--values: ${early.date} is not after the designation (${designation.relationship.designated_at}); values are cumulative since then.`,
    );
  return rollForward(periods, rulesOf(designation));
}

/** A relationship's periods, the rate each period end was valued at (none for values from a file), its hedges and
 * currency, and its critical terms where that is its method. */
export type Computed = Awaited<ReturnType<typeof compute>>;

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
    const { hedgeId, clientReference } = facts;
    // A record carries a reference itself, or is of a hedge that does.
    const carries = deals.some(
      (deal) => (hedgeId !== undefined && deal.referenceOf(hedgeId)) || sameReference(clientReference, deal.reference),
    );
    if (carries && facts.closedAt) closed.set(hedgeId ?? `closed ${facts.closedAt}`, facts);
  });
  const ms = (text: unknown) => (typeof text === 'string' ? Date.parse(text) : NaN);
  const num = (value: number | undefined) => (value === undefined ? undefined : exactNumber(value));
  const hedges: DeskHedge[] = [];
  const unreadable: string[] = [];
  const records = new Map(deals.flatMap((deal) => deal.hedges.map((hedge) => [hedge.id, hedge] as const)));
  for (const id of new Set([...records.keys(), ...closed.keys()])) {
    const record = records.get(id);
    const done = closed.get(id);
    // Never filled: no exposure to value.
    if (!done && (!record || !['filled', 'closed'].includes(String(record.status)))) continue;
    const side = done?.side ?? record?.side;
    const notional = num(done?.notionalUsd ?? readNumber(record?.notional_usd));
    const openedMs = ms(record?.filled_at ?? record?.opened_at ?? done?.openedAt);
    const entry = num(readNumber(record?.struck_rate) ?? done?.entryPrice);
    if (!side || !notional || Number.isNaN(openedMs) || (record?.status === 'closed' && !done)) {
      unreadable.push(id);
      continue;
    }
    hedges.push({
      id,
      side,
      notional,
      ...(entry && { entry }),
      openedMs,
      ...(done && {
        closed: {
          atMs: ms(done.closedAt),
          gross: num(done.grossPnlUsd) ?? [0n, 1n],
          carry: num(done.carryUsd) ?? [0n, 1n],
          fees: num(done.feesUsd) ?? [0n, 1n],
        },
      }),
    });
  }
  if (unreadable.length)
    throw new UsageError(
      `instrument.references: ${unreadable.join(', ')} cannot be valued (no side, notional, fill time or history record); the relationship is not valued without them.`,
    );
  // The live hedges' terms, for a critical-terms comparison: their notional, last maturity and markets.
  const live = { notionalUsd: 0, maturity: null as string | null, markets: new Set<string>() };
  const ended = new Set(closed.keys());
  for (const hedge of new Map(deals.flatMap((deal) => deal.live(ended).map((h) => [h.id, h] as const))).values()) {
    live.notionalUsd += readNumber(hedge.notional_usd) ?? 0;
    live.markets.add(hedge.market);
    const maturity = typeof hedge.maturity_at === 'string' ? utcDay(hedge.maturity_at) : null;
    if (maturity !== null && maturity > (live.maturity ?? '')) live.maturity = maturity;
  }
  return { hedges, live };
}

/** The relationship's periods up to `until` (today when not given: the server's, for the desk's hedges), valued from
 * the rates (and the desk's hedges where they are its instrument). */
export async function compute(
  ctx: AcctPorts,
  designation: Designation,
  rates: Map<string, MarketRates>,
  until: string | undefined,
  option: string,
) {
  const rel = designation.relationship;
  const market = rates.get(rel.market);
  // A rate of the market for `date`, or a refusal naming the date.
  const rateOn = (date: string) => {
    const row = market?.rows.get(date);
    if (!row)
      throw new UsageError(
        `${option}: no rate of ${rel.market} for ${date}; import it (hedge acct rates FILE --market ${rel.market} --quote "…") or, for today, record it (hedge acct rates --record --market ${rel.market}).`,
      );
    return row;
  };
  const start = rateOn(rel.designated_at);
  const quote = quoteFor(rel, market!.quote);
  const used = new Map<string, RateRow>();
  // Each period end up to `last` with the rate it is valued at (every one read before any is valued).
  const valued = (last: string) =>
    periodEnds(designation, last, market!.rows.keys()).map(
      (end) => [end, used.set(end, rateOn(end)).get(end)!] as const,
    );
  const amount = exact(rel.hedged_item.amount)!;
  const { instrument } = rel;
  let periods: PeriodValues[];
  let spread: RelationshipRules['amortisation'];
  let hedgeIds: string[] = [];
  let instrumentTerms: CriticalTermsInput['instrument'];
  // The instrument's amount in the hedged item's currency: converted at the designation's spot when it is in another.
  const inItemCurrency = (notional: Exact, currency: string) =>
    currency === rel.hedged_item.currency
      ? notional
      : inFunctional(notional, start.spot, { functionalPerForeign: !quote.functionalPerForeign });
  try {
    if ('notional' in instrument) {
      const terms = {
        hedgedAmount: amount,
        notional: exact(instrument.notional)!,
        contractRate: exact(instrument.contract_rate)!,
        designation: rel.designation,
      };
      periods = valued(until ?? todayOf(ctx.clock.now())).map(([end, at]) => ({
        end,
        ...forwardValues(terms, quote, start, at),
        fees: 0n,
      }));
      // The forward points of a time-period related item (a recognised one) are spread over the forward's life.
      if (
        rel.designation === 'spot' &&
        rel.excluded === 'cost_of_hedging_reserve' &&
        rel.hedged_item.kind === 'recognised'
      )
        spread = { total: forwardPoints(terms, quote, start), from: rel.designated_at, to: instrument.maturity };
      instrumentTerms = {
        amount: inItemCurrency(terms.notional, instrument.currency),
        currency: instrument.currency,
        maturity: instrument.maturity,
        market: rel.market,
      };
    } else {
      const client = await ctx.client();
      const desk = await deskHedges(client, instrument.references);
      hedgeIds = desk.hedges.map((hedge) => hedge.id);
      // Read after the hedges: the server's day, from its answers.
      const today = todayOf(client.transport.serverNow().bestMs);
      const valueAt = deskValuer(rel, market!, desk.hedges);
      const atDesignation = valueAt(start);
      periods = valued(until ?? today).map(([end, at]) => {
        const value = valueAt(at);
        const since = (key: 'instrument' | 'excluded' | 'fees') => toCents(sub(value[key], atDesignation[key]));
        return {
          end,
          instrument: since('instrument'),
          excluded: since('excluded'),
          fees: since('fees'),
          hedgedItem: itemChange(rel, quote, amount, start, at),
        };
      });
      const markets = [...desk.live.markets];
      instrumentTerms = {
        amount: inItemCurrency(exact(String(desk.live.notionalUsd))!, 'USD'),
        currency: 'USD',
        maturity: desk.live.maturity,
        market: markets.length ? markets.join(' ') : null,
      };
    }
  } catch (error) {
    if (error instanceof MissingRate)
      throw new UsageError(
        `${option}: ${rel.market}'s rate for ${error.date} has no ${error.column}; the ${rel.designation} designation needs it.`,
      );
    throw error;
  }
  return {
    designation,
    results: rollForward(periods, rulesOf(designation, spread)),
    rates: used,
    hedgeIds,
    currency: functionalCurrency(rel, market!.quote),
    ...(rel.method === 'critical_terms' && {
      criticalTerms: criticalTerms({
        instrument: instrumentTerms,
        ratio: exact(rel.ratio)!,
        item: {
          amount,
          currency: rel.hedged_item.currency,
          expectedDate: rel.hedged_item.expected_date,
          market: rel.market,
        },
      }),
    }),
  };
}

/** The desk hedges' value at each recorded rate, exact, in the functional currency: translated at that rate. */
function deskValuer(rel: Relationship, market: MarketRates, hedges: readonly DeskHedge[]) {
  const markMs = (row: RateRow) => Date.parse(row.at ?? `${row.date}T23:59:59.999Z`);
  // Each hedge's latest recorded carry, for a rate recorded without it (imported, or read before it opened).
  const observed = new Map<string, { atMs: number; carry: Exact }>();
  for (const row of [...market.rows.values()].sort((a, b) => markMs(a) - markMs(b)))
    for (const [id, carry] of row.carry ?? []) observed.set(id, { atMs: markMs(row), carry });
  const [, units, per] = QUOTE.exec(market.quote)!;
  const functional = functionalCurrency(rel, market.quote);
  return (row: RateRow) => {
    const value = deskValueAt(
      hedges,
      { date: row.date, spot: row.spot, atMs: markMs(row), carry: row.carry ?? new Map() },
      observed,
    );
    if (value.unknown.length)
      throw new UsageError(
        `${rel.id}: ${value.unknown.join(', ')} was open at ${row.at ?? `the end of ${row.date}`} with no entry price or carry recorded for it; record ${rel.market}'s rate while it is open (hedge acct rates --record --market ${rel.market}).`,
      );
    if (functional === 'USD') return value;
    // The hedges settle in USD: translated at the rate itself.
    const quote = { functionalPerForeign: asFunctional(per) === 'USD' };
    if (asFunctional(quote.functionalPerForeign ? units : per) !== functional)
      throw new UsageError(
        `functional_currency: ${functional} is not a currency of ${rel.market}'s rates (${market.quote}) beside USD; the desk's hedges settle in USD.`,
      );
    const translate = (amount: Exact) => inFunctional(amount, row.spot, quote);
    return {
      instrument: translate(value.instrument),
      excluded: translate(value.excluded),
      fees: translate(value.fees),
    };
  };
}

function itemChange(rel: Relationship, quote: Quote, amount: Exact, start: RateRow, at: RateRow): Cents {
  if (rel.designation === 'spot') return hedgedItemBySpot(amount, quote, start, at);
  const byForward = (row: RateRow) => ({ ...row, spot: need(row, 'forward') });
  const forward = byForward(at);
  const discounted = hedgedItemBySpot(amount, quote, byForward(start), forward);
  const factor = need(at, 'discountFactor');
  return toCents([discounted * factor[0], 100n * factor[1]]);
}

/** USDT and USDC are read as USD: a company's books are kept in a currency, not a token. */
export const asFunctional = (currency: string) => (currency === 'USDT' || currency === 'USDC' ? 'USD' : currency);

/** The relationship's functional currency: as its file names it, else the rates' other currency than the item's. */
export function functionalCurrency(rel: Relationship, quote: string) {
  const [, units, per] = QUOTE.exec(quote)!;
  return asFunctional(rel.functional_currency ?? (rel.hedged_item.currency === per ? units : per));
}

/** `2026-11`, `2026-Q4` or `2026`: the first and last day of the period. */
export function parsePeriod(raw: string | undefined) {
  const [, year, month, quarter] = /^(\d{4})(?:-(0[1-9]|1[0-2])|-Q([1-4]))?$/i.exec(raw?.trim() ?? '') ?? [];
  // From the first month of the period, for one, three or twelve months.
  const first = month ? Number(month) - 1 : quarter ? (Number(quarter) - 1) * 3 : 0;
  const months = month ? 1 : quarter ? 3 : 12;
  if (year)
    return { from: utcDay(Date.UTC(Number(year), first, 1)), to: utcDay(Date.UTC(Number(year), first + months, 0)) };
  throw new UsageError(
    '--period: missing or not allowed; expected a month (2026-11), a quarter (2026-Q4) or a year (2026).',
  );
}
