// A period's hedge-accounting disclosures from the books: IFRS 7's (23B, 24A–24C, 24E–24F) for relationships under
// IFRS 9 and IAS 39, ASC 815's tabular ones (815-10-50-1B, 4A, 4C, 4CC; 815-30-50-1) under ASC 815; by risk category
// (the market) and type of hedge, in each functional currency. Made from the month rows the ledger prints (a closed
// month's as posted) and the instruments held at the period's end; a line per figure, with its paragraph.
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
import { occurrenceTarget, type Designation } from './acct.js';
import type { Relationship } from './acct-files.js';

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
  /** The transaction's date (a net investment has none). */
  expected?: string;
}

/** A relationship's part of the period's figures from its month rows up to the period's end. */
function partOf(rel: Relationship, rows: readonly Row[], months: { from: string; to: string }) {
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
  } satisfies Part;
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

/** What each figure is called, the paragraph it answers, and the line of the statements it goes to (a role). */
const IFRS = 'IFRS 7';
const ASC = 'ASC 815';

/** The disclosures of a period (`from`–`to`, named `name`), and each relationship that could not be valued. */
export async function disclosures(
  ctx: LedgerPorts,
  period: { name: string; from: string; to: string },
  accounts: Readonly<Record<string, string>> = {},
) {
  const books = await booksFor(ctx, { values: new Map(), to: period.to, option: `--period ${period.name}` });
  const { state } = books;
  const months = { from: period.from.slice(0, 7), to: period.to.slice(0, 7) };
  // The end the figures run to: the period's, or today for one not ended.
  const end = books.test.reduce(
    (latest, row) => (String(row.period_end) > latest ? String(row.period_end) : latest),
    '',
  );
  const groups = new Map<string, { rel: Relationship; currency: string; parts: Part[]; held: Held[] }>();
  for (const designation of state.relationships.values()) {
    const rel = designation.relationship;
    const rows = books.test.filter((row) => row.relationship_id === rel.id);
    const part = partOf(rel, rows, months);
    if (!part) continue;
    const currency = String(rows.at(-1)!.currency);
    const standard = rel.framework === 'asc815' ? ASC : IFRS;
    const key = [standard, rel.type, rel.market, currency].join('|');
    const group = groups.get(key) ?? { rel, currency, parts: [], held: [] };
    group.parts.push(part);
    const quote = state.rates.get(rel.market)?.quote ?? '';
    if (part.continuing) group.held.push(...(await heldAt(ctx, designation, rows.at(-1)!, end, quote)));
    groups.set(key, group);
  }
  const lines = [...groups.values()].flatMap((group) => linesOf(group, period.name, end, accounts));
  return { lines, failed: books.failed, end };
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

/** A group's lines: its standard's paragraphs, each figure once. */
function linesOf(
  group: { rel: Relationship; currency: string; parts: Part[]; held: Held[] },
  period: string,
  end: string,
  accounts: Readonly<Record<string, string>>,
): Disclosed[] {
  const { rel, currency, parts, held } = group;
  const asc = rel.framework === 'asc815';
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
  const assets = parts.reduce((all, part) => all + (part.carrying > 0n ? part.carrying : 0n), 0n);
  const liabilities = parts.reduce((all, part) => all + (part.carrying < 0n ? -part.carrying : 0n), 0n);
  const continuingClose = parts.reduce((all, part) => all + (part.continuing ? part.close : 0n), 0n);
  const nominal = nominalLines(held, end, (paragraph, item, amount, more) =>
    make(paragraph, item, amount[0], null, more),
  );
  // The reserve reconciled: what leaves it negative, so that the lines add up to its close.
  const reserve = (paragraph: string, basisToo: boolean) => [
    make(paragraph, 'reserve: opening', sum('open')),
    make(paragraph, 'reserve: effective part (OCI)', sum('effective')),
    make(paragraph, 'reserve: reclassified, the item affected P&L', -sum('toPnl'), line('reclassification')),
    make(paragraph, 'reserve: reclassified, no longer expected', -sum('released'), line('reserve_release')),
    ...(basisToo ? [make(paragraph, 'reserve: basis adjustment', -sum('basis'), line('basis_adjustment'))] : []),
    make(paragraph, 'reserve: adjustment of a closed month', sum('adjustment')),
    make(paragraph, 'reserve: closing', sum('close')),
  ];
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
  const instrument = line('hedging_instrument');
  if (asc) return ascLines({ make, sum, parts, end, line, nominal, reserve, costs, assets, liabilities });
  return [
    make('24A(a)–(b)', 'carrying amount: assets', assets, `${instrument} (asset)`),
    make('24A(a)–(b)', 'carrying amount: liabilities', liabilities, `${instrument} (liability)`),
    make('24A(c)', 'instrument change for ineffectiveness', sum('instrumentChange')),
    ...nominal,
    make('24B(b)(i)', 'hedged item change for ineffectiveness', sum('itemChange')),
    make('24B(b)(ii)', 'reserve of continuing hedges', continuingClose),
    make('24B(b)(iii)', 'reserve where hedge accounting ended', sum('close') - continuingClose),
    make('24C(b)(i)', 'hedging gain or loss in OCI', sum('effective')),
    make('24C(b)(ii)–(iii)', 'ineffectiveness in P&L', sum('ineffective'), line('hedge_ineffectiveness')),
    make('24C(b)(iv)–(v)', 'reclassified: the item affected P&L', sum('toPnl'), line('reclassification')),
    make('24C(b)(iv)–(v)', 'reclassified: no longer expected', sum('released'), line('reserve_release')),
    ...reserve('24E(a), 24F', true),
    ...costs,
  ];
}

/** ASC 815's tabular lines of a group, from what `linesOf` made of it. */
function ascLines({
  make,
  sum,
  parts,
  end,
  line,
  nominal,
  reserve,
  costs,
  assets,
  liabilities,
}: {
  make: (paragraph: string, item: string, amount: Cents | null, lineItem?: string | null) => Disclosed;
  sum: (key: keyof Part) => Cents;
  parts: readonly Part[];
  end: string;
  line: (role: string) => string;
  nominal: readonly Disclosed[];
  reserve: (paragraph: string, basisToo: boolean) => Disclosed[];
  costs: readonly Disclosed[];
  assets: Cents;
  liabilities: Cents;
}) {
  const instrument = line('hedging_instrument');
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
    make('815-10-50-4A', 'derivatives at fair value: assets', assets, `${instrument} (asset)`),
    make('815-10-50-4A', 'derivatives at fair value: liabilities', liabilities, `${instrument} (liability)`),
    ...nominal.map((each) => ({ ...each, paragraph: '815-10-50-1B' })),
    make('815-10-50-4C', 'gain or loss in OCI', sum('effective')),
    make('815-10-50-4C', 'reclassified from AOCI into earnings', sum('toPnl') + sum('basis'), line('reclassification')),
    make(
      '815-30-50-1(d)',
      'reclassified: the transaction probably will not occur',
      sum('released'),
      line('reserve_release'),
    ),
    make('815-10-50-4CC', 'excluded component in earnings', sum('excludedToPnl'), line('excluded_component')),
    ...reserve('220-10-45-14A', false),
    ...costs,
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
