// A real HTTP server in front of a sandbox that adds a field to every answer, or rewrites the
// answers otherwise: how a test sees a service richer (or poorer) than the contract without mocking
// anything.
import { createServer, type RequestListener, type Server } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import { buffer } from 'node:stream/consumers';
import { SANDBOX_BASE_PATH, type RunningSandbox } from '../../../src/sandbox/http/server.js';
import { generateCertificates } from '../../../src/sandbox/http/tls.js';
import { forward, listening } from './loopback.js';
import { LIVE_KEY } from '../keys.js';

export type FieldProxy = Awaited<ReturnType<typeof startAnswerProxy>>;

/**
 * A real HTTP server in front of the sandbox that adds `field: value` to the `data` object, or to
 * every object of the `data` array, of each successful answer: a richer service than the contract.
 */
export function startFieldProxy(sandbox: RunningSandbox, field: string, value: unknown) {
  return startRewriteProxy(sandbox, (_path, item) => {
    item[field] = value;
  });
}

/**
 * The same server, rewriting each object of `data` (or `data` itself) of every successful answer
 * with `rewrite(path, item)`: a service that names, adds or leaves out fields the contract does not show.
 */
export function startRewriteProxy(
  sandbox: RunningSandbox,
  rewrite: (path: string, item: Record<string, unknown>) => void,
) {
  return startAnswerProxy(sandbox, (request, envelope) => {
    // `data`'s objects, or `data` itself.
    for (const item of [envelope.data].flat())
      if (item && typeof item === 'object' && !Array.isArray(item))
        rewrite(request.path, item as Record<string, unknown>);
  });
}

/** A request as the proxy saw it: its method and its path below the base path (`/hedges/history`), without the query. */
interface ProxiedRequest {
  method: string;
  path: string;
}

/**
 * The same server over https (a live key goes over nothing else) passing every answer on as it came, with the
 * sandbox's own key upstream in place of the client's: a LIVE key (which the sandbox refuses) served by the sandbox's
 * test account. `env` points hedge at it: its base URL, the live key and its CA.
 */
export async function startLiveKeyProxy(sandbox: RunningSandbox, { served = true } = {}) {
  // served: false passes the live key upstream, where the sandbox refuses it (401 live_key_refused).
  const proxy = await startAnswerProxy(sandbox, () => {}, served ? `Bearer ${sandbox.apiKey}` : undefined, {
    tls: true,
  });
  return { ...proxy, env: { HEDGE_API_KEY: LIVE_KEY, HEDGE_BASE_URL: proxy.baseUrl, HEDGE_CA_FILE: proxy.caFile! } };
}

/**
 * A real HTTP server in front of the sandbox that hands every answer's envelope to `rewrite` before
 * passing it on: a service that answers the spec's open questions otherwise (a history without a
 * field, a list that is empty) without mocking anything — the sandbox still does all the work.
 * `authorization`: sent upstream in place of the client's; `headers`: answered in place of the service's own.
 */
export async function startAnswerProxy(
  sandbox: RunningSandbox,
  rewrite: (request: ProxiedRequest, envelope: { data: unknown; [key: string]: unknown }) => void,
  authorization?: string,
  { tls = false, headers = {} }: { tls?: boolean; headers?: Record<string, string> } = {},
) {
  const target = new URL(sandbox.baseUrl);
  const certificates = tls ? await generateCertificates() : undefined;
  const serve = (listener: RequestListener): Server =>
    certificates
      ? (createTlsServer({ key: certificates.key, cert: certificates.cert }, listener) as unknown as Server)
      : createServer(listener);
  const server = serve((req, res) => {
    void (async () => {
      const answer = await forward(target, req, req.url ?? '/', await buffer(req), authorization);
      const envelope = JSON.parse(answer.text);
      const path = new URL(req.url ?? '/', 'http://proxy').pathname.slice(SANDBOX_BASE_PATH.length);
      rewrite({ method: req.method ?? 'GET', path }, envelope);
      const text = JSON.stringify(envelope);
      res.writeHead(answer.status, {
        'content-type': 'application/json; charset=utf-8',
        'content-length': Buffer.byteLength(text),
        ...(answer.headers['x-request-id'] ? { 'x-request-id': answer.headers['x-request-id'] } : {}),
        // The service's own clock (a frozen sandbox's), not this proxy's.
        ...(answer.headers.date ? { date: answer.headers.date } : {}),
        ...headers,
      });
      res.end(text);
    })().catch(() => res.destroy());
  });
  const { port, close } = await listening(server);
  return {
    baseUrl: `${certificates ? 'https' : 'http'}://127.0.0.1:${port}${SANDBOX_BASE_PATH}`,
    apiKey: sandbox.apiKey,
    caFile: certificates?.caFile,
    close: () => close().finally(() => certificates?.cleanup()),
  };
}
