// What a desk needs stays on the screen: every list and --watch view drawn on a real
// terminal (a pseudo-terminal) at 60, 80 and 120 columns, against a simulator whose book was made
// through the CLI (so that the journal knows it: an open, a reduce and a close of one hedge, a
// 31-character reference on a closed and an open one). On every screen: no line wider than the
// terminal; every column a wide terminal shows and this one does not is named under its table
// (`Hidden at …`), and every id cut in the middle too (`shortened: …`); the columns kept are the
// first of the list's priorities (docs/output.md's tables); no id is shown whole while an amount is
// left out — and the issue's own demands: at 80 columns positions keep entry and
// time left, history the closing date, entry, exit and net P&L, the journal side and notional,
// markets both sides' capacity; at 60 net P&L is never the one left out; the exposures schedule's
// reason is never cut inside a word; a note about a column is said only under a table showing it;
// a reference is whole wherever the terminal has room for it.
import { stripVTControlCharacters } from 'node:util';
import stringWidth from 'string-width';
import { fieldLabel } from '../../src/platform/fields/fields.js';
import { PLAN_VIEW } from '../../src/features/exposures/exposures-view.js';
import {
  HEDGE_RESOURCE,
  HISTORY_RESOURCE,
  JOURNAL_RESOURCE,
  MATURITY_RESOURCE,
  marketsResource,
  POSITION_RESOURCE,
  PRICE_RESOURCE,
  type Resource,
} from '../../src/platform/fields/resource-fields.js';
import { ROOT, type HedgeArgs } from '../support/hedge-cli.js';
import { drawScreen } from '../support/servers/pseudo-terminal.js';
import { MARKET, startSimulator, type Simulator } from '../support/simulator.js';
import { leftOut, printedTable } from '../support/output/table-text.js';
import { ok } from '../support/cli-runs.js';

const WIDTHS = [60, 80, 120] as const;
/** Wide enough that no table leaves anything out: what each list can show. */
const WIDE = 400;
const LONG_REF = 'DEAL-2026-11-ACME-TREASURY-0042';

let simulator: Simulator;
let resizedId: string;

/**
 * The command on a terminal `cols` wide: every line it drew (stdout and stderr, in order, as the
 * terminal shows them). Drawn in-process as on a terminal; `real`: on a pseudo-terminal.
 */
async function screenOf(args: string[], cols: number, real = false) {
  const { code, drawn } = await drawScreen({
    configDir: simulator.configDir,
    args,
    env: simulator.env,
    cols,
    rows: 300,
    real,
  });
  const lines = drawn.map((line) => line.text);
  expect(code, lines.join('\n')).toBe(0);
  // No line was wider than the terminal (on every screen read here): none had to be wrapped onto the next.
  expect(
    drawn.filter((line) => line.wrapped).map((line) => line.text),
    `${args.join(' ')} at ${cols}:\n${lines.join('\n')}`,
  ).toEqual([]);
  return lines;
}

/** A failure's message: the width and the screen. */
const said = (cols: number, lines: string[]) => `${cols}:\n${lines.join('\n')}`;

const run = async (args: HedgeArgs) => ok(await simulator.hedge(args)).stdout;

beforeAll(async () => {
  simulator = await startSimulator({ stepped: true });
  await run(`open ${MARKET} buy 10000 --tenor 3 --ref DEAL-42 --json`);
  // A long reference on a closed hedge (in the history) and on the open sell (in positions).
  await run(`open ${MARKET} sell 1000 --tenor 1 --ref ${LONG_REF} --json`);
  await run(`close ${MARKET} sell --json`);
  // A hedge reduced while open, then closed: its history record's P&L is its whole life's.
  resizedId = JSON.parse(await run(`open ${MARKET} sell 5000 --tenor 7 --ref REPRO-1 --json`)).id;
  simulator.advance(600_000);
  await run(`reduce ${MARKET} sell 3000 --json`);
  simulator.advance(600_000);
  await run(`close ${MARKET} sell --json`);
  await run(`open ${MARKET} sell 20000 --tenor 7 --ref ${LONG_REF} --json`);
  // An hour on: the mark has moved off the entries.
  simulator.advance(3_600_000);
});

afterAll(() => simulator?.close());

// ---- reading a screen ---------------------------------------------------------------------------

/** A header rule's line: under a table's headers (the totals' rule is followed by the totals). */
const RULE = /^─+(?: +─+)*$/;

/**
 * Every table of a screen, in order, with the note under each: its `body` (the lines of its rows, continuation lines
 * of wrapped cells included, up to what follows the table), `after` (the lines between it and the next, joined) and
 * what that note names (`hidden`, `shortened`).
 */
function tablesOf(lines: string[]) {
  const rules = lines.flatMap((line, index) =>
    RULE.test(line) && !/^Total/.test(lines[index + 1] ?? '') ? [index] : [],
  );
  return rules.map((ruleAt, at) => {
    const table = printedTable(lines.join('\n'), ruleAt)!;
    const end = at + 1 < rules.length ? rules[at + 1] - 2 : lines.length;
    const body: string[] = [];
    for (let index = ruleAt + 1; index < end; index++) {
      const line = lines[index];
      // Rows lie over the columns; a note or a title runs across the gaps.
      if (
        line !== '' &&
        [...line].every(
          (char, column) => char === ' ' || table.spans.some(([start, stop]) => column >= start && column < stop),
        )
      )
        body.push(line);
      else if (!RULE.test(line) && !/^Total/.test(line) && !/^[A-Z][a-z]{2} \d{2} [A-Z][a-z]{2} \d{4} · /.test(line))
        break;
    }
    const after = lines.slice(ruleAt + 1 + body.length, end).join(' ');
    /** The cells of a column, down its rows. */
    const cells = (column: number) => body.map((line) => line.slice(...table.spans[column]).trim());
    return { ...table, body, after, cells, ...leftOut(after) };
  });
}

/** Each header a field can have on screen (its label with its unit, the rate's as NGN/USDT), to its key. */
function keysByHeader(resource: Resource) {
  const byHeader = new Map<string, string>();
  for (const field of resource.fields) {
    for (const rateUnit of ['NGN/USDT', undefined])
      byHeader.set(fieldLabel(field, 'header', rateUnit, field.kind), field.key);
  }
  return byHeader;
}

type ScreenTable = ReturnType<typeof tablesOf>[number];

/**
 * What every table must do at every width: fit it, name each column the wide table shows that it
 * does not, name each id it cut, and keep the first of its priorities (a prefix: no column hidden
 * before one shown).
 */
function checkTable(name: string, table: ScreenTable, wide: ScreenTable, cols: number, resource: Resource) {
  const where = `${name} at ${cols}`;
  expect(wide.hidden, `${name}: the wide table hides nothing`).toEqual([]);
  // An id cut in the middle is named as shortened where the note's one line has room: always when no column is hidden.
  table.headers.forEach((header, column) => {
    if (table.cells(column).some((cell) => /^(hdg_|a_|0x)\S*…\S*$/.test(cell)) && !table.hidden.length)
      expect(table.shortened.length, `${where}: ${header} cut, not named`).toBeGreaterThan(0);
  });
  const note = table.after.indexOf('Hidden') >= 0 ? table.after.slice(table.after.indexOf('Hidden')) : '';
  // The note is one line of the screen.
  if (note) expect(note.split(' — see ')[0].length + 2, `${where}: ${note}`).toBeLessThanOrEqual(cols);
  const byHeader = keysByHeader(resource);
  const keyOf = (header: string) => byHeader.get(header) ?? header;
  const shown = table.headers.map(keyOf);
  const all = wide.headers.map(keyOf);
  const rank = (key: string) =>
    resource.priority.includes(key) ? resource.priority.indexOf(key) : resource.priority.length;
  // The note names the keys of the columns left out, each once, the most important first: all of them, or as many as
  // its one line holds and how many more.
  const missing = all.filter((key) => !shown.includes(key));
  const byRank = [...missing].sort((a, b) => rank(a) - rank(b) || all.indexOf(a) - all.indexOf(b));
  expect([table.hidden, table.more], `${where}: the note names ${table.hidden.join(', ') || 'nothing'}`).toEqual([
    byRank.slice(0, missing.length - table.more),
    missing.length - table.hidden.length,
  ]);
  const lastShown = Math.max(...shown.map(rank));
  const firstHidden = Math.min(...missing.map(rank));
  expect(lastShown, `${where}: ${missing.join(', ')} hidden before ${shown.join(', ')}`).toBeLessThan(firstHidden);
  // Ids and hashes are shortened before any money column goes: none is shown whole while one is hidden.
  const kindOfKey = new Map(resource.fields.map((field) => [field.key, field.kind]));
  const hiddenMoney = missing.filter((key) => ['money', 'pnl', 'charge'].includes(kindOfKey.get(key) ?? ''));
  const wholeIds = shown.filter(
    (key, column) =>
      ['id', 'hash'].includes(kindOfKey.get(key) ?? '') && !table.cells(column).some((cell) => cell.includes('…')),
  );
  if (hiddenMoney.length > 0)
    expect(wholeIds, `${where}: ${wholeIds.join(', ')} whole while ${hiddenMoney.join(', ')} is hidden`).toEqual([]);
  return shown;
}

const drawnScreens = new Map<string, Promise<{ wide: string[]; at: Map<number, string[]> }>>();

/** A list drawn at each width, and wide: once per command, the book is made before the tests. */
function screens(args: string[]) {
  const key = args.join(' ');
  const drawn =
    drawnScreens.get(key) ??
    Promise.all([screenOf(args, WIDE), ...WIDTHS.map((cols) => screenOf(args, cols))]).then(([wide, ...narrow]) => ({
      wide,
      at: new Map(WIDTHS.map((cols, index) => [cols, narrow[index]])),
    }));
  drawnScreens.set(key, drawn);
  return drawn;
}

// ---- the lists ------------------------------------------------------------------------------------

/**
 * Each list: its command (its name), its fields, and the columns a desk decides on (docs/output.md) that it must keep
 * at a width, as keys (at 120 every one it keeps at 80).
 */
const LISTS: Array<[string, Resource, Record<number, string>]> = [
  [
    'markets',
    marketsResource(),
    {
      // Both sides' carry (with its word) before capacity.
      60: 'market status price carry_buy_daily_pct carry_sell_daily_pct',
      80: 'market status price capacity_buy_usd capacity_sell_usd carry_buy_daily_pct carry_sell_daily_pct',
    },
  ],
  [
    'positions',
    POSITION_RESOURCE,
    {
      60: 'side client_reference notional_usd net_pnl_usd',
      80: 'side client_reference notional_usd net_pnl_usd entry_price mark_price matures_in',
    },
  ],
  ['hedges', HEDGE_RESOURCE, { 80: 'id side client_reference notional_usd struck_rate status maturity_at' }],
  [
    'history',
    HISTORY_RESOURCE,
    {
      60: 'side client_reference notional_usd net_pnl_usd',
      80: 'side client_reference notional_usd net_pnl_usd entry_price exit_price closed_at',
    },
  ],
  ['maturities', MATURITY_RESOURCE, { 80: 'time left side client_reference notional_usd net_pnl_usd mark_price' }],
  ['journal', JOURNAL_RESOURCE, { 80: 'id command side client_reference notional_usd outcome created_at' }],
  [`price ${MARKET} --watch 1 --count 1`, PRICE_RESOURCE, { 60: 'market price', 80: 'market price' }],
];

it.each(LISTS)(
  "%s at 60, 80 and 120 columns: fits, names what it leaves out, keeps the first of its priorities and the desk's columns",
  async (name, resource, keeps) => {
    const { wide, at } = await screens(name.split(' '));
    const [wideTable] = tablesOf(wide);
    expect(wideTable, wide.join('\n')).toBeDefined();
    for (const [cols, lines] of at) {
      const [table] = tablesOf(lines);
      const shown = checkTable(name, table, wideTable, cols, resource);
      // The desk's columns kept (and at 120 every one the list has at 80).
      const must = keeps[cols] ?? (cols === 120 ? keeps[80] : '');
      for (const key of must.split(' ').filter(Boolean))
        expect(shown, `${name} at ${cols} keeps ${key}:\n${lines.join('\n')}`).toContain(key);
      // At 60 columns net P&L is never the one left out.
      if (wideTable.headers.includes('Net P&L USD'))
        expect(table.headers, `${name} at ${cols}`).toContain('Net P&L USD');
    }
  },
);

it('notes under a table are about what it shows: positions: the note on net margin only where its column is; the lines under each side name the parts shown; history: a hedge this journal reduced while open has its notional marked, and the note says what it held; markets: the carry note only under carry columns', async () => {
  const { at } = await screens(['positions']);
  for (const [cols, lines] of at) {
    const [table] = tablesOf(lines);
    const text = lines.join(' ');
    const shown = table.headers.includes('Net margin USD');
    expect(text.includes('Net margin: what closing now would return'), said(cols, lines)).toBe(shown);
    // The parts of a hedge's line the note names are on the line: an id, and the notional in USD.
    const named = /Under each side: its hedges as their records show them \(([^)]*)\)/.exec(text)?.[1];
    expect(named, `${cols}`).toBeDefined();
    const hedgeLines = lines.filter((line) => line.startsWith('  └ '));
    expect(
      hedgeLines.some((line) => line.includes('DEAL-42')),
      `${cols}`,
    ).toBe(named!.includes('reference'));
  }
  for (const [cols, lines] of (await screens(['history'])).at) {
    const row = lines.find((line) => line.includes('REPRO-1'))!;
    expect(row, said(cols, lines)).toMatch(/2,000\.00\*/);
    const text = lines.join(' ').replace(/\s+/g, ' ');
    expect(text).toContain(
      `* REPRO-1 ${resizedId}: opened with 5,000.00 USD, reduced by 3,000.00 USD (this journal); its P&L is its whole life's, on up to 5,000.00 USD, not on the 2,000.00 USD shown.`,
    );
    // The sign note is about gross P&L, carry and fees: said only with one of them.
    const [table] = tablesOf(lines);
    const parts = ['Gross P&L USD', 'Carry USDC', 'Fees USDC'].some((header) => table.headers.includes(header));
    expect(text.includes('Net P&L = gross P&L + carry + fees'), `${cols}`).toBe(parts);
  }
  for (const cols of [30, 40, 80]) {
    const lines = await screenOf(['markets'], cols);
    const [table] = tablesOf(lines);
    const carry = table.headers.some((header) => header.startsWith('Carry/day'));
    // At 30 columns both carry columns wait (the price comes first): the note waits with them; at 40 the buy side's
    // carry is kept before the capacities.
    expect(carry, `${cols}`).toBe(cols >= 40);
    expect(lines.join(' ').includes('Carry per day of the notional'), said(cols, lines)).toBe(carry);
  }
});

it('a reference is never cut where the terminal has room: positions and history at 160 columns show a 31-character reference whole; at 30 it is cut with …', async () => {
  // A side's row or a history row, not the lines of a side's hedges under it.
  const rows = async (args: string[], cols: number) =>
    (await screenOf(args, cols)).filter((line) => !line.startsWith('  └ '));
  for (const args of [['positions'], ['history']])
    expect(
      (await rows(args, 160)).filter((line) => line.includes(LONG_REF)),
      args[0],
    ).toHaveLength(1);
  // Too narrow for it whole: cut at the end, never dropped before the columns after it.
  expect((await rows(['positions'], 30)).filter((line) => /DEAL-20\S*…/.test(line))).toHaveLength(1);
});

// ---- exposures and the report ---------------------------------------------------------------------

it('exposures: its five tables at 60, 80 and 120 columns: each fits, names what it leaves out and keeps the first of its priorities; the reason wraps at its words, never cut', async () => {
  const args = ['exposures', `${ROOT}/docs/examples/exposures.csv`];
  const { wide, at } = await screens(args);
  const names = PLAN_VIEW.all;
  const wideTables = tablesOf(wide);
  expect(wideTables).toHaveLength(5);
  const reasons = (await run([...args, '--show', 'schedule', '--format', 'tsv']))
    .trim()
    .split('\n')
    .slice(1)
    .map((line) => line.split('\t').at(-1)!);
  expect(reasons.length).toBeGreaterThan(0);
  for (const [cols, lines] of at) {
    const tables = tablesOf(lines);
    expect(tables, said(cols, lines)).toHaveLength(5);
    tables.forEach((table, index) =>
      checkTable(`exposures ${names[index]}`, table, wideTables[index], cols, PLAN_VIEW.sections[names[index]]),
    );
    // The schedule's reasons, read down the Why column (a wrapped reason's lines joined): whole, word for word.
    const schedule = tables[2];
    const why = schedule.headers.indexOf('Why');
    expect(why, `${cols}: the reason is kept`).toBeGreaterThanOrEqual(0);
    const column = schedule.cells(why);
    expect(column.join(' ').replace(/\s+/g, ' '), said(cols, lines)).toBe(reasons.join(' '));
    expect(column.join(' ')).not.toContain('…');
  }
});

it.each([{ command: ['report'] }, { command: ['report', '--by', 'hedge'] }])(
  'the report table at 60, 80 and 120 columns: $command: fits, names what it leaves out, keeps net P&L',
  async ({ command }) => {
    const { wide, at } = await screens(command);
    const [wideTable] = tablesOf(wide);
    for (const [cols, lines] of at) {
      const [table] = tablesOf(lines);
      // The report names what it leaves out in its own words: as many as the columns left out.
      const text = lines.join(' ').replace(/\s+/g, ' ');
      const words =
        /Not shown at \d+ columns: ([^;(]*)/
          .exec(text)?.[1]
          ?.split(',')
          .map((word) => word.trim())
          .filter(Boolean) ?? [];
      // The bar has no header: it is counted from the widest screen's columns.
      const missing = wideTable.spans.length - table.spans.length;
      expect(words.length, said(cols, lines)).toBe(missing);
      expect(
        table.headers.some((header) => /^Net( P&L)?/.test(header)),
        `${cols}`,
      ).toBe(true);
      const cut = table.body.some((line) => /hdg_\S*…/.test(line));
      if (cut) expect(text).toMatch(/[Hh]edge ids shortened/);
      // An amount left out while a hedge id is shown whole: never (the id is shortened first).
      const amounts = 'notional,amount locked,gross P&L,carry,fees'.split(',');
      if (words.some((word) => amounts.includes(word)) && table.headers.includes('Hedge ID'))
        expect(cut, said(cols, lines)).toBe(true);
    }
  },
);

// ---- the --watch views: one frame each -----------------------------------------------------------

it('--watch views, one frame at 60, 80 and 120 columns: positions --watch: fits, keeps entry and time left at 80, names on the screen what it leaves out; hedges ID --watch (a card): fits, every field on its line', async () => {
  const { wide, at } = await screens('positions --watch 1 --count 1'.split(' '));
  const [wideTable] = tablesOf(wide);
  expect(wideTable.headers).toEqual(
    expect.arrayContaining('Entry NGN/USDT,Mark NGN/USDT,Net P&L USD,Left,P&L trend'.split(',')),
  );
  for (const [cols, lines] of at) {
    const [table] = tablesOf(lines);
    const byHeader = new Map([...keysByHeader(POSITION_RESOURCE), ['P&L trend', 'trend']]);
    const missing = wideTable.headers
      .filter((header) => !table.headers.includes(header))
      .map((header) => byHeader.get(header) ?? header);
    // Named, or counted among the more.
    expect([[...table.hidden].sort(), table.more], said(cols, lines)).toEqual([
      missing.filter((key) => table.hidden.includes(key)).sort(),
      missing.length - table.hidden.length,
    ]);
    expect(table.after).toMatch(missing.length > 0 ? /see --json, or a wider terminal/ : /^(?!.*Hidden)/);
    if (cols >= 80)
      expect(table.headers, `${cols}`).toEqual(
        expect.arrayContaining('Side,Ref,Notional USD,Entry NGN/USDT,Mark NGN/USDT,Net P&L USD,Left'.split(',')),
      );
    expect(table.headers, `${cols}`).toContain('Net P&L USD');
  }
  // Each side's trend is its own P&L: the two rows of one market do not draw one line twice.
  expect(wideTable.headers).not.toContain('Mark trend');

  // hedges ID --watch (a card): fits, every field on its line.
  const id = JSON.parse(await run('hedges --json --ref DEAL-42'))[0].id;
  const card = await screens(`hedges ${id} --watch 1 --count 1`.split(' '));
  const labels = (lines: string[]) => lines.map((line) => /^(\S+(?: \S+)*?) {2}/.exec(line)?.[1]).filter(Boolean);
  for (const [cols, lines] of card.at) expect(labels(lines), `${cols}`).toEqual(labels(card.wide));
});

// ---- the stand-in checked against a real terminal --------------------------------------------------

it.each([
  { args: ['hedges'], cols: 60 },
  { args: 'positions --watch 1 --count 1'.split(' '), cols: 120 },
])(
  'on a real terminal (a pseudo-terminal: its width read from the terminal itself): $args at $cols columns: the tables and notes the in-process screens are read from',
  async ({ args, cols }) => {
    const [real, drawn] = await Promise.all([screenOf(args, cols, true), screenOf(args, cols)]);
    const shape = (lines: string[]) =>
      tablesOf(lines).map(({ headers, hidden, shortened }) => ({ headers, hidden, shortened }));
    expect(shape(real), real.join('\n')).toEqual(shape(drawn));
    expect(shape(real).length).toBeGreaterThan(0);
  },
);

it('a forced terminal on a pipe (HEDGE_FORCE_TTY=1, as through `less -R`): positions --watch is laid out and drawn at COLUMNS, not at the 80 a sizeless stream would give', async () => {
  const args = 'positions --watch 1 --count 1'.split(' ');
  const result = ok(await simulator.hedge(args, { env: { ...simulator.env, HEDGE_FORCE_TTY: '1', COLUMNS: '120' } }));
  const piped = stripVTControlCharacters(result.stdout).split('\n');
  // The headings and rules: the rows' times left move between the two runs.
  const wideLines = (await screenOf(args, 120)).filter((line) => stringWidth(line.trimEnd()) > 80 && !/\d/.test(line));
  expect(wideLines.length).toBeGreaterThan(0);
  for (const line of wideLines) expect(piped.map((text) => text.trimEnd())).toContain(line.trimEnd());
});
