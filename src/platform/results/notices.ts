// What a flow says while it works, as data: callers that run flows as steps take notices as events, not stderr.
import type { Output } from '../terminal/output.js';
import type { CARD_DRAWERS } from './cards.js';

export type CardName = keyof typeof CARD_DRAWERS;
/** A card by name with the facts it is drawn from, checked against its drawer: one member per card of the table. */
export type CardFacts = { [K in CardName]: { card: K } & Parameters<(typeof CARD_DRAWERS)[K]>[1] }[CardName];

export interface Notice {
  kind: string;
  level: 'note' | 'info' | 'warn' | 'success' | 'live';
  text: string;
  /** A card said in the text's place, named by `card` with the facts it is drawn from: drawn when the command shows it
   * (its CARDS, on its output), else the text is said. */
  show?: CardFacts;
}

export function sayNotice(output: Output, { show, level, text }: Notice) {
  const c = output.chalk;
  const draw = show && output.init.cards?.[show.card];
  if (draw) return draw(output, show as never);
  if (level === 'warn') return output.warn(text);
  if (level === 'success') return output.done(text);
  output.note(
    level === 'live' ? `${c.bgRed.white.bold(' LIVE ')} ${c.red.bold(text)}` : level === 'info' ? c.cyan(text) : text,
  );
}
