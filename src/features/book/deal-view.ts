// How a deal followed across its rolls (`history --ref`, `report --ref`; flows/deal.ts) says what the
// history cannot list yet: its hedges still held or being opened. Renders only.
import { formatMoney } from '../../core/number-format.js';
import { safeText } from '../../core/security/safe-text.js';
import { formatTimeLeft, formatUtcMinutes } from '../../platform/terminal/format.js';
import type { DealHedges } from './deal.js';

/** One sentence naming the deal's live hedges (as their records show them), so that the deal is followed through its last roll: */
export function dealStillHeld(deal: DealHedges, hedgesCommand: string, ended?: ReadonlySet<string>) {
  const live = deal.live(ended);
  if (!live.length) return;
  const described = live.map((hedge) => {
    const parts = [
      `${formatMoney(hedge.notional_usd)} USD`,
      safeText(hedge.status),
      ...(typeof hedge.maturity_at === 'string' && hedge.status === 'filled'
        ? [maturityText(hedge.maturity_at, deal.nowMs)]
        : []),
    ];
    return `${safeText(hedge.id)} (${parts.join(', ')})`;
  });
  return `${safeText(deal.reference)} is still held: ${described.join('; ')}. Its hedges, closed and open: \`${safeText(hedgesCommand)}\`.`;
}

function maturityText(iso: string, nowMs: number) {
  const left = formatTimeLeft(iso, nowMs);
  const at = `matures ${formatUtcMinutes(safeText(iso))} UTC`;
  return left === '' ? at : left === 'due' ? `${at}, due` : `${at}, in ${left}`;
}
