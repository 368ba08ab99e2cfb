// Text fitted to the terminal (its width: ui/terminal.ts terminalColumns), measured, cut and wrapped as the eye sees it.
import { stripVTControlCharacters } from 'node:util';
import type SliceAnsi from 'slice-ansi';
import type StringWidth from 'string-width';

// Loaded on first use: loading either starts ICU's grapheme segmenter, which a command that fits no text to the terminal (a pipe, --json) never pays for (docs/performance.md).
let libraries: { stringWidth: typeof StringWidth; sliceAnsi: typeof SliceAnsi } | undefined;
function loaded() {
  /* eslint-disable @typescript-eslint/no-require-imports -- a synchronous load on first use; esbuild bundles both */
  libraries ??= { stringWidth: require('string-width').default, sliceAnsi: require('slice-ansi').default };
  /* eslint-enable @typescript-eslint/no-require-imports */
  return libraries;
}
function sliceAnsi(text: string, start: number, end?: number): string {
  const cut = loaded().sliceAnsi(text, start, end);
  // slice-ansi keeps a wide character that crosses `end`: the eye's columns end before it.
  return end === undefined || end <= start || displayWidth(cut) <= end - start ? cut : sliceAnsi(text, start, end - 1);
}

const ELLIPSIS = '…';

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
  return upToNext.slice(0, upToNext.length - closing.length - next.length) + ELLIPSIS + closing;
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

export function wrapWords(text: string, width: number, options: { hangingIndent?: number } = {}) {
  const hanging = Math.max(0, options.hangingIndent ?? 0);
  const rest = Math.max(1, width - hanging);
  const lines: string[] = [];
  for (const paragraph of text.split(/\r?\n/)) {
    const room = lines.length ? rest : Math.max(1, width);
    const whole = paragraph.replace(/ +$/, '');
    const shown = displayWidth(whole);
    // A line that fits is kept as it is, every escape sequence in it (slice-ansi keeps none at a cut's ends).
    if (shown <= room) lines.push(!lines.length || shown === 0 ? whole : ' '.repeat(hanging) + whole);
    else
      for (const [start, end] of lineRanges(paragraph, room, rest))
        lines.push((lines.length ? ' '.repeat(hanging) : '') + sliceAnsi(paragraph, start, end));
  }
  return lines.join('\n');
}

/** Where the lines of one line of text start and end, in columns: the first line `first` columns wide, the others `rest`. */
function lineRanges(paragraph: string, first: number, rest: number) {
  const ranges: Array<[number, number]> = [];
  let room = first;
  let start = 0;
  let end = -1;
  const breakLine = (at: number) => {
    ranges.push([start, end]);
    [start, end, room] = [at, -1, rest];
  };
  for (const { at, width } of words(paragraph, rest)) {
    const wordEnd = at + width;
    // Spaces before the first word of a line are kept only where the word fits after them.
    if (wordEnd - start > room && end >= 0) breakLine(at);
    else if (wordEnd - start > room) start = at;
    while (wordEnd - start > room) {
      // Wider than a line: as much as fits on each line (a character wider than the room alone).
      const piece = displayWidth(sliceAnsi(paragraph, start, start + room)) || 2;
      if (start + piece >= wordEnd) break;
      end = start + piece;
      breakLine(end);
    }
    end = wordEnd;
  }
  if (end >= 0) ranges.push([start, end]);
  return ranges;
}

/** The words of a line of text, each with its first column and width; a quoted command that fits `widest` is one. */
function words(paragraph: string, widest: number) {
  const found: Array<{ at: number; width: number }> = [];
  const add = (text: string, from: number) => {
    const width = displayWidth(text);
    if (width > 0) found.push({ at: displayWidth(paragraph.slice(0, from)), width });
  };
  for (const word of paragraph.matchAll(/(?:[^ `]|`[^`]*`|`)+/g)) {
    if (!word[0].includes(' ') || displayWidth(word[0]) <= widest) add(word[0], word.index);
    else for (const part of word[0].matchAll(/[^ ]+/g)) add(part[0], word.index + part.index);
  }
  return found;
}
