// A card: one record as label/value lines in a box, fitted to the terminal's width — labels and values wrap at word boundaries inside their column (a value may hold its own line breaks).
import type { ChalkInstance } from 'chalk';
import { displayWidth, wrapWords } from './width.js';

/** Columns a card's borders and padding take: `│ label │ value │`. */
const CARD_FRAME = 7;

function pad(count: number) {
  return count > 0 ? ' '.repeat(count) : '';
}

/** Label/value pairs already formatted for people, in a box at most `columns` wide. */
export function drawCard(
  rows: ReadonlyArray<readonly [string, string]>,
  options: { columns: number; chalk: ChalkInstance; title?: string },
) {
  const { columns, chalk: c } = options;
  const labelNeed = Math.max(1, ...rows.map(([label]) => displayWidth(label)));
  const valueNeed = Math.max(1, ...rows.flatMap(([, value]) => value.split('\n').map(displayWidth)));
  // Labels take what they need when values leave room, else at most a third; values the rest.
  const labelRoom = Math.max(Math.floor((columns - CARD_FRAME) / 3), columns - CARD_FRAME - valueNeed);
  const labelWidth = Math.max(1, Math.min(labelNeed, labelRoom));
  const valueWidth = Math.max(1, Math.min(valueNeed, columns - CARD_FRAME - labelWidth));
  const lines: string[] = [];
  if (options.title) lines.push(c.bold(wrapWords(options.title, columns)));
  lines.push(`┌${'─'.repeat(labelWidth + 2)}┬${'─'.repeat(valueWidth + 2)}┐`);
  for (const [label, value] of rows) {
    const labelLines = wrapWords(label, labelWidth).split('\n');
    const valueLines = value.split('\n').flatMap((line) => wrapWords(line, valueWidth).split('\n'));
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
