// How the outcome of one write (open, add, reduce, close) is shown: flows return outcomes, the
// commands hand them here. Hints name commands through `hedgeCommand`, given by the caller, so
// that they carry the flags that chose the environment.
import { positionInOneShape } from '../api/wire/fields.js';
import type { Hedge, HistoryRecord, OpenedHedge, Quote, SubmittedAction } from '../api/schemas.js';
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

function renderOpenSubmitted(output: Output, answer: OpenedHedge, hedgeCommand: HedgeCommand) {
  const follow = hedgeCommand('hedges', answer.hedge_id, '--wait');
  renderSubmitted(output, answer, { title: 'Hedge submitted', footer: [`Follow it with: ${follow}`] });
  if (!output.isHuman && !output.isJson) output.note(`Submitted ${answer.hedge_id}; follow it with: ${follow}`);
}

function renderOpenResolved(output: Output, hedge: Hedge, quote?: Quote) {
  if (hedge.status === 'failed') {
    renderHedge(output, hedge, { title: 'Order failed', quote });
    return;
  }
  if (hedge.status === 'closed')
    output.warn(`Hedge ${hedge.id} was already closed when it was read (it filled and then closed or settled).`);
  else if (!output.isJson) output.success(`Filled: hedge ${hedge.id}.`);
  renderHedge(output, hedge, { title: hedge.status === 'closed' ? 'Hedge (closed)' : 'Hedge filled', quote });
}

const CHANGE_WORDS = {
  add: { submittedTitle: 'Add submitted', done: (notionalUsd: number) => `Added ${formatUsd(notionalUsd)}` },
  reduce: { submittedTitle: 'Reduce submitted', done: (notionalUsd: number) => `Reduced by ${formatUsd(notionalUsd)}` },
} as const;

function renderChangeSubmitted(
  output: Output,
  action: 'add' | 'reduce',
  answer: SubmittedAction,
  hedgeCommand: HedgeCommand,
) {
  renderSubmitted(output, answer, {
    title: CHANGE_WORDS[action].submittedTitle,
    footer: [`Check it with: ${hedgeCommand('positions')}`],
  });
}

function renderChangeLanded(output: Output, change: LandedChange, answer: SubmittedAction, hedgeCommand: HedgeCommand) {
  const { action, market, side, notionalUsd } = change;
  if (!output.isJson) {
    const now = change.closed
      ? 'is now closed'
      : change.afterNotionalUsd !== undefined
        ? `is now ${formatUsd(change.afterNotionalUsd)}${change.baselineUsd !== undefined ? ` (was ${formatUsd(change.baselineUsd)})` : ''}`
        : 'has changed';
    output.success(`${CHANGE_WORDS[action].done(notionalUsd)}: the ${side} hedge on ${market} ${now}.`);
  }
  const hedgeId = change.hedge?.id ?? answer.hedge_id ?? change.before?.hedgeId;
  const inFull = hedgeId ? [`The hedge in full: ${hedgeCommand('hedges', hedgeId)}`] : [];
  if (change.closed) {
    // A reduce of about the whole position closes it: shown to people as a close.
    if (output.isHuman) {
      renderClosed(output, {
        ...answer,
        ...(hedgeId ? { hedge_id: hedgeId } : {}),
        status: 'closed',
        net_margin_usd: change.before?.netMarginUsd ?? null,
        realized: change.realized ?? null,
      });
      return;
    }
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
      inFull,
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

function renderCloseSubmitted(output: Output, answer: SubmittedAction, hedgeCommand: HedgeCommand) {
  renderSubmitted(output, answer, {
    title: 'Close submitted',
    footer: [`Check it with: ${hedgeCommand('positions')}`],
  });
}

function renderCloseLanded(
  output: Output,
  closed: { market: string; side: string; estimate?: number; hedgeId?: string; realized?: HistoryRecord },
  answer: SubmittedAction,
) {
  if (!output.isJson) output.success(`Closed: the ${closed.side} position on ${closed.market} is no longer open.`);
  renderClosed(output, {
    ...answer,
    ...(closed.hedgeId ? { hedge_id: closed.hedgeId } : {}),
    status: 'closed',
    net_margin_usd: closed.estimate ?? null,
    realized: closed.realized ?? null,
  });
}

/** Shows one trade's outcome; `quote` is the quote shown before an open (its price is compared with the fill). */
export function renderTrade(output: Output, view: TradeView, hedgeCommand: HedgeCommand, quote?: Quote) {
  switch (view.kind) {
    case 'open-submitted':
      return renderOpenSubmitted(output, view.answer, hedgeCommand);
    case 'open-resolved':
      return renderOpenResolved(output, view.hedge, quote);
    case 'change-submitted':
      return renderChangeSubmitted(output, view.action, view.answer, hedgeCommand);
    case 'change-landed':
      return renderChangeLanded(output, view.change, view.answer, hedgeCommand);
    case 'close-submitted':
      return renderCloseSubmitted(output, view.answer, hedgeCommand);
    case 'close-landed':
      return renderCloseLanded(output, view.closed, view.answer);
  }
}
