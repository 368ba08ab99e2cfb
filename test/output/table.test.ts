// The Table (ui/table.ts): which columns a width keeps (a prefix of one priority list, so a wider
// terminal never hides a column a narrower one showed), the bytes it draws (reviewed snapshots:
// colours, wide characters and emoji in cells, long tables), and — for the lists desk-columns does
// not draw from a live book — that widening the terminal from 80 to 160 columns only ever adds columns
// (the --watch view's own widths: desk-columns.test.ts).
import { makeChalk } from '../../src/platform/terminal/color.js';
import {
  APPLY_RESOURCE,
  JOINED_REFERENCE,
  PLAN_RESOURCE,
  POSITION_RESOURCE,
  TOOL_RESOURCE,
} from '../../src/platform/fields/resource-fields.js';
import {
  drawTable,
  fitColumns,
  tableCell,
  type ColumnNeed,
  type TableInput,
} from '../../src/platform/terminal/table.js';
import { displayWidth } from '../../src/platform/terminal/width.js';
import { tableHeaders } from '../support/output/table-text.js';
import { output } from '../support/output/fake-output.js';
import { randomStream } from '../support/random-stream.js';

const cellsOf = (rows: number, text: (row: number) => string) =>
  Array.from({ length: rows }, (_, row) => tableCell(text(row)));

type Column = TableInput['columns'][number];
/** A column of these cells, aligned left unless `more` says otherwise. */
const textColumn = (key: string, header: string, cells: Column['cells'], more?: Partial<Column>): Column => ({
  key,
  header,
  align: 'left',
  cells,
  ...more,
});

/** Each width's drawing is its reviewed snapshot, no line wider than the width. */
async function snapshotsAt(input: TableInput, widths: number[]) {
  for (const width of widths) {
    const drawn = await drawTable({ ...input, width });
    expect(drawn, `${width} columns`).toMatchSnapshot();
    for (const line of drawn.text.split('\n')) expect(displayWidth(line), line).toBeLessThanOrEqual(width);
  }
}

const WIDTHS = [80, 100, 120, 160] as const;

/**
 * Random tables widened from 20 to 400 columns: a column kept at one width is kept at every wider
 * one, the kept fit, and (with the desk's tier, narrowed headers and short ids) the kept are a prefix.
 */
function wideningProblems(seed: number, desk: boolean) {
  const random = randomStream(seed);
  const problems = [];
  for (let round = 0; round < 60; round++) {
    const count = 2 + Math.floor(random() * 14);
    const needs = Array.from({ length: count }, (_, index) => {
      const width = 1 + Math.floor(random() * 40);
      const minWidth = random() < 0.3 ? Math.max(1, width - Math.floor(random() * 20)) : width;
      if (!desk) return { key: `c${index}`, width, minWidth };
      const narrower = Math.max(1, minWidth - Math.floor(random() * 10));
      return {
        key: `c${index}`,
        width,
        minWidth,
        tightWidth: random() < 0.5 && narrower < minWidth ? narrower : undefined,
        money: random() < 0.3,
      };
    });
    const priority = needs
      .map((need) => need.key)
      .sort(() => random() - 0.5)
      .slice(0, desk ? count : count - Math.floor(random() * 3));
    const decisive = desk ? Math.floor(random() * count) : 0;
    let before = new Set<number>();
    for (let width = 20; width <= 400; width++) {
      const fit = fitColumns(needs, priority, width, decisive);
      const kept = new Set(fit.kept.map((column) => column.index));
      for (const index of before)
        if (!kept.has(index))
          problems.push(`round ${round}: column ${index} shown at ${width - 1}, hidden at ${width}`);
      const used = fit.kept.reduce((sum, column) => sum + column.width, 0) + 2 * (fit.kept.length - 1);
      if (fit.kept.length > 1 && used > width) problems.push(`round ${round}: ${used} columns used of ${width}`);
      if (fit.kept.length + fit.hidden.length !== count) problems.push(`round ${round}: columns lost at ${width}`);
      const ranks = fit.kept.map(({ index }) => priority.indexOf(`c${index}`)).sort((x, y) => x - y);
      if (desk && ranks.some((rank, at) => rank !== at)) problems.push(`round ${round}: not a prefix at ${width}`);
      before = kept;
    }
  }
  return problems;
}

const need = (key: string, width: number, minWidth = width, more?: Partial<ColumnNeed>) => ({
  key,
  width,
  minWidth,
  ...more,
});

/** fitColumns with the table's gap of 2: the kept as `index:width`, then ` | ` and the hidden (`0:28 2:7 | 1`). */
function fitted(needs: ColumnNeed[], priority: string[], width: number, decisive?: number) {
  const { kept, hidden } = fitColumns(needs, priority, width, decisive);
  return `${kept.map((column) => `${column.index}:${column.width}`).join(' ')}${hidden.length ? ` | ${hidden.join(' ')}` : ''}`;
}

it("fitColumns keeps a prefix of the priority list: every column kept at one width is kept at every wider one, with the desk's tier, narrowed headers and short ids too", () => {
  expect([wideningProblems(26, false), wideningProblems(50, true)]).toEqual([[], []]);
});

it('fitColumns stops at the first column that does not fit, even when a later, narrower one would; keeps the first column of the list whatever the width; shrinks a column only to let the ones after it in the list in, and gives room back most important first', () => {
  const needs = [need('id', 28), need('maturity', 30), need('ref', 7)];
  expect([fitted(needs, ['id', 'maturity', 'ref'], 50), fitted(needs, ['id', 'ref', 'maturity'], 50)]).toEqual([
    '0:28 | 1 2',
    '0:28 2:7 | 1',
  ]);
  expect(fitted([need('a', 30)], ['a'], 20)).toBe('0:20');
  const shrinking = [need('ref', 20, 8), need('net', 10)];
  expect([40, 25, 19].map((width) => fitted(shrinking, ['net', 'ref'], width))).toEqual([
    '0:20 1:10',
    '0:13 1:10',
    '1:10 | 0',
  ]);
});

it("fitColumns narrows headers and shortens ids to keep the desk's columns and the amounts, never to take a column of the rest", () => {
  const needs = [
    need('id', 28, 28, { tightWidth: 12 }),
    need('side', 4),
    need('entry', 14, 14, { tightWidth: 8 }),
    need('net', 11, 11, { tightWidth: 7, money: true }),
    need('market', 7),
  ];
  const priority = 'side net entry id market'.split(' ');
  const idFirst = ['id', 'net', 'side'];
  // The same net P&L, not money.
  const plain = needs.slice(0, 4).map((need) => ({ ...need, money: false }));
  expect([
    // 4 + 7 + 8 and two gaps of 2: the desk's three fit only with two-line headers; room left goes
    // back to them whole (net, then entry); the id (of the rest) would need them whole: hidden.
    fitted(needs, priority, 24, 3),
    fitted(needs, priority, 40, 3),
    // Room for the id whole beside them: it is taken; market would need 9 more.
    fitted(needs, priority, 70, 3),
    // An id before an amount is shortened for it (no desk tier here: the money column alone), and
    // the header goes back on one line with the room left; side, of the rest, waits.
    fitted(needs.slice(0, 4), idFirst, 30),
    // Not money: the id stays whole and what does not fit beside it is hidden.
    fitted(plain, idFirst, 30),
  ]).toEqual('1:4 2:8 3:7 | 0 4,1:4 2:14 3:11 | 0 4,0:28 1:4 2:14 3:11 | 4,0:12 3:11 | 1 2,0:28 | 1 2 3'.split(','));
});

it("fitColumns takes a reference whole only while the desk's columns after it still fit beside it; cut to let them in", () => {
  const needs = [
    need('side', 4),
    need('ref', 40, 10, { wholeWhenRoom: true }),
    need('net', 11),
    need('left', 6),
    need('market', 7),
  ];
  const priority = 'side ref net left market'.split(' ');
  // At 60, whole it would push out net P&L and time left: cut to what they leave (60 − 21 − 3
  // gaps), and market (of the rest) does not cut it further. At 67 there is room for it whole
  // beside the desk's columns, and market (of the rest) waits.
  expect([fitted(needs, priority, 60, 4), fitted(needs, priority, 67, 4)]).toEqual([
    '0:4 1:33 2:11 3:6 | 4',
    '0:4 1:40 2:11 3:6 | 4',
  ]);
});

it('columns that do not fit: past the first that does not fit are hidden without their cells being made; the drawing is the same', async () => {
  const made: string[] = [];
  const column = (key: string, text: (row: number) => string, lazy: boolean): Column => {
    const cells = () => cellsOf(3, text);
    if (!lazy) return textColumn(key, key, cells());
    return {
      key,
      header: key,
      align: 'left',
      get cells() {
        made.push(key);
        return cells();
      },
    };
  };
  const input = (lazy: boolean) => ({
    columns: [
      column('id', (row) => `hdg_${row}`, lazy),
      column('market', () => 'USDTNGN', lazy),
      column('note', () => 'x'.repeat(40), lazy),
      column('side', () => 'buy', lazy),
    ],
    priority: 'id market note side'.split(' '),
    rowCount: 3,
    width: 30,
    chalk: makeChalk(false),
  });
  const lazily = await drawTable(input(true));
  // `note` does not fit 30 columns (measuring it says so): it and everything after it in the list
  // are hidden, and what comes after it is never made.
  expect([lazily.hidden, [...new Set(made)].sort(), lazily]).toEqual([
    ['note', 'side'],
    ['id', 'market', 'note'],
    await drawTable(input(false)),
  ]);
});

describe('the drawing, byte for byte', () => {
  const c = makeChalk(true);
  const ids = (rows: number) => cellsOf(rows, (row) => `hdg_${String(row).padStart(24, '0')}`);
  const sides = (rows: number) => cellsOf(rows, (row) => (row % 2 ? c.green('buy') : c.magenta('sell')));
  const input = (rows: number) => ({
    columns: [
      textColumn('id', 'Hedge ID', ids(rows), { shrink: 'middle' }),
      textColumn(
        'ref',
        'Ref',
        cellsOf(rows, (row) => (row % 3 === 0 ? c.dim('—') : `DEAL-${row}-取引`)),
        { shrink: 'end', minWidth: 8 },
      ),
      textColumn('side', 'Side', sides(rows)),
      textColumn(
        'net',
        'Net P&L USD',
        cellsOf(rows, (row) => (row % 2 ? c.red(`-${row}.50`) : c.green(`+${row}.25`))),
        { align: 'right' },
      ),
      textColumn('bar', '', [], {
        drawn: { width: 12, minWidth: 5, draw: (row, width) => c.cyan('█'.repeat(1 + (row % Math.max(1, width)))) },
      }),
    ],
    priority: 'id net side bar ref'.split(' '),
    rowCount: rows,
    totals: { label: 'Total', cells: ['', '', '', c.bold('+1.00')].map(tableCell) },
    sections: [
      { before: 0, line: c.bold('Mon 02 Mar 2026 · 2 hedges') },
      {
        before: Math.floor(rows / 2),
        line: c.bold('Tue 03 Mar 2026 · a line longer than any terminal this table is drawn for, by far: it is cut'),
      },
      // Under the last row (a side's hedges under its positions line): after the totals, cut to the width.
      {
        before: rows,
        line: c.dim('  └ hdg_under_the_last_row  a line under the last row, longer than most terminals: it is cut'),
      },
    ],
    width: 70,
    chalk: c,
  });

  it.each([3, 40])('%i rows: colours, sections, totals, a drawn column, cut cells', async (rows) => {
    await snapshotsAt(input(rows), [30, 50, 70, 120]);
  });

  it('a long table (several drawings of rows)', async () => {
    // Three section lines, the header over its rule, the 250 rows, the totals under theirs.
    expect((await drawTable({ ...input(250), width: 120 })).text).toMatchSnapshot();
  });

  it('wide characters, emoji and colours in cells, at 60, 80 and 120 columns', async () => {
    const references = [
      '東京-取引-0001',
      'DEAL-👩‍💻-42',
      'ФХ-сделка-7',
      `${c.red('RED')}-${c.bold('東京')}`,
      'Crédit 🇳🇬 Lagos',
    ];
    const notes = ['市場 は 閉じて います まで 明日', '👍 ok', c.yellow('settling: views disagree, 東京 desk'), '—'];
    const rows = 7;
    const cells = (texts: string[]) => cellsOf(rows, (row) => texts[row % texts.length]);
    await snapshotsAt(
      {
        columns: [
          textColumn('ref', 'Ref 参照', cells(references), { shrink: 'end', minWidth: 8 }),
          textColumn('side', 'Side', cells([c.green('buy'), c.magenta('sell')])),
          textColumn('net', 'Net P&L USD', cells([c.red('-1,250.50'), c.green('+980.25'), '0.00']), {
            align: 'right',
            money: true,
          }),
          textColumn('note', 'Note', cells(notes), { shrink: 'wrap', minWidth: 12 }),
          textColumn('hash', 'Hash', cells([`0x${'5f12'.repeat(16)}`, `0x${'a9c0'.repeat(16)}`]), {
            shrink: 'middle',
          }),
        ],
        priority: 'ref side net note hash'.split(' '),
        rowCount: rows,
        sections: [
          {
            before: 0,
            line: c.bold('月 02 Mar 2026 · 二 hedges 👩‍💻, a section line longer than the narrowest terminal'),
          },
        ],
        width: 80,
        chalk: c,
      },
      [60, 80, 120],
    );
  });

  it('a header on two lines (bottom-aligned), compact cells and wrapped text', async () => {
    const rows = 4;
    const reasons = ['INV-1 enters ≤30d', 'FRT-2 due', 'INV-1 due, FRT-2 enters ≤30d', 'AP-4 due'];
    // At 55 columns (its third snapshot: 6 + 4 + 10 + 16 + 11 and four gaps, the id hidden): the header over two
    // lines, its unit under its label; the time without its "(in …)"; a reason wrapped at its spaces onto a second
    // line of its row, never cut inside a word; the totals label across the columns whose totals are empty (its short
    // form: the long one has no room).
    await snapshotsAt(
      {
        columns: [
          // First on the line, last in priority: hidden here, so the totals label goes across the first columns shown.
          textColumn('id', 'Hedge ID', ids(rows), { shrink: 'middle' }),
          textColumn(
            'ref',
            'Ref',
            cellsOf(rows, (row) => `DEAL-${row + 1}`),
          ),
          textColumn('side', 'Side', sides(rows)),
          textColumn(
            'notional',
            'Notional USD',
            cellsOf(rows, (row) => `${row + 1}0,000.00`),
            {
              align: 'right',
              money: true,
            },
          ),
          textColumn(
            'time',
            'Time UTC',
            cellsOf(rows, () => `2026-03-02 09:00 ${c.dim('(in 6d 23h)')}`),
            {
              compact: cellsOf(rows, () => '2026-03-02 09:00'),
            },
          ),
          textColumn(
            'why',
            'Why',
            cellsOf(rows, (row) => reasons[row]),
            { shrink: 'wrap', minWidth: 11 },
          ),
        ],
        priority: 'ref side notional time why id'.split(' '),
        decisive: 5,
        rowCount: rows,
        totals: {
          label: 'Total (4 hedges)',
          shortLabel: 'Total (4)',
          cells: ['', '', '', c.bold('100,000.00'), '', ''].map(tableCell),
        },
        width: 55,
        chalk: c,
      },
      [30, 40, 55, 80],
    );
  });
});

// ---- every list, at 80, 100, 120 and 160 columns -------------------------------------------------
// (price, the profile list and the report by day and by hedge: their reviewed screens at these widths, screens.test.ts)

const ID = (n: number) => `hdg_0000084560jvkcy5rq90dq${String(n).padStart(2, '0')}`;
function positionRow(n: number) {
  return {
    market: 'USDTNGN',
    side: n % 2 ? 'sell' : 'buy',
    hedge_id: ID(n),
    notional_usd: 25_000,
    units: 25_000,
    entry_price: 1530.33,
    mark_price: 1529.85,
    gross_pnl_usd: -7.84,
    accrued_carry_usdc: 0.51,
    net_pnl_usd: -8.35,
    close_fee_usdc: 12.5,
    margin_usdc: 2500,
    net_margin_usd: 2479.15,
    opened_at: '2026-03-02T09:00:00.000Z',
    maturity_at: '2026-03-09T09:00:00.000Z',
    [JOINED_REFERENCE]: n % 2 ? undefined : 'DEAL-42',
  };
}

const LISTS = [
  { name: 'positions', resource: POSITION_RESOURCE, rows: [0, 1].map(positionRow) },
  {
    name: 'plan',
    resource: PLAN_RESOURCE,
    rows: [
      {
        step: 1,
        market: 'USDTNGN',
        side: 'buy',
        current_usd: 0,
        target_usd: 25_000,
        action: 'open',
        delta_usd: 25_000,
        tenor_days: 7,
        margin_usdc: 2500,
        fee_pnl_usdc: 12.5,
        carry_pnl_usdc: 71.4,
        line: 2,
      },
    ],
  },
  {
    name: 'apply',
    resource: APPLY_RESOURCE,
    rows: [
      {
        step: 1,
        action: 'open',
        market: 'USDTNGN',
        side: 'buy',
        delta_usd: 25_000,
        outcome: 'filled',
        hedge_id: ID(1),
        journal_id: 'a_mwrrf5p1',
      },
    ],
  },
  {
    name: 'tools',
    resource: TOOL_RESOURCE,
    rows: [
      { name: 'hedge_open', tier: 'write', offered: 'yes', arguments: 'market side notional tenor (+6 optional)' },
    ],
  },
];

async function tableAt(list: (typeof LISTS)[number], columns: number) {
  const { out, stdout, stderr } = output('table', { columns });
  await out.list(list.rows, list.resource, { empty: 'none' });
  return { text: stdout(), notes: stderr() };
}

describe('every list, as the terminal widens', () => {
  it.each(LISTS)(
    '$name: each column shown at 80, 100, 120 and 160 columns is shown at every wider one; no line is wider than the terminal',
    async (list) => {
      let narrower: string[] = [];
      for (const columns of WIDTHS) {
        const { text, notes } = await tableAt(list, columns);
        for (const line of (text + notes).trimEnd().split('\n'))
          expect(displayWidth(line), `${list.name} at ${columns}: ${line}`).toBeLessThanOrEqual(columns);
        const shown = tableHeaders(text);
        for (const header of narrower) expect(shown, `${list.name} at ${columns} lost ${header}`).toContain(header);
        narrower = shown;
      }
    },
  );

  // Positions at 80 columns (side, reference, notional, entry, mark, net P&L, net margin, time left): the reviewed
  // positions screen (test/output/screens.test.ts).
  it("rows of several markets: the market joins the desk's columns, first; of one market, the rate headers name it", async () => {
    const mixed = { ...LISTS[0], rows: [positionRow(0), { ...positionRow(1), market: 'USDTKES' }] };
    const { text, notes } = await tableAt(mixed, 80);
    expect([tableHeaders(text)[0], tableHeaders(text)]).toEqual([
      'Market',
      expect.arrayContaining('Side,Ref,Notional USD,Net P&L USD'.split(',')),
    ]);
    expect(notes).not.toMatch(/Hidden at 80 columns: market/);
  });
});
