// One field, one name and one meaning, against the simulator's own state: the hedge's id is
// `hedge_id` in what `open` prints, as in positions, close and history; the report's fees and carry
// (hedge's sign, `-` paid) have names of their own, the server's `fees_usdc` staying history's; the
// journal's Ref of an add or a reduce is the deal of the side it changed; and the effectiveness
// table names its test (the dollar offset) and whose line its verdict is (ASC 815's 80–125%).
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ok } from '../support/cli-runs.js';
import { ROOT } from '../support/hedge-cli.js';
import { drawScreen } from '../support/servers/pseudo-terminal.js';
import { MARKET, useSimulators } from '../support/simulator.js';

const simulator = useSimulators();

const cents = (value: number) => Math.round(value * 100);

describe('the hedge id is hedge_id', () => {
  it('open --json and its TSV name the opened hedge hedge_id, waited for or not', async () => {
    const sim = await simulator();
    const filled = JSON.parse(ok(await sim.hedge(`open ${MARKET} buy 1000 --tenor 3 --json`)).stdout);
    const [hedge] = sim.hedges();
    expect(hedge!.status).toBe('filled');
    expect(filled).toMatchObject({ hedge_id: hedge!.id, status: 'filled' });
    expect(Object.keys(filled)[0]).toBe('hedge_id');
    const submitted = JSON.parse(ok(await sim.hedge(`open ${MARKET} sell 1000 --tenor 3 --no-wait --json`)).stdout);
    expect(submitted.hedge_id).toBe(sim.active('sell')[0]!.id);
    const other = await simulator();
    const tsv = ok(await other.hedge(`open ${MARKET} buy 500 --tenor 1`)).stdout.split('\n');
    expect(tsv[0]!.split('\t')[0]).toBe('hedge_id');
    expect(tsv[1]!.split('\t')[0]).toBe(other.hedges()[0]!.id);
  });
});

describe("the report's fees are not the server's fees_usdc", () => {
  it("fees_pnl_usdc and carry_pnl_usdc are the server's fees and carry turned to your side; history keeps fees_usdc", async () => {
    const sim = await simulator();
    sim.seedOpen('buy', 2000);
    ok(await sim.hedge(`close ${MARKET} buy`));
    const wire: Array<Record<string, number>> = (await sim.api('GET', '/hedges/history')).body.data;
    expect(wire).toHaveLength(1);
    const report = JSON.parse(ok(await sim.hedge('report --json')).stdout);
    expect(report.totals).not.toHaveProperty('fees_usdc');
    expect(report.totals).not.toHaveProperty('carry_usdc');
    // The same amounts, of opposite sign: paid is positive on the wire, negative in the report.
    expect(wire[0]!.fees_usdc).toBeGreaterThan(0);
    expect(cents(report.totals.fees_pnl_usdc) + cents(wire[0]!.fees_usdc!)).toBe(0);
    expect(cents(report.totals.carry_pnl_usdc) + cents(wire[0]!.carry_usdc!)).toBe(0);
    const history = JSON.parse(ok(await sim.hedge('history --json')).stdout);
    expect(history[0].fees_usdc).toBe(wire[0]!.fees_usdc);
    const csv = ok(await sim.hedge('report --format csv')).stdout.split('\n')[0];
    expect(csv).toBe('group,count,notional_usd,gross_pnl_usd,carry_pnl_usdc,fees_pnl_usdc,net_pnl_usd');
  });
});

describe("the journal's reference of an add and a reduce", () => {
  it('is the deal of the side it changed, in the table, TSV and --ref', async () => {
    const sim = await simulator();
    ok(await sim.hedge(`open ${MARKET} buy 1000 --tenor 7 --ref DEAL-9`));
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
    expect(byRef).toEqual(['command', 'reduce', 'add', 'open']);
    const { screen } = await drawScreen({ configDir: sim.configDir, args: ['journal'], env: sim.env, cols: 80 });
    expect(screen).toMatch(/ add +buy +DEAL-9 /);
    expect(screen).toMatch(/ reduce +buy +DEAL-9 /);
  });
});

describe('effectiveness', () => {
  it('names the dollar-offset test and ASC 815 as the source of its 80–125% verdict', async () => {
    const sim = await simulator();
    const file = join(ROOT, 'docs', 'examples', 'exposures.csv');
    const args = ['exposures', file, '--report', '--show', 'effectiveness'];
    const { screen, code } = await drawScreen({ configDir: sim.configDir, args, env: sim.env, cols: 200 });
    expect(code, screen).toBe(0);
    expect(screen).toContain('Dollar offset %');
    expect(screen).toContain('Within 80–125% (ASC 815)');
    expect(screen).toContain('under IFRS 9 the ratio is a diagnostic');
    // Scripts keep their names.
    const csv = ok(await sim.hedge([...args, '--format', 'csv'])).stdout.split('\n')[0];
    expect(csv).toContain('offset_pct,effective');
    expect(sim.writes()).toHaveLength(0);
  });
});
