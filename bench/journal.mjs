// `node bench/journal.mjs` (after `npm run build`): what the journal's history costs a write, and
// how the journal's lock holds up under contention. A benchmark, not a test: it prints figures and
// fails only when a command does not do what it should.
//
// 1. `hedge add USDTNGN sell 1` against a sandbox (in this process, loopback) with 0, 20,000 and
//    200,000 past actions in the journal: the child's own CPU time and peak memory (from
//    bench/lib/usage-probe.cjs), medians of alternated runs (A B C A B C …), as ratios to the empty
//    journal. The past is written as one old-style journal.jsonl (what a journal of an earlier hedge
//    holds); the first add moves it into archives once (its cost is printed too), then the measured
//    adds run on the journal as hedge keeps it.
// 2. 10 processes × 50 entries (each begun, then updated) on one journal: the total time.
// With BENCH_BEFORE=<commit> (e.g. the commit before issue 24's journal), the same figures for that
// commit's build, side by side.
//
// BENCH_RUNS (default 7) rounds are kept after one warm-up round.
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { alternate, median } from './lib/measure.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const RUNS = Math.max(3, Number(process.env.BENCH_RUNS ?? 7));
const PAST = [0, 20_000, 200_000];
const WRITERS = 10;
const ENTRIES_PER_WRITER = 50;
const BEFORE = process.env.BENCH_BEFORE;
const log = (line) => process.stderr.write(`${line}\n`);

const tmp = mkdtempSync(join(tmpdir(), 'hedge-bench-journal-'));
let sandbox;
try {
  await main();
} finally {
  await sandbox?.close().catch(() => {});
  rmSync(tmp, { recursive: true, force: true });
}

async function main() {
  const startedAt = Date.now();
  const load = loadavg()[0].toFixed(2);
  const builds = [{ name: 'now', root: ROOT }];
  if (BEFORE) builds.push({ name: BEFORE.slice(0, 7), root: await checkout(BEFORE) });

  const sandboxBundle = join(tmp, 'sandbox.mjs');
  await build({ absWorkingDir: ROOT, entryPoints: ['src/sandbox/index.ts'], outfile: sandboxBundle, bundle: true, format: 'esm', platform: 'node', target: 'node20', logLevel: 'error' });
  const { startSandbox } = await import(sandboxBundle);
  sandbox = await startSandbox({ fillDelayMs: 1, rateLimit: 1_000_000 });
  const api = async (method, path, body) => {
    const response = await fetch(`${sandbox.baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${sandbox.apiKey}`, 'content-type': 'application/json', 'idempotency-key': `bench-${Math.random()}` },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return response.json();
  };
  await api('POST', '/hedges', { market: 'USDTNGN', side: 'sell', notional_usd: 1_000, tenor_days: 7 });
  await new Promise((resolve) => setTimeout(resolve, 50));

  const lines = [];
  lines.push(`Journal bench, ${new Date(startedAt).toISOString()} · Node ${process.version} · ${cpus().length} cores · load average ${load} at the start · ${RUNS} runs kept per case`);
  for (const target of builds) {
    log(`bench: ${target.name}: writing the journals of past actions`);
    const dirs = PAST.map((count) => {
      const dir = join(tmp, `${target.name}-past-${count}`);
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      writePast(dir, count);
      return dir;
    });
    const command = (dir, count) => ({
      label: `${target.name}: add with ${count} past actions`,
      argv: [join(target.root, 'bin', 'hedge.js'), 'add', 'USDTNGN', 'sell', '1', '--skip-checks'],
      env: { PATH: process.env.PATH ?? '', HOME: dir, HEDGE_CONFIG_DIR: dir, NO_COLOR: '1', HEDGE_API_KEY: sandbox.apiKey, HEDGE_BASE_URL: sandbox.baseUrl },
    });
    // The first add on an old-style journal moves its resolved past into archives: once.
    const firsts = [];
    for (const [index, dir] of dirs.entries()) {
      const { runOnce } = await import('./lib/measure.mjs');
      const run = await runOnce(command(dir, PAST[index]), { usageFile: join(tmp, 'usage-first.json') });
      if (run.code !== 0) throw new Error(`first add (${PAST[index]} past actions) exit ${run.code}: ${run.stderr.slice(0, 400)}`);
      firsts.push(run);
    }
    log(`bench: ${target.name}: measuring adds`);
    const results = await alternate(
      dirs.map((dir, index) => command(dir, PAST[index])),
      { runs: RUNS, warmup: 1, tmpDir: tmp },
    );
    const cpu = results.map((result) => median(result.cpuMs));
    const rss = results.map((result) => median(result.maxRssKiB) / 1024);
    lines.push('', `${target.name}: \`hedge add USDTNGN sell 1\` (median CPU and peak RSS of the child; the first add on each journal in the last column)`, '');
    lines.push('| past actions | CPU ms | × empty | peak MiB | × empty | active segment | archives | first add: CPU ms, MiB |', '|---:|---:|---:|---:|---:|---:|---:|---:|');
    for (const [index, count] of PAST.entries()) {
      const active = sizeOf(join(dirs[index], 'journal.jsonl'));
      const archives = sizeOfFolder(join(dirs[index], 'journal-archive'));
      lines.push(
        `| ${count.toLocaleString('en-US')} | ${cpu[index].toFixed(0)} | ${(cpu[index] / cpu[0]).toFixed(2)} | ${rss[index].toFixed(0)} | ${(rss[index] / rss[0]).toFixed(2)} | ${mib(active)} | ${mib(archives)} | ${firsts[index].cpuMs.toFixed(0)}, ${(firsts[index].maxRssKiB / 1024).toFixed(0)} |`,
      );
    }

    log(`bench: ${target.name}: ${WRITERS} writers × ${ENTRIES_PER_WRITER} entries`);
    const writerTimes = [];
    for (let round = 0; round < 3; round++) writerTimes.push(await parallelWriters(target));
    lines.push('', `${target.name}: ${WRITERS} processes × ${ENTRIES_PER_WRITER} entries (each begun, then updated: ${WRITERS * ENTRIES_PER_WRITER * 2} locked, fsynced appends) on one journal: ${writerTimes.map((ms) => `${(ms / 1000).toFixed(2)} s`).join(', ')} (3 rounds, wall time from the first spawn to the last exit)`);
  }
  lines.push('', `The bench took ${((Date.now() - startedAt) / 1000).toFixed(0)} s.`);
  process.stdout.write(`${lines.join('\n')}\n`);
}

/** `count` resolved adds, as begin and update events, spread over the last 200 days. */
function writePast(dir, count) {
  if (count === 0) return;
  const now = Date.now();
  const chunks = [];
  for (let index = 0; index < count; index++) {
    const created = now - Math.round(((count - index) / count) * 200 * 86_400_000);
    const at = new Date(created).toISOString();
    const id = `a_${created.toString(36)}${(index % 1_679_616).toString(36).padStart(4, '0')}`;
    chunks.push(
      JSON.stringify({
        id,
        at,
        profile: 'desk',
        environment: 'test',
        base_url_host: '127.0.0.1:1',
        key_id: '0123456789ab',
        command: 'add',
        argv: ['add', 'USDTNGN', 'sell', String(100 + (index % 900))],
        request: { method: 'POST', path: '/hedges/add', body: { market: 'USDTNGN', side: 'sell', notional_usd: 100 + (index % 900) } },
        idempotency_key: `00000000-0000-4000-8000-${index.toString(16).padStart(12, '0')}`,
        context: { baseline_notional_usd: 1000, hedge_id: 'hdg_bench' },
        outcome: 'pending',
      }),
      JSON.stringify({ id, at, outcome: 'submitted', hedge_id: 'hdg_bench', order_tx_hash: `0x${index.toString(16).padStart(64, '0')}` }),
      JSON.stringify({ id, at, outcome: 'done', resolved_at: at }),
    );
  }
  writeFileSync(join(dir, 'journal.jsonl'), `${chunks.join('\n')}\n`, { mode: 0o600 });
}

/** Wall time of WRITERS processes appending ENTRIES_PER_WRITER entries each to one fresh journal. */
async function parallelWriters(target) {
  const bundle = join(tmp, `journal-${target.name}.cjs`);
  if (!exists(bundle)) {
    await build({ absWorkingDir: target.root, entryPoints: ['src/journal/index.ts'], outfile: bundle, bundle: true, platform: 'node', format: 'cjs', target: 'node20', logLevel: 'error' });
  }
  const dir = mkdtempSync(join(tmp, 'writers-'));
  const writer = join(ROOT, 'bench', 'lib', 'journal-writer.cjs');
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from(
      { length: WRITERS },
      (_, index) =>
        new Promise((resolve, reject) => {
          const child = spawn(process.execPath, [writer, JSON.stringify({ bundle, dir: join(dir, 'state'), writer: index, count: ENTRIES_PER_WRITER })], { stdio: ['ignore', 'ignore', 'pipe'] });
          let stderr = '';
          child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr += chunk));
          child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`writer ${index} exit ${code}: ${stderr}`))));
        }),
    ),
  );
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  rmSync(dir, { recursive: true, force: true });
  return ms;
}

/** A build of another commit, for BENCH_BEFORE: its tree, this checkout's node_modules (hard links), its own build. */
async function checkout(commit) {
  const dir = join(tmp, `tree-${commit.slice(0, 7)}`);
  mkdirSync(dir);
  execFileSync('sh', ['-c', `git -C "${ROOT}" archive "${commit}" | tar -x -C "${dir}"`]);
  // Hard links, not a symlink: the build resolves dependencies by their real path under the tree.
  execFileSync('cp', ['-al', join(ROOT, 'node_modules'), join(dir, 'node_modules')]);
  log(`bench: building ${commit}`);
  execFileSync(process.execPath, [join(dir, 'scripts', 'build.mjs')], { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'] });
  return dir;
}

function exists(path) {
  try {
    statSync(path);
    return true;
  } catch {
    return false;
  }
}

function sizeOf(path) {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

function sizeOfFolder(path) {
  try {
    return readdirSync(path).reduce((sum, name) => sum + sizeOf(join(path, name)), 0);
  } catch {
    return 0;
  }
}

function mib(bytes) {
  return `${(bytes / 1024 / 1024).toFixed(2)} MiB`;
}


