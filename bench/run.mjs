// `npm run bench` (after `npm run build`): measures hedge against the floors it cannot beat and
// writes bench/results.md with the goals of issue 15, each marked met or not. Benchmarks, not tests:
// nothing here fails on time (it fails only when a command does not do what it should).
//
// Every ratio compares two things measured in the same run, alternated (A B A B …), each the
// median of the runs kept after a warm-up, both under the same environment. For commands: the
// child's own CPU time (user + system, every thread, from bench/lib/usage-probe.cjs) and its wall
// time from spawn to exit. Environment variables: BENCH_RUNS (default 11, at least 10; start-up
// cases take at least 21), BENCH_SKIP_VARIANTS=1 (skip "what each change bought"),
// BENCH_GROW (default 10000: the large simulator's hedges), BENCH_ONLY=simulator (only cases 4-5,
// while working on the sandbox; results.md is then not written).
import { fork } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { prepareBuilds } from './lib/builds.mjs';
import { growOverHttp, readOverHttp } from './lib/grow.mjs';
import { alternate, median, quartiles } from './lib/measure.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const RESULTS = join(ROOT, 'bench', 'results.md');
const HTTP_GET = join(ROOT, 'bench', 'lib', 'http-get.mjs');
const MIN_UNDICI = join(ROOT, 'bench', 'lib', 'min-request.mjs');
const SANDBOX_HOST = join(ROOT, 'bench', 'lib', 'sandbox-host.mjs');
const RUNS = Math.max(10, Number(process.env.BENCH_RUNS ?? 11));
/** Start-up runs are short and noisy on a shared machine: take more of them. */
const START_RUNS = Math.max(RUNS, 21);
const LIST_SIZE = 500;
const TABLE_COLUMNS = '200';
const BIG = Math.max(1_000, Number(process.env.BENCH_GROW ?? 10_000));
const SMALL_WRITES_AT = 100;
const SMALL_READS_AT = 10;
const SIM_ROUNDS = 7;
const BURST_HEDGES = 100; // 200 writes: each hedge opened, then closed
const PAGE_READS = 300;
/** Open markets beside USDTNGN, so that the growth keeps several writes in flight (bench/lib/grow.mjs). */
const GROWTH_MARKETS = ['USDTNGN', 'USDTKES', 'USDTGHS', 'USDTEGP'];
const EXTRA_MARKETS = GROWTH_MARKETS.slice(1).map((market) => ({ market, status: 'open', basePrice: 100 }));

const GOALS = {
  request: 1.5,
  help: 1.3,
  table: 1.3,
  writes: 0.8,
  page: 2,
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
  const only = process.env.BENCH_ONLY;
  const builds = await prepareBuilds(ROOT, tmp, { variants: process.env.BENCH_SKIP_VARIANTS !== '1' && only === undefined });
  if (only === 'simulator') {
    const simulator = await measureSimulator(builds.sandbox);
    log(simulator.section);
    return;
  }
  const hedge = builds.current.bin;
  const machine = describeMachine();
  const envs = environments();
  const sections = [];
  const goals = [];

  const reads = await startSandbox(builds.sandbox, {});
  const apiEnv = (env, apiKey = reads.apiKey) => ({ ...env.vars, HEDGE_BASE_URL: reads.baseUrl, HEDGE_API_KEY: apiKey });

  // 1. One request: hedge against the node:http floor (and the minimal undici script, for reference).
  const request = [];
  for (const env of envs) {
    log(`bench: 1. one request (${env.name})`);
    const commands = [
      nodeCommand('`node:http` GET script (the floor)', [HTTP_GET, '/markets'], apiEnv(env), expectJson((body) => body.data?.length > 0)),
      nodeCommand('minimal undici script (undici from node_modules)', [MIN_UNDICI, '/markets'], apiEnv(env), expectJson((body) => body.data?.length > 0)),
      hedgeCommand('`hedge markets --json`', hedge, ['markets', '--json'], apiEnv(env), freshDir('config'), expectJson((data) => data.length > 0)),
    ];
    const results = await alternate(commands, { runs: RUNS, warmup: 1, tmpDir: tmp });
    const tableRows = rows(commands, results, 0);
    request.push({ env, runs: RUNS, rows: tableRows });
    goals.push(goal(`\`hedge markets --json\` ÷ \`node:http\` GET, CPU (${env.short})`, tableRows[2], GOALS.request, 'at most'));
  }
  sections.push(
    section(
      '1. One request',
      'Against a sandbox server in its own process on loopback (plain HTTP). The floor is a ten-line `node:http` script sending the same GET and printing the body; the minimal undici script does the same with `import { request } from \'undici\'` (the whole package from node_modules). `hedge` gets HEDGE_API_KEY and HEDGE_BASE_URL from the environment, so no profile store is opened. Ratios to the floor.',
      request,
    ),
  );

  // 2. Start-up: --help against `node -e 0`.
  const start = [];
  for (const env of envs) {
    log(`bench: 2. start-up (${env.name})`);
    const configDir = freshDir('config');
    const commands = [
      nodeCommand('`node -e 0`', ['-e', '0'], env.vars),
      hedgeCommand('`hedge --help`', hedge, ['--help'], env.vars, configDir, expectStdout(/^Usage: hedge/)),
      hedgeCommand('`hedge --version`', hedge, ['--version'], env.vars, configDir, expectStdout(/^\d+\.\d+\.\d+\n$/)),
    ];
    const results = await alternate(commands, { runs: START_RUNS, warmup: 2, tmpDir: tmp });
    const tableRows = rows(commands, results, 0);
    start.push({ env, runs: START_RUNS, rows: tableRows });
    goals.push(goal(`\`hedge --help\` ÷ \`node -e 0\`, CPU (${env.short})`, tableRows[1], GOALS.help, 'at most'));
  }
  sections.push(section('2. Start-up', 'Ratios to `node -e 0`, the floor any Node CLI pays.', start));

  // 3. 500 hedges as a table and as JSON.
  log(`bench: 3. ${LIST_SIZE} hedges as a table and as JSON`);
  const listKey = reads.apiKeys[1];
  await reads.call({ op: 'seed', apiKey: listKey, count: LIST_SIZE });
  const listEnv = { ...apiEnv(envs[0], listKey), COLUMNS: TABLE_COLUMNS };
  const listArgs = ['hedges', '--limit', String(LIST_SIZE)];
  const listCommands = [
    hedgeCommand(`\`hedge hedges --limit ${LIST_SIZE} --json\``, hedge, [...listArgs, '--json'], listEnv, freshDir('config'), expectJson((data) => data.length === LIST_SIZE)),
    hedgeCommand(`\`hedge hedges --limit ${LIST_SIZE} --format table\` (COLUMNS=${TABLE_COLUMNS})`, hedge, [...listArgs, '--format', 'table'], listEnv, freshDir('config'), expectLines(LIST_SIZE)),
  ];
  const listResults = await alternate(listCommands, { runs: RUNS, warmup: 1, tmpDir: tmp });
  const listRows = rows(listCommands, listResults, 0);
  goals.push(goal(`${LIST_SIZE} hedges as a table ÷ as \`--json\`, CPU (${envs[0].short})`, listRows[1], GOALS.table, 'at most'));
  sections.push(
    section(
      `3. ${LIST_SIZE} hedges: table and JSON`,
      `${LIST_SIZE} hedges on the server (sandbox \`seedHedges\`), one request of \`limit=${LIST_SIZE}\`, stdout piped to the bench (not a terminal: \`--format table\` asks for the table, COLUMNS=${TABLE_COLUMNS} gives it room). Ratios to \`--json\`.`,
      [{ env: envs[0], runs: RUNS, rows: listRows }],
    ),
  );

  // 6 (measured here, on the same sandbox). Requests for a successful quote.
  log('bench: 6. requests for a successful quote');
  const quote = await countQuoteRequests(reads, hedge, apiEnv(envs[0]));
  goals.push({ what: 'requests for a successful `hedge quote`', measured: String(quote.requests.length), limit: `= ${GOALS.quoteRequests}`, met: quote.requests.length === GOALS.quoteRequests });

  // What each change of issue 15 bought.
  if (builds['before-15']) {
    log('bench: what each change bought');
    sections.push(await measureChanges(builds, apiEnv(envs.at(-1)), envs.at(-1)));
  }
  await reads.close();

  // 4 and 5. The simulator as it grows.
  log(`bench: 4-5. the simulator grown to ${BIG} hedges through HTTP writes`);
  const simulator = await measureSimulator(builds.sandbox);
  goals.push({ ...simulator.writesGoal });
  goals.push({ ...simulator.pageGoal });
  sections.push(simulator.section);
  sections.push(quote.section);

  const seconds = Math.round((Date.now() - started) / 1000);
  writeFileSync(RESULTS, render({ machine, envs, goals, sections, seconds }));
  log(`bench: wrote ${RESULTS} in ${seconds} s`);
}

// ---- 6. quote ------------------------------------------------------------------------------

async function countQuoteRequests(sandbox, hedge, env) {
  const market = 'USDTNGN';
  const before = await sandbox.call({ op: 'log', from: 0 });
  const args = ['quote', market, 'buy', '10000', '--tenor', '3', '--json'];
  const command = hedgeCommand('hedge quote', hedge, args, env, freshDir('config'), expectJson((data) => data.market === market));
  await alternate([command], { runs: 1, warmup: 0, tmpDir: tmp });
  const after = await sandbox.call({ op: 'log', from: before.count });
  const requests = after.entries.map((entry) => `${entry.method} ${entry.path} → ${entry.status}`);
  const text = [
    `\`hedge ${args.join(' ')}\` against the sandbox; the server's own request log, in order:`,
    '',
    ...requests.map((line) => `- ${line}`),
    '',
    `Goal: ${GOALS.quoteRequests} (POST /quotes). GET /markets only after a refusal, to explain it (src/flows/markets.ts; counted by test/e2e/quote-requests.test.ts).`,
  ].join('\n');
  return { requests, section: `## 6. Requests for a successful quote\n\n${text}\n` };
}

// ---- what each change bought -------------------------------------------------------------

async function measureChanges(builds, env, environment) {
  const configDir = freshDir('config');
  const check = expectJson((data) => data.length > 0);
  const floor = nodeCommand('`node:http` GET script (the floor)', [HTTP_GET, '/markets'], env, expectJson((body) => body.data?.length > 0));
  const steps = [
    floor,
    hedgeCommand('before: undici whole, `import { z }` (all of zod, every locale), `--liftoff-only` set as the command starts', builds['before-15'].bin, ['markets', '--json'], env, configDir, check),
    hedgeCommand("now: undici's slice with `--liftoff-only` set at the first request, `import * as z` and English only (scripts/build.mjs), node:tls on first use (src/api/transport.ts)", builds.current.bin, ['markets', '--json'], env, configDir, check),
    hedgeCommand('now, without `--liftoff-only` (its launcher makes the flag a no-op)', builds['no-liftoff'].bin, ['markets', '--json'], env, configDir, check),
  ];
  const whole = await alternate(steps, { runs: RUNS, warmup: 1, tmpDir: tmp });

  const micro = builds.micro;
  const undiciCommands = [
    floor,
    nodeCommand('undici whole, bundled (index.js)', [micro.undiciWhole], env, expectJson((body) => body.data?.length > 0)),
    nodeCommand('undici whole, bundled, `node --liftoff-only` (the flag set before Node starts)', ['--liftoff-only', micro.undiciWhole], env, expectJson((body) => body.data?.length > 0)),
    nodeCommand("undici's slice, bundled as hedge bundles it (flag at the first request)", [micro.undiciSlice], env, expectJson((body) => body.data?.length > 0)),
  ];
  const undici = await alternate(undiciCommands, { runs: RUNS, warmup: 1, tmpDir: tmp });

  const zodCommands = [
    nodeCommand('`node -e 0`', ['-e', '0'], environment.vars),
    nodeCommand('`import { z } from \'zod\'`, bundled (every locale; before)', [micro.zodBefore], environment.vars, expectStdout(/^ok\n$/)),
    nodeCommand("`import * as z from 'zod'`, bundled, English only (now)", [micro.zodNow], environment.vars, expectStdout(/^ok\n$/)),
    nodeCommand('`zod/mini` with the English locale (not adopted, see the notes)', [micro.zodMini], environment.vars, expectStdout(/^ok\n$/)),
  ];
  const zod = await alternate(zodCommands, { runs: START_RUNS, warmup: 2, tmpDir: tmp });

  const intro = `All ${environment.name}, medians of ${RUNS} alternated runs (${START_RUNS} for zod). The \`hedge\` rows are today's src/ built the way it was built before issue 15 and the way it is now (bench/lib/builds.mjs); the undici and zod rows are small scripts bundled each way, to show each step on its own.`;
  return [
    `## What each change bought\n\n${intro}\n`,
    table('`hedge markets --json`', steps, whole),
    table('The same GET in a script: what the undici slice buys', undiciCommands, undici),
    table('A market list checked with zod (the shape of src/api/schemas.ts)', zodCommands, zod),
  ].join('\n');
}

// ---- 4 and 5. the simulator ----------------------------------------------------------------

async function measureSimulator(bundle) {
  const options = { fillDelayMs: 0, extraMarkets: EXTRA_MARKETS };
  // One account more than rounds: the extra one takes the warm-up burst.
  const small = await startSandbox(bundle, { ...options, apiKeyCount: SIM_ROUNDS + 1 });
  const big = await startSandbox(bundle, { ...options, apiKeyCount: 1 });
  const tiny = await startSandbox(bundle, { ...options, apiKeyCount: 1 });
  const target = (sandbox, apiKey) => ({ baseUrl: sandbox.baseUrl, apiKey });
  const bigTarget = target(big, big.apiKey);

  // Grown through real writes, 1,000 hedges at a time: how fast the growth itself goes is a figure too.
  const growth = [];
  for (let done = 0; done < BIG; done += 1_000) {
    const step = Math.min(1_000, BIG - done);
    const grown = await growOverHttp(bigTarget, { markets: GROWTH_MARKETS, hedges: step, keyPrefix: `grow-${done}` });
    growth.push({ from: done, to: done + step, writesPerSecond: grown.writes / grown.seconds });
  }
  for (const [index, apiKey] of small.apiKeys.entries()) {
    await growOverHttp(target(small, apiKey), { markets: GROWTH_MARKETS, hedges: SMALL_WRITES_AT, keyPrefix: `grow-${index}` });
  }
  await growOverHttp(target(tiny, tiny.apiKey), { markets: GROWTH_MARKETS, hedges: SMALL_READS_AT, keyPrefix: 'grow' });
  const held = { small: await small.call({ op: 'hedges' }), big: await big.call({ op: 'hedges' }), tiny: await tiny.call({ op: 'hedges' }) };
  if (held.big !== BIG || held.small !== SMALL_WRITES_AT * (SIM_ROUNDS + 1) || held.tiny !== SMALL_READS_AT) {
    throw new Error(`the growth left ${JSON.stringify(held)} hedges`);
  }

  // Writes: the next BURST_HEDGES hedges (2 writes each) at 100 hedges (a fresh account of `small`
  // each round, so it is always at 100) and at BIG, alternated.
  const timed = async (sandbox, work) => {
    const cpuBefore = await sandbox.call({ op: 'cpu' });
    const { seconds, count } = await work();
    const cpuMicros = (await sandbox.call({ op: 'cpu' })) - cpuBefore;
    return { perSecond: count / seconds, cpuMicrosEach: cpuMicros / count };
  };
  const burst = (sandbox, apiKey, prefix) => async () => {
    const grown = await growOverHttp(target(sandbox, apiKey), { markets: GROWTH_MARKETS, hedges: BURST_HEDGES, keyPrefix: prefix });
    return { seconds: grown.seconds, count: grown.writes };
  };
  const writes = { small: [], big: [] };
  // Warm-up, not kept: V8 takes thousands of requests to settle on its optimised code (a sandbox
  // fresh from 200 writes answers pages 5× slower than after 4,000), so each process gets as many.
  for (let warm = 0; warm < 5; warm++) {
    await burst(small, small.apiKeys[SIM_ROUNDS], `warm-up-${warm}`)();
    await burst(big, big.apiKey, `warm-up-${warm}`)();
  }
  for (let round = 0; round < SIM_ROUNDS; round++) {
    const pair = [
      ['small', () => timed(small, burst(small, small.apiKeys[round], `burst-${round}`))],
      ['big', () => timed(big, burst(big, big.apiKey, `burst-${round}`))],
    ];
    for (const [name, run] of round % 2 === 0 ? pair : pair.reverse()) writes[name].push(await run());
  }

  // One-item pages: GET /hedges?<page size>=1 at 10 hedges and at BIG (+ the bursts), alternated.
  const pagePath = `/hedges?${big.pageSizeParameter}=1`;
  const pages = { tiny: [], big: [] };
  const reading = (sandbox) => async () => ({ seconds: (await readOverHttp(target(sandbox, sandbox.apiKey), pagePath, PAGE_READS)).seconds, count: PAGE_READS });
  for (const sandbox of [tiny, big]) for (let warm = 0; warm < 15; warm++) await reading(sandbox)();
  for (let round = 0; round < SIM_ROUNDS; round++) {
    const pair = [
      ['tiny', () => timed(tiny, reading(tiny))],
      ['big', () => timed(big, reading(big))],
    ];
    for (const [name, run] of round % 2 === 0 ? pair : pair.reverse()) pages[name].push(await run());
  }
  const bigAtEnd = await big.call({ op: 'hedges' });
  await Promise.all([small.close(), big.close(), tiny.close()]);

  const med = (samples, key) => median(samples.map((sample) => sample[key]));
  const writesRatio = med(writes.big, 'perSecond') / med(writes.small, 'perSecond');
  const writesCpuRatio = med(writes.small, 'cpuMicrosEach') / med(writes.big, 'cpuMicrosEach');
  const pageCpuRatio = med(pages.big, 'cpuMicrosEach') / med(pages.tiny, 'cpuMicrosEach');
  const pageWallRatio = med(pages.tiny, 'perSecond') / med(pages.big, 'perSecond');
  const spread = (samples, key, digits = 0) => {
    const [q1, q3] = quartiles(samples.map((sample) => sample[key]));
    return `${q1.toFixed(digits)} – ${q3.toFixed(digits)}`;
  };
  const lines = [
    `Three sandboxes, each in its own process on loopback, fill delay 0 (a fill lands before the next request on its side), markets ${GROWTH_MARKETS.join(', ')} open. Every hedge was made by real HTTP writes from the bench process (bench/lib/grow.mjs: on each market and side, open then close, each write with its Idempotency-Key, ${GROWTH_MARKETS.length * 2} keep-alive connections), so indexes, queues and idempotency records grew as traffic grows them. Server CPU = the sandbox process's own user + system time over the burst (\`process.cpuUsage\`), divided by the requests; it does not count the client. ${SIM_ROUNDS} rounds, the two sizes alternated; medians, quartiles beside.`,
    '',
    `**Writes while growing one account to ${BIG} hedges** (${BIG * 2} writes):`,
    '',
    '| hedges | writes/s |',
    '|---|---:|',
    ...growth.map((step) => `| ${step.from} → ${step.to} | ${Math.round(step.writesPerSecond)} |`),
    '',
    `**Writes** (the next ${BURST_HEDGES * 2} writes = ${BURST_HEDGES} hedges opened and closed; "at ${SMALL_WRITES_AT}" is a fresh account of ${SMALL_WRITES_AT} hedges each round; each burst opens its ${GROWTH_MARKETS.length * 2} connections, which its wall time includes, so its writes/s are below the growth's):`,
    '',
    '| at | writes/s | quartiles | server CPU per write µs | quartiles |',
    '|---|---:|---:|---:|---:|',
    `| ${SMALL_WRITES_AT} hedges | ${Math.round(med(writes.small, 'perSecond'))} | ${spread(writes.small, 'perSecond')} | ${Math.round(med(writes.small, 'cpuMicrosEach'))} | ${spread(writes.small, 'cpuMicrosEach')} |`,
    `| ${BIG} hedges | ${Math.round(med(writes.big, 'perSecond'))} | ${spread(writes.big, 'perSecond')} | ${Math.round(med(writes.big, 'cpuMicrosEach'))} | ${spread(writes.big, 'cpuMicrosEach')} |`,
    `| ratio ${BIG} ÷ ${SMALL_WRITES_AT} | **${writesRatio.toFixed(2)}** | | ${writesCpuRatio.toFixed(2)} (as writes per CPU second) | |`,
    '',
    `**One-item pages** (\`GET ${pagePath}\`, ${PAGE_READS} in a row on one keep-alive connection; the large account held ${bigAtEnd} hedges by then):`,
    '',
    '| at | pages/s | quartiles | server CPU per page µs | quartiles |',
    '|---|---:|---:|---:|---:|',
    `| ${SMALL_READS_AT} hedges | ${Math.round(med(pages.tiny, 'perSecond'))} | ${spread(pages.tiny, 'perSecond')} | ${Math.round(med(pages.tiny, 'cpuMicrosEach'))} | ${spread(pages.tiny, 'cpuMicrosEach')} |`,
    `| ${BIG}+ hedges | ${Math.round(med(pages.big, 'perSecond'))} | ${spread(pages.big, 'perSecond')} | ${Math.round(med(pages.big, 'cpuMicrosEach'))} | ${spread(pages.big, 'cpuMicrosEach')} |`,
    `| cost ratio ${BIG} ÷ ${SMALL_READS_AT} | ${pageWallRatio.toFixed(2)} (wall) | | **${pageCpuRatio.toFixed(2)}** | |`,
  ];
  return {
    writesGoal: {
      what: `simulator writes/s at ${BIG} hedges ÷ at ${SMALL_WRITES_AT} (server CPU: ${writesCpuRatio.toFixed(2)})`,
      measured: writesRatio.toFixed(2),
      limit: `≥ ${GOALS.writes}`,
      met: writesRatio >= GOALS.writes,
    },
    pageGoal: {
      what: `\`GET /hedges?${big.pageSizeParameter}=1\` server CPU at ${BIG} hedges ÷ at ${SMALL_READS_AT} (wall: ${pageWallRatio.toFixed(2)}×)`,
      measured: `${pageCpuRatio.toFixed(2)}×`,
      limit: `≤ ${GOALS.page}×`,
      met: pageCpuRatio <= GOALS.page,
    },
    section: `## 4-5. The simulator at ${SMALL_WRITES_AT} and at ${BIG} hedges\n\n${lines.join('\n')}\n`,
  };
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

// ---- commands and environments ------------------------------------------------------------

function withoutHedgeVars(env) {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !name.startsWith('HEDGE_') && name !== 'COLUMNS'));
}

/** As the user has it, and (when the user sets it) without NODE_EXTRA_CA_CERTS; the other way round when unset. */
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

/** A table of `count` rows: at least that many lines, none of them JSON. */
function expectLines(count) {
  return (run) => {
    const lines = run.stdout.trimEnd().split('\n');
    if (run.stdout.trimStart().startsWith('[')) return 'stdout is JSON, not a table';
    return lines.length >= count ? undefined : `${lines.length} lines on stdout, expected at least ${count}`;
  };
}

// ---- rendering ----------------------------------------------------------------------------

function rows(commands, results, baseIndex) {
  const baseCpu = median(results[baseIndex].cpuMs);
  const baseWall = median(results[baseIndex].wallMs);
  return commands.map((command, index) => {
    const { cpuMs, wallMs, maxRssKiB } = results[index];
    return {
      label: command.label,
      cpu: median(cpuMs),
      cpuQ: quartiles(cpuMs),
      wall: median(wallMs),
      wallQ: quartiles(wallMs),
      cpuRatio: median(cpuMs) / baseCpu,
      wallRatio: median(wallMs) / baseWall,
      rssMiB: median(maxRssKiB) / 1024,
    };
  });
}

function goal(what, row, limit, direction) {
  const met = direction === 'at most' ? row.cpuRatio <= limit : row.cpuRatio >= limit;
  return {
    what: `${what} (wall: ${row.wallRatio.toFixed(2)}×)`,
    measured: `${row.cpuRatio.toFixed(2)}×`,
    limit: `${direction === 'at most' ? '≤' : '≥'} ${limit}×`,
    met,
  };
}

function tableLines(tableRows) {
  return [
    '| command | CPU ms | quartiles | ratio | wall ms | quartiles | ratio | peak RSS MiB |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    ...tableRows.map(
      (row) =>
        `| ${row.label} | ${fmt(row.cpu)} | ${fmt(row.cpuQ[0])} – ${fmt(row.cpuQ[1])} | ${row.cpuRatio.toFixed(2)}× | ${fmt(row.wall)} | ${fmt(row.wallQ[0])} – ${fmt(row.wallQ[1])} | ${row.wallRatio.toFixed(2)}× | ${row.rssMiB.toFixed(1)} |`,
    ),
  ];
}

function table(title, commands, results) {
  return [`**${title}**`, '', ...tableLines(rows(commands, results, 0)), ''].join('\n');
}

function section(title, intro, tables) {
  const parts = [`## ${title}\n\n${intro}\n`];
  for (const { env, runs, rows: tableRows } of tables) {
    parts.push(`**${env.name}** (medians of ${runs} alternated runs after a warm-up)\n`);
    parts.push(...tableLines(tableRows), '');
  }
  return parts.join('\n');
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

function render({ machine, envs, goals, sections, seconds }) {
  const notes = readFileSync(join(ROOT, 'bench', 'notes.md'), 'utf8').trim();
  return `# Benchmarks (issue 15)

Written by \`npm run bench\` on ${new Date(started).toISOString()} in ${seconds} s; do not edit by hand (the method, the
decisions and the goals not reached are in bench/notes.md, included at the end). Benchmarks, not tests: nothing
fails on time.

## Machine

${machine.join('\n')}
- load average at the end: ${loadavg().map((value) => value.toFixed(2)).join(' / ')}
- environments measured: ${envs.map((env) => env.name).join('; ')}

A load average above the CPU count means other processes (test runs, builds) shared the cores with the bench:
the CPU figures (each process's own user + system time) hold up under load far better than the wall figures.

## Goals

| goal | measured | limit | met |
|---|---:|---:|:---:|
${goals.map((row) => `| ${row.what} | ${row.measured} | ${row.limit} | ${row.met ? 'yes' : '**no**'} |`).join('\n')}

${sections.join('\n')}
${notes}
`;
}

function fmt(value) {
  return value >= 100 ? value.toFixed(0) : value.toFixed(1);
}
