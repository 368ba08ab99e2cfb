// The one sanitiser every untrusted string (server values, field names, messages, details, client references, market names, user input) passes before it reaches a terminal, plain output (TSV/CSV) or stderr.

import { holdsSecret, scrubSecrets } from './secrets.js';

/** C0 controls except LF (LF is added per variant), DEL and C1 controls: written `\xNN`. */
const CONTROLS_EXCEPT_LF = '\\u0000-\\u0009\\u000b-\\u001f\\u007f-\\u009f';
/** Invisible characters that reorder or hide text (zero-width, bidi controls, line separators, BOM). */
const INVISIBLE = '\\u00ad\\u061c\\u180e\\u200b-\\u200f\\u2028-\\u202e\\u2060-\\u2064\\u2066-\\u2069\\ufeff';
/** A UTF-16 surrogate not part of a pair (with the `u` flag a proper pair is one code point and does not match). */
const LONE_SURROGATE = '\\ud800-\\udfff';

/** One class of characters, global: `search` tests it from the start whatever its lastIndex, `replace` replaces them all. */
const charClass = (chars: string, flags = 'gu') => new RegExp(`[${chars}]`, flags);
const SINGLE_LINE = charClass(`${CONTROLS_EXCEPT_LF}\\n${INVISIBLE}${LONE_SURROGATE}`);
const MULTILINE = charClass(`${CONTROLS_EXCEPT_LF}${INVISIBLE}${LONE_SURROGATE}`);
/** What JSON.stringify leaves raw inside strings: it escapes C0 controls and lone surrogates itself, but not DEL, C1 controls or the invisible characters. */
const JSON_RAW = charClass(`\\u007f-\\u009f${INVISIBLE}`, 'g');

const LAST_C1 = 0x9f;

function visibleEscape(char: string, offset: number, whole: string) {
  // A ZWJ between two pictographs is part of one visible emoji (👩‍💻, 🏳️‍🌈) and shows as such, so it is kept; anywhere else it is invisible and is escaped.
  if (
    char === ZERO_WIDTH_JOINER &&
    EMOJI_BEFORE.test(whole.slice(Math.max(0, offset - 4), offset)) &&
    EMOJI_AFTER.test(whole.slice(offset + 1, offset + 3))
  )
    return char;
  const code = char.charCodeAt(0);
  return code <= LAST_C1 ? `\\x${hex(code, 2)}` : `\\u${hex(code, 4)}`;
}

const ZERO_WIDTH_JOINER = '\u200d';
// A pictograph, then optionally an emoji presentation selector or skin tone, right before the ZWJ; a pictograph right after it.
// eslint-disable-next-line no-misleading-character-class -- the class lists code points, not a drawn emoji
const EMOJI_BEFORE = /\p{Extended_Pictographic}[\u{fe0f}\u{1f3fb}-\u{1f3ff}]?$/u;
const EMOJI_AFTER = /^\p{Extended_Pictographic}/u;

function hex(code: number, digits: number) {
  return code.toString(16).padStart(digits, '0');
}

/** Each character of the class in the value written as a visible escape; a clean value returned as it is, without allocating. */
function visible(value: string, chars: RegExp) {
  return value.search(chars) < 0 ? value : value.replace(chars, visibleEscape);
}

export const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** The string as it may be printed in one cell or line: every control character (TAB and LF included), escape-sequence introducer, bidi control, zero-width or invisible character and lone surrogate written as a visible escape (a ZWJ inside an emoji excepted); a known secret redacted. */
export function safeText(value: string) {
  return visible(scrubSecrets(value), SINGLE_LINE);
}

export function safeMultiline(value: string) {
  return visible(scrubSecrets(value), MULTILINE);
}

export function hasUnsafeText(value: string) {
  return visible(value, SINGLE_LINE) !== value;
}

/** JSON.stringify, with the characters it leaves raw (DEL, C1 controls, bidi, zero-width, U+2028 and U+2029) written as `\uXXXX`. */
export function safeJson(value: unknown, space?: number) {
  let json = JSON.stringify(value, null, space) as string | undefined;
  if (json === undefined) return 'null';
  // Scrubbed name by name and value by value, so that a replacement never touches the JSON around it.
  if (holdsSecret(json)) json = JSON.stringify(safeDeep(value, scrubSecrets), null, space);
  return json.search(JSON_RAW) < 0 ? json : json.replace(JSON_RAW, (char) => `\\u${hex(char.charCodeAt(0), 4)}`);
}

/** A copy of a JSON value with every string and every object key passed through `escape` (safeText unless told): the one walker over names and values, for every output. */
export function safeDeep<T>(value: T, escape: (text: string) => string = safeText): T {
  if (typeof value === 'string') return escape(value) as T;
  if (Array.isArray(value)) return value.map((item) => safeDeep(item, escape)) as T;
  if (value !== null && typeof value === 'object') {
    // What JSON.stringify would write for it (a Date as its text).
    const { toJSON } = value as { toJSON?: unknown };
    if (typeof toJSON === 'function') return safeDeep(toJSON.call(value), escape) as T;
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [escape(key), safeDeep(item, escape)])) as T;
  }
  return value;
}

// Select Graphic Rendition only (colour, bold): what chalk writes; captured, so that a split keeps each at an odd index.
const SGR = /(\u001b\[[0-9;]*m)/;

/** For text we compose and colour ourselves (tables, cards, notes) that may carry server strings: colour codes pass, everything else that could act on a terminal is made visible; newlines stay. */
export function safeStyled(text: string) {
  const value = scrubSecrets(text);
  if (value.search(MULTILINE) < 0) return value;
  // Tabs and newlines are our own structure here (TSV, lines); values were filtered cell by cell.
  return value
    .split(SGR)
    .map((part, index) => (index % 2 ? part : part.split('\t').map(safeMultiline).join('\t')))
    .join('');
}

// Text that goes to a Slack channel (the keeper's alerts to --alert-url and --alert-cmd, whose `text` Slack and Slack-compatible chats render).
const SLACK_CONTROL = /[&<>]/g;
const ENTITY: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };

/** safeText, then Slack's three escapes: the string as a Slack message shows it, and nothing more. */
export function slackText(value: string) {
  return safeText(value).replace(SLACK_CONTROL, (char) => ENTITY[char]);
}
