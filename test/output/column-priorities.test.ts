// A reference is never cut where the terminal has room for it whole — in positions and in history.
// The hedges are opened through the CLI against the simulator; what is checked is the table drawn.
import { describe, expect, it } from 'vitest';
import { MARKET, useSimulators, type Simulator } from '../support/simulator.js';
import { printedTable } from '../support/output/table-text.js';
import { ok } from '../support/cli-runs.js';

const start = useSimulators();
const LONG_REF = 'DEAL-2026-11-ACME-TREASURY-0042';

/** The table at that width: its lines from its first row on (a header may take two lines). */
async function table(simulator: Simulator, args: string[], columns: number): Promise<string[]> {
  const result = ok(await simulator.hedge([...args, '--format', 'table'], { env: { COLUMNS: String(columns) } }));
  const lines = result.stdout.trimEnd().split('\n');
  for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(columns);
  return lines.slice(printedTable(result.stdout)!.ruleAt + 1);
}

async function openWith(simulator: Simulator, side: 'buy' | 'sell', reference: string): Promise<void> {
  // A test may open the same hedge again after closing it: --again says it is meant.
  ok(await simulator.hedge(`open ${MARKET} ${side} 10000 --tenor 3 --ref ${reference} --json --again`));
  expect(simulator.active(side).map((hedge) => hedge.clientReference)).toEqual([reference]);
  // An hour on: the mark has moved off the entry, so both rate columns are drawn.
  simulator.advance(3_600_000);
}

describe('a reference is never cut where the terminal has room', () => {
  it('positions and history at 160 columns show a 31-character reference whole; at 30 it is cut with …', async () => {
    const simulator = await start();
    await openWith(simulator, 'sell', LONG_REF);
    const positions = await table(simulator, ['positions'], 160);
    expect(positions[0]).toContain(LONG_REF);
    ok(await simulator.hedge(`close ${MARKET} sell --json`));
    expect(simulator.historyCount()).toBe(1);
    const history = await table(simulator, ['history'], 160);
    expect(history[0]).toContain(LONG_REF);
    // Too narrow for it whole: cut at the end, never dropped before the columns after it.
    await openWith(simulator, 'sell', LONG_REF);
    const narrow = await table(simulator, ['positions'], 30);
    expect(narrow[0]).toMatch(/DEAL-20\S*…/);
  });
});
