// How a deal followed across its rolls (`history --ref`, `report --ref`; features/book/deal.ts) says what the
// history cannot list yet: its hedges still held or being opened. Renders only.
import { formatMoney } from '../../core/number-format.js';
import { safeText } from '../../core/security/safe-text.js';
import { formatTimeLeft, formatUtc } from '../../platform/terminal/format.js';
import { utcMinute } from '../../core/utc-text.js';
import type { DealHedges } from './deal.js';

/** One sentence naming the deal's live hedges (as their records show them), so that the deal is followed through its last roll: */
export function dealStillHeld(deal: DealHedges, hedgesCommand: string, ended?: ReadonlySet<string>) {
  const live = deal.live(ended);
  if (!live.length) return;
  const described = live.map(({ id, notional_usd, status, maturity_at }) => {
    const parts = [`${formatMoney(notional_usd)} USD`, safeText(status)];
    // A filled hedge's maturity, and how far off it is.
    if (typeof maturity_at === 'string' && status === 'filled') {
      // A maturity that cannot be read is said as sent, never labelled UTC; a blank one not at all.
      const [matures, left] = [formatUtc(safeText(maturity_at), utcMinute), formatTimeLeft(maturity_at, deal.nowMs)];
      if (matures) parts.push(`matures ${matures}`, ...(left && [left === 'due' ? 'due' : `in ${left}`]));
    }
    return `${safeText(id)} (${parts.join(', ')})`;
  });
  return `${safeText(deal.reference)} is still held: ${described.join('; ')}. Its hedges, closed and open: \`${safeText(hedgesCommand)}\`.`;
}
