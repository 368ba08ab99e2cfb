// JSON read from outside, every door through one bounded reader: a file says one thing (each key once in an object); a server's answer is read tolerantly; all within bounds.
import * as z from 'zod/mini';
import { en } from 'zod/locales';
import { sizeInWords } from './bounded-read.js';

z.config(en());

type Frame = { kind: 'object'; keys: Set<string>; key?: string; expectKey: boolean } | { kind: 'array'; index: number };

const QUOTE = 0x22;
const COLON = 0x3a;
/** JSON's whitespace: space, tab, LF, CR. */
const WHITESPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);
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

/** How a document is read besides its bounds. */
interface JsonReading extends JsonBounds {
  /** The keys a message may name (its reader's own); any other is "a key" at its line and column, so that a file given
   * by mistake is not echoed. */
  named: readonly string[];
  /** An answer of the server keeps the last of two equal keys, as JSON.parse does (the contract: read tolerantly); a
   * file says one thing, so two equal keys in one object are refused. */
  lastKeyWins: boolean;
}

/** A key given twice in one object: the object's place in the document (keys and indexes), and where the second is. */
interface RepeatedKey {
  key: string;
  path: Array<string | number>;
  line: number;
  column: number;
}

const NESTING = /["[\]{}]/g;

/** The value `text` holds, or why not (`problem`: over the size, nested too deep, not JSON, a key given twice in one
 * object: then `repeated` lists each, and `value` is what JSON.parse kept); `bounds` are checked on the text before
 * JSON.parse, so nothing that walks the value can overflow the stack. Every JSON door of hedge reads through it.
 * By default any size, and 64 levels: deeper than any document hedge reads or writes (an answer, a file, a row: a few
 * levels), shallow enough for every walk of it (a copy, a scrub, a print, a zod check). */
export function parseBoundedJson(
  text: string,
  { maxBytes = Infinity, maxDepth = 64, named = [], lastKeyWins = false }: Partial<JsonReading> = {},
):
  | { value: unknown; problem?: undefined; repeated?: undefined }
  | { problem: string; syntax?: string; repeated?: undefined }
  | { problem: string; value: unknown; repeated: RepeatedKey[]; syntax?: undefined } {
  if (maxBytes !== Infinity && Buffer.byteLength(text) > maxBytes) return { problem: `over ${sizeInWords(maxBytes)}` };
  // More than `maxDepth` arrays or objects open at once somewhere: counted on the text, without recursion.
  let depth = 0;
  // In valid JSON a key is a string a colon follows: more of them than the value holds is a key given twice.
  let keys = 0;
  NESTING.lastIndex = 0;
  for (let match; (match = NESTING.exec(text));) {
    const char = match[0];
    if (char === '"') {
      let after = (NESTING.lastIndex = stringEnd(text, match.index));
      while (WHITESPACE.has(text.charCodeAt(after))) after += 1;
      if (text.charCodeAt(after) === COLON) keys += 1;
    } else if (char === ']' || char === '}') depth -= 1;
    else if ((depth += 1) > maxDepth) return { problem: `nested deeper than ${maxDepth} levels` };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { problem: 'not valid JSON', syntax: (error as Error).message };
  }
  const repeated = lastKeyWins || keys === keyCount(value) ? [] : repeatedKeys(text);
  if (!repeated.length) return { value };
  const [{ key, line, column }] = repeated;
  return {
    problem: `${named.includes(key) ? `the key ${key}` : 'a key'} appears more than once in one object (line ${line}, column ${column}); each key may appear once (JSON would keep only the last)`,
    value,
    repeated,
  };
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
      const { message } = error as Error;
      return (
        /end of JSON input|Unterminated string|at position \d+$/.test(message) &&
        (!/at position/.test(message) || Number(/at position (\d+)/.exec(message)![1]) >= prefix.length)
      );
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
  const parsed = parseBoundedJson(text, { ...bounds, named: keysOf(schema) });
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

/** How many keys the objects of a parsed value hold, at any depth. */
function keyCount(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0;
  const items = Array.isArray(value) ? value : Object.values(value);
  let count = Array.isArray(value) ? 0 : items.length;
  for (const item of items) if (typeof item === 'object') count += keyCount(item);
  return count;
}

const KNOWN_KEYS = new WeakMap<z.ZodMiniType, string[]>();

/** The keys `schema` knows, at any depth: those a message may name (worked out once a schema). */
function keysOf(schema: z.ZodMiniType) {
  let keys = KNOWN_KEYS.get(schema);
  if (!keys) KNOWN_KEYS.set(schema, (keys = [...keysWithin(schema, new Set())]));
  return keys;
}

function keysWithin(schema: z.ZodMiniType, keys: Set<string>): Set<string> {
  const def = schema._zod.def as unknown as Record<string, unknown>;
  const inner = (value: unknown) => {
    if (value) keysWithin(value as z.ZodMiniType, keys);
  };
  const shape = def.type === 'object' ? (def.shape as object) : {};
  for (const key of Object.keys({ ...shape, ...(def.type === 'enum' ? (def.entries as object) : {}) })) keys.add(key);
  for (const part of [...Object.values(shape), ...((def.options as unknown[] | undefined) ?? [])]) inner(part);
  for (const part of ['innerType', 'in', 'element', 'keyType', 'valueType']) inner(def[part]);
  return keys;
}

const STRUCTURE = /["[\]{},]/g;

/** Every key that appears more than once in one object of `text` (valid JSON), where the second is. */
function repeatedKeys(text: string) {
  const stack: Frame[] = [];
  const found: RepeatedKey[] = [];
  let line = 1;
  let lineStart = 0;
  // Offsets only grow: the lines are counted once. (JSON strings hold no raw newline.)
  const where = (at: number) => {
    for (
      let newline = text.indexOf('\n', lineStart);
      newline >= 0 && newline < at;
      newline = text.indexOf('\n', lineStart)
    ) {
      line += 1;
      lineStart = newline + 1;
    }
    return { line, column: at - lineStart + 1 };
  };
  STRUCTURE.lastIndex = 0;
  for (let match; (match = STRUCTURE.exec(text));) {
    const at = match.index;
    const top = stack.at(-1);
    const code = text.charCodeAt(at);
    if (code === QUOTE) {
      const end = stringEnd(text, at);
      STRUCTURE.lastIndex = end;
      if (top?.kind === 'object' && top.expectKey) {
        const raw = text.slice(at + 1, end - 1);
        const key = raw.includes('\\') ? (JSON.parse(text.slice(at, end)) as string) : raw;
        if (top.keys.has(key))
          found.push({
            key,
            path: stack.slice(0, -1).map((frame) => (frame.kind === 'object' ? (frame.key ?? '') : frame.index)),
            ...where(at),
          });
        top.keys.add(key);
        top.key = key;
        top.expectKey = false;
      }
    } else if (code === 0x7b) stack.push({ kind: 'object', keys: new Set(), expectKey: true });
    else if (code === 0x5b) stack.push({ kind: 'array', index: 0 });
    else if (code === 0x7d || code === 0x5d) stack.pop();
    else if (top?.kind === 'object') top.expectKey = true;
    else if (top) top.index += 1;
  }
  return found;
}

/** A row file's repeated keys as its problems (target and exposures files: an array of rows, or an object holding it under `listKey`): `item 3: the key notional_usd appears more than once (line 4, column 30); …`. */
export function repeatedKeyProblems(repeated: readonly RepeatedKey[], listKey: string, known: readonly string[]) {
  return repeated.map(({ key, path, line, column }) => {
    const named = known.includes(key) || key === listKey ? `the key ${key}` : 'a key';
    const index =
      typeof path[0] === 'number' ? path[0] : path[0] === listKey && typeof path[1] === 'number' ? path[1] : undefined;
    const once = `(line ${line}, column ${column}); each key may appear once (JSON would keep only the last).`;
    return index === undefined
      ? { line: 0, message: `${named} appears more than once in one object ${once}` }
      : { line: index + 1, message: `item ${index + 1}: ${named} appears more than once ${once}` };
  });
}
