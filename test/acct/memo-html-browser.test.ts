// The designation memo's HTML page in a real browser, as the report's is: at a laptop's 1000 px and on a printed A4
// page nothing runs off the right edge, even with a long unbroken reference; the page carries no script. Skipped,
// saying why, where no Chromium is installed (Debian: apt-get install chromium).
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hedgeIn, ROOT, tempFolders } from '../support/hedge-cli.js';
import { ok } from '../support/cli-runs.js';
import { CHROMIUM, LAUNCH } from '../support/servers/chromium.js';

const folder = tempFolders('hedge-memo-');
const clock = { now: () => Date.parse('2026-03-02T12:00:00Z'), sleep: async () => {} };

const MEASURE = `<script>
(() => {
  const root = document.documentElement;
  const pre = document.createElement('pre');
  pre.id = 'measured';
  pre.textContent = JSON.stringify({ viewport: root.clientWidth, pageWidth: root.scrollWidth, rows: document.querySelectorAll('table.memo tr').length });
  document.body.append(pre);
})();
</script>`;

/** How wide the page is laid out against what the window shows, in a window `width` wide (or at that print width). */
function measure(file: string, dir: string, width: number, print = false) {
  let html = readFileSync(file, 'utf8');
  if (print) html = html.replace('@media print {', '@media all {');
  const page = join(dir, `page-${width}.html`);
  writeFileSync(page, html.replace('</body>', `${MEASURE}</body>`));
  const dom = execFileSync(
    CHROMIUM!,
    [
      ...LAUNCH,
      `--user-data-dir=${join(dir, 'profile')}`,
      `--window-size=${width + 15},900`,
      '--dump-dom',
      `file://${page}`,
    ],
    // A cold headless browser on a loaded two-core machine: a generous bound, never a wait.
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 60_000 },
  );
  return JSON.parse(/<pre id="measured">([^<]*)<\/pre>/.exec(dom)![1]) as {
    viewport: number;
    pageWidth: number;
    rows: number;
  };
}

describe.skipIf(!CHROMIUM)(
  `the designation memo in Chromium${CHROMIUM ? '' : ' (skipped: no chromium on this machine; apt-get install chromium)'}`,
  () => {
    it('at 1000 px and in A4 print: nothing cut; no script in the page', async () => {
      const dir = folder();
      const relationship = JSON.parse(readFileSync(join(ROOT, 'docs', 'examples', 'relationship.json'), 'utf8'));
      relationship.sources_of_ineffectiveness = `a reference with no break: ${'ACMETREASURYROLL'.repeat(12)}0007`;
      const input = join(dir, 'relationship.json');
      writeFileSync(input, JSON.stringify(relationship));
      const file = join(dir, 'memo.html');
      ok(
        await hedgeIn(dir, ['acct', 'designate', input, '--recorded-late', 'from a spreadsheet', '--html', file], {
          clock,
        }),
      );
      const html = readFileSync(file, 'utf8');
      expect(html).not.toMatch(/<script/i);
      expect(html).toContain('@page { size: A4 portrait;');
      expect(html).toMatch(/<p class="late">RECORDED LATE\S* from a spreadsheet/);
      // A4 portrait, 210 mm less the 14 mm margins either side, at 96 px to the inch.
      const printable = Math.floor(((210 - 2 * 14) / 25.4) * 96);
      for (const [width, print] of [
        [1000, false],
        [printable, true],
      ] as const) {
        const layout = measure(file, dir, width, print);
        expect(layout.rows).toBeGreaterThan(10);
        expect(layout.pageWidth, `${width} px${print ? ' (print)' : ''}`).toBeLessThanOrEqual(layout.viewport);
      }
    });
  },
);
