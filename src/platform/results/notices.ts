// What a flow says while it works, as data: callers that run flows as steps take notices as events, not stderr.
import type { Output } from '../terminal/output.js';
import type { CARD_DRAWERS } from './cards.js';

type Drawers = typeof CARD_DRAWERS;
export type CardName = keyof Drawers;
/** The facts each card is drawn from: what a notice that names it gives, checked against its drawer. */
export type CardFacts = { [K in CardName]: Parameters<Drawers[K]>[1] };

export interface Notice {
  kind: string;
  level: 'note' | 'info' | 'warn' | 'success' | 'live';
  text: string;
  /** A card said in the text's place, named by `card` with the facts it is drawn from. */
  show?: { [K in CardName]: { card: K } & CardFacts[K] }[CardName];
}

/** `cards`: those the command shows (its CARDS), drawn by `drawers` (the table); a notice naming another says its text. */
export function sayNotice(
  output: Output,
  { show, level, text }: Notice,
  cards: readonly CardName[] = [],
  drawers?: Drawers,
) {
  const c = output.chalk;
  if (show && drawers && cards.includes(show.card)) return drawers[show.card](output, show as never);
  if (level === 'warn') return output.warn(text);
  if (level === 'success') return output.done(text);
  output.note(
    level === 'live' ? `${c.bgRed.white.bold(' LIVE ')} ${c.red.bold(text)}` : level === 'info' ? c.cyan(text) : text,
  );
}
