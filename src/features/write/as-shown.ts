// What a confirmation binds — a person's "yes" on a live key, an agent's token, apply's one yes: the trades it was
// given on, each with the hedges its side held and their notional (Trade.held), not a number alone. Every kind
// compares them here, just before the send under the side's lock: when they differ, nothing is sent and it is asked again.
import { formatUsd } from '../../core/number-format.js';
import type { Trade } from '../../platform/runtime/context.js';
import type { SideAfter } from '../../platform/journal/index.js';
import { sameHedges, sameSide } from '../book/side-book.js';
import { safeText } from '../../core/security/safe-text.js';
import { confirmOrStop } from './live-guard.js';
import type { WritePorts } from './ports.js';

const inCents = (usd: number) => Math.round(usd * 100);

/** The same trades to the cent, each on a side that holds the same hedges and notional as when shown. */
export function sameAsShown(shown: readonly Trade[] | undefined, now: readonly Trade[] | undefined) {
  if (shown === undefined || now === undefined) return shown === now;
  return (
    shown.length === now.length &&
    shown.every((trade, index) => {
      const other = now[index];
      return (
        trade.market.toUpperCase() === other.market.toUpperCase() &&
        inCents(trade.notionalUsd) === inCents(other.notionalUsd) &&
        (trade.held && other.held ? sameSide(trade.held, other.held) : trade.held === other.held)
      );
    })
  );
}

/** A side's hedges in words: "hdg_1, hdg_2", or "no hedge". */
export function hedgesWords(held: SideAfter) {
  return held.hedge_ids.length ? held.hedge_ids.map(safeText).join(', ') : 'no hedge';
}

/** The hedges that differ between what was shown and now, side by side: "hdg_3 then, hdg_4 now" (undefined: none differ). */
export function hedgesMoved(shown: readonly Trade[], now: readonly Trade[]) {
  const moved = shown.flatMap((trade, index) => {
    const then = trade.held;
    const later = now[index]?.held;
    return then && later && !sameHedges(then, later) ? [`${hedgesWords(then)} then, ${hedgesWords(later)} now`] : [];
  });
  return moved.length ? moved.join('; ') : undefined;
}

/** A person's answer came after the side moved: nothing was sent (the question comes again, naming what it holds now). */
export function sayMovedSinceAsked(
  ports: Pick<WritePorts, 'notify'>,
  { market, side }: { market: string; side: string },
  shown: readonly Trade[],
  now: readonly Trade[],
) {
  const [then, later] = [shown[0], now[0]];
  const named = !sameHedges(then?.held, later?.held);
  const holds = (trade: Trade | undefined) => {
    const usd = formatUsd(trade?.held?.notional_usd ?? trade?.notionalUsd ?? 0);
    return named && trade?.held?.hedge_ids.length ? `${usd} in ${hedgesWords(trade.held)}` : usd;
  };
  ports.notify({
    kind: 'moved-since-asked',
    level: 'warn',
    text: `The ${side} side of ${safeText(market)} moved while you were asked: it holds ${holds(later)} now, not the ${holds(then)} shown. Nothing was sent.`,
  });
}

/** Asks once; a "yes" holds for the trades shown: read again after the answer, a book that moved sends nothing (false: show it anew). */
export async function confirmAsShown(
  ports: Pick<WritePorts, 'confirm'>,
  question: string,
  bound: {
    live: boolean;
    shown: readonly Trade[];
    now: () => Promise<readonly Trade[]>;
    moved(now: readonly Trade[]): void;
  },
) {
  await confirmOrStop(ports, question, { live: bound.live });
  const now = await bound.now();
  if (sameAsShown(bound.shown, now)) return true;
  bound.moved(now);
  return false;
}
