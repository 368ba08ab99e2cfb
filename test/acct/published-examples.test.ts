// The accounting rules against worked examples from the literature, to the cent: each case's source, inputs and
// published figures are in published-examples.json beside this file.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  balanced,
  deskValuer,
  forwardPoints,
  forwardValues,
  hedgedItemBySpot,
  inFunctional,
  periodEntries,
  rollForward,
  spotChanges,
  type DeskHedge,
  type PeriodValues,
  type RateRow,
  type RelationshipRules,
} from '../../src/features/acct/acct-rules.js';
import { centsNumber, exact, mul, roundDiv, toCents, type Exact } from '../../src/features/acct/acct-money.js';
import { hedgeIn, tempFolders } from '../support/hedge-cli.js';
import { ok, okJson } from '../support/cli-runs.js';

const examples = JSON.parse(readFileSync(new URL('published-examples.json', import.meta.url), 'utf8'));

const x = (text: string): Exact => exact(text)!;
const rateRows = (rows: Array<Record<string, string>>): RateRow[] =>
  rows.map((row) => ({
    date: row.date,
    spot: x(row.spot),
    forward: row.forward === undefined ? undefined : x(row.forward),
    discountFactor: row.discount_factor === undefined ? undefined : x(row.discount_factor),
    source: 'published example',
  }));
const USD_PER_FOREIGN = { functionalPerForeign: true };

/** A period's journal lines as the debits and credits of each role. */
function lines(id: string, result: Parameters<typeof periodEntries>[1]) {
  const entries = periodEntries(id, result);
  expect(balanced(entries)).toBe(true);
  return entries.map((line) => [line.role, centsNumber(line.amount)]);
}

/** The rules a fixture's relationship states (the method: cumulative dollar offset). */
const rulesOf = (rel: Record<string, never>): RelationshipRules => ({
  framework: rel.framework,
  method: 'dollar_offset_cumulative',
  excluded: rel.excluded,
  kind: rel.kind,
  designatedAt: rel.designated_at,
  events: rel.occurred ? [{ type: 'occurred', date: rel.occurred }] : [],
});

/** A forward held elsewhere: its terms, and its and the hedged item's values at each date after designation. */
function externalForward(example: { relationship: Record<string, string>; rates: Array<Record<string, string>> }) {
  const rel = example.relationship;
  const rates = rateRows(example.rates);
  const terms = {
    hedgedAmount: x(rel.hedged_amount),
    notional: x(rel.notional),
    contractRate: x(rel.contract_rate),
    designation: rel.designation as 'spot' | 'forward',
  };
  const periods: PeriodValues[] = rates.slice(1).map((at) => ({
    end: at.date,
    ...forwardValues(terms, USD_PER_FOREIGN, rates[0], at),
    fees: 0n,
  }));
  return { rel: rel as Record<string, never>, rates, periods, terms };
}

describe('a forecast sale hedged with a forward designated whole (textbook exercise, ASC 815)', () => {
  const example = examples.forward_whole_forecast_sale;
  const { rel, rates, periods } = externalForward(example);
  const results = rollForward(periods, rulesOf(rel));

  it("reproduces the published fair values and changes of the forward, and the sale at the day's spot", () => {
    expect(Object.fromEntries(results.map((r) => [r.period_end, r.instrument_change]))).toEqual(
      example.published.forward_fair_value,
    );
    expect(Object.fromEntries(results.map((r) => [r.period_end, r.effective]))).toEqual(
      example.published.forward_change_in_fair_value,
    );
    const sale = toCents(inFunctional(x(rel.hedged_amount), rates[2].spot, USD_PER_FOREIGN));
    expect({ '2019-02-01': centsNumber(sale) }).toEqual(example.published.forecast_sale_at_spot);
  });

  it('defers every change to the reserve, then reclassifies the whole of it when the sale happens', () => {
    expect(results.map((r) => [r.reserve_open, r.effective, r.reclassified, r.reserve_close, r.ineffective])).toEqual([
      [0, 23100, 0, 23100, 0],
      [23100, 7700, 30800, 0, 0],
    ]);
    expect(results.map((r) => r.ratio)).toEqual([1, 1]);
    expect(results[0].line).toBe('ASC 815 80–125 %: 100.0 % is inside the line.');
    expect(lines('T1', results[1])).toEqual([
      ['hedging_instrument', 7700],
      ['cash_flow_hedge_reserve', -7700],
      ['cash_flow_hedge_reserve', 30800],
      ['reclassification', -30800],
    ]);
  });
});

describe('a payable hedged on the spot element, forward points amortised from a reserve (Forex World example)', () => {
  const example = examples.spot_only_points_excluded;
  const { rel, rates, periods, terms } = externalForward(example);
  const points = forwardPoints(terms, USD_PER_FOREIGN, rates[0]);
  const results = rollForward(periods, {
    ...rulesOf(rel),
    amortisation: { total: points, from: rel.designated_at, to: rel.maturity },
  });
  const byDate = (pick: (r: (typeof results)[number]) => number) =>
    Object.fromEntries(results.map((r) => [r.period_end, pick(r)]));

  it('reproduces the exchange loss, the reserve released to the gain on the forward and the premium expensed', () => {
    expect(centsNumber(points)).toBe(-800);
    // The payable's exchange loss of each period: the hedged item's period change, a loss.
    const losses = results.map((r, i) => -(r.hedged_item_change - (results[i - 1]?.hedged_item_change ?? 0)));
    expect(losses).toEqual(Object.values(example.published.payable_exchange_loss));
    expect(byDate((r) => r.reclassified)).toEqual(example.published.reserve_to_gain_on_forward);
    expect(byDate((r) => -r.excluded_to_pnl)).toEqual(example.published.premium_expense);
  });

  it("remeasures the forward by the published amounts, each period's entries balanced and both reserves back to nil", () => {
    const remeasured = results.map((r) => lines('P1', r).find(([role]) => role === 'hedging_instrument')![1]);
    expect(remeasured).toEqual(Object.values(example.published.forward_remeasurement));
    expect(results.map((r) => [r.reserve_close, r.cost_of_hedging_close])).toEqual([
      [0, 443.03],
      [0, 0],
    ]);
    expect(lines('P1', results[0])).toEqual([
      ['hedging_instrument', 1176.36],
      ['cash_flow_hedge_reserve', -1000],
      ['cost_of_hedging_reserve', -176.36],
      ['excluded_component', 266.67],
      ['cost_of_hedging_reserve', -266.67],
      // The payable's exchange loss, to profit or loss.
      ['hedged_item', -1000],
      ['hedged_item_remeasurement', 1000],
      ['cash_flow_hedge_reserve', 1000],
      ['reclassification', -1000],
    ]);
  });
});

describe('a firm commitment to sell, hedged at fair value with a forward designated whole (textbook exercise, ASC 815)', () => {
  const example = examples.fair_value_firm_sale;
  const { rel, rates, periods } = externalForward(example);
  const rulesUnder = (framework: RelationshipRules['framework']): RelationshipRules => ({
    ...rulesOf(rel),
    framework,
    type: 'fair_value',
    // The forward matures on the day of the sale.
    events: [
      { type: 'occurred', date: rel.occurred },
      { type: 'settled', date: rel.occurred },
    ],
  });
  const results = rollForward(periods, rulesUnder('asc815'));
  const entriesOf = (result: (typeof results)[number]) => {
    const entries = periodEntries('F1', result, 'basis_adjustment');
    expect(balanced(entries)).toBe(true);
    return entries.map((line) => [line.description, line.role, centsNumber(line.amount)]);
  };

  it("reproduces the forward's published fair values and changes; the commitment carries their mirror as an asset", () => {
    expect(Object.fromEntries(results.map((r) => [r.period_end, r.instrument_change]))).toEqual(
      example.published.forward_fair_value,
    );
    expect(Object.fromEntries(results.map((r) => [r.period_end, r.effective + r.ineffective]))).toEqual(
      example.published.forward_change_in_fair_value,
    );
    // The commitment's change for the hedged risk, by the forward rate: 630,000 × (1.25 − 1.20), a gain carried as an
    // asset (a debit: the balance is negative); none of the two changes is ineffective.
    expect(results.map((r) => [r.hedged_item_change, r.reserve_close, r.ineffective, r.balance])).toEqual([
      [31500, -31500, 0, 'hedged_item_adjustment'],
      [44100, 0, 0, 'hedged_item_adjustment'],
    ]);
    expect(entriesOf(results[0])).toEqual([
      ['remeasurement of the hedging instrument', 'hedging_instrument', -31500],
      ['remeasurement of the hedging instrument', 'fair_value_hedge_result', 31500],
      ['the hedged item’s change for the hedged risk, in its carrying amount', 'fair_value_hedge_result', -31500],
      ['the hedged item’s change for the hedged risk, in its carrying amount', 'hedged_item_adjustment', 31500],
    ]);
  });

  it('at the sale the commitment adjusts the revenue to the forward rate at inception, and the forward is settled', () => {
    const sale = toCents(inFunctional(x(rel.hedged_amount), rates[2].spot, USD_PER_FOREIGN));
    expect({ '2019-02-10': centsNumber(sale) }).toEqual(example.published.sale_at_spot);
    const reclassification = entriesOf(results[1]).filter(([what]) => what === 'reclassification of the reserves');
    expect(reclassification).toEqual([
      ['reclassification of the reserves', 'hedged_item_adjustment', -44100],
      ['reclassification of the reserves', 'basis_adjustment', 44100],
    ]);
    // The sale at spot less the commitment's asset: 800,100 − 44,100 = 630,000 × 1.20.
    expect(centsNumber(sale) - 44100).toBe(630000 * 1.2);
    expect(entriesOf(results[1]).filter(([what]) => what === 'settlement of the hedging instrument')).toEqual([
      ['settlement of the hedging instrument', 'foreign_currency', -800100],
      ['settlement of the hedging instrument', 'cash', 756000],
      ['settlement of the hedging instrument', 'hedging_instrument', 44100],
    ]);
  });

  it('IFRS 9 and IAS 39 give the same figures: each row takes both changes to profit or loss', () => {
    const amounts = (list: typeof results) => list.map(({ cents: _, line: __, ...rest }) => rest);
    for (const framework of ['ifrs9', 'ias39'] as const)
      expect(amounts(rollForward(periods, rulesUnder(framework)))).toEqual(amounts(results));
  });
});

describe('the IFRS 9 6.5.11 lower of, binding each way', () => {
  for (const example of examples.lower_of.cases) {
    it(`${example.name}: ${example.source.title}`, () => {
      const { date, instrument_value, hedged_item_value } = example.values;
      const [result] = rollForward(
        [
          {
            end: date,
            instrument: toCents(x(instrument_value)),
            hedgedItem: toCents(x(hedged_item_value)),
            excluded: 0n,
            fees: 0n,
          },
        ],
        {
          framework: 'ifrs9',
          method: 'dollar_offset_cumulative',
          excluded: 'pnl',
          kind: 'forecast',
          designatedAt: example.designated_at,
        },
      );
      if ('reserve' in example.published) expect(result.reserve_close).toBe(example.published.reserve);
      expect(result.ineffective).toBe(example.published.profit_or_loss);
      expect(result.reserve_open + result.effective - result.reclassified).toBe(result.reserve_close);
      // The lower of the two in absolute amounts, with the instrument's sign.
      const lower = Math.min(Math.abs(Number(instrument_value)), Math.abs(Number(hedged_item_value)));
      expect(result.effective).toBe(Math.sign(Number(instrument_value)) * lower);
      if (example.published.derivative_debit !== undefined)
        expect(lines('L', result)[0]).toEqual(['hedging_instrument', example.published.derivative_debit]);
      expect(result.line).toMatch(/^IFRS 9: no pass line/);
    });
  }
});

describe('a rolled hedge whose carry is excluded (built from the textbook exercise)', () => {
  const example = examples.rolled_carry_excluded;
  const rel = example.relationship;
  const rates = rateRows(example.rates);
  // Each leg sells the euros at the spot of the day it opens; a day's rate is read at its end.
  const dayMs = (date: string) => Date.parse(`${date}T00:00:00Z`);
  const hedges: DeskHedge[] = example.hedges.map((h: Record<string, string>) => ({
    id: h.id,
    side: 'sell',
    notional: x(rel.hedged_amount),
    entry: rates.find((rate) => rate.date === h.opened)!.spot,
    openedMs: dayMs(h.opened),
    closed: { atMs: dayMs(h.closed), gross: x(h.gross), carry: x(h.carry), fees: x(h.fees) },
  }));
  // A leg opening at a day's rates has no carry yet, and no price P&L: its mark there is nil.
  const value = deskValuer({
    hedges,
    designatedAt: rates[0].date,
    markOn: (date) => {
      const at = rates.find((rate) => rate.date === date);
      const carry = new Map<string, Exact>(
        example.hedges.flatMap((h: Record<string, string>) => (h.opened === date ? [[h.id, x('0')] as const] : [])),
      );
      return at && { ...at, atMs: dayMs(date) + 86_399_999, carry };
    },
    observed: new Map(),
  });
  // Measured from designation: each leg's value at each period end less its value then.
  const periods: PeriodValues[] = rates.slice(1).map((at) => {
    const desk = value(at.date);
    expect(desk.unknown).toEqual([]);
    return {
      end: at.date,
      instrument: toCents(desk.instrument),
      excluded: toCents(desk.excluded),
      fees: desk.fees,
      hedgedItem: hedgedItemBySpot(x(rel.hedged_amount), USD_PER_FOREIGN, rates[0], at),
    };
  });
  const results = rollForward(periods, rulesOf(rel));

  it("each period's gross P&L plus carry is the published change of the whole forward; the reserves reclassify its total", () => {
    expect(Object.fromEntries(results.map((r) => [r.period_end, r.effective + r.ineffective + r.excluded]))).toEqual(
      example.published.forward_change_in_fair_value,
    );
    const last = results.at(-1)!;
    expect(last.reclassified + last.cost_of_hedging_reclassified).toBe(example.published.reclassified_in_total);
  });

  it('defers the spot change whole, keeps the carry in the cost-of-hedging reserve until the sale, and balances', () => {
    expect(results.map((r) => [r.effective, r.ineffective, r.cost_of_hedging_close, r.reserve_close])).toEqual([
      [38500, 0, -15400, 38500],
      [15400, 0, 0, 0],
    ]);
    expect(results.map((r) => [r.reclassified, r.cost_of_hedging_reclassified])).toEqual([
      [0, 0],
      [53900, -23100],
    ]);
    for (const result of results) lines('R1', result);
  });
});

describe("Hoyle's receivable hedge: the forward's discount amortised by month, the receivable remeasured, the settlement", () => {
  const example = examples.receivable_months_amortised;
  const { rel, rates, periods, terms } = externalForward(example);
  const results = rollForward(periods, {
    ...rulesOf(rel),
    amortisation: {
      total: forwardPoints(terms, USD_PER_FOREIGN, rates[0]),
      from: rel.designated_at,
      to: rel.maturity,
      basis: 'months',
    },
    events: [
      { type: 'settled', date: rel.maturity },
      { type: 'occurred', date: rel.occurred },
    ],
  });
  const entries = results.map((result) => periodEntries('H', result));
  /** The debit (positive) or credit of `role` in the entry described as `description`, summed. */
  const amount = (i: number, description: string, role: string) =>
    centsNumber(
      entries[i]
        .filter((line) => line.description === description && line.role === role)
        .reduce((sum, line) => sum + line.amount, 0n),
    );
  const byDate = (pick: (i: number) => number) => Object.fromEntries(results.map((r, i) => [r.period_end, pick(i)]));

  it('every entry balances, and both reserves are nil once the receivable is collected', () => {
    for (const lines of entries) expect(balanced(lines)).toBe(true);
    expect(results.map((r) => [r.reserve_close, r.cost_of_hedging_close])).toEqual([
      [0, 3769.8],
      [0, 0],
    ]);
  });

  it('reproduces the receivable remeasurement, the forward to AOCI, the reclassification and the discount expense', () => {
    const published = example.published;
    expect(byDate((i) => amount(i, 'remeasurement of the hedged item at spot', 'hedged_item'))).toEqual(
      published.receivable_remeasurement,
    );
    // Both reserves are AOCI: the forward's whole change goes there, as the book's one line does.
    const toAoci = (i: number) =>
      Math.round(-amount(i, 'remeasurement of the hedging instrument', 'hedging_instrument'));
    expect(byDate(toAoci)).toEqual(published.forward_to_aoci_whole_dollars);
    expect(byDate((i) => amount(i, 'reclassification of the reserves', 'reclassification'))).toEqual(
      published.aoci_to_loss_on_forward,
    );
    expect(byDate((i) => amount(i, 'amortisation of the excluded part', 'excluded_component'))).toEqual(
      published.discount_expense,
    );
  });

  it("posts the book's settlement: the currency received for the receivable, delivered under the forward for cash", () => {
    const { settlement } = example.published;
    expect(amount(1, 'the hedged item settled in its currency', 'foreign_currency')).toBe(
      settlement.foreign_currency_received,
    );
    expect(amount(1, 'the hedged item settled in its currency', 'hedged_item')).toBe(
      -settlement.foreign_currency_received,
    );
    expect(
      ['foreign_currency', 'cash', 'hedging_instrument'].map((role) =>
        amount(1, 'settlement of the hedging instrument', role),
      ),
    ).toEqual([-settlement.foreign_currency_received, settlement.cash_received, settlement.forward_settled]);
    expect(results.map((r) => r.status)).toEqual(['designated', 'occurred']);
  });
});

describe("Ramirez's spot-only variant: the forward's spot element and the hedged sale's spot change discounted to the cash-flow date", () => {
  const example = examples.spot_discounted_forecast_sale;
  const rel = example.relationship;
  const rates = rateRows(example.rates);
  const published = example.published;
  // EUR books, rates in USD per EUR: a USD amount is divided by the rate.
  const EUR_PER_USD = { functionalPerForeign: false };
  const terms = {
    hedgedAmount: x(rel.hedged_item.amount),
    notional: x(rel.instrument.notional),
    contractRate: x(rel.instrument.contract_rate),
    designation: rel.designation as 'spot',
    discountHedgedItem: rel.discount_hedged_item as boolean,
  };
  const later = rates.slice(1);
  const dated = (pick: (at: RateRow) => number, rows = later) =>
    Object.fromEntries(rows.map((at) => [at.date, pick(at)]));
  const folder = tempFolders('hedge-acct-ramirez-');
  // The book prints euros to the thousand.
  const thousands = (value: Exact) => Number(roundDiv(toCents(value), 100_000n)) * 1000;

  it("values the sale at each spot, and its change, as the book's table prints them", () => {
    expect(dated((at) => thousands(inFunctional(terms.hedgedAmount, at.spot, EUR_PER_USD)), rates)).toEqual(
      published.cash_flow_value_at_spot,
    );
    const undiscounted = { ...terms, discountHedgedItem: false };
    expect(dated((at) => thousands(spotChanges(undiscounted, EUR_PER_USD, rates[0], at).hedgedItem))).toEqual(
      published.cash_flow_change_at_spot,
    );
  });

  it("discounts the sale's spot change and the forward's spot element alike, as the book's effectiveness table does", () => {
    for (const at of later) {
      const plain = spotChanges({ ...terms, discountHedgedItem: false }, EUR_PER_USD, rates[0], at);
      const discounted = spotChanges(terms, EUR_PER_USD, rates[0], at);
      expect(toCents(discounted.hedgedItem)).toBe(toCents(mul(plain.hedgedItem, at.discountFactor!)));
      // The book's forward change due to spot equals the cash flow's: discounted alike, they offset exactly.
      expect(toCents(discounted.instrument)).toBe(-toCents(discounted.hedgedItem));
    }
    // The book multiplies its change already rounded to the thousand by the discount factor, then rounds again: at 31
    // March 3,752,000 × 0.9901 gives its 3,715,000, where hedge, rounding once, has 3,714,442.03.
    const asPrinted = (at: RateRow) => {
      const change = spotChanges({ ...terms, discountHedgedItem: false }, EUR_PER_USD, rates[0], at).hedgedItem;
      return thousands(mul([BigInt(thousands(change)), 1n], at.discountFactor!));
    };
    expect(dated(asPrinted)).toEqual(published.cash_flow_fair_value_due_to_spot);
    expect(centsNumber(toCents(spotChanges(terms, EUR_PER_USD, rates[0], later[1]).hedgedItem))).toBe(-3714442.03);
    const spotElement = dated((at) => -asPrinted(at));
    expect([spotElement['2004-12-31'], spotElement['2005-03-31'] - spotElement['2004-12-31']]).toEqual(
      Object.values(published.forward_change_due_to_spot),
    );
  });

  it('designated under IAS 39 and tested on the published values: the effective part, the forward points to P&L, the journal', async () => {
    const dir = folder();
    const clock = { now: () => Date.parse('2026-03-02T12:00:00Z'), sleep: async () => {} };
    const run = (args: string[]) => hedgeIn(dir, args, { clock });
    const file = (name: string, content: string) => {
      writeFileSync(join(dir, name), content);
      return join(dir, name);
    };
    ok(await run(['acct', 'designate', file('abc.json', JSON.stringify(rel)), '--recorded-late', 'from the book']));
    ok(await run(['acct', 'event', rel.id, '--occurred', example.occurred]));
    // Cumulative since designation, as printed: the hedged item, the forward's spot element mirroring it, and the
    // forward points, the forward's fair value less its spot element (30 June: see the source's note).
    let fairValue = 0;
    const byQuarter = Object.entries(published.cash_flow_fair_value_due_to_spot as Record<string, number>).map(
      ([date, item]) => {
        fairValue += published.forward_change_in_fair_value[date];
        return [date, `${-item},${item},${fairValue + item}`];
      },
    );
    // The books' periods are months; the book values at its quarter ends, so each month between holds the last
    // values it gave (nothing moves until its next date).
    const monthEnds = ['2004-10-31', '2004-11-30', '2004-12-31', '2005-01-31', '2005-02-28', '2005-03-31'];
    const rows = [...monthEnds, '2005-04-30', '2005-05-31', '2005-06-30'].map(
      (date) => `${date},${byQuarter.findLast(([quarter]) => quarter <= date)?.[1] ?? '0,0,0'}`,
    );
    const values = file('values.csv', ['date,instrument_value,hedged_item_value,excluded_value', ...rows].join('\n'));
    type Row = { period_end: string; status: string; line: string } & Record<string, number>;
    const tested: Row[] = okJson(await run(['acct', 'test', rel.id, '--values', values, '--json']));
    expect(tested.map((row) => [row.period_end, row.status])).toEqual([
      ...monthEnds.slice(0, -1).map((date) => [date, 'designated']),
      ['2005-03-31', 'occurred'],
      ['2005-04-30', 'ended'],
      ['2005-05-31', 'ended'],
      ['2005-06-30', 'settled'],
    ]);
    // Hedge accounting ends with the sale on 31 March: the two quarters the book tests.
    const hedged = tested.filter((row) => row.period_end in published.effective_to_equity);
    const byDate = (pick: (row: Row) => number) => Object.fromEntries(hedged.map((row) => [row.period_end, pick(row)]));
    expect(byDate((row) => row.effective)).toEqual(published.effective_to_equity);
    expect(byDate((row) => -row.excluded_to_pnl)).toEqual(published.forward_points_loss_to_pnl);
    expect(hedged.map((row) => [row.ineffective, row.line])).toEqual([
      [0, 'IAS 39 80–125 %: 100.0 % is inside the line.'],
      [0, 'IAS 39 80–125 %: 100.0 % is inside the line.'],
    ]);

    type Line = { entry_id: string; date: string; role: string; debit: number; credit: number };
    const lines: Line[] = okJson(await run(['acct', 'journal', rel.id, '--values', values, '--json']));
    const sums = new Map<string, number>();
    for (const line of lines) sums.set(line.entry_id, (sums.get(line.entry_id) ?? 0) + line.debit - line.credit);
    expect([...sums.values()]).toEqual([...sums.values()].map(() => 0));
    // The book's entries, line for line: Derivative (asset) against Cash flow Hedges (equity) and Other Income and
    // Losses (P&L); the reserve to Sales; after the sale, Gain on derivative (P&L), and the settlement in cash.
    const change = published.forward_change_in_fair_value;
    const points = published.forward_points_loss_to_pnl;
    const effective = published.effective_to_equity;
    const reclassified = published.reserve_to_sales['2005-03-31'];
    const settled = published.forward_settled_in_cash['2005-06-30'];
    expect(lines.map((line) => [line.date, line.role, line.debit - line.credit])).toEqual([
      ['2004-12-31', 'hedging_instrument', change['2004-12-31']],
      ['2004-12-31', 'cash_flow_hedge_reserve', -effective['2004-12-31']],
      ['2004-12-31', 'excluded_component', points['2004-12-31']],
      ['2005-03-31', 'hedging_instrument', change['2005-03-31']],
      ['2005-03-31', 'cash_flow_hedge_reserve', -effective['2005-03-31']],
      ['2005-03-31', 'excluded_component', points['2005-03-31']],
      ['2005-03-31', 'cash_flow_hedge_reserve', reclassified],
      ['2005-03-31', 'reclassification', -reclassified],
      ['2005-06-30', 'hedging_instrument', change['2005-06-30']],
      ['2005-06-30', 'undesignated_derivative', -change['2005-06-30']],
      ['2005-06-30', 'cash', settled],
      ['2005-06-30', 'hedging_instrument', -settled],
    ]);
  });
});
