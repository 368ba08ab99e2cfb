// `node bench/table-ratio.mjs` (after `npm run build`): case 3 of bench/run.mjs on its own, for
// work on the tables — 500 hedges as a table (COLUMNS=200, and 80) and as --json, the child's
// CPU (median of alternated runs), and the ratio the goal is set on (≤ 1.3×). Prints a small
// table; writes nothing. BENCH_RUNS (default 11).
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { prepareBuilds } from './lib/builds.mjs';
import { alternate, median } from './lib/measure.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const RUNS = Math.max(5, Number(process.env.BENCH_RUNS ?? 11));
const LIST_SIZE = 500;
const tmp = mkdtempSync(join(tmpdir(), 'hedge-table-ratio-'));
const host = { child: undefined };
try {
  const builds = await prepareBuilds(ROOT, tmp, { variants: false });
  const { generateTestKey } = await import(builds.sandbox);
  const apiKey = generateTestKey();
  const child = fork(join(ROOT, 'bench', 'lib', 'sandbox-host.mjs'), [builds.sandbox, JSON.stringify({ apiKeys: [apiKey] })], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  host.child = child;
  const ready = await new Promise((resolve) => child.on('message', (message) => message.ready && resolve(message.ready)));
  await new Promise((resolve) => {
    child.on('message', (message) => message.id === 1 && resolve());
    child.send({ id: 1, op: 'seed', apiKey, count: LIST_SIZE });
  });
  const env = (columns) => ({ PATH: process.env.PATH ?? '', HOME: tmp, HEDGE_BASE_URL: ready.baseUrl, HEDGE_API_KEY: apiKey, HEDGE_CONFIG_DIR: join(tmp, 'config'), COLUMNS: columns });
  const args = ['hedges', '--limit', String(LIST_SIZE)];
  const lines = (run) => (run.stdout.split('\n').length >= LIST_SIZE ? undefined : 'too few lines');
  const commands = [
    { label: '--json', argv: [builds.current.bin, ...args, '--json'], env: env('200'), check: lines },
    { label: '--format table, COLUMNS=200', argv: [builds.current.bin, ...args, '--format', 'table'], env: env('200'), check: lines },
    { label: '--format table, COLUMNS=80', argv: [builds.current.bin, ...args, '--format', 'table'], env: env('80'), check: lines },
  ];
  const results = await alternate(commands, { runs: RUNS, warmup: 1, tmpDir: tmp });
  const base = median(results[0].cpuMs);
  console.log(`${LIST_SIZE} hedges, medians of ${RUNS} alternated runs (CPU ms of the hedge process)`);
  commands.forEach((command, index) => {
    const cpu = median(results[index].cpuMs);
    console.log(`${command.label.padEnd(30)} ${cpu.toFixed(0).padStart(5)} ms  ${(cpu / base).toFixed(2)}×`);
  });
  child.send({ id: 2, op: 'close' });
} finally {
  host.child?.kill();
  rmSync(tmp, { recursive: true, force: true });
}
