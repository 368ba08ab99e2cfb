// What a flow says while it works, as data: callers that run flows as steps take notices as events, not stderr.
import type { Output } from '../terminal/output.js';

export interface Notice {
  kind: string;
  level: 'note' | 'info' | 'warn' | 'success' | 'live';
  text: string;
  /** A card said in the text's place, named by `card` with the facts it shows: drawn by the command that declares it
   * (its CARDS); any other says the text. */
  show?: { card: string; [fact: string]: unknown };
}

export function sayNotice(output: Output, { show, level, text }: Notice) {
  const c = output.chalk;
  if (show && output.drawnCard(show)) return;
  if (level === 'warn') return output.warn(text);
  if (level === 'success') return output.done(text);
  output.note(
    level === 'live' ? `${c.bgRed.white.bold(' LIVE ')} ${c.red.bold(text)}` : level === 'info' ? c.cyan(text) : text,
  );
}
