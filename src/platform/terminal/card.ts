// A card: one record as label/value lines in a box, fitted to the terminal's width — labels and values wrap at word boundaries inside their column (a value may hold its own line breaks).
import type { ChalkInstance } from 'chalk';
import { displayWidth, shortenLongWords, wrapWords } from './width.js';

/** Columns a card's borders and padding take: `│ label │ value │`. */
const CARD_FRAME = 7;

function pad(count: number) {
  return count > 0 ? ' '.repeat(count) : '';
}

/** The widest word of a text (the narrowest it wraps to whole). */
const longestWord = (text: string) => Math.max(0, ...text.split(/[ \n]/).map(displayWidth));

/** Label/value pairs already formatted for people, in a box at most `columns` wide. */
export function drawCard(
  rows: ReadonlyArray<readonly [string, string]>,
  options: { columns: number; chalk: ChalkInstance; title?: string },
) {
  const { columns, chalk: c } = options;
  const room = columns - CARD_FRAME;
  const labelNeed = Math.max(1, ...rows.map(([label]) => displayWidth(label)));
  const valueNeed = Math.max(1, ...rows.flatMap(([, value]) => value.split('\n').map(displayWidth)));
  // Labels take what they need when values leave room, else at most a third, but never less than their
  // longest word while it fits; then less, to the same floor, so that the values' longest word (a URL) fits.
  const labelWord = Math.max(1, ...rows.map(([label]) => longestWord(label)));
  const valueWord = Math.max(1, ...rows.map(([, value]) => longestWord(value)));
  const labelRoom = Math.max(Math.floor(room / 3), room - valueNeed, Math.min(labelWord, room - 1));
  const labelWidth = Math.max(1, Math.min(labelNeed, labelRoom, Math.max(labelWord, room - valueWord)));
  const valueWidth = Math.max(1, Math.min(valueNeed, room - labelWidth));
  const lines: string[] = [];
  if (options.title) lines.push(c.bold(wrapWords(options.title, columns)));
  lines.push(`┌${'─'.repeat(labelWidth + 2)}┬${'─'.repeat(valueWidth + 2)}┐`);
  for (const [label, value] of rows) {
    // A word wider than its column is shortened in the middle, never broken across lines.
    const labelLines = wrapWords(shortenLongWords(label, labelWidth), labelWidth).split('\n');
    const valueLines = value
      .split('\n')
      .flatMap((line) => wrapWords(shortenLongWords(line, valueWidth), valueWidth).split('\n'));
    const height = Math.max(labelLines.length, valueLines.length);
    for (let index = 0; index < height; index++) {
      const left = labelLines[index] ?? '';
      const right = valueLines[index] ?? '';
      lines.push(
        `│ ${c.dim(left)}${pad(labelWidth - displayWidth(left))} │ ${right}${pad(valueWidth - displayWidth(right))} │`,
      );
    }
  }
  lines.push(`└${'─'.repeat(labelWidth + 2)}┴${'─'.repeat(valueWidth + 2)}┘`);
  return lines.join('\n');
}
