// Views that trail the records (the viewLagMs option): a server whose positions list, history and account come
// from an indexer that shows each change of a hedge some seconds after the hedge record does.

import {
  type AccountFigures,
  type HedgeState,
  POSITION_BASIS,
  type PositionBasis,
  type TrailingViews,
  type ViewChange,
} from './engine-state.js';

/** The fields of a hedge its positions line is computed from, copied: the hedge itself moves on. */
export function positionBasis(hedge: HedgeState) {
  return Object.fromEntries(POSITION_BASIS.map((field) => [field, hedge[field]])) as PositionBasis;
}

/** Views in step with the records: what a state saved without a lag starts from. */
export function viewsInStep(figures: AccountFigures, filled: readonly HedgeState[]) {
  return {
    figures,
    positions: Object.fromEntries(filled.map((hedge) => [hedge.id, positionBasis(hedge)])),
    pending: [],
  };
}

/** Shows every change made at or before `cutoffMs` (the views then stand as the records did at that time). */
export function foldChanges(views: TrailingViews, cutoffMs: number) {
  const { pending } = views;
  let folded = 0;
  while (folded < pending.length && pending[folded].atMs <= cutoffMs) {
    const change = pending[folded++];
    views.figures = change.figures;
    if (change.hedgeId === undefined || change.position === undefined) continue;
    if (change.position === null) delete views.positions[change.hedgeId];
    else views.positions[change.hedgeId] = change.position;
  }
  if (folded > 0) pending.splice(0, folded);
}

/**
 * Appends a change, first folding in those already a lag old (so an account that is written and never read keeps a
 * lag's worth, not its whole past).
 */
export function appendChange(views: TrailingViews, change: ViewChange, lagMs: number) {
  foldChanges(views, change.atMs - lagMs);
  const last = views.pending.at(-1);
  views.pending.push(last !== undefined && change.atMs < last.atMs ? { ...change, atMs: last.atMs } : change);
}
