// hedge plan / apply against a server that ignores the page size and serves one page of 50 (alpha): a target side
// whose filled hedges lie past that page is never planned from the cut read (no add of what the side already holds):
// cannot tell (exit 12), saying nothing was sent and what to set. Asserted on the simulator's request log.
import { expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MARKET, useSimulators } from '../support/simulator.js';

const startSimulator = useSimulators({ stepped: true });

it('51 filled buy hedges, a target of their 51,000: plan and apply cannot tell (exit 12), "Nothing was sent" naming HEDGE_WIRE_PAGE_SIZE_PARAM, no write sent', async () => {
  const simulator = await startSimulator({ dialect: 'alpha' });
  for (let count = 0; count < 51; count++) simulator.seedOpen('buy', 1_000);
  const file = join(simulator.configDir, 'target.csv');
  writeFileSync(file, `market,side,notional_usd,tenor_days\n${MARKET},buy,51000,7\n`);
  for (const command of [
    ['plan', file],
    ['apply', file, '--yes'],
  ]) {
    const run = await simulator.hedge(command);
    expect(run.code, run.stderr).toBe(12);
    expect(run.stderr).toMatch(
      /The buy side of USDTNGN cannot be told: the hedge records may be cut at 50 filled hedges.*Nothing was sent/,
    );
    expect(run.stderr).toMatch(/HEDGE_WIRE_PAGE_SIZE_PARAM/);
  }
  expect(simulator.requests('POST').filter((entry) => entry.path !== '/quotes')).toEqual([]);
});
