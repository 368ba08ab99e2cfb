// What a desk decides on, kept at 80 and at 60 columns on the screen (drawn in-process as on a terminal), against
// the simulator: `markets` keeps both sides' carry with its word (the capacities wait), `positions --watch` keeps the
// time left (to the hour where the seconds have no room), and what a table leaves out is said on one line that fits.
import { displayWidth } from '../../src/platform/terminal/width.js';
import { drawScreen } from '../support/servers/pseudo-terminal.js';
import { MARKET, useSimulators, type Simulator } from '../support/simulator.js';
import { printedTable } from '../support/output/table-text.js';

const start = useSimulators({ stepped: true });

/** The screen of `args` at `columns` as the terminal shows it once the command ended: its lines, none wider than the
 * screen (none wrapped onto the next). */
async function screenAt(simulator: Simulator, args: string, columns: number) {
  const { code, drawn } = await drawScreen({
    configDir: simulator.configDir,
    env: simulator.env,
    args: args.split(' '),
    cols: columns,
    rows: 60,
  });
  const lines = drawn.map((line) => line.text);
  expect(code, lines.join('\n')).toBe(0);
  expect(drawn.filter((line) => line.wrapped || displayWidth(line.text) > columns).map((line) => line.text)).toEqual(
    [],
  );
  return lines;
}

/** The one line that says what the table left out (none: undefined), and that it is one line. */
function hiddenNote(lines: string[], where: string) {
  const notes = lines.filter((line) => line.startsWith('Hidden'));
  if (!notes.length) return;
  expect(notes, where).toHaveLength(1);
  // Whole on its line: what is hidden, then where to see it.
  expect(notes[0], where).toMatch(/^Hidden(?: at \d+ columns)?: \S.* — see [^—]+\.$/);
  return notes[0];
}

it("markets at 80 and 60 columns: both sides' carry with its word (pay, earn), never cut; at 60 the capacities wait, named on one line", async () => {
  const simulator = await start();
  for (const columns of [80, 60]) {
    const lines = await screenAt(simulator, 'markets', columns);
    const text = lines.join('\n');
    const headers = printedTable(text)!.headers;
    expect(headers, text).toEqual(expect.arrayContaining(['Carry/day buy', 'Carry/day sell']));
    const row = lines.find((line) => line.startsWith(MARKET))!;
    // Each side's signed rate with its word: what the account pays or earns.
    expect(row, text).toMatch(/ (-0\.\d{4}% pay|\+0\.\d{4}% earn) +(-0\.\d{4}% pay|\+0\.\d{4}% earn)$/);
    expect(row).not.toContain('…');
    const note = hiddenNote(lines, `markets at ${columns}`);
    if (columns === 80) expect(note, text).toBeUndefined();
    else expect(note).toBe('Hidden: capacity_buy_usd, +1 more — see --fields or --json.');
  }
});

it('positions --watch at 80 and 60 columns: time left kept, to the hour at 60 (6d 23h), as the positions list shows it; what is left out said on one line', async () => {
  const simulator = await start();
  simulator.seedOpen('buy', 10_000);
  simulator.seedOpen('sell', 7_000);
  for (const columns of [80, 60]) {
    const list = await screenAt(simulator, 'positions', columns);
    const watch = await screenAt(simulator, 'positions --watch 1 --count 1', columns);
    const leftOf = (lines: string[]) => {
      const text = lines.join('\n');
      const { headers, spans } = printedTable(text)!;
      expect(headers, text).toContain('Left');
      const [from, to] = spans[headers.indexOf('Left')];
      return lines.filter((line) => /^(buy|sell) /.test(line)).map((line) => line.slice(from, to).trim());
    };
    const left = leftOf(watch);
    expect(left, watch.join('\n')).toHaveLength(2);
    if (columns === 60) expect(left).toEqual(leftOf(list));
    for (const shown of left) expect(shown).toMatch(columns === 60 ? /^\d+d \d+h$/ : /^\d+d (\d+h|\d\d:\d\d:\d\d)$/);
    for (const lines of [list, watch]) hiddenNote(lines, `positions at ${columns}`);
  }
});

it('hedges, history and positions at 80 and 60 columns: what the table leaves out is said on one line that fits, the most important named first, and where to see them', async () => {
  const simulator = await start();
  simulator.seedOpen('buy', 10_000);
  simulator.seedOpen('sell', 7_000);
  simulator.sandbox.seedHedges({ apiKey: simulator.apiKey, count: 3 });
  for (const columns of [80, 60])
    for (const list of ['hedges', 'history', 'positions']) {
      const note = hiddenNote(await screenAt(simulator, list, columns), `${list} at ${columns}`);
      expect(note, `${list} at ${columns}`).toMatch(/ — see --fields or --json\.$/);
    }
  // The positions list's most important hidden column at 60 comes first: net margin.
  expect(hiddenNote(await screenAt(simulator, 'positions', 60), 'positions')).toMatch(
    /^Hidden: net_margin_usd, \+\d+ more/,
  );
});
