// The note `hedge history` adds for a closed hedge whose notional changed while open: its P&L is
// the whole life's, the notional beside it may be only what it closed with.
import { formatUsd as usd } from '../../core/number-format.js';
import { safeText } from '../../core/security/safe-text.js';
import { NOTIONAL_MARK } from '../../platform/fields/resource-fields.js';
import type { HedgeSizes } from '../trade/hedge-sizes.js';

const RESIZED_MARK = '*';

/** Marks the notional of each row whose hedge was resized (`resized` by row); when any is, the other rows and the totals get a space instead, so that the column's figures stay aligned. */
export function markResized(
  rows: ReadonlyArray<Record<PropertyKey, unknown>>,
  resized: ReadonlyArray<boolean>,
  totals?: Record<PropertyKey, unknown>,
) {
  if (!resized.some(Boolean)) return;
  rows.forEach((row, index) => {
    row[NOTIONAL_MARK] = resized[index] ? RESIZED_MARK : ' ';
  });
  if (totals) totals[NOTIONAL_MARK] = ' ';
}

/** The note under the table, one sentence per resized hedge: `* DEAL-7 hdg_…: opened with 5,000.00 USD, reduced by 3,000.00 USD (this journal); its P&L is its whole life's, on up to 5,000.00 USD, not on the 2,000.00 USD shown.` */
export function resizedNote(
  hedges: ReadonlyArray<{ hedgeId: string; reference?: string; shownUsd?: number; sizes: HedgeSizes }>,
) {
  if (!hedges.length) return;
  const sentences = hedges.map(({ hedgeId, reference, shownUsd, sizes }) => {
    const name = [reference ?? '', hedgeId].filter(Boolean).map(safeText).join(' ');
    const moves = sizes.changes.map(
      (change) => `${change.action === 'add' ? 'added' : 'reduced by'} ${usd(change.usd)}`,
    );
    const life = sizes.openedUsd === undefined ? moves : [`opened with ${usd(sizes.openedUsd)}`, ...moves];
    // The largest is known only from the open: without it, only that the P&L is on every notional it held.
    const onWhat =
      sizes.largestUsd !== undefined
        ? `on up to ${usd(sizes.largestUsd)}${shownUsd === undefined || shownUsd === sizes.largestUsd ? '' : `, not on the ${usd(shownUsd)} shown`}`
        : `on every notional it held${shownUsd === undefined ? '' : `, not only the ${usd(shownUsd)} shown`}`;
    return `${RESIZED_MARK} ${name}: ${life.join(', ')} (this journal); its P&L is its whole life's, ${onWhat}.`;
  });
  return sentences.join(' ');
}
