// Runs hedge as a shell script would: no TTY, a private config dir, and only the environment the
// test gives it. A run goes through the built front's main() inside the test process
// (./hedge-in-process.ts) unless it needs a process of its own: the real binary (bin/hedge.js →
// dist/) is then spawned. What only a process shows — the launcher, a signal, a kill, a lock held
// by another pid, an environment Node or a library reads at start — is tested on spawned runs;
// HEDGE_TEST_SPAWN_EVERY_RUN=1 spawns every run (CONTRIBUTING.md#tests).
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Clock } from '../../src/platform/api/transport.js';
import { within } from '../../src/core/process/timers.js';
import { reachableCli } from './another-user.js';
import { runMainInProcess, type Person, type ScreenSize } from './hedge-in-process.js';
import { noteMisuse } from './misuse-warnings.js';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const HEDGE_BIN = join(ROOT, 'bin', 'hedge.js');

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  durationMs: number;
  /** With `ownClock`: when the process began and exited, by its own reading of this machine's clock. */
  ownClock?: { startedAt: number; exitedAt: number };
}

export interface RunOptions {
  /** Added on top of a minimal environment (PATH, HOME, HEDGE_CONFIG_DIR, NO_COLOR). */
  env?: Record<string, string | undefined>;
  /** Written to stdin, then stdin is closed (stdin is never a TTY here). */
  input?: string;
  configDir?: string;
  timeoutMs?: number;
  /** Called once the process is started, e.g. to send it SIGINT later. */
  onSpawn?: (child: ChildProcess) => void;
  /** Run as this user and group (a test run as root uses it to meet a file it may not write), from ./another-user.ts's copy. */
  user?: { uid: number; gid: number };
  /** A process of its own for this run: what is tested is between processes (a lock held by its pid, its store session). */
  spawn?: boolean;
  /**
   * On a terminal of this size, in-process (HEDGE_FORCE_TTY=1, COLUMNS): stdout and stderr come as
   * one text in `stdout`, in the order a terminal shows them (drawScreen, servers/pseudo-terminal.ts).
   */
  screen?: ScreenSize;
  /** A person at that terminal (in-process, stdin a terminal too): asked, they type their answers. */
  person?: (person: Person) => Promise<void>;
  /** hedge's clock in-process (a simulator's stepped clock); a spawned run keeps its own. */
  clock?: Clock;
  /** A process of its own, timed on its own clock (RunResult.ownClock): a bound on how long it ran holds on a busy
   * machine, which may let the test see its exit late. */
  ownClock?: boolean;
}

/**
 * Environment variables read by Node or by a library from the process itself rather than from the
 * environment hedge is given (a preloaded module, extra CA certificates, libpq's PG* settings, the
 * session bus the keyring's native binding connects to): a run that sets one to other than the test
 * process's own value is spawned.
 */
const PROCESS_LEVEL_VARIABLE = /^(NODE_|PG|UV_|SSL_CERT_|DBUS_)/;

/** HEDGE_TEST_SPAWN_EVERY_RUN=1: every run, terminal and MCP server a process of its own. */
export const SPAWN_EVERY_RUN = process.env.HEDGE_TEST_SPAWN_EVERY_RUN === '1';

let everyRunSpawned = SPAWN_EVERY_RUN;

/**
 * Every run of this test file gets a process of its own: for files whose runs stand for separate
 * hedge processes (two holders of a lock, a resume after another process's action) — in-process
 * runs would all be the test's own pid. Call at the file's top level.
 */
export function separateProcesses() {
  // A worker runs several files (isolate: false): the setting holds for this file only.
  beforeAll(() => {
    everyRunSpawned = true;
  });
  afterAll(() => {
    everyRunSpawned = SPAWN_EVERY_RUN;
  });
}

/** Preloaded by a spawned run to pin Date.now() to READ_E2E_NOW_MS (test/support/children/frozen-clock.mjs). */
export const FROZEN_CLOCK_PRELOAD = pathToFileURL(join(ROOT, 'test', 'support', 'children', 'frozen-clock.mjs')).href;

/** Preloaded by a run timed on its own clock (test/support/children/own-clock.mjs). */
const OWN_CLOCK_PRELOAD = pathToFileURL(join(ROOT, 'test', 'support', 'children', 'own-clock.mjs')).href;

/** The time a run's environment pins with the frozen-clock preload, or undefined. */
function pinnedNowOf(env: Record<string, string>) {
  const pinned = Number(env.READ_E2E_NOW_MS);
  return env.NODE_OPTIONS === `--import=${FROZEN_CLOCK_PRELOAD}` && Number.isFinite(pinned) ? pinned : undefined;
}

function runsInProcess(env: Record<string, string>, options: RunOptions) {
  // A screen is read in-process only (a spawned run's two pipes lose their order), whatever the suite asks.
  if ((everyRunSpawned && !options.screen) || options.spawn || options.onSpawn || options.user || options.ownClock)
    return false;
  // In-process runs share the test process's time zone, which hedge-in-process.ts sets to UTC.
  if (env.TZ !== 'UTC') return false;
  // The frozen clock's preload is the one process-level setting an in-process run stands in for:
  // its time is given to main() instead.
  const frozen = pinnedNowOf(env) !== undefined;
  return !Object.keys(env).some(
    (name) =>
      PROCESS_LEVEL_VARIABLE.test(name) && env[name] !== process.env[name] && !(frozen && name === 'NODE_OPTIONS'),
  );
}

/**
 * The temporary folders of the file that calls this on a RAM disk where there is one: a journal's fsyncs and lock files
 * then wait on no disk shared with everything else the machine runs. Call at the file's top level.
 */
export function tempDirsInMemory() {
  const before = process.env.TMPDIR;
  beforeAll(() => {
    if (existsSync('/dev/shm')) process.env.TMPDIR = '/dev/shm';
  });
  afterAll(() => {
    if (before === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = before;
  });
}

export function tempDir(prefix = 'hedge-test-') {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/** A maker of temp folders for the calling file: each is removed after its test. */
export function tempFolders(prefix: string) {
  const folders: ReturnType<typeof tempDir>[] = [];
  afterEach(() => folders.splice(0).forEach((folder) => folder.remove()));
  return () => {
    const folder = tempDir(prefix);
    folders.push(folder);
    return folder.path;
  };
}

/** The environment a test process starts from; NODE_EXTRA_CA_CERTS is left out (slow, and not needed on loopback). */
export function baseEnv(configDir: string): Record<string, string> {
  return {
    PATH: [process.env.HEDGE_TEST_INSTALLED_BIN, process.env.PATH ?? '/usr/bin:/bin'].filter(Boolean).join(':'),
    HOME: configDir,
    HEDGE_CONFIG_DIR: configDir,
    NO_COLOR: '1',
    TZ: 'UTC',
    LANG: 'C.UTF-8',
    // The suite's one cache folder (test/support/global-setup.ts), when there is one.
    ...(process.env.HEDGE_TEST_CODE_CACHE_DIR ? { HEDGE_CACHE_DIR: process.env.HEDGE_TEST_CODE_CACHE_DIR } : {}),
  };
}

/**
 * Every child still running, killed when its test file ends: a test that times out must not leave a
 * keeper or a wait running on the machine.
 */
const running = new Set<ChildProcess>();
/** Run after every test file (test/support/per-file.ts): a worker lives on to run the next file. */
export function killRunningChildren() {
  for (const child of running) child.kill('SIGKILL');
  running.clear();
}

/** A command line: its words, or one string of them split at each space (no word of it holds one). */
export type HedgeArgs = string[] | string;

export function runHedge(line: HedgeArgs, options: RunOptions = {}): Promise<RunResult> {
  const args = typeof line === 'string' ? line.split(' ') : line;
  // A run without a config dir of its own gets a private one that goes away with it.
  const ownDir = options.configDir === undefined ? tempDir() : undefined;
  const configDir = options.configDir ?? ownDir!.path;
  const env: Record<string, string> = baseEnv(configDir);
  for (const [name, value] of Object.entries(options.env ?? {})) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  const ownClock = options.ownClock ? tempDir('hedge-own-clock-') : undefined;
  if (ownClock)
    Object.assign(env, {
      NODE_OPTIONS: `--import=${OWN_CLOCK_PRELOAD}`,
      HEDGE_TEST_OWN_CLOCK_FILE: join(ownClock.path, 'clock.json'),
    });
  if (options.person) options = { screen: { columns: 100, rows: 40 }, ...options };
  if (options.screen) Object.assign(env, { HEDGE_FORCE_TTY: '1', COLUMNS: String(options.screen.columns) });
  const started = Date.now();
  // A bound on a hang, within a test's (vitest.config.ts), so that the test fails naming the run.
  const timeoutMs = options.timeoutMs ?? 45_000;
  const late = (what = '') => new Error(`hedge ${args.join(' ')} did not finish within ${timeoutMs} ms${what}`);
  if (runsInProcess(env, options))
    return within(runInProcess(args, env, options, started), timeoutMs, () => late(' (in-process)')).finally(() =>
      ownDir?.remove(),
    );
  // A spawned run's two pipes lose the order between them: a terminal for that is a pseudo-terminal.
  if (options.screen) return Promise.reject(new Error(`hedge ${args.join(' ')}: a screen run must run in-process`));
  // Another user runs a copy they can reach: the checkout's folders may be closed to them.
  const { launcher, cwd } = options.user ? reachableCli() : { launcher: HEDGE_BIN, cwd: ROOT };
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [launcher, ...args], { env, cwd, ...options.user });
    running.add(child);
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(late(`\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, timeoutMs);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      running.delete(child);
      clearTimeout(timer);
      noteMisuse(stderr);
      ownDir?.remove();
      const timed = ownClock && readOwnClock(ownClock);
      resolve({ code, signal, stdout, stderr, durationMs: Date.now() - started, ...(timed && { ownClock: timed }) });
    });
    child.stdin.end(options.input ?? '');
    options.onSpawn?.(child);
  });
}

/** What the own-clock preload wrote (nothing when the process was killed before it could), its folder removed. */
function readOwnClock(folder: { path: string; remove(): void }) {
  try {
    return JSON.parse(readFileSync(join(folder.path, 'clock.json'), 'utf8')) as RunResult['ownClock'];
  } catch {
    return undefined;
  } finally {
    folder.remove();
  }
}

function runInProcess(args: string[], env: Record<string, string>, options: RunOptions, started: number) {
  // The only NODE_OPTIONS an in-process run can have is the frozen-clock preload: its time goes as `now`.
  const now = pinnedNowOf(env);
  const { NODE_OPTIONS: _preload, ...mainEnv } = env;
  return runMainInProcess(
    args,
    mainEnv,
    options.person ?? options.input ?? '',
    now === undefined ? options.clock : { ...options.clock, now: () => now },
    options.screen,
  ).then((ran) => ({ ...ran, signal: null, durationMs: Date.now() - started }));
}

/** Runs hedge with that config dir, and no key or base URL in the environment unless given. */
export function hedgeIn(configDir: string, args: HedgeArgs, options?: RunOptions) {
  return runHedge(args, { ...options, configDir });
}
