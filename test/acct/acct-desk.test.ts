// End to end on the simulator: from an exposures file, `keep --exposures` holds a receivable's cover and rolls it
// through several maturities (the server's clock moved by advance()); the keeper's reference for that cover is
// designated as the instrument of a cash-flow hedge, and `acct test` and `acct journal` read it: the instrument's
// change is what `history` and `positions` say of those hedges, to the cent, every entry balances, and no acct command
// sends a write.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { exits, ok, okJson } from '../support/cli-runs.js';
import { HOUR, keepOnce } from '../support/keeper.js';
import { apiData, colleagueCloses, colleagueOpens, MARKET, useSimulators } from '../support/simulator.js';

const start = useSimulators();
const cents = (value: unknown) => Math.round(Number(value) * 100);
/** The reference the exposures keeper gives every hedge of a market's buy side, through its rolls. */
const REFERENCE = `EXPOSURES-${MARKET}-BUY`;

it("keep --exposures rolls a receivable's cover three times; acct designate, test and journal agree with history and positions to the cent", async () => {
  // The server's clock stopped where this machine's is (moved only by advance() and hedge's pauses): the open hedge's
  // mark and accrued carry are the same for acct as for positions, and the designation's day is this machine's too.
  const stoppedAt = Date.now();
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
    ratio: '1',
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
  // The same cover by critical terms: its terms against the receivable's, read from the desk's open hedge.
  const byTerms = { ...relationship, id: 'NGN-RECEIVABLE-TERMS', method: 'critical_terms' };
  writeFileSync(file, JSON.stringify(byTerms));
  ok(await simulator.hedge(['acct', 'designate', file]));
  expect(simulator.writes()).toHaveLength(writesBefore);

  // Three maturities: half an hour before each, within the keeper's last cycle before it, the keeper rolls it.
  for (let roll = 0; roll < 3; roll += 1) {
    const [held] = simulator.active('buy');
    simulator.advance(held.maturityAtMs! - 30 * 60_000 - simulator.sandbox.clock.now());
    await keep();
  }
  const deal = simulator.hedges().filter((hedge) => hedge.clientReference === REFERENCE);
  expect(deal.length).toBeGreaterThanOrEqual(4);
  const asOf = serverDay();
  expect(asOf > designatedAt).toBe(true);

  const writesAfterKeep = simulator.writes().length;
  ok(await simulator.hedge(['acct', 'rates', '--record', '--market', MARKET]));
  const [period] = okJson(await simulator.hedge(['acct', 'test', relationship.id, '--as-of', asOf, '--json'])).slice(
    -1,
  );
  const history = okJson(await simulator.hedge(['history', '--ref', REFERENCE, '--json']));
  const positions = okJson(await simulator.hedge(['positions', '--json']));
  const live = deal.filter((hedge) => hedge.status === 'filled').map((hedge) => hedge.id);
  const open = positions.filter((line: Record<string, unknown>) => live.includes(String(line.hedge_id)));
  expect(history.length).toBe(deal.length - 1);
  expect(open).toHaveLength(1);

  const sum = (rows: Array<Record<string, unknown>>, key: string) =>
    rows.reduce((total, row) => total + cents(row[key]), 0);
  // The instrument: gross price P&L of every closed hedge of the deal plus the open one's mark; the carry excluded.
  expect(cents(period.instrument_change)).toBe(sum(history, 'gross_pnl_usd') + sum(open, 'gross_pnl_usd'));
  expect(cents(period.excluded)).toBe(-(sum(history, 'carry_usdc') + sum(open, 'accrued_carry_usdc')));
  expect(period).toMatchObject({ relationship_id: relationship.id, period_end: asOf });
  expect(cents(period.reserve_open) + cents(period.effective) - cents(period.reclassified)).toBe(
    cents(period.reserve_close),
  );

  const journal = okJson(await simulator.hedge(['acct', 'journal', '--json']));
  expect(journal.length).toBeGreaterThan(0);
  const byEntry = new Map<string, number>();
  for (const line of journal)
    byEntry.set(line.entry_id, (byEntry.get(line.entry_id) ?? 0) + cents(line.debit) - cents(line.credit));
  expect([...byEntry.values()]).toEqual([...byEntry.values()].map(() => 0));
  expect(new Set(journal.flatMap((line: { hedge_ids: string }) => line.hedge_ids.split(' ')))).toEqual(
    new Set(deal.map((hedge) => hedge.id)),
  );
  // Critical terms: the desk's open hedge (in USD, on the market, maturing before the due date) against the receivable.
  const [terms] = okJson(await simulator.hedge(['acct', 'test', byTerms.id, '--as-of', asOf, '--json'])).slice(-1);
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
