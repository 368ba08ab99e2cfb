// `hedge api` parameters, as `gh api` takes them: `-f key=value` is a string, `-F key=value` is typed (true, false, null and numbers become JSON literals; `@file` is the file's text, `@-` stdin's); `key[sub]=…` nests an object and `key[]=…` appends to a list.
import { UsageError } from './errors.js';
import { isObject } from './objects.js';
import { echo, notAllowed } from './input.js';

type ParamValue = string | number | boolean | null | ParamValue[] | { [key: string]: ParamValue };
type Params = Record<string, ParamValue>;

export interface ParamInput {
  raw: string;
  typed: boolean;
}

// JSON's own literals and number grammar: `-F` reads them as JSON does.
const LITERAL = /^(true|false|null|-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?)$/;
const KEY = /^([^[\]=]+)((?:\[[^[\]=]*\])*)$/;

/** Puts `value` at `path` (`a[b][]` → ['a', 'b', ''], '' meaning "append to a list"); `refuse` says why not. */
function place(target: Params, path: string[], value: ParamValue, refuse: (problem: string) => UsageError) {
  let node: Record<string, ParamValue> | ParamValue[] = target;
  for (const [index, segment] of path.entries()) {
    const next = path[index + 1];
    const nextIsList = next === '';
    if (Array.isArray(node)) {
      // `key[]` is last by construction: append.
      node.push(value);
      return;
    }
    if (next === undefined) {
      if (Object.hasOwn(node, segment)) throw refuse(` sets ${segment} a second time.`);
      node[segment] = value;
      return;
    }
    const existing = node[segment];
    if (existing === undefined) node[segment] = nextIsList ? [] : group();
    else if (nextIsList ? !Array.isArray(existing) : !isObject(existing))
      throw refuse(` mixes a ${nextIsList ? 'list' : 'group'} with another value under ${segment}.`);
    node = node[segment] as Record<string, ParamValue> | ParamValue[];
  }
}

// Without a prototype, every key typed is data: `__proto__[x]=1` is a group named __proto__, never Object.prototype.
const group = (): Params => Object.create(null);

/** Every -f/-F parameter, in the order typed, as one object. */
export function buildParams(inputs: readonly ParamInput[], readFile: (path: string) => string) {
  const params = group();
  for (const { raw, typed } of inputs) {
    const refuse = (problem: string) => new UsageError(`${typed ? '-F' : '-f'}: ${echo(raw)}${problem}`);
    const equals = raw.indexOf('=');
    if (equals <= 0) throw refuse(' is not key=value.');
    const key = KEY.exec(raw.slice(0, equals));
    if (!key) throw refuse(' has no usable key; expected key=value, key[sub]=value or key[]=value.');
    const rest = [...key[2].matchAll(/\[([^[\]]*)\]/g)].map((part) => part[1]);
    if (rest.slice(0, -1).includes('')) throw refuse(': [] may only come last in a key.');
    const text = raw.slice(equals + 1);
    // A typed (-F) value: literals and numbers as JSON (a number too big for one stays text), `@file` read by `readFile`.
    let value: ParamValue = typed && LITERAL.test(text) ? JSON.parse(text) : text;
    if (Math.abs(value as number) === Infinity) value = text;
    else if (typed && text.startsWith('@')) {
      if (text === '@') throw refuse(': @ needs a file name (or @- for stdin).');
      value = readFile(text.slice(1));
    }
    place(params, [key[1], ...rest], value, refuse);
  }
  return params;
}

/** Parameters of a GET as a query string (`a=1&b=x&l=1&l=2`); a nested group cannot go there. */
export function queryStringOf(params: Params) {
  const search = new URLSearchParams();
  const scalar = (key: string, value: ParamValue) => {
    if (value !== null && typeof value === 'object')
      throw new UsageError(
        `-f/-F: ${key} is a group (key[sub]=…); a GET carries its parameters in the query string, which has no groups.`,
      );
    return value === null ? '' : String(value);
  };
  // A list is its items, each under the key.
  for (const [key, value] of Object.entries(params))
    for (const item of [value].flat()) search.append(key, scalar(key, item));
  return search.toString();
}

const FORBIDDEN_HEADERS = new Map([
  ['authorization', 'the API key is sent from the profile, never from the command line'],
  ['proxy-authorization', 'credentials do not go on the command line'],
  ['cookie', 'credentials do not go on the command line'],
  ['idempotency-key', 'hedge makes the key of a write itself and journals it; --idempotency-key resumes a known one'],
  ['host', "the host is the base URL's"],
  ['content-length', "the length is the body's"],
  ['transfer-encoding', 'the body is sent whole'],
  ['connection', "the connection is hedge's"],
]);

/** `-H "Name: value"` → [name, value]; refused: a malformed one, and headers that are hedge's to set. */
export function parseHeader(raw: string) {
  const colon = raw.indexOf(':');
  const name = colon < 0 ? '' : raw.slice(0, colon).trim();
  const value = colon < 0 ? '' : raw.slice(colon + 1).trim();
  if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) throw new UsageError(`-H: ${echo(raw)} is not "Name: value".`);
  // What HTTP lets a header carry; anything else Node refuses only once the request is under way.
  if (/[^\t\u0020-\u007e\u0080-\u00ff]/.test(value))
    throw new UsageError(
      `-H: the value of ${name} has a line break, a control character or a character beyond Latin-1; a header value is printable ASCII or Latin-1 text; nothing was sent.`,
    );
  const why = FORBIDDEN_HEADERS.get(name.toLowerCase());
  if (why) throw new UsageError(`-H: ${name} cannot be set (${why}); nothing was sent.`);
  return [name, value];
}

export const API_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export type ApiMethod = (typeof API_METHODS)[number];

export function parseApiMethod(raw: string | undefined) {
  if (raw === undefined) return 'GET';
  const upper = raw.trim().toUpperCase();
  if ((API_METHODS as readonly string[]).includes(upper)) return upper as ApiMethod;
  throw notAllowed('-X', raw, API_METHODS.join(', '));
}
