// Fitting text into the terminal's width (80 columns included; the width itself: ui/terminal.ts):
// how many columns a string takes, wrapping and shortening. Which table columns to keep is ui/table.ts's.
// Everything here measures what the eye sees: ANSI colour codes take no columns and survive every
// cut, CJK and emoji take two.
//
// A leaf module: Node built-ins only. Widths follow string-width's rules (test/unit/width.test.ts
// checks that they agree), measured here without loading it: its import builds an Intl.Segmenter,
// ~5-10 ms of CPU that a table of plain text never needs.

const ELLIPSIS = '…';
const ELLIPSIS_WIDTH = 1;

// Nearly every cell of a table is printable ASCII, our colour codes and a few narrow symbols of our
// own (— … ─ │ · → −): those are measured by their length. Anything else is cut into graphemes
// (Intl.Segmenter, made on first need) and measured one by one.

const OUR_SGR = /\u001b\[[0-9;]*m/g;
const ONE_COLUMN_EACH = /^[\x20-\x7e\u00b7\u2014\u2026\u2192\u2212\u2500\u2502]*$/;

/** The text without our colour codes. */
export function withoutColour(text: string): string {
  return text.replace(OUR_SGR, '');
}

/** Columns the text takes on screen: ANSI codes none, wide (CJK, emoji) characters two. */
export function displayWidth(text: string): number {
  if (ONE_COLUMN_EACH.test(text)) return text.length;
  if (text.includes('\u001b')) {
    const bare = withoutColour(text);
    if (ONE_COLUMN_EACH.test(bare)) return bare.length;
  }
  let width = 0;
  for (const piece of pieces(text)) if (piece.kind === 'grapheme') width += piece.width;
  return width;
}

/** Characters of the East Asian Wide and Fullwidth blocks: two columns. */
const WIDE =
  /[\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\ua960-\ua97f\uac00-\ud7a3\uf900-\ufaff\ufe10-\ufe19\ufe30-\ufe6f\uff00-\uff60\uffe0-\uffe6\u{1b000}-\u{1b2ff}\u{1f200}-\u{1f2ff}\u{20000}-\u{3fffd}]/u;
/** A grapheme shown as an emoji: two columns. */
const EMOJI = /\p{Extended_Pictographic}|\p{Emoji_Presentation}|\u20e3/u;
/** Marks, format characters (zero-width space and joiners, bidi marks) and controls: no column. */
const NO_COLUMN = /^[\p{Mn}\p{Me}\p{Cf}\p{Cc}]/u;

/** One grapheme's columns, by string-width's rules: emoji and East Asian wide characters two, marks and invisible characters none. */
function graphemeWidth(grapheme: string): number {
  if (EMOJI.test(grapheme)) return 2;
  if (NO_COLUMN.test(grapheme)) return 0;
  return WIDE.test(grapheme) ? 2 : 1;
}

// --- Pieces: the text cut into escape sequences (zero width) and graphemes (with their width) ---

type Piece = { kind: 'escape'; text: string } | { kind: 'grapheme'; text: string; width: number };

// CSI (colours, cursor), OSC (hyperlinks, titles) ended by BEL or ST, the 8-bit CSI, and the other
// ESC escapes (ESC 7, ESC c, ESC ( B). Kept whole and never counted or cut.

const ESCAPE_SEQUENCE =
  /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)|\u009b[0-?]*[ -/]*[@-~]|\u001b[ -/]*[0-~]/g;

const SGR = /^(?:\u001b\[|\u009b)[0-9;:]*m$/;
const SGR_RESET = '\u001b[0m';

let graphemeSegmenter: Intl.Segmenter | undefined;

function pieces(text: string): Piece[] {
  const result: Piece[] = [];
  const addGraphemes = (chunk: string): void => {
    // Plain text (nearly all of it) is one column per character: no segmenter needed.
    if (ONE_COLUMN_EACH.test(chunk)) {
      for (const char of chunk) result.push({ kind: 'grapheme', text: char, width: 1 });
      return;
    }
    graphemeSegmenter ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' });
    for (const { segment } of graphemeSegmenter.segment(chunk)) {
      result.push({ kind: 'grapheme', text: segment, width: graphemeWidth(segment) });
    }
  };
  let last = 0;
  for (const match of text.matchAll(ESCAPE_SEQUENCE)) {
    if (match.index > last) addGraphemes(text.slice(last, match.index));
    result.push({ kind: 'escape', text: match[0] });
    last = match.index + match[0].length;
  }
  if (last < text.length) addGraphemes(text.slice(last));
  return result;
}

// --- Shortening ---

/** The text cut to at most `width` columns, ending in `…` when cut. Colour codes are all kept. */
export function truncateEnd(text: string, width: number): string {
  if (displayWidth(text) <= width) return text;
  if (width < ELLIPSIS_WIDTH) return '';
  return elide(pieces(text), width - ELLIPSIS_WIDTH, () => 0);
}

/**
 * The text cut to at most `width` columns by replacing its middle with `…`, e.g. a hash as
 * `0x5f12…157b`. The start gets three fifths of the room: it holds what people read and type
 * (prefixes such as `0x` or `hdg_`), the end is there to tell similar values apart.
 */
export function shortenMiddle(text: string, width: number): string {
  if (displayWidth(text) <= width) return text;
  if (width < ELLIPSIS_WIDTH) return '';
  const room = width - ELLIPSIS_WIDTH;
  // Room a wide character left unused at the start goes to the end.
  return elide(pieces(text), Math.ceil((room * 3) / 5), (headUsed) => room - headUsed);
}

/**
 * Keeps graphemes filling at most `headWidth` columns from the start and `tailWidth(headUsed)` from
 * the end, and puts one `…` where the rest was. Every escape sequence stays in its place, so a
 * colour opened before the cut is still closed after it.
 */
function elide(all: Piece[], headWidth: number, tailWidth: (headUsed: number) => number): string {
  const keep = new Array<boolean>(all.length).fill(false);
  let used = 0;
  let headEnd = 0;
  for (; headEnd < all.length; headEnd++) {
    const piece = all[headEnd];
    if (piece.kind === 'grapheme') {
      if (used + piece.width > headWidth) break;
      used += piece.width;
    }
    keep[headEnd] = true;
  }
  const tailRoom = tailWidth(used);
  used = 0;
  for (let index = all.length - 1; index >= headEnd; index--) {
    const piece = all[index];
    if (piece.kind === 'grapheme') {
      if (used + piece.width > tailRoom) break;
      used += piece.width;
    }
    keep[index] = true;
  }
  let out = '';
  let ellipsisPlaced = false;
  all.forEach((piece, index) => {
    if (keep[index] || piece.kind === 'escape') {
      out += piece.text;
    } else if (!ellipsisPlaced) {
      out += ELLIPSIS;
      ellipsisPlaced = true;
    }
  });
  return out;
}

// --- Wrapping ---

export interface WrapOptions {
  /** Spaces before every line. */
  indent?: number;
  /**
   * Further spaces before every line after the first (whether wrapped or after a newline in the
   * text), e.g. to align a help description under its first line.
   */
  hangingIndent?: number;
}

/**
 * The text wrapped to `width` columns at spaces. Words stay whole unless one alone is wider than
 * the room on a line, which is then broken between characters. Newlines in the text are kept,
 * spaces where a line is broken are dropped, leading spaces of a line of the text are kept.
 * Colours carry over a break: the line is reset at its end and the colour reopened after the next
 * line's indent (so the indent is never coloured). Every line fits `width` as long as the indents
 * leave at least one column; otherwise each line holds one character past them.
 */
export function wrapWords(text: string, width: number, options: WrapOptions = {}): string {
  const indent = Math.max(0, options.indent ?? 0);
  const hanging = Math.max(0, options.hangingIndent ?? 0);
  const lines: string[] = [];
  const wrapper = new LineBuilder((content, contentWidth) => {
    const lead = lines.length === 0 ? indent : indent + hanging;
    // A blank line gets no indent: trailing spaces help nobody.
    lines.push(contentWidth === 0 ? content : ' '.repeat(lead) + content);
  });
  const room = (): number => Math.max(1, width - indent - (lines.length === 0 ? 0 : hanging));
  // The room of a line after the first: a quoted command that fits there is never split.
  const narrowest = Math.max(1, width - indent - hanging);
  text.split(/\r?\n/).forEach((paragraph) => wrapParagraph(paragraph, wrapper, room, narrowest));
  return lines.join('\n');
}

type Token = { kind: 'space' | 'word'; pieces: Piece[]; width: number };

/** Splits a line of text into runs of spaces and words; escape sequences belong to words. */
function tokens(paragraph: string): Token[] {
  const result: Token[] = [];
  for (const piece of pieces(paragraph)) {
    const kind = piece.kind === 'grapheme' && piece.text === ' ' ? 'space' : 'word';
    let current = result[result.length - 1];
    if (current?.kind !== kind) {
      current = { kind, pieces: [], width: 0 };
      result.push(current);
    }
    current.pieces.push(piece);
    if (piece.kind === 'grapheme') current.width += piece.width;
  }
  return result;
}

/**
 * A command quoted in backticks (`hedge --demo hedges --all`) is one word for wrapping, so a
 * suggested command is never split across two lines — unless it is wider than a whole line, when
 * it breaks at its spaces like any text.
 */
function withQuotedCommands(list: Token[], widest: number): Token[] {
  const backticks = (token: Token): number =>
    token.pieces.filter((piece) => piece.kind === 'grapheme' && piece.text === '`').length;
  const result: Token[] = [];
  let span: Token[] | undefined;
  for (const token of list) {
    if (span) {
      span.push(token);
      if (token.kind === 'word' && backticks(token) % 2 === 1) {
        const width = span.reduce((sum, part) => sum + part.width, 0);
        if (width <= widest) result.push({ kind: 'word', pieces: span.flatMap((part) => part.pieces), width });
        else result.push(...span);
        span = undefined;
      }
      continue;
    }
    if (token.kind === 'word' && backticks(token) % 2 === 1) span = [token];
    else result.push(token);
  }
  if (span) result.push(...span);
  return result;
}

function wrapParagraph(paragraph: string, line: LineBuilder, room: () => number, narrowest: number): void {
  let pendingSpaces: Token | undefined;
  let atParagraphStart = true;
  for (const token of withQuotedCommands(tokens(paragraph), narrowest)) {
    if (token.kind === 'space') {
      pendingSpaces = token;
      continue;
    }
    if (token.width === 0) {
      // Only escape sequences: they take no room, so they never cause a break.
      line.add(token.pieces);
      continue;
    }
    const gap = pendingSpaces?.width ?? 0;
    const gapAllowed = line.width > 0 || atParagraphStart;
    if (gapAllowed && line.width + gap + token.width <= room()) {
      if (pendingSpaces) line.add(pendingSpaces.pieces);
    } else if (line.width > 0) {
      line.break();
    }
    pendingSpaces = undefined;
    atParagraphStart = false;
    addWord(token, line, room);
  }
  line.break();
}

/** Puts a word on the current line, breaking it between graphemes only where it cannot fit. */
function addWord(word: Token, line: LineBuilder, room: () => number): void {
  if (line.width + word.width <= room()) {
    line.add(word.pieces);
    return;
  }
  for (const piece of word.pieces) {
    // A line always takes at least one grapheme, so a room narrower than one wide character ends.
    if (piece.kind === 'grapheme' && line.width > 0 && line.width + piece.width > room()) line.break();
    line.add([piece]);
  }
}

/** The line being built, with the colour state it must carry over a break. */
class LineBuilder {
  private content = '';
  private readonly style = new SgrState();
  width = 0;

  constructor(private readonly emit: (content: string, width: number) => void) {}

  add(list: readonly Piece[]): void {
    for (const piece of list) {
      this.content += piece.text;
      if (piece.kind === 'grapheme') this.width += piece.width;
      else this.style.apply(piece.text);
    }
  }

  break(): void {
    const reopen = this.style.replay();
    this.emit(reopen === '' ? this.content : this.content + SGR_RESET, this.width);
    this.content = reopen;
    this.width = 0;
  }
}

// Each SGR parameter sets one attribute or clears some; 0 (or none) clears all. Tracking them by
// attribute lets a wrapped line reopen exactly the colour in force, and nothing once it is closed.
const SGR_ATTRIBUTE = new Map<number, string>([
  [1, 'bold'],
  [2, 'dim'],
  [3, 'italic'],
  [4, 'underline'],
  [21, 'underline'],
  [5, 'blink'],
  [6, 'blink'],
  [7, 'inverse'],
  [8, 'hidden'],
  [9, 'strike'],
  [53, 'overline'],
  [58, 'underline-colour'],
  ...range(30, 38).map((code): [number, string] => [code, 'foreground']),
  ...range(90, 97).map((code): [number, string] => [code, 'foreground']),
  ...range(40, 48).map((code): [number, string] => [code, 'background']),
  ...range(100, 107).map((code): [number, string] => [code, 'background']),
]);
const SGR_CLEARS = new Map<number, string[]>([
  [22, ['bold', 'dim']],
  [23, ['italic']],
  [24, ['underline']],
  [25, ['blink']],
  [27, ['inverse']],
  [28, ['hidden']],
  [29, ['strike']],
  [39, ['foreground']],
  [49, ['background']],
  [55, ['overline']],
  [59, ['underline-colour']],
]);
/** 38/48/58 take a colour after them: `5;N` (palette) or `2;R;G;B`. */
const EXTENDED_COLOUR = new Set([38, 48, 58]);

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, offset) => from + offset);
}

class SgrState {
  private readonly attributes = new Map<string, string>();

  apply(escape: string): void {
    if (!SGR.test(escape)) return;
    const params = escape.slice(escape.startsWith('\u009b') ? 1 : 2, -1).split(';');
    for (let index = 0; index < params.length; index++) {
      // A colon form (38:2::R:G:B) is one parameter; its number is the part before the colon.
      const code = Number(params[index].split(':')[0] || '0');
      if (code === 0) {
        this.attributes.clear();
        continue;
      }
      const attribute = SGR_ATTRIBUTE.get(code);
      if (attribute === undefined) {
        for (const cleared of SGR_CLEARS.get(code) ?? []) this.attributes.delete(cleared);
        continue;
      }
      let value = params[index];
      if (EXTENDED_COLOUR.has(code) && !value.includes(':')) {
        const length = params[index + 1] === '5' ? 2 : params[index + 1] === '2' ? 4 : 0;
        value = params.slice(index, index + 1 + length).join(';');
        index += length;
      }
      this.attributes.set(attribute, value);
    }
  }

  /** The one sequence that restores the attributes in force, or '' when none are. */
  replay(): string {
    return this.attributes.size === 0 ? '' : `\u001b[${[...this.attributes.values()].join(';')}m`;
  }
}
