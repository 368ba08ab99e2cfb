// The single executable (`npm run build:sea`, scripts/sea.mjs), run the way a desk machine without
// Node runs it: PATH holds no `node` at all (a folder of its own, checked empty of node), HOME and
// the config dir private. Built once for this file from the dist/ the suite's global set-up built,
// from src/ into a temp folder (nothing tracked changes); the build copies and patches a Node binary.
// What a real user does with it: --version, the README's first demo command, completion scripts
// generated from the specs inside it, its own `sandbox serve`, and real requests whose arrival the simulator's
// request log shows. Speed is the bench's business (bench/run.mjs measures its start).
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildSea } from '../../scripts/sea.mjs';
import { ROOT, tempDir } from '../support/hedge-cli.js';
import { startSimulator } from '../support/simulator.js';
import { until } from '../support/polling.js';
import { run } from './run-process.js';
import { exits } from '../support/cli-runs.js';

const work = tempDir('hedge-sea-');
const noNode = join(work.path, 'path-without-node');
const home = join(work.path, 'home');
let executable = '';

const VERSION = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version;

/** The executable with PATH holding no node, and only the environment given. */
function env(extra: Record<string, string> = {}) {
  return {
    PATH: noNode,
    HOME: home,
    HEDGE_CONFIG_DIR: join(home, 'config'),
    NO_COLOR: '1',
    TZ: 'UTC',
    LANG: 'C.UTF-8',
    ...extra,
  };
}

/** `args`: a command line (split at spaces), which must exit 0: its stdout. */
const runExecutable = async (args: string, extra: Record<string, string> = {}) =>
  exits(await run(executable, args.split(' '), { cwd: work.path, env: env(extra), timeoutMs: 20_000 }), 0).stdout;

// A Node built without single executable applications, or without the startup snapshot the build
// puts in one, cannot make it: skipped with that reason (failed under CI=true), as a missing tool is.
const nodeBuild = process.config.variables as unknown as Record<string, unknown>;
const SEA_MISSING =
  nodeBuild.single_executable_application === false
    ? `this Node (${process.version}) was built without single executable applications.`
    : nodeBuild.node_use_node_snapshot === false
      ? `this Node (${process.version}) was built without a startup snapshot, which the executable is made from.`
      : undefined;
const SKIP_SEA = SEA_MISSING !== undefined && process.env.CI !== 'true';
if (SEA_MISSING) console.warn(`single executable: ${SEA_MISSING}${SKIP_SEA ? ' Skipped (CI is not set).' : ''}`);

afterAll(() => work.remove());

describe.skipIf(SKIP_SEA)('the single executable, with no node on PATH', () => {
  beforeAll(async () => {
    mkdirSync(noNode, { recursive: true });
    mkdirSync(home, { recursive: true });
    ({ executable } = await buildSea({ outdir: join(work.path, 'build') }));
    // Real work (Node's own binary copied, the blob injected into it), which a loaded 2-core machine stretches well
    // past the usual hook bound: a bound of its own.
  }, 180_000);

  it('has no node to fall back on; --version prints the package version; runs the demo: `--demo quote USDTNGN buy 10000 --tenor 3`', async () => {
    expect(existsSync(join(noNode, 'node'))).toBe(false);
    expect(executable.startsWith(work.path)).toBe(true);
    expect(await runExecutable('--version')).toBe(`${VERSION}\n`);
    expect(JSON.parse(await runExecutable('--demo quote USDTNGN buy 10000 --tenor 3 --json'))).toMatchObject({
      market: 'USDTNGN',
      side: 'buy',
      notional_usd: 10000,
      tenor_days: 3,
    });
    // The demo's state is kept where a user's would be.
    expect(existsSync(join(home, 'config', 'demo-state.json'))).toBe(true);
  });

  // Run with a cache folder named: the executable runs from the code cache inside it and writes none.
  it('prints the bash, zsh and fish completion scripts the build generated, from its own code (no cache folder written)', async () => {
    const cacheDir = join(work.path, 'cache');
    for (const shell of ['bash', 'zsh', 'fish'])
      expect(await runExecutable(`completion ${shell}`, { HEDGE_CACHE_DIR: cacheDir }), shell).toBe(
        readFileSync(join(ROOT, 'dist', 'completions', `hedge.${shell}`), 'utf8'),
      );
    expect(existsSync(cacheDir)).toBe(false);
  });

  it('sends a real request to a simulator, which logs it', async () => {
    const simulator = await startSimulator({ preset: 'trading' });
    try {
      expect(JSON.parse(await runExecutable('markets --json', simulator.env))).toEqual(
        expect.arrayContaining([expect.objectContaining({ market: 'USDTNGN' })]),
      );
      expect(simulator.requests('GET', '/markets').map((entry) => entry.status)).toEqual([200]);

      await runExecutable('open USDTNGN buy 1000 --tenor 3 --json --yes', simulator.env);
      expect(simulator.active('buy').map((hedge) => hedge.notionalUsd)).toEqual([1000]);
    } finally {
      await simulator.close();
    }
  });

  it('serves its own simulator (`sandbox serve`) and trades against it', async () => {
    const server = spawn(executable, ['sandbox', 'serve', '--port', '0', '--fill-delay', '0'], {
      env: env(),
      cwd: work.path,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let printed = '';
    server.stdout.setEncoding('utf8').on('data', (chunk: string) => (printed += chunk));
    const exited = new Promise((resolve) => server.once('close', resolve));
    try {
      await until(
        () => /HEDGE_API_KEY=\S+/.test(printed) && /HEDGE_BASE_URL=\S+/.test(printed),
        'the sandbox to print its settings',
      );
      const settings = Object.fromEntries(
        printed
          .split('\n')
          .filter((line) => /^HEDGE_[A-Z_]+=/.test(line))
          .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
      );
      expect(JSON.parse(await runExecutable('quote USDTNGN sell 2500 --tenor 7 --json', settings))).toMatchObject({
        market: 'USDTNGN',
        side: 'sell',
        notional_usd: 2500,
        tenor_days: 7,
      });
      expect(JSON.parse(await runExecutable('account --json', settings))).toHaveProperty('balance_usdc');
    } finally {
      server.kill('SIGINT');
      await exited;
    }
  });
});
