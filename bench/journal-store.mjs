// `node bench/journal-store.mjs` (after `npm run build`): what the team journal store adds to a
// write, local file vs PostgreSQL (issue 30). A benchmark, not a test: nothing fails on time.
//
// 1. The journal's part of one write, in-process: begin + update(submitted) + update(done), the
//    three records a write makes. Local file; PostgreSQL with its sessions open (a process's
//    second write on); PostgreSQL from cold (a new process's first write: two connections, the
//    schema check, then the records, then the sessions closed).
// 2. A whole write through the CLI: `hedge open … --no-wait --json` against a local simulator,
//    local journal vs HEDGE_JOURNAL_URL, alternated, the median wall and CPU time of each.
//
// PostgreSQL is a throwaway server on loopback (test/support/postgres-server.ts, run as the
// `postgres` user when this runs as root), so these figures are the floor: a store across a
// network adds its round trips (about a dozen on the critical path of a write from cold, about six
// with sessions open).
// Written to bench/journal-store.md (and stdout). Environment: BENCH_RUNS (CLI runs kept, default
// 15), BENCH_WRITES (in-process writes, default 200).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { alternate, median, quartiles } from './lib/measure.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const RUNS = Math.max(5, Number(process.env.BENCH_RUNS ?? 15));
const WRITES = Math.max(20, Number(process.env.BENCH_WRITES ?? 200));
const log = (line) => process.stderr.write(`${line}\n`);

const tmp = mkdtempSync(join(tmpdir(), 'hedge-bench-store-'));
let server;
let sandbox;
try {
  const bundle = join(tmp, 'bench-store.mjs');
  await build({
    absWorkingDir: ROOT,
    stdin: {
      contents: [
        "export { PostgresJournal } from './src/journal/postgres-store.ts';",
        "export { openJournal } from './src/journal/journal.ts';",
        "export { startSandbox } from './src/sandbox/index.ts';",
        "export { startPostgres } from './test/support/postgres-server.ts';",
      ].join('\n'),
      resolveDir: ROOT,
      loader: 'ts',
    },
    outfile: bundle,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'warning',
    banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" },
  });
  const { PostgresJournal, openJournal, startSandbox, startPostgres } = await import(bundle);

  log('starting a throwaway PostgreSQL …');
  // Durable like a real server (fsync on), as the local file is.
  server = await startPostgres({ durable: true });
  const url = await server.createDatabase('bench');
  const load = loadavg()[0].toFixed(2);

  // ---- 1. in-process -------------------------------------------------------------------------
  const fields = (index) => ({
    profile: 'bench',
    environment: 'test',
    base_url_host: '127.0.0.1:9',
    key_id: '0123456789ab',
    command: 'open',
    argv: ['open', 'USDTNGN', 'buy', String(1000 + index), '--tenor', '3'],
    request: { method: 'POST', path: '/hedges', body: { market: 'USDTNGN', side: 'buy', notional_usd: 1000 + index, tenor_days: 3 } },
    idempotency_key: `bench-${index}-${Math.random().toString(36).slice(2)}`,
  });
  const oneWrite = async (journal, index) => {
    const entry = await journal.begin(fields(index));
    await journal.update(entry.id, { outcome: 'submitted', hedge_id: `hdg_${index}` });
    await journal.update(entry.id, { outcome: 'done' });
  };
  const teamJournal = () => new PostgresJournal({ url, shown: 'bench', source: 'bench', fallbackDir: join(tmp, 'fallback') });
  const local = openJournal({ dir: join(tmp, 'local') });
  const warm = teamJournal();
  await oneWrite(warm, -1);
  const times = { local: [], warm: [], cold: [] };
  for (let index = 0; index < WRITES; index++) {
    // Alternated, so that whatever the machine does meanwhile falls on all three alike.
    for (const kind of ['local', 'warm', 'cold']) {
      const started = process.hrtime.bigint();
      if (kind === 'local') await oneWrite(local, index);
      else if (kind === 'warm') await oneWrite(warm, index);
      else {
        const cold = teamJournal();
        await oneWrite(cold, index);
        await cold.close();
      }
      times[kind].push(Number(process.hrtime.bigint() - started) / 1e6);
    }
  }
  await warm.close();

  // ---- 2. through the CLI --------------------------------------------------------------------
  // Several hedges per side (dialect alpha): every run opens a new one.
  sandbox = await startSandbox({ fillDelayMs: 0, dialect: 'alpha' });
  const configLocal = mkdtempSync(join(tmp, 'cli-local-'));
  const configTeam = mkdtempSync(join(tmp, 'cli-team-'));
  const env = (configDir) => ({
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: configDir,
    HEDGE_CONFIG_DIR: configDir,
    NO_COLOR: '1',
    HEDGE_BASE_URL: sandbox.baseUrl,
    HEDGE_API_KEY: sandbox.apiKey,
  });
  let notional = 1000;
  // Each run a new amount: the same one twice would be a resume, not a new write.
  const args = () => [join(ROOT, 'bin', 'hedge.js'), 'open', 'USDTNGN', 'buy', String((notional += 1)), '--tenor', '3', '--no-wait', '--json'];
  const check = (run) => (typeof JSON.parse(run.stdout) === 'object' ? undefined : 'no answer on stdout');
  const commands = [
    { label: 'local file', get argv() { return args(); }, env: env(configLocal), check },
    { label: 'PostgreSQL', get argv() { return args(); }, env: { ...env(configTeam), HEDGE_JOURNAL_URL: url }, check },
  ];
  const [cliLocal, cliTeam] = await alternate(commands, { runs: RUNS, warmup: 2, tmpDir: tmp });

  // ---- report --------------------------------------------------------------------------------
  const fmt = (values) => {
    const [q1, q3] = quartiles(values);
    return `${median(values).toFixed(2)} ms (${q1.toFixed(2)}–${q3.toFixed(2)})`;
  };
  const lines = [
    `# Journal store: what a write's records cost (${new Date().toISOString().slice(0, 10)})`,
    '',
    `Machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}; load average ${load} at the start, ${loadavg()[0].toFixed(2)} at the end.`,
    `PostgreSQL: a throwaway server on loopback (SCRAM login, fsync on, as the local file fsyncs). Medians, interquartile range in brackets.`,
    '',
    `## The journal's part of one write, in-process (${WRITES} writes each, alternated)`,
    '',
    '| store | begin + 2 updates |',
    '|---|---|',
    `| local file (locked append, fsync) | ${fmt(times.local)} |`,
    `| PostgreSQL, sessions open | ${fmt(times.warm)} |`,
    `| PostgreSQL from cold (connect ×2, schema check, records, close) | ${fmt(times.cold)} |`,
    '',
    `## A whole write through the CLI: \`hedge open … --no-wait --json\` (${RUNS} runs each, alternated)`,
    '',
    '| journal | wall | CPU |',
    '|---|---|---|',
    `| local file | ${fmt(cliLocal.wallMs)} | ${fmt(cliLocal.cpuMs)} |`,
    `| PostgreSQL (HEDGE_JOURNAL_URL) | ${fmt(cliTeam.wallMs)} | ${fmt(cliTeam.cpuMs)} |`,
    `| added by the store | ${(median(cliTeam.wallMs) - median(cliLocal.wallMs)).toFixed(2)} ms | ${(median(cliTeam.cpuMs) - median(cliLocal.cpuMs)).toFixed(2)} ms |`,
    '',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  writeFileSync(join(ROOT, 'bench', 'journal-store.md'), `${lines.join('\n')}\n`);
} finally {
  await sandbox?.close().catch(() => {});
  await server?.close().catch(() => {});
  rmSync(tmp, { recursive: true, force: true });
}
