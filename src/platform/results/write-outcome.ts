// How the outcome of one write (open, add, reduce, close) is shown: flows return outcomes, the
// commands hand them here. Hints name commands through `hedgeCommand`, given by the caller, so
// that they carry the flags that chose the environment.
import { positionInOneShape } from '../api/wire/fields.js';
import type { HistoryRecord, Quote, SubmittedAction } from '../api/schemas.js';
import type { LandedChange, TradeView } from './trade-outcome-types.js';
import { formatUsd } from '../../core/money.js';
import type { Output } from '../terminal/output.js';
import {
  CHANGED_SIDE_FIELDS,
  renderClosed,
  renderHedge,
  renderPositionChange,
  renderSubmitted,
} from './trade-result.js';

export type HedgeCommand = (...words: string[]) => string;

/** The close of a side as the close card shows it: the server's answer and what the side showed before it. */
function closedSummary(
  answer: SubmittedAction,
  hedgeId: string | undefined,
  estimate?: number,
  realized?: HistoryRecord,
) {
  return {
    ...answer,
    ...(hedgeId ? { hedge_id: hedgeId } : {}),
    status: 'closed' as const,
    net_margin_usd: estimate ?? null,
    realized: realized ?? null,
  };
}

function renderChangeLanded(output: Output, change: LandedChange, answer: SubmittedAction, hedgeCommand: HedgeCommand) {
  const { action, market, side, notionalUsd } = change;
  if (!output.isJson) {
    const now = change.closed
      ? 'is now closed'
      : change.afterNotionalUsd !== undefined
        ? `is now ${formatUsd(change.afterNotionalUsd)}${change.baselineUsd !== undefined ? ` (was ${formatUsd(change.baselineUsd)})` : ''}`
        : 'has changed';
    output.success(
      `${action === 'add' ? 'Added' : 'Reduced by'} ${formatUsd(notionalUsd)}: the ${side} hedge on ${market} ${now}.`,
    );
  }
  const hedgeId = change.hedge?.id ?? answer.hedge_id ?? change.before?.hedgeId;
  if (change.closed) {
    // A reduce of about the whole position closes it: shown to people as a close.
    if (output.isHuman)
      return renderClosed(output, closedSummary(answer, hedgeId, change.before?.netMarginUsd, change.realized));
  } else {
    // People get the position before → after; other modes the same figures in a line on stderr.
    renderPositionChange(
      output,
      {
        action,
        market,
        side,
        changeUsd: notionalUsd,
        before: change.before,
        after: change.position,
        orderTxHash: answer.order_tx_hash ?? undefined,
        quotedPrice: change.quotedPrice,
        balanceBeforeUsdc: change.balanceBeforeUsdc,
        balanceAfterUsdc: change.balanceAfterUsdc,
      },
      hedgeId ? [`The hedge in full: ${hedgeCommand('hedges', hedgeId)}`] : [],
    );
    if (output.isHuman) return;
  }
  // Scripts get the side after the change, however the server books it (the hedge grown, or one
  // more record on the side): its positions line in the one shape (--raw: as sent), with the
  // server's answer and the hedge record it named beside it.
  const after = change.position
    ? output.inOneShape
      ? positionInOneShape(change.position.raw, change.position)
      : change.position.raw
    : { market, side, notional_usd: change.closed ? 0 : (change.afterNotionalUsd ?? null) };
  output.record({ ...after, hedge: change.hedge ?? null, answer }, CHANGED_SIDE_FIELDS);
}

/** Shows one trade's outcome; `quote` is the quote shown before an open (its price is compared with the fill). */
export function renderTrade(output: Output, view: TradeView, hedgeCommand: HedgeCommand, quote?: Quote) {
  const check = [`Check it with: ${hedgeCommand('positions')}`];
  switch (view.kind) {
    case 'open-submitted': {
      const follow = hedgeCommand('hedges', view.answer.hedge_id, '--wait');
      renderSubmitted(output, view.answer, { title: 'Hedge submitted', footer: [`Follow it with: ${follow}`] });
      if (!output.isHuman && !output.isJson)
        output.note(`Submitted ${view.answer.hedge_id}; follow it with: ${follow}`);
      return;
    }
    case 'open-resolved': {
      const { hedge } = view;
      if (hedge.status === 'closed')
        output.warn(`Hedge ${hedge.id} was already closed when it was read (it filled and then closed or settled).`);
      else if (hedge.status !== 'failed' && !output.isJson) output.success(`Filled: hedge ${hedge.id}.`);
      const title =
        hedge.status === 'failed' ? 'Order failed' : hedge.status === 'closed' ? 'Hedge (closed)' : 'Hedge filled';
      return renderHedge(output, hedge, { title, quote });
    }
    case 'change-submitted':
      return renderSubmitted(output, view.answer, {
        title: `${view.action === 'add' ? 'Add' : 'Reduce'} submitted`,
        footer: check,
      });
    case 'change-landed':
      return renderChangeLanded(output, view.change, view.answer, hedgeCommand);
    case 'close-submitted':
      return renderSubmitted(output, view.answer, { title: 'Close submitted', footer: check });
    case 'close-landed': {
      const { closed } = view;
      if (!output.isJson) output.success(`Closed: the ${closed.side} position on ${closed.market} is no longer open.`);
      return renderClosed(output, closedSummary(view.answer, closed.hedgeId, closed.estimate, closed.realized));
    }
  }
}
