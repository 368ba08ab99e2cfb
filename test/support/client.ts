import { createClient } from '../../src/platform/api/create-client.js';
import type { HedgeClient } from '../../src/platform/api/client.js';
import type { RetryPolicy } from '../../src/platform/api/retry-policy.js';
import { HttpConnections, type Clock } from '../../src/platform/api/transport.js';
import { registerSecret } from '../../src/core/security/secrets.js';
import type { RunningSandbox } from '../../src/sandbox/index.js';

export const realClock: Clock = {
  now: Date.now,
  sleep: (ms, signal) =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(resolve, ms);
      signal?.addEventListener('abort', () => {
        clearTimeout(timer);
        reject(new Error('aborted'));
      });
    }),
};

const opened = new Set<HttpConnections>();

/** Closes the connections of every client clientFor made so far (a test file's afterAll, or between steps). */
export async function closeClients(): Promise<void> {
  const all = [...opened];
  opened.clear();
  await Promise.all(all.map((connections) => connections.close()));
}

/**
 * A client pointed at a running sandbox, with a clock that records every backoff sleep. Its
 * connections are its own (given in `connections` to share them); closeClients() closes them.
 */
export function clientFor(
  sandbox: RunningSandbox,
  options: {
    caFile?: string;
    requestTimeoutSeconds?: number;
    retry?: Partial<RetryPolicy>;
    deadline?: number;
    apiKey?: string;
    env?: Record<string, string>;
    connections?: HttpConnections;
  } = {},
): { client: HedgeClient; log: string[]; sleeps: number[]; connections: HttpConnections } {
  const log: string[] = [];
  const sleeps: number[] = [];
  const apiKey = options.apiKey ?? sandbox.apiKey;
  registerSecret(apiKey);
  const connections = options.connections ?? new HttpConnections();
  opened.add(connections);
  const client = createClient({
    connections,
    credentials: {
      apiKey,
      baseUrl: sandbox.baseUrl,
      caFile: options.caFile,
      environment: 'test',
      sources: { apiKey: 'environment', baseUrl: 'environment' },
    },
    env: options.env ?? {},
    clock: {
      now: realClock.now,
      sleep: (ms, signal) => {
        sleeps.push(ms);
        return realClock.sleep(ms, signal);
      },
    },
    deadline: options.deadline,
    requestTimeoutSeconds: options.requestTimeoutSeconds,
    retry: { baseDelayMs: 50, maxDelayMs: 400, ...options.retry },
    log: (line) => log.push(line),
  });
  return { client, log, sleeps, connections };
}

/** Advances the sandbox clock until every pending fill and change has landed. */
export function settle(sandbox: RunningSandbox, ms = 5_000): void {
  sandbox.clock.advance(ms);
}
