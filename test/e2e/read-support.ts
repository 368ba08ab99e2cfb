// Shared set-up of the read-command end-to-end tests: a sandbox on a frozen clock with a known
// seed (so prices, ids and hashes are the same on every run), the environment that points the
// binary at it, and a pass-through proxy that adds a field the CLI has never heard of.
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { startSandbox, SANDBOX_BASE_PATH, type RunningSandbox, type SandboxOptions } from '../../src/sandbox/index.js';

/** Monday 2 March 2026, 09:00 UTC: every sandbox here starts at this instant and only moves by advance(). */
export const FROZEN_START_MS = Date.parse('2026-03-02T09:00:00.000Z');
export const TEST_KEY = 'hpk_test_ReadCommandsE2eKey00000001';

const FROZEN_CLOCK_PRELOAD = pathToFileURL(new URL('./read-frozen-clock.mjs', import.meta.url).pathname).href;

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

export interface FieldProxy {
  baseUrl: string;
  apiKey: string;
  close(): Promise<void>;
}

/**
 * A real HTTP server in front of the sandbox that adds `field: value` to the `data` object, or to
 * every object of the `data` array, of each successful answer: a richer service than the contract.
 */
export async function startFieldProxy(sandbox: RunningSandbox, field: string, value: unknown): Promise<FieldProxy> {
  const target = new URL(sandbox.baseUrl);
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const upstream = httpRequest(
        { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: { ...req.headers, host: target.host } },
        (answer) => {
          const parts: Buffer[] = [];
          answer.on('data', (chunk: Buffer) => parts.push(chunk));
          answer.on('end', () => {
            const envelope = JSON.parse(Buffer.concat(parts).toString('utf8'));
            const add = (item: unknown) => {
              if (item && typeof item === 'object' && !Array.isArray(item)) (item as Record<string, unknown>)[field] = value;
            };
            if (Array.isArray(envelope.data)) envelope.data.forEach(add);
            else add(envelope.data);
            const text = JSON.stringify(envelope);
            res.writeHead(answer.statusCode ?? 502, {
              'content-type': 'application/json; charset=utf-8',
              'content-length': Buffer.byteLength(text),
              ...(answer.headers['x-request-id'] ? { 'x-request-id': answer.headers['x-request-id'] } : {}),
            });
            res.end(text);
          });
        },
      );
      upstream.on('error', () => res.destroy());
      upstream.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}${SANDBOX_BASE_PATH}`,
    apiKey: sandbox.apiKey,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Lines of a text, without the trailing empty one. */
export function lines(text: string): string[] {
  return text.split('\n').filter((line, index, all) => !(line === '' && index === all.length - 1));
}
