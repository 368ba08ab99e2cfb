// The HTML report in a real browser: at a laptop's 1000 px and on a printed A4 page,
// the closed hedges' table breaks no reference, market or number inside and cuts no column (the
// hedge id is shortened, as the terminal does, and kept whole in its title). The hedges are
// opened and closed on the simulator; the page is the one `hedge report --html` wrote. Skipped,
// saying why, where no Chromium is installed (Debian: apt-get install chromium).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../support/hedge-cli.js';
import { CHROMIUM, measureReportTable } from '../support/servers/chromium.js';
import { MARKET, useSimulators, type Simulator } from '../support/simulator.js';
import { ok } from '../support/cli-runs.js';

const start = useSimulators();
const REFERENCES = ['DEAL-1', 'DEAL-2026-11-0042', 'ACME-TREASURY-ROLL-0007'];

/** Opens and closes a hedge per reference through the API (as another client would), each filled and closed on the server. */
async function closedHedges(simulator: Simulator) {
  const ids: string[] = [];
  for (const [index, reference] of REFERENCES.entries()) {
    const side = index % 2 === 0 ? 'buy' : 'sell';
    const opened = await simulator.api('POST', '/hedges', {
      body: { market: MARKET, side, notional_usd: 25_000, tenor_days: 7, client_reference: reference },
    });
    expect(opened.status).toBe(200);
    simulator.advance(1_000);
    expect((await simulator.api('POST', '/hedges/close', { body: { market: MARKET, side } })).status).toBe(200);
    simulator.advance(60_000);
    ids.push(opened.body.data.id);
  }
  expect(
    simulator
      .hedges()
      .filter((hedge) => ids.includes(hedge.id))
      .map((hedge) => hedge.status),
  ).toEqual(['closed', 'closed', 'closed']);
  return ids;
}

describe.skipIf(!CHROMIUM)(
  `the HTML report in Chromium${CHROMIUM ? '' : ' (skipped: no chromium on this machine; apt-get install chromium)'}`,
  () => {
    it('at 1000 px and in A4 print: no reference, market or number broken inside, no column cut; ids whole in their titles', async () => {
      const simulator = await start();
      const ids = await closedHedges(simulator);
      const dir = tempDir();
      try {
        const file = join(dir.path, 'report.html');
        ok(await simulator.hedge(`report --by hedge --html ${file}`));
        const html = readFileSync(file, 'utf8');
        for (const id of ids) expect(html).toContain(`title="${id}"`);
        // A long reference: cut on screen (whole in its title), whole on paper where no title is read.
        expect(html).toContain(
          '<span class="screen" title="ACME-TREASURY-ROLL-0007">ACME-TREASURY-R…</span><span class="paper">ACME-TREASURY-ROLL-0007</span>',
        );
        expect(html).toContain('@page { size: A4 landscape;');
        // A4 landscape, 297 mm less the 12 mm margins either side, at 96 px to the inch.
        const printable = Math.floor(((297 - 2 * 12) / 25.4) * 96);
        for (const [where, layout] of [
          ['1000 px', measureReportTable(file, { width: 1000 })],
          ['A4 print', measureReportTable(file, { width: printable, print: true })],
        ] as const) {
          expect(layout.broken, where).toEqual([]);
          expect(layout.cut, where).toEqual([]);
          expect(layout.pageWidth, where).toBeLessThanOrEqual(layout.viewport);
        }
      } finally {
        dir.remove();
      }
    });
  },
);
