// The one table of cards a flow's notice may name, each drawn from the facts the notice gives (notices.ts types a
// notice's facts from it). Loaded by the runner only for a command that shows cards: any other loads no drawer.
import type { Quote } from '../api/schemas.js';
import type { Output } from '../terminal/output.js';
import { renderQuoteCard } from './quote-card.js';
import { renderRollPreview } from './roll-outcome.js';
import { renderAdditionQuote } from './write-outcome.js';

export const CARD_DRAWERS = {
  /** The quote before an open's question: a card on a terminal, nothing otherwise. */
  'open-quote': (output: Output, { quote, nowMs }: { quote: Quote; nowMs: number }) =>
    output.cardOrNote(() => renderQuoteCard(output, quote, nowMs)),
  /** An add's quote, shown before its question. */
  'addition-quote': renderAdditionQuote,
  /** Both legs of a roll before its confirmation. */
  'roll-preview': renderRollPreview,
};
