// The sandbox over real HTTP(S): parses requests, injects faults, hands the rest to the engine and writes its
// envelope; its clock, its hostile-text mode and the state file it may share with other sandboxes.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { Readable } from 'node:stream';
import { once } from 'node:events';
import { setTimeout as delay } from 'node:timers/promises';

import { closeSync, openSync, readFileSync, readSync } from 'node:fs';
import { prepareDurableWrite, writeFileDurably } from '../../core/files/durable-write.js';
import { DEFAULT_SEED, type EngineOptions, type EngineState, createEngineState } from '../engine-state.js';
import { ApiError, type EngineRequest, type EngineResponse, errorResponse, notFoundError } from './envelope.js';
import { INVALID_JSON, createHttpEngine, isWrite } from './http-engine.js';
import { hashString, hex8, nextRandom } from '../prng.js';

export const SANDBOX_BASE_PATH = '/partners/sandbox/v2';

const KEEP_ALIVE_TIMEOUT_MS = 5000;

/** 16 random hex digits, for a request id or a save's token: Math.random, not node:crypto, so that a demo quote runs
 * without loading crypto (test/build/startup-imports.test.ts). */
const randomHex = () => `${hex8(Math.random())}${hex8(Math.random())}`;

/** The engine's options, the faults it starts with (NO_FAULTS says what each does), and the server's own. */
export interface SandboxOptions extends Partial<EngineOptions>, Partial<FaultSettings> {
  port?: number;
  host?: string;
  /** A local socket instead of a TCP port (the demo: no port to pick, no IP address code run at start). */
  socketPath?: string;
  tls?: boolean;
  clockSpeed?: number;
  /** Where the simulator's clock starts (none: now). */
  startMs?: number;
  stateFile?: string;
  stateFileLock?: StateFileLock;
  stateFileBeforeCommit?: () => void | Promise<void>;
  realNow?: () => number;
  noDateHeader?: boolean;
}

/** A request as the engine was given it (`body`: null without one, its text when it did not parse), and its fate. */
export interface RequestLogEntry extends Pick<EngineRequest, 'method' | 'path' | 'query' | 'body'> {
  realTimeMs: number;
  sandboxTimeMs: number;
  idempotencyKey: string | null;
  status: number | 'dropped' | 'stalled' | 'pending';
  errorCode: string | null;
  fault: string | null;
  /** A write the engine carried out (not a replay, not refused), whatever answer then reached the client. */
  acted: boolean;
}

export type RunningSandbox = Awaited<ReturnType<typeof startSandbox>>;

export async function startSandbox(options: SandboxOptions = {}) {
  // A test key of its own: 24 random hex digits.
  const apiKeys = options.apiKeys?.length
    ? [...options.apiKeys]
    : [`hpk_test_${process.getBuiltinModule('node:crypto').randomBytes(12).toString('hex')}`];
  const host = hostEngine(options, apiKeys);
  const faults = faultInjector(options, String(options.seed ?? DEFAULT_SEED));
  const { socketPath } = options;
  // tls.ts (openssl through child_process, os, fs/promises) is loaded only to serve HTTPS.
  const certificates = options.tls ? await (await import('./tls.js')).generateCertificates() : undefined;
  const requestLog: RequestLogEntry[] = [];
  /** Aborted by close(): cuts the requests held by injected latency. */
  const holds = new AbortController();
  /** Aborted by releaseHeld(): the requests held by injected latency go on to the engine, as if their delay ended now. */
  let release = new AbortController();
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    onRequest(req, res).catch((error: unknown) => {
      if (!res.headersSent) sendEnvelope(res, errorResponse(error));
      else res.destroy();
    });
  };
  const server = certificates
    ? process.getBuiltinModule('node:https').createServer(certificates, handler)
    : // Not an ES import: on Node >= 22 that loads Node's undici for node:http's WebSocket export (api/transport.ts).
      process.getBuiltinModule('node:http').createServer(handler);
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  // Open sockets, which close() destroys rather than waiting for keep-alive. For HTTPS these are the raw TCP sockets
  // under TLS: destroying them ends handshakes too.
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  const bindHost = options.host ?? '127.0.0.1';
  server.listen(socketPath !== undefined ? { path: socketPath } : { host: bindHost, port: options.port ?? 0 });
  await once(server, 'listening');
  const address = server.address();
  // 0 on a local socket.
  const port = typeof address === 'object' && address ? address.port : 0;
  // On a local socket the URL names no port: `localhost` is only what the Host header says.
  const authority =
    socketPath !== undefined ? 'localhost' : `${bindHost.includes(':') ? `[${bindHost}]` : bindHost}:${port}`;

  return {
    baseUrl: `${certificates ? 'https' : 'http'}://${authority}${SANDBOX_BASE_PATH}`,
    apiKey: apiKeys[0],
    ...(certificates && { caFile: certificates.caFile }),
    ...(socketPath !== undefined && { socketPath }),
    port,
    startedAfresh: host.startedAfresh,
    requestLog,
    clock: host.clock,
    get engine() {
      return host.engine;
    },
    setFaults: faults.update,
    /** The share of opens from now on that fail on chain (0 to 1), as the failRate option sets it at the start. */
    setFailRate: host.setFailRate,
    /** Ends the delay of every request injected latency holds now (a test moves the clock meanwhile). */
    releaseHeld: () => {
      release.abort();
      release = new AbortController();
    },
    seedHedges: ({ apiKey, count, status }: { apiKey: string; count: number; status?: 'closed' | 'failed' }) => {
      if (host.shared) throw new Error('seedHedges is for a sandbox that owns its state (no stateFileLock)');
      const ids = host.engine.seedHedges(apiKey, count, status ?? 'closed', host.clock.now());
      host.saveIfChanged();
      return ids;
    },
    close: async () => {
      if (holds.signal.aborted) return;
      holds.abort();
      const closed = once(server, 'close');
      server.close();
      for (const socket of sockets) socket.destroy();
      await closed;
      await host.flush();
      await certificates?.cleanup();
    },
  };

  /** One request: read, logged (pending), then answered as the faults plan it. */
  async function onRequest(req: IncomingMessage, res: ServerResponse) {
    res.setHeader('x-request-id', `req_${randomHex()}`);
    const realTimeMs = host.realNow();
    const sandboxTimeMs = host.clock.now();
    // The server's own time, as a real server's Date header gives it: with a fast or advanced clock it is the
    // sandbox's, so a client that acts on maturities (hedge keep) sees the same time.
    if (options.noDateHeader) res.sendDate = false;
    else res.setHeader('date', new Date(sandboxTimeMs + faults.dateSkewMs).toUTCString());
    const method = req.method ?? 'GET';
    const { rawPath, query } = splitUrl(req.url ?? '/');
    const underBase = rawPath.startsWith(`${SANDBOX_BASE_PATH}/`);
    const path = underBase ? rawPath.slice(SANDBOX_BASE_PATH.length) : rawPath;

    let rawBody: string;
    try {
      rawBody = await readBody(req);
    } catch (error) {
      if (error instanceof ApiError) sendEnvelope(res, errorResponse(error));
      else req.socket.destroy();
      return;
    }
    let body: unknown;
    try {
      body = rawBody.length ? JSON.parse(rawBody) : undefined;
    } catch {
      body = INVALID_JSON;
    }
    const headers = req.headers as Record<string, string | undefined>;
    const entry: RequestLogEntry = {
      realTimeMs,
      sandboxTimeMs,
      method,
      path,
      query,
      idempotencyKey: headers['idempotency-key'] ?? null,
      body: body === INVALID_JSON ? rawBody : (body ?? null),
      status: 'pending',
      errorCode: null,
      fault: null,
      acted: false,
    };
    // A long-running server keeps the newest half once the log is full.
    if (requestLog.length >= 100_000) requestLog.splice(0, 50_000);
    requestLog.push(entry);
    const request = { method, path, query, headers, body };
    const record = ({ status, body }: EngineResponse) => {
      entry.status = status;
      entry.errorCode = body.error?.code ?? null;
    };
    const send = (response: EngineResponse) => {
      record(response);
      sendEnvelope(res, response);
    };
    if (!underBase) return send(errorResponse(notFoundError(rawPath)));
    const plan = faults.plan({ method, path, body: body === INVALID_JSON ? undefined : body });
    const { outcome } = plan;
    const engine = host.engine;
    let lease: string | undefined;
    if (plan.latencyMs > 0) {
      entry.fault = 'latency';
      const acquired = engine.acquireIdempotencyKey(request);
      // A same-key request already held elsewhere is answered now: handle() yields the 409.
      if (acquired !== 'in-flight') {
        lease = acquired;
        await delay(plan.latencyMs, undefined, { signal: AbortSignal.any([holds.signal, release.signal]) }).catch(
          () => undefined,
        );
      }
    }
    try {
      if (holds.signal.aborted) return req.socket.destroy();
      const { fault } = outcome;
      let response = outcome.kind === 'answer' ? outcome.response : undefined;
      if (!response && fault !== 'stall-headers' && fault !== 'malformed-html') {
        const answer = () => host.engine.handle(request, host.clock.now(), { realTimeMs: host.realNow(), lease });
        // With a shared state file, the engine's answer is computed and saved under the lock.
        try {
          response = host.shared ? await host.shared.transact(answer) : answer();
        } catch (error) {
          // Busy: nothing was done; the client may retry, with the same Idempotency-Key.
          if (!(error instanceof ApiError)) throw error;
          return send(errorResponse(error));
        }
        entry.acted =
          response.status === 200 && isWrite(method, path) && response.headers['idempotent-replayed'] !== 'true';
        if (holds.signal.aborted) return req.socket.destroy();
        host.saveIfChanged();
      }
      if (fault) entry.fault = entry.fault ? `${entry.fault}+${fault}` : fault;
      if (response && plan.hostileText) response = withHostileText(response, path);
      switch (outcome.kind) {
        case 'stall':
          entry.status = 'stalled';
          if (response) stallBody(res, response);
          return;
        case 'drop-after-commit':
          entry.status = 'dropped';
          return req.socket.destroy();
        case 'malformed':
          // The log keeps the engine's own error code (what really happened) and the status sent.
          if (response) record(response);
          entry.status = sendMalformed(res, outcome.malformed, response);
          return;
        case 'oversized':
          record(response!);
          return sendPadded(res, response!, outcome.bytes);
        default:
          send(response!);
      }
    } finally {
      if (lease) engine.releaseIdempotencyKey(lease);
    }
  }
}

/** Sandbox time: origin + real elapsed × speed + manual offset. `speed`: sandbox milliseconds per real millisecond; `originMs`: sandbox time at start (default the real time at start). */
export function createClock({
  realNow = Date.now,
  speed = 1,
  originMs,
}: { realNow?: () => number; speed?: number; originMs?: number } = {}) {
  if (!(speed > 0) || !Number.isFinite(speed)) throw new Error('clock speed must be a positive number');
  const realStart = realNow();
  let offset = 0;
  return {
    now: () => Math.floor((originMs ?? realStart) + (realNow() - realStart) * speed + offset),
    advance(ms: number) {
      if (!(ms >= 0) || !Number.isFinite(ms)) throw new Error('advance() takes a non-negative number of ms');
      offset += ms;
    },
  };
}

/** The engine, started from the state file when there is one (its clock carried on), else afresh. */
function hostEngine(options: SandboxOptions, apiKeys: string[]) {
  const { stateFile, stateFileLock, seed = DEFAULT_SEED, realNow = Date.now } = options;
  const read = stateFile ? readStateFile(stateFile) : undefined;
  const clock = createClock({
    realNow,
    speed: options.clockSpeed,
    originMs: read?.contents ? realNow() + read.contents.clockOffsetMs : options.startMs,
  });
  // Kept for an engine adopted from a shared file too: setFailRate changes it for the rest of the run.
  const engineOptions = { ...options, apiKeys, seed };
  const engineOf = (contents?: StateFileContents) =>
    createHttpEngine(
      engineOptions,
      contents?.engine ??
        // Unseeded, a fresh state's ids get a random part of their own: two simulators, or one demo and the next
        // after a reset, never hand out the same ids.
        createEngineState(
          seed,
          options.dialect,
          options.seed === undefined ? Math.random() * 0x1_0000_0000 : undefined,
        ),
    );
  let engine = engineOf(read?.contents);
  const snapshot = () => ({ clockOffsetMs: clock.now() - realNow(), engine: engine.state });
  const shared =
    stateFile && read && stateFileLock
      ? sharedStateFile(stateFile, read.version, stateFileLock, {
          /** Another process saved the shared file (or removed it): continue from what it holds. */
          adopt: (contents) => {
            engine = engineOf(contents);
            // Its clock may be ahead of ours (it was advanced); sandbox time never runs backwards.
            const behind = contents ? realNow() + contents.clockOffsetMs - clock.now() : 0;
            if (behind > 0) clock.advance(behind);
          },
          snapshot,
          changed: () => engine.revision > 0,
          saved: () => (engine.revision = 0),
          beforeCommit: options.stateFileBeforeCommit,
        })
      : undefined;
  let saveError: unknown;
  return {
    get engine() {
      return engine;
    },
    clock,
    realNow,
    shared,
    setFailRate(share: number) {
      if (!(share >= 0 && share <= 1)) throw new Error('failRate must be a share between 0 and 1');
      engineOptions.failRate = engine.book.config.failRate = share;
    },
    startedAfresh: read?.earlier === true,
    saveIfChanged: () => {
      if (!stateFile || shared || !engine.revision) return;
      engine.revision = 0;
      // A failed save must not fail the request: it surfaces on close() via flush().
      try {
        writeFileDurably(stateFile, stateBytes(snapshot()));
        saveError = undefined;
      } catch (error) {
        saveError = error;
      }
    },
    flush: async () => {
      await shared?.flush();
      if (saveError) throw saveError;
    },
  };
}

// Reading requests and writing responses, including the deliberately broken ones fault injection needs (a stalled
// body, an HTML gateway page, scrambled types, ambiguous envelopes, an oversized body).

const MAX_BODY_BYTES = 1024 * 1024;
const JSON_TYPE = 'application/json; charset=utf-8';
const BAD_GATEWAY_PAGE =
  '<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1></body></html>';

function splitUrl(url: string) {
  const questionMark = url.indexOf('?');
  if (questionMark < 0) return { rawPath: url, query: {} };
  const query: Record<string, string> = {};
  // The first of a repeated parameter counts.
  for (const [name, value] of new URLSearchParams(url.slice(questionMark + 1))) query[name] ??= value;
  return { rawPath: url.slice(0, questionMark), query };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        req.removeAllListeners('data');
        req.resume();
        reject(new ApiError(413, 'payload_too_large', `request body over ${MAX_BODY_BYTES} bytes`));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString()));
    req.on('error', reject);
  });
}

/** Status and headers for a body of `bytes` bytes. */
function writeHead(
  res: ServerResponse,
  status: number,
  headers: Record<string, string> = {},
  bytes: number,
  type = JSON_TYPE,
) {
  res.writeHead(status, { ...headers, 'content-type': type, 'content-length': bytes });
}

function sendText(res: ServerResponse, status: number, text: string, headers?: Record<string, string>, type?: string) {
  writeHead(res, status, headers, Buffer.byteLength(text), type);
  res.end(text);
}

function sendEnvelope(res: ServerResponse, { status, body, headers }: EngineResponse) {
  sendText(res, status, JSON.stringify(body), headers);
}

/** Status and headers go out, then half the body, then nothing: the client waits forever. */
function stallBody(res: ServerResponse, { status, body, headers }: EngineResponse) {
  const text = JSON.stringify(body);
  writeHead(res, status, headers, Buffer.byteLength(text));
  res.write(text.slice(0, Math.floor(text.length / 2)));
}

/** Numbers become strings and strings become numbers: well-formed JSON, wrong types everywhere. */
function swapTypes(value: unknown): unknown {
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string') return value.length;
  if (Array.isArray(value)) return value.map(swapTypes);
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, swapTypes(inner)]));
  return value;
}

const AMBIGUOUS_ERROR = {
  code: 'internal_error',
  message: 'an error was reported after the request was processed (injected)',
};

/**
 * A broken answer in place of the engine's (none: a proxy's HTML page); the status sent. The ambiguous kinds
 * contradict the engine's real envelope, so that it no longer says clearly whether it worked.
 */
function sendMalformed(res: ServerResponse, kind: MalformedKind, response?: EngineResponse) {
  if (!response) {
    sendText(res, 502, BAD_GATEWAY_PAGE, {}, 'text/html');
    return 502;
  }
  const { status, headers, body } = response;
  const { data, error, meta } = body;
  const text = JSON.stringify(body);
  const envelope = (data: unknown, error: unknown) => JSON.stringify({ data, error, meta });
  const contradicted = error ?? AMBIGUOUS_ERROR;
  const [sent, answer, answerHeaders]: [number, string, Record<string, string>?] =
    kind === 'truncated'
      ? [200, text.slice(0, Math.max(1, Math.floor(text.length / 2)))]
      : kind === 'wrong-types'
        ? [status, JSON.stringify({ data: swapTypes(data), error: swapTypes(error), meta: [] })]
        : kind === 'deep'
          ? [status, `{"data":${'['.repeat(100_000)}${']'.repeat(100_000)},"error":null,"meta":{}}`]
          : kind === 'error-in-200'
            ? [200, envelope(null, contradicted), headers]
            : kind === 'data-and-error'
              ? [status, envelope(data, contradicted), headers]
              : [400, envelope(data, null), headers];
  sendText(res, sent, answer, answerHeaders);
  return sent;
}

const PADDING_CHUNK = Buffer.alloc(64 * 1024, 'x');

/** A valid envelope of exactly `bytes` bytes, `meta.padding` filled with "x", streamed as the client takes it. */
function sendPadded(res: ServerResponse, response: EngineResponse, bytes: number) {
  const { data, error, meta } = response.body;
  // `padding` is the last key of the last object, so the text ends `"padding":""}}`.
  const text = JSON.stringify({ data, error, meta: { ...meta, padding: '' } });
  const textBytes = Buffer.byteLength(text);
  let left = Math.max(0, bytes - textBytes);
  writeHead(res, response.status, response.headers, textBytes + left);
  function* chunks() {
    yield text.slice(0, -3);
    for (; left > 0; left -= PADDING_CHUNK.length) yield PADDING_CHUNK.subarray(0, left);
    yield text.slice(-3);
  }
  Readable.from(chunks()).pipe(res);
}

// Hostile server text, for testing that a client never lets a server drive its terminal: a window-title escape, a
// clear-screen, a clipboard write (OSC 52), a right-to-left override and a zero-width space.

export const HOSTILE_SEQUENCES = [
  '\u001b]0;pwned\u0007',
  '\u001b[2J',
  '\u001b]52;c;ZXZpbA==\u0007',
  '\u202e',
  '\u200b',
] as const;

export const HOSTILE_TEXT = HOSTILE_SEQUENCES.join('');
/** Name of the extra field on every market. */
export const HOSTILE_FIELD_NAME = `note${HOSTILE_TEXT}`;
export const HOSTILE_FIELD_VALUE = `sandbox note ${HOSTILE_TEXT}end`;

function withHostileText(response: EngineResponse, path: string) {
  const { body } = response;
  const { data, error } = body;
  return {
    ...response,
    body: {
      ...body,
      // The engine's markets list holds market objects only.
      data:
        path === '/markets' && Array.isArray(data)
          ? data.map((market: object) => ({ ...market, [HOSTILE_FIELD_NAME]: HOSTILE_FIELD_VALUE }))
          : data,
      error: error && { ...error, message: `${error.message} ${HOSTILE_TEXT}` },
    },
  };
}

// Fault injection, so the CLI's retry, idempotency and timeout code is exercised over real sockets.

/** html: a proxy's 502 page; truncated: half the JSON, status 200; wrong-types: numbers and strings swapped. */
export type MalformedKind =
  | 'html'
  | 'truncated'
  | 'wrong-types'
  | 'error-in-200'
  | 'data-and-error'
  | 'data-in-400'
  /** The envelope with `data` nested 100,000 arrays deep: a walk of it by recursion overflows the stack. */
  | 'deep';

/** What a fault is matched on: the request's method, path and body (parsed, or the marker of one that is not JSON), so a
 * match function may fault one side's close only. */
type RequestTarget = Pick<EngineRequest, 'method' | 'path' | 'body'>;

/** Limits injected faults to some requests, e.g. `{ method: 'POST' }` to fault only writes. */
type FaultMatch = ((target: RequestTarget) => boolean) | { method?: string; path?: string | RegExp };

/** No fault at all: every setting and its default. */
const NO_FAULTS = {
  /** Share (0..1) of requests answered 500 or 503 without reaching the engine. */
  fault5xx: 0,
  /** Share (0..1) of requests answered 429 with Retry-After without reaching the engine. */
  fault429: 0,
  /** Share (0..1) of open/add/reduce/close requests the engine commits before the socket is destroyed. */
  dropAfterCommit: 0,
  /** Delay before every request is handled; its Idempotency-Key is in flight meanwhile. */
  latencyMs: 0,
  next5xx: 0,
  next429: 0,
  nextDropAfterCommit: 0,
  nextLatency: null as { count: number; ms: number } | null,
  /** 503 `service_unavailable` with this Retry-After value sent verbatim: seconds ('2') or an HTTP-date. */
  next503RetryAfter: null as { count: number; retryAfter: string } | null,
  /** 429 `rate_limited` with this Retry-After value sent verbatim (`0`, a date already past), refused before acting. */
  next429RetryAfter: null as { count: number; retryAfter: string } | null,
  /** The next matched GETs are answered for real, padded to `bytes` bytes (streamed, never held whole). */
  nextOversized: null as { count: number; bytes: number } | null,
  /** Terminal escapes and bidi/zero-width characters in server strings (server.ts, HOSTILE_TEXT). */
  hostileText: false,
  /** How far every answer's `Date` header is off the sandbox's clock, as from a server or proxy whose clock is wrong. */
  dateSkewMs: 0,
  /** headers: never answer; body: send status, headers and part of the body, then hang. */
  stall: null as 'headers' | 'body' | null,
  nextMalformed: null as { count: number; kind: MalformedKind } | null,
  /** Answers the simulator has no rule for (a gateway's 403), sent without reaching the engine. */
  nextError: null as { count: number; status: number; code: string; message?: string } | null,
  match: null as FaultMatch | null,
};

export type FaultSettings = typeof NO_FAULTS;

/** `fault`: the outcome's name in the request log; `answer`: answered without reaching the engine. */
type FaultOutcome = { fault?: string } & (
  | { kind: 'none' | 'drop-after-commit' | 'stall' }
  | { kind: 'answer'; response: EngineResponse }
  | { kind: 'oversized'; bytes: number }
  | { kind: 'malformed'; malformed: MalformedKind }
);

const answer = (fault: string, ...error: ConstructorParameters<typeof ApiError>): FaultOutcome => ({
  kind: 'answer',
  fault,
  response: errorResponse(new ApiError(...error)),
});
const rateLimited = () =>
  answer('429', 429, 'rate_limited', 'rate limited (injected)', { retry_after_ms: 1000 }, { 'retry-after': '1' });

const NONE: FaultOutcome = { kind: 'none' };
const DROP: FaultOutcome = { kind: 'drop-after-commit', fault: 'drop-after-commit' };

function matches(match: FaultMatch | null, target: RequestTarget) {
  if (match === null || typeof match === 'function') return match?.(target) ?? true;
  const { method, path } = match;
  return (
    (method === undefined || method.toUpperCase() === target.method) &&
    (path === undefined || (typeof path === 'string' ? path === target.path : path.test(target.path)))
  );
}

/** `initial`: the sandbox's options, of which the settings here are taken. */
function faultInjector(initial: Partial<FaultSettings>, seed: string) {
  let current = { ...NO_FAULTS };
  const prng = { state: hashString(`faults:${seed}`) };
  const random = () => nextRandom(prng, 'state');

  /** Settings not given (or undefined) stay as they are. */
  function update(partial: Partial<FaultSettings>) {
    const given = Object.entries(partial).filter(([key, value]) => key in NO_FAULTS && value !== undefined);
    const next: FaultSettings = { ...current, ...Object.fromEntries(given) };
    for (const share of ['fault5xx', 'fault429', 'dropAfterCommit'] as const)
      if (!(next[share] >= 0 && next[share] <= 1)) throw new Error(`${share} must be a share between 0 and 1`);
    const { nextError: error, nextOversized: oversized } = next;
    // Node refuses a header value with control characters only when the answer is written.
    for (const name of ['next503RetryAfter', 'next429RetryAfter'] as const)
      if (next[name] && !/^[\x20-\x7e]+$/.test(next[name].retryAfter))
        throw new Error(`${name}.retryAfter must be printable ASCII, e.g. "2" or an HTTP-date`);
    if (error && !(Number.isInteger(error.status) && error.status >= 400 && error.status <= 599))
      throw new Error('nextError.status must be an HTTP error status (400 to 599)');
    if (oversized && !(Number.isSafeInteger(oversized.bytes) && oversized.bytes > 0))
      throw new Error('nextOversized.bytes must be a positive whole number');
    current = next;
  }

  /** Decides (and consumes countdowns for) what happens to one request. */
  function plan(target: RequestTarget) {
    if (!matches(current.match, target)) return { latencyMs: 0, outcome: NONE, hostileText: false };
    return {
      latencyMs: take('nextLatency')?.ms ?? current.latencyMs,
      outcome: takeOutcome(target),
      hostileText: current.hostileText,
    };
  }

  /** One from a countdown: its setting while any is left (the last one taken sets it to null), else undefined. */
  function take<
    K extends
      'nextLatency' | 'next503RetryAfter' | 'next429RetryAfter' | 'nextError' | 'nextMalformed' | 'nextOversized',
  >(key: K) {
    const next = current[key] as NonNullable<FaultSettings[K]> | null;
    if (!next || next.count <= 0) return;
    current[key] = next.count > 1 ? { ...next, count: next.count - 1 } : null;
    return next;
  }

  /** Whether a plain-number countdown had one left (and takes it). */
  const count = (key: 'next5xx' | 'next429' | 'nextDropAfterCommit') => current[key] > 0 && current[key]--;

  function takeOutcome(target: RequestTarget): FaultOutcome {
    if (current.stall) return { kind: 'stall', fault: `stall-${current.stall}` };
    if (count('next5xx')) return fault5xx();
    for (const [status, code, message] of [
      [503, 'service_unavailable', 'service unavailable (injected)'],
      [429, 'rate_limited', 'rate limited (injected)'],
    ] as const) {
      const retryAfter = take(`next${status}RetryAfter`)?.retryAfter;
      if (retryAfter)
        return answer(
          `${status}-retry-after`,
          status,
          code,
          message,
          { retry_after: retryAfter },
          {
            'retry-after': retryAfter,
          },
        );
    }
    if (count('next429')) return rateLimited();
    const injected = take('nextError');
    if (injected)
      return answer(
        `error-${injected.status}`,
        injected.status,
        injected.code,
        injected.message ?? `${injected.code} (injected)`,
      );
    const malformed = take('nextMalformed');
    if (malformed) return { kind: 'malformed', fault: `malformed-${malformed.kind}`, malformed: malformed.kind };
    // Only reads are padded: the countdown waits for a GET, as drop-after-commit waits for a write.
    const oversized = target.method === 'GET' && take('nextOversized');
    if (oversized) return { kind: 'oversized', fault: 'oversized', bytes: oversized.bytes };
    const committing = isWrite(target.method, target.path);
    if (committing && count('nextDropAfterCommit')) return DROP;
    // Draw only when a share is set, so turning shares on does not disturb other randomness.
    if (current.fault5xx > 0 || current.fault429 > 0) {
      const draw = random();
      if (draw < current.fault5xx) return fault5xx();
      if (draw < current.fault5xx + current.fault429) return rateLimited();
    }
    if (committing && current.dropAfterCommit > 0 && random() < current.dropAfterCommit) return DROP;
    return NONE;
  }

  /** 500 or 503, one draw deciding which. */
  function fault5xx() {
    return random() < 0.5
      ? answer('5xx', 500, 'internal_error', 'internal error (injected)')
      : answer('5xx', 503, 'service_unavailable', 'service unavailable (injected)');
  }

  update(initial);
  return {
    update,
    get dateSkewMs() {
      return current.dateSkewMs;
    },
    plan,
  };
}

// The simulator's state on disk: one JSON document, replaced whole by hedge's one durable write (a reader, or a
// writer killed mid-save, never leaves half a file).

const FORMAT = 3;
/** The file's first bytes hold its format and its save's token: they tell one save from another. */
const VERSION_BYTES = 48;
const ABSENT = '';

interface StateFileContents {
  /** Sandbox time minus real time at save: reloading continues the clock where it was. */
  clockOffsetMs: number;
  engine: EngineState;
}

/**
 * Taken around each request's load → act → save of a file several processes share; resolves to its release, or
 * rejects with code ELOCKED when another process kept it past the lock's own bound.
 */
export type StateFileLock = (path: string) => Promise<() => Promise<void>>;

export function readStateFile(path: string) {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { version: ABSENT };
    throw error;
  }
  const version = bytes.subarray(0, VERSION_BYTES).toString('latin1');
  let file: Partial<StateFileContents> & { format?: unknown; version?: unknown };
  try {
    file = JSON.parse(bytes.toString());
  } catch {
    // Format 2 was lines of JSON, the first a header.
    if (version.startsWith('{"version":2,')) return { version, earlier: true };
    throw new Error(`sandbox state file ${path} is not valid JSON; delete it to start afresh`);
  }
  if (file?.format === FORMAT && typeof file.clockOffsetMs === 'number' && file.engine?.version === 1)
    return { contents: { clockOffsetMs: file.clockOffsetMs, engine: file.engine }, version };
  if (file?.version === 1) return { version, earlier: true };
  throw new Error(`sandbox state file ${path} has an unknown format; delete it to start afresh`);
}

/** The file's version now: synchronous, so that nothing runs between this compare and a rename. */
function versionNow(path: string) {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return ABSENT;
    throw error;
  }
  try {
    const start = Buffer.alloc(VERSION_BYTES);
    return start.subarray(0, readSync(fd, start, 0, VERSION_BYTES, 0)).toString('latin1');
  } finally {
    closeSync(fd);
  }
}

/** The file's bytes for `contents`, as a new save (a token no other save has). */
function stateBytes(contents: StateFileContents) {
  return Buffer.from(JSON.stringify({ format: FORMAT, save: randomHex(), ...contents }));
}

/** The lock could not be taken within its bound, or every save found the file moved on: nothing was done. */
const stateFileBusy = (path: string) =>
  new ApiError(503, 'sandbox_state_busy', `sandbox state file ${path} stayed locked by another process`, undefined, {
    'retry-after': '1',
  });

/** How many times a request runs when its save keeps finding the file moved on (each on what the file holds then). */
const ATTEMPTS = 3;

/**
 * `version`: that of the file as memory was loaded from it (readStateFile's), before the server starts. Hooks:
 * `adopt` the file's contents when it changed under us (another process saved, or it was removed); `saved` is called
 * after a save, so `changed` starts again from there; `beforeCommit` (tests only) inside a save, its new state written
 * beside the file, not yet committed.
 */
function sharedStateFile(
  path: string,
  version: string,
  lock: StateFileLock,
  hooks: {
    adopt(contents: StateFileContents | undefined): void;
    snapshot(): StateFileContents;
    changed(): boolean;
    saved(): void;
    beforeCommit?(): void | Promise<void>;
  },
) {
  // From here on, the version of the file memory holds; a value no file has forces a reload.
  /** Requests under way, so flush() can wait for their saves. */
  const running = new Set<Promise<unknown>>();
  /** Locked runs of this process under way: memory may hold what one did and has not committed yet. */
  let lockedRuns = 0;

  async function attempts<T>(act: () => T) {
    if (lockedRuns === 0) {
      catchUp();
      let result: T | undefined;
      let changed = true;
      try {
        result = act();
        changed = hooks.changed();
      } finally {
        // What `act` changed is not on disk: memory goes back to the file, and the locked run acts anew.
        if (changed) reload();
      }
      if (!changed) return result;
    }
    for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
      const done = await locked(act);
      if (done) return done.result;
    }
    throw stateFileBusy(path);
  }

  /** Memory becomes what the file holds, if another process saved it since. */
  function catchUp() {
    if (versionNow(path) !== version) reload();
  }

  function reload() {
    const read = readStateFile(path);
    hooks.adopt(read.contents);
    version = read.version;
  }

  /** Under the lock: catch up, act, save; undefined when the save found the file moved on. */
  async function locked<T>(act: () => T) {
    lockedRuns += 1;
    try {
      const release = await lock(path).catch((error: unknown) => {
        throw (error as NodeJS.ErrnoException).code === 'ELOCKED' ? stateFileBusy(path) : error;
      });
      try {
        catchUp();
        const result = act();
        if (!hooks.changed() || (await commit())) return { result };
        return;
      } catch (error) {
        version = '?';
        throw error;
      } finally {
        await release();
      }
    } finally {
      lockedRuns -= 1;
    }
  }

  /** Writes memory as a new save, and commits it only on the file memory was loaded from. */
  async function commit() {
    const bytes = stateBytes(hooks.snapshot());
    const write = prepareDurableWrite(path, bytes);
    try {
      await hooks.beforeCommit?.();
      // Compare and swap, with no await from here to the rename.
      if (versionNow(path) !== version) {
        write.abandon();
        return false;
      }
      write.commit();
    } catch (error) {
      write.abandon();
      throw error;
    }
    version = bytes.subarray(0, VERSION_BYTES).toString('latin1');
    hooks.saved();
    return true;
  }

  return {
    /** Runs `act` on memory as the file holds it. */
    transact<T>(act: () => T) {
      const run = attempts(act);
      running.add(run);
      const forget = () => void running.delete(run);
      run.then(forget, forget);
      return run;
    },
    flush: () => Promise.allSettled([...running]),
  };
}
