// The small things a newcomer tripped on , each against the simulator: the carry
// of a market read the same way asked by its dotted name, one "Dry run" line, one prefix on every error.
import { useSimulators } from '../support/simulator.js';
import { exits, ok } from '../support/cli-runs.js';

const start = useSimulators();

it('markets --fields net_rate_daily_pct.SIDE --format table: shows the carry on the account side with its word, as the default table does; TSV keeps the server rate; a dry run says "Dry run" once, and sends nothing; a refusal has the one prefix `hedge:` too, as every error has', async () => {
  const simulator = await start();
  const [market] = (await simulator.api('GET', '/markets')).body.data;
  const table = await simulator.hedge('markets --format table', { env: { COLUMNS: '160' } });
  const dotted = ok(
    await simulator.hedge(
      'markets --fields market,net_rate_daily_pct.sell,net_rate_daily_pct.buy --format table'.split(' '),
      { env: { COLUMNS: '160' } },
    ),
  );
  const word = (rate: number) => `${rate > 0 ? '-' : '+'}${Math.abs(rate).toFixed(4)}% ${rate > 0 ? 'pay' : 'earn'}`;
  for (const shown of [table.stdout, dotted.stdout]) {
    expect(shown).toContain(word(market.net_rate_daily_pct.sell));
    expect(shown).toContain(word(market.net_rate_daily_pct.buy));
  }
  const tsv = await simulator.hedge('markets --fields market,net_rate_daily_pct.sell');
  expect(tsv.stdout.split('\n')[1]).toBe(`${market.market}\t${market.net_rate_daily_pct.sell}`);

  // One line per thing said: a dry run says "Dry run" once, and sends nothing; a refusal has the one prefix `hedge:`
  // too, as every error has (doctor on gamma's decimal strings prints no float noise: doctor.test.ts, the human
  // report; bad usage and an unknown command, one line each with the prefix: test/reliability/bad-input.test.ts).
  const result = ok(await simulator.hedge('open USDTNGN buy 1000 --tenor 1 --dry-run'));
  expect(result.stderr.match(/Dry run/g)).toHaveLength(1);
  expect(result.stderr).toContain(
    'Dry run: this request was NOT sent. Run the same command without --dry-run to send it',
  );
  expect(simulator.writes()).toEqual([]);

  const refused = exits(await simulator.hedge('hedges hdg_missing'), 3);
  expect(simulator.requests('GET', '/hedges/hdg_missing').map((entry) => entry.status)).toEqual([404]);
  expect(refused.stderr).toMatch(/^hedge: \S/m);
  expect(refused.stderr).not.toMatch(/^error:/m);
});
