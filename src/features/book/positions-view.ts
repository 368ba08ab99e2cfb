// How `hedge positions` shows a side's live hedges under its row, fitted to the width, and a
// `settling:` line when the side's views disagree. Renders only.
import type { ChalkInstance } from 'chalk';
import { formatMoney, readNumber } from '../../core/number-format.js';
import { safeText } from '../../core/security/safe-text.js';
import { colorStatus } from '../../platform/terminal/cells.js';
import { formatTimeLeft, formatUtc } from '../../platform/terminal/format.js';
import { utcMinute } from '../../core/utc-text.js';
import { drawLoadedTable, tableCell as cell, type TableColumn } from '../../platform/terminal/table.js';
import { displayWidth, wrapWords } from '../../platform/terminal/width.js';

/** A side's book, as the rows under its line show it. */
export interface SideView {
  state: string;
  why?: string;
  hedges: ReadonlyArray<{
    id: string;
    status: string;
    client_reference?: string | null;
    notional_usd?: unknown;
    maturity_at?: string | null;
  }>;
}

const BRANCH = '  └ ';

// The reference under the lists' name: the Table keeps it whole where the desk's parts leave room.
const PARTS = ['id', 'client_reference', 'notional', 'status', 'left', 'maturity'] as const;
const PART_PRIORITY = 'id notional left client_reference status maturity'.split(' ');
const PART_NAMES: Record<string, string> = { client_reference: 'reference', left: 'time left' };

/** The lines under each side's row, laid out once: `sides[i]` is the side of row i (undefined: nothing under it), each line a table section placed before row i + 1 (under the last row for the last); `parts`, what a hedge's line shows at this width, in its order (for the note that names them: never a part left out). */
export function sideLines(
  sides: ReadonlyArray<SideView | undefined>,
  options: { width: number; chalk: ChalkInstance; nowMs: number },
) {
  const { chalk: c, width } = options;
  const hedges = sides.flatMap((side) => side?.hedges ?? []);
  const cells = hedges.map((hedge) => {
    const amount = readNumber(hedge.notional_usd);
    const maturity = typeof hedge.maturity_at === 'string' ? safeText(hedge.maturity_at) : undefined;
    // Only a filled hedge counts down to a settlement; one being opened has no maturity to speak of yet.
    const left = maturity !== undefined && hedge.status === 'filled' ? formatTimeLeft(maturity, options.nowMs) : '';
    return {
      id: safeText(hedge.id),
      client_reference: hedge.client_reference ? safeText(hedge.client_reference) : c.dim('—'),
      notional: amount === undefined ? '' : `${formatMoney(amount)} USD`,
      status: colorStatus(c, safeText(hedge.status)),
      left: left === 'due' ? c.yellow(left) : left,
      maturity: maturity === undefined ? '' : formatUtc(maturity, utcMinute),
    };
  });
  // One table of every hedge, without headers, so that their lines align down it; a part no hedge has (no maturity yet: all being opened) takes no room.
  const columns = PARTS.map((part): TableColumn => ({
    key: part,
    header: '',
    align: part === 'notional' || part === 'left' ? 'right' : 'left',
    ...(part === 'client_reference' && { shrink: 'end', minWidth: 8 }),
    cells: cells.map((parts) => cell(parts[part])),
  })).filter((column) => column.cells.some((shown) => shown.width > 0));
  const { text, hidden } = drawLoadedTable({
    columns,
    priority: PART_PRIORITY,
    rowCount: hedges.length,
    headless: true,
    width: Math.max(1, width - displayWidth(BRANCH)),
    chalk: c,
  });
  const lines = text.split('\n');
  const sections = sides.flatMap((side, index) => {
    if (!side) return [];
    return [
      ...(side.state === 'settling' ? settlingLines(side.why, width, c, '  ') : []),
      // The table's lines in the order of the hedges.
      ...side.hedges.map(() => c.dim(BRANCH) + lines.shift()),
    ].map((line) => ({ before: index + 1, line }));
  });
  const parts = columns.flatMap(({ key }) => (hidden.includes(key) ? [] : [PART_NAMES[key] ?? key]));
  return { sections, parts };
}

/** Why a side is settling, in the side model's words, under what it is about: the point of the line, so wrapped to the
 * width, never cut. */
export const settlingLines = (why: string | undefined, width: number, c: ChalkInstance, indent = '') =>
  wrapWords(`${indent}${c.yellow('settling:')} ${safeText(why ?? 'its views disagree')}`, width, {
    hangingIndent: indent.length + 2,
  }).split('\n');

/** The sentence a script reads on stderr for a side whose views disagree. */
export function settlingSentence({ market, side, why }: { market: string; side: string; why?: string }) {
  return `The ${safeText(side)} side of ${safeText(market)} is settling: ${safeText(why ?? 'its views disagree')}.`;
}
