// End to end on the simulator: from an exposures file, `keep --exposures` holds a receivable's cover and rolls it
// through several maturities (the server's clock moved by advance()); the keeper's reference for that cover is
// designated as the instrument of a cash-flow hedge, and `acct test` and `acct journal` read it: the instrument's
// change is what `history` and `positions` say of those hedges, to the cent, every entry balances, and no acct command
// sends a write.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { exits, ok, okJson } from '../support/cli-runs.js';
import { HOUR, keepOnce } from '../support/keeper.js';
import { openBody } from '../support/engine.js';
import { add, centsNumber, div, exact, mul, sub, toCents, type Exact } from '../../src/features/acct/acct-money.js';
import {
  apiData,
  colleagueCloses,
  colleagueOpens,
  FILL_DELAY_MS,
  FROZEN_START_MS,
  MARKET,
  useSimulators,
  type Simulator,
} from '../support/simulator.js';

const start = useSimulators();
const cents = (value: unknown) => Math.round(Number(value) * 100);
/** The reference the exposures keeper gives every hedge of a market's buy side, through its rolls. */
const REFERENCE = `EXPOSURES-${MARKET}-BUY`;

it("keep --exposures rolls a receivable's cover three times, rates recorded daily; acct test values every period end from the recorded rates and the hedges' records to the cent, measured from designation, the same every run", async () => {
  // The server's clock stopped where this machine's is (moved only by advance() and hedge's pauses): the open hedge's
  // mark and accrued carry are the same for acct as for positions, and the designation's day is this machine's too.
  // Three days before a month's end, so that the rolls cross it and the month is closed days after.
  const stoppedAt = Date.parse('2026-11-27T09:00:00Z');
  const simulator = await start({ stepped: true, realNow: () => stoppedAt });
  const t0 = simulator.sandbox.clock.now();
  // An NGN receivable due in 9 days, covered at 100 % (within 30 days): a 7-day hedge, then 1-day ones as it nears.
  const due = new Date(t0 + 9 * 24 * HOUR).toISOString();
  const exposures = join(simulator.configDir, 'exposures.csv');
  writeFileSync(exposures, `id,market,type,amount,currency,due\nINV-1042,${MARKET},receivable,3000000,NGN,${due}\n`);
  const policy = join(simulator.configDir, 'policy.json');
  writeFileSync(policy, JSON.stringify({ ratios: '30:100,90:75,*:50', band_pct: 5, sizing: 'current', netting: true }));
  const keep = () => keepOnce(simulator, exposures, 0, '--exposures', '--policy', policy);
  await keep();
  expect(simulator.active('buy').map((hedge) => hedge.clientReference)).toEqual([REFERENCE]);
  const serverDay = () => new Date(simulator.sandbox.clock.now()).toISOString().slice(0, 10);
  const designatedAt = serverDay();

  ok(await simulator.hedge(['acct', 'rates', '--record', '--market', MARKET]));
  const relationship = {
    id: 'NGN-RECEIVABLE-1',
    framework: 'ifrs9',
    type: 'cash_flow',
    designated_at: designatedAt,
    objective: 'Fix the dollar value of a naira receivable by buying USDT forward, rolled until it is paid.',
    market: MARKET,
    hedged_item: {
      description: 'Invoice 1042 to a Lagos distributor (INV-1042 in the exposures file)',
      currency: 'NGN',
      amount: '3000000',
      expected_date: due.slice(0, 10),
      kind: 'forecast',
      probability_evidence: 'Signed order; the customer has paid every invoice this year',
    },
    instrument: { references: [REFERENCE] },
    // Half of the cover designated here, half in the critical-terms relationship below.
    ratio: '0.5',
    designation: 'spot',
    excluded: 'cost_of_hedging_reserve',
    method: 'dollar_offset_cumulative',
    sources_of_ineffectiveness: "Rolls at other prices than the mid; the keeper's band; the payment date",
    approved_by: 'Treasurer',
  };
  const file = join(simulator.configDir, 'relationship.json');
  writeFileSync(file, JSON.stringify({ ...relationship, instrument: { references: ['NO-SUCH-DEAL'] } }));
  exits(await simulator.hedge(['acct', 'designate', file]), 2, 'instrument.references: no hedge carries NO-SUCH-DEAL');
  // A deal whose hedges are all closed names no hedge still held: refused unless recorded late.
  const closed = await simulator.api('POST', '/hedges', {
    body: { market: MARKET, side: 'sell', notional_usd: 1000, tenor_days: 1, client_reference: 'DEAL-CLOSED' },
  });
  expect(closed.status).toBe(200);
  simulator.advance(1_000);
  expect((await simulator.api('POST', '/hedges/close', { body: { market: MARKET, side: 'sell' } })).status).toBe(200);
  simulator.advance(60_000);
  expect(simulator.hedges().find((hedge) => hedge.id === closed.body.data.id)?.status).toBe('closed');
  writeFileSync(file, JSON.stringify({ ...relationship, instrument: { references: ['DEAL-CLOSED'] } }));
  exits(
    await simulator.hedge(['acct', 'designate', file]),
    2,
    'instrument.references: every hedge carrying DEAL-CLOSED is already closed',
  );
  writeFileSync(file, JSON.stringify(relationship));
  const writesBefore = simulator.writes().length;
  ok(await simulator.hedge(['acct', 'designate', file]));
  // The memo names the hedge held when it was designated: its id, side, notional, entry rate and maturity.
  const [held] = simulator.active('buy');
  const shown = okJson(await simulator.hedge(['acct', 'show', relationship.id, '--json']));
  expect(shown.hedges).toEqual([
    {
      id: held.id,
      side: 'buy',
      notional_usd: held.notionalUsd,
      entry_rate: held.struckRate,
      maturity: new Date(held.maturityAtMs!).toISOString().slice(0, 10),
    },
  ]);
  // The same cover by critical terms: its terms against the receivable's, read from the desk's open hedge.
  const byTerms = { ...relationship, id: 'NGN-RECEIVABLE-TERMS', method: 'critical_terms' };
  // One hedge's shares across live relationships are at most the whole of it.
  writeFileSync(file, JSON.stringify({ ...byTerms, ratio: '0.75' }));
  exits(
    await simulator.hedge(['acct', 'designate', file]),
    2,
    `ratio: 0.75 of the hedges carrying ${REFERENCE} with NGN-RECEIVABLE-1's 0.5 designates more than the whole of them`,
  );
  writeFileSync(file, JSON.stringify(byTerms));
  ok(await simulator.hedge(['acct', 'designate', file]));
  expect(simulator.writes()).toHaveLength(writesBefore);

  // Three maturities: half an hour before each, within the keeper's last cycle before it, the keeper rolls it; the
  // market's rate is recorded at noon of every day between (the server's day), as a desk would from a timer.
  const recordRate = async () => ok(await simulator.hedge(['acct', 'rates', '--record', '--market', MARKET]));
  for (let roll = 0; roll < 3; roll += 1) {
    const [held] = simulator.active('buy');
    const rollAt = held.maturityAtMs! - 30 * 60_000;
    for (;;) {
      const now = simulator.sandbox.clock.now();
      const noon = Math.floor(now / (24 * HOUR)) * 24 * HOUR + 12 * HOUR;
      // The designation's day has its rate already: the next noon after it.
      const next = noon > now && serverDay() !== designatedAt ? noon : noon + 24 * HOUR;
      if (next >= rollAt) break;
      simulator.advance(next - now);
      await recordRate();
    }
    simulator.advance(rollAt - simulator.sandbox.clock.now());
    await keep();
  }
  const deal = simulator.hedges().filter((hedge) => hedge.clientReference === REFERENCE);
  expect(deal.length).toBeGreaterThanOrEqual(4);
  const writesAfterKeep = simulator.writes().length;
  const ratesNow = okJson(await simulator.hedge(['acct', 'rates', '--market', MARKET, '--json']));
  // The last day's rate, unless its noon came before the roll.
  if (!ratesNow.some((rate: { date: string }) => rate.date === serverDay())) await recordRate();
  const asOf = serverDay();
  expect(asOf > designatedAt).toBe(true);
  const periods = okJson(await simulator.hedge(['acct', 'test', relationship.id, '--as-of', asOf, '--json']));
  const [period] = periods.slice(-1);
  const history = okJson(await simulator.hedge(['history', '--ref', REFERENCE, '--json']));
  expect(history.length).toBe(deal.length - 1);

  // By hand, from what is recorded and the hedges' records (byHand, below): the designated half, rounded once.
  const rates = okJson(await simulator.hedge(['acct', 'rates', '--market', MARKET, '--json']));
  const change = byHand(deal, history, rates, designatedAt);
  // A row a month: November's end, and December to the day asked for.
  expect(periods.map((row: { period_end: string }) => row.period_end)).toEqual(['2026-11-30', asOf]);
  for (const each of periods)
    expect([each.period_end, each.instrument_change]).toEqual([
      each.period_end,
      centsNumber(toCents(mul(change(each.period_end), [1n, 2n]))),
    ]);
  expect(period).toMatchObject({ relationship_id: relationship.id, period_end: asOf, currency: 'USD' });
  expect(cents(period.reserve_open) + cents(period.effective) - cents(period.reclassified)).toBe(
    cents(period.reserve_close),
  );
  // The same figures every time: valued from what is recorded, not from the time of the run.
  simulator.advance(2 * HOUR);
  const again = await simulator.hedge(['acct', 'test', relationship.id, '--as-of', asOf, '--json']);
  expect(again.stdout).toBe(JSON.stringify(periods, null, 2) + '\n');

  const journal = okJson(await simulator.hedge(['acct', 'journal', '--json']));
  expect(journal.length).toBeGreaterThan(0);
  const byEntry = new Map<string, number>();
  for (const line of journal)
    byEntry.set(line.entry_id, (byEntry.get(line.entry_id) ?? 0) + cents(line.debit) - cents(line.credit));
  expect([...byEntry.values()]).toEqual([...byEntry.values()].map(() => 0));
  expect(new Set(journal.flatMap((line: { hedge_ids: string }) => line.hedge_ids.split(' ')))).toEqual(
    new Set(deal.map((hedge) => hedge.id)),
  );
  // Each hedge closed is settled once, on the day it closed: its whole price P&L and carry in cash, its fees paid.
  for (const row of history) {
    const own = journal.filter(
      (line: { hedge_ids: string; relationship_id: string }) =>
        line.hedge_ids === row.hedge_id && line.relationship_id === relationship.id,
    );
    const day = String(row.closed_at).slice(0, 10);
    const cash = cents(row.gross_pnl_usd) - cents(row.carry_usdc);
    expect(
      own.map((line: { date: string; role: string; debit: number; credit: number }) => [
        line.date,
        line.role,
        cents(line.debit) - cents(line.credit),
      ]),
    ).toEqual([
      [day, 'cash', cash],
      [day, 'hedging_instrument', -cash],
      [day, 'fees', cents(row.fees_usdc)],
      [day, 'cash', -cents(row.fees_usdc)],
    ]);
  }
  // Critical terms: the desk's open hedge (in USD, on the market, maturing before the due date) against the receivable.
  const [terms] = okJson(await simulator.hedge(['acct', 'test', byTerms.id, '--as-of', asOf, '--json'])).slice(-1);
  const positions = okJson(await simulator.hedge(['positions', '--json']));
  expect(positions).toHaveLength(1);
  const maturity = new Date(simulator.active('buy')[0].maturityAtMs!).toISOString().slice(0, 10);
  expect(terms.critical_terms).toMatchObject({
    currency: { instrument: 'USD', hedged_item: 'NGN', matched: false },
    maturity: {
      instrument: maturity,
      hedged_item: due.slice(0, 10),
      days_apart: (Date.parse(maturity) - Date.parse(due.slice(0, 10))) / (24 * HOUR),
    },
    underlying: { instrument: MARKET, hedged_item: MARKET, matched: true },
    matched: false,
  });
  // Its figures are the dollar-offset ones of the same hedges.
  expect([terms.instrument_change, terms.effective, terms.reserve_close]).toEqual([
    period.instrument_change,
    period.effective,
    period.reserve_close,
  ]);
  // November closed in December, days after its end: its rows and entries print as they were, every time.
  const november = ['acct', 'journal', relationship.id, '--period', '2026-11', '--format', 'csv'];
  const novemberTest = ['acct', 'test', relationship.id, '--period', '2026-11', '--json'];
  const [entriesBefore, testBefore] = [
    ok(await simulator.hedge(november)).stdout,
    ok(await simulator.hedge(novemberTest)).stdout,
  ];
  expect(
    JSON.parse(testBefore)
      .map((row: { period_end: string }) => row.period_end)
      .at(-1),
  ).toBe('2026-11-30');
  ok(await simulator.hedge(['acct', 'close', '--period', '2026-11']));
  simulator.advance(24 * HOUR);
  await recordRate();
  expect(ok(await simulator.hedge(november)).stdout).toBe(entriesBefore);
  expect(ok(await simulator.hedge(novemberTest)).stdout).toBe(testBefore);
  exits(await simulator.hedge(['acct', 'close', '--period', '2026-12']), 2, '--period: 2026-12 has not ended');

  // acct reads: the only requests it sent were GETs.
  expect(simulator.writes()).toHaveLength(writesAfterKeep);
});

it('acct designate on a server that leaves an early-closed hedge `filled` (alpha): a deal whose one hedge the history lists closed names no hedge still held, refused unless recorded late, as the side model reads it', async () => {
  const simulator = await start({ dialect: 'alpha', stepped: true });
  await colleagueOpens(simulator, 'sell', 1000, 7, 'DEAL-EARLY');
  const [opened] = simulator.active('sell');
  await colleagueCloses(simulator, 'sell');
  // Closed, and in the history; its record still says `filled`.
  expect((await apiData(simulator, 'GET', `/hedges/${opened.id}`)).status).toBe('filled');
  expect(await apiData(simulator, 'GET', '/hedges/history')).toHaveLength(1);
  const today = new Date(Date.now()).toISOString().slice(0, 10);
  const file = join(simulator.configDir, 'relationship.json');
  writeFileSync(
    file,
    JSON.stringify({
      id: 'NGN-PAYABLE-1',
      framework: 'ifrs9',
      type: 'cash_flow',
      designated_at: today,
      objective: 'Fix the dollar cost of a naira payable.',
      market: MARKET,
      functional_currency: 'USD',
      hedged_item: {
        description: 'A payable',
        currency: 'NGN',
        amount: '1000000',
        expected_date: today,
        kind: 'forecast',
        probability_evidence: 'Signed order',
      },
      instrument: { references: ['DEAL-EARLY'] },
      ratio: '1',
      designation: 'spot',
      excluded: 'cost_of_hedging_reserve',
      method: 'dollar_offset_cumulative',
      sources_of_ineffectiveness: 'Rolls',
      approved_by: 'Treasurer',
    }),
  );
  exits(
    await simulator.hedge(['acct', 'designate', file]),
    2,
    'instrument.references: every hedge carrying DEAL-EARLY is already closed',
  );
  ok(await simulator.hedge(['acct', 'designate', file, '--recorded-late', 'Brought over from the old books']));
  expect(simulator.writes().map((entry) => entry.path)).toEqual(['/hedges', '/hedges/close']);
});

it('an NGN company hedging a USDT payable with a buy of USDTNGN: every amount in NGN, translated at the recorded rate; the buy offsets the payable whole', async () => {
  // The evening before a month's last two days: designated the next morning, valued over a month end.
  const stoppedAt = Date.parse('2026-11-28T20:00:00Z');
  const simulator = await start({ stepped: true, realNow: () => stoppedAt });
  // Opened the day before the designation: its value then is not the relationship's.
  await colleagueOpens(simulator, 'buy', 20_000, 7, 'PAYABLE-7');
  simulator.advance(9 * HOUR);
  ok(await simulator.hedge(['acct', 'rates', '--record', '--market', MARKET]));
  const day = () => new Date(simulator.sandbox.clock.now()).toISOString().slice(0, 10);
  const designatedAt = day();
  const file = join(simulator.configDir, 'payable.json');
  writeFileSync(
    file,
    JSON.stringify(
      usdtPayable({
        id: 'USDT-PAYABLE-1',
        designated_at: designatedAt,
        market: MARKET,
        functional_currency: 'NGN',
        references: ['PAYABLE-7'],
        expectedMs: simulator.sandbox.clock.now() + 6 * 24 * HOUR,
      }),
    ),
  );
  ok(await simulator.hedge(['acct', 'designate', file]));
  for (let days = 0; days < 2; days += 1) {
    simulator.advance(24 * HOUR);
    ok(await simulator.hedge(['acct', 'rates', '--record', '--market', MARKET]));
  }
  const asOf = day();
  const rows = okJson(await simulator.hedge(['acct', 'test', 'USDT-PAYABLE-1', '--as-of', asOf, '--json']));
  const rates = okJson(await simulator.hedge(['acct', 'rates', '--market', MARKET, '--json']));
  const [hedge] = simulator.hedges().filter((each) => each.clientReference === 'PAYABLE-7');
  // By hand: the hedge's USD value N × (S − E) / S, in naira at S: N × (S − E); less the same at designation.
  const naira = (rate: { spot: string }) =>
    mul(exact(String(hedge.notionalUsd))!, sub(exact(rate.spot)!, exact(String(hedge.struckRate))!));
  const rateOn = (date: string) => rates.find((rate: { date: string }) => rate.date === date);
  // November to its end, December to the day asked for.
  expect(rows.map((row: { period_end: string }) => row.period_end)).toEqual(['2026-11-30', asOf]);
  for (const row of rows) {
    expect(row.currency).toBe('NGN');
    expect(row.instrument_change).toBe(
      centsNumber(toCents(sub(naira(rateOn(row.period_end)), naira(rateOn(designatedAt))))),
    );
    // The payable of 20,000 USDT costs 20,000 × ΔS naira more: the buy offsets it whole.
    expect(row.hedged_item_change).toBe(
      centsNumber(
        toCents(mul(exact('-20000')!, sub(exact(rateOn(row.period_end).spot)!, exact(rateOn(designatedAt).spot)!))),
      ),
    );
    expect(row.ratio).toBe(1);
  }
  expect(rows[0].hedges_closed_early).toBeUndefined();
  // Closed before its maturity and the payable's date, nothing opened in its place: flagged on the relationship's test.
  await colleagueCloses(simulator, 'buy');
  simulator.advance(24 * HOUR);
  ok(await simulator.hedge(['acct', 'rates', '--record', '--market', MARKET]));
  const [last] = okJson(await simulator.hedge(['acct', 'test', 'USDT-PAYABLE-1', '--json'])).slice(-1);
  expect(last.hedges_closed_early).toEqual([
    { id: hedge.id, closed: asOf, maturity: new Date(hedge.maturityAtMs!).toISOString().slice(0, 10) },
  ]);
  const screen = ok(await simulator.hedge(['acct', 'test', 'USDT-PAYABLE-1'], { screen: { columns: 200, rows: 60 } }));
  const shown = screen.stdout.replace(/\s+/g, ' ');
  expect(shown).toContain(`USDT-PAYABLE-1: ${hedge.id} closed on ${asOf}, before its maturity`);
});

it('three month-ends on the simulator: a cover rolled by keep --exposures, designated after it opened, rates recorded daily; each month closed days after its end prints the same bytes months later, and every period end is the hand computation to the cent', async () => {
  const stoppedAt = Date.parse('2026-11-20T09:00:00Z');
  const simulator = await start({ stepped: true, realNow: () => stoppedAt });
  const t0 = simulator.sandbox.clock.now();
  // A receivable due after three month-ends, covered whole all along: the keeper only rolls it.
  const due = new Date(Date.parse('2027-02-06T12:00:00Z')).toISOString();
  const exposures = join(simulator.configDir, 'exposures.csv');
  writeFileSync(exposures, `id,market,type,amount,currency,due\nINV-2001,${MARKET},receivable,1500000,NGN,${due}\n`);
  const policy = join(simulator.configDir, 'policy.json');
  writeFileSync(policy, JSON.stringify({ ratios: '*:100', band_pct: 5, sizing: 'current', netting: true }));
  const keep = () => keepOnce(simulator, exposures, 0, '--exposures', '--policy', policy);
  await keep();
  const serverDay = () => new Date(simulator.sandbox.clock.now()).toISOString().slice(0, 10);
  const recordRate = async () => ok(await simulator.hedge(['acct', 'rates', '--record', '--market', MARKET]));
  // Designated a day after the cover opened.
  simulator.advance(24 * HOUR);
  await recordRate();
  const designatedAt = serverDay();
  expect(designatedAt > new Date(t0).toISOString().slice(0, 10)).toBe(true);
  const file = join(simulator.configDir, 'relationship.json');
  const id = 'NGN-RECEIVABLE-Q';
  writeFileSync(
    file,
    JSON.stringify({
      id,
      framework: 'ifrs9',
      type: 'cash_flow',
      designated_at: designatedAt,
      objective: 'Fix the dollar value of a naira receivable by buying USDT forward, rolled until it is paid.',
      market: MARKET,
      hedged_item: {
        description: 'Invoice 2001',
        currency: 'NGN',
        amount: '1500000',
        expected_date: due.slice(0, 10),
        kind: 'forecast',
        probability_evidence: 'Signed order',
      },
      instrument: { references: [REFERENCE] },
      ratio: '1',
      designation: 'spot',
      excluded: 'pnl',
      method: 'dollar_offset_cumulative',
      sources_of_ineffectiveness: 'Rolls at other prices than the mid',
      approved_by: 'Treasurer',
    }),
  );
  ok(await simulator.hedge(['acct', 'designate', file]));

  // Day by day to 3 February: the rate at noon; the keeper half an hour before a maturity; a month closed on the 3rd.
  const months = ['2026-11', '2026-12', '2027-01'];
  const printed = new Map<string, string[]>();
  const monthOutputs = async (month: string) => [
    ok(await simulator.hedge(['acct', 'journal', id, '--period', month, '--format', 'csv'])).stdout,
    ok(await simulator.hedge(['acct', 'test', id, '--period', month, '--json'])).stdout,
    ok(await simulator.hedge(['acct', 'reserve', id, '--period', month, '--json'])).stdout,
  ];
  while (serverDay() < '2027-02-03') {
    const now = simulator.sandbox.clock.now();
    const noon = Math.floor(now / (24 * HOUR)) * 24 * HOUR + 12 * HOUR;
    // One rate a day: the designation's day has its own already.
    const next = noon > now && serverDay() !== designatedAt ? noon : noon + 24 * HOUR;
    const [held] = simulator.active('buy');
    const rollAt = held.maturityAtMs! - 30 * 60_000;
    if (rollAt <= next) {
      simulator.advance(Math.max(0, rollAt - now));
      await keep();
      continue;
    }
    simulator.advance(next - now);
    await recordRate();
    const day = serverDay();
    const month = months.find((each) => day === `${nextMonth(each)}-03`);
    if (month) {
      const before = await monthOutputs(month);
      ok(await simulator.hedge(['acct', 'close', '--period', month]));
      expect(await monthOutputs(month)).toEqual(before);
      printed.set(month, before);
    }
  }
  expect([...printed.keys()]).toEqual(months);
  // Months later, after every rate since: each closed month prints as it did.
  for (const month of months) expect(await monthOutputs(month)).toEqual(printed.get(month));

  // By hand from the recorded rates and the hedges' records, as in the test above.
  const deal = simulator.hedges().filter((hedge) => hedge.clientReference === REFERENCE);
  expect(deal.length).toBeGreaterThan(9);
  const history = okJson(await simulator.hedge(['history', '--ref', REFERENCE, '--json']));
  const rates = okJson(await simulator.hedge(['acct', 'rates', '--market', MARKET, '--json']));
  const change = byHand(deal, history, rates, designatedAt);
  const periods = okJson(await simulator.hedge(['acct', 'test', id, '--as-of', serverDay(), '--json']));
  // A row a month: three month ends, then February to the day asked for.
  expect(periods.map((row: { period_end: string }) => row.period_end)).toEqual([
    '2026-11-30',
    '2026-12-31',
    '2027-01-31',
    serverDay(),
  ]);
  for (const each of periods)
    expect([each.period_end, each.instrument_change]).toEqual([
      each.period_end,
      centsNumber(toCents(change(each.period_end))),
    ]);
});

/** The documented rule, by hand, from the hedges' records, their history and the recorded rates: at the end of a day,
 * a hedge closed on or before it counts what history says it realized (gross P&L), fixed at the rate of the day it
 * closed (in naira: times that day's spot); one filled by the time the day's rate was read, and open then, N × (S −
 * E) / S (in naira, times S: N × (S − E)); one filled after that reading, nothing yet. Each hedge measured from its
 * value on the designation's day if it opened before that day, else from nil. Exact: the caller rounds once. */
function byHand(
  deal: ReturnType<Simulator['hedges']>,
  history: Array<Record<string, unknown>>,
  rates: Array<{ date: string; spot: string; at: string }>,
  designatedAt: string,
  naira = false,
) {
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  const rateOn = (date: string) => rates.find((rate) => rate.date === date)!;
  const realized = new Map(history.map((row) => [row.hedge_id, exact(String(row.gross_pnl_usd))!]));
  const zero: Exact = [0n, 1n];
  const valueOn = (hedge: (typeof deal)[number], date: string): Exact => {
    if (hedge.filledAtMs === undefined || day(hedge.filledAtMs) > date) return zero;
    if (hedge.closedAtMs !== undefined && day(hedge.closedAtMs) <= date) {
      const gross = realized.get(hedge.id)!;
      return naira ? mul(gross, exact(rateOn(day(hedge.closedAtMs)).spot)!) : gross;
    }
    const rate = rateOn(date);
    if (hedge.filledAtMs > Date.parse(rate.at)) return zero;
    const [notional, entry, spot] = [
      exact(String(hedge.notionalUsd))!,
      exact(String(hedge.struckRate))!,
      exact(rate.spot)!,
    ];
    const buy = div(mul(notional, sub(spot, entry)), spot);
    const usd: Exact = hedge.side === 'buy' ? buy : [-buy[0], buy[1]];
    return naira ? mul(usd, spot) : usd;
  };
  return (date: string) =>
    deal.reduce<Exact>(
      (sum, hedge) =>
        add(
          sum,
          sub(
            valueOn(hedge, date),
            hedge.filledAtMs !== undefined && day(hedge.filledAtMs) < designatedAt
              ? valueOn(hedge, designatedAt)
              : zero,
          ),
        ),
      zero,
    );
}

/** The month after `YYYY-MM`. */
/** A USDT payable hedged by a buy of USDT forward, its cash flow designated on the spot element. */
function usdtPayable(at: {
  id: string;
  designated_at: string;
  market: string;
  functional_currency: string;
  references: string[];
  expectedMs: number;
}) {
  return {
    id: at.id,
    framework: 'ifrs9',
    type: 'cash_flow',
    designated_at: at.designated_at,
    objective: 'Fix the naira cost of a USDT payable by buying USDT forward.',
    market: at.market,
    functional_currency: at.functional_currency,
    hedged_item: {
      description: 'A supplier paid in USDT',
      currency: 'USDT',
      amount: '-20000',
      expected_date: new Date(at.expectedMs).toISOString().slice(0, 10),
      kind: 'firm',
      probability_evidence: 'Signed contract',
    },
    instrument: { references: at.references },
    ratio: '1',
    designation: 'spot',
    excluded: 'pnl',
    method: 'dollar_offset_cumulative',
    sources_of_ineffectiveness: 'The price the hedge was struck at against the mid',
    approved_by: 'Finance director',
  };
}

function nextMonth(month: string) {
  const [year, number] = month.split('-').map(Number);
  return number === 12 ? `${year + 1}-01` : `${year}-${String(number + 1).padStart(2, '0')}`;
}

it("a hedge whose record shows a status hedge does not know (gamma: `settling` while its close lands), the history not listing it closed yet: acct test refuses in the side model's words, never values the relationship without it", async () => {
  // Gamma lists USDTNGN disabled: its KES market.
  const KES = 'USDTKES';
  const simulator = await start({ dialect: 'gamma', stepped: true, realNow: () => FROZEN_START_MS });
  const opened = await apiData(
    simulator,
    'POST',
    '/hedges',
    openBody('buy', 20_000, 7, { market: KES, client_reference: 'PAYABLE-8' }),
  );
  simulator.advance(FILL_DELAY_MS + 1);
  ok(await simulator.hedge(['acct', 'rates', '--record', '--market', KES]));
  const today = new Date(simulator.sandbox.clock.now()).toISOString().slice(0, 10);
  const file = join(simulator.configDir, 'payable.json');
  writeFileSync(
    file,
    JSON.stringify(
      usdtPayable({
        id: 'USDT-PAYABLE-8',
        designated_at: today,
        market: KES,
        functional_currency: 'KES',
        references: ['PAYABLE-8'],
        expectedMs: simulator.sandbox.clock.now() + 6 * 24 * HOUR,
      }),
    ),
  );
  ok(await simulator.hedge(['acct', 'designate', file]));
  ok(await simulator.hedge(['acct', 'test', 'USDT-PAYABLE-8', '--json']));
  // A close accepted and not landed yet: its record says `settling`; the history has no record of it.
  await apiData(simulator, 'POST', '/hedges/close', { market: KES, side: 'buy' });
  expect(await apiData(simulator, 'GET', `/hedges/${opened.id}`)).toMatchObject({ status: 'settling' });
  expect(await apiData(simulator, 'GET', '/hedges/history')).toEqual([]);
  exits(
    await simulator.hedge(['acct', 'test', 'USDT-PAYABLE-8']),
    2,
    `instrument.references: hedge ${opened.id} shows status "settling", which hedge does not know (neither open nor ended), and the history does not list it closed`,
  );
  expect(simulator.writes().map((entry) => entry.path)).toEqual(['/hedges', '/hedges/close']);
});
