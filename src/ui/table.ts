// The one Table every terminal table goes through (lists, maturities, plan, report, watch). The
// layout is ours: which columns fit the terminal (one ordered list of priorities per resource, a
// prefix of it kept, so widening never hides a column a narrower terminal showed), how wide each
// is, and how a cell is shortened (an id in the middle, text at the end with …). The drawing is
// cli-table3's: cells padded and aligned, the columns joined, without borders — our look is a
// bold header over a dim rule, columns two spaces apart, a rule over a totals row.
//
// cli-table3 is the only library here and is loaded on first use (`--json`, tsv, csv and ndjson
// never load it). It lays a table out cell by cell against every cell above it (tens of µs a cell,
// growing with the rows): past LINE_DRAWN_AFTER_CELLS — several screens of rows — the same lines
// are put together here instead, one pass over the cells (test/unit/table.test.ts checks that
// the two drawings are the same, byte for byte).
import type { ChalkInstance } from 'chalk';
import { displayWidth, shortenMiddle, truncateEnd } from './width.js';

/** A value as shown: its text with colour, and the columns it takes (measured once). */
export interface TableCell {
  styled: string;
  width: number;
}

export const EMPTY_CELL: TableCell = { styled: '', width: 0 };

export function tableCell(styled: string): TableCell {
  return { styled, width: displayWidth(styled) };
}

export interface TableColumn {
  key: string;
  /** What the header says (made harmless by the caller); the table makes it bold. */
  header: string;
  align: 'left' | 'right';
  /**
   * How a cell is cut when the column gets less than it needs: `middle` keeps the start and the
   * end (ids, hashes), `end` cuts with … (text). Without it the column is kept whole or hidden.
   */
  shrink?: 'middle' | 'end';
  /** The narrowest a shrinkable column gets (its header's width at least). */
  minWidth?: number;
  /** One cell per row. */
  cells: readonly TableCell[];
  /**
   * A column drawn at the width it is given (a bar, a sparkline): the width it wants and the
   * narrowest it may get; `draw` makes the cell of a row at the final width.
   */
  drawn?: { width: number; minWidth: number; draw(row: number, width: number): string };
}

export interface TableInput {
  columns: readonly TableColumn[];
  /**
   * The resource's column keys, most important first. The columns kept are the longest prefix of
   * this list that fits the width (each at its narrowest); columns it does not name (fields the
   * server sent that nobody declared) come after it, in display order.
   */
  priority: readonly string[];
  rowCount: number;
  /** A totals row under a rule of its own: one cell per column (the label goes in the first column shown). */
  totals?: { label: string; cells: readonly TableCell[] };
  /**
   * Lines across the whole table before a row (maturities' day lines; `before` the row count: under
   * the last row), cut to the width.
   */
  sections?: ReadonlyArray<{ before: number; line: string }>;
  /** The terminal's width. */
  width: number;
  chalk: ChalkInstance;
}

export interface DrawnTable {
  text: string;
  /** Keys of the columns left out, in display order. */
  hidden: string[];
}

/** The deal reference's column (ui/resource-fields.ts): never cut where the terminal has room for it whole. */
const REFERENCE_KEY = 'client_reference';

/** Columns between two columns. */
export const COLUMN_GAP = 2;
/** Past this many cells the lines are put together here, not by cli-table3 (see the top of the file). */
export const LINE_DRAWN_AFTER_CELLS = 1_000;

// ---- layout --------------------------------------------------------------------------------

export interface ColumnNeed {
  key: string;
  /** What the column needs whole (its widest cell, header included). */
  width: number;
  /** What it may shrink to (its width when it does not shrink). */
  minWidth: number;
  /**
   * The reference: taken whole whenever the width has room for it whole, before any column
   * after it in priority — cut only where it does not fit whole (issue 40).
   */
  wholeWhenRoom?: boolean;
}

export interface ColumnFit {
  /** Kept columns in display order, with their widths. */
  kept: Array<{ index: number; width: number }>;
  /** Indexes of the hidden columns, in display order. */
  hidden: number[];
}

/**
 * Which columns fit in `available` columns, and how wide each gets. Columns are taken in priority
 * order (the order of `priority`, then the rest in display order), each at its narrowest, while
 * they fit: the first that does not ends the list, so the columns kept at one width are kept at
 * every wider one — except that text (`wholeWhenRoom`: a reference) is taken whole as soon as the
 * width has room for it whole, before the columns after it, so a reference is never cut where the
 * terminal has room (a column after it may then wait for a wider terminal). The first column is
 * kept whatever the width. Room left over goes back to shrunk columns, most important first.
 */
export function fitColumns(needs: readonly ColumnNeed[], priority: readonly string[], available: number, gap = COLUMN_GAP): ColumnFit {
  const order = importanceOrder(needs, priority);
  const widths = new Array<number | undefined>(needs.length);
  let used = 0;
  for (const index of order) {
    const need = needs[index]!;
    const narrowest = Math.min(need.width, need.minWidth);
    const whole = need.wholeWhenRoom === true && used + (used === 0 ? 0 : gap) + need.width <= available;
    const floor = whole ? need.width : narrowest;
    const add = (used === 0 ? 0 : gap) + floor;
    if (used > 0 && used + add > available) break;
    widths[index] = used === 0 ? Math.min(floor, Math.max(1, available)) : floor;
    used += used === 0 ? widths[index]! : add;
  }
  let spare = available - used;
  for (const index of order) {
    if (widths[index] === undefined || spare <= 0) continue;
    const grow = Math.min(spare, needs[index]!.width - widths[index]!);
    widths[index]! += grow;
    spare -= grow;
  }
  const kept: ColumnFit['kept'] = [];
  const hidden: number[] = [];
  needs.forEach((_, index) => (widths[index] === undefined ? hidden.push(index) : kept.push({ index, width: widths[index]! })));
  return { kept, hidden };
}

/** Column indexes, most important first: those `priority` names in its order, then the others left to right. */
function importanceOrder(needs: readonly ColumnNeed[], priority: readonly string[]): number[] {
  const position = new Map(needs.map((need, index) => [need.key, index]));
  const named = priority.flatMap((key) => (position.has(key) ? [position.get(key)!] : []));
  const seen = new Set(named);
  return [...new Set(named), ...needs.map((_, index) => index).filter((index) => !seen.has(index))];
}

// ---- drawing --------------------------------------------------------------------------------

/** The lines of the table: cells fitted, shortened and styled, ready to be drawn. */
interface Laid {
  widths: number[];
  aligns: Array<'left' | 'right'>;
  /** Blocks of rows drawn as one table each, with the line before each block after the first. */
  blocks: Array<{ line?: string; rows: string[][] }>;
  cellCount: number;
}

function layOut(input: TableInput): { laid: Laid; hidden: string[] } {
  const c = input.chalk;
  const measure = (column: TableColumn, index: number): Omit<ColumnNeed, 'key'> => {
    const headerWidth = displayWidth(column.header);
    let width = Math.max(headerWidth, column.drawn?.width ?? 0);
    for (const cell of column.cells) if (cell.width > width) width = cell.width;
    if (input.totals) {
      // The totals label stands in the first column shown: the first column makes room for it.
      width = Math.max(width, index === 0 ? displayWidth(input.totals.label) : (input.totals.cells[index]?.width ?? 0));
    }
    const shrinks = column.drawn !== undefined || column.shrink !== undefined;
    const minWidth = shrinks ? Math.max(headerWidth, column.drawn?.minWidth ?? column.minWidth ?? width) : width;
    return { width, minWidth };
  };
  // Measured when fitColumns reaches the column: those past the last that fits are hidden without
  // being measured, and their cells, made on first use by the caller (Output), never made.
  const needs: ColumnNeed[] = input.columns.map((column, index) => {
    let measured: Omit<ColumnNeed, 'key'> | undefined;
    const need = (): Omit<ColumnNeed, 'key'> => (measured ??= measure(column, index));
    return {
      key: column.key,
      // The deal reference: a desk reads it whole (issue 40); other text may still be cut for columns.
      wholeWhenRoom: column.shrink === 'end' && column.key === REFERENCE_KEY,
      get width() {
        return need().width;
      },
      get minWidth() {
        return need().minWidth;
      },
    };
  });
  const fit = fitColumns(needs, input.priority, input.width);
  const kept = fit.kept.map(({ index, width }) => ({ column: input.columns[index]!, width }));

  const fitted = (cell: TableCell | undefined, column: TableColumn, width: number): string => {
    if (cell === undefined) return '';
    if (cell.width <= width) return cell.styled;
    return column.shrink === 'middle' ? shortenMiddle(cell.styled, width) : truncateEnd(cell.styled, width);
  };
  const header = kept.map(({ column, width }) => c.bold(fitted(tableCell(column.header), column, width)));
  const rule = kept.map(({ width }) => c.dim('─'.repeat(width)));
  const row = (index: number): string[] =>
    kept.map(({ column, width }) => (column.drawn ? column.drawn.draw(index, width) : fitted(column.cells[index], column, width)));

  const sections = [...(input.sections ?? [])].sort((a, b) => a.before - b.before);
  const blocks: Laid['blocks'] = [{ rows: [header, rule] }];
  let section = 0;
  for (let index = 0; index < input.rowCount; index++) {
    while (section < sections.length && sections[section]!.before <= index) {
      blocks.push({ line: truncateEnd(sections[section]!.line, input.width), rows: [] });
      section += 1;
    }
    blocks[blocks.length - 1]!.rows.push(row(index));
  }
  // The totals close the rows' last block; lines under the last row (a side's hedges under its
  // positions line) come after them.
  const lastRows = blocks[blocks.length - 1]!;
  for (; section < sections.length; section++) blocks.push({ line: truncateEnd(sections[section]!.line, input.width), rows: [] });
  if (input.totals && kept.length > 0) {
    const totals = input.totals;
    const cells = kept.map(({ column, width }, at) => {
      const original = input.columns.indexOf(column);
      // The label stands in the first column shown, whichever that is.
      const cell = at === 0 ? tableCell(totals.label) : totals.cells[original];
      return cell === undefined || cell.width === 0 ? '' : c.bold(fitted(cell, column, width));
    });
    lastRows.rows.push(rule, cells);
  }
  return {
    laid: {
      widths: kept.map(({ width }) => width),
      aligns: kept.map(({ column }) => column.align),
      blocks,
      cellCount: blocks.reduce((sum, block) => sum + block.rows.length, 0) * kept.length,
    },
    hidden: fit.hidden.map((index) => input.columns[index]!.key),
  };
}

type CliTable3 = typeof import('cli-table3');
let cliTable3: CliTable3 | undefined;

/** Loads cli-table3 once; every draw after it is synchronous. */
async function loadCliTable3(): Promise<CliTable3> {
  if (cliTable3 === undefined) {
    const loaded = (await import('cli-table3')) as unknown as { default?: CliTable3 };
    cliTable3 = loaded.default ?? (loaded as unknown as CliTable3);
  }
  return cliTable3;
}

// No borders: only the two spaces between columns. The rules are rows of their own.
const NO_BORDERS = {
  top: '',
  'top-mid': '',
  'top-left': '',
  'top-right': '',
  bottom: '',
  'bottom-mid': '',
  'bottom-left': '',
  'bottom-right': '',
  left: '',
  'left-mid': '',
  mid: '',
  'mid-mid': '',
  right: '',
  'right-mid': '',
  middle: ' '.repeat(COLUMN_GAP),
};

function drawWithCliTable3(Table: CliTable3, laid: Laid): string[] {
  const lines: string[] = [];
  for (const block of laid.blocks) {
    if (block.line !== undefined) lines.push(block.line);
    if (block.rows.length === 0) continue;
    const table = new Table({
      chars: NO_BORDERS,
      style: { head: [], border: [], 'padding-left': 0, 'padding-right': 0, compact: true },
      colWidths: laid.widths,
      colAligns: laid.aligns,
      wordWrap: false,
    });
    table.push(...block.rows);
    lines.push(...table.toString().split('\n'));
  }
  return lines;
}

/** The same lines as cli-table3 draws them, put together in one pass (for long tables). */
function drawLines(laid: Pick<Laid, 'widths' | 'aligns' | 'blocks'>): string[] {
  const gap = ' '.repeat(COLUMN_GAP);
  const lines: string[] = [];
  for (const block of laid.blocks) {
    if (block.line !== undefined) lines.push(block.line);
    for (const cells of block.rows) {
      let line = '';
      for (let index = 0; index < cells.length; index++) {
        const cell = cells[index]!;
        const room = ' '.repeat(Math.max(0, laid.widths[index]! - displayWidth(cell)));
        if (index > 0) line += gap;
        line += laid.aligns[index] === 'right' ? room + cell : cell + room;
      }
      lines.push(line);
    }
  }
  return lines;
}

/** Draws a table synchronously (cli-table3 already loaded): for a screen redrawn in place (`--watch`). */
export type TableDrawer = (input: TableInput) => DrawnTable;

function finish(lines: string[], hidden: string[]): DrawnTable {
  return { text: lines.map((line) => line.trimEnd()).join('\n'), hidden };
}

/** cli-table3 loaded, and a drawer that uses it (past LINE_DRAWN_AFTER_CELLS, the lines are put together here). */
export async function loadTableDrawer(): Promise<TableDrawer> {
  const Table = await loadCliTable3();
  return (input) => {
    const { laid, hidden } = layOut(input);
    if (laid.widths.length === 0) return finish([], hidden);
    return finish(laid.cellCount <= LINE_DRAWN_AFTER_CELLS ? drawWithCliTable3(Table, laid) : drawLines(laid), hidden);
  };
}

/**
 * The table fitted to `input.width`: the text (no line wider than the width, trailing spaces
 * trimmed) and the columns it had to hide. cli-table3 is loaded on the first table that needs it.
 */
export async function drawTable(input: TableInput): Promise<DrawnTable> {
  const { laid, hidden } = layOut(input);
  if (laid.widths.length === 0) return finish([], hidden);
  if (laid.cellCount > LINE_DRAWN_AFTER_CELLS) return finish(drawLines(laid), hidden);
  return finish(drawWithCliTable3(await loadCliTable3(), laid), hidden);
}

/** One drawing or the other, whatever the size (test/unit/table.test.ts compares them). */
export async function drawTableWith(input: TableInput, drawer: 'cli-table3' | 'lines'): Promise<DrawnTable> {
  const { laid, hidden } = layOut(input);
  if (laid.widths.length === 0) return finish([], hidden);
  return finish(drawer === 'lines' ? drawLines(laid) : drawWithCliTable3(await loadCliTable3(), laid), hidden);
}
