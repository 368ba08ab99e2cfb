// Hedge accounting as pure functions: a relationship's cumulative values per period in, its effectiveness, the
// cash-flow hedge reserve's roll-forward, the excluded part and balanced journal entries out. No I/O, no clock.
// Signs: a gain is positive; a reserve's balance is positive when it is a credit (a deferred gain).
import {
  absCents,
  add,
  centsNumber,
  centsText,
  div,
  mul,
  ratioOf,
  roundDiv,
  signOf,
  sub,
  toCents,
  type Cents,
  type Exact,
} from './acct-money.js';

export const FRAMEWORKS = ['ifrs9', 'ias39', 'asc815'] as const;
export type Framework = (typeof FRAMEWORKS)[number];
export const METHODS = ['dollar_offset_cumulative', 'dollar_offset_period', 'regression', 'critical_terms'] as const;
export type Excluded = 'pnl' | 'cost_of_hedging_reserve';

/** What the figures of one period end are: cumulative since designation, in the functional currency's cents. */
export interface PeriodValues {
  end: string;
  /** The designated part of the instrument (a gain positive). */
  instrument: Cents;
  /** The hedged item's change in value for the hedged risk (present value), a gain positive. */
  hedgedItem: Cents;
  /** The part not designated (forward points, or the desk hedges' carry). */
  excluded: Cents;
  /** Fees paid (negative) or earned: always profit or loss. */
  fees: Cents;
}

export interface RelationshipRules {
  framework: Framework;
  method: (typeof METHODS)[number];
  excluded: Excluded;
  kind: 'forecast' | 'firm' | 'recognised';
  designatedAt: string;
  /** The excluded part known at inception, spread straight-line to profit or loss from the cost-of-hedging reserve (a time-period related item). */
  amortisation?: { total: Cents; from: string; to: string };
  /** The hedged transaction happened: both reserves are reclassified. */
  occurred?: string;
  deDesignated?: { date: string; stillExpected: boolean };
}

/** Least squares of the instrument's period changes on the hedged item's (at least two points that vary). */
export function regression(points: ReadonlyArray<readonly [x: number, y: number]>) {
  const n = points.length;
  if (n < 2) return null;
  const mean = (pick: (p: readonly [number, number]) => number) => points.reduce((s, p) => s + pick(p), 0) / n;
  const [mx, my] = [mean((p) => p[0]), mean((p) => p[1])];
  let [sxx, sxy, syy] = [0, 0, 0];
  for (const [x, y] of points) {
    sxx += (x - mx) ** 2;
    sxy += (x - mx) * (y - my);
    syy += (y - my) ** 2;
  }
  if (sxx === 0) return null;
  const slope = sxy / sxx;
  const intercept = my - slope * mx;
  const r2 = syy === 0 ? 1 : (sxy * sxy) / (sxx * syy);
  const residual = Math.max(0, syy - slope * sxy);
  // The slope's t statistic: its standard error needs n - 2 degrees of freedom and some scatter.
  const t = n > 2 && residual > 0 ? slope / Math.sqrt(residual / (n - 2) / sxx) : null;
  return { n, slope, intercept, r2, t };
}

/** The pass line a framework draws, or the word that IFRS 9 draws none. */
function passLine(framework: Framework, ratio: number | null) {
  if (framework === 'ifrs9')
    return 'IFRS 9: no pass line; the ratio is a diagnostic of the economic relationship (6.4.1(c)).';
  const name = framework === 'asc815' ? 'ASC 815' : 'IAS 39';
  if (ratio === null) return `${name} 80–125 %: not measurable (no change in the hedged item).`;
  const inside = ratio >= 0.8 && ratio <= 1.25;
  return `${name} 80–125 %: ${(ratio * 100).toFixed(1)} % is ${inside ? 'inside' : 'outside'} the line.`;
}

/** The reserve's target: what of the instrument's cumulative change is deferred. IFRS 9 and IAS 39 defer the lower
 * of the two changes (in absolute amounts) where they offset; ASC 815 the whole designated change. */
function lowerOf(instrument: Cents, hedgedItem: Cents) {
  if (signOf(instrument) === signOf(hedgedItem) || instrument === 0n) return 0n;
  return (
    signOf(instrument) * (absCents(instrument) < absCents(hedgedItem) ? absCents(instrument) : absCents(hedgedItem))
  );
}

const daysBetween = (from: string, to: string) => Math.round((Date.parse(to) - Date.parse(from)) / 86_400_000);

function amortised(rules: RelationshipRules, end: string): Cents {
  const plan = rules.amortisation;
  if (!plan) return 0n;
  const span = daysBetween(plan.from, plan.to);
  const elapsed = Math.min(Math.max(daysBetween(plan.from, end), 0), span);
  return span <= 0 ? plan.total : roundDiv(plan.total * BigInt(elapsed), BigInt(span));
}

/** Each period's effectiveness, reserves and excluded part, from cumulative values in date order. */
export function rollForward(periods: readonly PeriodValues[], rules: RelationshipRules) {
  let previous: PeriodValues = { end: rules.designatedAt, instrument: 0n, hedgedItem: 0n, excluded: 0n, fees: 0n };
  let deferred = 0n;
  let reserve = 0n;
  let costReserve = 0n;
  let amortisedSoFar = 0n;
  let ended = false;
  const changes: Array<[number, number]> = [];
  return periods.map((values) => {
    const endsHere = (date: string | undefined) => date !== undefined && date <= values.end && !ended;
    const occurs = endsHere(rules.occurred);
    const deDesignates = endsHere(rules.deDesignated?.date);
    const designated = !ended;
    const instrumentMove = values.instrument - previous.instrument;
    const excludedMove = values.excluded - previous.excluded;
    const feesMove = values.fees - previous.fees;
    const itemMove = values.hedgedItem - previous.hedgedItem;
    const lower = lowerOf(values.instrument, values.hedgedItem);
    const target = rules.framework === 'asc815' ? values.instrument : lower;
    const effective = designated ? target - deferred : 0n;
    deferred += effective;
    const ineffective = designated ? instrumentMove - effective : 0n;
    const undesignated = designated ? 0n : instrumentMove;
    // The excluded part: to the cost-of-hedging reserve while designated (what is amortised leaves it for profit
    // or loss), else straight to profit or loss.
    const toReserve = designated && rules.excluded === 'cost_of_hedging_reserve';
    const amortisedNow = toReserve ? amortised(rules, values.end) : amortisedSoFar;
    const amortisation = amortisedNow - amortisedSoFar;
    amortisedSoFar = amortisedNow;
    const costMovement = toReserve ? excludedMove - amortisation : 0n;
    const excludedToPnl = toReserve ? amortisation : excludedMove;
    const reserveOpen = reserve;
    const costOpen = costReserve;
    reserve += effective;
    costReserve += costMovement;
    // Released whole when the transaction happens (or is no longer expected); a recognised item is remeasured in profit
    // or loss each period: the reserve releases the offset as it does.
    const release = occurs || (deDesignates && !rules.deDesignated!.stillExpected);
    const reclassified = release ? reserve : designated && rules.kind === 'recognised' && !occurs ? -itemMove : 0n;
    const costReclassified = release ? costReserve : 0n;
    reserve -= reclassified;
    costReserve -= costReclassified;
    if (occurs || deDesignates) ended = true;
    const cumulativeRatio = ratioOf(-values.instrument, values.hedgedItem);
    const periodRatio = ratioOf(-instrumentMove, itemMove);
    if (designated) changes.push([Number(itemMove), Number(instrumentMove)]);
    const fit = rules.method === 'regression' ? regression(changes) : null;
    const ratio = !designated
      ? null
      : rules.method === 'dollar_offset_period'
        ? periodRatio
        : fit
          ? -fit.slope
          : cumulativeRatio;
    previous = values;
    return {
      period_end: values.end,
      status: occurs ? 'occurred' : deDesignates ? 'de-designated' : designated ? 'designated' : 'ended',
      instrument_change: centsNumber(values.instrument),
      hedged_item_change: centsNumber(values.hedgedItem),
      /** The offset ratio the method reads: -instrument / hedged item (1 is a perfect offset). */
      ratio,
      ratio_cumulative: cumulativeRatio,
      ratio_period: periodRatio,
      regression: fit,
      /** IFRS 9 6.5.11(a): the lower, in absolute amounts, of the instrument's and the hedged item's cumulative change. */
      lower_of: centsNumber(lower),
      effective: centsNumber(effective),
      ineffective: centsNumber(ineffective),
      /** Changes of an instrument no longer designated (after an occurrence or a de-designation): profit or loss. */
      undesignated: centsNumber(undesignated),
      excluded: centsNumber(excludedMove),
      /** Where the period's excluded part went: the cost-of-hedging reserve (less what is amortised) or profit or loss. */
      excluded_to: toReserve ? 'cost_of_hedging_reserve' : 'pnl',
      excluded_to_pnl: centsNumber(excludedToPnl),
      cost_of_hedging_open: centsNumber(costOpen),
      cost_of_hedging_movement: centsNumber(costMovement),
      cost_of_hedging_reclassified: centsNumber(costReclassified),
      cost_of_hedging_close: centsNumber(costReserve),
      fees: centsNumber(feesMove),
      reserve_open: centsNumber(reserveOpen),
      reserve_close: centsNumber(reserve),
      reclassified: centsNumber(reclassified),
      /** The pass line of the framework whose line it is; under IFRS 9 the ratio is a diagnostic. */
      line: designated ? passLine(rules.framework, ratio) : 'Not designated in this period: no test.',
      /** The amounts the entries post, as cents: never through a floating-point number. */
      cents: {
        effective,
        ineffective,
        undesignated,
        excluded: excludedMove,
        fees: feesMove,
        excludedToPnl,
        reclassified,
        costReclassified,
      },
    };
  });
}

// ---- Valuation from rates: a forward held elsewhere, and the hedged item, by spot or by forward ----

export interface RateRow {
  date: string;
  spot: Exact;
  forward?: Exact;
  discountFactor?: Exact;
  source: string;
  /** When it was read (the server's time), for a rate recorded from the API; an imported one is of the day's end. */
  at?: string;
  /** The carry each open hedge of the market had accrued when it was read (account side, USD). */
  carry?: ReadonlyMap<string, Exact>;
}

/** How a rate converts: `functionalPerForeign` (USD per EUR for a USD company's EUR) multiplies; the other way divides. */
export interface Quote {
  functionalPerForeign: boolean;
}

export const inFunctional = (amount: Exact, rate: Exact, quote: Quote) =>
  quote.functionalPerForeign ? mul(amount, rate) : div(amount, rate);

interface ForwardTerms {
  /** The foreign currency amount, signed as the hedged item's: positive to receive (a sale), negative to pay. */
  hedgedAmount: Exact;
  notional: Exact;
  contractRate: Exact;
  designation: 'spot' | 'forward';
}

/** A row's forward or discount factor, or a refusal naming the date and the column. */
export function need(row: RateRow, what: 'forward' | 'discountFactor') {
  const found = row[what];
  if (found === undefined) throw new MissingRate(row.date, what === 'forward' ? 'forward' : 'discount_factor');
  return found;
}

// The forward sells what the item receives (and buys what it pays).
const forwardSide = ({ hedgedAmount }: ForwardTerms): Exact => (hedgedAmount[0] > 0n ? [-1n, 1n] : [1n, 1n]);

/** The cumulative values of an external forward and its hedged item from the rates at designation and at `at`. */
export function forwardValues(terms: ForwardTerms, quote: Quote, start: RateRow, at: RateRow) {
  const { hedgedAmount, notional, contractRate, designation } = terms;
  const side = forwardSide(terms);
  const value = (amount: Exact, rate: Exact) => inFunctional(amount, rate, quote);
  const discount = need(at, 'discountFactor');
  const whole = mul(mul(side, sub(value(notional, need(at, 'forward')), value(notional, contractRate))), discount);
  if (designation === 'forward') {
    const item = mul(
      sub(value(hedgedAmount, need(at, 'forward')), value(hedgedAmount, need(start, 'forward'))),
      discount,
    );
    return { instrument: toCents(whole), hedgedItem: toCents(item), excluded: 0n };
  }
  const spotPart = mul(side, sub(value(notional, at.spot), value(notional, start.spot)));
  const item = sub(value(hedgedAmount, at.spot), value(hedgedAmount, start.spot));
  const instrument = toCents(spotPart);
  return { instrument, hedgedItem: toCents(item), excluded: toCents(whole) - instrument };
}

/** The forward points at inception (what the excluded part comes to by maturity), for their amortisation. */
export function forwardPoints(terms: ForwardTerms, quote: Quote, start: RateRow) {
  return toCents(
    mul(
      forwardSide(terms),
      sub(inFunctional(terms.notional, start.spot, quote), inFunctional(terms.notional, terms.contractRate, quote)),
    ),
  );
}

/** The hedged item's change alone (a relationship whose instrument is the desk's hedges): by spot. */
export function hedgedItemBySpot(amount: Exact, quote: Quote, start: RateRow, at: RateRow) {
  return toCents(sub(inFunctional(amount, at.spot, quote), inFunctional(amount, start.spot, quote)));
}

export class MissingRate extends Error {
  constructor(
    readonly date: string,
    readonly column: string,
  ) {
    super(`no ${column} rate for ${date}`);
  }
}

// ---- Journal entries ----

export const ROLES = [
  'hedging_instrument',
  'cash_flow_hedge_reserve',
  'cost_of_hedging_reserve',
  'hedge_ineffectiveness',
  'excluded_component',
  'undesignated_derivative',
  'fees',
  'reclassification',
  'basis_adjustment',
] as const;
export type Role = (typeof ROLES)[number];

/** The period's entries, each balanced: the instrument's remeasurement, fees, amortisation, reclassification. */
export function periodEntries(
  relationshipId: string,
  result: ReturnType<typeof rollForward>[number],
  reclassifiedTo: 'reclassification' | 'basis_adjustment' = 'reclassification',
) {
  const {
    effective,
    ineffective,
    undesignated,
    excluded,
    fees: feesMove,
    excludedToPnl: amortisedToPnl,
    reclassified,
    costReclassified,
  } = result.cents;
  const toReserve = result.excluded_to === 'cost_of_hedging_reserve';
  // Each entry's lines, by role, in order.
  const entries: Record<string, Partial<Record<Role, Cents>>> = {
    'remeasurement of the hedging instrument': {
      hedging_instrument: effective + ineffective + undesignated + excluded,
      cash_flow_hedge_reserve: -effective,
      hedge_ineffectiveness: -ineffective,
      undesignated_derivative: -undesignated,
      [toReserve ? 'cost_of_hedging_reserve' : 'excluded_component']: -excluded,
    },
    'amortisation of the excluded part': toReserve
      ? { excluded_component: -amortisedToPnl, cost_of_hedging_reserve: amortisedToPnl }
      : {},
    fees: { fees: -feesMove, hedging_instrument: feesMove },
    'reclassification of the reserves': {
      cash_flow_hedge_reserve: reclassified,
      cost_of_hedging_reserve: costReclassified,
      [reclassifiedTo]: -(reclassified + costReclassified),
    },
  };
  let n = 0;
  return Object.entries(entries).flatMap(([description, lines]) => {
    const kept = (Object.entries(lines) as Array<[Role, Cents]>).filter(([, amount]) => amount !== 0n);
    if (!kept.length) return [];
    const entry_id = `${relationshipId}/${result.period_end}/${++n}`;
    // amount: positive a debit, negative a credit (cents).
    return kept.map(([role, amount]) => ({
      entry_id,
      relationship_id: relationshipId,
      date: result.period_end,
      role,
      amount,
      description,
    }));
  });
}

/** Whether every entry's debits equal its credits. */
export function balanced(lines: ReturnType<typeof periodEntries>) {
  const sums = new Map<string, Cents>();
  for (const line of lines) sums.set(line.entry_id, (sums.get(line.entry_id) ?? 0n) + line.amount);
  return [...sums.values()].every((sum) => sum === 0n);
}

// ---- The desk's own hedges as the instrument ----

/** One hedge carrying a relationship's references, from its own record and, once closed, its history record. */
export interface DeskHedge {
  id: string;
  side: 'buy' | 'sell';
  /** USD, as the record writes it. */
  notional: Exact;
  /** The price it was struck at; none for a hedge never filled. */
  entry?: Exact;
  openedMs: number;
  /** What its history record realized (gross price P&L, carry and fees, on the account's side, USD) and when. */
  closed?: { atMs: number; gross: Exact; carry: Exact; fees: Exact };
}

/** A recorded rate as a desk hedge is valued at it: the mid, the server's time it was read at, and the carry each open
 * hedge had accrued then (the positions read with it), on the account's side. */
export interface Mark {
  date: string;
  spot: Exact;
  atMs: number;
  carry: ReadonlyMap<string, Exact>;
}

const ZERO: Exact = [0n, 1n];

/** The price P&L in USD of `notional` bought (or sold) at `entry`, at `mark`: N × (M − E) / M, as `history` has it. */
export function grossAt(side: 'buy' | 'sell', notional: Exact, entry: Exact, mark: Exact): Exact {
  const buy = div(mul(notional, sub(mark, entry)), mark);
  return side === 'buy' ? buy : [-buy[0], buy[1]];
}

/** The carry a hedge open at `at` had accrued then: the one recorded with that rate, else pro rata to the days held,
 * from the nearest one recorded of it (a hedge's carry accrues evenly on its notional). */
function carryAt(hedge: DeskHedge, at: Mark, observed: ReadonlyMap<string, { atMs: number; carry: Exact }>) {
  const own = at.carry.get(hedge.id);
  if (own) return own;
  const seen = observed.get(hedge.id);
  if (!seen || seen.atMs <= hedge.openedMs) return undefined;
  return div(mul(seen.carry, [BigInt(at.atMs - hedge.openedMs), 1n]), [BigInt(seen.atMs - hedge.openedMs), 1n]);
}

/** The hedges' value at a recorded rate, exact, in USD: each closed by then at what it realized, each open then marked
 * at the rate from its own record, with its carry as the excluded part; fees as they are paid. A hedge open then whose
 * entry or carry is not known is named, so the period is refused rather than guessed. */
export function deskValueAt(
  hedges: readonly DeskHedge[],
  at: Mark,
  observed: ReadonlyMap<string, { atMs: number; carry: Exact }>,
) {
  let [instrument, excluded, fees] = [ZERO, ZERO, ZERO];
  const unknown: string[] = [];
  for (const hedge of hedges) {
    if (hedge.openedMs > at.atMs) continue;
    if (hedge.closed && hedge.closed.atMs <= at.atMs) {
      instrument = add(instrument, hedge.closed.gross);
      excluded = add(excluded, hedge.closed.carry);
      fees = add(fees, hedge.closed.fees);
      continue;
    }
    const carry = carryAt(hedge, at, observed);
    if (!hedge.entry || !carry) {
      unknown.push(hedge.id);
      continue;
    }
    instrument = add(instrument, grossAt(hedge.side, hedge.notional, hedge.entry, at.spot));
    excluded = add(excluded, carry);
  }
  return { instrument, excluded, fees, unknown };
}

// ---- Critical terms: the instrument's terms against the hedged item's, each matched or not ----

/** The terms compared; the instrument's amount is in the hedged item's currency (converted at the designation's rate
 * by the caller when the instrument is in another currency), its maturity a UTC day. */
export interface CriticalTermsInput {
  instrument: { amount: Exact | null; currency: string | null; maturity: string | null; market: string | null };
  ratio: Exact;
  item: { amount: Exact; currency: string; expectedDate: string; market: string };
}

/** Each critical term matched or not (hedge says which; whether they are enough is the user's judgement): the
 * notional × ratio against the item's amount to the cent, the currencies, the maturity against the expected date
 * (with the days apart: the instrument's later is positive) and the underlying market. */
export function criticalTerms({ instrument, ratio, item }: CriticalTermsInput) {
  const itemCents = absCents(toCents(item.amount));
  const covered = instrument.amount === null ? null : absCents(toCents(mul(instrument.amount, ratio)));
  const daysApart = instrument.maturity === null ? null : daysBetween(item.expectedDate, instrument.maturity);
  const term = <M>(
    instrument: string | null,
    hedged_item: string,
    matched = instrument === hedged_item,
    more = {} as M,
  ) => ({
    instrument,
    hedged_item,
    ...more,
    matched,
  });
  const terms = {
    amount: term(covered === null ? null : centsText(covered), centsText(itemCents), covered === itemCents),
    currency: term(instrument.currency, item.currency),
    // The maturity's days apart: the instrument's days after the expected date (negative before).
    maturity: term(instrument.maturity, item.expectedDate, daysApart === 0, { days_apart: daysApart }),
    underlying: term(instrument.market, item.market),
  };
  return { ...terms, matched: Object.values(terms).every((term) => term.matched) };
}
type CriticalTerms = ReturnType<typeof criticalTerms>;

/** One line of the terms for a terminal: each term, both sides and whether it matched. */
export function criticalTermsLine(terms: CriticalTerms) {
  const said = (name: string, term: CriticalTerms['amount'], extra = '') =>
    `${name} ${term.instrument ?? 'unknown'} vs ${term.hedged_item}${extra} ${term.matched ? 'matched' : 'not matched'}`;
  const apart = terms.maturity.days_apart;
  return [
    said('amount (notional × ratio)', terms.amount),
    said('currency', terms.currency),
    said('maturity', terms.maturity, apart === null ? '' : ` (${Math.abs(apart)} days apart)`),
    said('underlying', terms.underlying),
  ].join('; ');
}
