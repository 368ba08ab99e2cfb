// The sandbox over real HTTP(S): parses requests, injects faults, hands the rest to the engine and writes its
// envelope.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { once } from 'node:events';
import { setTimeout as delay } from 'node:timers/promises';

import { DEFAULT_SEED, type EngineOptions, createEngineState } from '../engine-state.js';
import { ApiError, type EngineRequest, type EngineResponse, errorResponse, notFoundError } from './envelope.js';
import { faultInjector, type FaultSettings } from './faults.js';
import { withHostileText } from './hostile-text.js';
import { createHttpEngine } from './http-engine.js';
import { parseBody, readBody, sendEnvelope, sendMalformed, sendPadded, splitUrl, stallBody } from './http-io.js';
import {
  sharedStateFile,
  StateFileBusyError,
  type StateFileContents,
  type StateFileLock,
  readStateFile,
  saveStateFile,
} from '../state-file.js';
import { INVALID_JSON } from './validation.js';

export const SANDBOX_BASE_PATH = '/partners/sandbox/v2';

const KEEP_ALIVE_TIMEOUT_MS = 5000;
/** The engine's options, the faults it starts with (faults.ts says what each does), and the server's own. */
export interface SandboxOptions extends Partial<EngineOptions>, Partial<FaultSettings> {
  port?: number;
  host?: string;
  /** A local socket instead of a TCP port (the demo: no port to pick, no IP address code run at start). */
  socketPath?: string;
  tls?: boolean;
  clockSpeed?: number;
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
}

export type RunningSandbox = Awaited<ReturnType<typeof startSandbox>>;

// Math.random, not node:crypto: a demo quote runs without loading crypto (test/build/startup-imports.test.ts).
function requestId() {
  const half = () =>
    Math.floor(Math.random() * 0x1_0000_0000)
      .toString(16)
      .padStart(8, '0');
  return `req_${half()}${half()}`;
}

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
      const message = error instanceof Error ? error.message : String(error);
      if (!res.headersSent) sendEnvelope(res, errorResponse(new ApiError(500, 'internal_error', message)));
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
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
      await host.flush();
      await certificates?.cleanup();
    },
  };

  /** One request: read, logged (pending), then answered as the faults plan it. */
  async function onRequest(req: IncomingMessage, res: ServerResponse) {
    res.setHeader('x-request-id', requestId());
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
    const body = parseBody(rawBody);
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
        const signal = AbortSignal.any([holds.signal, release.signal]);
        await delay(plan.latencyMs, undefined, { signal }).catch(() => undefined);
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
          if (!(error instanceof StateFileBusyError)) throw error;
          // Nothing was done: the client may retry, with the same Idempotency-Key.
          return send(
            errorResponse(new ApiError(503, 'sandbox_state_busy', error.message, undefined, { 'retry-after': '1' })),
          );
        }
        if (holds.signal.aborted) return req.socket.destroy();
        host.saveIfChanged();
      }
      if (fault) entry.fault = entry.fault ? `${entry.fault}+${fault}` : fault;
      if (response && plan.hostileText) response = withHostileText(response, request.path);
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
  const origin = originMs ?? realStart;
  let offset = 0;
  return {
    now: () => Math.floor(origin + (realNow() - realStart) * speed + offset),
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
    originMs: read?.contents && realNow() + read.contents.clockOffsetMs,
  });
  const engineOf = (contents?: StateFileContents) =>
    createHttpEngine(
      { ...options, apiKeys, seed },
      contents?.engine ??
        // Unseeded, a fresh state's ids get a random part of their own: two simulators, or one demo and the next
        // after a reset, never hand out the same ids.
        createEngineState(
          seed,
          options.dialect,
          options.seed === undefined ? process.getBuiltinModule('node:crypto').randomInt(0x1_0000_0000) : undefined,
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
    startedAfresh: read?.earlier === true,
    saveIfChanged: () => {
      if (!stateFile || shared || !engine.revision) return;
      engine.revision = 0;
      // A failed save must not fail the request: it surfaces on close() via flush().
      try {
        saveStateFile(stateFile, snapshot());
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
