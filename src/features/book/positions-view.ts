// How `hedge positions` shows a side's live hedges under its row, fitted to the width, and a
// `settling:` line when the side's views disagree. Renders only.
import type { ChalkInstance } from 'chalk';
import { formatMoney, readNumber } from '../../core/number-format.js';
import { safeText } from '../../core/security/safe-text.js';
import { colorStatus } from '../../platform/terminal/cells.js';
import { formatTimeLeft, formatUtcMinutes } from '../../platform/terminal/format.js';
import { drawLoadedTable, tableCell as cell, type TableColumn } from '../../platform/terminal/table.js';
import { displayWidth, wrapWords } from '../../platform/terminal/width.js';

interface SideHedgeView {
  id: string;
  status: string;
  client_reference?: string | null;
  notional_usd?: unknown;
  maturity_at?: string | null;
}

/** A side's book, as the rows under its line show it. */
export interface SideView {
  state: string;
  why?: string;
  hedges: readonly SideHedgeView[];
}

type Sides = ReadonlyArray<SideView | undefined>;

interface SideLinesOptions {
  width: number;
  chalk: ChalkInstance;
  nowMs: number;
}

const BRANCH = '  └ ';
const BRANCH_WIDTH = displayWidth(BRANCH);
const NOTE_INDENT = 2;

// The reference under the lists' name: the Table keeps it whole where the desk's parts leave room.
const PARTS = ['id', 'client_reference', 'notional', 'status', 'left', 'maturity'] as const;
const PART_PRIORITY = ['id', 'notional', 'left', 'client_reference', 'status', 'maturity'];
const PART_NAMES: Record<string, string> = { client_reference: 'reference', left: 'time left' };
const REFERENCE_MIN_WIDTH = 8;

function partsOf(hedge: SideHedgeView, options: SideLinesOptions) {
  const c = options.chalk;
  const amount = readNumber(hedge.notional_usd);
  const maturity = typeof hedge.maturity_at === 'string' ? safeText(hedge.maturity_at) : undefined;
  const reference = hedge.client_reference ? safeText(hedge.client_reference) : undefined;
  const status = safeText(hedge.status);
  // Only a filled hedge counts down to a settlement; one being opened has no maturity to speak of yet.
  const left = maturity !== undefined && hedge.status === 'filled' ? formatTimeLeft(maturity, options.nowMs) : '';
  return {
    id: cell(safeText(hedge.id)),
    client_reference: reference === undefined ? cell(c.dim('—')) : cell(reference),
    notional: cell(amount === undefined ? '' : `${formatMoney(amount)} USD`),
    status: cell(colorStatus(c, status)),
    left: cell(left === 'due' ? c.yellow(left) : left),
    maturity: cell(maturity === undefined ? '' : `${formatUtcMinutes(maturity)} UTC`),
  };
}

/** The lines under each side's row, laid out once: `sides[i]` is the side of row i (undefined: nothing under it), each line a table section placed before row i + 1 (under the last row for the last); `parts`, what a hedge's line shows at this width, in its order (for the note that names them: never a part left out). */
export function sideLines(sides: Sides, options: SideLinesOptions) {
  const c = options.chalk;
  const hedges = sides.flatMap((side) => side?.hedges ?? []);
  const cells = hedges.map((hedge) => partsOf(hedge, options));
  // One table of every hedge, without headers, so that their lines align down it; a part no hedge has (no maturity yet: all being opened) takes no room.
  const columns = PARTS.map((part): TableColumn => {
    const shown = cells.map((parts) => parts[part]);
    return part === 'client_reference'
      ? { key: part, header: '', align: 'left', shrink: 'end', minWidth: REFERENCE_MIN_WIDTH, cells: shown }
      : { key: part, header: '', align: part === 'notional' || part === 'left' ? 'right' : 'left', cells: shown };
  }).filter((column) => column.cells.some((cell) => cell.width > 0));
  const { text, hidden } = drawLoadedTable({
    columns,
    priority: PART_PRIORITY,
    rowCount: hedges.length,
    headless: true,
    width: Math.max(1, options.width - BRANCH_WIDTH),
    chalk: c,
  });
  const lines = new Map(text.split('\n').map((line, index) => [hedges[index], c.dim(BRANCH) + line]));
  const parts = columns.map((column) => column.key).filter((key) => !hidden.includes(key));

  const sections: Array<{ before: number; line: string }> = [];
  sides.forEach((side, index) => {
    if (!side) return;
    const before = index + 1;
    if (side.state === 'settling') {
      // Why the views disagree is the point of the line: wrapped to the width, never cut.
      const note = `${' '.repeat(NOTE_INDENT)}${c.yellow('settling:')} ${safeText(side.why ?? 'its views disagree')}`;
      for (const line of wrapWords(note, options.width, { hangingIndent: NOTE_INDENT + 2 }).split('\n'))
        sections.push({ before, line });
    }
    for (const hedge of side.hedges) sections.push({ before, line: lines.get(hedge)! });
  });
  return { sections, parts: parts.map((part) => PART_NAMES[part] ?? part) };
}

/** The sentence a script reads on stderr for a side whose views disagree. */
export function settlingSentence(market: string, side: string, why: string | undefined) {
  return `The ${safeText(side)} side of ${safeText(market)} is settling: ${safeText(why ?? 'its views disagree')}.`;
}
