// The functions the main jobs run, compiled with dist/cli.js instead of at each call, so that Node's compile cache
// (bin/hedge.js) holds them too. Node writes that cache when it compiles the script, before it runs, so it holds
// what V8 compiles then: the top level and each function expression in parentheses, which V8 compiles at once as
// likely to be called at once. The build runs the main jobs on the script it just wrote, with V8's log of each
// function it compiles, and rewrites each such function so that V8 compiles it with the script: an arrow or a
// `function` expression is put in parentheses; a function declaration becomes `var name=(function(…){…});` at the
// top of its scope (where the declaration was initialised before anything ran). Methods stay as they are.
// The same program, a larger cache, no compiling of those functions at start: docs/performance.md has what it saves.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { decode, encode } from '@jridgewell/sourcemap-codec';
import { parse } from 'acorn';

/** What the build runs to learn what a command compiles: `npm run bench`'s main jobs (the demo runs the client's path). */
const PROFILED = [
  ['--demo', 'quote', 'USDTNGN', 'buy', '10000', '--tenor', '3'],
  ['--demo', 'markets', '--json'],
];

/**
 * Rewrites `file` (and its linked source map) so that the functions the profiled commands ran are compiled with the
 * script. Returns how many, or a reason when the commands could not be run (the script is then left as it is).
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
    const edits = eagerEdits(text, ranges);
    const { out, pieces } = render(text, edits);
    writeFileSync(file, out);
    const map = JSON.parse(readFileSync(`${file}.map`, 'utf8'));
    map.mappings = remapped(map.mappings, text, out, pieces);
    writeFileSync(`${file}.map`, JSON.stringify(map));
    return { count: edits.wraps.length + edits.moved };
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
 * What to rewrite: the arrows and `function` expressions of `ranges` to put in parentheses (not those in parentheses
 * already, an IIFE's), and the function declarations of `ranges` to move, by where their scope's body starts (after
 * its directives). A declaration moves only from the top of a function body or of the script (not from a block), and
 * only when its name is declared once there. V8's log starts an arrow at its start and any other function at its
 * parameters.
 */
function eagerEdits(text, ranges) {
  const wraps = [];
  const scopes = new Map();
  const ran = (node) =>
    ranges.has(
      `${node.type === 'ArrowFunctionExpression' ? node.start : text.indexOf('(', node.id ? node.id.end : node.start)},${node.end}`,
    );
  const bodyStart = (body) => body.body.find((statement) => !statement.directive)?.start ?? body.end - 1;
  const visit = (node, parent, scope) => {
    const isFunction = /Function/.test(node.type);
    if (isFunction && parent?.type !== 'ParenthesizedExpression' && ran(node)) {
      if (
        node.type === 'ArrowFunctionExpression' ||
        (node.type === 'FunctionExpression' &&
          parent?.type !== 'MethodDefinition' &&
          !(parent?.type === 'Property' && (parent.method || parent.kind !== 'init')))
      )
        wraps.push(node);
    }
    if (node.type === 'FunctionDeclaration' && scope?.node === parent) scope.declared.push(node);
    let inner = scope;
    if (node.type === 'Program') inner = { node, at: bodyStart(node), declared: [] };
    else if (isFunction && node.body.type === 'BlockStatement')
      inner = { node: node.body, at: bodyStart(node.body), declared: [] };
    if (inner !== scope) scopes.set(inner.at, inner);
    for (const [key, value] of Object.entries(node)) {
      const to = key === 'body' || key === 'params' ? inner : scope;
      if (Array.isArray(value)) {
        for (const child of value) if (child?.type) visit(child, node, to);
      } else if (value?.type) visit(value, node, to);
    }
  };
  visit(parse(text, { ecmaVersion: 'latest', sourceType: 'module', preserveParens: true }), undefined, undefined);
  const moves = new Map();
  let moved = 0;
  for (const { at, declared } of scopes.values()) {
    const names = declared.map((node) => node.id.name);
    const moving = declared.filter(
      (node) => ran(node) && names.indexOf(node.id.name) === names.lastIndexOf(node.id.name),
    );
    if (moving.length === 0) continue;
    moves.set(at, moving);
    moved += moving.length;
  }
  return { wraps, moves, moved };
}

/**
 * `text` rewritten by `edits`, and the pieces of it copied as they were (`[from, to, at]`: text[from, to) is out's
 * from `at`), for the source map.
 */
function render(text, { wraps, moves }) {
  const points = [];
  for (const node of wraps) points.push({ at: node.start, kind: 'open' }, { at: node.end, kind: 'close' });
  for (const [at, declarations] of moves) {
    points.push({ at, kind: 'declare', declarations });
    for (const node of declarations) points.push({ at: node.start, kind: 'skip', node });
  }
  // At one place: what closes first (a function ending there), then what is declared, then what opens.
  const order = { close: 0, declare: 1, skip: 2, open: 3 };
  points.sort((a, b) => a.at - b.at || order[a.kind] - order[b.kind]);
  const pieces = [];
  let out = '';
  const copy = (from, to) => {
    if (to <= from) return;
    pieces.push([from, to, out.length]);
    out += text.slice(from, to);
  };
  // Renders text[from, to) with the edits inside it; `first` is the index of the first point at or after `from`.
  const emit = (from, to) => {
    let first = 0;
    for (let high = points.length; first < high;) {
      const middle = (first + high) >> 1;
      if (points[middle].at < from) first = middle + 1;
      else high = middle;
    }
    let at = from;
    for (let index = first; index < points.length && points[index].at <= to; index++) {
      const point = points[index];
      if (point.at < at || (point.at === to && point.kind !== 'close')) continue;
      copy(at, point.at);
      at = point.at;
      if (point.kind === 'open') out += '(';
      else if (point.kind === 'close') out += ')';
      else if (point.kind === 'skip') at = point.node.end;
      else
        for (const node of point.declarations) {
          out += `var ${node.id.name}=(`;
          copy(node.start, node.id.start);
          emit(node.id.end, node.end);
          out += ');';
        }
    }
    copy(at, to);
  };
  emit(0, text.length);
  return { out, pieces };
}

/** The segments of a source map's mappings, each `[offset in the text, source, line, column, name?]`. */
function decoded(mappings, text) {
  const segments = [];
  let lineStart = 0;
  for (const line of decode(mappings)) {
    for (const [column, ...rest] of line) segments.push([lineStart + column, ...rest]);
    const next = text.indexOf('\n', lineStart);
    lineStart = next === -1 ? text.length : next + 1;
  }
  return segments;
}

/** The mappings of `text` moved to where `pieces` put each mapped place in `out`; a place not copied is dropped. */
function remapped(mappings, text, out, pieces) {
  const byStart = pieces.toSorted((a, b) => a[0] - b[0]);
  const moved = [];
  for (const [offset, ...rest] of decoded(mappings, text)) {
    let low = 0;
    for (let high = byStart.length; low < high;) {
      const middle = (low + high) >> 1;
      if (byStart[middle][0] <= offset) low = middle + 1;
      else high = middle;
    }
    const piece = byStart[low - 1];
    if (piece && offset < piece[1]) moved.push([piece[2] + offset - piece[0], ...rest]);
  }
  moved.sort((a, b) => a[0] - b[0]);
  const lines = [[]];
  let lineStart = 0;
  let lineEnd = out.indexOf('\n');
  for (const [offset, ...fields] of moved) {
    while (lineEnd !== -1 && offset > lineEnd) {
      lines.push([]);
      lineStart = lineEnd + 1;
      lineEnd = out.indexOf('\n', lineStart);
    }
    lines.at(-1).push([offset - lineStart, ...fields]);
  }
  return encode(lines);
}
