// A real browser for the HTML report's layout: Chromium from the system (Debian's
// `chromium` package), run headless on a copy of the page with a measuring script added at its
// end, its DOM dumped (--dump-dom) and the measurements read back. No library: the command line
// is all that is needed. Print is laid out by applying the page's print rules on screen at the
// printable width of the page size its @page rule asks for.
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../hedge-cli.js';

/** The browser to drive, or undefined when the machine has none (the tests are then skipped, saying so). */
export const CHROMIUM = ['chromium', 'chromium-browser', 'google-chrome'].find(
  (name) => spawnSync(name, ['--version'], { stdio: 'ignore', timeout: 20_000 }).status === 0,
);

interface TableLayout {
  /** What the page's root shows across (the window less its scrollbar). */
  viewport: number;
  /** How wide the page is laid out: more than the viewport means something runs off the right edge. */
  pageWidth: number;
  /** "Header: text" of every cell of the closed hedges whose text takes more than one line. */
  broken: string[];
  /** Headers of the columns whose right edge is past the viewport. */
  cut: string[];
}

const MEASURE = `<script>
(() => {
  const table = document.querySelector('table.hedges');
  const root = document.documentElement;
  const heads = [...table.tHead.rows[0].cells].map((cell) => cell.textContent);
  const out = { viewport: root.clientWidth, pageWidth: root.scrollWidth, broken: [], cut: [] };
  const cells = [...table.tBodies[0].rows].flatMap((row) => [...row.cells].map((cell, index) => [heads[index], cell]));
  for (const [head, cell] of cells) {
    const range = document.createRange();
    range.selectNodeContents(cell);
    const lines = new Set([...range.getClientRects()].filter((rect) => rect.width > 0).map((rect) => Math.round(rect.top))).size;
    // A cell laid out on purpose in parts (the date over the time, with a <br>) is not broken.
    if (lines > 1 + cell.querySelectorAll('br').length) out.broken.push(head + ': ' + cell.textContent);
  }
  for (const cell of table.tHead.rows[0].cells) if (cell.getBoundingClientRect().right > root.clientWidth + 0.5) out.cut.push(cell.textContent);
  const pre = document.createElement('pre');
  pre.id = 'measured';
  pre.textContent = JSON.stringify(out);
  document.body.append(pre);
})();
</script>`;

/** Headless Chromium with nothing of its own running beside the page. */
export const LAUNCH = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
];

/** A scrollbar's width in headless Chromium: a window this much wider shows `width` pixels of page. */
const SCROLLBAR = 15;

/**
 * The closed hedges' table of an HTML report as Chromium lays it out: in a window `width` pixels
 * wide, or (`print`) with the page's print rules at `width` pixels of printable page.
 */
export function measureReportTable(htmlFile: string, options: { width: number; print?: boolean }) {
  if (!CHROMIUM) throw new Error('no Chromium on this machine');
  const { path: dir, remove } = tempDir('hedge-chromium-');
  try {
    let html = readFileSync(htmlFile, 'utf8');
    if (options.print) html = html.replace('@media print {', '@media all {');
    const page = join(dir, 'page.html');
    writeFileSync(page, html.replace('</body>', `${MEASURE}</body>`));
    const window = options.print ? options.width + SCROLLBAR : options.width;
    const dom = execFileSync(
      CHROMIUM,
      [
        ...LAUNCH,
        `--user-data-dir=${join(dir, 'profile')}`,
        `--window-size=${window},900`,
        '--dump-dom',
        `file://${page}`,
      ],
      {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
        timeout: 60_000,
      },
    );
    const found = /<pre id="measured">([^<]*)<\/pre>/.exec(dom);
    if (!found) throw new Error('the measuring script left no result in the page');
    // A text node is serialized with &, < and > escaped; its quotes are left as they are.
    return JSON.parse(found[1].replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&')) as TableLayout;
  } finally {
    remove();
  }
}
