// A period's hedge-accounting disclosures from one entity's books: IFRS 7's (23B, 24A–24C, 24E–24F) for relationships
// under IFRS 9 and IAS 39, ASC 815's tabular ones (815-10-50-1B, 4A, 4C, 4CC, 4EE; 815-30-50-1; 815-35-50-1) under
// ASC 815; by risk category (the market) and type of hedge, in each functional currency. Each relationship's row of the
// rules table says which lines are its: a cash-flow hedge's reserve, a net investment's translation reserve, a
// fair-value hedge's adjustment of the hedged item, never summed together. Made from the month rows the ledger prints
// (a closed month's as posted) and the instruments held at the period's end; a line per figure, with its paragraph.
import { utcDay } from '../../core/utc-text.js';
import {
  add,
  centsNumber,
  div,
  exact,
  exactText,
  mul,
  roundDiv,
  toCents,
  type Cents,
  type Exact,
} from './acct-money.js';
import { booksFor, type LedgerPorts } from './acct-ledger.js';
import { deskFacts } from './acct-books.js';
import { occurrenceTarget, quoteFor, type Designation } from './acct.js';
import type { Relationship } from './acct-files.js';
import { inFunctional, ruleOf, type Framework, type HedgeType, type TypeRules } from './acct-rules.js';

type Row = Record<string, unknown>;

/** A figure disclosed: the paragraph it answers, its risk category and type of hedge, what it is, the line of the
 * statements it sits in, and the amount (with the average rate of a nominal amount). */
export type Disclosed = {
  period: string;
  standard: 'IFRS 7' | 'ASC 815';
  paragraph: string;
  risk: string;
  hedge_type: string;
  item: string;
  line_item: string | null;
  amount: number | null;
  currency: string;
  average_rate: string | null;
  rate_quote: string | null;
};

const cents = (value: unknown): Cents => toCents(exact(String(value ?? 0))!);
const ZERO: Exact = [0n, 1n];

/** What one relationship contributes to its group over the period, in its functional currency's cents. */
interface Part {
  instrumentChange: Cents;
  itemChange: Cents;
  effective: Cents;
  ineffective: Cents;
  /** Reclassified because the hedged item affected profit or loss, or into an asset's cost (basis adjustment). */
  toPnl: Cents;
  basis: Cents;
  /** Released because the transaction is no longer expected. */
  released: Cents;
  adjustment: Cents;
  open: Cents;
  close: Cents;
  costOpen: Cents;
  costMovement: Cents;
  costReclassified: Cents;
  costAdjustment: Cents;
  costClose: Cents;
  /** The excluded part recognised in profit or loss (amortised, or as it changes). */
  excludedToPnl: Cents;
  /** Hedge accounting still applies at the period's end: its instrument's carrying amount (its designated share). */
  continuing: boolean;
  carrying: Cents;
  /** A fair-value hedge's hedged item at the period's end (an asset positive; nil once settled or transacted): its
   * carrying amount (a firm commitment's is its adjustment alone; a recognised item's, at the day's spot with it), the
   * line it sits in, and its adjustment. */
  item?: { carrying: Cents; role: 'hedged_item' | 'hedged_item_adjustment'; adjustment: Cents };
  /** The transaction's date (a net investment has none). */
  expected?: string;
}

/** A relationship's part of the period's figures from its month rows up to the period's end. */
function partOf(
  rel: Relationship,
  rules: TypeRules,
  rows: readonly Row[],
  months: { from: string; to: string },
  quote: string,
) {
  const within = rows.filter((row) => String(row.period) >= months.from && String(row.period) <= months.to);
  if (!within.length) return;
  const sum = (key: string) => within.reduce((total, row) => total + cents(row[key]), 0n);
  // The hedged item's change while hedge accounting applied: the change of its cumulative value in each month that
  // was not wholly after hedge accounting ended.
  let [itemChange, previous] = [0n, 0n];
  for (const row of rows.filter((each) => String(each.period) <= months.to && each.status !== 'ended')) {
    if (String(row.period) >= months.from) itemChange += cents(row.hedged_item_change) - previous;
    previous = cents(row.hedged_item_change);
  }
  const [first, last] = [within[0], within.at(-1)!];
  const released = sum('released_reserve');
  const reclassified = sum('reclassified') - released;
  const basis = occurrenceTarget(rel) === 'basis_adjustment';
  const continuing =
    String(last.period) === months.to && (last.status === 'designated' || last.status === 'rebalanced');
  const share = exact(String(last.designated_share ?? '1'))!;
  return {
    instrumentChange: sum('effective') + sum('ineffective'),
    itemChange,
    effective: sum('effective'),
    ineffective: sum('ineffective'),
    toPnl: basis ? 0n : reclassified,
    basis: basis ? reclassified : 0n,
    released,
    adjustment: sum('adjustment'),
    open: cents(first.reserve_open),
    close: cents(last.reserve_close),
    costOpen: cents(first.cost_of_hedging_open),
    costMovement: sum('cost_of_hedging_movement'),
    costReclassified: sum('cost_of_hedging_reclassified'),
    costAdjustment: sum('cost_of_hedging_adjustment'),
    costClose: cents(last.cost_of_hedging_close),
    excludedToPnl: sum('excluded_to_pnl'),
    continuing,
    carrying: continuing ? toCents(mul([cents(last.instrument_carrying), 100n], share)) : 0n,
    expected: rel.hedged_item.expected_date,
    // A balance that is the hedged item's adjustment: a fair-value hedge's item, carried with it.
    ...(rules.effective === 'hedged_item' && { item: itemAt(rel, last, quote) }),
  } satisfies Part;
}

/** A fair-value hedge's hedged item at a month row's end, an asset positive: a firm commitment is recognised by its
 * adjustment alone (a credit positive in the row, so a debit is an asset); a recognised item is carried at the day's
 * spot, its adjustment beside it. */
function itemAt(rel: Relationship, row: Row, quote: string): NonNullable<Part['item']> {
  const adjustment = -cents(row.reserve_close);
  const firm = rel.hedged_item.kind === 'firm';
  const role = firm ? 'hedged_item_adjustment' : 'hedged_item';
  if (!(Number(row.transaction_remaining) > 0)) return { carrying: 0n, role, adjustment: 0n };
  if (firm) return { carrying: adjustment, role, adjustment };
  const atSpot = inFunctional(exact(rel.hedged_item.amount)!, exact(String(row.rate))!, quoteFor(rel, quote));
  return { carrying: toCents(atSpot) + adjustment, role, adjustment };
}

/** An instrument held at the period's end: its designated nominal, in its currency, its rate and when it matures. */
interface Held {
  nominal: Exact;
  currency: string;
  rate: Exact;
  quote: string;
  maturity: string;
}

/** The months from a period's end to a maturity, in the timing profile's bands. */
function band(end: string, maturity: string) {
  const plus = (months: number) => {
    const [year, month, day] = end.split('-').map(Number);
    return utcDay(Date.UTC(year, month - 1 + months, day));
  };
  if (maturity <= plus(1)) return 'up to 1 month';
  if (maturity <= plus(3)) return '1 to 3 months';
  if (maturity <= plus(12)) return '3 to 12 months';
  return 'over 12 months';
}
const BANDS = ['up to 1 month', '1 to 3 months', '3 to 12 months', 'over 12 months'];

/** The standards whose paragraphs the lines answer. */
const IFRS = 'IFRS 7';
const ASC = 'ASC 815';

/** The disclosures of a period (`from`–`to`, named `name`) of one entity's books (`entity`: as every report takes
 * it), each relationship that could not be valued, and the rows of the rules table they were made by. */
export async function disclosures(
  ctx: LedgerPorts,
  period: { name: string; from: string; to: string },
  { accounts = {}, entity }: { accounts?: Readonly<Record<string, string>>; entity?: string } = {},
) {
  const books = await booksFor(ctx, {
    values: new Map(),
    to: period.to,
    option: `--period ${period.name}`,
    ...(entity !== undefined && { entity }),
  });
  const { state } = books;
  const months = { from: period.from.slice(0, 7), to: period.to.slice(0, 7) };
  // The end the figures run to: the period's, or today for one not ended.
  const end = books.test.reduce(
    (latest, row) => (String(row.period_end) > latest ? String(row.period_end) : latest),
    '',
  );
  const groups = new Map<string, Group>();
  const rules = new Map<string, { framework: Framework; type: HedgeType }>();
  for (const designation of state.relationships.values()) {
    const rel = designation.relationship;
    const rows = books.test.filter((row) => row.relationship_id === rel.id);
    const quote = state.rates.get(rel.market)?.quote ?? '';
    const rule = ruleOf(rel.framework, rel.type);
    const part = partOf(rel, rule, rows, months, quote);
    if (!part) continue;
    const currency = String(rows.at(-1)!.currency);
    const standard = rel.framework === 'asc815' ? ASC : IFRS;
    // A group is one standard, one type of hedge (its row of the rules table), one risk and one currency.
    const key = [standard, rel.type, rel.market, currency].join('|');
    const group = groups.get(key) ?? { rel, rules: rule, currency, parts: [], held: [] };
    group.parts.push(part);
    if (part.continuing) group.held.push(...(await heldAt(ctx, designation, rows.at(-1)!, end, quote)));
    groups.set(key, group);
    rules.set(`${rel.framework} ${rel.type}`, { framework: rel.framework, type: rel.type });
  }
  const lines = [...groups.values()].flatMap((group) => linesOf(group, period.name, end, accounts));
  return { lines, failed: books.failed, end, entity: books.entity, rules: [...rules.values()] };
}

/** The relationships of one standard, type of hedge, risk and currency, with their row of the rules table. */
interface Group {
  rel: Relationship;
  rules: TypeRules;
  currency: string;
  parts: Part[];
  held: Held[];
}

/** The instruments a relationship holds at `end` (its designated share): a forward held elsewhere not yet matured,
 * or the desk's hedges open then, each at the rate it was struck at (the market's price, as its rates are quoted). */
async function heldAt(
  ctx: LedgerPorts,
  designation: Designation,
  last: Row,
  end: string,
  quote: string,
): Promise<Held[]> {
  const rel = designation.relationship;
  const share = exact(String(last.designated_share ?? rel.ratio))!;
  const { instrument } = rel;
  if ('notional' in instrument)
    return instrument.maturity <= end
      ? []
      : [
          {
            nominal: mul(exact(instrument.notional)!, share),
            currency: instrument.currency,
            rate: exact(instrument.contract_rate)!,
            quote: instrument.rate_quote,
            maturity: instrument.maturity,
          },
        ];
  const desk = await deskFacts(ctx, designation);
  const endMs = Date.parse(`${end}T23:59:59.999Z`);
  return (desk?.hedges ?? []).flatMap((hedge): Held[] =>
    hedge.openedMs <= endMs && (!hedge.closed || hedge.closed.atMs > endMs) && hedge.entry && hedge.maturityMs
      ? [
          {
            nominal: mul(hedge.notional, share),
            currency: 'USD',
            rate: hedge.entry,
            quote,
            maturity: utcDay(hedge.maturityMs),
          },
        ]
      : [],
  );
}

const total = (parts: readonly Part[], key: keyof Part) => parts.reduce((sum, part) => sum + (part[key] as Cents), 0n);

/** What a group's lines are made with: a line maker, the sums of its parts, the GL account of a role. */
interface Making {
  make: (paragraph: string, item: string, amount: Cents | null, lineItem?: string | null) => Disclosed;
  sum: (key: keyof Part) => Cents;
  line: (role: string) => string;
}

/** Assets and liabilities apart, each positive, of amounts an asset positive. */
const apart = (amounts: readonly Cents[]) => [
  amounts.reduce((all, each) => all + (each > 0n ? each : 0n), 0n),
  amounts.reduce((all, each) => all + (each < 0n ? -each : 0n), 0n),
];

/** A group's lines: its standard's paragraphs for its type of hedge (its row of the rules table), each figure once. */
function linesOf(group: Group, period: string, end: string, accounts: Readonly<Record<string, string>>): Disclosed[] {
  const { rel, rules, currency, parts, held } = group;
  const asc = rel.framework === 'asc815';
  // Where the row puts the effective part: the hedged item's adjustment (nothing to equity), or a reserve of equity.
  const fairValue = rules.effective === 'hedged_item';
  const line = (role: string) => accounts[role] ?? role;
  const make = (paragraph: string, item: string, amount: Cents | null, lineItem: string | null = null, more = {}) =>
    ({
      period,
      standard: asc ? ASC : IFRS,
      paragraph,
      risk: `foreign currency (${rel.market})`,
      hedge_type: rel.type,
      item,
      line_item: lineItem,
      amount: amount === null ? null : centsNumber(amount),
      currency,
      average_rate: null,
      rate_quote: null,
      ...more,
    }) satisfies Disclosed;
  const sum = (key: keyof Part) => total(parts, key);
  const making = { make, sum, line };
  const instrument = line('hedging_instrument');
  const [assets, liabilities] = apart(parts.map((part) => part.carrying));
  const nominal = nominalLines(held, end, (paragraph, item, amount, more) =>
    make(paragraph, item, amount[0], null, more),
  );
  const costParagraph = asc ? '815-20-25-83A' : '24E(b)–(c), 24F';
  const costs = parts.some((part) => part.costOpen || part.costMovement || part.costClose || part.costAdjustment)
    ? [
        make(costParagraph, 'cost of hedging reserve: opening', sum('costOpen')),
        make(costParagraph, 'cost of hedging reserve: change', sum('costMovement')),
        make(costParagraph, 'cost of hedging reserve: reclassified', -sum('costReclassified')),
        make(costParagraph, 'cost of hedging reserve: adjustment', sum('costAdjustment')),
        make(costParagraph, 'cost of hedging reserve: closing', sum('costClose')),
      ]
    : [];
  if (asc)
    return [
      make('815-10-50-4A', 'derivatives at fair value: assets', assets, `${instrument} (asset)`),
      make('815-10-50-4A', 'derivatives at fair value: liabilities', liabilities, `${instrument} (liability)`),
      ...nominal.map((each) => ({ ...each, paragraph: '815-10-50-1B' })),
      ...(fairValue ? fairValueLines(making, parts, true) : ascEquityLines(making, rules)),
      make('815-10-50-4CC', 'excluded component in earnings', sum('excludedToPnl'), line('excluded_component')),
      ...(fairValue ? [] : reserveLines(making, rules, '220-10-45-14A')),
      ...costs,
      // A transaction forecast to reclassify the reserve (a net investment's waits for a disposal).
      ...(!fairValue && rules.ends === 'occurred' ? ascForecastLines(make, parts, end) : []),
    ];
  return [
    make('24A(a)–(b)', 'carrying amount: assets', assets, `${instrument} (asset)`),
    make('24A(a)–(b)', 'carrying amount: liabilities', liabilities, `${instrument} (liability)`),
    make('24A(c)', 'instrument change for ineffectiveness', sum('instrumentChange')),
    ...nominal,
    ...(fairValue ? fairValueLines(making, parts, false) : ifrsEquityLines(making, rules, parts)),
    ...costs,
  ];
}

/** What a cash-flow hedge's reserve or a net investment's translation reserve is called in a line. */
const reserveOf = (rules: TypeRules) => (rules.balance === 'translation_reserve' ? 'translation reserve' : 'reserve');

/** IFRS 7 24B(b), 24C(b) and 24E(a) of hedges whose effective part goes to equity: a cash-flow hedge's reserve, or a net
 * investment's translation reserve, reclassified when the item affects profit or loss (or no longer expected), or when
 * the operation is disposed of. */
function ifrsEquityLines({ make, sum, line }: Making, rules: TypeRules, parts: readonly Part[]) {
  const reserve = reserveOf(rules);
  const continuingClose = parts.reduce((all, part) => all + (part.continuing ? part.close : 0n), 0n);
  return [
    make('24B(b)(i)', 'hedged item change for ineffectiveness', sum('itemChange')),
    make('24B(b)(ii)', `${reserve} of continuing hedges`, continuingClose, line(rules.balance)),
    make('24B(b)(iii)', `${reserve} where hedge accounting ended`, sum('close') - continuingClose, line(rules.balance)),
    make('24C(b)(i)', 'hedging gain or loss in OCI', sum('effective')),
    make('24C(b)(ii)–(iii)', 'ineffectiveness in P&L', sum('ineffective'), line('hedge_ineffectiveness')),
    ...(rules.ends === 'disposed'
      ? [make('24C(b)(iv)–(v)', 'reclassified: the operation disposed of', sum('toPnl'), line('reclassification'))]
      : [
          make('24C(b)(iv)–(v)', 'reclassified: the item affected P&L', sum('toPnl'), line('reclassification')),
          make('24C(b)(iv)–(v)', 'reclassified: no longer expected', sum('released'), line('reserve_release')),
        ]),
    ...reserveLines({ make, sum, line }, rules, '24E(a), 24F'),
  ];
}

/** The reserve reconciled: what leaves it negative, so that the lines add up to its close; the same figures as the
 * roll-forward's. A basis adjustment where the row allows one (a cash-flow hedge of a purchase, IFRS 9 6.5.11(d)(i)). */
function reserveLines({ make, sum, line }: Making, rules: TypeRules, paragraph: string) {
  const reserve = reserveOf(rules);
  const basis = rules.transaction === 'required' || rules.transaction === 'choice';
  return [
    make(paragraph, `${reserve}: opening`, sum('open')),
    make(paragraph, `${reserve}: effective part (OCI)`, sum('effective')),
    ...(rules.ends === 'disposed'
      ? [
          make(
            paragraph,
            `${reserve}: reclassified, the operation disposed of`,
            -sum('toPnl'),
            line('reclassification'),
          ),
        ]
      : [
          make(paragraph, `${reserve}: reclassified, the item affected P&L`, -sum('toPnl'), line('reclassification')),
          make(paragraph, `${reserve}: reclassified, no longer expected`, -sum('released'), line('reserve_release')),
        ]),
    ...(basis ? [make(paragraph, `${reserve}: basis adjustment`, -sum('basis'), line('basis_adjustment'))] : []),
    make(paragraph, `${reserve}: adjustment of a closed month`, sum('adjustment')),
    make(paragraph, `${reserve}: closing`, sum('close')),
  ];
}

/** A fair-value hedge's lines: the hedged item's carrying amount and its adjustment (assets and liabilities apart), the
 * adjustment left where hedging ended (a recognised item's amortised, a firm commitment's waiting), the changes in
 * profit or loss and their line — IFRS 7 24B(a) and 24C(a), or ASC 815-10-50-4EE and 4C. Nothing goes to equity. */
function fairValueLines({ make, sum, line }: Making, parts: readonly Part[], asc: boolean) {
  const items = parts.flatMap((part) => (part.item ? [{ ...part.item, continuing: part.continuing }] : []));
  const roles = [...new Set(items.map((item) => item.role))];
  const [adjusted, adjustedLiabilities] = apart(items.filter((item) => item.continuing).map((each) => each.adjustment));
  const [left, leftLiabilities] = apart(items.filter((item) => !item.continuing).map((each) => each.adjustment));
  const carrying = roles.flatMap((role) => {
    const [assets, liabilities] = apart(items.filter((item) => item.role === role).map((each) => each.carrying));
    const paragraph = asc ? '815-10-50-4EE(a)' : '24B(a)(i), (iii)';
    return [
      make(paragraph, 'hedged item carrying amount: assets', assets, `${line(role)} (asset)`),
      make(paragraph, 'hedged item carrying amount: liabilities', liabilities, `${line(role)} (liability)`),
    ];
  });
  const [adjustments, remaining] = asc ? ['815-10-50-4EE(b)', '815-10-50-4EE(c)'] : ['24B(a)(ii)', '24B(a)(v)'];
  const result = line('fair_value_hedge_result');
  return [
    ...carrying,
    make(adjustments, 'fair value hedge adjustments in it: assets', adjusted),
    make(adjustments, 'fair value hedge adjustments in it: liabilities', adjustedLiabilities),
    ...(asc ? [] : [make('24B(a)(iv)', 'hedged item change for ineffectiveness', sum('itemChange'))]),
    make(remaining, 'adjustments left where hedging ended: assets', left),
    make(remaining, 'adjustments left where hedging ended: liabilities', leftLiabilities),
    ...(asc
      ? [
          make('815-10-50-4C', 'gain or loss on the instruments in earnings', sum('instrumentChange'), result),
          make('815-10-50-4C', 'gain or loss on the hedged items in earnings', sum('itemChange'), result),
        ]
      : [make('24C(a)(i)–(ii)', 'ineffectiveness in P&L', sum('ineffective'), result)]),
  ];
}

/** ASC 815's lines of a hedge whose effective part goes to AOCI: the gain or loss in OCI (a net investment's in the
 * cumulative translation adjustment, 815-35-50-1), and what was reclassified into earnings and why. */
function ascEquityLines({ make, sum, line }: Making, rules: TypeRules) {
  if (rules.ends === 'disposed')
    return [
      make('815-35-50-1', 'gain or loss in the cumulative translation adjustment', sum('effective')),
      make('815-10-50-4C', 'reclassified from AOCI into earnings: disposal', sum('toPnl'), line('reclassification')),
    ];
  return [
    make('815-10-50-4C', 'gain or loss in OCI', sum('effective')),
    make('815-10-50-4C', 'reclassified from AOCI into earnings', sum('toPnl') + sum('basis'), line('reclassification')),
    make(
      '815-30-50-1(d)',
      'reclassified: the transaction probably will not occur',
      sum('released'),
      line('reserve_release'),
    ),
  ];
}

/** ASC 815-30-50-1(b)–(c) of cash-flow hedges: what AOCI reclassifies within 12 months, and the longest forecast. */
function ascForecastLines(make: Making['make'], parts: readonly Part[], end: string) {
  const longest = parts
    .filter((part) => part.continuing)
    .flatMap((part) => part.expected ?? [])
    .sort()
    .at(-1);
  const [year, month, day] = end.split('-').map(Number);
  const yearOn = utcDay(Date.UTC(year + 1, month - 1, day));
  const withinYear = parts.reduce(
    (all, part) => all + (part.expected !== undefined && part.expected <= yearOn ? part.close : 0n),
    0n,
  );
  return [
    make('815-30-50-1(c)', 'AOCI to be reclassified within 12 months', withinYear),
    make('815-30-50-1(b)', `longest forecast hedged: ${longest ?? 'none continues'}`, null),
  ];
}

/** The nominal amounts held at `end` (24A(d)) and their timing profile with the average rate (23B), by currency. */
function nominalLines(
  held: readonly Held[],
  end: string,
  make: (paragraph: string, item: string, amount: Exact, more: Partial<Disclosed>) => Disclosed,
) {
  const byCurrency = new Map<string, Held[]>();
  for (const each of held)
    byCurrency.set(`${each.currency}|${each.quote}`, [
      ...(byCurrency.get(`${each.currency}|${each.quote}`) ?? []),
      each,
    ]);
  return [...byCurrency.values()].flatMap((list) => {
    const { currency, quote } = list[0];
    const summed = (of: readonly Held[]) => {
      const nominal = of.reduce((sum, each) => add(sum, each.nominal), ZERO);
      const weighted = of.reduce((sum, each) => add(sum, mul(each.nominal, each.rate)), ZERO);
      const [n, d] = div(weighted, nominal);
      // The nominal in cents; the rate to the millionth, rounded once.
      const rate = exactText([roundDiv(n * 1_000_000n, d), 1_000_000n]).replace(/\.?0+$/, '');
      return { nominal: [toCents(nominal), 100n] as Exact, rate };
    };
    const all = summed(list);
    return [
      make('24A(d)', 'nominal amount', all.nominal, {
        currency,
        average_rate: all.rate,
        rate_quote: quote,
      }),
      ...BANDS.flatMap((name) => {
        const inBand = list.filter((each) => band(end, each.maturity) === name);
        if (!inBand.length) return [];
        const one = summed(inBand);
        return [
          make('23B', `nominal maturing ${name}`, one.nominal, {
            currency,
            average_rate: one.rate,
            rate_quote: quote,
          }),
        ];
      }),
    ];
  });
}
