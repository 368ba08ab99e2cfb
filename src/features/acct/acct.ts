// The accounts' flows: what is recorded (the group's entities, relationships, their events, rates), and each
// relationship's periods computed from the rates, the desk's own hedges (history and positions) or fair values given
// in a file. Reads only: the server is never sent a write.
import { UsageError } from '../../core/errors.js';
import { utcDay } from '../../core/utc-text.js';
import { DE_DESIGNATION_GROUNDS } from '../../core/vocabulary.js';
import { notAllowed, sameReference } from '../../core/input.js';
import { asFunctional, findMarket, pairOf } from '../../core/markets.js';
import type { CommandContext } from '../../platform/runtime/context.js';
import type { HedgeClient } from '../../platform/api/client.js';
import { readHistoryRecord } from '../../platform/api/wire/fields.js';
import { readDeal } from '../book/deal.js';
import { recordStanding } from '../book/book.js';
import { walkHistory } from '../report/report.js';
import {
  appendRecords,
  madeBy,
  noKeyConfigured,
  ratesMarketOf,
  readRecords,
  type AcctRecord,
  type RatesNeeded,
  type RatesOf,
} from './acct-store.js';
import { approvals, awaitsSaid, heldOf, pendingProblem } from './acct-approval.js';
import type { Entity, RatesFileRow, Relationship } from './acct-files.js';
import {
  absCents,
  add,
  centsText,
  div,
  exact,
  exactNumber,
  MAX_CENTS,
  sub,
  toCents,
  type Exact,
} from './acct-money.js';
import { ruleOf, type RateRow, type RuleEvent } from './acct-rules.js';

/** What the accounting flows use of a command's context. */
export type AcctPorts = Pick<CommandContext, 'client' | 'clock' | 'env' | 'credentials' | 'journal' | 'journalChoice'>;

export interface AcctEvent {
  relationship_id: string;
  type: 'occurred' | 'disposed' | 'de-designated' | 'rebalanced' | 'terminated';
  date: string;
  reason?: string;
  /** de-designated: on what grounds (DE_DESIGNATION_GROUNDS). */
  ground?: Ground;
  still_expected?: boolean;
  /** occurred, disposed: the share of the whole transaction or net investment (`share`) or its amount in the item's
   * currency (`amount`). */
  share?: string;
  amount?: string;
  /** rebalanced: the designated share of the instrument from then on. */
  ratio?: string;
}

export interface Designation {
  relationship: Relationship;
  recordedAt: string;
  /** Who recorded it (none for an older hedge's record made with a key from the environment). */
  recordedBy?: string;
  recordedLate?: string;
  hash: string;
  events: AcctEvent[];
  /** The desk's hedges held when it was designated, as the memo names them. */
  hedges: HeldHedge[];
  /** A test that failed in a closed period (IAS 39, ASC 815): hedge accounting ended there, and the memo says so. */
  failed?: Array<{ date: string; line: string }>;
}

type HeldHedge = Awaited<ReturnType<typeof referenceHedges>>['held'][number];

export interface MarketRates {
  quote: string;
  rows: Map<string, RateRow>;
}

/** A period closed: what `test`, `reserve` and `journal` printed for it then, printed as it is from then on. */
export interface Close {
  /** The entity whose books were closed (none: the books of relationships that name none, no entity declared). */
  entity?: string;
  period: string;
  from: string;
  to: string;
  test: Array<Record<string, unknown>>;
  reserve: Array<Record<string, unknown>>;
  journal: Array<Record<string, unknown>>;
}

/** What the records say: each relationship with its events, each market's rates, and the periods closed; a record four
 * eyes holds counts once approved (`approval`: the pending ones, and each record's decision). */
export function recorded(records: readonly AcctRecord[]) {
  const relationships = new Map<string, Designation>();
  const rates = new Map<string, MarketRates>();
  /** Each event record's place, for a correction naming it. */
  const events = new Map<number, { designation: Designation; event: AcctEvent }>();
  const closes: Close[] = [];
  const entities = new Map<string, Entity>();
  const approval = approvals(records);
  for (const record of records) {
    const body = record.body as Record<string, never>;
    if (!approval.counts(record) || record.kind === 'policy') continue;
    if (record.kind === 'close') closes.push(body as never);
    else if (record.kind === 'entity') entities.set(body.code, body as never);
    else if (record.kind === 'designation') relationships.set(body.relationship['id'], designationOf(record));
    else if (record.kind === 'event') {
      const designation = relationships.get(body.relationship_id);
      if (designation) {
        designation.events.push(body as never);
        events.set(record.seq, { designation, event: body as never });
      }
    } else if (ratesMarketOf(record) !== undefined) {
      // A correction stands in for what it corrects from then on; the record it corrects stays as it was.
      const market = rates.get(body.market) ?? { quote: body.quote, rows: new Map() };
      // A correction restating every date under a new quote says it.
      if (body.quote) market.quote = body.quote;
      for (const row of body.rows as Array<Record<string, string>>) market.rows.set(row.date, rateRow(row));
      rates.set(body.market, market);
    } else {
      const at = events.get(body.record);
      if (at) {
        const list = at.designation.events;
        list[list.indexOf(at.event)] = at.event = body.event;
        list.sort((a, b) => a.date.localeCompare(b.date));
      }
    }
  }
  for (const close of closes)
    for (const row of close.test)
      if (row.status === 'failed') {
        const designation = relationships.get(String(row.relationship_id));
        designation?.failed?.push({ date: String(row.period_end), line: String(row.line) });
      }
  return { relationships, rates, closes, entities, eventRecords: events, approval };
}
export type Recorded = ReturnType<typeof recorded>;

/** What the environment's records say, of the rates those `rates` names. */
export const readState = async (ctx: Parameters<typeof readRecords>[0], rates: RatesNeeded) =>
  recorded(await readRecords(ctx, rates));

/** Only the rates named (a market's whole, or of some years) beside every other record. */
export const ratesOf =
  (...rates: RatesOf[]): RatesNeeded =>
  () =>
    rates;

/** Of the rates, the quotes alone of the markets the relationships given are on: the currency their books are in. */
export const quotesOf = (designations: Iterable<Designation>): RatesOf[] =>
  [...designations].map(({ relationship: rel }) => ({ market: rel.market, years: [] }));

/** A decimal given as text, exactly; none for none (or an empty cell). */
const exactOf = (text: string | undefined) => (text ? exact(text) : undefined);

function rateRow(row: Record<string, string>): RateRow {
  const carry = row.carry as unknown as Record<string, string> | undefined;
  return {
    date: row.date,
    spot: exact(row.spot)!,
    forward: exactOf(row.forward),
    discountFactor: exactOf(row.discount_factor),
    source: row.source,
    ...(row.at && { at: row.at }),
    ...(carry && { carry: new Map(Object.entries(carry).map(([id, text]) => [id, exact(text)!])) }),
  };
}

export const QUOTE = /^([A-Z]{3,5}) per ([A-Z]{3,5})$/;

/** `"NGN per USDT"`: how a market's rates read (the first currency's units for one of the second). */
export function parseQuote(raw: string | undefined) {
  const value = raw?.trim().replace(/\s+/g, ' ').toUpperCase().replace(' PER ', ' per ');
  if (!value || !QUOTE.test(value))
    throw new UsageError('--quote: missing or not allowed; expected the quote direction once, such as "NGN per USDT".');
  return value;
}

/** How the market's rates turn the hedged item's currency into the functional currency. */
export function quoteFor(relationship: Relationship, quote: string) {
  const [, units, per] = QUOTE.exec(quote)!;
  const currency = asFunctional(relationship.hedged_item.currency);
  if (currency !== asFunctional(units) && currency !== asFunctional(per))
    throw new UsageError(
      `hedged_item.currency: ${relationship.hedged_item.currency} is not a currency of ${relationship.market}'s rates (${quote}); expected ${per} or ${units}.`,
    );
  return { functionalPerForeign: currency === asFunctional(per) };
}

/** A market's two currencies: as the markets list or its id tells them (pairOf), else its name read as two codes
 * (`EURUSD`); undefined when neither does. Its price reads as `quote per base`. */
export function marketPair(market: string, listed?: Readonly<Record<string, unknown>>) {
  const named = /^(USDT|USDC|USD|[A-Z]{3})([A-Z]{3,5})$/.exec(market);
  return pairOf(market, listed) ?? (named ? { base: named[1], quote: named[2] } : undefined);
}

// ---- Designation and events ----

/** A hedge's maturity as a UTC day, where its record gives one. */
export const maturityDay = (hedge: { maturity_at?: unknown }) =>
  typeof hedge.maturity_at === 'string' ? utcDay(hedge.maturity_at) : null;

/** The hedges carrying `reference` (`all` counts them), and of them those the side model holds live (`held`): a
 * filled one the history lists closed is not (a server may leave an early-closed hedge `filled`), the history read only
 * then, up to the last of them. */
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
  // What the memo names of each hedge still held: its own record's terms.
  const held = deal.live(ended).map((hedge) => ({
    id: hedge.id,
    side: hedge.side,
    notional_usd: String(hedge.notional_usd),
    entry_rate: hedge.struck_rate == null ? null : String(hedge.struck_rate),
    maturity: maturityDay(hedge),
  }));
  return { all: deal.hedges.length, held, markets: new Set(deal.hedges.map((hedge) => hedge.market.toUpperCase())) };
}

/** Refuses a relationship that cannot be recorded (one line naming the field), then records it with its hash;
 * `beforeRecord` is given it sealed, before it is recorded (a memo written first: when that fails, nothing is). */
export async function designate(
  ctx: AcctPorts,
  relationship: Relationship,
  {
    recordedLate,
    by,
    beforeRecord,
  }: { recordedLate?: string; by?: string; beforeRecord?: (designation: Designation) => void },
) {
  const { instrument, market } = relationship;
  // The references are checked against the hedge records (a read) before anything is recorded; the books' today is
  // then the server's, learned from those answers.
  let today: string;
  const held: HeldHedge[] = [];
  if ('references' in instrument) {
    const client = await ctx.client();
    for (const reference of instrument.references) {
      const found = await referenceHedges(client, reference);
      if (found.all === 0)
        throw new UsageError(
          `instrument.references: no hedge carries ${reference}; expected references your hedges carry (see hedge hedges --ref ${reference}).`,
        );
      if (!found.held.length && recordedLate === undefined)
        throw new UsageError(
          `instrument.references: every hedge carrying ${reference} is already closed; a designation names hedges still held, or give --recorded-late REASON.`,
        );
      const other = [...found.markets].find((each) => each !== market);
      if (other)
        throw new UsageError(
          `market: ${market} is not the market of the hedges carrying ${reference} (${other}); expected ${other}, whose rates value them.`,
        );
      held.push(...found.held);
    }
    today = serverDay(client);
  } else today = await booksToday(ctx);
  const at = relationship.designated_at;
  if (at > today)
    throw new UsageError(
      `designated_at: ${at} is in the future; a designation is dated the day it is recorded (${today}).`,
    );
  if (at < today && recordedLate === undefined)
    throw new UsageError(
      `designated_at: ${at} is before today (${today}), the day it is recorded; documentation is contemporaneous: date it ${today}, or give --recorded-late REASON for a relationship brought over from elsewhere.`,
    );
  if (exact(relationship.ratio)![0] > exact(relationship.ratio)![1])
    throw new UsageError(
      'ratio: the designated share of the instrument is at most 1; the rest of a larger instrument is left undesignated.',
    );
  for (const [field, text] of [
    ['hedged_item.amount', relationship.hedged_item.amount],
    ...('notional' in instrument ? [['instrument.notional', instrument.notional]] : []),
  ])
    if (absCents(toCents(exact(text)!)) > MAX_CENTS)
      throw new UsageError(
        `${field}: ${text} is past the largest amount hedge prints exactly; expected at most ${centsText(MAX_CENTS)}.`,
      );
  const problem = rulesProblem(relationship);
  if (problem) throw new UsageError(problem);
  if ('notional' in instrument && instrument.currency !== relationship.hedged_item.currency)
    throw new UsageError(
      `instrument.currency: ${instrument.currency} is not the hedged item's currency (${relationship.hedged_item.currency}); expected the currency the forward delivers.`,
    );
  let before: readonly AcctRecord[] = [];
  // Its market's quote, of the rates: the books' currency.
  const [record] = await appendRecords(
    ctx,
    'designation',
    ratesOf({ market, years: [] }),
    (records) => {
      before = records;
      const state = recorded(records);
      const { relationships, approval } = state;
      const waiting = pendingProblem(approval, relationship.id, 'id');
      if (waiting) throw new UsageError(waiting);
      if (relationships.has(relationship.id))
        throw new UsageError(
          `id: ${relationship.id} is already designated; a relationship is never edited: de-designate it (hedge acct event ${relationship.id} --de-designate DATE --reason …) and designate a new one under another id.`,
        );
      const quote = state.rates.get(market)?.quote;
      const problem = currencyProblem(relationship, quote) ?? entityProblem(relationship, state, quote);
      if (problem) throw new UsageError(problem);
      sharesWithin(relationship, relationships.values(), today);
      return [
        {
          relationship,
          ...(recordedLate !== undefined && { recorded_late: recordedLate }),
          ...(held.length && { hedges: held }),
        },
      ];
    },
    { by, beforeWrite: beforeRecord && (([sealed]) => beforeRecord(designationOf(sealed))) },
  );
  return { ...designationOf(record), held: heldOf(before, [record]) };
}

/** A designation record as the books read it (approved or not). */
export const designationOf = (record: AcctRecord): Designation => {
  const body = record.body as { relationship: Relationship; recorded_late?: string; hedges?: HeldHedge[] };
  return {
    relationship: body.relationship,
    recordedAt: record.recorded_at,
    ...(madeBy(record) !== undefined && { recordedBy: madeBy(record) }),
    recordedLate: body.recorded_late,
    hash: record.hash,
    events: [],
    hedges: body.hedges ?? [],
    failed: [],
  };
};

/** Refuses a relationship whose hedges' designated shares, with those of the live relationships holding the same
 * hedges (a reference in common), would come to more than the whole of them, naming those relationships. */
function sharesWithin(rel: Relationship, others: Iterable<Designation>, today: string) {
  if (!('references' in rel.instrument)) return;
  const mine = rel.instrument.references;
  const sharing = [...others].filter((other) => {
    const { instrument } = other.relationship;
    const ended = lifeOf(other).endedOn;
    return (
      'references' in instrument &&
      instrument.references.some((reference) => mine.some((own) => sameReference(own, reference))) &&
      (ended === undefined || ended >= today)
    );
  });
  const total = sharing.reduce((sum, other) => add(sum, exact(other.relationship.ratio)!), exact(rel.ratio)!);
  if (total[0] > total[1])
    throw new UsageError(
      `ratio: ${rel.ratio} of the hedges carrying ${mine.join(', ')} with ${sharing.map((other) => `${other.relationship.id}'s ${other.relationship.ratio}`).join(' and ')} designates more than the whole of them; the shares of one hedge across live relationships are at most 1 (de-designate ${sharing.map((other) => other.relationship.id).join(', ')}, or designate a smaller share).`,
    );
}

/** What the market's currencies refuse of a relationship (one line naming the field), or nothing: the item's currency
 * is one of the market's (its recorded rates', else its name's), the books' currency too, and not the item's (no
 * currency risk). Without a rate of the market recorded, the books' currency is named: a relationship valued from a
 * file has nothing else to tell it. */
function currencyProblem(rel: Relationship, quote: string | undefined) {
  const { market, functional_currency: named, hedged_item: item } = rel;
  if (!quote && !named)
    return `functional_currency: no rate of ${market} is recorded to tell the books' currency; name it (such as "NGN"), or record ${market}'s rates first (hedge acct rates).`;
  const quoted = quote && QUOTE.exec(quote);
  const pair = quoted ? { base: quoted[2], quote: quoted[1] } : marketPair(market);
  const among = (code: string) =>
    !pair || [pair.base, pair.quote].some((each) => asFunctional(each) === asFunctional(code));
  const allowed = pair && `${market}'s currencies, ${pair.base} or ${pair.quote} (USDT and USDC read as USD)`;
  if (!among(item.currency))
    return `hedged_item.currency: ${item.currency} is not one of ${allowed}; expected one of them.`;
  if (named && !among(named))
    return `functional_currency: ${named} is not one of ${allowed}; expected the one the books are kept in.`;
  const books = named ? asFunctional(named) : functionalCurrency(rel, quote!);
  if (asFunctional(item.currency) === books)
    return `hedged_item.currency: ${item.currency} is the books' own currency (${books}), which carries no currency risk; expected an item in ${market}'s other currency.`;
}

/** What the rules table refuses of a relationship (one line naming the field), or nothing: what its kind of hedge takes
 * (the hedged items, their fields), then what its framework's row allows. */
function rulesProblem(rel: Relationship) {
  const rules = ruleOf(rel.framework, rel.type);
  const item = rel.hedged_item;
  if (!(rules.items as readonly string[]).includes(item.kind))
    return `hedged_item.kind: ${item.kind} is not a ${rules.hedge}'s hedged item (${rules.cites.effective}); expected ${rules.items.join(' or ')}.`;
  const missing = rules.needs.find((field) => item[field] === undefined);
  if (missing) return `hedged_item.${missing}: missing; a ${rules.hedge}'s hedged item needs it.`;
  if (item.operation !== undefined && rel.type !== 'net_investment')
    return `hedged_item.operation: the foreign operation of a net investment; a ${rules.hedge} has none: leave it out.`;
  if (item.expected_date !== undefined && item.expected_date < rel.designated_at)
    return `hedged_item.expected_date: before designated_at; expected a date on or after ${rel.designated_at}.`;
  if (rel.method === 'critical_terms' && item.expected_date === undefined)
    return "method: critical_terms compares the instrument's maturity with the hedged item's date, and a net investment has none; expected dollar_offset_cumulative, dollar_offset_period or regression.";
  if (!(rules.excluded as readonly string[]).includes(rel.excluded))
    return `excluded: ${rel.excluded} is not ${rules.name}'s; expected ${rules.excluded.join(' or ')} (${rules.cites.excluded}).`;
  if (rel.on_occurrence !== undefined && rel.type !== 'cash_flow')
    return `on_occurrence: a ${rules.hedge}'s balance goes where its row says (${rules.cites.transaction}); leave it out.`;
  if (rel.on_occurrence === 'basis_adjustment' && rules.transaction === 'refused')
    return `on_occurrence: ${rules.name} reclassifies the reserve into earnings when the transaction affects them; a basis adjustment is not allowed (${rules.cites.transaction}): expected reclassify.`;
  if (rel.on_occurrence === 'reclassify' && basisRequired(rel))
    return `on_occurrence: ${rules.name} takes the reserve into the cost of a non-financial item (${rules.cites.transaction}(i)): expected basis_adjustment, or leave it out.`;
  if (rel.on_occurrence === 'basis_adjustment' && !buysAnAsset(rel))
    return 'on_occurrence: a basis adjustment is for a forecast purchase of a non-financial item (hedged_item.nature: non_financial, a negative amount); expected reclassify.';
  if (rel.maturity_match !== undefined && rel.framework !== 'asc815')
    return `maturity_match: ASC 815's choice (815-20-25-84); ${rules.name} compares a critical-terms maturity to the day: leave it out.`;
  if (rel.discount_hedged_item && rel.designation !== 'spot')
    return 'discount_hedged_item: for a spot designation; a forward designation discounts the hedged item already.';
  return undefined;
}

/** The entity whose books a relationship is in: the one it names, else the one declared to hold those that name none
 * (none while no entity is declared). */
export const entityOf = (rel: Relationship, entities: ReadonlyMap<string, Entity>) =>
  rel.entity ?? [...entities.values()].find((each) => each.default)?.code;

/** What the declared entities refuse of a relationship (one line naming the field), or nothing: the entity it names is
 * declared and its books are in that entity's currency; a net investment's operation is another declared entity,
 * whose currency the hedged net assets are in. */
function entityProblem(rel: Relationship, state: Recorded, quote: string | undefined) {
  const { entities } = state;
  const declared = `declared: ${[...entities.keys()].join(', ') || 'none'}; declare it first (hedge acct entities FILE)`;
  if (rel.entity !== undefined && !entities.has(rel.entity))
    return (
      pendingProblem(state.approval, rel.entity, 'entity') ??
      `entity: ${rel.entity} is not a declared entity (${declared}).`
    );
  const code = entityOf(rel, entities);
  if (code === undefined && entities.size)
    return `entity: missing; the books are kept by entity (${[...entities.keys()].join(', ')}): name the one this relationship is in.`;
  const books = code === undefined ? undefined : entities.get(code)!;
  const currency = rel.functional_currency ?? (quote && functionalCurrency(rel, quote));
  if (books && !currency)
    return `functional_currency: missing; ${code}'s books are in ${books.functional_currency}: name it.`;
  if (books && asFunctional(currency as string) !== asFunctional(books.functional_currency))
    return `functional_currency: ${currency as string} is not ${code}'s (its books are in ${books.functional_currency}); expected ${books.functional_currency}.`;
  const { operation, currency: held } = rel.hedged_item;
  if (operation === undefined) return undefined;
  const foreign = entities.get(operation);
  if (!foreign) return `hedged_item.operation: ${operation} is not a declared entity (${declared}).`;
  if (operation === code)
    return `hedged_item.operation: ${operation} is the relationship's own entity; a net investment is in another, a foreign operation.`;
  if (asFunctional(foreign.functional_currency) !== asFunctional(held))
    return `hedged_item.currency: ${held} is not ${operation}'s (its books are in ${foreign.functional_currency}); the net assets hedged are in the operation's currency.`;
  return undefined;
}

/** A forecast (or committed) purchase of a non-financial item: what becomes an asset whose cost the reserve adjusts. */
const buysAnAsset = (rel: Relationship) =>
  rel.hedged_item.nature === 'non_financial' &&
  rel.hedged_item.kind !== 'recognised' &&
  exact(rel.hedged_item.amount)![0] < 0n;

const basisRequired = (rel: Relationship) =>
  ruleOf(rel.framework, rel.type).transaction === 'required' && buysAnAsset(rel);

/** Where the balance goes when the transaction happens: the item's cost (IFRS 9's default for a non-financial item,
 * IAS 39's choice; a firm commitment's fair-value adjustment, into the item recognised) or the hedged item's line in
 * profit or loss (a disposal's too). */
export const occurrenceTarget = (rel: Relationship) =>
  rel.on_occurrence === 'basis_adjustment' ||
  (rel.on_occurrence === undefined && basisRequired(rel)) ||
  (ruleOf(rel.framework, rel.type).transaction === 'carrying_amount' && rel.hedged_item.kind === 'firm')
    ? 'basis_adjustment'
    : 'reclassification';

/** Each event as `hedge acct event` takes it: its option's key, the option, and the event it records. */
export const EVENT_KINDS = [
  ['occurred', '--occurred', 'occurred'],
  ['disposed', '--disposed', 'disposed'],
  ['deDesignate', '--de-designate', 'de-designated'],
  ['rebalance', '--rebalance', 'rebalanced'],
  ['terminate', '--terminate', 'terminated'],
] as const;

export type Ground = (typeof DE_DESIGNATION_GROUNDS)[number];

/** What a de-designation's grounds refuse (one line), or nothing: a framework that allows no voluntary discontinuation
 * (IFRS 9) de-designates only on one of its grounds. */
function groundProblem(rel: Relationship, event: AcctEvent) {
  if (event.type !== 'de-designated') return;
  const rules = ruleOf(rel.framework, rel.type);
  const named = event.ground ?? (event.still_expected === false ? 'not-expected' : undefined);
  if (rules.voluntaryDiscontinuation || (named !== undefined && named !== 'voluntary')) return;
  const expected = rules.ends === 'occurred' ? ', or --not-expected (the transaction is no longer expected)' : '';
  return `--ground: ${named === 'voluntary' ? 'a voluntary de-designation is' : 'a de-designation without its ground is'} refused under ${rules.name}, which discontinues hedge accounting only when the relationship no longer meets the qualifying criteria (${rules.cites.voluntary}): expected objective-changed (the risk management objective changed, B6.5.26(a)), criteria-not-met, instrument-ended (the instrument expired or was sold, terminated or exercised)${expected}.`;
}

/** Records an event of the relationship's life, in date order: an occurrence (in parts), a disposal, a de-designation, a
 * rebalancing (IFRS 9) or the instrument's termination; none dated after today. With `correction`, the event record
 * it names is replaced by this one, for the reason given (an appended correction: the earlier record stays). */
export async function recordEvent(
  ctx: AcctPorts,
  event: AcctEvent,
  correction?: { record: number; reason: string },
  by?: string,
) {
  const today = await booksToday(ctx);
  const option = EVENT_KINDS.find((kind) => kind[2] === event.type)![1];
  if (event.date > today)
    throw new UsageError(
      `${option}: ${event.date} is after today (${today}); an event is recorded once it has happened.`,
    );
  let before: readonly AcctRecord[] = [];
  let state: Recorded | undefined;
  const added = await appendRecords(
    ctx,
    correction ? 'correction' : 'event',
    ratesOf(),
    (records) => eventBodies((state = recorded((before = records))), records, event, option, correction),
    { by },
  );
  const { relationship: rel } = state!.relationships.get(event.relationship_id)!;
  // The relationship's row, for what is said of the event, and the record four eyes holds, if any.
  return { rules: ruleOf(rel.framework, rel.type), held: heldOf(before, added) };
}

/** The record an event (or its correction) appends, judged against the records there: one line refusing it. */
function eventBodies(
  state: Recorded,
  records: readonly AcctRecord[],
  event: AcctEvent,
  option: string,
  correction?: { record: number; reason: string },
) {
  const waiting = pendingProblem(state.approval, event.relationship_id, 'id');
  if (waiting) throw new UsageError(waiting);
  const found = state.relationships.get(event.relationship_id);
  if (!found)
    throw new UsageError(`id: no relationship ${event.relationship_id} is designated (hedge acct test lists them).`);
  const rel = found.relationship;
  const unfounded = groundProblem(rel, event);
  if (unfounded) throw new UsageError(unfounded);
  if (event.date < rel.designated_at) throw new UsageError(`${option}: before the designation (${rel.designated_at}).`);
  // A correction is judged against the life without the event it replaces.
  let before = found;
  if (correction) {
    const target = records.find((record) => record.seq === correction.record);
    if (target?.kind !== 'event' || target.body.relationship_id !== event.relationship_id)
      throw new UsageError(
        `--correct: record ${correction.record} is not an event of ${event.relationship_id}; expected the number hedge acct log ${event.relationship_id} gives it.`,
      );
    const replaced = state.eventRecords.get(correction.record)?.event;
    before = { ...found, events: found.events.filter((each) => each !== replaced) };
  }
  const life = lifeOf(before);
  const said = (what: string) =>
    `id: ${event.relationship_id} ${what}; a relationship is never edited: correct an event with --correct RECORD --reason TEXT.`;
  const rules = ruleOf(rel.framework, rel.type);
  // What ends the hedged item is its row's: a transaction, or a net investment's disposal.
  if ((event.type === 'occurred' || event.type === 'disposed') && event.type !== rules.ends)
    throw new UsageError(
      rules.ends === 'disposed'
        ? `--occurred: ${rel.id} is a ${rules.hedge}: nothing is reclassified until the operation is disposed of (--disposed DATE [--share S]).`
        : `--disposed: for a net-investment hedge; ${rel.id} is a ${rules.hedge}, whose transaction is recorded with --occurred DATE.`,
    );
  if (event.still_expected === false && rules.ends === 'disposed')
    throw new UsageError(
      `--not-expected: ${rel.id} is a ${rules.hedge}, which has no transaction to expect; ${rules.afterwards}.`,
    );
  if ((event.type === 'occurred' || event.type === 'disposed') && life.doneOn)
    throw new UsageError(
      said(
        `already ended: ${event.type === 'disposed' ? 'the operation was disposed of' : 'no transaction is left to happen'} (all of it by ${life.doneOn})`,
      ),
    );
  if (event.type === 'terminated' && 'references' in rel.instrument)
    throw new UsageError(
      `--terminate: ${rel.id}'s instrument is the desk's hedges, each settled on the day it closes as the server records it; close them (hedge close ${rel.market} SIDE), or de-designate the relationship.`,
    );
  if (event.type === 'rebalanced' && !rules.rebalancing)
    throw new UsageError(`--rebalance: ${rules.name} has no rebalancing; de-designate and designate anew.`);
  if (
    (event.type === 'de-designated' || event.type === 'rebalanced') &&
    life.endedOn !== undefined &&
    life.endedOn <= event.date
  )
    throw new UsageError(said(`already ended (${life.endedBy} ${life.endedOn})`));
  if (
    (event.type === 'rebalanced' || event.type === 'terminated') &&
    life.settledOn !== undefined &&
    life.settledOn <= event.date
  )
    throw new UsageError(
      said(`has no instrument left${event.type === 'rebalanced' ? ' to rebalance' : ''} (settled ${life.settledOn})`),
    );
  const last = before.events.at(-1);
  // A correction takes its place in date order; a new event comes after the others.
  if (!correction && last && event.date < last.date)
    throw new UsageError(
      `${option}: before ${event.relationship_id}'s last event (${last.type} ${last.date}); events are recorded in date order.`,
    );
  if (event.amount !== undefined && sub(exact(event.amount)!, absExact(exact(rel.hedged_item.amount)!))[0] > 0n)
    throw new UsageError(
      `--amount: more than the hedged item's ${rel.hedged_item.amount} ${rel.hedged_item.currency}.`,
    );
  return correction
    ? [
        {
          of: 'event',
          record: correction.record,
          relationship_id: event.relationship_id,
          event: { ...event },
          reason: correction.reason,
        },
      ]
    : [{ ...event }];
}

/** The server, for a store with a key; none for the keyless `local` store. */
export const serverOf = (ctx: AcctPorts) =>
  ctx.client().catch((error: unknown) => {
    if (noKeyConfigured(error)) return undefined;
    throw error;
  });

/** The books' today: the server's, learned from its answers, for every store with a key (its answers so far, else one
 * read); this machine's for the keyless `local` store, which has no server. */
export async function booksToday(ctx: AcctPorts) {
  const client = await serverOf(ctx);
  if (!client) return utcDay(ctx.clock.now());
  if (client.transport.serverNow().assumed) await client.listPositions();
  return serverDay(client);
}

/** The server's day, from its answers so far. */
export const serverDay = (client: HedgeClient) => utcDay(client.transport.serverNow().bestMs);

const absExact = ([n, d]: Exact): Exact => [absCents(n), d];

/** A relationship's recorded events as the rules read them, with when its instrument is settled (an external
 * forward at its maturity unless terminated before), when hedge accounting ended and when its transaction was done. */
export function lifeOf({ relationship: rel, events }: Designation) {
  const whole = absExact(exact(rel.hedged_item.amount)!);
  const rules: RuleEvent[] = events.map((event) => ({
    type: event.type,
    date: event.date,
    reason: event.reason,
    stillExpected: event.still_expected,
    ratio: exactOf(event.ratio),
    share: event.amount === undefined ? exactOf(event.share) : div(exact(event.amount)!, whole),
  }));
  const terminated = events.find((event) => event.type === 'terminated')?.date;
  const maturity = 'maturity' in rel.instrument ? rel.instrument.maturity : undefined;
  const settledOn = terminated ?? maturity;
  if (terminated === undefined && maturity !== undefined) rules.push({ type: 'settled', date: maturity });
  rules.sort((a, b) => a.date.localeCompare(b.date));
  let happened: Exact = [0n, 1n];
  let doneOn: string | undefined;
  for (const event of rules) {
    if (doneOn) break;
    if (event.type === 'occurred' || event.type === 'disposed') {
      happened = event.share ? add(happened, event.share) : [1n, 1n];
      if (happened[0] >= happened[1]) doneOn = event.date;
    } else if (event.type === 'de-designated' && event.stillExpected === false) doneOn = event.date;
  }
  // What the user recorded that ended it; the instrument's settlement is apart (`settledOn`): a transaction can still
  // stop being expected after it, and an external forward's maturity may be still to come.
  const ending = rules.find(
    (event) =>
      event.type === 'occurred' ||
      event.type === 'de-designated' ||
      (event.type === 'disposed' && event.date === doneOn),
  );
  return {
    events: rules,
    settledOn,
    /** Whether the instrument is held on `date` (settled on it at the earliest). */
    held: (date: string) => settledOn === undefined || date <= settledOn,
    doneOn,
    endedOn: ending?.date,
    endedBy: ending?.type,
    /** The day nothing is left to post: the instrument settled and the transaction done. */
    finishedOn: settledOn && doneOn ? (settledOn > doneOn ? settledOn : doneOn) : undefined,
  };
}

/** Declares the group's entities, each once, made `by` (--by): one declared already with the same figures adds nothing,
 * with others is refused (an entity is never edited); at most one holds the relationships that name none, and once any
 * entity is declared, one must hold those already designated naming none, in their currency; a declaration four eyes
 * holds is decided before the next. Returns how many were added, and the records four eyes holds. */
export async function declareEntities(ctx: AcctPorts, given: readonly Entity[], by?: string) {
  let before: readonly AcctRecord[] = [];
  // Of the rates, the quotes of the relationships that name no entity: their books' currency, where they name none.
  const quotes: RatesNeeded = (others) =>
    quotesOf(
      [...recorded(others).relationships.values()].filter(({ relationship }) => relationship.entity === undefined),
    );
  const made = await appendRecords(
    ctx,
    'entity',
    quotes,
    (records) => entityBodies(recorded((before = records)), given),
    { by },
  );
  return { added: made.length, held: heldOf(before, made) };
}

/** The records a declaration appends, judged against the records there: one line refusing it. */
function entityBodies(state: Recorded, given: readonly Entity[]) {
  const waiting = state.approval.pending.find((record) => record.kind === 'entity');
  if (waiting) throw new UsageError(awaitsSaid(waiting, 'code'));
  const fresh: Entity[] = [];
  for (const entity of given) {
    const known = state.entities.get(entity.code) ?? fresh.find((each) => each.code === entity.code);
    const same = known && canonicalEntity(known) === canonicalEntity(entity);
    if (known && !same)
      throw new UsageError(
        `code: ${entity.code} is declared already (${known.name}, books in ${known.functional_currency}${known.default ? ', the default' : ''}); an entity is declared once and never edited.`,
      );
    if (!known) fresh.push(entity);
  }
  const all = [...state.entities.values(), ...fresh];
  const defaults = all.filter((each) => each.default);
  if (defaults.length > 1)
    throw new UsageError(
      `default: ${defaults.map((each) => each.code).join(' and ')} are each the default; one entity at most holds the relationships that name none.`,
    );
  const unnamed = [...state.relationships.values()].filter(({ relationship }) => relationship.entity === undefined);
  if (unnamed.length && !defaults.length)
    throw new UsageError(
      `default: ${unnamed.map(({ relationship }) => relationship.id).join(', ')} name no entity; mark the entity whose books they are in with "default": true.`,
    );
  for (const { relationship: rel } of unnamed) {
    const quote = state.rates.get(rel.market)?.quote;
    const currency = rel.functional_currency ?? (quote && functionalCurrency(rel, quote));
    if (currency && asFunctional(currency) !== asFunctional(defaults[0].functional_currency))
      throw new UsageError(
        `default: ${defaults[0].code}'s books are in ${defaults[0].functional_currency}, and ${rel.id}, which names no entity, is in ${currency}; mark the entity whose books it is in as the default.`,
      );
  }
  return fresh.map((entity) => ({ ...entity }));
}

const canonicalEntity = (entity: Entity) =>
  JSON.stringify([entity.code, entity.name, asFunctional(entity.functional_currency), entity.default === true]);

/** A relationship's status as the books hold it: `designated`, `failed from DATE` (a closed month's test failed: from
 * the last month end it was met), `de-designated DATE` or `ended DATE` (its transaction happened, its forward
 * terminated, or matured in a closed month), whichever came first; and each of its records four eyes holds pending. */
export function standingOf(designation: Designation, state: Pick<Recorded, 'closes' | 'approval'>) {
  const { relationship: rel } = designation;
  const rows = state.closes
    .flatMap((close) => close.test.filter((row) => row.relationship_id === rel.id))
    .sort((a, b) => String(a.period_end).localeCompare(String(b.period_end)));
  const failed = rows.findIndex((row) => row.status === 'failed');
  const life = lifeOf(designation);
  const terminated = designation.events.find((event) => event.type === 'terminated')?.date;
  const matured = rows.find((row) => row.status === 'settled')?.period_end;
  const endings = [
    failed >= 0 && ['failed from', failed ? String(rows[failed - 1].period_end) : rel.designated_at],
    life.endedOn && [life.endedBy === 'de-designated' ? 'de-designated' : 'ended', life.endedOn],
    terminated && ['ended', terminated],
    matured && ['ended', String(matured)],
  ].filter((each): each is [string, string] => Array.isArray(each));
  const [word, date] = endings.sort((a, b) => a[1].localeCompare(b[1]))[0] ?? ['designated'];
  const pending = state.approval.pending.filter(
    (record) => record.kind !== 'designation' && record.body.relationship_id === rel.id,
  );
  return {
    status: date ? `${word} ${date}` : word,
    pending: pending.map((record) => ({
      seq: record.seq,
      what: record.kind === 'event' ? String(record.body.type) : record.kind,
    })),
  };
}

/** Appends a market's rates; a date already recorded with other figures is refused (recorded rates never change); with
 * `correct` (its reason), the dates recorded with other figures are corrected (an appended correction: the earlier
 * record stays), or every recorded date restated under a new quote. `record`: the server's price, as it quotes it. */
export async function recordRates(
  ctx: AcctPorts,
  market: string,
  quote: string,
  rows: Array<Record<string, string>>,
  { correct, record, by }: { correct?: string; record?: boolean; by?: string } = {},
) {
  let added = 0;
  let before: readonly AcctRecord[] = [];
  // A day's rate is checked against those of its year; a file's, against the market's whole (a new quote restates
  // every date).
  const years = [...new Set(rows.map((row) => row.date.slice(0, 4)))];
  const made = await appendRecords(
    ctx,
    correct === undefined ? 'rates' : 'correction',
    ratesOf(record ? { market, years } : market),
    (records) => {
      const state = recorded((before = records));
      // A correction waiting for approval is decided before another is made of the same market.
      const waiting = correct !== undefined && pendingProblem(state.approval, market, '--correct');
      if (waiting) throw new UsageError(waiting);
      const existing = state.rates.get(market);
      // A direction changes only by a correction restating every recorded date: rows of two quotes never mix.
      const requotes = existing !== undefined && existing.quote !== quote;
      if (requotes && record)
        throw new UsageError(
          `--record: ${market}'s rates are recorded as ${existing.quote}, not as the server quotes its price (${quote}); correct every recorded date first (hedge acct rates FILE --market ${market} --quote "${quote}" --correct --reason TEXT).`,
        );
      const missing = requotes
        ? [...existing.rows.keys()].filter((date) => !rows.some((row) => row.date === date))
        : [];
      if (requotes && (correct === undefined || missing.length))
        throw new UsageError(
          `--quote: ${market}'s rates are recorded as ${existing.quote}; expected the same, or ${quote} in a correction restating every recorded date (--correct --reason TEXT${missing.length ? `; ${missing.length} missing, such as ${missing.sort()[0]}` : ''}).`,
        );
      // A market's first rates, or a new quote, value the relationships designated on it: they must fit them.
      const designated = [
        ...[...state.relationships.values()].map((each) => each.relationship),
        ...state.approval.pending.flatMap((each) =>
          each.kind === 'designation' ? [designationOf(each).relationship] : [],
        ),
      ];
      for (const relationship of existing && !requotes ? [] : designated) {
        const problem = relationship.market === market && currencyProblem(relationship, quote);
        if (problem) throw new UsageError(`--quote: ${quote} cannot value ${relationship.id} (${problem})`);
      }
      // Without `correct` the dates not recorded yet; with it, those recorded with other figures (all under a new quote).
      const fresh = rows.filter((row) => {
        const earlier = existing?.rows.get(row.date);
        if (!earlier && correct !== undefined)
          throw new UsageError(
            `--correct: no rate of ${market} is recorded for ${row.date}; import it without --correct.`,
          );
        if (!earlier || requotes) return true;
        const same = sameRate(earlier, rateRow(row));
        if (!same && correct === undefined)
          throw new UsageError(
            `date: ${row.date} is recorded already with other rates for ${market}; recorded rates are never changed: correct them with --correct --reason TEXT.`,
          );
        return !same;
      });
      added = fresh.length;
      if (!fresh.length) return [];
      return [
        correct === undefined
          ? { market, quote, rows: fresh }
          : { of: 'rates', market, ...(requotes && { quote }), rows: fresh, reason: correct },
      ];
    },
    { by },
  );
  return { added, held: heldOf(before, made) };
}

/** A file's rates against the server's price of their market, where it lists it: in the server's direction (the one
 * --record adds to), and within ten times its price (a file quoted the wrong way round, or in other units, is not). */
export async function nearServerPrice(
  client: HedgeClient,
  market: string,
  quote: string,
  rows: RatesFileRow[],
  file: string,
) {
  const { markets } = await client.listMarkets();
  const listed = findMarket(markets, market);
  const pair = listed && marketPair(market, listed);
  if (!pair) return;
  const direction = `${pair.quote} per ${pair.base}`;
  if (quote !== direction)
    throw new UsageError(
      `--quote: the server quotes ${market} as ${direction}; expected that direction, the one --record adds its price to.`,
    );
  const price = exactNumber(listed.price);
  if (price[0] <= 0n) return;
  for (const row of rows)
    for (const column of ['spot', 'forward'] as const) {
      const rate = row[column] === undefined ? undefined : exact(row[column]);
      if (rate && (rate[0] * price[1] >= 10n * price[0] * rate[1] || 10n * rate[0] * price[1] <= price[0] * rate[1]))
        throw new UsageError(
          `${file}: ${column}: ${row[column]} on ${row.date} is an order of magnitude from the server's price of ${market} (${listed.price} ${direction}); expected a rate within ten times of it.`,
        );
    }
}

/** The same figures (1.2 and 1.20 are one rate) are no change. */
function sameRate(earlier: RateRow, later: RateRow) {
  return (['spot', 'forward', 'discountFactor'] as const).every((key) => {
    const [x, y] = [earlier[key], later[key]];
    return x === undefined || y === undefined ? x === y : x[0] * y[1] === y[0] * x[1];
  });
}

/** The relationship's functional currency: as its file names it, else the rates' other currency than the item's. */
export function functionalCurrency(rel: Relationship, quote: string) {
  const [, units, per] = QUOTE.exec(quote)!;
  return asFunctional(
    rel.functional_currency ?? (asFunctional(rel.hedged_item.currency) === asFunctional(per) ? units : per),
  );
}

/** `2026-11`, `2026-Q4` or `2026`: the first and last day of the period. */
export function parsePeriod(raw: string | undefined) {
  const [, year, month, quarter] = /^(\d{4})(?:-(0[1-9]|1[0-2])|-Q([1-4]))?$/i.exec(raw?.trim() ?? '') ?? [];
  // From the first month of the period, for one, three or twelve months.
  const first = month ? Number(month) - 1 : quarter ? (Number(quarter) - 1) * 3 : 0;
  const months = month ? 1 : quarter ? 3 : 12;
  if (year)
    return { from: utcDay(Date.UTC(Number(year), first, 1)), to: utcDay(Date.UTC(Number(year), first + months, 0)) };
  const allowed = 'a month (2026-11, months 01 to 12), a quarter (2026-Q4) or a year (2026)';
  if (!raw?.trim()) throw new UsageError(`--period: missing; expected ${allowed}.`);
  throw notAllowed('--period', raw, allowed);
}
