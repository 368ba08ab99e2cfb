// Shared set-up of the read-command end-to-end tests: a sandbox on a frozen clock with a known
// seed (so prices, ids and hashes are the same on every run), the environment that points the
// binary at it, and (re-exported) a pass-through proxy that adds a field the CLI has never heard of.
import { pathToFileURL } from 'node:url';
import { startSandbox, type RunningSandbox, type SandboxOptions } from '../../src/sandbox/index.js';

/** Monday 2 March 2026, 09:00 UTC: every sandbox here starts at this instant and only moves by advance(). */
export const FROZEN_START_MS = Date.parse('2026-03-02T09:00:00.000Z');
export const TEST_KEY = 'hpk_test_ReadCommandsE2eKey00000001';

const FROZEN_CLOCK_PRELOAD = pathToFileURL(new URL('./frozen-clock.mjs', import.meta.url).pathname).href;

export async function startFrozenSandbox(options: SandboxOptions = {}): Promise<RunningSandbox> {
  return startSandbox({ seed: 7, fillDelayMs: 100, apiKeys: [TEST_KEY], realNow: () => FROZEN_START_MS, ...options });
}

/** Env for the binary: this sandbox, its key, and (pinned) the CLI clock at the sandbox's time. */
export function sandboxEnv(sandbox: { baseUrl: string; apiKey: string; clock?: { now(): number } }, pinClock = false): Record<string, string> {
  const env: Record<string, string> = { HEDGE_BASE_URL: sandbox.baseUrl, HEDGE_API_KEY: sandbox.apiKey };
  if (pinClock && sandbox.clock) {
    env.NODE_OPTIONS = `--import=${FROZEN_CLOCK_PRELOAD}`;
    env.READ_E2E_NOW_MS = String(sandbox.clock.now());
  }
  return env;
}

/** The API as another client would use it, for setting up state the read commands then show. */
export async function api(sandbox: RunningSandbox, method: 'GET' | 'POST', path: string, body?: unknown): Promise<any> {
  const response = await fetch(`${sandbox.baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${sandbox.apiKey}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const envelope = (await response.json()) as { data: any; error: unknown };
  if (!response.ok) throw new Error(`${method} ${path} → ${response.status} ${JSON.stringify(envelope.error)}`);
  return envelope.data;
}

export { startFieldProxy, type FieldProxy } from './field-proxy.js';

/** Lines of a text, without the trailing empty one. */
export function lines(text: string): string[] {
  return text.split('\n').filter((line, index, all) => !(line === '' && index === all.length - 1));
}
