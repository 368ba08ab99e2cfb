// Text fitted to the terminal (its width: ui/terminal.ts terminalColumns), measured, cut and wrapped as the eye sees it.
import { stripVTControlCharacters } from 'node:util';
import type SliceAnsi from 'slice-ansi';
import type StringWidth from 'string-width';
import type WrapAnsi from 'wrap-ansi';

// Loaded on first use: loading either starts ICU's grapheme segmenter, which a command that fits no text to the terminal (a pipe, --json) never pays for (docs/performance.md).
let libraries: { stringWidth: typeof StringWidth; sliceAnsi: typeof SliceAnsi; wrapAnsi: typeof WrapAnsi } | undefined;
function loaded() {
  /* eslint-disable @typescript-eslint/no-require-imports -- a synchronous load on first use; esbuild bundles them */
  libraries ??= {
    stringWidth: require('string-width').default,
    sliceAnsi: require('slice-ansi').default,
    wrapAnsi: require('wrap-ansi').default,
  };
  /* eslint-enable @typescript-eslint/no-require-imports */
  return libraries;
}
function sliceAnsi(text: string, start: number, end?: number): string {
  const cut = loaded().sliceAnsi(text, start, end);
  // slice-ansi keeps a wide character that crosses `end`: the eye's columns end before it.
  return end === undefined || end <= start || displayWidth(cut) <= end - start ? cut : sliceAnsi(text, start, end - 1);
}

/** Text on lines of `width` columns by wrap-ansi, each word wider than a line cut first (cutLongWords). */
const wrapAt = (text: string, width: number) => loaded().wrapAnsi(cutLongWords(text, width), width).split('\n');

export const displayWidth = (text: string) => loaded().stringWidth(text);

export function truncateEnd(text: string, width: number) {
  if (displayWidth(text) <= width) return text;
  return width < 1 ? '' : cutAfter(text, width - 1);
}

/** The text cut to at most `width` columns by replacing its middle with `…`, e.g. a hash as `0x5f12…157b`. */
export function shortenMiddle(text: string, width: number) {
  const whole = displayWidth(text);
  if (whole <= width) return text;
  if (width < 1) return '';
  const head = cutAfter(text, Math.ceil(((width - 1) * 3) / 5));
  // Room a wide character left unused at the start goes to the end.
  const tail = width - displayWidth(head);
  return head + (tail > 0 ? sliceAnsi(text, whole - tail) : '');
}

/** The text's first `columns` columns (fewer where a wide character would cross them) and `…` in place of the next character, in that character's colours. */
function cutAfter(text: string, columns: number) {
  const at = displayWidth(sliceAnsi(text, 0, columns));
  const next = stripVTControlCharacters(sliceAnsi(text, at, at + 1) || sliceAnsi(text, at, at + 2));
  const upToNext = sliceAnsi(text, 0, at + displayWidth(next));
  const closing = /(?:\u001b\[[0-9;]*m)*$/.exec(upToNext)![0];
  return upToNext.slice(0, upToNext.length - closing.length - next.length) + '…' + closing;
}

/** Each word of `text` at most `width` columns: a longer one (a path, a URL, an id) shortened in the middle, so that wrapping never breaks it across lines. */
export function shortenLongWords(text: string, width: number) {
  return text
    .split(' ')
    .map((word) => (displayWidth(word) > width ? shortenMiddle(word, width) : word))
    .join(' ');
}

/** The parts of a line (`a · b · c`) on lines of at most `width` columns, broken between parts; a part wider than a line wraps at its spaces, its words whole. Lines after the first are indented by `indent`. */
export function wrapParts(parts: readonly string[], width: number, separator: string, indent = 0) {
  const lines: string[] = [];
  for (const part of parts) {
    const last = lines.at(-1);
    if (last !== undefined && displayWidth(last + separator + part) <= width) {
      lines[lines.length - 1] = last + separator + part;
      continue;
    }
    const lead = lines.length ? ' '.repeat(indent) : '';
    const text = lead + shortenLongWords(part, Math.max(1, width - indent));
    lines.push(...wrapWords(text, width, { hangingIndent: indent }).split('\n'));
  }
  return lines;
}

/** A space no line may break at (inside a quoted command that fits a line, before a line's first word): a private-use character one column wide (the prompter glues with another), a space again once wrapped. */
const HELD_SPACE = '\uE001';

/** Text on lines of at most `width` columns, broken at its spaces by wrap-ansi (a colour closed at a break and reopened after it); lines after the first are indented by `hangingIndent` and that much narrower. A quoted command that fits a line is never broken; a word wider than a line starts a line and is cut at the width; a line's leading spaces are kept where its first word fits after them. */
export function wrapWords(text: string, width: number, options: { hangingIndent?: number } = {}) {
  const hanging = Math.max(0, options.hangingIndent ?? 0);
  const rest = Math.max(1, width - hanging);
  const lines: string[] = [];
  for (const paragraph of text.split(/\r?\n/)) {
    const room = lines.length ? rest : Math.max(1, width);
    const whole = paragraph.replace(/ +$/, '');
    // A line that fits is kept as it is, every escape sequence in it; else on lines of `room` columns, then of `rest`
    // (wrap-ansi takes one width: the first line is wrapped alone, then what follows it).
    let wrapped = [whole];
    if (displayWidth(whole) > room) {
      let held = whole.replace(/(?:[^ `]|`[^`]*`|`)+/g, (word) =>
        word.includes(' ') && displayWidth(word) <= rest ? word.replaceAll(' ', HELD_SPACE) : word,
      );
      const lead = /^ */.exec(held)![0].length;
      const firstWord = displayWidth(held.slice(lead).split(' ')[0]);
      held = (firstWord <= room - lead ? HELD_SPACE.repeat(lead) : '') + held.slice(lead);
      const [head, ...tail] = wrapAt(held, room);
      const after = sliceAnsi(held, displayWidth(head)).replace(/^((?:\u001b\[[0-9;]*m)*) +/, '$1');
      wrapped = (room === rest || !tail.length ? [head, ...tail] : [head, ...wrapAt(after, rest)]).map((row) =>
        row.replaceAll(HELD_SPACE, ' '),
      );
    }
    for (const line of wrapped) lines.push(lines.length && displayWidth(line) > 0 ? ' '.repeat(hanging) + line : line);
  }
  return lines.join('\n');
}

/** The text with each word wider than `room` cut by spaces into pieces `room` wide (a character wider than the room alone), so that wrap-ansi puts each piece on a line of its own. */
function cutLongWords(text: string, room: number) {
  const cuts: number[] = [];
  let column = 0;
  for (const word of stripVTControlCharacters(text).split(' ')) {
    const end = column + displayWidth(word);
    for (let at = column; end - at > room; cuts.push(at)) at += displayWidth(sliceAnsi(text, at, at + room)) || 2;
    column = end + 1;
  }
  return cuts.length ? [0, ...cuts].map((at, index) => sliceAnsi(text, at, cuts[index])).join(' ') : text;
}
