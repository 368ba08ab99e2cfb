// One field, one name and one meaning, against the simulator's own state: the hedge's id is
// `hedge_id` in what `open` prints, as in positions, close and history; the plan's and the exposures'
// carry and fees have names of their own, the quote's and history's keeping theirs (the report's
// fees_pnl_usdc and carry_pnl_usdc: test/report/report.test.ts "--by …" and "a period with no closed
// hedge"; history --json as the server sent it: hostile-terminal.test.ts "--json parses back"); the
// journal's Ref of an add or a reduce is the deal of the side it changed; and the effectiveness
// table names its test (the dollar offset) and whose line its verdict is (ASC 815's 80–125%).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { exits, ok, okJson } from '../support/cli-runs.js';
import { ROOT } from '../support/hedge-cli.js';
import { drawScreen } from '../support/servers/pseudo-terminal.js';
import { MARKET, useSimulators } from '../support/simulator.js';

const simulator = useSimulators({ stepped: true });

const cents = (value: number) => Math.round(value * 100);

it("the hedge id is hedge_id: open's card on a screen names the hedge's id once, as Hedge ID, at 80 columns and at 60", async () => {
  const sim = await simulator();
  for (const [side, columns] of [
    ['buy', 80],
    ['sell', 60],
  ] as const) {
    const card = ok(await sim.hedge(`open ${MARKET} ${side} 1000 --tenor 3`, { screen: { columns, rows: 60 } })).stdout;
    const id = sim.active(side)[0].id;
    expect(card).toContain('Hedge filled');
    expect(card.match(/Hedge ID\s+│ (\S+)/)?.[1]).toBe(id);
    expect(card.split('\n').filter((line) => line.startsWith('│') && line.includes(id))).toHaveLength(1);
    expect(card).not.toMatch(/│ ID\s+│/);
  }
});

// The cost to date (--report), history's carry and fees turned round: test/plan/exposures.test.ts ("cost to date reconciles to the cent with history …").
it("the plan's and the exposures' carry and fees are not under the server's names: plan: fee_pnl_usdc, carry_pnl_usdc and the total carry_pnl_usdc are the quote's turned to your side; exposures: the projected cost is carry_pnl_usdc and fees_pnl_usdc, turned to your side; the effectiveness table names the dollar-offset test and ASC 815 as the source of its 80–125% verdict", async () => {
  const SERVER_NAMES = 'carry_usdc fees_usdc fee_usdc carry_total_usdc'.split(' ');
  const withoutServerNames = (row: object) => SERVER_NAMES.forEach((name) => expect(row).not.toHaveProperty(name));
  const sim = await simulator();
  const target = join(sim.configDir, 'target.csv');
  writeFileSync(target, `market,side,notional_usd,tenor_days\n${MARKET},buy,6000,3\n`);
  const plan = JSON.parse(exits(await sim.hedge(`plan ${target} --json`), 9).stdout);
  const { quote } = plan.steps[0];
  expect(quote.carry.total_usdc).not.toBe(0);
  withoutServerNames(plan.totals);
  expect(cents(plan.totals.carry_pnl_usdc) + cents(quote.carry.total_usdc)).toBe(0);
  const csv = exits(await sim.hedge(`plan ${target} --format csv`), 9);
  const [header, row] = csv.stdout.split('\n').map((line) => line.split(','));
  expect(header.join()).toBe(
    'step,market,side,current_usd,target_usd,action,delta_usd,tenor_days,margin_usdc,fee_pnl_usdc,carry_pnl_usdc,line',
  );
  const field = (name: string) => Number(row[header.indexOf(name)]);
  expect(quote.upfront.platform_fee_usdc).toBeGreaterThan(0);
  expect(cents(field('fee_pnl_usdc'))).toBe(-cents(quote.upfront.platform_fee_usdc));
  expect(csv.stderr).toContain(`carry_pnl_usdc=${field('carry_pnl_usdc')}`);
  expect(sim.writes().map((entry) => entry.path)).toEqual(['/quotes', '/quotes']);

  // Exposures.
  const due = new Date(sim.sandbox.clock.now() + 30 * 86_400_000).toISOString().slice(0, 10);
  const file = join(sim.configDir, 'exposures.csv');
  writeFileSync(file, `id,market,type,amount,currency,due\nINV-1,${MARKET},receivable,45m,NGN,${due}\n`);
  const projected = okJson(await sim.hedge(['exposures', file, '--json'])).cost;
  expect(projected).toHaveLength(1);
  withoutServerNames(projected[0]);
  // Fees are paid: negative on your side; carry the opposite of the server's rate (positive: paid).
  const market = (await sim.api('GET', '/markets')).body.data.find((entry: any) => entry.market === MARKET);
  expect(Number(market.net_rate_daily_pct.buy)).not.toBe(0);
  expect(Math.sign(projected[0].carry_pnl_usdc)).toBe(-Math.sign(Number(market.net_rate_daily_pct.buy)));
  expect(projected[0].fees_pnl_usdc).toBeLessThan(0);
  expect(ok(await sim.hedge(['exposures', file, '--show', 'cost', '--format', 'csv'])).stdout.split('\n')[0]).toBe(
    'due,market,exposures,carry_pnl_usdc,fees_pnl_usdc,rolls,cost_usdc',
  );

  // The effectiveness table names the dollar-offset test and ASC 815 as the source of its 80–125% verdict.
  const writes = sim.writes().length;
  const args = ['exposures', join(ROOT, 'docs', 'examples', 'exposures.csv'), '--report', '--show', 'effectiveness'];
  const { screen, code } = await drawScreen({ configDir: sim.configDir, args, env: sim.env, cols: 200 });
  expect(code, screen).toBe(0);
  expect(screen).toContain('Dollar offset %');
  expect(screen).toContain('Within 80–125% (ASC 815)');
  expect(screen).toContain('under IFRS 9 the ratio is a diagnostic');
  // Scripts keep their names.
  expect(ok(await sim.hedge([...args, '--format', 'csv'])).stdout.split('\n')[0]).toContain('offset_pct,effective');
  expect(sim.writes()).toHaveLength(writes);
});

// Not waited for (--no-wait): test/trade/trading.test.ts ("--no-wait returns at submitted …").
it("the hedge id is hedge_id: open --json and its TSV name the opened hedge hedge_id; the journal's reference of an add and a reduce: is the deal of the side it changed, in the table, TSV and --ref", async () => {
  const sim = await simulator();
  const filled = okJson(await sim.hedge(`open ${MARKET} buy 1000 --tenor 7 --ref DEAL-9 --json`));
  const [hedge] = sim.hedges();
  expect(hedge.status).toBe('filled');
  expect(filled).toMatchObject({ hedge_id: hedge.id, status: 'filled' });
  expect(Object.keys(filled)[0]).toBe('hedge_id');
  ok(await sim.hedge(`add ${MARKET} buy 500`));
  ok(await sim.hedge(`reduce ${MARKET} buy 200`));
  // The server's hedge carries the reference, and took the add and the reduce.
  expect(sim.active('buy').map((hedge) => [hedge.clientReference, hedge.notionalUsd])).toEqual([['DEAL-9', 1300]]);
  expect(sim.trades().map((entry) => entry.path)).toEqual(['/hedges', '/hedges/add', '/hedges/reduce']);
  const rows = ok(await sim.hedge('journal --fields command,client_reference'))
    .stdout.trimEnd()
    .split('\n');
  expect(rows).toEqual(['command\tclient_reference', 'reduce\tDEAL-9', 'add\tDEAL-9', 'open\tDEAL-9']);
  const byRef = ok(await sim.hedge('journal --ref DEAL-9 --fields command'))
    .stdout.trimEnd()
    .split('\n');
  expect(byRef).toEqual('command reduce add open'.split(' '));
  const { screen } = await drawScreen({ configDir: sim.configDir, args: ['journal'], env: sim.env, cols: 80 });
  expect(screen).toMatch(/ add +buy +DEAL-9 /);
  expect(screen).toMatch(/ reduce +buy +DEAL-9 /);

  const tsv = ok(await sim.hedge(`open ${MARKET} sell 500 --tenor 1`)).stdout.split('\n');
  expect(tsv.slice(0, 2).map((line) => line.split('\t')[0])).toEqual(['hedge_id', sim.active('sell')[0].id]);
});
