// JSON read from outside: an input file's (a target, exposures or policy file) must say one thing; a journal row's is read within bounds.
import * as z from 'zod/mini';
import { en } from 'zod/locales';
import { sizeInWords } from './bounded-read.js';

z.config(en());

type Frame = { kind: 'object'; keys: Set<string>; key?: string; expectKey: boolean } | { kind: 'array'; index: number };

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

function stringEnd(text: string, start: number) {
  let at = start + 1;
  for (;;) {
    const quote = text.indexOf('"', at);
    if (quote < 0) return text.length;
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes += 1;
    if (backslashes % 2 === 0) return quote + 1;
    at = quote + 1;
  }
}

const NUMBER = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/** `text` with every number written as a string of its digits (`1.10` → `"1.10"`): what an exact reader takes as the
 * amount written, where JSON.parse would round it to a double first. */
export function numbersAsText(text: string) {
  let out = '';
  let from = 0;
  for (let at = 0; at < text.length;) {
    const code = text.charCodeAt(at);
    if (code === QUOTE) at = stringEnd(text, at);
    else if (code === 0x2d || (code >= 0x30 && code <= 0x39)) {
      NUMBER.lastIndex = at;
      const found = NUMBER.exec(text);
      const end = found ? at + found[0].length : at + 1;
      if (found) out += `${text.slice(from, at)}"${found[0]}"`;
      if (found) from = end;
      at = end;
    } else at += 1;
  }
  return out + text.slice(from);
}

export interface JsonBounds {
  maxBytes: number;
  /** Arrays and objects inside one another: a walk of the value (a copy, a print) recurses once per level. */
  maxDepth: number;
}

const NESTING = /["[\]{}]/g;

/** The value `text` holds, or why not (`problem`: over the size, nested too deep, not JSON); `bounds` are checked on the text before JSON.parse, so nothing that walks the value can overflow the stack. Every JSON door of hedge reads through it.
 * By default any size, and 64 levels: deeper than any document hedge reads or writes (an answer, a file, a row: a few
 * levels), shallow enough for every walk of it (a copy, a scrub, a print, a zod check). */
export function parseBoundedJson(
  text: string,
  { maxBytes, maxDepth }: JsonBounds = { maxBytes: Infinity, maxDepth: 64 },
): { value: unknown; problem?: undefined } | { problem: string; syntax?: string } {
  if (maxBytes !== Infinity && Buffer.byteLength(text) > maxBytes) return { problem: `over ${sizeInWords(maxBytes)}` };
  // More than `maxDepth` arrays or objects open at once somewhere: counted on the text, without recursion.
  let depth = 0;
  NESTING.lastIndex = 0;
  for (let match; (match = NESTING.exec(text));) {
    const char = match[0];
    if (char === '"') NESTING.lastIndex = stringEnd(text, match.index);
    else if (char === ']' || char === '}') depth -= 1;
    else if ((depth += 1) > maxDepth) return { problem: `nested deeper than ${maxDepth} levels` };
  }
  try {
    return { value: JSON.parse(text) };
  } catch (error) {
    return { problem: 'not valid JSON', syntax: (error as Error).message };
  }
}

/**
 * Where and why `text` is not JSON, as one clause for a message (`Expected double-quoted property name (line 3,
 * column 1)`; `it ends before the JSON is complete (line 9, column 2)`): `syntax` is JSON.parse's message. Its own
 * words only where they quote no input (an "Unexpected token" quotes it: only where it stopped is said).
 */
export function jsonSyntaxWhere(text: string, syntax: string) {
  const positioned = /^(.*?) in JSON at position (\d+)/.exec(syntax);
  const at = positioned ? Number(positioned[2]) : firstBadOffset(text);
  const before = text.slice(0, at).split('\n');
  const where = `line ${before.length}, column ${before.at(-1)!.length + 1}`;
  if (at >= text.trimEnd().length || /^Unexpected end of JSON input/.test(syntax))
    return `it ends before the JSON is complete (${where})`;
  const reason = positioned && !/["'`]/.test(positioned[1].replace(/'[}\]:,]'/g, '')) ? positioned[1] : undefined;
  return `${reason ?? 'a character that JSON does not allow there'} (${where})`;
}

/** The offset of the first character JSON cannot read in `text` (its length when every prefix reads as unfinished). */
function firstBadOffset(text: string) {
  const fineSoFar = (prefix: string) => {
    try {
      JSON.parse(prefix);
      return true;
    } catch (error) {
      return /end of JSON input|Unterminated string|at position \d+$/.test((error as Error).message)
        ? !/at position/.test((error as Error).message) ||
            Number(/at position (\d+)/.exec((error as Error).message)![1]) >= prefix.length
        : false;
    }
  };
  let [low, high] = [0, text.length];
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (fineSoFar(text.slice(0, middle))) low = middle;
    else high = middle - 1;
  }
  return low;
}

/** The object `text` holds as `schema` reads it, else (a string) why not (parseBoundedJson, then zod). */
export function readBoundedJson<S extends z.ZodMiniType<object>>(text: string, bounds: JsonBounds, schema: S) {
  const parsed = parseBoundedJson(text, bounds);
  if (parsed.problem !== undefined) return parsed.problem;
  const { value } = parsed;
  const checked = schema.safeParse(value);
  // As written, keys in their order: the schema checks, never rewrites.
  return checked.success ? (value as z.infer<S>) : issueWords(checked.error);
}

/** zod's first issue in a line: the field and what came there (`request.method: Invalid input: expected string, received number`). */
export function issueWords(error: z.core.$ZodError) {
  const [issue] = error.issues;
  if (!issue.path.length && issue.code === 'invalid_type') return 'not a JSON object';
  return `${issue.path.join('.')}: ${issue.message}`;
}

/** Every key that appears more than once in one object of `text`, at most `limit` of them. */
export function repeatedKeys(text: string, limit = Infinity) {
  const stack: Frame[] = [];
  const found = [];
  let at = 0;
  while (at < text.length && found.length < limit) {
    const code = text.charCodeAt(at);
    const top = stack.at(-1);
    if (code === QUOTE) {
      const end = stringEnd(text, at);
      if (top?.kind === 'object' && top.expectKey) {
        const key = JSON.parse(text.slice(at, end)) as string;
        if (top.keys.has(key))
          found.push({
            key,
            path: stack.slice(0, -1).map((frame) => (frame.kind === 'object' ? (frame.key ?? '') : frame.index)),
          });
        top.keys.add(key);
        top.key = key;
        top.expectKey = false;
      }
      at = end;
      continue;
    }
    if (code === 0x7b) stack.push({ kind: 'object', keys: new Set(), expectKey: true });
    else if (code === 0x5b) stack.push({ kind: 'array', index: 0 });
    else if (code === 0x7d || code === 0x5d) stack.pop();
    else if (code === 0x2c && top) {
      if (top.kind === 'object') top.expectKey = true;
      else top.index += 1;
    }
    at += 1;
  }
  return found;
}

/** A row file's repeated keys as its problems (target and exposures files: an array of rows, or an object holding it under `listKey`): `item 3: the key notional_usd appears more than once; …`. */
export function repeatedKeyProblems(text: string, listKey: string, known: readonly string[]) {
  return repeatedKeys(text).map(({ key, path }) => {
    const named = known.includes(key) || key === listKey ? `the key ${key}` : 'a key';
    const index =
      typeof path[0] === 'number' ? path[0] : path[0] === listKey && typeof path[1] === 'number' ? path[1] : undefined;
    return index === undefined
      ? {
          line: 0,
          message: `${named} appears more than once in one object; each key may appear once (JSON would keep only the last).`,
        }
      : {
          line: index + 1,
          message: `item ${index + 1}: ${named} appears more than once; each key may appear once (JSON would keep only the last).`,
        };
  });
}
