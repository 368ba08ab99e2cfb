// Runs the real binary (bin/hedge.js → dist/) as a child process, the way a shell script would:
// no TTY, a private config dir, and only the environment the test gives it.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll } from 'vitest';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const HEDGE_BIN = join(ROOT, 'bin', 'hedge.js');

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  durationMs: number;
}

export interface RunOptions {
  /** Added on top of a minimal environment (PATH, HOME, HEDGE_CONFIG_DIR, NO_COLOR). */
  env?: Record<string, string | undefined>;
  /** Written to stdin, then stdin is closed (stdin is never a TTY here). */
  input?: string;
  configDir?: string;
  timeoutMs?: number;
  /** Called once the process is started, e.g. to send it SIGINT later. */
  onSpawn?: (child: import('node:child_process').ChildProcess) => void;
  /** Run as this user and group (a test run as root uses it to meet a file it may not write). */
  user?: { uid: number; gid: number };
}

export function tempDir(prefix = 'hedge-test-'): { path: string; remove: () => void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/** The environment a test process starts from; NODE_EXTRA_CA_CERTS is left out (slow, and not needed on loopback). */
export function baseEnv(configDir: string): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
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
 * Every child still running, killed when this test process exits: a test that times out (its file
 * then ends, and its worker with it) must not leave a keeper or a wait running on the machine.
 */
const running = new Set<import('node:child_process').ChildProcess>();
// Registered at the importing test file's top level: its run ends with it (a worker is ended without an 'exit' event).
afterAll(() => {
  for (const child of running) child.kill('SIGKILL');
});

export function runHedge(args: string[], options: RunOptions = {}): Promise<RunResult> {
  // A run without a config dir of its own gets a private one that goes away with it.
  const ownDir = options.configDir === undefined ? tempDir() : undefined;
  const configDir = options.configDir ?? ownDir!.path;
  const env: Record<string, string> = { ...baseEnv(configDir) };
  for (const [name, value] of Object.entries(options.env ?? {})) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [HEDGE_BIN, ...args], { env, cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'], ...(options.user ?? {}) });
    running.add(child);
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`hedge ${args.join(' ')} did not finish within ${options.timeoutMs ?? 20_000} ms\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, options.timeoutMs ?? 20_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      running.delete(child);
      clearTimeout(timer);
      ownDir?.remove();
      resolve({ code, signal, stdout, stderr, durationMs: Date.now() - started });
    });
    child.stdin.end(options.input ?? '');
    options.onSpawn?.(child);
  });
}

/** Runs hedge with that config dir, and no key or base URL in the environment unless given. */
export function hedgeIn(configDir: string, args: string[], options: RunOptions = {}): Promise<RunResult> {
  return runHedge(args, { ...options, configDir });
}
