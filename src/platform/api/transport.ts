import { parseBoundedJson } from '../../core/security/json-keys.js';
import type { Agent as HttpAgent, IncomingHttpHeaders as Headers } from 'node:http';
import type { Dispatcher } from './transport-proxy.js';
import { scrubSecrets } from '../../core/security/secrets.js';
import { readBoundedStream, readCaFile, ReadRefused } from '../../core/security/bounded-read.js';
import { atBaseOrigin, connectsDirectly, isLoopbackAddress, isLoopbackHost } from '../../core/security/base-url.js';
import { ApiError, InterruptedError, InvalidResponseError, NetworkError, UsageError } from '../../core/errors.js';
import { envelopeSchema } from './schemas.js';
import { createServerClock, type ServerClock } from '../../core/server-clock.js';
import { formatSpan } from '../../core/duration.js';

// Not an ES import: on Node >= 22 that reads every export of node:http.
const http = process.getBuiltinModule('node:http');
const https = () => process.getBuiltinModule('node:https');

/** Request or answer headers by name. */
type HeaderMap = Record<string, string>;

export interface Clock {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export interface TransportConfig {
  /** The command's keep-alive connections, closed when it ends. */
  connections: HttpConnections;
  baseUrl: string;
  /** A local socket the base URL is served on (the demo's simulator, in this process). */
  localSocket?: string;
  apiKey: string;
  /** A live key is sent only over TLS hedge has verified itself. */
  environment?: 'live' | 'test';
  /** NODE_TLS_REJECT_UNAUTHORIZED=0 in the environment (Node's own switch that turns certificate checks off). */
  tlsChecksOff?: boolean;
  /** Where the key came from: a refused one from the environment is fixed there, not by a login. */
  sources?: { apiKey: string };
  userAgent: string;
  /** PEM file trusted on top of the system roots (HEDGE_CA_FILE or the profile's ca_file). */
  caFile?: string;
  /** NODE_EXTRA_CA_CERTS, kept trusted when caFile replaces the default CA list. */
  nodeExtraCaCerts?: string;
  connectTimeoutMs: number;
  requestTimeoutMs: number;
  /** The proxy settings as the environment gave them ('' for none: never read from process.env here). */
  proxy: { httpsProxy: string; httpProxy: string; noProxy: string };
  retry: RetryPolicy;
  clock: Clock;
  /** Absolute clock time after which nothing more is attempted (--timeout). */
  deadline?: number;
  /** The whole --timeout in ms, named in the error when the deadline is what cut an attempt short. */
  deadlineTotalMs?: number;
  signal?: AbortSignal;
  maxAnswerBytes?: number;
  /** --verbose lines; already free of secrets when called. */
  log?: (line: string) => void;
  /** Sees every answer that came back, whatever it held (`hedge doctor` reads Date and rate-limit headers). */
  observe?: (answer: ObservedAnswer) => void;
}

/** What one attempt was answered with, as it came (`hedge api --include` prints it). */
export interface RawAnswer {
  status: number;
  headers: Headers;
  text: string;
}

export interface ApiRequest {
  /** The endpoints of the spec use GET and POST; `hedge api` may send the others. */
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  idempotencyKey?: string;
  /** Extra headers (`hedge api -H`); never Authorization or Idempotency-Key, which are set here last. */
  headers?: HeaderMap;
  /** Told about every answer an attempt got, before it is read as the envelope. */
  onAnswer?: (answer: RawAnswer) => void;
  /** The field of the answer's data the server stamps this request with (an open's `opened_at`). */
  stampedBy?: string;
  /** This key's first send anywhere: its answer's stamp was made while this send() was under way. */
  firstSend?: boolean;
  /** Awaited before each retry of this request, with why the last attempt is retried. */
  beforeRetry?: (reason: RetryReason) => Promise<void>;
}

/** What a write's sender adds to its planned request (the plan itself stays as journaled). */
export type SendHooks = Pick<ApiRequest, 'beforeRetry' | 'firstSend'>;

export interface ObservedAnswer {
  endpoint: string;
  status: number;
  /** Header names in lower case. */
  headers: HeaderMap;
  /** Clock times the request left and its headers came back. */
  sentAt: number;
  receivedAt: number;
}

const TIMEOUT_CODES = 'UND_ERR_CONNECT_TIMEOUT UND_ERR_HEADERS_TIMEOUT UND_ERR_BODY_TIMEOUT'.split(' ');
const RETRYABLE_NETWORK_CODES = [
  ...'ECONNREFUSED ECONNRESET EPIPE ETIMEDOUT EAI_AGAIN ENETUNREACH EHOSTUNREACH UND_ERR_SOCKET UND_ERR_CLOSED'.split(
    ' ',
  ),
  ...TIMEOUT_CODES,
];
/** Failures that come before a connection exists (through a proxy too): nothing of the request can have left. */
const NOT_CONNECTED_CODES = 'ECONNREFUSED ENOTFOUND EAI_AGAIN'.split(' ');
/** Set on a direct request's error when its socket never connected (or never finished its TLS handshake). */
const BEFORE_CONNECTED = Symbol('before connected');
const TLS_TRUST_CODES =
  'SELF_SIGNED_CERT_IN_CHAIN DEPTH_ZERO_SELF_SIGNED_CERT UNABLE_TO_VERIFY_LEAF_SIGNATURE UNABLE_TO_GET_ISSUER_CERT_LOCALLY CERT_HAS_EXPIRED ERR_TLS_CERT_ALTNAME_INVALID'.split(
    ' ',
  );

/** The refusal of a live key while NODE_TLS_REJECT_UNAUTHORIZED=0 is set (hedge verifies TLS anyway; a profile line
 * that turns checks off for every program is not to be carried past with real money). */
const TLS_CHECKS_OFF =
  "Refusing to send a live key with NODE_TLS_REJECT_UNAUTHORIZED=0 in the environment (it turns TLS certificate checks off for Node programs): unset NODE_TLS_REJECT_UNAUTHORIZED, and point HEDGE_CA_FILE at a proxy's CA if you need one; nothing was sent.";

/** What `make` made for this key, made on the first ask (keys compared as JSON). */
export function memo<T>(map: Map<string, T>, key: unknown[], make: () => T) {
  const name = JSON.stringify(key);
  return map.get(name) ?? map.set(name, make()).get(name)!;
}

/** The keep-alive connections of one command (or of one agent server and its calls), closed once when it ends. */
export class HttpConnections {
  // An https agent is an http one.
  private readonly agents = new Map<string, HttpAgent>();
  private readonly proxies = new Map<string, Promise<Dispatcher>>();
  private readonly clocks = new Map<string, ServerClock>();
  /** Origins that refused every attempt of a request of this command, and when: a request there soon after is tried once. */
  readonly refused = new Map<string, number>();
  private closed = false;

  /** What this command learned of a server's clock: one per base URL, whichever client's answers taught it. */
  serverClock(baseUrl: string) {
    return memo(this.clocks, [baseUrl], createServerClock);
  }

  /** The node:http(s) agent for these settings (one per protocol and CA list). */
  agentFor(url: URL, config: TransportConfig) {
    // A request after the end would open connections nothing closes.
    if (this.closed) throw new ConnectionsClosedError();
    return memo(this.agents, [url.protocol, config.caFile, config.nodeExtraCaCerts, config.localSocket], () => {
      if (url.protocol !== 'https:') return new http.Agent({ keepAlive: true });
      // Judged before node:https is loaded: a Node that reads NODE_EXTRA_CA_CERTS lazily starts reading it then, on a
      // thread the process waits for at exit, so a FIFO there would keep the refusal from ending the process.
      const ca = trustedCertificates(config);
      // Verified whatever NODE_TLS_REJECT_UNAUTHORIZED says: Node reads it only where no option is given.
      return new (https().Agent)({ keepAlive: true, rejectUnauthorized: true, ca });
    });
  }

  /** undici's proxy agent for these settings, loaded on first use. */
  proxyFor(config: TransportConfig) {
    if (this.closed) throw new ConnectionsClosedError();
    const { caFile, nodeExtraCaCerts, connectTimeoutMs, proxy } = config;
    return memo(this.proxies, [caFile, nodeExtraCaCerts, connectTimeoutMs, proxy], () => {
      const ca = trustedCertificates(config);
      // TLS to the proxy, and to the API inside the tunnel: the connect timeout and the CA list.
      const tls = { timeout: connectTimeoutMs, rejectUnauthorized: true, ...(ca && { ca }) };
      // EnvHttpProxyAgent (CONNECT tunnels, NO_PROXY) reads a setting left undefined from the environment, an empty
      // one as none.
      return import('./transport-proxy.js').then(
        ({ EnvHttpProxyAgent }) => new EnvHttpProxyAgent({ ...proxy, connect: tls, requestTls: tls }),
      );
    });
  }

  /** Closes every connection at once (the command has its answers), so that the process can exit. */
  async close() {
    this.closed = true;
    for (const agent of this.agents.values()) agent.destroy();
    await Promise.all(
      [...this.proxies.values()].map((opened) =>
        opened.then(
          (proxy) => proxy.destroy(),
          () => {},
        ),
      ),
    );
  }
}

/** A request on connections already closed: a bug of the caller, thrown as it is (nothing was sent, nothing retried). */
export class ConnectionsClosedError extends Error {
  constructor() {
    super('these HTTP connections were closed when their command ended; nothing was sent');
  }
}

/** With a CA file, the CA list: passing `ca` replaces Node's default list. */
function trustedCertificates({ caFile, nodeExtraCaCerts }: TransportConfig) {
  // Read without a CA file too: Node trusts it by itself, so one that others may change is refused here.
  const extra = nodeExtraCaCerts ? [readCaFile(nodeExtraCaCerts, 'NODE_EXTRA_CA_CERTS')] : [];
  if (caFile)
    return [...process.getBuiltinModule('node:tls').rootCertificates, readCaFile(caFile, 'CA file'), ...extra];
}

/** The request's headers (the key last: a header given cannot replace it) and its JSON body. */
function outgoing({ method, headers, body, idempotencyKey }: ApiRequest, config: TransportConfig, signal: AbortSignal) {
  return {
    method,
    headers: {
      'user-agent': config.userAgent,
      accept: 'application/json',
      ...flatHeaders(headers ?? {}),
      authorization: `Bearer ${config.apiKey}`,
      ...(body !== undefined && { 'content-type': 'application/json' }),
      ...(idempotencyKey && { 'idempotency-key': idempotencyKey }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal,
  };
}

type Outgoing = ReturnType<typeof outgoing>;

function sendDirect(url: URL, { method, headers, body, signal }: Outgoing, config: TransportConfig) {
  const { connectTimeoutMs, localSocket } = config;
  const secure = url.protocol === 'https:';
  const options = {
    ...(localSocket !== undefined && { socketPath: localSocket }),
    method,
    headers: body === undefined ? headers : { ...headers, 'content-length': Buffer.byteLength(body) },
    agent: config.connections.agentFor(url, config),
    signal,
  };
  return new Promise<{ status: number; headers: Headers; body: NodeJS.ReadableStream }>((resolve, reject) => {
    const request = (secure ? https().request : http.request)(url, options, (response) =>
      resolve({ status: response.statusCode ?? 0, headers: response.headers, body: response }),
    );
    // Until the socket is connected (and its TLS set up) nothing of the request can have left: a failure then is tagged.
    let connected = false;
    request.on('error', (error) => reject(connected ? error : Object.assign(error, { [BEFORE_CONNECTED]: true })));
    request.once('socket', (socket) => {
      if (socket.connecting) socket.once(secure ? 'secureConnect' : 'connect', () => (connected = true));
      else connected = true;
      // Plain http:// goes to this machine alone.
      const check = () => {
        if (!isLoopbackAddress(socket.remoteAddress))
          request.destroy(
            new UsageError(
              `Refusing plain http:// to ${url.hostname}: it connected to ${socket.remoteAddress ?? 'an unknown address'}, which is not a loopback address (plain http:// goes to this machine only); nothing was sent.`,
            ),
          );
      };
      if (!secure && localSocket === undefined) {
        if (socket.connecting) socket.prependOnceListener('connect', check);
        else check();
      }
      if (!socket.connecting) return;
      const timer = setTimeout(
        () =>
          request.destroy(
            Object.assign(new Error(`not connected within ${formatSpan(connectTimeoutMs)}`), {
              code: 'UND_ERR_CONNECT_TIMEOUT',
            }),
          ),
        connectTimeoutMs,
      ).unref();
      for (const event of [secure ? 'secureConnect' : 'connect', 'close'])
        socket.once(event, () => clearTimeout(timer));
    });
    request.end(body);
  });
}

async function sendThroughProxy(url: URL, outgoing: Outgoing, config: TransportConfig, timeoutMs: number) {
  const [{ requestThroughProxy }, dispatcher] = await Promise.all([
    import('./transport-proxy.js'),
    config.connections.proxyFor(config),
  ]);
  const { statusCode, headers, body } = await requestThroughProxy(url, {
    ...outgoing,
    dispatcher,
    // The signal bounds the attempt exactly; undici's own timers (which tick at about a second) are a backstop.
    headersTimeout: timeoutMs + 1000,
    bodyTimeout: timeoutMs + 1000,
  });
  return { status: statusCode, headers, body };
}

/** The first string `code` on the error or its causes. */
function errorCode(error: unknown, depth = 0): string | undefined {
  const { code, cause } = (error || {}) as { code?: unknown; cause?: unknown };
  return typeof code === 'string' ? code : depth < 3 ? errorCode(cause, depth + 1) : undefined;
}

/** Requests to one server under `config`: each sent with its retries, its answer read as the envelope. */
export function createTransport(config: TransportConfig) {
  /** The server's clock as its answers tell it, shared by every client of this command on the same server. */
  const serverClock = config.connections.serverClock(config.baseUrl);

  /** A --verbose line, free of secrets. */
  const log = (line: string) => config.log?.(scrubSecrets(line));

  async function send(request: ApiRequest) {
    const { clock, retry: policy, deadline, baseUrl } = config;
    const endpoint = `${request.method} ${request.path}`;
    if (config.tlsChecksOff && config.environment === 'live') throw new UsageError(TLS_CHECKS_OFF);
    const started = clock.now();
    // Its path glued to the base URL (a path is relative to the base URL's own path).
    const url = atBaseOrigin(baseUrl, baseUrl + request.path, endpoint);
    for (const [name, value] of Object.entries(request.query ?? {}))
      if (value !== undefined) url.searchParams.set(name, String(value));
    // A server that refused every attempt of a request of this command moments ago is not waited for again (a long-lived
    // command, a keeper or a watch, retries in full once the retries' own time has gone by).
    const { refused } = config.connections;
    const refusedAt = refused.get(url.origin);
    const maxAttempts = refusedAt !== undefined && started - refusedAt < policy.maxTotalMs ? 1 : policy.maxAttempts;
    // Whether every attempt so far failed before the request could leave this machine (a refused connection).
    let notSent = true;
    // Whether every attempt so far was refused before the server acted on it (a 429) or never left this machine.
    let notActed = true;
    for (let attempt = 1; ; attempt += 1) {
      const outcome = await sendOnce(request, url, endpoint, attempt, started, notSent, notActed);
      if (!outcome.reason) {
        refused.delete(url.origin);
        return outcome;
      }
      const { reason, error, retryAfterMs } = outcome;
      const leftNothing = error instanceof NetworkError && error.notSent;
      notSent &&= leftNothing;
      notActed &&= reason === 'rate-limited' || leftNothing;
      // A Retry-After of 0 (or a date already past) asks for no particular wait: the usual backoff, never at once.
      const delay = retryAfterMs || backoffDelayMs(policy, attempt);
      const now = clock.now();
      // An in-flight idempotency key is the server still working on our own earlier attempt.
      if (
        (reason !== 'in-flight' && reason !== 'conflict' && attempt >= maxAttempts) ||
        (retryAfterMs ?? 0) > policy.maxRetryAfterMs ||
        now + delay >= (deadline ?? Infinity) ||
        now - started + delay > (reason === 'conflict' ? policy.maxConflictWaitMs : policy.maxTotalMs)
      ) {
        const final = giveUp(error, request, attempt, notSent, notActed);
        if (notSent) refused.set(url.origin, now);
        // Kept for a caller that retries on its own schedule (the --watch loop delays its next tick).
        if (final instanceof NetworkError && retryAfterMs) final.retryAfterMs = retryAfterMs;
        throw final;
      }
      log(`  retry ${endpoint} in ${formatSpan(delay)} (${reason})`);
      try {
        await clock.sleep(delay, config.signal);
      } catch {
        throw new InterruptedError(`Interrupted while retrying ${endpoint}.`);
      }
      await request.beforeRetry?.(reason);
    }
  }

  /** The error said when the retries stop: a network failure names its attempts, and a write's outcome is unknown
   * unless no attempt left this machine (`notSent`: every one refused, or no TLS): then nothing was sent; or unless the
   * server refused every attempt it got before acting (`notActed`, a 429): then it was not done. */
  function giveUp(
    error: ApiError | NetworkError,
    { idempotencyKey: key }: ApiRequest,
    attempts: number,
    notSent = false,
    notActed = notSent,
  ) {
    // Our own earlier attempt is still being processed and may yet succeed: not a refusal.
    const inFlight = error instanceof ApiError && error.code === 'idempotency_in_flight';
    if (error instanceof ApiError && !inFlight) return error;
    const message = inFlight
      ? `${error.endpoint} was still being processed by the server when the retries ran out.`
      : error.message;
    const counted = attempts > 1 ? `${message.replace(/\.$/, '')} (after ${attempts} attempts).` : message;
    const notDone = notActed && !notSent;
    const final = new NetworkError(
      notSent || notDone
        ? `${counted.replace(/\.$/, '')}; ${notSent ? 'nothing was sent' : 'not done: the server refused it before acting'}.`
        : counted,
      {
        ...error,
        attempts,
        notSent,
        notDone,
        hint:
          key && !notActed
            ? `The outcome is unknown: the server may have acted. Run the same command again with --idempotency-key ${key} to resume safely; it cannot act twice.`
            : (error.hint ?? 'Check the network and the base URL, then try again.'),
        cause: error.cause,
      },
    );
    final.idempotencyKey = key;
    return final;
  }

  /** One attempt: its answer read as the envelope, or why to try again; what ends the request is thrown. `firstSentAt`: when this send() began, the earliest an answer's own stamp can be. */
  async function sendOnce(
    request: ApiRequest,
    url: URL,
    endpoint: string,
    attempt: number,
    firstSentAt: number,
    /** No earlier attempt of this request left this machine. */
    notSentBefore: boolean,
    /** No earlier attempt was acted on: each refused before acting (a 429) or never sent. */
    notActedBefore: boolean,
  ) {
    const { host } = url;
    const { clock } = config;
    const key = request.idempotencyKey;
    const failed = (message: string, more: object) =>
      new NetworkError(message, { endpoint, attempts: attempt, ...more });
    const remaining = (config.deadline ?? Infinity) - clock.now();
    // A write sent with no time left to hear the answer would leave its outcome unknown for nothing: it needs 1 s.
    if (remaining < (key ? 1_000 : 1))
      throw failed(
        `--timeout ran out before ${endpoint} was ${attempt === 1 ? 'sent; nothing was sent' : 'sent again'}.`,
        {
          attempts: attempt - 1,
          notDone: attempt > 1 && notActedBefore && !notSentBefore,
          hint: 'Run it again with a longer --timeout (or none).',
        },
      );
    const timeoutMs = Math.min(config.requestTimeoutMs, remaining);
    const keyNote = key ? ` idempotency-key=${key}` : '';
    log(`→ ${endpoint} attempt ${attempt}${keyNote}`);
    const sentAt = clock.now();
    let answer, text;
    // Our own timer makes the bound exact and covers headers and body together.
    const timeoutSignal = AbortSignal.timeout(timeoutMs);
    const signal = config.signal ? AbortSignal.any([config.signal, timeoutSignal]) : timeoutSignal;
    // Answers larger than this are refused while they are read (HEDGE_MAX_ANSWER_MB sets it; 64 MiB by default).
    const cap = config.maxAnswerBytes ?? 64 * 1024 * 1024;
    try {
      // The key crosses a proxy only inside TLS to a remote host (src/core/security/base-url.ts).
      const viaProxy = !connectsDirectly(config.baseUrl) && (config.proxy.httpsProxy || config.proxy.httpProxy);
      answer = await (viaProxy ? sendThroughProxy : sendDirect)(
        url,
        outgoing(request, config, signal),
        config,
        timeoutMs,
      );
      // Past the cap the connection is dropped and the answer refused, not retried (it would come the same).
      text = (await readBoundedStream(answer.body, { maxBytes: cap })).toString('utf8');
    } catch (error) {
      // No answer was read: interrupted, refused before sending, too large, untrusted TLS (thrown), or a retry.
      if (config.signal?.aborted) throw new InterruptedError(`Interrupted during ${endpoint}.`);
      // A refusal before anything was written (plain http:// that did not connect to loopback): not retried.
      if (error instanceof ConnectionsClosedError || error instanceof UsageError) throw error;
      if (error instanceof ReadRefused)
        throw giveUp(
          failed(`${endpoint} answered with more than ${Math.round(cap / 1024 / 1024)} MiB; reading stopped there.`, {
            code: 'answer_too_large',
            hint: 'Ask for less (e.g. --limit), or raise the cap with HEDGE_MAX_ANSWER_MB if the answer is expected to be this large.',
          }),
          request,
          attempt,
        );
      const code = timeoutSignal.aborted ? 'UND_ERR_HEADERS_TIMEOUT' : errorCode(error);
      const reason = code ?? (error as Error).message;
      log(`← ${endpoint} failed after ${formatSpan(clock.now() - sentAt)}: ${reason}`);
      // The handshake failed before the request could be written: nothing of it reached the server.
      if (TLS_TRUST_CODES.includes(code!))
        throw giveUp(
          failed(`TLS: the certificate of ${host} is not trusted (${code}) on ${endpoint}.`, {
            code,
            hint: 'For a sandbox with its own CA, point HEDGE_CA_FILE (or NODE_EXTRA_CA_CERTS) at the CA file it printed.',
            cause: error,
          }),
          request,
          attempt,
          notSentBefore,
        );
      const notSent =
        NOT_CONNECTED_CODES.includes(code!) || (error as { [BEFORE_CONNECTED]?: boolean })[BEFORE_CONNECTED] === true;
      // When --timeout (not --request-timeout) bounds this attempt, the error names --timeout's own value.
      const networkError = failed(
        code === 'ECONNREFUSED'
          ? `Could not connect to ${host} on ${endpoint}: the connection was refused (ECONNREFUSED: nothing listens there)`
          : code === 'EPROTO'
            ? `${host} did not answer in TLS on ${endpoint} (EPROTO${tlsReason(error)}): it may speak plain HTTP on that port`
            : !TIMEOUT_CODES.includes(code!)
              ? `Could not reach ${host} on ${endpoint}: ${reason}.`
              : remaining < config.requestTimeoutMs && timeoutSignal.aborted
                ? `No answer from ${host} on ${endpoint} before --timeout ran out${config.deadlineTotalMs !== undefined ? ` (${formatSpan(config.deadlineTotalMs)})` : ''}.`
                : `No answer from ${host} within ${formatSpan(timeoutMs)} on ${endpoint}.`,
        {
          code,
          notSent,
          cause: error,
          ...(code === 'EPROTO' && { hint: plainHttpHint(config) }),
          ...(code === 'ECONNREFUSED' && {
            hint: 'Check that the server runs and that the base URL is right (`hedge whoami` shows it and where it comes from).',
          }),
        },
      );
      if (code !== undefined && !RETRYABLE_NETWORK_CODES.includes(code))
        throw giveUp(networkError, request, attempt, notSentBefore && notSent);
      return { reason: 'network' as const, error: networkError };
    }
    const { status, headers } = answer;
    const flat = flatHeaders(headers);
    const receivedAt = clock.now();
    config.observe?.({ endpoint, status, headers: flat, sentAt, receivedAt });
    request.onAnswer?.({ status, headers, text });
    const requestId = [headers['x-request-id']].flat()[0];
    serverClock.learnDate(flat.date, sentAt, receivedAt);
    log(
      `← ${status} ${endpoint} ${formatSpan(clock.now() - sentAt)} attempt ${attempt}${keyNote}${requestId ? ` request-id=${requestId}` : ''}`,
    );
    // A retry after the answer's Retry-After (seconds or an HTTP date) when it has one, within the budget; a date is
    // the server's time, read against its own Date header where it sent one.
    const serverDate = Date.parse(flat.date ?? '');
    const serverNowMs = Number.isFinite(serverDate) ? serverDate : clock.now();
    // Without a Retry-After, the reset a rate-limit header announces is waited out as one.
    const retryAfterMs = () =>
      parseRetryAfterMs([headers['retry-after']].flat()[0], serverNowMs) ?? rateLimitResetMs(flat, serverNowMs);
    const retry = (reason: RetryReason, message: string, code?: string, hint?: string) => ({
      reason,
      retryAfterMs: retryAfterMs(),
      error: failed(message, { status, code, hint }),
    });
    const parsed = parseBoundedJson(text, { lastKeyWins: true });
    const envelope = parsed.problem === undefined ? envelopeSchema.safeParse(parsed.value) : undefined;
    if (!envelope?.success) {
      const message = `${endpoint} answered HTTP ${status} with ${envelope ? 'JSON that is not the {data, error, meta} envelope' : text.trim() === '' ? 'an empty body' : parsed.problem === 'not valid JSON' ? 'a body that is not JSON' : `JSON ${parsed.problem}`}.`;
      if (status >= 500) return retry('server-error', message);
      throw new InvalidResponseError(message, {
        endpoint,
        status,
        hint: 'The server or a proxy in between is misbehaving; try again later, or run with --verbose for details.',
      });
    }
    const { data, error, meta } = envelope.data;
    const ok = status >= 200 && status < 300;
    if (error) {
      const { code, message, details } = error;
      if (status === 429)
        return retry(
          'rate-limited',
          `${endpoint} was rate limited (${code}): ${message}`,
          code,
          'Slow down: the API limits requests per key.',
        );
      if (status >= 500)
        return retry(
          'server-error',
          `${endpoint} failed on the server: HTTP ${status} ${code}: ${message}`,
          code,
          'The service had a transient failure; try again in a moment.',
        );
      // Data beside an error, or an error on a 2xx.
      const ambiguous = data != null || ok;
      const hint =
        status === 401 && config.sources?.apiKey === 'environment'
          ? 'The key is HEDGE_API_KEY, which comes before any saved profile: set the right key there, or unset it to use the profile (`hedge whoami` shows where each setting comes from).'
          : undefined;
      const apiError = new ApiError({ status, code, message, details, requestId, endpoint, ambiguous, hint });
      apiError.idempotencyKey = key;
      if (status === 409 && code === 'idempotency_in_flight') return { reason: 'in-flight' as const, error: apiError };
      // A conflict that says when to try again (Retry-After: another change still landing on the
      // side) refused the request and did nothing: it is sent again then, with the same key.
      const wait = status === 409 && code !== 'idempotency_key_reuse' && !ambiguous ? retryAfterMs() : undefined;
      if (wait !== undefined) return { reason: 'conflict' as const, retryAfterMs: wait, error: apiError };
      throw apiError;
    }
    if (!ok)
      throw new InvalidResponseError(`${endpoint} answered HTTP ${status} without an error object.`, {
        endpoint,
        status,
      });
    const own = request.firstSend && request.stampedBy;
    serverClock.learnStamps(data, receivedAt, own ? { field: own, sentAt: firstSentAt } : undefined);
    return { status, data, meta, headers: flat, url: url.toString() };
  }

  return {
    config,
    serverClock,
    log,
    /** The server's time now, as far as its answers tell it (core/server-clock.ts): maturities are compared with this. */
    serverNow: () => serverClock.at(config.clock.now()),
    send,
  };
}

export type Transport = ReturnType<typeof createTransport>;

export type ApiResponse = Awaited<ReturnType<Transport['send']>>;

/** Header names in lower case, repeated headers joined with ", " (as HTTP allows). */
function flatHeaders(headers: Headers) {
  const flat: HeaderMap = {};
  for (const [name, value] of Object.entries(headers))
    if (value !== undefined) flat[name.toLowerCase()] = [value].flat().join(', ');
  return flat;
}

/** OpenSSL's reason for a failed handshake (`wrong version number`), where the error gives one. */
function tlsReason(error: unknown) {
  const reason = /:([a-z][a-z ]+):[^:]*:\d+:?\s*$/.exec(String((error as Error)?.message ?? ''))?.[1];
  return reason ? `: ${reason}` : '';
}

/** What to do when an https:// base URL meets a server that does not speak TLS: http:// is allowed to loopback only,
 * and never with a live key (checkBaseUrl), so that key is told what it may run. */
function plainHttpHint({ baseUrl, environment }: Pick<TransportConfig, 'baseUrl' | 'environment'>) {
  const url = new URL(baseUrl);
  if (!isLoopbackHost(url.hostname))
    return `hedge speaks only https:// to ${url.hostname} (plain http:// goes to loopback addresses only): check the base URL's host and port.`;
  if (environment === 'live')
    return `A live key goes over https:// only (plain http:// to this machine is for test keys and the simulator): check the base URL's port, or use a test key against a plain-HTTP server.`;
  return `If the server speaks plain HTTP (as \`hedge sandbox serve\` does without --tls), use ${baseUrl.replace(/^https:/i, 'http:')} as the base URL: plain http:// is allowed to loopback addresses.`;
}

// Retries: how many, how far apart, and what an answer may ask for.
export const DEFAULT_RETRY_POLICY = {
  /** Attempts in all, the first included. */
  maxAttempts: 5,
  baseDelayMs: 300,
  maxDelayMs: 5_000,
  /** No retry is started once this much time has gone by since the first attempt. */
  maxTotalMs: 30_000,
  /** A Retry-After longer than this is not waited out: the error is reported instead. */
  maxRetryAfterMs: 30_000,
  /** How long a write refused for a conflict that names its Retry-After (another change landing on the side first) keeps being sent again: as long as a wait for its own landing would last. */
  maxConflictWaitMs: 120_000,
};

export type RetryPolicy = typeof DEFAULT_RETRY_POLICY;

/** Exponential backoff with "equal jitter": half fixed, half random, so clients spread out. */
export function backoffDelayMs(policy: RetryPolicy, attempt: number, random = Math.random) {
  const exponential = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.round(exponential / 2 + random() * (exponential / 2));
}

/** Retry-After is delta-seconds or an HTTP date (RFC 9110 §10.2.3); anything else (`-5`, `soon`) is taken as absent, so the
 * usual backoff applies: a date names its month (`Sun, 06 Nov 1994 08:49:37 GMT`), where Date.parse would read `-5` as a
 * year long gone and retry at once. */
export function parseRetryAfterMs(header: string | undefined, nowMs: number) {
  if (!header) return;
  const trimmed = header.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  if (!/\b(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b/i.test(trimmed)) return;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
}

/** The wait until a rate limit resets, as its headers announce it: `RateLimit-Reset` or `X-RateLimit-Reset` (seconds, or
 * a time in epoch seconds, as GitHub sends), or the IETF draft's `RateLimit` — `limit=8, remaining=0, reset=2`, or per
 * policy `"burst";r=0;t=2` (the longest reset of the policies used up). */
export function rateLimitResetMs(headers: Readonly<Record<string, string | undefined>>, nowMs: number) {
  const draft = headers.ratelimit ?? '';
  const spent = draft
    .split(',')
    .filter((policy) => /;\s*r=0\s*(;|$)/.test(policy))
    .map((policy) => /;\s*t=(\d+)\s*(;|$)/.exec(policy)?.[1]);
  const raw = draft.includes(';')
    ? spent.reduce<string | undefined>((longest, t) => (Number(t) > Number(longest ?? -1) ? t : longest), undefined)
    : (/(?:^|[,\s])reset=(\d+)\s*(,|$)/i.exec(draft)?.[1] ??
      headers['ratelimit-reset'] ??
      headers['x-ratelimit-reset']);
  if (raw === undefined || !/^\s*\d+\s*$/.test(raw)) return;
  const value = Number(raw);
  return value > 1e9 ? Math.max(0, value * 1000 - nowMs) : value * 1000;
}

type RetryReason = 'network' | 'server-error' | 'rate-limited' | 'in-flight' | 'conflict';
