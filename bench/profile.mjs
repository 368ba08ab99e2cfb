// Where one command's CPU goes: `--cpu-prof` of warm runs (after one that makes the demo
// state and fills the compile cache), mapped through dist/'s source maps to src/ files and packages:
// top self time, time by the nearest src/ file or package on the stack, and what the command
// loaded. After `npm run build`: node bench/profile.mjs [--node <binary>] [--runs 5] [-- <hedge args>]
// (default: the machine's node, `--demo quote USDTNGN buy 10000 --tenor 3`); HEDGE_* variables are passed on.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const { values, positionals } = parseArgs({
  options: { node: { type: 'string', default: process.execPath }, runs: { type: 'string', default: '5' } },
  allowPositionals: true,
});
const args = positionals.length > 0 ? positionals : ['--demo', 'quote', 'USDTNGN', 'buy', '10000', '--tenor', '3'];
const work = mkdtempSync(join(tmpdir(), 'hedge-profile-'));
const env = {
  // A server's variables (`hedge sandbox serve` prints them) profile a command against it: `-- markets --json`.
  ...Object.fromEntries(Object.entries(process.env).filter(([name]) => name.startsWith('HEDGE_'))),
  PATH: process.env.PATH,
  HOME: work,
  HEDGE_CONFIG_DIR: join(work, 'config'),
  XDG_STATE_HOME: join(work, 'state'),
  NO_COLOR: '1',
  LANG: 'C.UTF-8',
};
const run = (flags, extra = {}) =>
  spawnSync(values.node, [...flags, join(ROOT, 'bin', 'hedge.js'), ...args], {
    env: { ...env, ...extra },
    encoding: 'utf8',
  });

/** What a source path is counted under: a package, Node's own code, or the src/ file. */
function moduleOf(source) {
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(source)?.[1];
  if (pkg) return pkg;
  if (source.startsWith('node:'))
    return source.startsWith('node:internal/modules') ? 'node: module loader' : 'node: other built-ins';
  return source.replace(/^.*?\/src\//, 'src/') || '(no source)';
}

const maps = new Map();
function sourceOf(url, line, column) {
  if (!url.startsWith('file://') || !url.includes('/dist/')) return url;
  const file = fileURLToPath(url);
  if (!maps.has(file)) maps.set(file, new SourceMap(JSON.parse(readFileSync(`${file}.map`, 'utf8'))));
  const entry = maps.get(file).findEntry(line, column);
  return entry.originalSource ? entry.originalSource.replace(/^(\.\.\/)+/, '') : file;
}

try {
  run([]);
  const log = run([], { NODE_DEBUG_NATIVE: 'COMPILE_CACHE' }).stderr;
  for (let index = 0; index < Number(values.runs); index++)
    run(['--cpu-prof', '--cpu-prof-interval', '100', '--cpu-prof-dir', join(work, 'prof')]);
  const self = new Map();
  const byCaller = new Map();
  const add = (map, key, ms) => map.set(key, (map.get(key) ?? 0) + ms);
  const files = readdirSync(join(work, 'prof'));
  for (const name of files) {
    const profile = JSON.parse(readFileSync(join(work, 'prof', name), 'utf8'));
    const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
    const parents = new Map(profile.nodes.flatMap((node) => (node.children ?? []).map((child) => [child, node.id])));
    // The nearest frame of hedge's own or of a package: Node's built-ins and its loader count to the code that called them.
    const caller = (id) => {
      for (let at = id; at !== undefined; at = parents.get(at)) {
        const { url, lineNumber, columnNumber } = nodes.get(at).callFrame;
        if (url.startsWith('file://')) return moduleOf(sourceOf(url, lineNumber, columnNumber));
      }
      return 'Node before hedge (bootstrap, (program), gc outside hedge)';
    };
    profile.samples.forEach((id, index) => {
      const ms = (profile.timeDeltas[index + 1] ?? 0) / 1000 / files.length;
      const { functionName, url, lineNumber, columnNumber } = nodes.get(id).callFrame;
      const source = sourceOf(url, lineNumber, columnNumber);
      if (functionName === '(idle)') return;
      add(
        self,
        `${functionName || '(anonymous)'} ${source ? `${source.replace(/^.*node_modules\//, '')}:${lineNumber + 1}` : ''}`,
        ms,
      );
      add(byCaller, caller(id), ms);
    });
  }
  const top = (map, count) => [...map].sort((a, b) => b[1] - a[1]).slice(0, count);
  const total = [...byCaller.values()].reduce((sum, ms) => sum + ms, 0);
  console.log(
    `${values.node} (${run(['--version']).stdout.trim()}): hedge ${args.join(' ')} — ${files.length} warm runs, ${total.toFixed(1)} ms sampled CPU per run (main thread)\n\nTop self time, ms per run:`,
  );
  for (const [name, ms] of top(self, 15)) console.log(`${ms.toFixed(1).padStart(7)}  ${name}`);
  // The dist/ files the command loaded, and what each holds (bytes of original source per module).
  const loaded = new Map();
  for (const url of new Set(log.match(/file:\/\/\S+\/dist\/\S+\.js/g) ?? [])) {
    const map = JSON.parse(readFileSync(`${fileURLToPath(url)}.map`, 'utf8'));
    map.sources.forEach((source, index) =>
      add(loaded, moduleOf(source.replace(/^(\.\.\/)+/, '')), map.sourcesContent?.[index]?.length ?? 0),
    );
  }
  console.log(
    '\nBy the nearest src/ file or package on the stack (built-ins and loading counted to their caller), ms per run:',
  );
  for (const [name, ms] of top(byCaller, 30)) console.log(`${ms.toFixed(1).padStart(7)}  ${name}`);
  console.log(`\nLoaded: ${loaded.size} modules (src/ files and packages), kB of source:`);
  for (const [name, bytes] of top(loaded, Infinity)) console.log(`${(bytes / 1024).toFixed(1).padStart(7)}  ${name}`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
