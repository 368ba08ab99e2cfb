// The one Table every terminal table goes through (lists, maturities, plan, report, watch).
import type { ChalkInstance } from 'chalk';
import { safeText } from '../../core/security/safe-text.js';
import { plural } from '../../core/number-format.js';
import { NUMERIC_KINDS, type FieldKind } from '../fields/fields.js';
import { displayWidth, shortenLongWords, shortenMiddle, truncateEnd, wrapWords } from './width.js';

/** A value as shown: its text with colour, and the columns it takes (measured once). */
export type TableCell = ReturnType<typeof tableCell>;

export const EMPTY_CELL = { styled: '', width: 0 };

export function tableCell(styled: string) {
  return { styled, width: displayWidth(styled) };
}

export interface TableColumn {
  key: string;
  header: string;
  align: 'left' | 'right';
  /** How a cell is cut when the column gets less than it needs: `middle` keeps the start and the end (ids, hashes), `end` cuts with … (text), `wrap` breaks free text at its spaces onto more lines of its row (a reason: never cut mid-word). */
  shrink?: 'middle' | 'end' | 'wrap';
  /** The narrowest a column that shrinks may be cut to. */
  minWidth?: number;
  cells: readonly TableCell[];
  /** The cells in a narrower form (a time without its "(in 2d 3h)"), shown when the column gets less than its whole width: a column the desk decides on may be kept that way (`TableInput.decisive`). */
  compact?: readonly TableCell[];
  money?: boolean;
  drawn?: { width: number; minWidth: number; draw(row: number, width: number): string };
}

export interface TableInput {
  columns: readonly TableColumn[];
  priority: readonly string[];
  decisive?: number;
  rowCount: number;
  totals?: { label: string; shortLabel?: string; cells: readonly TableCell[] };
  sections?: ReadonlyArray<{ before: number; line: string }>;
  width: number;
  chalk: ChalkInstance;
  /** Where what the width left out can be read: the drawing's `leftOut` note ends with it. */
  seeAlso?: string;
  /** Rows alone, without the headers and their rule (lines aligned under another table's row). */
  headless?: boolean;
}

/** How a field's column aligns, shortens and counts, in every list and on the watch screen alike: an id or hash shortened in the middle, text cut with … (unless read `whole`), free text (`wrap`) broken at its spaces, an amount kept before an id whole. */
export function kindColumn(kind: FieldKind | undefined, how?: 'wrap' | 'whole') {
  const shrink =
    how === 'wrap'
      ? 'wrap'
      : kind === 'id' || kind === 'hash'
        ? 'middle'
        : (kind === 'text' || kind === 'json') && how !== 'whole'
          ? 'end'
          : undefined;
  return {
    align: kind !== undefined && NUMERIC_KINDS.has(kind) ? 'right' : 'left',
    shrink,
    // A text column may be cut to 10 (with …) before columns are hidden.
    minWidth: shrink === 'end' ? 10 : undefined,
    money: kind === 'money' || kind === 'pnl' || kind === 'charge',
  } as const;
}

const COLUMN_GAP = 2;

export interface ColumnNeed {
  key: string;
  width: number;
  minWidth: number;
  /** The narrowest it reads whole, kept for the desk's columns and amounts: a header on two lines, compact cells, an id shortened in the middle. */
  tightWidth?: number;
  money?: boolean;
  /** Whether it gains from any column more (text cut with … shows more of itself), rather than only from its whole width (an id shortened in the middle, a header on two lines, compact cells); by default, when it shrinks (`minWidth` below `width`) and is no id. */
  growsPartly?: boolean;
  fills?: boolean;
  wholeWhenRoom?: boolean;
}

/** Which columns fit in `available` columns, and how wide each gets. */
export function fitColumns(needs: readonly ColumnNeed[], priority: readonly string[], available: number, decisive = 0) {
  // Column indexes, most important first: those `priority` names in its order, then the others left to right.
  const named = priority.map((key) => needs.findLastIndex((need) => need.key === key)).filter((index) => index >= 0);
  const order = [...new Set([...named, ...needs.keys()])];
  const decisiveKeys = new Set(priority.slice(0, Math.max(0, decisive)));
  // The last place in `order` of a column the desk decides on.
  const lastDecisive = order.findLastIndex((index) => decisiveKeys.has(needs[index].key));
  // A reference's width once decided (whole or cut): it holds at every later stage.
  const chosen = new Map<number, number>();
  /** The narrowest column `index` may be while the column at place `stage` of `order` is being taken: narrower widths hold while the desk's columns, or an amount, are being taken — never for another column of the rest. */
  const floor = (index: number, stage: number) => {
    const { width, minWidth, tightWidth = width } = needs[index];
    const narrows = stage <= lastDecisive || needs[order[stage]].money === true;
    return chosen.get(index) ?? Math.min(width, minWidth, narrows ? tightWidth : width);
  };
  /** The sum of the first `count` columns' floors and their gaps, at the stage of the last of them. */
  const used = (count: number) =>
    order.slice(0, count).reduce((sum, index) => sum + floor(index, count - 1), COLUMN_GAP * (count - 1));
  /** How many columns of `order` are kept: the first whatever the width, then each while all fit. */
  const admitted = () => {
    let count = Math.min(1, order.length);
    while (count < order.length && used(count + 1) <= available) count++;
    return count;
  };
  // Each reference, most important first: whole when the desk's columns still fit beside it, else as wide as they leave it.
  for (const [at, index] of order.entries()) {
    const need = needs[index];
    if (need.wholeWhenRoom !== true) continue;
    chosen.set(index, floor(index, at));
    const cut = admitted();
    // Not kept even cut: nothing to decide (its width is never read).
    if (cut <= at) break;
    chosen.set(index, need.width);
    // Whole, if every column up to the last the desk decides on that fits beside it cut still fits.
    const horizon = Math.min(cut, Math.max(at, lastDecisive) + 1);
    if (admitted() >= horizon) continue;
    const narrowest = Math.min(need.width, need.minWidth);
    // No desk's column after it: cut, and the columns after it may come in (room left comes back to it). Else as
    // wide as the desk's columns leave it: a column of the rest never cuts it further.
    chosen.set(index, narrowest);
    if (at <= lastDecisive)
      chosen.set(index, Math.max(narrowest, Math.min(need.width, available - used(horizon) + narrowest)));
  }
  const count = admitted();
  const widths = new Map(order.slice(0, count).map((index) => [index, floor(index, count - 1)]));
  // The first column alone, wider than the terminal: cut to it.
  if (count === 1 && widths.get(order[0])! > available) widths.set(order[0], Math.max(1, available));
  // Room left (none when the first column was cut to the terminal: its floor is wider) goes first to text cut with … (any column more shows more of it), then — only whole: a little wider, they gain nothing — to an id shortened in the middle, a header on two lines, compact cells; what is left, to a drawn column (a bar).
  let spare = available - used(count);
  for (const pass of ['cut text', 'whole', 'drawn'])
    for (const [index, width] of widths) {
      const need = needs[index];
      const short = need.width - width;
      const kind = need.fills ? 'drawn' : (need.growsPartly ?? need.minWidth < need.width) ? 'cut text' : 'whole';
      if (short <= 0 || kind !== pass || spare <= 0) continue;
      const grow = short <= spare ? short : kind === 'whole' ? 0 : spare;
      widths.set(index, width + grow);
      spare -= grow;
    }
  return {
    kept: [...needs.keys()].flatMap((index) => (widths.has(index) ? [{ index, width: widths.get(index)! }] : [])),
    hidden: [...needs.keys()].filter((index) => !widths.has(index)),
  };
}

/** The narrowest a text can be on at most two lines, broken at its spaces (the header `Notional USD` → `Notional` over `USD`: 8): never narrower than its longest word. */
function widthOnTwoLines(text: string) {
  const whole = displayWidth(text);
  let width = Math.max(0, ...text.split(' ').map(displayWidth));
  for (; width < whole; width++) if (wrapWords(text, width).split('\n').length <= 2) return width;
  return whole;
}

type Row = import('cli-table3').HorizontalTableRow;

/** The table fitted to `input.width`, drawn synchronously once a screen's output has loaded cli-table3 (`loadTableDrawer`), a block of rows at a time: the text (no line wider than the width, trailing spaces trimmed), the columns it had to hide, the ids it shortened and what the width left out, named. */
export function drawLoadedTable(input: TableInput) {
  const c = input.chalk;
  const needs = columnNeeds(input);
  const fit = fitColumns(needs, input.priority, input.width, input.decisive);
  const kept = fit.kept.map(({ index, width }) => {
    const column = input.columns[index];
    // A column narrower than its whole width shows its compact cells, where it has them.
    const narrow = width < needs[index].width;
    return { index, column, width, narrow, cells: (narrow && column.compact) || column.cells };
  });
  const rule = kept.map(({ width }) => c.dim('─'.repeat(width)));
  // Columns joined by a space of padding and a blank border: a cell spanning columns gets their gaps too.
  const options = {
    chars: NO_BORDERS,
    style: { head: [], border: [], 'padding-left': 0, 'padding-right': COLUMN_GAP - 1, compact: true },
    colWidths: kept.map(({ width }) => width + COLUMN_GAP - 1),
    colAligns: kept.map(({ column }) => column.align),
    wordWrap: false,
  };
  const lines: string[] = [];
  // cli-table3 lays each cell out against every cell drawn before it in the same table: each row is a table of its
  // own (the same lines), so a long list costs in proportion to its rows.
  const add = (...rows: Row[]) => {
    for (const row of rows) {
      const table = new Table!(options);
      table.push(row);
      lines.push(...table.toString().split('\n'));
    }
  };
  const sections = (input.sections ?? []).toSorted((a, b) => a.before - b.before);
  const sectionsUpTo = (index: number) => {
    while (sections.length && sections[0].before <= index) lines.push(truncateEnd(sections.shift()!.line, input.width));
  };
  // The headers, each on as many lines as its width needs, at the bottom of the header row (a unit under its label).
  if (!input.headless)
    add(
      kept.map(({ column, width }) => ({
        content: wrapWords(column.header, width)
          .split('\n')
          .map((line) => c.bold(truncateEnd(line, width)))
          .join('\n'),
        vAlign: 'bottom' as const,
      })),
      rule,
    );
  for (let index = 0; index < input.rowCount; index++) {
    sectionsUpTo(index);
    add(
      kept.map(({ column, width, cells }) =>
        column.drawn ? column.drawn.draw(index, width) : fittedCell(cells[index], column, width),
      ),
    );
  }
  // The totals close the rows' last block, under a rule; lines under the last row (a side's hedges under its positions line) come after them.
  const { totals } = input;
  if (totals && kept.length) {
    // The label spans the first columns whose totals are empty (the first column may be hidden).
    const cells = kept.map(({ index, column, width }) => {
      const cell = totals.cells[index];
      return cell?.width ? c.bold(fittedCell(cell, column, width).split('\n')[0]) : '';
    });
    let span = 1;
    while (span < cells.length && cells[span] === '') span += 1;
    const room = kept.slice(0, span).reduce((sum, { width }) => sum + width + COLUMN_GAP, -COLUMN_GAP);
    const label =
      [totals.label, totals.shortLabel ?? totals.label].find((text) => displayWidth(text) <= room) ??
      truncateEnd(totals.label.split(' ')[0], room);
    add(rule, [{ content: c.bold(label), colSpan: span, hAlign: 'left' }, ...cells.slice(span)]);
  }
  sectionsUpTo(Infinity);
  const hidden = fit.hidden.map((index) => input.columns[index].key);
  // An id or hash drawn narrower than its widest value: shortened on screen.
  const shortened = kept
    .filter(({ column, narrow }) => column.shrink === 'middle' && narrow)
    .map(({ column }) => column.key);
  // What the table left out, named on one line of at most the width (the README's promise): every name where they fit,
  // else the most important and how many more, and where to see them; field names may be the server's: shown escaped,
  // as its values are.
  const { width, seeAlso } = input;
  let leftOut: string | undefined;
  if (seeAlso !== undefined && (hidden.length || shortened.length)) {
    // The hidden columns most important first (a stable sort), as the width would bring them back.
    const rank = (key: string) => (input.priority.includes(key) ? input.priority.indexOf(key) : Infinity);
    const ranked = hidden.toSorted((a, b) => rank(a) - rank(b));
    const names = (keys: readonly string[]) => keys.map(safeText).join(', ');
    const see = ` — see ${seeAlso}.`;
    const whole = [
      ranked.length && `Hidden at ${width} columns: ${names(ranked)}`,
      shortened.length && `${ranked.length ? 'shortened' : `Shortened at ${width} columns`}: ${names(shortened)}`,
    ].filter(Boolean);
    const candidates = [`${whole.join('; ')}${see}`];
    // Too long: the hidden columns alone (an id shortened in the middle shows its … on screen), as many as fit.
    for (let count = ranked.length; count >= 1; count--)
      for (const head of [`Hidden at ${width} columns: `, 'Hidden: '])
        candidates.push(
          `${head}${names(ranked.slice(0, count))}${count < ranked.length ? `, +${ranked.length - count} more` : ''}${see}`,
        );
    // Narrower still: how many, and where to see them (the first place alone, last).
    if (ranked.length)
      candidates.push(
        `Hidden: ${plural(ranked.length, 'column')}${see}`,
        `Hidden: ${plural(ranked.length, 'column')} — see ${seeAlso.split(/,? or /)[0]}.`,
      );
    leftOut = candidates.find((line) => displayWidth(line) <= width) ?? truncateEnd(candidates.at(-1)!, width);
  }
  return {
    text: kept.length ? lines.map((line) => line.trimEnd()).join('\n') : '',
    hidden,
    shortened,
    ...(leftOut !== undefined && { leftOut }),
  };
}

/** Each column's need, measured when fitColumns first reads a width: a column past the first that does not fit is never measured. */
function columnNeeds(input: TableInput) {
  return input.columns.map((column, index) => {
    let measured: ReturnType<typeof measure> | undefined;
    const need = {
      key: column.key,
      // The deal reference (fields/resource-fields.ts): a desk reads it whole where the terminal has room; other text may still be cut for columns.
      wholeWhenRoom: column.shrink === 'end' && column.key === 'client_reference',
      money: column.money,
      fills: column.drawn !== undefined,
    };
    for (const name of ['width', 'minWidth', 'tightWidth', 'growsPartly'] as const)
      Object.defineProperty(need, name, { get: () => (measured ??= measure())[name] });
    return need as ColumnNeed;
    function measure() {
      const headerWidth = displayWidth(column.header);
      // The totals label stands in the first column, which makes room for it (when that column is hidden, the label is drawn across the first columns shown whose totals are empty).
      const totalsWidth =
        (index ? input.totals?.cells[index]?.width : input.totals && displayWidth(input.totals.label)) ?? 0;
      const cellsWidth = Math.max(widest(column.cells, column.drawn?.width ?? 0), totalsWidth);
      const width = Math.max(headerWidth, cellsWidth);
      // Wrapped text (a reason): every word whole (never cut inside one), each value on two lines where that takes no more than 20.
      const least =
        column.drawn?.minWidth ??
        column.minWidth ??
        (column.shrink === 'wrap'
          ? Math.max(
              ...column.cells.flatMap((cell) => cell.styled.split(' ').map(displayWidth)),
              Math.min(20, Math.max(0, ...column.cells.map((cell) => widthOnTwoLines(cell.styled)))),
            )
          : undefined);
      const minWidth = least === undefined ? width : Math.max(headerWidth, least);
      // For the desk's columns: the header on two lines, the cells in their compact form.
      const content = Math.min(
        cellsWidth,
        least ?? cellsWidth,
        column.compact ? widest(column.compact, totalsWidth) : width,
      );
      // The header on at most 2 lines (the label over its unit: `Notional` over `USD`); an id shortened in the middle: never below its header on one line, nor 12 columns (`hdg_0mw…f1qp`: the prefix people type and the end that tells ids made the same minute apart).
      const tight = Math.min(
        Math.max(widthOnTwoLines(column.header), content),
        column.shrink === 'middle' ? Math.max(headerWidth, Math.min(cellsWidth, 12)) : Infinity,
      );
      const tightWidth = tight < minWidth ? tight : undefined;
      return {
        width,
        minWidth,
        tightWidth,
        // Text shows more with any column more; an id shortened in the middle, a header or compact cells only once whole; a drawn column takes what is left.
        growsPartly: (column.shrink === 'end' || column.shrink === 'wrap') && (tightWidth ?? minWidth) < cellsWidth,
      };
    }
  });
}

const widest = (cells: readonly TableCell[], from: number) =>
  cells.reduce((most, cell) => (cell.width > most ? cell.width : most), from);

/** A cell at its column's width: whole, shortened in the middle or cut at its end, as the column says; free text on lines broken at its spaces, a word wider than the column alone cut with … (never broken across lines). */
function fittedCell(cell: TableCell | undefined, column: TableColumn, width: number) {
  if (cell === undefined) return '';
  if (cell.width <= width) return cell.styled;
  if (column.shrink === 'wrap')
    return wrapWords(
      cell.styled
        .split(' ')
        .map((word) => truncateEnd(word, width))
        .join(' '),
      width,
    );
  return column.shrink === 'middle' ? shortenMiddle(cell.styled, width) : truncateEnd(cell.styled, width);
}

/** cli-table3, once loaded: a card is drawn synchronously (`drawCard`), so a screen's output loads it first (`loadTableDrawer`). */
let Table: typeof import('cli-table3') | undefined;

const NO_BORDERS = {
  ...Object.fromEntries(
    'top top-mid top-left top-right bottom bottom-mid bottom-left bottom-right left left-mid mid mid-mid right right-mid'
      .split(' ')
      .map((name) => [name, '']),
  ),
  middle: ' ',
};

/** Loads cli-table3, for the synchronous drawers (a card, a screen redrawn in place). */
export async function loadTableDrawer() {
  Table = (await import('cli-table3')).default;
}

export async function drawTable(input: TableInput) {
  await loadTableDrawer();
  return drawLoadedTable(input);
}

/** A card: one record's label/value pairs (formatted for people; a value may hold its own line breaks) as a two-column table at most `columns` wide, each wrapped at its words inside its column. */
export function drawCard(
  rows: ReadonlyArray<readonly [string, string]>,
  options: { columns: number; chalk: ChalkInstance; title?: string },
) {
  const { columns, chalk: c } = options;
  // Less the card's borders and padding: `│ label │ value │`.
  const room = columns - 7;
  const most = (texts: string[]) => Math.max(1, ...texts.map(displayWidth));
  const [labels, values] = [0, 1].map((at) => rows.map((row) => row[at]));
  // The widest word of the texts: the narrowest they wrap to whole.
  const [labelWord, valueWord] = [labels, values].map((texts) => most(texts.join(' ').split(/[ \n]/)));
  const valueNeed = most(values.join('\n').split('\n'));
  // Labels take what they need when values leave room, else at most a third, but never less than their
  // longest word while it fits; then less, to the same floor, so that the values' longest word (a URL) fits.
  const labelRoom = Math.max(Math.floor(room / 3), room - valueNeed, Math.min(labelWord, room - 1));
  const labelWidth = Math.max(1, Math.min(most(labels), labelRoom, Math.max(labelWord, room - valueWord)));
  const valueWidth = Math.max(1, Math.min(valueNeed, room - labelWidth));
  // A word wider than its column is shortened in the middle, never broken across lines.
  const fitted = (text: string, width: number) =>
    text
      .split('\n')
      .map((line) => wrapWords(shortenLongWords(line, width), width))
      .join('\n');
  const card = new Table!({
    style: { head: [], border: [], compact: true },
    colWidths: [labelWidth + 2, valueWidth + 2],
    wordWrap: false,
  });
  card.push(...rows.map(([label, value]) => [c.dim(fitted(label, labelWidth)), fitted(value, valueWidth)]));
  const box = card.toString();
  return options.title ? `${c.bold(wrapWords(options.title, columns))}\n${box}` : box;
}
