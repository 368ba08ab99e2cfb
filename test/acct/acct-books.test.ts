// The books of a company that keeps them in naira, end to end on the simulator (its clock moved by advance()): its
// desk's hedges of a USDT payment across three month-ends — held across one, rolled, closed mid-month, settled at
// maturity — rates recorded daily, three monthly closes, a rate of a closed month corrected, a de-designation and the
// payment in the third month. Every figure is the hand computation from the recorded rates and the hedges' records
// (written out below); each hedge closed is settled once, on its day, at its day's rate, and never translated again;
// each month opens at the last one's close; a closed month prints the same after the correction; nothing is posted
// after the relationship ended; no acct command sends a write.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { exits, ok, okJson } from '../support/cli-runs.js';
import { HOUR } from '../support/keeper.js';
import { ROOT } from '../support/hedge-cli.js';
import {
  add,
  centsNumber,
  div,
  exact,
  exactText,
  mul,
  sub,
  toCents,
  type Exact,
} from '../../src/features/acct/acct-money.js';
import { ROLES } from '../../src/features/acct/acct-rules.js';
import { colleagueCloses, colleagueOpens, MARKET, useSimulators } from '../support/simulator.js';

const start = useSimulators();
const cents = (value: unknown) => Math.round(Number(value) * 100);
const REFERENCE = 'PAY-30';
const ID = 'USDT-SUPPLIER-1';

type Line = { entry_id: string; date: string; role: string; debit: number; credit: number; hedge_ids: string };

/** The simulator, its server day, and a clock that records the market's rate at noon of each day it passes. */
async function desk(startAt: string) {
  const simulator = await start({ stepped: true, realNow: () => Date.parse(startAt) });
  const day = () => new Date(simulator.sandbox.clock.now()).toISOString().slice(0, 10);
  const hedge = (args: string[]) => simulator.hedge(args);
  /** To `at` (an ISO instant), recording the rate at every noon on the way, as a desk's timer does. */
  const to = async (at: string) => {
    const target = Date.parse(at);
    for (;;) {
      const now = simulator.sandbox.clock.now();
      const noon = Math.floor(now / (24 * HOUR)) * 24 * HOUR + 12 * HOUR;
      const next = noon > now ? noon : noon + 24 * HOUR;
      if (next > target) break;
      simulator.advance(next - now);
      ok(await hedge(['acct', 'rates', '--record', '--market', MARKET]));
    }
    simulator.advance(target - simulator.sandbox.clock.now());
  };
  return { simulator, day, hedge, to };
}

/** A USDT payment of a naira company, its cash flow hedged on the spot element by buying USDT on the desk: the
 * relationship file docs/accounting.md's worked example designates, on another day when asked. */
const PAYABLE = JSON.parse(readFileSync(join(ROOT, 'docs', 'examples', 'payable.json'), 'utf8'));
const relationship = (designatedAt: string, expected: string) => ({
  ...PAYABLE,
  designated_at: designatedAt,
  hedged_item: { ...PAYABLE.hedged_item, expected_date: expected },
});

it('three month-ends in naira: held across one, rolled, closed mid-month, a correction after the first close, a de-designation and the payment in the third month — every figure by hand, each closed hedge posted once, nothing after the end', async () => {
  const { simulator, day, hedge, to } = await desk('2026-11-25T09:00:00Z');
  const writes = () => simulator.writes().length;
  // 25 November: the first hedge, a week's buy of 20,000 USDT; designated the next day (its value before that is not
  // the relationship's).
  await colleagueOpens(simulator, 'buy', 20_000, 7, REFERENCE);
  await to('2026-11-26T13:00:00Z');
  // The importer's books, declared as its entity (the company code of its posting file); the file as shipped:
  // designated on the 26th, the payment due on 20 January.
  const entities = join(simulator.configDir, 'entities.json');
  writeFileSync(
    entities,
    JSON.stringify({
      entities: [{ code: 'NG01', name: 'Acme Nigeria Ltd', functional_currency: 'NGN', default: true }],
    }),
  );
  ok(await hedge(['acct', 'entities', entities]));
  ok(await hedge(['acct', 'designate', join(ROOT, 'docs', 'examples', 'payable.json')]));
  const designatedAt = day();
  expect([designatedAt, PAYABLE.designated_at, PAYABLE.hedged_item.expected_date]).toEqual([
    '2026-11-26',
    '2026-11-26',
    '2027-01-20',
  ]);
  const months = ['2026-11', '2026-12', '2027-01'];
  const printed = new Map<string, string[]>();
  // The posting file an ERP imports: every role the books post to mapped to a GL account, the company NG01.
  const accounts = join(simulator.configDir, 'accounts.json');
  writeFileSync(
    accounts,
    JSON.stringify(Object.fromEntries(ROLES.map((role, index) => [role, `${1000 + index} ${role}`]))),
  );
  const postingFile = (month: string, format = 'csv') => [
    'acct',
    'journal',
    ID,
    '--period',
    month,
    '--gl',
    '--accounts',
    accounts,
    '--entity',
    'NG01',
    '--format',
    format,
  ];
  const monthOutputs = async (month: string) =>
    Promise.all(
      [
        ['acct', 'journal', ID, '--period', month, '--format', 'csv'],
        postingFile(month),
        ['acct', 'test', ID, '--period', month, '--json'],
        ['acct', 'reserve', ID, '--period', month, '--json'],
      ].map(async (args) => ok(await hedge(args)).stdout),
    );
  const close = async (month: string) => {
    const before = await monthOutputs(month);
    ok(await hedge(['acct', 'close', '--period', month]));
    expect(await monthOutputs(month)).toEqual(before);
    printed.set(month, before);
  };

  // Held across November's end; rolled at its maturity on 2 December (closed, a new one opened the same day).
  await to('2026-12-02T08:30:00Z');
  ok(await hedge(['roll', MARKET, 'buy', '--tenor', '7', '--yes']));
  await to('2026-12-03T13:00:00Z');
  await close('2026-11');
  // A rate of the closed month is corrected the next day: November prints as it was closed; December adjusts.
  await to('2026-12-04T13:00:00Z');
  const novemberEnd = okJson(await hedge(['acct', 'rates', '--market', MARKET, '--json'])).find(
    (rate: { date: string }) => rate.date === '2026-11-30',
  );
  // The file docs/accounting.md ships: November's last rate restated to 1,545.00, not what the timer read.
  const correction = join(ROOT, 'docs', 'examples', 'fixed-usdtngn.csv');
  expect(readFileSync(correction, 'utf8')).toContain('2026-11-30,1545.00,');
  expect(Number(novemberEnd.spot)).not.toBe(1545);
  ok(
    await hedge([
      ...['acct', 'rates', correction, '--market', MARKET, '--quote', 'NGN per USDT'],
      ...['--correct', '--reason', 'the timer read the rate before the fixing'],
    ]),
  );
  // Rolled again at its maturity; the next closed mid-month; a new one a few days later, rolled over the year end.
  await to('2026-12-09T08:00:00Z');
  ok(await hedge(['roll', MARKET, 'buy', '--tenor', '7', '--yes']));
  await to('2026-12-15T15:00:00Z');
  await colleagueCloses(simulator, 'buy');
  await to('2026-12-18T10:00:00Z');
  await colleagueOpens(simulator, 'buy', 20_000, 7, REFERENCE);
  await to('2026-12-25T09:30:00Z');
  ok(await hedge(['roll', MARKET, 'buy', '--tenor', '7', '--yes']));
  await to('2027-01-01T09:00:00Z');
  ok(await hedge(['roll', MARKET, 'buy', '--tenor', '7', '--yes']));
  await to('2027-01-03T13:00:00Z');
  await close('2026-12');
  // The last hedge settles at its maturity on 8 January; the relationship is de-designated that day, and the payment
  // is made on the 20th: its reserve goes to profit or loss then.
  await to('2027-01-08T10:00:00Z');
  expect(simulator.active('buy')).toEqual([]);
  ok(
    await hedge([
      ...['acct', 'event', ID, '--de-designate', '2027-01-08', '--ground', 'objective-changed'],
      ...['--reason', 'the risk management objective changed: the supplier agreed to be paid in naira'],
    ]),
  );
  await to('2027-01-20T13:00:00Z');
  ok(await hedge(['acct', 'event', ID, '--occurred', '2027-01-20']));
  await to('2027-02-03T13:00:00Z');
  const writesBefore = writes();
  await close('2027-01');
  // Months later, with every rate recorded since: each closed month prints as it did.
  await to('2027-02-10T13:00:00Z');
  for (const month of months) expect(await monthOutputs(month)).toEqual(printed.get(month));

  // ---- By hand, from the recorded rates and the hedges' records ----
  const deal = simulator
    .hedges()
    .filter((each) => each.clientReference === REFERENCE)
    .sort((a, b) => a.filledAtMs! - b.filledAtMs!);
  expect(deal).toHaveLength(6);
  const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  expect(deal.map((each) => [dayOf(each.filledAtMs!), dayOf(each.closedAtMs!)])).toEqual([
    ['2026-11-25', '2026-12-02'],
    ['2026-12-02', '2026-12-09'],
    ['2026-12-09', '2026-12-15'],
    ['2026-12-18', '2026-12-25'],
    ['2026-12-25', '2027-01-01'],
    ['2027-01-01', '2027-01-08'],
  ]);
  const history = okJson(await hedge(['history', '--ref', REFERENCE, '--json']));
  const closed = new Map<string, Record<string, unknown>>(
    history.map((row: Record<string, unknown>) => [String(row.hedge_id), row]),
  );
  const rates = okJson(await hedge(['acct', 'rates', '--market', MARKET, '--json']));
  // As the books stood when November was closed: its end at the rate first recorded.
  const firstRates = rates.map((rate: { date: string }) =>
    rate.date === '2026-11-30' ? { ...rate, spot: novemberEnd.spot } : rate,
  );
  const spotOn = (list: Array<{ date: string; spot: string }>, date: string) =>
    exact(list.find((rate) => rate.date === date)!.spot)!;
  // A hedge's value in naira at the end of a day: closed by then, what it realized (gross) at the rate of the day it
  // closed; open, N × (S − E) (its USD value N × (S − E) / S, at S); nothing before it opened. The first hedge opened
  // before the designation counts from its value on the designation's day; the others from nil.
  const valueOn = (list: typeof rates, hedge: (typeof deal)[number], date: string): Exact => {
    if (dayOf(hedge.filledAtMs!) > date) return [0n, 1n];
    const closedOn = dayOf(hedge.closedAtMs!);
    if (closedOn <= date) return mul(exact(String(closed.get(hedge.id)!.gross_pnl_usd))!, spotOn(list, closedOn));
    return mul(exact(String(hedge.notionalUsd))!, sub(spotOn(list, date), exact(String(hedge.struckRate))!));
  };
  const instrumentOn = (list: typeof rates, date: string) =>
    centsNumber(
      toCents(
        deal.reduce<Exact>(
          (sum, hedge) =>
            add(
              sum,
              sub(
                valueOn(list, hedge, date),
                dayOf(hedge.filledAtMs!) < designatedAt ? valueOn(list, hedge, designatedAt) : [0n, 1n],
              ),
            ),
          [0n, 1n],
        ),
      ),
    );
  // The payment of 30,000 USDT costs 30,000 × (S − S at designation) naira more.
  const itemOn = (list: typeof rates, date: string) =>
    centsNumber(toCents(mul(exact('-30000')!, sub(spotOn(list, date), spotOn(list, designatedAt)))));

  const rows = okJson(await hedge(['acct', 'test', ID, '--json']));
  // A row a month, to the day the relationship ended (the payment: every hedge of it closed before): nothing after.
  expect(rows.map((row: Record<string, unknown>) => [row.period, row.period_end, row.status])).toEqual([
    ['2026-11', '2026-11-30', 'designated'],
    ['2026-12', '2026-12-31', 'designated'],
    ['2027-01', '2027-01-20', 'occurred'],
  ]);
  expect([rows[0].instrument_change, rows[0].hedged_item_change]).toEqual([
    instrumentOn(firstRates, '2026-11-30'),
    itemOn(firstRates, '2026-11-30'),
  ]);
  expect([rows[1].instrument_change, rows[1].hedged_item_change]).toEqual([
    instrumentOn(rates, '2026-12-31'),
    itemOn(rates, '2026-12-31'),
  ]);
  // Hedge accounting ended on 8 January: the cumulative figures stop there.
  expect([rows[2].instrument_change, rows[2].hedged_item_change]).toEqual([
    instrumentOn(rates, '2027-01-08'),
    itemOn(rates, '2027-01-08'),
  ]);
  expect(rows.every((row: { currency: string }) => row.currency === 'NGN')).toBe(true);

  // The roll-forward: a line a month, each opening at the last one's close as posted; December's adjustment (the
  // corrected rate of November's end) is its own line; January releases the reserve with the payment.
  const reserve = okJson(await hedge(['acct', 'reserve', ID, '--period', '2026-Q4', '--json']));
  const [november, december, quarter] = reserve;
  expect([november.period, december.period, quarter.period]).toEqual(['2026-11', '2026-12', '2026-Q4']);
  const january = okJson(await hedge(['acct', 'reserve', ID, '--period', '2027-01', '--json']))[0];
  for (const line of [november, december, january])
    expect(cents(line.reserve_open) + cents(line.effective) - cents(line.reclassified) + cents(line.adjustment)).toBe(
      cents(line.reserve_close),
    );
  expect([november.reserve_open, december.reserve_open, january.reserve_open]).toEqual([
    0,
    november.reserve_close,
    december.reserve_close,
  ]);
  expect([november.adjustment, january.adjustment]).toEqual([0, 0]);
  // What the corrected rate changed of November: the lower of the two changes at its end, by hand.
  const lowerOf = (instrument: number, item: number) =>
    Math.sign(instrument) === Math.sign(item)
      ? 0
      : Math.sign(instrument) * Math.min(Math.abs(instrument), Math.abs(item));
  expect(cents(december.adjustment)).toBe(
    cents(lowerOf(instrumentOn(rates, '2026-11-30'), itemOn(rates, '2026-11-30'))) -
      cents(lowerOf(instrumentOn(firstRates, '2026-11-30'), itemOn(firstRates, '2026-11-30'))),
  );
  expect(december.adjustment).not.toBe(0);
  expect([quarter.reserve_open, quarter.reserve_close]).toEqual([november.reserve_open, december.reserve_close]);
  expect([january.reclassified, january.reserve_close]).toEqual([january.reserve_open + january.effective, 0]);

  // The journal: every entry balances; a remeasurement at each month end the hedges were held and on the day hedge
  // accounting ended; each closed hedge settled once, on its day, at its day's rate (the running total of what the
  // hedges closed realized, in naira, to the kobo); an adjusting entry on the first day after the first close.
  const journal: Line[] = okJson(await hedge(['acct', 'journal', ID, '--json']));
  const sums = new Map<string, number>();
  for (const line of journal)
    sums.set(line.entry_id, (sums.get(line.entry_id) ?? 0) + cents(line.debit) - cents(line.credit));
  expect([...sums.values()].every((sum) => sum === 0)).toBe(true);
  const entries = (what: RegExp) => [
    ...new Set(
      journal
        .filter((line) => what.test(String((line as Record<string, unknown>).description)))
        .map((line) => line.entry_id),
    ),
  ];
  expect(entries(/^remeasurement of the hedging instrument$/)).toEqual([
    `${ID}/2026-11-30/1`,
    `${ID}/2026-12-31/1`,
    `${ID}/2027-01-08/1`,
  ]);
  expect(new Set(journal.filter((line) => line.entry_id.endsWith('/adjustment')).map((line) => line.date))).toEqual(
    new Set(['2026-12-01']),
  );
  const settled = journal.filter(
    (line) =>
      /^settlement of a hedge closed/.test(String((line as Record<string, unknown>).description)) &&
      line.role === 'cash',
  );
  expect(settled.map((line) => [line.hedge_ids, line.date])).toEqual(
    deal.map((hedge) => [hedge.id, dayOf(hedge.closedAtMs!)]),
  );
  // Each in naira at the rate of its day, the cents the running total reaches: price P&L plus carry (the account's
  // side: the server's carry paid is a cost).
  let [gross, carry, before] = [[0n, 1n] as Exact, [0n, 1n] as Exact, 0n];
  for (const [index, hedge] of deal.entries()) {
    const record = closed.get(hedge.id)!;
    const spot = spotOn(rates, dayOf(hedge.closedAtMs!));
    gross = add(gross, mul(exact(String(record.gross_pnl_usd))!, spot));
    carry = add(carry, mul(exact(String(record.carry_usdc))!, [-spot[0], spot[1]]));
    const now = toCents(gross) + toCents(carry);
    expect(cents(settled[index].debit) - cents(settled[index].credit)).toBe(Number(now - before));
    before = now;
  }
  // December's posting file: a line per journal line, its document the entry, December its period, NG01 its company,
  // IFRS its ledger; each hedge's settlement in USDT too, the naira at its day's rate: NGN / (NGN per USDT).
  const decemberLines = journal.filter((line) => line.date.startsWith('2026-12'));
  const postings = okJson(await hedge(postingFile('2026-12', 'json')));
  expect(
    postings.map((line: Record<string, unknown>) => [
      line.document_number,
      line.posting_period,
      line.company_code,
      line.ledger,
      line.debit,
      line.credit,
    ]),
  ).toEqual(decemberLines.map((line) => [line.entry_id, '2026-12', 'NG01', 'IFRS', line.debit, line.credit]));
  for (const line of settled.filter((each) => each.date.startsWith('2026-12'))) {
    const posted = postings.find(
      (each: Record<string, unknown>) =>
        each.document_number === line.entry_id && each.account === `${1000 + ROLES.indexOf('cash')} cash`,
    );
    const spot = spotOn(rates, line.date);
    expect([posted.currency, posted.currency_tc, posted.rate]).toEqual(['NGN', 'USDT', exactText(spot)]);
    expect(cents(posted.amount_tc)).toBe(
      Number(toCents(div([BigInt(cents(line.debit) - cents(line.credit)), 100n], spot))),
    );
  }
  // December's disclosures (IFRS 7): the hedge held at the year end — the one opened on 25 December and rolled on
  // 1 January — its 20,000 USD nominal at the rate it was struck, maturing within a month; the carrying amount the
  // books hold; the reserve reconciled as the roll-forward's December line (its adjustment included).
  const yearEnd = deal.find(
    (hedge) => dayOf(hedge.filledAtMs!) <= '2026-12-31' && dayOf(hedge.closedAtMs!) > '2026-12-31',
  )!;
  const disclosed = okJson(await hedge(['acct', 'disclose', '--period', '2026-12', '--json']));
  const figure = (paragraph: string, item: string) =>
    disclosed.find((line: Record<string, unknown>) => line.paragraph === paragraph && line.item === item);
  expect([yearEnd.notionalUsd, dayOf(yearEnd.filledAtMs!)]).toEqual([20_000, '2026-12-25']);
  for (const item of ['nominal amount', 'nominal maturing up to 1 month'])
    expect(figure(item === 'nominal amount' ? '24A(d)' : '23B', item)).toMatchObject({
      amount: 20000,
      currency: 'USD',
      average_rate: exactText(exact(String(yearEnd.struckRate))!),
      rate_quote: 'NGN per USDT',
    });
  const carrying = rows[1].instrument_carrying;
  expect(figure('24A(a)–(b)', `carrying amount: ${carrying >= 0 ? 'assets' : 'liabilities'}`).amount).toBe(
    Math.abs(carrying),
  );
  expect(
    [
      'reserve: opening',
      'reserve: effective part (OCI)',
      'reserve: adjustment of a closed month',
      'reserve: closing',
    ].map((item) => figure('24E(a), 24F', item).amount),
  ).toEqual([december.reserve_open, december.effective, december.adjustment, december.reserve_close]);
  expect(figure('24C(b)(i)', 'hedging gain or loss in OCI').amount).toBe(december.effective);
  // Nothing after the relationship ended: no line dated after the payment, and February has none.
  expect(journal.every((line) => line.date <= '2027-01-20')).toBe(true);
  expect(okJson(await hedge(['acct', 'journal', ID, '--period', '2027-02', '--json']))).toEqual([]);
  // No acct command sent a write: the closes and corrections only read the server.
  expect(writes()).toBe(writesBefore);
});

it('the same day: designated, opened and closed on it, the interim period to that day gives the change, the fees and the entries', async () => {
  const { simulator, day, hedge, to } = await desk('2026-11-10T09:00:00Z');
  await colleagueOpens(simulator, 'buy', 10_000, 7, REFERENCE);
  await to('2026-11-10T12:30:00Z');
  const today = day();
  const file = join(simulator.configDir, 'relationship.json');
  writeFileSync(file, JSON.stringify(relationship(today, '2026-12-20')));
  ok(await hedge(['acct', 'designate', file]));
  // The desk's hedges settle as each closes: a termination of them is not the user's to record.
  exits(
    await hedge(['acct', 'event', ID, '--terminate', today, '--reason', 'closed']),
    2,
    "--terminate: USDT-SUPPLIER-1's instrument is the desk's hedges",
  );
  await to('2026-11-10T15:00:00Z');
  await colleagueCloses(simulator, 'buy');
  const [record]: Array<Record<string, unknown>> = okJson(await hedge(['history', '--ref', REFERENCE, '--json']));
  const spot = exact(okJson(await hedge(['acct', 'rates', '--market', MARKET, '--json']))[0].spot)!;
  const rows = okJson(await hedge(['acct', 'test', ID, '--as-of', today, '--json']));
  // Opened on the designation's day: counted from nil; closed that day: its gross P&L at the day's rate, in naira.
  expect(rows.map((row: Record<string, unknown>) => [row.period_end, row.instrument_change, row.fees])).toEqual([
    [
      today,
      centsNumber(toCents(mul(exact(String(record.gross_pnl_usd))!, spot))),
      centsNumber(toCents(mul(exact(String(record.fees_usdc))!, [-spot[0], spot[1]]))),
    ],
  ]);
  const journal: Line[] = okJson(await hedge(['acct', 'journal', ID, '--as-of', today, '--json']));
  expect(new Set(journal.map((line) => line.date))).toEqual(new Set([today]));
  expect(journal.filter((line) => line.role === 'fees')).toHaveLength(1);
  // Before the designation's day: nothing.
  const dayBefore = new Date(Date.parse(`${today}T00:00:00Z`) - 24 * HOUR).toISOString().slice(0, 10);
  expect(okJson(await hedge(['acct', 'test', ID, '--as-of', dayBefore, '--json']))).toEqual([]);
});
