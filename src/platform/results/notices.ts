// What a flow says while it works, as data: callers that run flows as steps take notices as events, not stderr.
import type { Quote } from '../api/schemas.js';
import type { Output } from '../terminal/output.js';
import { renderQuoteCard } from './quote-card.js';
import { renderRollPreview, type RollPreview } from './roll-outcome.js';
import { renderAdditionQuote } from './write-outcome.js';

type NoticeCard =
  | ({ card: 'addition-quote'; quote: Quote } & Parameters<typeof renderAdditionQuote>[2])
  /** The quote before an open is confirmed: a card on a terminal, nothing otherwise. */
  | { card: 'open-quote'; quote: Quote; nowMs: number }
  /** Both legs of a roll before it is confirmed: a card on a terminal, one line otherwise. */
  | { card: 'roll-preview'; preview: RollPreview; nowMs: number };

export interface Notice {
  kind: string;
  level: 'note' | 'info' | 'warn' | 'success' | 'live';
  text: string;
  show?: NoticeCard;
}

export function sayNotice(output: Output, { show, level, text }: Notice) {
  const c = output.chalk;
  // A card's own fields are what its renderer reads.
  if (show?.card === 'addition-quote') return renderAdditionQuote(output, show.quote, show);
  if (show?.card === 'open-quote') return output.cardOrNote(() => renderQuoteCard(output, show.quote, show.nowMs));
  if (show?.card === 'roll-preview') return renderRollPreview(output, show.preview, show.nowMs);
  if (level === 'warn') return output.warn(text);
  if (level === 'success') return output.done(text);
  output.note(
    level === 'live' ? `${c.bgRed.white.bold(' LIVE ')} ${c.red.bold(text)}` : level === 'info' ? c.cyan(text) : text,
  );
}
