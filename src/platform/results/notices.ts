// What a flow says while it works, as data: callers that run flows as steps take notices as events, not stderr.
import type { Quote } from '../api/schemas.js';
import type { RollPreview } from './roll-outcome-types.js';
import type { Output } from '../terminal/output.js';
import { renderQuoteCard } from './quote-card.js';
import { renderRollPreview } from './roll-outcome.js';
import { renderAdditionQuote, type PositionFigures } from './write-outcome.js';

type NoticeCard =
  | { card: 'addition-quote'; quote: Quote; maturityAt?: string; daysLeft?: number; position?: PositionFigures }
  /** The quote before an open is confirmed: a card on a terminal, nothing otherwise. */
  | { card: 'open-quote'; quote: Quote; nowMs: number }
  /** Both legs of a roll before it is confirmed: a card on a terminal, one line otherwise. */
  | { card: 'roll-preview'; preview: RollPreview; nowMs: number };

export interface Notice {
  kind: string;
  level: 'note' | 'info' | 'caution' | 'warn' | 'success' | 'live';
  text: string;
  show?: NoticeCard;
}

/** A question as asked: a live one starts with a red LIVE. */
export function questionText(output: Output, question: { message: string; live?: boolean }) {
  return question.live ? `${output.chalk.red.bold('LIVE')} ${question.message}` : question.message;
}

export function sayNotice(output: Output, notice: Notice) {
  switch (notice.show?.card) {
    case 'addition-quote': {
      const { quote, maturityAt, daysLeft, position } = notice.show;
      return renderAdditionQuote(output, quote, { maturityAt, daysLeft, position });
    }
    case 'open-quote': {
      const { quote, nowMs } = notice.show;
      return output.cardOrNote(() => renderQuoteCard(output, quote, nowMs));
    }
    case 'roll-preview':
      return renderRollPreview(output, notice.show.preview, notice.show.nowMs);
  }
  switch (notice.level) {
    case 'note':
      return output.note(notice.text);
    case 'live':
      return output.note(`${output.chalk.bgRed.white.bold(' LIVE ')} ${output.chalk.red.bold(notice.text)}`);
    case 'info':
      return output.note(output.chalk.cyan(notice.text));
    case 'caution':
      return output.note(output.chalk.yellow(notice.text));
    case 'warn':
      return output.warn(notice.text);
    case 'success':
      return output.done(notice.text);
  }
}
