// Shared set-up of the profile and key tests: a sandbox that accepts a few known test keys, a
// private config dir per test, and helpers to write and read the store file the CLI keeps there.
import { readFileSync, writeFileSync, mkdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { runHedge, tempDir, type RunOptions, type RunResult } from './hedge-cli.js';

export const KEY_A = 'hpk_test_ProfilesKeyAlpha000000000001';
export const KEY_B = 'hpk_test_ProfilesKeyBravo000000000002';
export const KEY_C = 'hpk_test_ProfilesKeyCharlie00000000003';
/** Well-formed, but no sandbox account has it: the server answers 401. */
export const UNKNOWN_KEY = 'hpk_test_ProfilesKeyUnknown0000000009';
/** A live key: the sandbox refuses every live key (401 live_key_refused). */
export const LIVE_KEY = 'hpk_live_ProfilesKeyLive000000000000007';

export function startKeySandbox(): Promise<RunningSandbox> {
  return startSandbox({ seed: 11, fillDelayMs: 100, apiKeys: [KEY_A, KEY_B, KEY_C] });
}

export function storeFile(configDir: string): string {
  return join(configDir, 'config.json');
}

export function readStore(configDir: string): any {
  return JSON.parse(readFileSync(storeFile(configDir), 'utf8'));
}

export function writeStore(configDir: string, data: unknown): void {
  if (!existsSync(configDir)) mkdirSync(configDir, { recursive: true, mode: 0o700 });
  writeFileSync(storeFile(configDir), `${JSON.stringify(data, null, 2)}\n`, { mode: 0o600 });
}

/** Runs hedge with a config dir and no key or base URL in the environment unless given. */
export function hedgeIn(configDir: string, args: string[], options: RunOptions = {}): Promise<RunResult> {
  return runHedge(args, { ...options, configDir });
}

export function loginWith(
  configDir: string,
  sandbox: RunningSandbox,
  key: string,
  args: string[] = [],
  env: Record<string, string> = {},
): Promise<RunResult> {
  return hedgeIn(configDir, ['login', '--base-url', sandbox.baseUrl, ...args], { input: `${key}\n`, env });
}

export function requestsTo(sandbox: RunningSandbox, method: string, path: string): number {
  return sandbox.requestLog.filter((entry) => entry.method === method && entry.path === path).length;
}

export { tempDir };
