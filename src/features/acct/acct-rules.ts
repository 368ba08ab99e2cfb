// Hedge accounting as pure functions: a relationship's cumulative values per period in, its effectiveness, the
// roll-forward of the balance its kind of hedge defers to (its row of the rules table), the excluded part and balanced
// journal entries out. No I/O, no clock. Signs: a gain is positive; a balance is positive when it is a credit.
import {
  absCents,
  add,
  centsNumber,
  centsText,
  div,
  exactText,
  mul,
  ratioOf,
  roundDiv,
  signOf,
  sub,
  toCents,
  type Cents,
  type Exact,
} from './acct-money.js';
import { plural } from '../../core/number-format.js';
import { mapChildren, withoutUndefined } from '../../core/objects.js';
import { utcDay } from '../../core/utc-text.js';

export const FRAMEWORKS = ['ifrs9', 'ias39', 'asc815'] as const;
export type Framework = (typeof FRAMEWORKS)[number];
export const METHODS = ['dollar_offset_cumulative', 'dollar_offset_period', 'regression', 'critical_terms'] as const;
/** The kinds of hedge, each a row of every framework's table. */
export const HEDGE_TYPES = ['cash_flow', 'fair_value', 'net_investment'] as const;
export type HedgeType = (typeof HEDGE_TYPES)[number];
export const ITEM_KINDS = ['forecast', 'firm', 'recognised', 'net_investment'] as const;
type ItemKind = (typeof ITEM_KINDS)[number];

/** What each kind of hedge is, whatever the framework: the balance its effective part goes to (its journal role, a
 * credit positive), the hedged items it takes and the fields they need, and the event that ends the hedged item (its
 * transaction, or the operation's disposal). */
export const HEDGE_KINDS = {
  cash_flow: {
    hedge: 'cash-flow hedge',
    balance: 'cash_flow_hedge_reserve',
    items: ['forecast', 'firm', 'recognised'],
    needs: ['expected_date', 'probability_evidence'],
    ends: 'occurred',
    /** A recognised item's remeasurement in profit or loss is offset each period from the reserve. */
    offsetsRemeasurement: true,
    afterwards: 'the reserve stays until the transaction',
  },
  fair_value: {
    hedge: 'fair-value hedge',
    balance: 'hedged_item_adjustment',
    items: ['firm', 'recognised'],
    needs: ['expected_date'],
    ends: 'occurred',
    offsetsRemeasurement: false,
    afterwards: 'the hedged item’s adjustment stays until the transaction (a recognised item’s is amortised)',
  },
  net_investment: {
    hedge: 'net-investment hedge',
    balance: 'translation_reserve',
    items: ['net_investment'],
    needs: ['operation'],
    ends: 'disposed',
    offsetsRemeasurement: false,
    afterwards: 'the translation reserve stays until the operation is disposed of',
  },
} as const satisfies Record<
  HedgeType,
  {
    hedge: string;
    balance: string;
    items: readonly ItemKind[];
    needs: readonly string[];
    ends: 'occurred' | 'disposed';
    offsetsRemeasurement: boolean;
    /** What the balance does once hedge accounting ends, as a line says it. */
    afterwards: string;
  }
>;

/** One row of the table: a kind of hedge under a framework. */
interface TypeRule {
  /** What of the instrument goes to the balance: the lower of its cumulative change and the hedged item's, its whole
   * designated change, or the hedged item's own change for the hedged risk (the instrument's change then wholly to
   * profit or loss, beside it: their difference is the ineffectiveness). */
  effective: 'lower_of' | 'whole' | 'hedged_item';
  /** At the transaction: into a purchased non-financial item's cost (`required`, `choice`, `refused`), the firm
   * commitment's balance into the recognised item's carrying amount (`carrying_amount`), or none (no transaction). */
  transaction: 'required' | 'choice' | 'refused' | 'carrying_amount' | 'none';
  /** At discontinuation: the balance waits for the transaction or the disposal (`waits`), or a recognised item's
   * adjustment is amortised to profit or loss from then to its date (`amortised`; a firm commitment's waits). */
  discontinued: 'waits' | 'amortised';
  cites: { effective: string; transaction: string; discontinuation: string; disposal?: string };
}

/** Each framework's rules after designation, and a row for each kind of hedge, in one place: the docs' tables
 * (docs/accounting.md) are these. */
export const FRAMEWORK_RULES = {
  ifrs9: {
    name: 'IFRS 9',
    /** The offset ratio a period must stay within, or none (a diagnostic only). */
    brightLine: null,
    /** The `excluded` values allowed: to profit or loss, or the cost of hedging reserve. */
    excluded: ['pnl', 'cost_of_hedging_reserve'],
    rebalancing: true,
    /** Whether hedge accounting may be discontinued by choice (a de-designation on no ground of the standard's). */
    voluntaryDiscontinuation: false,
    cites: {
      documentation: 'IFRS 9 6.4.1(b)',
      effectiveness: 'IFRS 9 6.4.1(c), B6.4.12',
      excluded: 'IFRS 9 6.5.15–16, B6.5.34',
      rebalancing: 'IFRS 9 6.5.5, B6.5.7–B6.5.21',
      voluntary: 'IFRS 9 6.5.6',
    },
    types: {
      cash_flow: {
        effective: 'lower_of',
        transaction: 'required',
        discontinued: 'waits',
        cites: {
          effective: 'IFRS 9 6.5.11(a)',
          transaction: 'IFRS 9 6.5.11(d)',
          discontinuation: 'IFRS 9 6.5.6, 6.5.12',
        },
      },
      fair_value: {
        effective: 'hedged_item',
        transaction: 'carrying_amount',
        discontinued: 'amortised',
        cites: { effective: 'IFRS 9 6.5.8', transaction: 'IFRS 9 6.5.9', discontinuation: 'IFRS 9 6.5.6, 6.5.10' },
      },
      net_investment: {
        effective: 'lower_of',
        transaction: 'none',
        discontinued: 'waits',
        cites: {
          effective: 'IFRS 9 6.5.13, by 6.5.11(a)',
          transaction: 'none: a net investment is disposed of',
          discontinuation: 'IFRS 9 6.5.6, 6.5.14',
          disposal: 'IFRS 9 6.5.14, IAS 21.48–48D, IFRIC 16.16–17',
        },
      },
    },
  },
  ias39: {
    name: 'IAS 39',
    brightLine: [0.8, 1.25],
    excluded: ['pnl'],
    rebalancing: false,
    voluntaryDiscontinuation: true,
    cites: {
      documentation: 'IAS 39.88(a)',
      effectiveness: 'IAS 39.88(b), 88(e), AG105, AG113',
      excluded: 'IAS 39.74(b)',
      rebalancing: 'none in IAS 39',
      voluntary: 'IAS 39.91(c), 101(d)',
    },
    types: {
      cash_flow: {
        effective: 'lower_of',
        transaction: 'choice',
        discontinued: 'waits',
        cites: { effective: 'IAS 39.95–96', transaction: 'IAS 39.97–100', discontinuation: 'IAS 39.101' },
      },
      fair_value: {
        effective: 'hedged_item',
        transaction: 'carrying_amount',
        discontinued: 'amortised',
        cites: { effective: 'IAS 39.89', transaction: 'IAS 39.93–94', discontinuation: 'IAS 39.91–92' },
      },
      net_investment: {
        effective: 'lower_of',
        transaction: 'none',
        discontinued: 'waits',
        cites: {
          effective: 'IAS 39.102(a)–(b), by 96',
          transaction: 'none: a net investment is disposed of',
          discontinuation: 'IAS 39.101–102',
          disposal: 'IAS 39.102, IAS 21.48–48D, IFRIC 16.16–17',
        },
      },
    },
  },
  asc815: {
    name: 'ASC 815',
    brightLine: [0.8, 1.25],
    excluded: ['pnl', 'amortised'],
    rebalancing: false,
    voluntaryDiscontinuation: true,
    cites: {
      documentation: 'ASC 815-20-25-3',
      effectiveness: 'ASC 815-20-25-75 to 25-79, 815-20-35-2',
      excluded: 'ASC 815-20-25-83A to 25-83B',
      rebalancing: 'none in ASC 815',
      voluntary: 'ASC 815-25-40-1(c), 815-30-40-1(c)',
    },
    types: {
      cash_flow: {
        effective: 'whole',
        transaction: 'refused',
        discontinued: 'waits',
        cites: {
          effective: 'ASC 815-30-35-3',
          transaction: 'ASC 815-30-35-38 to 35-41',
          discontinuation: 'ASC 815-30-40-1 to 40-5',
        },
      },
      fair_value: {
        effective: 'hedged_item',
        transaction: 'carrying_amount',
        discontinued: 'amortised',
        cites: {
          effective: 'ASC 815-25-35-1',
          transaction: 'ASC 815-25-35-1(b), 35-8',
          discontinuation: 'ASC 815-25-40-1 to 40-2, 815-25-35-9',
        },
      },
      net_investment: {
        effective: 'whole',
        transaction: 'none',
        discontinued: 'waits',
        cites: {
          effective: 'ASC 815-35-35-1',
          transaction: 'none: a net investment is disposed of',
          discontinuation: 'ASC 815-35-35-1',
          disposal: 'ASC 830-30-40-1 to 40-2',
        },
      },
    },
  },
} as const satisfies Record<Framework, Record<string, unknown> & { name: string; types: Record<HedgeType, TypeRule> }>;

/** A kind of hedge's row under a framework, with what the framework and the kind say of every row. */
export function ruleOf(framework: Framework, type: HedgeType = 'cash_flow') {
  const { types, ...rules } = FRAMEWORK_RULES[framework];
  const row: TypeRule = types[type];
  return { ...rules, ...HEDGE_KINDS[type], ...row, type, cites: { ...rules.cites, ...row.cites } };
}
export type TypeRules = ReturnType<typeof ruleOf>;

/** What the figures of one period end are: cumulative since designation, in the functional currency's cents. */
export interface PeriodValues {
  end: string;
  /** The designated element (spot or forward) of the whole instrument (a gain positive); `ratio` takes its share. */
  instrument: Cents;
  /** The hedged item's change in value for the hedged risk (present value), a gain positive. */
  hedgedItem: Cents;
  /** The part not designated (forward points, or the desk hedges' carry), of the whole instrument. */
  excluded: Cents;
  /** Fees paid (negative) or earned: always profit or loss, paid in cash. */
  fees: Cents;
  /** What of the instrument was settled in cash by then (the desk's closed hedges: their price P&L and carry). */
  settled?: Cents;
  /** The desk's hedges closed since the period end before, each settled on its own day at that day's rate. */
  settlements?: readonly Settlement[];
  /** A recognised item's remeasurement at spot since designation (the whole item, to profit or loss). */
  remeasured?: Cents;
  /** `instrument` and `excluded` before they were rounded, where known: their share is rounded once. */
  exact?: { instrument: Exact; excluded: Exact };
  /** The foreign currency a forward delivers at maturity, at the day's spot (received positive, delivered negative). */
  delivered?: Cents;
  /** The hedged item's amount at the day's spot (signed as the item), for a recognised item settled that day. */
  itemAtSpot?: Cents;
}

/** An event of a relationship's life, on its date (a period end). */
export interface RuleEvent {
  type: 'occurred' | 'disposed' | 'de-designated' | 'rebalanced' | 'terminated' | 'settled';
  date: string;
  reason?: string;
  /** occurred, disposed: the share of the whole hedged transaction (or net investment) it was; none: all that is left. */
  share?: Exact;
  /** de-designated: false when the transaction is no longer expected (the reserve goes to profit or loss at once). */
  stillExpected?: boolean;
  /** rebalanced: the designated share of the instrument from then on. */
  ratio?: Exact;
}

export interface RelationshipRules {
  framework: Framework;
  /** The kind of hedge: its row of the framework's table (a cash-flow hedge when not given). */
  type?: HedgeType;
  method: (typeof METHODS)[number];
  excluded: 'pnl' | 'cost_of_hedging_reserve' | 'amortised';
  kind: ItemKind;
  designatedAt: string;
  /** The hedged item's date (its transaction, settlement or maturity): a fair-value hedge's adjustment of a recognised
   * item is amortised up to it once hedge accounting ends. */
  itemDate?: string;
  /** The designated share of the instrument (the rest is an undesignated derivative): 1 when not given. */
  ratio?: Exact;
  /** The excluded part known at inception, spread straight-line to profit or loss from its reserve, by days or by
   * months (a month-end counting as the next month's start). */
  amortisation?: { total: Cents; from: string; to: string; basis?: 'days' | 'months' };
  /** The relationship's events in date order. */
  events?: readonly RuleEvent[];
}

/** Two-tailed 95 % critical values of Student's t by degrees of freedom: each of 1 to 30, then 40, 60 and 120 (the
 * next lower row where one is missing). */
const T_95 = [
  ...[
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.16, 2.145, 2.131, 2.12, 2.11,
    2.101, 2.093, 2.086, 2.08, 2.074, 2.069, 2.064, 2.06, 2.056, 2.052, 2.048, 2.045, 2.042,
  ].map((t, index) => [index + 1, t] as const),
  [40, 2.021],
  [60, 2],
  [120, 1.98],
];
const tCritical95 = (df: number) => T_95.findLast(([d]) => d <= df)?.[1] ?? 1.96;

/** The periods a regression needs: the slope's t has n − 2 degrees of freedom, and two points always fit (R² 1). */
const REGRESSION_MIN_N = 3;

/** Least squares of the instrument's period changes (y) on the hedged item's (x), in currency units: n, slope,
 * intercept, R², the slope's t and F, and each criterion judged; null below REGRESSION_MIN_N points or with no
 * variation in x. */
export function regression(points: ReadonlyArray<readonly [x: number, y: number]>) {
  const moments = regressionMoments();
  for (const point of points) moments.add(point);
  return moments.regress();
}

/** The points' running means and co-moments (Welford's update), each point added in constant time: a fit at every
 * period end is linear in the periods, never refit over all of them. */
function regressionMoments() {
  let [n, mx, my, sxx, sxy, syy] = [0, 0, 0, 0, 0, 0];
  return {
    add([x, y]: readonly [number, number]) {
      n += 1;
      const [dx, dy] = [x - mx, y - my];
      mx += dx / n;
      my += dy / n;
      sxx += dx * (x - mx);
      sxy += dx * (y - my);
      syy += dy * (y - my);
    },
    regress: () => fitOf(n, mx, my, sxx, sxy, syy),
    count: () => n,
  };
}

function fitOf(n: number, mx: number, my: number, sxx: number, sxy: number, syy: number) {
  if (n < REGRESSION_MIN_N || sxx === 0) return null;
  const slope = sxy / sxx;
  const intercept = my - slope * mx;
  const r2 = syy === 0 ? 1 : (sxy * sxy) / (sxx * syy);
  const residual = Math.max(0, syy - slope * sxy);
  // A perfect fit has no residual: its t and F are unbounded.
  const t = residual > 0 ? slope / Math.sqrt(residual / (n - 2) / sxx) : slope === 0 ? 0 : Math.sign(slope) * Infinity;
  const critical = tCritical95(n - 2);
  const criteria = [
    { criterion: 'R² ≥ 0.80', value: r2, met: r2 >= 0.8 },
    { criterion: 'slope −0.80 to −1.25', value: slope, met: slope <= -0.8 && slope >= -1.25 },
    {
      criterion: `t of the slope significant at 95 % (|t| > ${critical}, ${n - 2} degrees of freedom)`,
      value: t,
      met: Math.abs(t) > critical,
    },
  ];
  return { n, slope, intercept, r2, t, f: t * t, t_critical: critical, criteria, met: criteria.every((c) => c.met) };
}

/** A ratio as a percentage to the tenth (`101.7 %`), as the framework's line says it. */
export const percent = (ratio: number) => `${(ratio * 100).toFixed(1)} %`;

/** The period's offset ratio as the method reads it (a regression's: minus its slope), what the test says of it under
 * the framework, and whether it ends hedge accounting (IAS 39 and ASC 815 only). */
function judge(
  { framework, method }: RelationshipRules,
  moments: ReturnType<typeof regressionMoments>,
  cumulative: number | null,
  period: number | null,
) {
  const rules = FRAMEWORK_RULES[framework];
  const line = rules.brightLine;
  const label = line ? rules.name : `${rules.name} diagnostic`;
  if (method === 'regression') {
    const [fit, n] = [moments.regress(), moments.count()];
    const said = 'regression of the instrument’s period changes on the hedged item’s';
    if (!fit)
      return {
        ratio: null,
        fit,
        line: `${label}: ${said}: ${plural(n, 'period change')}, fewer than the ${REGRESSION_MIN_N} it needs (or no change in the hedged item): not judged.`,
        fails: false,
      };
    const each = fit.criteria.map((c) => `${c.criterion} ${c.met ? 'met' : 'not met'}`).join('; ');
    return {
      ratio: -fit.slope,
      fit,
      line: `${label}: ${said}: ${each}${line ? (fit.met ? '.' : ': the test fails.') : '; IFRS 9 has no pass line (6.4.1(c)).'}`,
      fails: line !== null && !fit.met,
    };
  }
  const [ratio, fit] = [method === 'dollar_offset_period' ? period : cumulative, null];
  if (!line)
    return {
      ratio,
      fit,
      line: 'IFRS 9: no pass line; the ratio is a diagnostic of the economic relationship (6.4.1(c)).',
      fails: false,
    };
  if (ratio === null)
    return { ratio, fit, line: `${rules.name} 80–125 %: not measurable (no change in the hedged item).`, fails: false };
  const inside = ratio >= line[0] && ratio <= line[1];
  return {
    ratio,
    fit,
    line: `${rules.name} 80–125 %: ${percent(ratio)} is ${inside ? 'inside' : 'outside'} the line.`,
    fails: !inside,
  };
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

/** A date's place in months as an exact fraction; the last day of a month is the next month's start (a textbook's
 * "three months" from 1 October to 31 December). */
function monthPosition(date: string): Exact {
  const [y, m, d] = date.split('-').map(Number);
  const days = new Date(Date.UTC(y, m, 0)).getUTCDate();
  const months = BigInt(y * 12 + m - 1);
  return d === days ? [months + 1n, 1n] : [months * BigInt(days) + BigInt(d - 1), BigInt(days)];
}

function amortised(plan: RelationshipRules['amortisation'], end: string) {
  if (!plan) return 0n;
  // A date's place on the basis: in months, or in days.
  const position =
    plan.basis === 'months' ? monthPosition : (date: string): Exact => [BigInt(daysBetween(plan.from, date)), 1n];
  const [elapsed, span] = [end, plan.to].map((date) => sub(position(date), position(plan.from)));
  if (span[0] <= 0n) return plan.total;
  const [n, d] = div(elapsed, span);
  if (n <= 0n) return 0n;
  if (n >= d) return plan.total;
  return roundDiv(plan.total * n, d);
}

/** A row's amounts in cents as JSON numbers (exact to the cent as JSON writes them), the rest as it is. */
const inNumbers = <T extends object>(row: T) =>
  mapChildren(row, (value) => (typeof value === 'bigint' ? centsNumber(value) : value)) as {
    [K in keyof T]: T[K] extends bigint ? number : T[K] extends bigint | null ? number | null : T[K];
  };

const ONE: Exact = [1n, 1n];
/** A share of an amount in cents, rounded once. */
const shareOf = (share: Exact, cents: Cents) => roundDiv(cents * share[0], share[1]);
// A period's status names its most telling event (every event of the period is listed beside it).
const STATUS_ORDER = [
  'failed',
  'occurred',
  'disposed',
  'de-designated',
  'terminated',
  'settled',
  'rebalanced',
] as const;

/** Each period's effectiveness, reserves, excluded part and settlements, from cumulative values in date order, with
 * the relationship's events applied on their dates. Stops after the period in which the instrument is settled and the
 * whole transaction has happened (or is no longer expected). */
export function rollForward(periods: readonly PeriodValues[], rules: RelationshipRules) {
  const row = ruleOf(rules.framework, rules.type);
  const deferral = row.effective;
  const events = [...(rules.events ?? [])].sort((a, b) => a.date.localeCompare(b.date));
  let previous: PeriodValues = { end: rules.designatedAt, instrument: 0n, hedgedItem: 0n, excluded: 0n, fees: 0n };
  let [hedging, held, finished] = [true, true, false];
  let remaining: Exact = ONE;
  let share = rules.ratio ?? ONE;
  // The designated cumulative amounts at the last change of share, and the whole values then (rebalancing).
  let base = { instrument: 0n, excluded: 0n, designated: 0n, designatedExcluded: 0n };
  let [designatedSoFar, designatedExcludedSoFar] = [0n, 0n];
  let [deferred, reserve, costReserve, amortisedSoFar, carrying, deskSettled] = [0n, 0n, 0n, 0n, 0n, 0n];
  // A fair-value hedge's adjustment of a recognised item once hedge accounting has ended: amortised up to its date.
  let amortising: { plan: NonNullable<RelationshipRules['amortisation']>; done: Cents } | undefined;
  const moments = regressionMoments();
  let next = 0;
  const rows = [];
  for (const values of periods) {
    if (finished) break;
    const lastMet = previous.end;
    const todays: RuleEvent[] = [];
    while (next < events.length && events[next].date <= values.end) todays.push(events[next++]);
    const wasHedging = hedging;
    const instrumentMove = held ? values.instrument - previous.instrument : 0n;
    const excludedMove = held ? values.excluded - previous.excluded : 0n;
    const feesMove = values.fees - previous.fees;
    const itemMove = values.hedgedItem - previous.hedgedItem;
    // A recognised item is remeasured at spot until it is settled (its transaction).
    const remeasuredMove =
      rules.kind === 'recognised' && remaining[0] !== 0n ? (values.remeasured ?? 0n) - (previous.remeasured ?? 0n) : 0n;
    // The designated share of this period's values (a rebalancing changes it from its date on).
    // The share of the whole's change since the last rebalancing, from the exact value where it is known.
    const shareSince = (key: 'instrument' | 'excluded', since: Cents) =>
      values.exact ? toCents(mul(share, sub(values.exact[key], [since, 100n]))) : shareOf(share, values[key] - since);
    const designatedNow = base.designated + shareSince('instrument', base.instrument);
    const designatedExcludedNow = base.designatedExcluded + shareSince('excluded', base.excluded);
    const designatedMove = hedging ? designatedNow - designatedSoFar : 0n;
    if (hedging) moments.add([Number(itemMove) / 100, Number(designatedMove) / 100]);
    const cumulativeRatio = ratioOf(-designatedNow, values.hedgedItem);
    const periodRatio = ratioOf(-designatedMove, itemMove);
    const test = hedging ? judge(rules, moments, cumulativeRatio, periodRatio) : null;
    const fails = test?.fails === true;
    // A failed test ends hedge accounting from the last period end it was met: this period's change is not deferred.
    const accounted = hedging && !fails;
    let [effective, ineffective, excludedDesignated] = [0n, 0n, 0n];
    if (accounted) {
      // A fair-value hedge's balance is the hedged item's own change (what its remeasurement at spot does not carry),
      // a credit positive; the instrument's designated change goes to profit or loss beside it.
      const itemOwn = values.hedgedItem - (rules.kind === 'recognised' ? (values.remeasured ?? 0n) : 0n);
      const target =
        deferral === 'whole'
          ? designatedNow
          : deferral === 'lower_of'
            ? lowerOf(designatedNow, values.hedgedItem)
            : -itemOwn;
      effective = target - deferred;
      deferred += effective;
      ineffective = deferral === 'hedged_item' ? designatedMove + itemMove : designatedMove - effective;
      excludedDesignated = designatedExcludedNow - designatedExcludedSoFar;
      designatedSoFar = designatedNow;
      designatedExcludedSoFar = designatedExcludedNow;
    }
    const undesignated = instrumentMove + excludedMove - (accounted ? designatedMove + excludedDesignated : 0n);
    carrying += instrumentMove + excludedMove;
    // The excluded part: to its reserve while designated (what is amortised leaves it for profit or loss).
    const toReserve = accounted && rules.excluded !== 'pnl';
    const amortisedNow = toReserve ? amortised(rules.amortisation, values.end) : amortisedSoFar;
    const amortisation = amortisedNow - amortisedSoFar;
    amortisedSoFar = amortisedNow;
    const costMovement = toReserve ? excludedDesignated - amortisation : 0n;
    const excludedToPnl = toReserve ? amortisation : excludedDesignated;
    const [reserveOpen, costOpen] = [reserve, costReserve];
    reserve += effective;
    costReserve += costMovement;
    // A recognised item is remeasured in profit or loss each period: a cash-flow hedge's reserve releases the offset.
    let reclassified = accounted && rules.kind === 'recognised' && row.offsetsRemeasurement ? -itemMove : 0n;
    reserve -= reclassified;
    if (amortising) {
      const now = amortised(amortising.plan, values.end);
      reclassified += now - amortising.done;
      reserve -= now - amortising.done;
      amortising.done = now;
    }
    let [costReclassified, released, costReleased] = [0n, 0n, 0n];
    // What the values say was settled (the desk's closed hedges); an event settles the rest.
    let settledNow = values.settled === undefined ? 0n : values.settled - deskSettled;
    deskSettled = values.settled ?? deskSettled;
    let grossSettlement = false;
    const happened: string[] = fails ? ['failed'] : [];
    if (fails) hedging = false;
    // Each reserve's `part` reclassified; what was reclassified.
    const reclassify = (part: Exact) => {
      const [now, costNow] = [shareOf(part, reserve), shareOf(part, costReserve)];
      reclassified += now;
      costReclassified += costNow;
      reserve -= now;
      costReserve -= costNow;
      return [now, costNow];
    };
    for (const event of todays) {
      happened.push(event.type);
      if (event.type === 'rebalanced') {
        if (hedging) {
          base = {
            instrument: values.instrument,
            excluded: values.excluded,
            designated: designatedNow,
            designatedExcluded: designatedExcludedNow,
          };
          share = event.ratio ?? share;
        }
        continue;
      }
      // A partial disposal leaves the rest of the net investment hedged.
      if (event.type !== 'disposed') hedging = false;
      if (event.type === 'occurred' || event.type === 'disposed') {
        // The share of what is left that happens now (all of it without a share).
        const portion = event.share ? div(event.share, remaining) : ONE;
        const part = portion[0] >= portion[1] ? ONE : portion;
        reclassify(part);
        remaining = part === ONE ? [0n, 1n] : sub(remaining, event.share!);
        if (remaining[0] === 0n) hedging = false;
        // What is still amortised is what is left of it.
        if (amortising) amortising = { plan: { ...amortising.plan, total: reserve, from: values.end }, done: 0n };
      } else if (event.type === 'de-designated') {
        if (event.stillExpected === false) {
          [released, costReleased] = reclassify(ONE);
          remaining = [0n, 1n];
        }
      } else if (held) {
        // Terminated or settled: the derivative taken off the books against cash (with the currency it delivers at
        // maturity).
        settledNow = carrying;
        grossSettlement = event.type === 'settled' && values.delivered !== undefined;
        held = false;
      }
    }
    carrying -= settledNow;
    // A recognised item's fair-value adjustment, once hedge accounting ends, is amortised from then to its date.
    if (wasHedging && !hedging && !amortising && row.discontinued === 'amortised' && rules.kind === 'recognised')
      amortising = { plan: { total: reserve, from: values.end, to: rules.itemDate ?? values.end }, done: 0n };
    if (remaining[0] === 0n) amortising = undefined;
    finished = !held && remaining[0] === 0n;
    const status = STATUS_ORDER.find((s) => happened.includes(s)) ?? (wasHedging ? 'designated' : 'ended');
    // A recognised item settled in its currency when its transaction happens.
    const itemSettled =
      happened.includes('occurred') && rules.kind === 'recognised' && values.itemAtSpot !== undefined
        ? values.itemAtSpot
        : null;
    previous = values;
    const point = {
      period_end: values.end,
      status,
      events: todays.map(({ type, date, reason }) => withoutUndefined({ type, date, reason })),
      instrument_change: designatedNow,
      hedged_item_change: values.hedgedItem,
      /** The designated share of the instrument in this period. */
      designated_share: exactText(share),
      /** The offset ratio the method reads: -instrument / hedged item (1 is a perfect offset). */
      ratio: test && test.ratio,
      ratio_cumulative: cumulativeRatio,
      ratio_period: periodRatio,
      regression: rules.method === 'regression' ? (test?.fit ?? { n: moments.count(), judged: false }) : null,
      /** IFRS 9 6.5.11(a): the lower, in absolute amounts, of the instrument's and the hedged item's cumulative change. */
      lower_of: lowerOf(designatedNow, values.hedgedItem),
      effective,
      ineffective,
      /** The balance the effective part goes to (its journal role): the roll-forward's `reserve_` figures are its. */
      balance: row.balance,
      /** Changes of the instrument not designated: its undesignated share, and all of it once hedge accounting ended. */
      undesignated,
      excluded: excludedDesignated,
      /** Where the period's excluded part went: its reserve (less what is amortised) or profit or loss. */
      excluded_to: toReserve ? 'cost_of_hedging_reserve' : 'pnl',
      excluded_to_pnl: excludedToPnl,
      cost_of_hedging_open: costOpen,
      cost_of_hedging_movement: costMovement,
      cost_of_hedging_reclassified: costReclassified,
      cost_of_hedging_close: costReserve,
      fees: feesMove,
      reserve_open: reserveOpen,
      reserve_close: reserve,
      reclassified,
      /** Of what was reclassified, both reserves' release to profit or loss because the transaction is no longer expected. */
      released_to_pnl: released + costReleased,
      released_reserve: released,
      /** The share of the hedged transaction still to happen. */
      transaction_remaining: Number(remaining[0]) / Number(remaining[1]),
      remeasured: remeasuredMove,
      settled: settledNow,
      settled_delivered: grossSettlement ? values.delivered! : null,
      item_settled: itemSettled,
      instrument_carrying: carrying,
      /** The pass line of the framework whose line it is; under IFRS 9 the ratio is a diagnostic. */
      line: test
        ? fails
          ? `${test.line} Hedge accounting ends from ${lastMet}, the last date the test was met: this period's whole change goes to profit or loss; ${row.afterwards} (${row.cites.discontinuation}).`
          : test.line
        : 'Not designated in this period: no test.',
    };
    // The amounts as JSON numbers; the entries post them as cents, never through a floating-point number.
    // The designated change of the period, for the entries of a kind whose effective part is not the instrument's.
    const cents = {
      ...point,
      settlements: values.settlements ?? [],
      type: row.type,
      designated: accounted ? designatedMove : 0n,
    };
    rows.push({ ...inNumbers(point), cents });
  }
  return rows;
}

type Point = ReturnType<typeof rollForward>[number]['cents'];
type Summed = {
  [K in keyof Point]: Point[K] extends bigint ? K : never;
}[keyof Point];

/** The amounts of a period summed over its points; balances from the first point's opening to the last one's close. */
const SUMMED = [
  'effective',
  'ineffective',
  'undesignated',
  'excluded',
  'excluded_to_pnl',
  'cost_of_hedging_movement',
  'cost_of_hedging_reclassified',
  'fees',
  'reclassified',
  'released_to_pnl',
  'released_reserve',
  'remeasured',
  'settled',
] as const satisfies readonly Summed[];

/** The books' periods: a row a calendar month (UTC), from the relationship's points in it (its month end, and each
 * event's day, valued on that day): the month's amounts summed, its balances from its first opening to its last
 * close, the cumulative changes and the test as the month's last point has them (or the point whose test failed). */
export function monthRows(points: ReadonlyArray<ReturnType<typeof rollForward>[number]>) {
  const months = new Map<string, Point[]>();
  for (const { cents } of points) {
    const month = cents.period_end.slice(0, 7);
    months.set(month, [...(months.get(month) ?? []), cents]);
  }
  let before: Point | undefined;
  return [...months].map(([period, list]) => {
    const [first, last] = [list[0], list.at(-1)!];
    const judged = list.find((point) => point.status === 'failed') ?? last;
    const sum = (key: (typeof SUMMED)[number]) => list.reduce((total, point) => total + point[key], 0n);
    const orNull = (key: 'settled_delivered' | 'item_settled') =>
      list.some((point) => point[key] !== null) ? list.reduce((total, point) => total + (point[key] ?? 0n), 0n) : null;
    const row = {
      period,
      period_end: last.period_end,
      status: STATUS_ORDER.find((status) => list.some((point) => point.status === status)) ?? last.status,
      events: list.flatMap((point) => point.events),
      instrument_change: last.instrument_change,
      hedged_item_change: last.hedged_item_change,
      designated_share: last.designated_share,
      ratio: judged.ratio,
      ratio_cumulative: last.ratio_cumulative,
      // The month's changes' ratio, whatever points it holds.
      ratio_period: ratioOf(
        -(last.instrument_change - (before?.instrument_change ?? 0n)),
        last.hedged_item_change - (before?.hedged_item_change ?? 0n),
      ),
      regression: judged.regression,
      lower_of: last.lower_of,
      ...(Object.fromEntries(SUMMED.map((key) => [key, sum(key)])) as Record<(typeof SUMMED)[number], bigint>),
      excluded_to: last.excluded_to,
      cost_of_hedging_open: first.cost_of_hedging_open,
      cost_of_hedging_close: last.cost_of_hedging_close,
      balance: last.balance,
      reserve_open: first.reserve_open,
      reserve_close: last.reserve_close,
      transaction_remaining: last.transaction_remaining,
      settled_delivered: orNull('settled_delivered'),
      item_settled: orNull('item_settled'),
      instrument_carrying: last.instrument_carrying,
      line: judged.line,
    };
    before = last;
    return row;
  });
}
export type MonthRow = ReturnType<typeof monthRows>[number];

/** A row's amounts as JSON numbers (exact to the cent), the rest as it is. */
export const asNumbers = inNumbers;

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
  /** A spot designation whose spot changes (the hedged item's and the forward's spot element) are discounted to the
   * cash-flow date (the day's discount factor). */
  discountHedgedItem?: boolean;
}

/** A row's forward or discount factor, or a refusal naming the date and the column. */
export function need(row: RateRow, what: 'forward' | 'discountFactor') {
  const found = row[what];
  if (found === undefined) throw new MissingRate(row.date, what === 'forward' ? 'forward' : 'discount_factor');
  return found;
}

// The forward sells what the item receives (and buys what it pays).
const forwardSide = ({ hedgedAmount }: ForwardTerms): Exact => (hedgedAmount[0] > 0n ? [-1n, 1n] : [1n, 1n]);

/** The cumulative values of an external forward and its hedged item from the rates at designation and at `at`, with
 * what a settlement that day would deliver and the item's amount and remeasurement at the day's spot. */
export function forwardValues(terms: ForwardTerms, quote: Quote, start: RateRow, at: RateRow) {
  const { hedgedAmount, notional, contractRate, designation } = terms;
  const side = forwardSide(terms);
  const value = (amount: Exact, rate: Exact) => inFunctional(amount, rate, quote);
  const discount = need(at, 'discountFactor');
  // The forward's whole value at a date; measured from designation: a forward designated after it was struck (a
  // re-designation) brings none of its earlier change.
  const wholeAt = (row: RateRow) =>
    mul(
      mul(side, sub(value(notional, need(row, 'forward')), value(notional, contractRate))),
      need(row, 'discountFactor'),
    );
  const whole = sub(wholeAt(at), wholeAt(start));
  const remeasured = spotChange(hedgedAmount, quote, start, at);
  const atSpot = {
    remeasured: toCents(remeasured),
    // The forward delivers its notional (side negative: it sells it) and the item is settled at the day's spot.
    delivered: toCents(mul(side, value(notional, at.spot))),
    itemAtSpot: toCents(value(hedgedAmount, at.spot)),
  };
  if (designation === 'forward') {
    const item = mul(
      sub(value(hedgedAmount, need(at, 'forward')), value(hedgedAmount, need(start, 'forward'))),
      discount,
    );
    return { instrument: toCents(whole), hedgedItem: toCents(item), excluded: 0n, ...atSpot };
  }
  const spot = spotChanges(terms, quote, start, at);
  const instrument = toCents(spot.instrument);
  return { instrument, hedgedItem: toCents(spot.hedgedItem), excluded: toCents(whole) - instrument, ...atSpot };
}

/** A spot designation's changes since designation, exact: the forward's spot element and the hedged item's, each
 * discounted to the cash-flow date with `discountHedgedItem`. */
export function spotChanges(terms: ForwardTerms, quote: Quote, start: RateRow, at: RateRow) {
  const instrument = mul(forwardSide(terms), spotChange(terms.notional, quote, start, at));
  const hedgedItem = spotChange(terms.hedgedAmount, quote, start, at);
  if (!terms.discountHedgedItem) return { instrument, hedgedItem };
  // Ramirez's worked example discounts the spot element with the item: one discounted alone is ineffectiveness.
  const discount = need(at, 'discountFactor');
  return { instrument: mul(instrument, discount), hedgedItem: mul(hedgedItem, discount) };
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

/** An amount's change in the functional currency from the spot at designation to the spot at `at`, exact. */
const spotChange = (amount: Exact, quote: Quote, start: RateRow, at: RateRow) =>
  sub(inFunctional(amount, at.spot, quote), inFunctional(amount, start.spot, quote));

/** The hedged item's change alone (a relationship whose instrument is the desk's hedges): by spot. */
export const hedgedItemBySpot = (amount: Exact, quote: Quote, start: RateRow, at: RateRow) =>
  toCents(spotChange(amount, quote, start, at));

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
  'hedged_item_adjustment',
  'translation_reserve',
  'fair_value_hedge_result',
  'cost_of_hedging_reserve',
  'hedge_ineffectiveness',
  'excluded_component',
  'undesignated_derivative',
  'fees',
  'reclassification',
  'basis_adjustment',
  'reserve_release',
  'hedged_item',
  'hedged_item_remeasurement',
  'cash',
  'foreign_currency',
] as const;
export type Role = (typeof ROLES)[number];
type Lines = Partial<Record<Role, Cents>>;

/** Each kind of hedge's entry template: where the instrument's designated change of a period goes (beside the
 * hedging instrument, the undesignated and the excluded parts, common to all) and any entry of its own. A new kind of
 * hedge is a row in each framework's table and a template here. */
export const ENTRY_TEMPLATES: Record<HedgeType, (point: Point) => { designated: Lines; own?: Record<string, Lines> }> =
  {
    cash_flow: ({ effective, ineffective }) => ({
      designated: { cash_flow_hedge_reserve: -effective, hedge_ineffectiveness: -ineffective },
    }),
    // Both changes to profit or loss, in one line: what is left there is the ineffectiveness.
    fair_value: ({ designated, effective }) => ({
      designated: { fair_value_hedge_result: -designated },
      own: {
        'the hedged item’s change for the hedged risk, in its carrying amount': {
          fair_value_hedge_result: effective,
          hedged_item_adjustment: -effective,
        },
      },
    }),
    net_investment: ({ effective, ineffective }) => ({
      designated: { translation_reserve: -effective, hedge_ineffectiveness: -ineffective },
    }),
  };

/** The period's entries, each balanced: the instrument's remeasurement, amortisation, the recognised item's
 * remeasurement, fees, reclassification, a release to profit or loss, the item's and the instrument's settlement; a
 * desk hedge closed in the period is settled, and its fees paid, on its own day at that day's rate. */
export function periodEntries(
  relationshipId: string,
  result: ReturnType<typeof rollForward>[number],
  reclassifiedTo: 'reclassification' | 'basis_adjustment' = 'reclassification',
) {
  const {
    designated,
    balance,
    undesignated,
    excluded,
    fees: feesMove,
    excluded_to_pnl: amortisedToPnl,
    reclassified,
    cost_of_hedging_reclassified: costReclassified,
    released_to_pnl: released,
    released_reserve: releasedReserve,
    remeasured,
    settled,
    settled_delivered: delivered,
    item_settled: itemSettled,
    settlements,
  } = result.cents;
  const toReserve = result.excluded_to === 'cost_of_hedging_reserve';
  // What the hedges closed in the period settled on their own days; the period end settles the rest (an event's).
  const [closedFees, closedSettled] = settlements.reduce(
    ([fees, cash], each) => [fees + each.fees, cash + each.gross + each.carry],
    [0n, 0n],
  );
  const [endFees, endSettled] = [feesMove - closedFees, settled - closedSettled];
  const template = ENTRY_TEMPLATES[result.cents.type](result.cents);
  // Each entry's lines, by role, in order.
  const entries: Record<string, Lines> = {
    'remeasurement of the hedging instrument': {
      hedging_instrument: designated + undesignated + excluded,
      ...template.designated,
      undesignated_derivative: -undesignated,
      [toReserve ? 'cost_of_hedging_reserve' : 'excluded_component']: -excluded,
    },
    ...template.own,
    'amortisation of the excluded part': toReserve
      ? { excluded_component: -amortisedToPnl, cost_of_hedging_reserve: amortisedToPnl }
      : {},
    'remeasurement of the hedged item at spot': { hedged_item: remeasured, hedged_item_remeasurement: -remeasured },
    fees: { fees: -endFees, cash: endFees },
    'reclassification of the reserves': {
      [balance]: reclassified - releasedReserve,
      cost_of_hedging_reserve: costReclassified - (released - releasedReserve),
      [reclassifiedTo]: -(reclassified + costReclassified - released),
    },
    'release of the reserves: the transaction is no longer expected': {
      [balance]: releasedReserve,
      cost_of_hedging_reserve: released - releasedReserve,
      reserve_release: -released,
    },
    'the hedged item settled in its currency': {
      foreign_currency: itemSettled ?? 0n,
      hedged_item: -(itemSettled ?? 0n),
    },
    'settlement of the hedging instrument':
      delivered === null
        ? { cash: endSettled, hedging_instrument: -endSettled }
        : { foreign_currency: delivered, cash: endSettled - delivered, hedging_instrument: -endSettled },
  };
  const closes = settlements.map((each) => ({
    date: each.date,
    hedgeId: each.hedgeId,
    rate: each.rate,
    entries: {
      'settlement of a hedge closed: its price P&L and carry, at its day’s rate': {
        cash: each.gross + each.carry,
        hedging_instrument: -(each.gross + each.carry),
      },
      'fees of a hedge closed, at its day’s rate': { fees: -each.fees, cash: each.fees },
    } as Record<string, Partial<Record<Role, Cents>>>,
  }));
  const end = result.period_end;
  // In date order; on the period's own day its entries come before a hedge closed that day.
  const groups = [
    ...closes.filter((each) => each.date < end).sort((a, b) => a.date.localeCompare(b.date)),
    { date: end, entries, hedgeId: undefined, rate: undefined },
    ...closes.filter((each) => each.date >= end),
  ];
  const numbered = new Map<string, number>();
  return groups.flatMap(({ date, entries, hedgeId, rate }) =>
    Object.entries(entries).flatMap(([description, lines]) => {
      const kept = (Object.entries(lines) as Array<[Role, Cents]>).filter(([, amount]) => amount !== 0n);
      if (!kept.length) return [];
      const n = (numbered.get(date) ?? 0) + 1;
      numbered.set(date, n);
      const entry_id = `${relationshipId}/${date}/${n}`;
      // amount: positive a debit, negative a credit (cents).
      return kept.map(([role, amount]) => ({
        entry_id,
        relationship_id: relationshipId,
        date,
        role,
        amount,
        description,
        ...(hedgeId !== undefined && { hedge_id: hedgeId }),
        ...(rate !== undefined && { rate }),
      }));
    }),
  );
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
  /** When it matures, where its record says (the disclosures' timing profile). */
  maturityMs?: number;
  /** What its history record realized (gross price P&L, carry and fees, on the account's side, USD) and when. */
  closed?: { atMs: number; gross: Exact; carry: Exact; fees: Exact };
}

/** A day's recorded rate as a desk hedge is marked at it: the mid, the server's time it was read at (a rate imported
 * from a file: the end of its day), the carry each open hedge had accrued then, and where it came from. */
export interface Mark {
  date: string;
  spot: Exact;
  atMs: number;
  carry: ReadonlyMap<string, Exact>;
  source?: string;
}

const ZERO: Exact = [0n, 1n];

/** The price P&L in USD of `notional` bought (or sold) at `entry`, at `mark`: N × (M − E) / M, as `history` has it. */
function grossAt(side: 'buy' | 'sell', notional: Exact, entry: Exact, mark: Exact): Exact {
  const buy = div(mul(notional, sub(mark, entry)), mark);
  return side === 'buy' ? buy : [-buy[0], buy[1]];
}

/** The carry a hedge open at `at` had accrued then: the one recorded with that rate, else pro rata to the time held,
 * from the nearest one recorded of it (a hedge's carry accrues evenly on its notional). */
function carryAt(hedge: DeskHedge, at: Mark, observed: ReadonlyMap<string, { atMs: number; carry: Exact }>) {
  const own = at.carry.get(hedge.id);
  if (own) return own;
  const seen = observed.get(hedge.id);
  if (!seen || seen.atMs <= hedge.openedMs) return undefined;
  return div(mul(seen.carry, [BigInt(at.atMs - hedge.openedMs), 1n]), [BigInt(seen.atMs - hedge.openedMs), 1n]);
}

/** A desk hedge closed: its price P&L and carry settled in cash and its fees paid, fixed in the functional currency
 * at the rate of the day it closed and never translated again (IAS 21.21–22), in cents: the cents the running total
 * of the hedges closed reaches with it, less those before it (so that what is settled adds up to the total rounded
 * once, and a settlement once made never changes). */
export interface Settlement {
  date: string;
  hedgeId: string;
  gross: Cents;
  carry: Cents;
  fees: Cents;
  /** The day's rate it was translated at (none for books in USD without a rate that day). */
  rate?: Mark;
}

/** A day's rate was needed and none is recorded: `why` says what for. */
export class NoRate extends Error {
  constructor(
    readonly date: string,
    readonly why: string,
  ) {
    super(`no rate for ${date} (${why})`);
  }
}

/** The desk's hedges as a relationship's instrument, valued at the end of a day in the functional currency. */
export interface DeskBook {
  hedges: readonly DeskHedge[];
  /** The day designated: a hedge opened before it counts from its value at that day's rate, any other from nil. */
  designatedAt: string;
  /** The rate recorded for a day, or none. */
  markOn: (date: string) => Mark | undefined;
  /** USD in the functional currency at a spot, exactly; none for books kept in USD. */
  translate?: (usd: Exact, spot: Exact) => Exact;
  /** Each hedge's latest recorded carry, for a rate recorded without it (imported, or read before it opened). */
  observed: ReadonlyMap<string, { atMs: number; carry: Exact }>;
}

type Parts = { gross: Exact; carry: Exact };

/** The hedges' change since designation at the end of `date`, exact, each hedge measured from its value at
 * designation (nil for one opened on or after that day): one closed on or before `date` at what it realized, fixed at
 * the rate of the day it closed; one filled by the time the day's rate was read marked at it (price P&L and carry,
 * translated at it); one filled after that reading counts from the next day valued. With the settlements of the
 * hedges closed by then, and a hedge open then whose entry or carry is not known named, so that the day is refused
 * rather than guessed. */
export function deskValuer(book: DeskBook) {
  const { designatedAt, markOn, translate, observed } = book;
  const dayOf = (ms: number) => utcDay(ms);
  const opensBefore = (hedge: DeskHedge) => dayOf(hedge.openedMs) < designatedAt;
  // A hedge closed before the designation's day, or held into it and closed on it, changes nothing of the relationship.
  const hedges = book.hedges.filter(
    (hedge) =>
      !hedge.closed ||
      dayOf(hedge.closed.atMs) > designatedAt ||
      (dayOf(hedge.closed.atMs) === designatedAt && !opensBefore(hedge)),
  );
  const inBooks = (usd: Exact, spot: Exact) => (translate ? translate(usd, spot) : usd);
  const mark = (date: string, why: string) => {
    const found = markOn(date);
    if (!found) throw new NoRate(date, why);
    return found;
  };
  // The hedges closed, in the order they closed, each fixed at its day's rate, with the cents the running totals reach.
  const closed = hedges
    .filter((hedge) => hedge.closed)
    .sort((a, b) => a.closed!.atMs - b.closed!.atMs || a.id.localeCompare(b.id));
  const fixed = new Map<string, Parts & { fees: Exact; settlement: Settlement }>();
  const totals = { gross: ZERO, carry: ZERO, fees: ZERO };
  const settledTotal = (hedge: DeskHedge) => {
    const known = fixed.get(hedge.id);
    if (known) return known;
    for (const each of closed) {
      if (fixed.has(each.id)) continue;
      const date = dayOf(each.closed!.atMs);
      const rate = translate ? mark(date, `${each.id} closed that day`) : markOn(date);
      const amounts = {
        gross: rate ? inBooks(each.closed!.gross, rate.spot) : each.closed!.gross,
        carry: rate ? inBooks(each.closed!.carry, rate.spot) : each.closed!.carry,
        fees: rate ? inBooks(each.closed!.fees, rate.spot) : each.closed!.fees,
      };
      const step = (key: keyof typeof totals) => {
        const before = toCents(totals[key]);
        totals[key] = add(totals[key], amounts[key]);
        return toCents(totals[key]) - before;
      };
      const settlement = {
        date,
        hedgeId: each.id,
        gross: step('gross'),
        carry: step('carry'),
        fees: step('fees'),
        ...(rate && { rate }),
      };
      fixed.set(each.id, { ...amounts, settlement });
      if (each === hedge) return fixed.get(hedge.id)!;
    }
    return fixed.get(hedge.id)!;
  };
  const hedgeAt = (hedge: DeskHedge, date: string): Parts | 'unknown' | undefined => {
    if (hedge.closed && dayOf(hedge.closed.atMs) <= date) return settledTotal(hedge);
    if (dayOf(hedge.openedMs) > date) return undefined;
    const at = mark(date, `${hedge.id} was held`);
    if (hedge.openedMs > at.atMs) return undefined;
    const carry = carryAt(hedge, at, observed);
    if (!hedge.entry || !carry) return 'unknown';
    const gross = grossAt(hedge.side, hedge.notional, hedge.entry, at.spot);
    return { gross: inBooks(gross, at.spot), carry: inBooks(carry, at.spot) };
  };
  const base = new Map(
    hedges.map((hedge) => [hedge.id, opensBefore(hedge) ? hedgeAt(hedge, designatedAt) : undefined]),
  );
  return (date: string) => {
    let [instrument, excluded] = [ZERO, ZERO];
    const settlements: Settlement[] = [];
    const unknown: string[] = [];
    for (const hedge of hedges) {
      const [now, then] = [hedgeAt(hedge, date), base.get(hedge.id)];
      if (now === 'unknown' || then === 'unknown') {
        unknown.push(hedge.id);
        continue;
      }
      instrument = add(instrument, sub(now?.gross ?? ZERO, then?.gross ?? ZERO));
      excluded = add(excluded, sub(now?.carry ?? ZERO, then?.carry ?? ZERO));
    }
    // In the order they closed.
    for (const hedge of closed) {
      const settled = fixed.get(hedge.id)?.settlement;
      if (settled && settled.date <= date) settlements.push(settled);
    }
    const sum = (key: 'gross' | 'carry' | 'fees') => settlements.reduce((total, each) => total + each[key], 0n);
    return { instrument, excluded, fees: sum('fees'), settled: sum('gross') + sum('carry'), settlements, unknown };
  };
}

// ---- Critical terms: the instrument's terms against the hedged item's, each matched or not ----

/** The terms compared; the instrument's amount is in the hedged item's currency (converted at the designation's rate
 * by the caller when the instrument is in another currency), its maturity a UTC day. */
export interface CriticalTermsInput {
  instrument: { amount: Exact | null; currency: string | null; maturity: string | null; market: string | null };
  ratio: Exact;
  item: { amount: Exact; currency: string; expectedDate: string; market: string };
  /** ASC 815 matches the maturity within one 31-day period or fiscal month (815-20-25-84): the one the relationship
   * documents, else either; the other frameworks to the day. */
  framework?: Framework;
  maturityMatch?: 'within_31_days' | 'same_fiscal_month';
}

/** How a maturity matches the expected date: ASC 815-20-25-84's 31-day period (at most 30 days apart) or fiscal month
 * (the books' months are calendar months), the one documented or either; to the day under IFRS 9 and IAS 39. */
function maturityMatch(framework: Framework | undefined, documented: CriticalTermsInput['maturityMatch']) {
  if (framework !== 'asc815') return { rule: 'same_day', judge: (days: number) => days === 0 } as const;
  return {
    rule: documented ?? 'within_31_days or same_fiscal_month',
    judge: (days: number, within: boolean, month: boolean) =>
      documented === 'within_31_days' ? within : documented === 'same_fiscal_month' ? month : within || month,
    asc: true,
  } as const;
}

/** Each critical term matched or not (hedge says which; whether they are enough is the user's judgement): the
 * notional × ratio against the item's amount to the cent, the currencies, the maturity against the expected date
 * (with the days apart: the instrument's later is positive; under ASC 815 both of its tests and the rule applied) and
 * the underlying market. */
export function criticalTerms({ instrument, ratio, item, framework, maturityMatch: documented }: CriticalTermsInput) {
  const itemCents = absCents(toCents(item.amount));
  const covered = instrument.amount === null ? null : absCents(toCents(mul(instrument.amount, ratio)));
  const daysApart = instrument.maturity === null ? null : daysBetween(item.expectedDate, instrument.maturity);
  const timing = maturityMatch(framework, documented);
  const within = daysApart !== null && Math.abs(daysApart) <= 30;
  const sameMonth = instrument.maturity?.slice(0, 7) === item.expectedDate.slice(0, 7);
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
    maturity: term(
      instrument.maturity,
      item.expectedDate,
      daysApart !== null && timing.judge(daysApart, within, sameMonth),
      {
        days_apart: daysApart,
        ...('asc' in timing && { within_31_days: daysApart !== null && within, same_fiscal_month: sameMonth }),
        rule: timing.rule,
      },
    ),
    underlying: term(instrument.market, item.market),
  };
  return { ...terms, matched: Object.values(terms).every((term) => term.matched) };
}
type CriticalTerms = ReturnType<typeof criticalTerms>;

/** One line of the terms for a terminal: each term, both sides and whether it matched. */
export function criticalTermsLine(terms: CriticalTerms) {
  const said = (name: string, term: CriticalTerms['amount'], extra = '') =>
    `${name} ${term.instrument ?? 'unknown'} vs ${term.hedged_item}${extra} ${term.matched ? 'matched' : 'not matched'}`;
  const { days_apart: apart, rule } = terms.maturity;
  const tests =
    'within_31_days' in terms.maturity
      ? `; ${terms.maturity.within_31_days ? 'within' : 'not within'} one 31-day period, ${terms.maturity.same_fiscal_month ? 'the same' : 'not the same'} fiscal month; ASC 815-20-25-84, ${rule === 'within_31_days or same_fiscal_month' ? 'either' : rule.replaceAll('_', ' ')}`
      : '';
  return [
    said('amount (notional × ratio)', terms.amount),
    said('currency', terms.currency),
    said('maturity', terms.maturity, apart === null ? '' : ` (${Math.abs(apart)} days apart${tests})`),
    said('underlying', terms.underlying),
  ].join('; ');
}
