// Text fitted to the terminal: its width (ui/terminal.ts), and text measured, cut and wrapped as it
// shows on screen. Colours are checked on the screen a terminal draws (@xterm/headless), not on the
// escape bytes that draw it.
import xterm from '@xterm/headless';
import { PassThrough } from 'node:stream';
import { redrawsInPlace, terminalColumns } from '../../src/platform/terminal/terminal.js';
import { displayWidth, shortenMiddle, truncateEnd, wrapWords } from '../../src/platform/terminal/width.js';

const RED = '\u001b[31m';
const FG_OFF = '\u001b[39m';
const BOLD = '\u001b[1m';
const BOLD_OFF = '\u001b[22m';
const RESET = '\u001b[0m';

const HASH = '0x5f12a9c0d4e8b7f6a1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2157b';

/** The visible text: escape sequences removed. */
const plain = (text: string) => text.replace(/\u001b\[[0-9;:]*m|\u001b\][^\u0007]*\u0007/g, '');

/** What a terminal shows for the text: each line's characters, each run of one colour and weight marked. */
async function painted(text: string) {
  const terminal = new xterm.Terminal({ cols: 200, rows: 30, allowProposedApi: true });
  await new Promise<void>((done) => terminal.write(`${text.replace(/\n/g, '\r\n')}${RESET}`, done));
  const buffer = terminal.buffer.active;
  const lines = [];
  for (let y = 0; y <= buffer.cursorY; y++) {
    let line = '';
    let style = '';
    for (let x = 0; x < 200; x++) {
      const cell = buffer.getLine(y)!.getCell(x)!;
      if (cell.getWidth() === 0) continue;
      const now = `{${cell.getFgColor()},${cell.getBgColor()},${cell.isBold()},${cell.isDim()}}`;
      if (now !== style) line += now;
      style = now;
      line += cell.getChars() || ' ';
    }
    lines.push(line.replace(/(\{-1,-1,0,0\} *)+$/, ''));
  }
  terminal.dispose();
  return lines;
}

/** A stream as a terminal of `columns` columns would be. */
const stream = (columns?: number) => Object.assign(new PassThrough(), { columns });

it.each([
  // The terminal's own width when the stream is one.
  [132, true, { COLUMNS: '100' }, 132],
  // COLUMNS when the stream is not a terminal, or a terminal without a width.
  [undefined, false, { COLUMNS: '100' }, 100],
  [undefined, true, { COLUMNS: ' 64 ' }, 64],
  [0, true, { COLUMNS: '72' }, 72],
  [132, false, { COLUMNS: '90' }, 90],
  // 80 when COLUMNS is absent or not a positive integer.
  ...[undefined, '', '0', '-5', '80.5', 'wide', '1e2'].map((COLUMNS) => [undefined, false, { COLUMNS }, 80] as const),
  // Clamped to 20..500.
  [8, true, {}, 20],
  [undefined, false, { COLUMNS: '9999' }, 500],
  [500, true, {}, 500],
  [20, true, {}, 20],
] as const)(
  'terminalColumns: a stream of %s columns (a terminal: %s) and %o: %i',
  (columns, isTerminal, env, expected) => {
    expect(terminalColumns(stream(columns), isTerminal, env)).toBe(expected);
  },
);

it('redrawsInPlace: redraws a terminal that reports its width, and one hedge was told is a terminal (HEDGE_FORCE_TTY on a pipe); never a real terminal of 0, unknown or nonsense columns, nor what is not a terminal', () => {
  /** A real terminal (the stream says isTTY) reporting `columns`. */
  const tty = (columns?: number) => Object.assign(stream(columns), { isTTY: true });
  expect([redrawsInPlace(tty(80), true), redrawsInPlace(stream(), true), redrawsInPlace(stream(100), true)]).toEqual([
    true,
    true,
    true,
  ]);
  for (const columns of [0, undefined, Number.NaN, -3, 80.5, Infinity])
    expect(redrawsInPlace(tty(columns), true)).toBe(false);
  expect(redrawsInPlace(tty(80), false)).toBe(false);
});

it('displayWidth ignores colour codes and counts wide characters as two; ASCII, our colours and our narrow symbols in tables are one column each', () => {
  for (const [value, expected] of [
    ['USDTNGN', 7],
    [`${RED}buy${FG_OFF}`, 3],
    ['₦1,530.33', 9],
    ['東京', 4],
    ['😀', 2],
    ['👩‍💻', 2],
    ['', 0],
    ['1,530.33', 8],
    [`${RED}-8.35${FG_OFF}`, 5],
    ['0x5f12…157b — ─│·', 17],
    ['取引', 4],
    [`${BOLD}取引${BOLD_OFF}`, 4],
  ] as const)
    expect(displayWidth(value), String(value)).toBe(expected);
});

it.each([
  // Text that fits is returned as it is.
  ['truncateEnd', 'filled', 6, 'filled'],
  ['truncateEnd', `${RED}filled${FG_OFF}`, 6, `${RED}filled${FG_OFF}`],
  ['shortenMiddle', 'hdg_42', 6, 'hdg_42'],
  // Cut to the width with an ellipsis, tiny widths included.
  ['truncateEnd', 'submitting', 6, 'submi…'],
  ['truncateEnd', 'submitting', 1, '…'],
  ['truncateEnd', 'submitting', 0, ''],
  ['shortenMiddle', HASH, 1, '…'],
  ['shortenMiddle', HASH, 2, '0…'],
  ['shortenMiddle', HASH, 0, ''],
  // The start and the end of a hash kept.
  ['shortenMiddle', HASH, 11, '0x5f12…157b'],
  ['shortenMiddle', HASH, 20, '0x5f12a9c0d4…1e2157b'],
  // A wide character never split over the limit.
  ['truncateEnd', '東京市場', 6, '東京…'],
  ['truncateEnd', '東京市場', 5, '東京…'],
  ['truncateEnd', '東京市場', 4, '東…'],
  ['shortenMiddle', '東京市場東京市場', 9, '東京…市場'],
  // Colour codes kept, so the colour is still closed.
  ['truncateEnd', `${RED}submitting${FG_OFF} now`, 6, `${RED}submi…${FG_OFF}`],
  ['truncateEnd', `ab${BOLD}cdef${BOLD_OFF}gh`, 4, `ab${BOLD}c…${BOLD_OFF}`],
] as const)('truncateEnd and shortenMiddle: %s(%j, %i) is %j', (cut, text, width, expected) => {
  expect({ truncateEnd, shortenMiddle }[cut](text, width)).toBe(expected);
  expect(displayWidth(expected)).toBeLessThanOrEqual(width);
});

it('truncateEnd and shortenMiddle: keeps the colours around the cut, the … in them', async () => {
  expect([
    await painted(shortenMiddle(`${RED}${HASH}${FG_OFF}`, 11)),
    await painted(shortenMiddle(`${HASH.slice(0, 6)}${RED}${HASH.slice(6)}${FG_OFF}`, 11)),
  ]).toEqual([await painted(`${RED}0x5f12…157b${FG_OFF}`), await painted(`0x5f12${RED}…157b${FG_OFF}`)]);
});

const PROSE =
  'Opens a hedge on MARKET for NOTIONAL USD on SIDE, waits for the fill and shows the struck rate, ' +
  'the margin reserved and the maturity. With no arguments on a terminal it starts the wizard, which ' +
  'asks for each value in turn and shows a quote card before anything is sent. ' +
  `Order ${HASH} was submitted.`;

describe('wrapWords', () => {
  it('never splits a suggested command in backticks across two lines while it fits a line', () => {
    expect(
      wrapWords(
        'One hedge in full, with every field and its transaction hashes whole, is: `hedge --profile desk hedges <ID>`.',
        80,
      ),
    ).toBe(
      'One hedge in full, with every field and its transaction hashes whole, is:\n`hedge --profile desk hedges <ID>`.',
    );
    // Wider than a whole line: broken at its spaces like any text, never between letters.
    const long = wrapWords(
      'Run `hedge --profile a-very-long-profile-name history --since 2026-01-01 --until 2026-02-01 --all` now.',
      40,
    ).split('\n');
    expect([long.every((line) => displayWidth(line) <= 40), long.join(' ')]).toEqual([
      true,
      'Run `hedge --profile a-very-long-profile-name history --since 2026-01-01 --until 2026-02-01 --all` now.',
    ]);
  });

  it.each([
    [80, 6],
    [40, 11],
  ])(
    'at %i columns keeps every line within the width and every word whole; breaks coloured text where it breaks the same text uncoloured',
    (width, lineCount) => {
      const lines = wrapWords(PROSE, width).split('\n');
      expect(lines).toHaveLength(lineCount);
      for (const line of lines) {
        expect(displayWidth(line)).toBeLessThanOrEqual(width);
        expect(line).not.toMatch(/^ | $/);
      }
      // Joining the lines gives the text back: every break was at a space, except inside the one
      // word wider than 40 (the 66-character hash), which is cut at exactly the width.
      const expected =
        HASH.length <= width ? PROSE : PROSE.replace(HASH, `${HASH.slice(0, width)} ${HASH.slice(width)}`);
      expect(lines.join(' ')).toBe(expected);
      // The lines are full: the next word would not have fitted on the line before it.
      lines.slice(1).forEach((line, index) => {
        expect(displayWidth(lines[index]) + 1 + displayWidth(line.split(' ')[0])).toBeGreaterThan(width);
      });

      const coloured = PROSE.replace('the margin reserved and the maturity', `${RED}$&${FG_OFF}`).replace(
        HASH,
        `${BOLD}$&${BOLD_OFF}`,
      );
      const colouredLines = wrapWords(coloured, width).split('\n');
      expect(colouredLines.map(plain)).toEqual(lines);
      for (const line of colouredLines) expect(displayWidth(line)).toBeLessThanOrEqual(width);
    },
  );

  it.each([
    // At the last space that fits.
    ['aaa bbb ccc ddd', 7, {}, 'aaa bbb\nccc ddd'],
    ['aaa bbb ccc ddd', 8, {}, 'aaa bbb\nccc ddd'],
    ['aaa bbb ccc ddd', 11, {}, 'aaa bbb ccc\nddd'],
    // Only a word longer than the width is hard-broken, starting on its own line.
    ['id 0123456789abcdef end', 8, {}, 'id\n01234567\n89abcdef\nend'],
    // Existing newlines and blank lines kept, and the leading spaces of a line.
    ['first line\n\n  second  part here', 10, {}, 'first line\n\n  second\npart here'],
    // The lines after the first indented by the hanging indent; the first gets its whole width.
    [
      '--tenor D  one two three four',
      20,
      { hangingIndent: 11 },
      '--tenor D  one two\n           three\n           four',
    ],
    ['alpha\nbeta\n\ngamma', 20, { hangingIndent: 3 }, 'alpha\n   beta\n\n   gamma'],
    ['aaa bbb ccc ddd eee', 11, { hangingIndent: 4 }, 'aaa bbb ccc\n    ddd eee'],
    // Wide characters counted as two.
    ['東京 市場 東京 市場', 9, {}, '東京 市場\n東京 市場'],
    ['', 40, {}, ''],
  ] as const)('wraps %j at %i columns (%o)', (text, width, options, expected) => {
    const out = wrapWords(text, width, options);
    expect(out).toBe(expected);
    for (const line of out.split('\n')) expect(displayWidth(line)).toBeLessThanOrEqual(width);
  });

  it('ignores colour codes when measuring, and carries a colour over a break; reopens the colour after the indent, not before it', async () => {
    const out = wrapWords(`status ${RED}failed on chain${FG_OFF} retry`, 13);
    expect(plain(out)).toBe('status failed\non chain\nretry');
    for (const line of out.split('\n')) expect(displayWidth(line)).toBeLessThanOrEqual(13);
    // Each line stands alone: its colour is closed at its end and reopened on the next.
    for (const line of out.split('\n')) expect(await painted(line)).toEqual(await painted(line + RESET));
    expect(await painted(out)).toEqual(await painted(`status ${RED}failed${FG_OFF}\n${RED}on chain${FG_OFF}\nretry`));
    const indented = wrapWords(`${BOLD}${RED}aaa bbb${RESET}`, 5, { hangingIndent: 2 });
    expect(indented.split('\n')[1]).toMatch(/^ {2}\u001b\[/);
    expect(await painted(indented)).toEqual(await painted(`${BOLD}${RED}aaa${RESET}\n  ${BOLD}${RED}bbb${RESET}`));
  });
});
