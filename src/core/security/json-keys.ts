// JSON read from outside: an input file's (a target, exposures or policy file) must say one thing; a journal row's is read within bounds.
import * as z from 'zod/mini';
import { en } from 'zod/locales';
import { sizeInWords } from './bounded-read.js';

z.config(en());

type Frame = { keys?: Set<string>; key?: string; index: number };

/** Where the string opening at `start` ends (past its closing quote). */
function stringEnd(text: string, start: number) {
  let at = start + 1;
  for (;;) {
    const quote = text.indexOf('"', at);
    if (quote < 0) return text.length;
    let backslashes = 0;
    while (text[quote - 1 - backslashes] === '\\') backslashes += 1;
    if (backslashes % 2 === 0) return quote + 1;
    at = quote + 1;
  }
}

export interface JsonBounds {
  maxBytes: number;
  /** Arrays and objects inside one another: a walk of the value (a copy, a print) recurses once per level. */
  maxDepth: number;
}

const STRUCTURE = /["[\]{},]/g;

/** The arrays and objects of `text`, walked on the text without recursion: whether they nest deeper than `maxDepth` (where the walk stops), and every key that appears more than once in one object, with the keys and indexes leading to it. */
function walkJson(text: string, maxDepth = Infinity) {
  const stack: Frame[] = [];
  const repeated = [];
  // Counted apart from the stack: a closer with nothing open takes a level off, as the text says.
  let depth = 0;
  STRUCTURE.lastIndex = 0;
  for (let match; (match = STRUCTURE.exec(text));) {
    const char = match[0];
    const top = stack.at(-1);
    if (char === '"') {
      STRUCTURE.lastIndex = stringEnd(text, match.index);
      // A string is a key where it opens an object or follows one of its commas.
      if (top?.keys && top.key === undefined) {
        const key = JSON.parse(text.slice(match.index, STRUCTURE.lastIndex)) as string;
        if (top.keys.has(key))
          repeated.push({ key, path: stack.slice(0, -1).map((frame) => frame.key ?? frame.index) });
        top.keys.add(key);
        top.key = key;
      }
    } else if (char === ',') {
      if (top?.keys) top.key = undefined;
      else if (top) top.index += 1;
    } else if (char === '{' || char === '[') {
      if ((depth += 1) > maxDepth) return { deeper: true, repeated };
      stack.push({ keys: char === '{' ? new Set() : undefined, index: 0 });
    } else {
      depth -= 1;
      stack.pop();
    }
  }
  return { deeper: false, repeated };
}

/** The object `text` holds as `schema` reads it, else (a string) why not; `bounds` are checked before JSON.parse, so nothing that walks the value can overflow the stack. */
export function readBoundedJson<S extends z.ZodMiniType<object>>(
  text: string,
  { maxBytes, maxDepth }: JsonBounds,
  schema: S,
) {
  if (Buffer.byteLength(text) > maxBytes) return `over ${sizeInWords(maxBytes)}`;
  if (walkJson(text, maxDepth).deeper) return `nested deeper than ${maxDepth} levels`;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return 'not valid JSON';
  }
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

/** Every key that appears more than once in one object of `text`. */
export function repeatedKeys(text: string) {
  return walkJson(text).repeated;
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
