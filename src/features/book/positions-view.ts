// How `hedge positions` shows a side's live hedges under its row, fitted to the width, and a
// `settling:` line when the side's views disagree. Renders only.
import type { ChalkInstance } from 'chalk';
import { formatMoney, readNumber } from '../../core/number-format.js';
import { safeText } from '../../core/security/safe-text.js';
import { colorStatus } from '../../platform/terminal/cells.js';
import { formatTimeLeft, formatUtcMinutes } from '../../platform/terminal/format.js';
import { COLUMN_GAP, fitColumns, type ColumnNeed } from '../../platform/terminal/table.js';
import { displayWidth, truncateEnd, wrapWords } from '../../platform/terminal/width.js';

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

const PARTS = ['id', 'reference', 'notional', 'status', 'left', 'maturity'] as const;
type Part = (typeof PARTS)[number];
const PART_PRIORITY = ['id', 'notional', 'left', 'reference', 'status', 'maturity'];
const REFERENCE_MIN_WIDTH = 8;

function partsOf(hedge: SideHedgeView, options: SideLinesOptions) {
  const c = options.chalk;
  const cell = (styled: string, text = styled) => ({ styled, width: displayWidth(text) });
  const amount = readNumber(hedge.notional_usd);
  const maturity = typeof hedge.maturity_at === 'string' ? safeText(hedge.maturity_at) : undefined;
  const reference = hedge.client_reference ? safeText(hedge.client_reference) : undefined;
  const status = safeText(hedge.status);
  // Only a filled hedge counts down to a settlement; one being opened has no maturity to speak of yet.
  const left = maturity !== undefined && hedge.status === 'filled' ? formatTimeLeft(maturity, options.nowMs) : '';
  return {
    id: cell(safeText(hedge.id)),
    reference: reference === undefined ? cell(c.dim('—'), '—') : cell(reference),
    notional: cell(amount === undefined ? '' : `${formatMoney(amount)} USD`),
    status: cell(colorStatus(c, status), status),
    left: cell(left === 'due' ? c.yellow(left) : left, left),
    maturity: cell(maturity === undefined ? '' : `${formatUtcMinutes(maturity)} UTC`),
  };
}

/** The lines under each side's row, laid out once: `sides[i]` is the side of row i (undefined: nothing under it), each line a table section placed before row i + 1 (under the last row for the last); `parts`, what a hedge's line shows at this width, in its order (for the note that names them: never a part left out). */
export function sideLines(sides: Sides, options: SideLinesOptions) {
  const c = options.chalk;
  const hedges = sides.flatMap((side) => side?.hedges ?? []);
  const cells = new Map(hedges.map((hedge) => [hedge, partsOf(hedge, options)]));
  // One layout for every hedge of the table, so that their lines align down it.
  const needs: ColumnNeed[] = PARTS.map((part) => {
    const width = Math.max(0, ...[...cells.values()].map((parts) => parts[part].width));
    return part === 'reference'
      ? { key: part, width, minWidth: Math.min(width, REFERENCE_MIN_WIDTH), wholeWhenRoom: true }
      : { key: part, width, minWidth: width };
  });
  // A part no hedge has (no maturity yet: all being opened) takes no room.
  const present = needs.filter((need) => need.width > 0);
  const fit = fitColumns(present, PART_PRIORITY, Math.max(1, options.width - BRANCH_WIDTH));
  const kept = fit.kept.map(({ index, width }) => ({ part: present[index].key as Part, width }));
  const right = new Set<Part>(['notional', 'left']);
  const lineOf = (hedge: SideHedgeView) => {
    const parts = cells.get(hedge)!;
    const text = kept
      .map(({ part, width }) => {
        const { styled, width: used } = parts[part];
        const shown = truncateEnd(styled, width);
        const room = ' '.repeat(Math.max(0, width - used));
        return right.has(part) ? room + shown : shown + room;
      })
      .join(' '.repeat(COLUMN_GAP))
      .trimEnd();
    return c.dim(BRANCH) + text;
  };

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
    for (const hedge of side.hedges) sections.push({ before, line: lineOf(hedge) });
  });
  return { sections, parts: kept.map(({ part }) => (part === 'left' ? 'time left' : part)) };
}

/** The sentence a script reads on stderr for a side whose views disagree. */
export function settlingSentence(market: string, side: string, why: string | undefined) {
  return `The ${safeText(side)} side of ${safeText(market)} is settling: ${safeText(why ?? 'its views disagree')}.`;
}
