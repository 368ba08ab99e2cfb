// What the bench's cases share: a `hedge sandbox serve` of this checkout, a module of src/ bundled to be imported, a
// command timed by GNU time (Debian's `time`), and a case run alone.
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { build } from 'esbuild';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const HEDGE = join(ROOT, 'bin', 'hedge.js');
const TIME = '/usr/bin/time';

/** A child run to its end, this process's loop running meanwhile (a server of this process may answer it). */
export const run = promisify(execFile);

/** The server started by `node` in `env` with `args`; resolves to it and the variables it printed (`NAME=value`). */
export function startSandbox(node, env, args = []) {
  const server = spawn(node, [HEDGE, 'sandbox', 'serve', ...args], { env, stdio: ['ignore', 'pipe', 'ignore'] });
  return new Promise((resolve, reject) => {
    let text = '';
    server.on('exit', (code) =>
      reject(new Error(`hedge sandbox serve exited (${code}) before it printed its address`)),
    );
    server.stdout.setEncoding('utf8').on('data', (chunk) => {
      text += chunk;
      if (!text.includes('HEDGE_API_KEY=') || !text.endsWith('\n')) return;
      const vars = text.split('\n').filter((line) => /^HEDGE_\w+=\S+$/.test(line));
      resolve({ server, vars, env: Object.fromEntries(vars.map((line) => line.split(/=(.*)/s).slice(0, 2))) });
    });
  });
}

/** Stops a server started here (its compile cache is written as it exits). */
export async function stopSandbox(server) {
  if (server?.kill()) await new Promise((exited) => server.once('exit', exited));
}

/** The exports `names` of the module `path` of this checkout, bundled (one definition: src/'s own). */
export async function fromSource(path, names) {
  const bundled = await build({
    stdin: { contents: `export { ${names.join(', ')} } from './${path}';`, resolveDir: ROOT, loader: 'ts' },
    bundle: true,
    format: 'esm',
    platform: 'node',
    write: false,
    logLevel: 'error',
  });
  return import(`data:text/javascript;base64,${Buffer.from(bundled.outputFiles[0].text).toString('base64')}`);
}

/** Why a case cannot time its commands here, or undefined. */
export const untimed = () => (existsSync(TIME) ? undefined : `no ${TIME}: Debian's \`time\``);

/** `node bin/hedge.js …args` run in `env`: its CPU (user + system, s), peak resident memory (MB) and elapsed time (s). */
export async function timedHedge(node, args, env, scratch) {
  const times = join(scratch, 'time');
  await run(TIME, ['-f', '%U %S %M %e', '-o', times, node, HEDGE, ...args], { env });
  const [user, system, kb, wall] = readFileSync(times, 'utf8').trim().split(/\s+/).map(Number);
  return { cpu: user + system, mb: kb / 1024, wall };
}

/** The test suite's PostgreSQL cluster (test/support/servers/postgres-server.ts), bundled; `missing` says why not. */
export async function teamStore(work) {
  const out = join(work, 'postgres.mjs');
  await build({
    stdin: { contents: `export * from './test/support/servers/postgres-server.ts';`, resolveDir: ROOT, loader: 'ts' },
    bundle: true,
    format: 'esm',
    platform: 'node',
    external: ['pg-native'],
    // pg is CommonJS: its require of Node's modules, in an ES module.
    banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" },
    outfile: out,
    logLevel: 'error',
  });
  const { POSTGRES_MISSING, sharedClusterFolder, sharedPostgres } = await import(out);
  if (POSTGRES_MISSING) return { missing: POSTGRES_MISSING };
  const stopCluster = sharedClusterFolder();
  const server = await sharedPostgres();
  return { server, stop: async () => (await server.close(), await stopCluster()) };
}

/** Median of `values`. */
export const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** Runs `someCase(node, env)` as a script of its own, under a private HOME, and prints its lines. */
export async function runAlone(someCase) {
  const home = mkdtempSync(join(tmpdir(), 'hedge-bench-home-'));
  try {
    const env = { PATH: process.env.PATH, HOME: home, NO_COLOR: '1', LANG: 'C.UTF-8' };
    process.stdout.write(`Node ${process.version}.\n\n${(await someCase(process.execPath, env)).join('\n')}\n`);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}
