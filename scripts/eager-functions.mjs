// The functions the main jobs run, compiled with dist/cli.js instead of at each call, so that Node's compile cache
// (bin/hedge.js) holds them too. Node writes that cache when it compiles the script, before it runs, so it holds
// what V8 compiles then: the top level and each function expression in parentheses, which V8 compiles at once as
// likely to be called at once. The build runs the main jobs on the script it just wrote, with V8's log of each
// function it compiles, and puts each such function expression (an arrow, a `function` expression) in parentheses:
// the same program, a larger cache, no compiling of those functions at start. Declarations and methods cannot be
// put in parentheses; they stay compiled when first called. docs/performance.md has what it saves.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parse } from 'acorn';

/** What the build runs to learn what a command compiles: `npm run bench`'s main jobs (the demo runs the client's path). */
const PROFILED = [
  ['--demo', 'quote', 'USDTNGN', 'buy', '10000', '--tenor', '3'],
  ['--demo', 'markets', '--json'],
];

/**
 * Rewrites `file` (and its linked source map) with the function expressions the profiled commands run in
 * parentheses. Returns how many, or a reason when the commands could not be run (the script is then left as it is).
 */
export function compileRunFunctionsEagerly(file) {
  const work = mkdtempSync(join(tmpdir(), 'hedge-eager-'));
  try {
    const ranges = new Set();
    for (const [at, args] of PROFILED.entries()) {
      const log = join(work, `functions-${at}.log`);
      const failure = runLogged(file, args, log, work);
      if (failure) return { reason: failure };
      for (const range of compiledFunctions(readFileSync(log, 'utf8'), pathToFileURL(file).href)) ranges.add(range);
    }
    const text = readFileSync(file, 'utf8');
    const wrapped = functionExpressions(text).filter((fn) => ranges.has(`${fn.v8Start},${fn.end}`));
    const inserts = wrapped.flatMap((fn) => [fn.start, fn.end]).sort((a, b) => a - b);
    writeFileSync(file, insertParentheses(text, wrapped));
    const map = JSON.parse(readFileSync(`${file}.map`, 'utf8'));
    map.mappings = shiftColumns(map.mappings, text, inserts);
    writeFileSync(`${file}.map`, JSON.stringify(map));
    return { count: wrapped.length };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** One command on the built script, as bin/hedge.js runs it, under a private HOME, with V8's log of what it compiles. */
function runLogged(file, args, log, work) {
  const driver =
    'const { main } = await import(process.argv[1]); process.exitCode = await main(process.argv.slice(2), { script: "hedge" });';
  const child = spawnSync(
    process.execPath,
    [
      '--log-function-events',
      `--logfile=${log}`,
      '--no-logfile-per-isolate',
      '--input-type=module',
      '-e',
      driver,
      pathToFileURL(file).href,
      ...args,
    ],
    {
      // Nothing of the builder's environment (a key, a base URL): the demo's own simulator, in a fresh HOME.
      env: { PATH: process.env.PATH, HOME: work, NO_COLOR: '1', LANG: 'C.UTF-8' },
      cwd: work,
      stdio: ['ignore', 'ignore', 'pipe'],
      encoding: 'utf8',
      timeout: 60_000,
    },
  );
  if (child.status === 0) return undefined;
  return `\`hedge ${args.join(' ')}\` ended with ${child.status ?? child.signal ?? child.error}: ${(child.stderr ?? '').trim().split('\n')[0]}`;
}

/** `start,end` of each function of `url` that V8 compiled (to bytecode), its top level aside. */
function compiledFunctions(log, url) {
  const lines = log.split('\n');
  const script = lines.find((line) => line.startsWith('script-details,') && line.split(',')[2] === url)?.split(',')[1];
  const ranges = [];
  for (const line of lines) {
    const [kind, event, id, start, end] = line.split(',');
    if (kind === 'function' && event === 'interpreter' && id === script && start !== '0')
      ranges.push(`${start},${end}`);
  }
  return ranges;
}

/**
 * Every arrow and `function` expression of the script, with where V8's log starts it (an arrow at its start, a
 * `function` at its parameters). Methods, accessors and declarations are left out: parentheses would change them; and those in parentheses already.
 */
function functionExpressions(text) {
  const found = [];
  const visit = (node, parent) => {
    // One in parentheses already is compiled with the script (an IIFE).
    if (parent?.type === 'ParenthesizedExpression');
    else if (node.type === 'ArrowFunctionExpression')
      found.push({ start: node.start, end: node.end, v8Start: node.start });
    else if (
      node.type === 'FunctionExpression' &&
      parent?.type !== 'MethodDefinition' &&
      !(parent?.type === 'Property' && (parent.method || parent.kind !== 'init'))
    )
      found.push({ start: node.start, end: node.end, v8Start: text.indexOf('(', node.id ? node.id.end : node.start) });
    for (const value of Object.values(node)) {
      if (Array.isArray(value)) for (const child of value) if (child?.type) visit(child, node);
      if (value?.type) visit(value, node);
    }
  };
  visit(parse(text, { ecmaVersion: 'latest', sourceType: 'module', preserveParens: true }), undefined);
  return found;
}

/** `text` with each function of `functions` in parentheses (nested ones too: each its own). */
function insertParentheses(text, functions) {
  const at = new Map();
  const add = (position, char) => at.set(position, (at.get(position) ?? '') + char);
  for (const fn of functions) {
    add(fn.start, '(');
    add(fn.end, ')');
  }
  let out = '';
  let from = 0;
  for (const position of [...at.keys()].sort((a, b) => a - b)) {
    const chars = at.get(position);
    // At one place, what closes (a function ending there) comes before what opens (one starting there).
    out += text.slice(from, position) + chars.replace(/\(/g, '') + chars.replace(/\)/g, '');
    from = position;
  }
  return out + text.slice(from);
}

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** The first value of a base64 VLQ segment, and where the rest of it starts. */
function firstVlq(segment) {
  let value = 0;
  let shift = 0;
  for (let at = 0; at < segment.length; at++) {
    const digit = BASE64.indexOf(segment[at]);
    value += (digit & 31) * 2 ** shift;
    if (!(digit & 32)) return [value % 2 ? -Math.floor(value / 2) : value / 2, at + 1];
    shift += 5;
  }
  throw new Error(`a broken source map segment: ${segment}`);
}

function vlq(number) {
  let value = number < 0 ? -number * 2 + 1 : number * 2;
  let out = '';
  do {
    const digit = value & 31;
    value = Math.floor(value / 32);
    out += BASE64[value > 0 ? digit | 32 : digit];
  } while (value > 0);
  return out;
}

/**
 * The source map's mappings with each generated column moved past the characters inserted before it on its line
 * (`inserts`: offsets into the old text, sorted); a column at an insert moves past it, so a function's mapping
 * stays on the function, not on its new parenthesis.
 */
function shiftColumns(mappings, text, inserts) {
  let next = 0;
  let lineStart = 0;
  return mappings
    .split(';')
    .map((group) => {
      const lineEnd = text.indexOf('\n', lineStart);
      const first = next;
      while (next < inserts.length && (lineEnd === -1 || inserts[next] <= lineEnd)) next++;
      const onLine = inserts.slice(first, next).map((offset) => offset - lineStart);
      lineStart = lineEnd + 1;
      if (onLine.length === 0) return group;
      let column = 0;
      let shifted = 0;
      let passed = 0;
      return group
        .split(',')
        .map((segment) => {
          if (!segment) return segment;
          const [delta, rest] = firstVlq(segment);
          column += delta;
          while (passed < onLine.length && onLine[passed] <= column) passed++;
          const moved = column + passed;
          const out = vlq(moved - shifted) + segment.slice(rest);
          shifted = moved;
          return out;
        })
        .join(',');
    })
    .join(';');
}
