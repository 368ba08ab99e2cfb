// `npm run bench` (after `npm run build`): measures hedge against the floors it cannot beat and at
// scale, and writes bench/results.md with the goals of issue 31 (and the earlier ones still
// watched), each marked met or not. Benchmarks, not tests: nothing here fails on time (it fails
// only when a command does not do what it should). docs/performance.md explains the figures.
//
// Every ratio compares two things measured in the same run, alternated (A B A B …, the order
// turned each round), each the median of the runs kept after a warm-up, both under the same
// environment: with NODE_EXTRA_CA_CERTS as the user has it, and without it. For commands: the
// child's own CPU time (user + system, every thread, from bench/lib/usage-probe.cjs), its wall
// time from spawn to exit, and its peak RSS.
//
// Environment: BENCH_RUNS (default 11, at least 7) runs per start-up case; BENCH_ONLY=startup,
// simulator, lists, history, demo-state or extras (a comma list; results.md is then not written);
// BENCH_HISTORY (default 100000) closed hedges for the history case; BENCH_WRITES_AT (default
// 500,5000,50000) simulator sizes; BENCH_SKIP_SEA=1 (no single executable).
//
// Adding a bench: a standalone script (e.g. bench/journal.mjs) joins with one line in
// EXTRA_BENCHES below. It is run as `node <script>` with BENCH_RESULT_FILE set, and writes there
// JSON {goals: [{what, measured, limit, met}], markdown: "## its section …"}; docs/performance.md
// ("Adding a bench") has the details.
import { fork } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { prepareBuilds } from './lib/builds.mjs';
import { growOverHttp, openOverHttp } from './lib/grow.mjs';
import { alternate, median, quartiles, runOnce } from './lib/measure.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const RESULTS = join(ROOT, 'bench', 'results.md');
const HTTP_GET = join(ROOT, 'bench', 'lib', 'http-get.mjs');
const SANDBOX_HOST = join(ROOT, 'bench', 'lib', 'sandbox-host.mjs');

/** Standalone benches of other parts of hedge: `{ script: 'bench/x.mjs', title: '…' }`, one line each. */
const EXTRA_BENCHES = [
  // { script: 'bench/journal.mjs', title: 'The journal' },
  // { script: 'bench/journal-store.mjs', title: 'The journal on PostgreSQL' },
];

const RUNS = Math.max(7, Number(process.env.BENCH_RUNS ?? 11));
const ONLY = process.env.BENCH_ONLY ? new Set(process.env.BENCH_ONLY.split(',')) : undefined;
const wanted = (part) => ONLY === undefined || ONLY.has(part);
const HISTORY_SIZES = [10_000, Math.max(20_000, Number(process.env.BENCH_HISTORY ?? 100_000))];
const WRITES_AT = (process.env.BENCH_WRITES_AT ?? '500,5000,50000').split(',').map(Number);
const LIST_SIZE = 500;
/** V8's heap held small for the history case's second measure: old space 64 MiB, semi-space 2 MiB. */
const HEAP_CAP = ['--max-old-space-size=64', '--max-semi-space-size=2'];
const TABLE_COLUMNS = '200';
const MARKETS = ['USDTNGN', 'USDTKES', 'USDTGHS', 'USDTEGP'];
const EXTRA_MARKETS = MARKETS.slice(1).map((market) => ({ market, status: 'open', basePrice: 100 }));
const DEMO_API_KEY = /DEMO_API_KEY = '([^']+)'/.exec(readFileSync(join(ROOT, 'src', 'demo', 'start-demo.ts'), 'utf8'))[1];

const GOALS = {
  requestCaSet: 1.3,
  requestUnset: 2.0,
  help: 1.2,
  demo: 2.5,
  writes: 0.8,
  reportCpu: 1.5,
  flatMemory: 1.25,
  lists: 1.3,
  table: 1.3,
  quoteRequests: 1,
};

const started = Date.now();
const tmp = mkdtempSync(join(tmpdir(), 'hedge-bench-'));
const sandboxes = [];
const log = (line) => process.stderr.write(`${line}\n`);

try {
  await main();
} finally {
  await Promise.all(sandboxes.map((sandbox) => sandbox.close().catch(() => {})));
  rmSync(tmp, { recursive: true, force: true });
}

async function main() {
  log(`bench: preparing the measured builds in ${tmp}`);
  const builds = await prepareBuilds(ROOT, tmp, { variants: wanted('startup'), sea: wanted('startup') && process.env.BENCH_SKIP_SEA !== '1' });
  if (builds.sea) log(`bench: the single executable built in ${builds.sea.seconds.toFixed(1)} s`);
  const machine = describeMachine();
  const envs = environments();
  const goals = [];
  const sections = [];

  if (wanted('startup')) {
    const startup = await measureStartup(builds, envs);
    goals.push(...startup.goals);
    sections.push(startup.section);
  }
  if (wanted('lists')) {
    const lists = await measureLists(builds, envs);
    goals.push(...lists.goals);
    sections.push(lists.section);
  }
  if (wanted('simulator')) {
    const simulator = await measureSimulator(builds.sandbox);
    goals.push(...simulator.goals);
    sections.push(simulator.section);
  }
  if (wanted('history')) {
    const history = await measureHistory(builds, envs.at(-1));
    goals.push(...history.goals);
    sections.push(history.section);
  }
  if (wanted('demo-state')) sections.push(await measureDemoState(builds, envs.at(-1)));
  if (wanted('extras')) {
    const extras = await runExtras();
    goals.push(...extras.goals);
    sections.push(...extras.sections);
  }

  const seconds = Math.round((Date.now() - started) / 1000);
  if (ONLY !== undefined) {
    process.stdout.write(`${renderGoals(goals)}\n\n${sections.join('\n')}\n`);
    log(`bench: ${seconds} s (BENCH_ONLY: results.md not written)`);
    return;
  }
  writeFileSync(RESULTS, render({ machine, envs, goals, sections, seconds }));
  log(`bench: wrote ${RESULTS} in ${seconds} s`);
}

// ---- 1. start-up and one request ------------------------------------------------------------

async function measureStartup(builds, envs) {
  const reads = await startSandbox(builds.sandbox, { apiKeyCount: 1 });
  const hedge = builds.current.bin;
  const before = builds['before-31']?.bin;
  const sea = builds.sea?.executable;
  const goals = [];
  const tables = [];
  for (const env of envs) {
    log(`bench: 1. start-up and one request (${env.name})`);
    const api = { ...env.vars, HEDGE_BASE_URL: reads.baseUrl, HEDGE_API_KEY: reads.apiKey };
    const cached = { HEDGE_CACHE_DIR: freshDir('code-cache') };
    const off = { HEDGE_CODE_CACHE: '0' };
    const demoDir = freshDir('demo');
    const seaDemoDir = freshDir('demo-sea');
    const markets = expectJson((data) => Array.isArray(data) && data.length > 0);
    const commands = [
      nodeCommand('`node -e 0`', ['-e', '0'], env.vars, undefined, 'start'),
      nodeCommand('`node:http` GET script (the floor of a request)', [HTTP_GET, '/markets'], api, expectJson((body) => body.data?.length > 0), 'request'),
      hedgeCommand('`hedge --version`', hedge, ['--version'], { ...env.vars, ...cached }, freshDir('config'), expectStdout(/^\d+\.\d+\.\d+\n$/), 'start'),
      hedgeCommand('`hedge --help`', hedge, ['--help'], { ...env.vars, ...cached }, freshDir('config'), expectStdout(/^Usage: hedge/), 'start'),
      hedgeCommand('`hedge --no-color --help` (an option besides --help: laid out each time), code cache on', hedge, ['--no-color', '--help'], { ...env.vars, ...cached }, freshDir('config'), expectStdout(/^Usage: hedge/), 'start'),
      hedgeCommand('`hedge --help`, no code cache and no kept help (HEDGE_CODE_CACHE=0)', hedge, ['--help'], { ...env.vars, ...off }, freshDir('config'), expectStdout(/^Usage: hedge/), 'start'),
      hedgeCommand('`hedge markets --json`', hedge, ['markets', '--json'], { ...api, ...cached }, freshDir('config'), markets, 'request'),
      hedgeCommand('`hedge markets --json`, no code cache (HEDGE_CODE_CACHE=0)', hedge, ['markets', '--json'], { ...api, ...off }, freshDir('config'), markets, 'request'),
      hedgeCommand('`hedge --demo markets --json`', hedge, ['--demo', 'markets', '--json'], { ...env.vars, ...cached }, demoDir, markets, 'start'),
    ];
    if (before) {
      commands.push(
        hedgeCommand('before issue 31: `hedge --help`', before, ['--help'], env.vars, freshDir('config'), expectStdout(/^Usage: hedge/), 'start'),
        hedgeCommand('before issue 31: `hedge markets --json`', before, ['markets', '--json'], api, freshDir('config'), markets, 'request'),
        hedgeCommand('before issue 31: `hedge --demo markets --json`', before, ['--demo', 'markets', '--json'], env.vars, freshDir('demo-before'), markets, 'start'),
      );
    }
    if (sea) {
      const seaEnv = (vars, configDir) => ({ ...vars, ...cached, HEDGE_CONFIG_DIR: configDir });
      commands.push(
        seaCommand('single executable `hedge --version`', sea, ['--version'], seaEnv(env.vars, freshDir('config')), expectStdout(/^\d+\.\d+\.\d+\n$/), 'start'),
        seaCommand('single executable `hedge --help`', sea, ['--help'], seaEnv(env.vars, freshDir('config')), expectStdout(/^Usage: hedge/), 'start'),
        seaCommand('single executable `hedge markets --json`', sea, ['markets', '--json'], seaEnv(api, freshDir('config')), markets, 'request'),
        seaCommand('single executable `hedge --demo markets --json`', sea, ['--demo', 'markets', '--json'], seaEnv(env.vars, seaDemoDir), markets, 'start'),
      );
    }
    const results = await alternate(commands, { runs: RUNS, warmup: 2, tmpDir: tmp });
    const rows = commands.map((command, index) => row(command, results[index]));
    const floor = { start: rows[0], request: rows[1] };
    for (const one of rows) one.ratioTo = floor[one.floor];
    tables.push({ env, rows });
    const find = (label) => rows.find((one) => one.label === label);
    goals.push(
      goal(`\`hedge markets --json\` ÷ \`node:http\` GET, CPU (${env.short})`, find('`hedge markets --json`'), env.caSet ? GOALS.requestCaSet : GOALS.requestUnset),
      goal(`\`hedge --help\` ÷ \`node -e 0\`, CPU (${env.short})`, find('`hedge --help`'), GOALS.help, { judged: !env.caSet }),
      goal(`\`hedge --demo markets --json\` ÷ \`node -e 0\`, CPU (${env.short})`, find('`hedge --demo markets --json`'), GOALS.demo),
    );
  }
  // Requests for a successful quote (issue 15's goal, kept): the server's own log.
  log('bench: requests for a successful quote');
  const quote = await countQuoteRequests(reads, hedge, { ...envs.at(-1).vars, HEDGE_BASE_URL: reads.baseUrl, HEDGE_API_KEY: reads.apiKey });
  goals.push({ what: 'requests for a successful `hedge quote`', measured: String(quote.length), limit: `= ${GOALS.quoteRequests}`, met: quote.length === GOALS.quoteRequests });
  await reads.close();

  const lines = [
    '## 1. Start-up and one request',
    '',
    "Against a sandbox server in its own process on loopback (plain HTTP). `hedge` gets HEDGE_API_KEY and HEDGE_BASE_URL from the environment, so no profile store is opened. Each row's ratio is to its floor: `node -e 0` for start-up rows, the ten-line `node:http` GET script for request rows. `hedge` runs with its code cache warm (a private cache folder, filled by the warm-up runs, as a user's is after the first run); the rows marked HEDGE_CODE_CACHE=0 show it off. \"Before issue 31\" is today's src/ built and launched as it was before this issue (bench/lib/builds.mjs). The single executable is built from the same dist/ (`npm run build:sea`; its build took " +
      (builds.sea ? `${builds.sea.seconds.toFixed(0)} s here` : 'not measured: BENCH_SKIP_SEA') +
      '). `--demo` keeps its state in a private config folder across the runs.',
    '',
  ];
  for (const { env, rows } of tables) lines.push(`**${env.name}** (medians of ${RUNS} alternated runs after 2 warm-up rounds)`, '', ...tableLines(rows, true), '');
  lines.push(`Requests for a successful \`hedge quote USDTNGN buy 10000 --tenor 3 --json\`, from the sandbox's own log: ${quote.join(', ')}.`, '');
  return { goals, section: lines.join('\n') };
}

async function countQuoteRequests(sandbox, hedge, env) {
  const before = await sandbox.call({ op: 'log', from: 0 });
  const command = hedgeCommand('hedge quote', hedge, ['quote', 'USDTNGN', 'buy', '10000', '--tenor', '3', '--json'], env, freshDir('config'), expectJson((data) => data.market === 'USDTNGN'));
  await alternate([command], { runs: 1, warmup: 0, tmpDir: tmp });
  const after = await sandbox.call({ op: 'log', from: before.count });
  return after.entries.map((entry) => `${entry.method} ${entry.path} → ${entry.status}`);
}

// ---- 2. lists on a large book -------------------------------------------------------------

async function measureLists(builds, envs) {
  log('bench: 2. lists: 10 and 10,000 hedges on the server; 500 hedges as a table and as JSON');
  const hedge = builds.current.bin;
  const server = await startSandbox(builds.sandbox, { apiKeyCount: 3, fillDelayMs: 0, extraMarkets: EXTRA_MARKETS });
  const [small, big, seeded] = server.apiKeys;
  const target = (apiKey) => ({ baseUrl: server.baseUrl, apiKey });
  // 10,000 hedges made by writes, the last 8 of them left open (positions on 4 markets × 2 sides);
  // the small book: 2 closed and 8 open.
  await growOverHttp(target(big), { markets: MARKETS, hedges: 10_000 - 8, keyPrefix: 'big' });
  await openOverHttp(target(big), { markets: MARKETS, keyPrefix: 'big-open' });
  await growOverHttp(target(small), { markets: MARKETS, hedges: 2, keyPrefix: 'small' });
  await openOverHttp(target(small), { markets: MARKETS, keyPrefix: 'small-open' });
  await server.call({ op: 'seed', apiKey: seeded, count: LIST_SIZE });
  const held = await server.call({ op: 'hedges' });

  const env = envs.at(-1);
  const apiEnv = (apiKey) => ({ ...env.vars, HEDGE_BASE_URL: server.baseUrl, HEDGE_API_KEY: apiKey, HEDGE_CACHE_DIR: freshDir('code-cache') });
  // The server's own CPU over each run (µs → ms): what a larger book costs shows there.
  const serverCpu = async () => {
    const before = await server.call({ op: 'cpu' });
    return async () => ((await server.call({ op: 'cpu' })) - before) / 1000;
  };
  const list = (count) => expectJson((data) => Array.isArray(data) && data.length === count);
  const commands = [
    hedgeCommand('`hedge hedges --limit 500 --json`, 10 hedges on the server', hedge, ['hedges', '--limit', '500', '--json'], apiEnv(small), freshDir('config'), list(10)),
    hedgeCommand('`hedge hedges --limit 500 --json`, 10,000 hedges on the server', hedge, ['hedges', '--limit', '500', '--json'], apiEnv(big), freshDir('config'), list(500)),
    hedgeCommand('`hedge positions --json`, 10 hedges (8 open)', hedge, ['positions', '--json'], apiEnv(small), freshDir('config'), list(8)),
    hedgeCommand('`hedge positions --json`, 10,000 hedges (8 open)', hedge, ['positions', '--json'], apiEnv(big), freshDir('config'), list(8)),
    hedgeCommand(`\`hedge hedges --limit ${LIST_SIZE} --json\` (${LIST_SIZE} seeded)`, hedge, ['hedges', '--limit', String(LIST_SIZE), '--json'], apiEnv(seeded), freshDir('config'), list(LIST_SIZE)),
    hedgeCommand(`\`hedge hedges --limit ${LIST_SIZE} --format table\` (COLUMNS=${TABLE_COLUMNS})`, hedge, ['hedges', '--limit', String(LIST_SIZE), '--format', 'table'], { ...apiEnv(seeded), COLUMNS: TABLE_COLUMNS }, freshDir('config'), expectLines(LIST_SIZE)),
  ];
  for (const command of commands) command.around = serverCpu;
  const results = await alternate(commands, { runs: RUNS, warmup: 2, tmpDir: tmp });
  const rows = commands.map((command, index) => row(command, results[index]));
  rows[1].ratioTo = rows[0];
  rows[3].ratioTo = rows[2];
  rows[5].ratioTo = rows[4];
  await server.close();
  const goals = [
    goalBothSides('`hedge hedges --limit 500` with 10,000 hedges on the server ÷ with 10', rows[1], GOALS.lists),
    goalBothSides('`hedge positions` with 10,000 hedges on the server ÷ with 10', rows[3], GOALS.lists),
    goal(`${LIST_SIZE} hedges as a table ÷ as \`--json\`, CPU (issue 26)`, rows[5], GOALS.table),
  ];
  const section = [
    '## 2. Lists on a large book',
    '',
    `One sandbox process, fill delay 0, ${held} hedges in all: an account grown to 10,000 hedges by real writes (open and close on ${MARKETS.length} markets × 2 sides, bench/lib/grow.mjs), its last 8 left open; one of 10 (2 closed, 8 open); one of ${LIST_SIZE} seeded. The goal compares the same command against the large and the small account, on the CPU of both sides: the client's (the CPU column) and the server process's over the same run (server CPU), which is where a larger book would cost; wall time is shown. \`hedges --limit 500\` brings 500 hedges from the large account and 10 from the small one. ${env.name}, medians of ${RUNS} alternated runs.`,
    '',
    ...tableLines(rows, true, true),
    '',
  ].join('\n');
  return { goals, section };
}

// ---- 3. the simulator as it grows -------------------------------------------------------------

async function measureSimulator(bundle) {
  log(`bench: 3. the simulator at ${WRITES_AT.join(', ')} hedges`);
  const options = { fillDelayMs: 0, extraMarkets: EXTRA_MARKETS, apiKeyCount: 2 };
  const servers = [];
  for (const size of WRITES_AT) servers.push({ size, sandbox: await startSandbox(bundle, options), grown: 0, writes: [] });
  const BURST = 100; // hedges per measured burst: 200 writes
  const WARM_HEDGES = 4_000; // 8,000 writes on an account of its own before anything is measured
  const ROUNDS = 5;
  const growth = [];
  for (const server of servers) {
    const [warm, main] = server.sandbox.apiKeys;
    const target = (apiKey) => ({ baseUrl: server.sandbox.baseUrl, apiKey });
    // Warm-up on an account of its own: V8 takes thousands of requests to settle on its optimised code.
    await growOverHttp(target(warm), { markets: MARKETS, hedges: WARM_HEDGES, keyPrefix: 'warm' });
    let done = 0;
    while (done < server.size) {
      const step = Math.min(5_000, server.size - done);
      const grown = await growOverHttp(target(main), { markets: MARKETS, hedges: step, keyPrefix: `grow-${done}` });
      if (server.size === WRITES_AT.at(-1)) growth.push({ from: done, to: done + step, writesPerSecond: grown.writes / grown.seconds });
      done += step;
    }
    server.grown = done;
    server.memory = await server.sandbox.call({ op: 'memory' });
  }
  for (let round = 0; round < ROUNDS; round++) {
    const order = servers.map((_, index) => servers[(index + round) % servers.length]);
    for (const server of order) {
      const [, main] = server.sandbox.apiKeys;
      const cpuBefore = await server.sandbox.call({ op: 'cpu' });
      const burst = await growOverHttp({ baseUrl: server.sandbox.baseUrl, apiKey: main }, { markets: MARKETS, hedges: BURST, keyPrefix: `burst-${round}` });
      const cpuMicros = (await server.sandbox.call({ op: 'cpu' })) - cpuBefore;
      server.writes.push({ perSecond: burst.writes / burst.seconds, cpuMicrosEach: cpuMicros / burst.writes });
    }
  }
  for (const server of servers) await server.sandbox.close();

  const med = (samples, key) => median(samples.map((sample) => sample[key]));
  const base = servers[0];
  const goals = servers.slice(1).map((server) => {
    const ratio = med(server.writes, 'perSecond') / med(base.writes, 'perSecond');
    return {
      what: `simulator writes/s at ${server.size.toLocaleString('en')} hedges ÷ at ${base.size.toLocaleString('en')} (through HTTP; server CPU per write: ${(med(base.writes, 'cpuMicrosEach') / med(server.writes, 'cpuMicrosEach')).toFixed(2)})`,
      measured: ratio.toFixed(2),
      limit: `≥ ${GOALS.writes}`,
      met: ratio >= GOALS.writes,
    };
  });
  const first = servers[0];
  const last = servers.at(-1);
  const perHedge = (last.memory.heapUsed - first.memory.heapUsed) / (last.grown - first.grown) / 1024;
  const spread = (samples, key) => quartiles(samples.map((sample) => sample[key])).map((value) => value.toFixed(0)).join(' – ');
  const section = [
    `## 3. The simulator at ${WRITES_AT.map((size) => size.toLocaleString('en')).join(', ')} hedges`,
    '',
    `One sandbox process per size, fill delay 0, ${MARKETS.length} open markets. Every hedge was made by real HTTP writes (bench/lib/grow.mjs: on each market and side, open then close, each write with its Idempotency-Key, ${MARKETS.length * 2} keep-alive connections), so indexes, queues and idempotency records grew as traffic grows them; each process first took ${WARM_HEDGES * 2} writes on an account of its own (V8's warm-up: a process fresh from a few thousand writes is still slower per write than one that grew to 50,000). Then ${ROUNDS} rounds, the sizes in turn: a burst of ${BURST} hedges (${BURST * 2} writes) on the grown account (so "at ${first.size}" is ${first.size} to ${(first.size + ROUNDS * BURST).toLocaleString('en')}). Server CPU = the sandbox process's own user + system time over the burst, per write.`,
    '',
    '| hedges | writes/s | quartiles | server CPU per write µs | quartiles | heap after GC MiB |',
    '|---|---:|---:|---:|---:|---:|',
    ...servers.map((server) => `| ${server.size.toLocaleString('en')} | ${med(server.writes, 'perSecond').toFixed(0)} | ${spread(server.writes, 'perSecond')} | ${med(server.writes, 'cpuMicrosEach').toFixed(0)} | ${spread(server.writes, 'cpuMicrosEach')} | ${(server.memory.heapUsed / 1048576).toFixed(1)} |`),
    '',
    `Memory per hedge (heap after a full GC, ${first.size.toLocaleString('en')} → ${last.size.toLocaleString('en')} hedges): **${perHedge.toFixed(2)} KiB**, linear (the table's heaps); about half of it is the two idempotency records of each hedge's writes, which expire after a day of sandbox time.`,
    '',
    `**Writes while growing one account to ${last.size.toLocaleString('en')}** (after the warm-up account's ${WARM_HEDGES * 2} writes):`,
    '',
    '| hedges | writes/s |',
    '|---|---:|',
    ...growth.map((step) => `| ${step.from.toLocaleString('en')} → ${step.to.toLocaleString('en')} | ${Math.round(step.writesPerSecond)} |`),
    '',
  ].join('\n');
  return { goals, section };
}

// ---- 4. history and report over a long history --------------------------------------------

async function measureHistory(builds, env) {
  log(`bench: 4. history and report over ${HISTORY_SIZES.map((size) => size.toLocaleString('en')).join(' and ')} closed hedges`);
  const hedge = builds.current.bin;
  const server = await startSandbox(builds.sandbox, { apiKeyCount: HISTORY_SIZES.length });
  const seedStarted = Date.now();
  for (const [index, size] of HISTORY_SIZES.entries()) await server.call({ op: 'seed', apiKey: server.apiKeys[index], count: size });
  const seedSeconds = (Date.now() - seedStarted) / 1000;
  const results = [];
  const cacheDir = freshDir('code-cache');
  // Other V8 flags, other cached code (V8 refuses code cached under other flags).
  const cappedCacheDir = freshDir('code-cache-capped');
  for (const [index, size] of HISTORY_SIZES.entries()) {
    const vars = { ...env.vars, HEDGE_BASE_URL: server.baseUrl, HEDGE_API_KEY: server.apiKeys[index], HEDGE_CACHE_DIR: cacheDir };
    const htmlDir = freshDir('html');
    const count = (data) => Array.isArray(data) && data.length === size;
    const commands = [
      hedgeCommand('`hedge history --since 2000-01-01 --json` (every page)', hedge, ['history', '--since', '2000-01-01', '--json'], vars, freshDir('config'), expectJson(count)),
      hedgeCommand('`hedge report --by month --json`', hedge, ['report', '--by', 'month', '--json'], vars, freshDir('config'), expectJson((report) => report.totals?.count === size && report.complete === true)),
      hedgeCommand('`hedge report --by month --html FILE`', hedge, ['report', '--by', 'month', '--html', join(htmlDir, 'report.html')], vars, freshDir('config'), () => (statSync(join(htmlDir, 'report.html')).size > size * 100 ? undefined : 'the HTML file is too small')),
    ];
    // The same with V8's heap held small: what the process keeps alive, without the slack V8 takes
    // when it is allowed to (the young generation grows to 32 MiB under a high allocation rate).
    const capped = commands.map((command) => ({
      ...command,
      label: `${command.label}, heap held to ${HEAP_CAP.join(' ')}`,
      argv: [...HEAP_CAP, ...command.argv],
      env: { ...command.env, HEDGE_CACHE_DIR: cappedCacheDir },
    }));
    const measured = await alternate([...commands, ...capped], { runs: 3, warmup: 1, tmpDir: tmp });
    const rows = [...commands, ...capped].map((command, at) => row(command, measured[at]));
    results.push({ size, rows: rows.slice(0, commands.length), capped: rows.slice(commands.length) });
  }
  const pages = await server.call({ op: 'log', from: 0 });
  await server.close();

  const [small, large] = results;
  for (const [at, one] of large.rows.entries()) one.ratioTo = small.rows[at];
  for (const [at, one] of large.capped.entries()) one.ratioTo = small.capped[at];
  const history = large.rows[0];
  const report = large.rows[1];
  const goals = [
    { what: `\`hedge report --json\` ÷ \`hedge history --json\` over ${large.size.toLocaleString('en')} closed hedges, CPU (wall: ${(report.wall / history.wall).toFixed(2)}×)`, measured: `${(report.cpu / history.cpu).toFixed(2)}×`, limit: `≤ ${GOALS.reportCpu}×`, met: report.cpu / history.cpu <= GOALS.reportCpu },
    ...large.capped.map((one, at) => {
      const ratio = one.rssMiB / small.capped[at].rssMiB;
      const free = large.rows[at].rssMiB / small.rows[at].rssMiB;
      return {
        what: `${commandsLabel(large.rows[at].label)}: peak RSS at ${large.size.toLocaleString('en')} closed hedges ÷ at ${small.size.toLocaleString('en')}, heap held small (memory flat in the records; V8 left free: ${free.toFixed(2)}×)`,
        measured: `${ratio.toFixed(2)}× (${small.capped[at].rssMiB.toFixed(0)} → ${one.rssMiB.toFixed(0)} MiB)`,
        limit: `≤ ${GOALS.flatMemory}×`,
        met: ratio <= GOALS.flatMemory,
      };
    }),
  ];
  const lines = [
    `## 4. History and report over ${large.size.toLocaleString('en')} closed hedges`,
    '',
    `One sandbox process; its accounts seeded through the engine's own bookkeeping (\`seedHedges\`: every hedge opened, filled and closed or settled by the book, its history record booked to the balance; ${seedSeconds.toFixed(1)} s for ${HISTORY_SIZES.reduce((sum, size) => sum + size, 0).toLocaleString('en')}). The CLI reads them as it reads any server: GET /hedges/history page after page (500 a page, following \`meta.next_cursor\`), each page tallied and let go; history prints JSON as each page comes; the HTML listing goes through a file. ${env.name}; medians of 3 alternated runs after a warm-up; the ratio column of the ${large.size.toLocaleString('en')} rows is to the same command at ${small.size.toLocaleString('en')}. Each command also runs with V8's heap held small (\`node ${HEAP_CAP.join(' ')}\`): left free, V8 grows its young generation to 32 MiB under a high allocation rate whatever the process keeps, so the capped runs show what it keeps; memory flat in the records is judged on them.`,
    '',
  ];
  for (const { size, rows, capped } of results) lines.push(`**${size.toLocaleString('en')} closed hedges**`, '', ...tableLines([...rows, ...capped], true), '');
  lines.push(`The server answered ${pages.count.toLocaleString('en')} requests in all (every run reads every page, and GET /positions for the reports).`, '');
  return { goals, section: lines.join('\n') };
}

/** A command's label without its backquotes' tail, for a goal's text. */
function commandsLabel(label) {
  return label.replace(/ \(every page\)$/, '');
}

// ---- 5. the demo's state file ------------------------------------------------------------------

async function measureDemoState(builds, env) {
  log("bench: 5. the demo's state file");
  const { SandboxEngine, growHedges, parseStateFile, stateFileBytes } = await import(builds.sandbox);
  const hedge = builds.current.bin;
  const rows = [];
  const states = [];
  for (const hedges of [0, 5_000]) {
    const dir = freshDir('demo-state');
    const engine = new SandboxEngine({ apiKeys: [DEMO_API_KEY], fillDelayMs: 0 });
    // A day back, 7-day tenors: nothing falls due during the runs, so no run rewrites the file.
    const nowMs = Date.now();
    const grown = hedges > 0 ? growHedges(engine, { apiKey: DEMO_API_KEY, hedges, startMs: nowMs - 86_400_000 }).nowMs : nowMs - 86_400_000;
    // One hedge left open, as a desk's demo has: `positions` shows it.
    const headers = { authorization: `Bearer ${DEMO_API_KEY}` };
    const open = { method: 'POST', path: '/hedges', query: {}, headers: { ...headers, 'idempotency-key': 'bench-open' }, body: { market: MARKETS[0], side: 'buy', notional_usd: 1_000, tenor_days: 7 } };
    if (engine.handle(open, grown).status !== 200) throw new Error('the demo state could not open a hedge');
    engine.handle({ method: 'GET', path: '/positions', query: {}, headers, body: undefined }, grown + 1);
    const contents = { version: 1, clockOffsetMs: engine.state.nowMs - nowMs, engine: engine.state };
    const file = join(dir, 'demo-state.json');
    // Format 1, the whole state as one JSON document (as before the state was kept in parts).
    let time = performance.now();
    const text = JSON.stringify(contents);
    const stringifyMs = performance.now() - time;
    time = performance.now();
    writeFileSync(file, text);
    const writeMs = performance.now() - time;
    time = performance.now();
    new SandboxEngine({ apiKeys: [DEMO_API_KEY], fillDelayMs: 0 }, JSON.parse(readFileSync(file, 'utf8')).engine);
    const loadMs = performance.now() - time;
    // Format 2, in parts (what the demo writes): serialised whole, then loaded with nothing read.
    time = performance.now();
    const bytes = Buffer.concat(stateFileBytes(contents));
    const partsStringifyMs = performance.now() - time;
    time = performance.now();
    writeFileSync(file, bytes);
    const partsWriteMs = performance.now() - time;
    time = performance.now();
    const loaded = parseStateFile(file, readFileSync(file));
    new SandboxEngine({ apiKeys: [DEMO_API_KEY], fillDelayMs: 0 }, loaded.engine);
    const partsLoadMs = performance.now() - time;
    // A write with a new key reads none of the parts (its key is not in the records' index, the
    // open book is in the core) and its save copies them as they were loaded, its record added.
    loaded.engine.idempotency['bench:write'] = { fingerprintDigest: 'bench', createdAtMs: engine.state.nowMs, status: 200, headers: {}, bodyJson: '{}' };
    time = performance.now();
    writeFileSync(file, Buffer.concat(stateFileBytes(loaded)));
    const partsWriteSaveMs = performance.now() - time;
    states.push({ hedges, bytes: text.length, stringifyMs, writeMs, loadMs, partsStringifyMs, partsWriteMs, partsLoadMs, partsWriteSaveMs });
    const commandEnv = { ...env.vars, HEDGE_CACHE_DIR: freshDir('code-cache') };
    const size = `a demo state of ${hedges.toLocaleString('en')} hedges`;
    rows.push(hedgeCommand(`\`hedge --demo markets --json\`, ${size}`, hedge, ['--demo', 'markets', '--json'], commandEnv, dir, expectJson((data) => data.length > 0)));
    rows.push(hedgeCommand(`\`hedge --demo positions --json\`, ${size}`, hedge, ['--demo', 'positions', '--json'], commandEnv, dir, expectJson((data) => Array.isArray(data))));
  }
  const measured = await alternate(rows, { runs: 5, warmup: 1, tmpDir: tmp });
  const tableRows = rows.map((command, index) => row(command, measured[index]));
  tableRows[2].ratioTo = tableRows[0];
  tableRows[3].ratioTo = tableRows[1];
  return [
    "## 5. The demo's state file",
    '',
    "`--demo` keeps the simulator's state in one file (src/sandbox/state-file.ts), read at the start of every demo command and written after a change. Since issue 31 the file is in parts (format 2: a line for the core, one for the idempotency records, one for each account's hedges and one for its history): a part is parsed only when a request reads it, and a save copies a part nobody read as the bytes it was loaded from. Format 1 (the whole state as one JSON document) is measured beside it. In the bench process (one run each; a state grown by the engine's own writes, then one hedge opened and left open):",
    '',
    '| hedges in the state | file | format 1: JSON.stringify ms | write ms | read + parse + engine ms | format 2: serialise ms | write ms | read + engine ms (nothing read) | save after a write ms (a new key: every part copied, its record added) |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...states.map((state) => `| ${state.hedges.toLocaleString('en')} | ${(state.bytes / 1048576).toFixed(1)} MiB | ${state.stringifyMs.toFixed(0)} | ${state.writeMs.toFixed(0)} | ${state.loadMs.toFixed(0)} | ${state.partsStringifyMs.toFixed(0)} | ${state.partsWriteMs.toFixed(0)} | ${state.partsLoadMs.toFixed(0)} | ${state.partsWriteSaveMs.toFixed(0)} |`),
    '',
    'Through the CLI (nothing falls due during these runs, so they only read the state; `markets` reads no part, `positions` the hedges):',
    '',
    `${env.name}, medians of 5 alternated runs; each 5,000 row's ratio is to the same command on an empty state:`,
    '',
    ...tableLines(tableRows, true),
    '',
  ].join('\n');
}

// ---- 6. other parts' benches --------------------------------------------------------------------

async function runExtras() {
  const goals = [];
  const sections = [];
  for (const extra of EXTRA_BENCHES) {
    const script = join(ROOT, extra.script);
    if (!existsSync(script)) {
      sections.push(`## ${extra.title}\n\n${extra.script} is not in this tree.\n`);
      continue;
    }
    log(`bench: ${extra.title} (${extra.script})`);
    const resultFile = join(tmp, `extra-${goals.length}-${sections.length}.json`);
    const run = await runOnce({ label: extra.title, argv: [script], env: { ...process.env, BENCH_RESULT_FILE: resultFile } }, { usageFile: join(tmp, 'extra-usage.json') });
    if (run.code !== 0 || !existsSync(resultFile)) throw new Error(`${extra.script} failed (exit ${run.code}):\n${run.stderr.slice(-2000)}`);
    const result = JSON.parse(readFileSync(resultFile, 'utf8'));
    goals.push(...(result.goals ?? []));
    sections.push(result.markdown ?? `## ${extra.title}\n`);
  }
  return { goals, sections };
}

// ---- the sandbox process ------------------------------------------------------------------

async function startSandbox(bundle, { apiKeyCount = 2, ...options }) {
  const { generateTestKey } = await import(bundle);
  const apiKeys = Array.from({ length: apiKeyCount }, () => generateTestKey());
  const child = fork(SANDBOX_HOST, [bundle, JSON.stringify({ ...options, apiKeys })], {
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    env: withoutHedgeVars(process.env),
    execArgv: ['--expose-gc'],
  });
  const pending = new Map();
  let nextId = 0;
  const ready = await new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`sandbox host exited with ${code}`)));
    child.on('message', (message) => {
      if (message.ready) resolve(message.ready);
      else pending.get(message.id)?.(message.result);
    });
  });
  child.removeAllListeners('exit');
  const call = (message) =>
    new Promise((resolve) => {
      const id = (nextId += 1);
      pending.set(id, resolve);
      child.send({ ...message, id });
    });
  let closed = false;
  const sandbox = {
    ...ready,
    call,
    close: async () => {
      if (closed) return;
      closed = true;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      await call({ op: 'close' });
      await exited;
    },
  };
  sandboxes.push(sandbox);
  return sandbox;
}

// ---- commands and environments ------------------------------------------------------------

function withoutHedgeVars(env) {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !name.startsWith('HEDGE_') && name !== 'COLUMNS'));
}

/** As the user has it, and (when the user sets it) without NODE_EXTRA_CA_CERTS. The last is the harder case for a ratio. */
function environments() {
  const user = withoutHedgeVars(process.env);
  const ca = user.NODE_EXTRA_CA_CERTS;
  if (!ca) return [{ name: 'NODE_EXTRA_CA_CERTS unset (as the user has it)', short: 'CA unset', caSet: false, vars: user }];
  const { NODE_EXTRA_CA_CERTS: _, ...bare } = user;
  let size = '';
  try {
    size = `, ${Math.round(statSync(ca).size / 1024)} kB`;
  } catch {
    size = ', file missing';
  }
  return [
    { name: `NODE_EXTRA_CA_CERTS set (as the user has it${size})`, short: 'CA set', caSet: true, vars: user },
    { name: 'NODE_EXTRA_CA_CERTS unset', short: 'CA unset', caSet: false, vars: bare },
  ];
}

function freshDir(prefix) {
  return mkdtempSync(join(tmp, `${prefix}-`));
}

function nodeCommand(label, argv, env, check, floor) {
  return { label, argv, env, check, floor };
}

function hedgeCommand(label, bin, args, env, configDir, check, floor) {
  return { label, argv: [bin, ...args], env: { ...env, HEDGE_CONFIG_DIR: configDir }, check, floor };
}

function seaCommand(label, executable, args, env, check, floor) {
  return { label, executable, argv: args, env, check, floor };
}

function expectStdout(pattern) {
  return (run) => (pattern.test(run.stdout) ? undefined : `stdout does not match ${pattern}`);
}

function expectJson(predicate) {
  return (run) => {
    try {
      return predicate(JSON.parse(run.stdout)) ? undefined : 'unexpected JSON on stdout';
    } catch {
      return 'stdout is not JSON';
    }
  };
}

/** A table of `count` rows: at least that many lines, none of them JSON. */
function expectLines(count) {
  return (run) => {
    const lines = run.stdout.trimEnd().split('\n');
    if (run.stdout.trimStart().startsWith('[')) return 'stdout is JSON, not a table';
    return lines.length >= count ? undefined : `${lines.length} lines on stdout, expected at least ${count}`;
  };
}

// ---- rendering ----------------------------------------------------------------------------

function row(command, result) {
  return {
    label: command.label,
    floor: command.floor,
    cpu: median(result.cpuMs),
    cpuQ: quartiles(result.cpuMs),
    wall: median(result.wallMs),
    wallQ: quartiles(result.wallMs),
    rssMiB: median(result.maxRssKiB) / 1024,
    serverCpu: result.extra.length > 0 ? median(result.extra) : undefined,
  };
}

/** A goal on the CPU ratio of `one` to its `ratioTo` row; `judged: false` shows it without a verdict. */
function goal(what, one, limit, { judged = true } = {}) {
  const ratio = one.cpu / one.ratioTo.cpu;
  return {
    what: `${what} (wall: ${(one.wall / one.ratioTo.wall).toFixed(2)}×)`,
    measured: `${ratio.toFixed(2)}×`,
    limit: `≤ ${limit}×${judged ? '' : ' (judged unset)'}`,
    met: judged ? ratio <= limit : undefined,
  };
}

/** A goal on the CPU of both sides (the client's and the server's over the same run). */
function goalBothSides(what, one, limit) {
  const ratio = (one.cpu + one.serverCpu) / (one.ratioTo.cpu + one.ratioTo.serverCpu);
  return {
    what: `${what}, CPU of client + server (client: ${(one.cpu / one.ratioTo.cpu).toFixed(2)}×, server: ${(one.serverCpu / one.ratioTo.serverCpu).toFixed(2)}×, wall: ${(one.wall / one.ratioTo.wall).toFixed(2)}×)`,
    measured: `${ratio.toFixed(2)}×`,
    limit: `≤ ${limit}×`,
    met: ratio <= limit,
  };
}

function tableLines(rows, withRatio, withServer = false) {
  const ratio = (one, key) => (one.ratioTo && one.ratioTo !== one ? `${(one[key] / one.ratioTo[key]).toFixed(2)}×` : one.ratioTo === one || !withRatio ? '1.00×' : '');
  const server = (one) => (withServer ? ` ${fmt(one.serverCpu)} | ${ratio(one, 'serverCpu')} |` : '');
  return [
    `| command | CPU ms | quartiles | ratio | wall ms | quartiles | ratio | peak RSS MiB |${withServer ? ' server CPU ms | ratio |' : ''}`,
    `|---|---:|---:|---:|---:|---:|---:|---:|${withServer ? '---:|---:|' : ''}`,
    ...rows.map(
      (one) =>
        `| ${one.label} | ${fmt(one.cpu)} | ${fmt(one.cpuQ[0])} – ${fmt(one.cpuQ[1])} | ${ratio(one, 'cpu')} | ${fmt(one.wall)} | ${fmt(one.wallQ[0])} – ${fmt(one.wallQ[1])} | ${ratio(one, 'wall')} | ${one.rssMiB.toFixed(1)} |${server(one)}`,
    ),
  ];
}

function describeMachine() {
  const ca = process.env.NODE_EXTRA_CA_CERTS;
  return [
    `- Node ${process.version} on ${process.platform}/${process.arch}`,
    `- CPUs: ${availableParallelism()} (nproc), ${cpus()[0]?.model ?? 'unknown model'}`,
    `- NODE_EXTRA_CA_CERTS: ${ca ? `set to ${ca}` : 'not set'} in the environment the bench was started from`,
    `- load average at the start (1/5/15 min): ${loadavg().map((value) => value.toFixed(2)).join(' / ')}`,
  ];
}

function renderGoals(goals) {
  return [
    '| goal | measured | limit | met |',
    '|---|---:|---:|:---:|',
    ...goals.map((one) => `| ${one.what} | ${one.measured} | ${one.limit} | ${one.met === undefined ? '—' : one.met ? 'yes' : '**no**'} |`),
  ].join('\n');
}

function render({ machine, envs, goals, sections, seconds }) {
  return `# Benchmarks (issue 31)

Written by \`npm run bench\` on ${new Date(started).toISOString()} in ${seconds} s; do not edit by hand. The method and
the decisions are in docs/performance.md; what was tried, kept or not, and where each goal stops, in
bench/notes.md. Benchmarks, not tests: nothing fails on time.

## Machine

${machine.join('\n')}
- load average at the end: ${loadavg().map((value) => value.toFixed(2)).join(' / ')}
- environments measured: ${envs.map((env) => env.name).join('; ')}

A load average above the CPU count means other processes (test runs, builds) shared the cores with the bench:
the CPU figures (each process's own user + system time) hold up under load far better than the wall figures.

## Goals

${renderGoals(goals)}

${sections.join('\n')}`;
}

function fmt(value) {
  return value >= 100 ? value.toFixed(0) : value.toFixed(1);
}
