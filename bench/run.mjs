// `npm run bench` (after `npm run build`): measures hedge against the floors it cannot beat and
// writes bench/results.md. Benchmarks, not tests: nothing here passes or fails on time; the
// targets of issue 8 are written next to the figures and marked met or not.
//
// Every ratio compares two commands measured in the same run, alternated (A B A B …), each the
// median of BENCH_RUNS runs (default 11, at least 10) after a warm-up, both under the same
// environment. Environment variables: BENCH_RUNS, BENCH_SKIP_VARIANTS=1 (skip "what each change
// bought"), BENCH_OPENS (default 20).
import { fork } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { prepareBuilds } from './lib/builds.mjs';
import { loadTest } from './lib/load.mjs';
import { alternate, median, quartiles, runOnce } from './lib/measure.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const RESULTS = join(ROOT, 'bench', 'results.md');
const MIN_REQUEST = join(ROOT, 'bench', 'lib', 'min-request.mjs');
const SANDBOX_HOST = join(ROOT, 'bench', 'lib', 'sandbox-host.mjs');
const RUNS = Math.max(10, Number(process.env.BENCH_RUNS ?? 11));
/** Start-up runs are short and noisy on a shared machine: take more of them. */
const START_RUNS = Math.max(RUNS, 21);
const OPENS = Math.max(1, Number(process.env.BENCH_OPENS ?? 20));
const HEDGE_COUNT = 500;
const FILL_DELAY_MS = 2_000;
const LOAD = { connections: 20, durationMs: 5_000, maxRequests: 200_000 };

const TARGETS = {
  version: 1.3,
  help: 1.5,
  request: 1.3,
  rssMiB: 90,
  fillToPrintMs: 1_600,
  marketsPerSecond: 3_000,
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
  log(`bench: building the measured builds in ${tmp}`);
  const builds = await prepareBuilds(ROOT, tmp, { variants: process.env.BENCH_SKIP_VARIANTS !== '1' });
  const hedge = builds.current.bin;
  const machine = describeMachine();
  const envs = environments();
  const sections = [];
  const summary = [];

  // 1. Cold start.
  const cold = [];
  for (const env of envs) {
    log(`bench: 1. cold start (${env.name})`);
    const configDir = freshDir('config');
    const commands = [
      nodeCommand('node -e 0', ['-e', '0'], env.vars),
      hedgeCommand('hedge --version', hedge, ['--version'], env.vars, configDir, expectStdout(/^\d+\.\d+\.\d+\n$/)),
      hedgeCommand('hedge --help', hedge, ['--help'], env.vars, configDir, expectStdout(/^Usage: hedge/)),
    ];
    const results = await alternate(commands, { runs: START_RUNS, warmup: 2 });
    cold.push({ env, runs: START_RUNS, rows: rows(commands, results, 0) });
    summary.push(target(`\`hedge --version\` ÷ \`node -e 0\` (${env.name})`, ratioOf(cold.at(-1).rows, 1), TARGETS.version, '×'));
    summary.push(target(`\`hedge --help\` ÷ \`node -e 0\` (${env.name})`, ratioOf(cold.at(-1).rows, 2), TARGETS.help, '×'));
  }
  sections.push(section('1. Cold start', 'Ratios to `node -e 0`, the floor any Node CLI pays.', cold));

  // 2 and 3. One request, and the demo.
  const reads = await startSandbox(builds.sandbox, {});
  const one = [];
  for (const env of envs) {
    log(`bench: 2-3. one request (${env.name})`);
    const apiEnv = { ...env.vars, HEDGE_BASE_URL: reads.baseUrl, HEDGE_API_KEY: reads.apiKey };
    const configDir = freshDir('config');
    const commands = [
      nodeCommand('minimal undici script: GET /markets', [MIN_REQUEST, '/markets'], apiEnv, expectJson((body) => body.data?.length > 0)),
      hedgeCommand('hedge markets --json', hedge, ['markets', '--json'], apiEnv, configDir, expectJson((data) => data.length > 0)),
      hedgeCommand('hedge --demo markets --json', hedge, ['--demo', 'markets', '--json'], env.vars, freshDir('demo'), expectJson((data) => data.length > 0)),
    ];
    const results = await alternate(commands, { runs: RUNS, warmup: 1 });
    const tableRows = rows(commands, results, 0);
    tableRows[2].note = `${(median(results[2].wallMs) / median(results[1].wallMs)).toFixed(2)}× \`hedge markets --json\``;
    one.push({ env, runs: RUNS, rows: tableRows });
    summary.push(target(`\`hedge markets --json\` ÷ minimal script (${env.name})`, ratioOf(tableRows, 1), TARGETS.request, '×'));
  }
  sections.push(
    section(
      '2-3. One request, and demo mode',
      'Against a sandbox server in its own process on loopback. The minimal script imports undici from node_modules, sends the same GET and prints the body; `hedge` gets HEDGE_API_KEY and HEDGE_BASE_URL from the environment, so no profile store is opened. `--demo` starts the simulator in-process instead (no server), so its note compares it with `hedge markets --json`.',
      one,
    ),
  );

  // 4. A large list.
  log('bench: 4. large list');
  const seedKey = reads.apiKeys[1];
  await reads.call({ op: 'seed', apiKey: seedKey, count: HEDGE_COUNT });
  const listEnv = { ...envs[0].vars, HEDGE_BASE_URL: reads.baseUrl, HEDGE_API_KEY: seedKey };
  const listCommands = [
    nodeCommand(`minimal undici script: GET /hedges?limit=${HEDGE_COUNT}`, [MIN_REQUEST, `/hedges?limit=${HEDGE_COUNT}`], listEnv, expectJson((body) => body.data?.length === HEDGE_COUNT)),
    hedgeCommand(`hedge hedges --limit ${HEDGE_COUNT} --json`, hedge, ['hedges', '--limit', String(HEDGE_COUNT), '--json'], listEnv, freshDir('config'), expectJson((data) => data.length === HEDGE_COUNT)),
  ];
  if (builds['no-liftoff']) {
    listCommands.push(
      hedgeCommand('the same without `--liftoff-only` (src/run.ts)', builds['no-liftoff'].bin, ['hedges', '--limit', String(HEDGE_COUNT), '--json'], listEnv, freshDir('config'), expectJson((data) => data.length === HEDGE_COUNT)),
    );
  }
  const listResults = await alternate(listCommands, { runs: RUNS, warmup: 1, rss: true, tmpDir: tmp });
  const listRows = rows(listCommands, listResults, 0, { rss: true });
  const hedgeRssMiB = median(listResults[1].maxRssKiB) / 1024;
  summary.push(target(`\`hedge hedges --limit ${HEDGE_COUNT} --json\` peak RSS (${envs[0].name})`, hedgeRssMiB, TARGETS.rssMiB, ' MiB'));
  sections.push(
    section(
      '4. Large list',
      `${HEDGE_COUNT} hedges on the server (sandbox \`seedHedges\`), one request of \`limit=${HEDGE_COUNT}\`. Peak RSS is each process's own getrusage maxRSS, reported as it exits (bench/lib/rss-probe.cjs).`,
      [{ env: envs[0], runs: RUNS, rows: listRows }],
    ),
  );

  // 5. Fill-to-print delay.
  log(`bench: 5. polling (${OPENS} opens, fill delay ${FILL_DELAY_MS} ms)`);
  const polling = await measureFillToPrint(builds, hedge, envs[0]);
  summary.push(target(`fill-to-print median over ${polling.delays.length} opens`, polling.median, TARGETS.fillToPrintMs, ' ms'));
  sections.push(polling.section);

  // 6. The sandbox server.
  log('bench: 6. sandbox throughput');
  const throughput = await measureThroughput(builds);
  summary.push(target('sandbox GET /markets per second', throughput.marketsPerSecond, TARGETS.marketsPerSecond, '/s', 'at least'));
  sections.push(throughput.section);

  // What each change bought.
  if (builds['esm-external']) {
    log('bench: what each change bought');
    sections.push(await measureChanges(builds, reads, envs.find((env) => !env.caSet) ?? envs[0]));
  }

  await reads.close();
  const seconds = Math.round((Date.now() - started) / 1000);
  writeFileSync(RESULTS, render({ machine, envs, summary, sections, seconds }));
  log(`bench: wrote ${RESULTS} in ${seconds} s`);
}

// ---- cases 5 and 6 ------------------------------------------------------------------------

async function measureFillToPrint(builds, hedge, env) {
  const sandbox = await startSandbox(builds.sandbox, { fillDelayMs: FILL_DELAY_MS, apiKeyCount: OPENS });
  const market = await firstOpenMarket(sandbox);
  const delays = [];
  for (let index = 0; index < OPENS; index++) {
    const apiKey = sandbox.apiKeys[index];
    const command = {
      label: 'hedge open',
      argv: [hedge, 'open', market, 'buy', '1000', '--tenor', '1', '--json'],
      env: { ...env.vars, HEDGE_BASE_URL: sandbox.baseUrl, HEDGE_API_KEY: apiKey, HEDGE_CONFIG_DIR: freshDir('config') },
    };
    const run = await runOnce(command);
    if (run.code !== 0) throw new Error(`hedge open: exit ${run.code}\n${run.stderr}`);
    const printed = JSON.parse(run.stdout);
    const id = printed.id ?? printed.hedge_id;
    const fills = await sandbox.call({ op: 'fills' });
    if (printed.status !== 'filled' || fills[id] === undefined) throw new Error(`hedge open did not print a filled hedge: ${run.stdout}`);
    delays.push(run.firstStdoutAt - fills[id]);
  }
  await sandbox.close();
  const [q1, q3] = quartiles(delays);
  const text = [
    `${OPENS} sequential \`hedge open ${market} buy 1000 --tenor 1 --json\`, each on a fresh account of a sandbox whose fills land ${FILL_DELAY_MS} ms after the order is received. Delay = the moment the CLI's stdout arrives at the bench − the fill time the sandbox recorded (\`filledAtMs\`; sandbox time is real time at clock speed 1, same machine clock). The CLI polls 1 s after the submit, then every 1.5 s (src/domain/wait.ts), so with a 2 s fill the second poll finds it.`,
    '',
    '| | ms |',
    '|---|---:|',
    `| median | ${fmt(median(delays))} |`,
    `| quartiles | ${fmt(q1)} – ${fmt(q3)} |`,
    `| min – max | ${fmt(Math.min(...delays))} – ${fmt(Math.max(...delays))} |`,
    `| target | ≤ ${TARGETS.fillToPrintMs} |`,
  ].join('\n');
  return { delays, median: median(delays), section: `## 5. Polling: fill to print\n\n${text}\n` };
}

async function measureThroughput(builds) {
  const sandbox = await startSandbox(builds.sandbox, {});
  const origin = new URL(sandbox.baseUrl).origin;
  const basePath = new URL(sandbox.baseUrl).pathname;
  const headers = { authorization: `Bearer ${sandbox.apiKey}`, accept: 'application/json' };
  const market = await firstOpenMarket(sandbox);
  const quoteBody = JSON.stringify({ market, side: 'buy', notional_usd: 10_000, tenor_days: 3 });
  const cases = [
    { label: 'GET /markets', path: `${basePath}/markets`, method: 'GET' },
    { label: 'POST /quotes', path: `${basePath}/quotes`, method: 'POST', body: quoteBody, headers: { 'content-type': 'application/json' } },
  ];
  const results = [];
  for (const one of cases) {
    const options = { origin, path: one.path, method: one.method, body: one.body, headers: { ...headers, ...one.headers }, connections: LOAD.connections };
    await loadTest({ ...options, durationMs: 1_000, maxRequests: LOAD.maxRequests }); // warm-up
    results.push({ ...one, ...(await loadTest({ ...options, durationMs: LOAD.durationMs, maxRequests: LOAD.maxRequests })) });
  }
  await sandbox.close();
  const lines = [
    `The sandbox alone in its own Node process (one JavaScript thread, so at most one core); the load generator (bench/lib/load.mjs: undici Pool, ${LOAD.connections} keep-alive connections, closed loop, ${LOAD.durationMs / 1000} s after a 1 s warm-up, at most ${LOAD.maxRequests} requests) in the bench process. On a ${availableParallelism()}-CPU machine the two share the cores with whatever else runs.`,
    '',
    '| request | requests | 2xx | other | seconds | per second |',
    '|---|---:|---:|---:|---:|---:|',
    ...results.map((row) => `| ${row.label} | ${row.requests} | ${row.ok} | ${row.errors} | ${row.seconds.toFixed(1)} | **${Math.round(row.perSecond)}** |`),
    '',
    `Target: ≥ ${TARGETS.marketsPerSecond} GET /markets per second.`,
  ];
  return { marketsPerSecond: results[0].perSecond, section: `## 6. The sandbox server\n\n${lines.join('\n')}\n` };
}

// ---- what each change bought --------------------------------------------------------------

async function measureChanges(builds, reads, env) {
  const steps = [
    ['esm-external', 'before: ESM launcher → dist/cli.js + chunks, packages loaded from node_modules'],
    ['esm-bundled', '1. dependencies bundled into the chunks'],
    ['cjs-front', '2. + CommonJS front door dist/cli.cjs (commander only)'],
    ['cjs-front-lazy', "3. + commander's node:child_process loaded on first use"],
    ['current', '4. + `--version` answered by the launcher (= current)'],
  ];
  const floor = nodeCommand('node -e 0', ['-e', '0'], env.vars);
  const configDir = freshDir('config');
  const apiEnv = { ...env.vars, HEDGE_BASE_URL: reads.baseUrl, HEDGE_API_KEY: reads.apiKey };
  const start = (args, check) => [floor, ...steps.map(([name]) => hedgeCommand(name, builds[name].bin, args, env.vars, configDir, check))];
  const version = await alternate(start(['--version'], expectStdout(/^\d+\.\d+\.\d+\n$/)), { runs: START_RUNS, warmup: 2 });

  // The code cache is written by a first run, so it is primed before measuring.
  await runOnce(hedgeCommand('code-cache', builds['code-cache'].bin, ['--help'], env.vars, configDir));
  const helpCommands = [...start(['--help'], expectStdout(/^Usage: hedge/)), hedgeCommand('code-cache', builds['code-cache'].bin, ['--help'], env.vars, configDir, expectStdout(/^Usage: hedge/))];
  const help = await alternate(helpCommands, { runs: START_RUNS, warmup: 2 });

  const requestCommands = [
    nodeCommand('minimal script', [MIN_REQUEST, '/markets'], apiEnv, expectJson((body) => body.data?.length > 0)),
    ...steps.map(([name]) => hedgeCommand(name, builds[name].bin, ['markets', '--json'], apiEnv, configDir, expectJson((data) => data.length > 0))),
    hedgeCommand('no-liftoff', builds['no-liftoff'].bin, ['markets', '--json'], apiEnv, configDir, expectJson((data) => data.length > 0)),
    nodeCommand('minimal script --liftoff-only', ['--liftoff-only', MIN_REQUEST, '/markets'], apiEnv, expectJson((body) => body.data?.length > 0)),
  ];
  const requests = await alternate(requestCommands, { runs: RUNS, warmup: 1 });

  // What the source changes save, each on its own: the first Intl.NumberFormat of a process
  // (src/ui/format.ts makes it lazily now) and creating process.stdin (src/cli.ts, likewise).
  const micro = await alternate(
    [
      floor,
      nodeCommand('first Intl.NumberFormat', ['-e', "new Intl.NumberFormat('en-US', { minimumFractionDigits: 2 }).format(1)"], env.vars),
      nodeCommand('process.stdin', ['-e', 'process.stdin'], env.vars),
    ],
    { runs: START_RUNS, warmup: 2 },
  );

  const ratio = (results, index) => (median(results[index].wallMs) / median(results[0].wallMs)).toFixed(2);
  const lines = [
    `Each earlier build is rebuilt by the bench from today's src/ (bench/lib/builds.mjs), and measured side by side with the current one, ${env.name}. Ratios to \`node -e 0\` (start) or to the minimal undici script (request); medians of ${START_RUNS} (start) and ${RUNS} (request) alternated runs.`,
    '',
    '| build | `--version` | `--help` | `markets --json` |',
    '|---|---:|---:|---:|',
    ...steps.map(([, label], index) => `| ${label} | ${ratio(version, index + 1)}× | ${ratio(help, index + 1)}× | ${ratio(requests, index + 1)}× |`),
    `| current without src/run.ts's \`--liftoff-only\` (the bench's launcher makes the flag a no-op) | | | ${ratio(requests, steps.length + 1)}× |`,
    `| the minimal script itself run with \`node --liftoff-only\` | | | ${ratio(requests, steps.length + 2)}× |`,
    `| tried, not adopted: current + V8 code cache of dist/cli.cjs through vm.Script (\`--help\` only: on Node 20 such a script cannot \`import()\` the commands; see the notes) | | ${ratio(help, steps.length + 1)}× | |`,
    '',
    `Floors: \`node -e 0\` ${fmt(median(version[0].wallMs))} ms; minimal script ${fmt(median(requests[0].wallMs))} ms.`,
    '',
    `Source changes, each measured on its own against \`node -e 0\` (${fmt(median(micro[0].wallMs))} ms): the first \`Intl.NumberFormat\` of a process costs ${fmt(median(micro[1].wallMs) - median(micro[0].wallMs))} ms, so src/ui/format.ts now builds its money formatter on first use and \`--json\` output never pays it; creating \`process.stdin\` costs ${fmt(median(micro[2].wallMs) - median(micro[0].wallMs))} ms (Node's file streams and readline), so src/cli.ts now creates it only when a command reads it.`,
  ];
  return `## What each change bought\n\n${lines.join('\n')}\n`;
}

// ---- the sandbox process ------------------------------------------------------------------

async function startSandbox(bundle, { apiKeyCount = 2, ...options }) {
  const { generateTestKey } = await import(bundle);
  const apiKeys = Array.from({ length: apiKeyCount }, () => generateTestKey());
  const child = fork(SANDBOX_HOST, [bundle, JSON.stringify({ ...options, apiKeys })], {
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    env: withoutHedgeVars(process.env),
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

async function firstOpenMarket(sandbox) {
  const response = await request(`${sandbox.baseUrl}/markets`, { headers: { authorization: `Bearer ${sandbox.apiKey}` } });
  const markets = (await response.body.json()).data;
  return markets.find((market) => market.status === 'open').market;
}

// ---- commands and environments ------------------------------------------------------------

function withoutHedgeVars(env) {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !name.startsWith('HEDGE_')));
}

/** As the user has it, and (when the user sets it) without NODE_EXTRA_CA_CERTS. */
function environments() {
  const user = withoutHedgeVars(process.env);
  const ca = user.NODE_EXTRA_CA_CERTS;
  if (!ca) return [{ name: 'NODE_EXTRA_CA_CERTS unset (as the user has it)', caSet: false, vars: user }];
  const { NODE_EXTRA_CA_CERTS: _, ...bare } = user;
  let size = '';
  try {
    size = `, ${Math.round(statSync(ca).size / 1024)} kB`;
  } catch {
    size = ', file missing';
  }
  return [
    { name: `NODE_EXTRA_CA_CERTS set (as the user has it${size})`, caSet: true, vars: user },
    { name: 'NODE_EXTRA_CA_CERTS unset', caSet: false, vars: bare },
  ];
}

function freshDir(prefix) {
  return mkdtempSync(join(tmp, `${prefix}-`));
}

function nodeCommand(label, argv, env, check) {
  return { label, argv, env, check };
}

function hedgeCommand(label, bin, args, env, configDir, check) {
  return { label, argv: [bin, ...args], env: { ...env, HEDGE_CONFIG_DIR: configDir }, check };
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

// ---- rendering ----------------------------------------------------------------------------

function rows(commands, results, baseIndex, { rss = false } = {}) {
  const base = median(results[baseIndex].wallMs);
  return commands.map((command, index) => {
    const wall = results[index].wallMs;
    const [q1, q3] = quartiles(wall);
    return {
      label: command.label,
      median: median(wall),
      q1,
      q3,
      ratio: median(wall) / base,
      rssMiB: rss ? median(results[index].maxRssKiB) / 1024 : undefined,
      note: '',
    };
  });
}

function ratioOf(tableRows, index) {
  return tableRows[index].ratio;
}

function target(what, measured, limit, unit, direction = 'at most') {
  const met = direction === 'at most' ? measured <= limit : measured >= limit;
  const show = (value) => (unit === '×' ? `${value.toFixed(2)}×` : `${unit === ' MiB' ? value.toFixed(1) : Math.round(value)}${unit}`);
  return { what, measured: show(measured), target: `${direction === 'at most' ? '≤' : '≥'} ${show(limit)}`, met };
}

function section(title, intro, tables) {
  const parts = [`## ${title}\n\n${intro}\n`];
  for (const { env, runs, rows: tableRows } of tables) {
    const rss = tableRows.some((row) => row.rssMiB !== undefined);
    parts.push(`**${env.name}** (medians of ${runs} alternated runs after a warm-up)\n`);
    parts.push(`| command | median ms | quartiles ms | ratio |${rss ? ' peak RSS MiB |' : ''}${tableRows.some((row) => row.note) ? ' note |' : ''}`);
    parts.push(`|---|---:|---:|---:|${rss ? '---:|' : ''}${tableRows.some((row) => row.note) ? '---|' : ''}`);
    for (const row of tableRows) {
      parts.push(
        `| ${row.label} | ${fmt(row.median)} | ${fmt(row.q1)} – ${fmt(row.q3)} | ${row.ratio.toFixed(2)}× |${rss ? ` ${row.rssMiB.toFixed(1)} |` : ''}${tableRows.some((r) => r.note) ? ` ${row.note} |` : ''}`,
      );
    }
    parts.push('');
  }
  return parts.join('\n');
}

function describeMachine() {
  const ca = process.env.NODE_EXTRA_CA_CERTS;
  return [
    `- Node ${process.version} on ${process.platform}/${process.arch}`,
    `- CPUs: ${availableParallelism()} (nproc), ${cpus()[0]?.model ?? 'unknown model'}`,
    `- NODE_EXTRA_CA_CERTS: ${ca ? `set to ${ca}` : 'not set'} in the environment the bench was started from`,
    `- load average at start (1/5/15 min): ${loadavg().map((value) => value.toFixed(2)).join(' / ')}`,
  ];
}

function render({ machine, envs, summary, sections, seconds }) {
  const notes = readFileSync(join(ROOT, 'bench', 'notes.md'), 'utf8').trim();
  return `# Benchmarks (issue 8)

Written by \`npm run bench\` on ${new Date(started).toISOString()} in ${seconds} s; do not edit by hand (the method and the
decisions are in bench/notes.md, included at the end). Benchmarks, not tests: nothing fails on time.

## Machine

${machine.join('\n')}
- load average at the end: ${loadavg().map((value) => value.toFixed(2)).join(' / ')}
- environments measured: ${envs.map((env) => env.name).join('; ')}

## Targets

| target | measured | limit | met |
|---|---:|---:|:---:|
${summary.map((row) => `| ${row.what} | ${row.measured} | ${row.target} | ${row.met ? 'yes' : '**no**'} |`).join('\n')}

${sections.join('\n')}
${notes}
`;
}

function fmt(value) {
  return value >= 100 ? value.toFixed(0) : value.toFixed(1);
}
