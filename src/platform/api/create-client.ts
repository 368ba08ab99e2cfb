// Turns resolved credentials and settings into a ready client.
import type { ResolvedCredentials } from '../config/credentials.js';
import type { Env } from '../config/credentials.js';
import { VERSION } from '../../core/version.js';
import { HedgeClient, type LearnedWire } from './client.js';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from './retry-policy.js';
import { Transport, type Clock, type HttpConnections, type ObservedAnswer } from './transport.js';
import type { WireSettings } from './wire/unspecified.js';

const DEFAULT_CONNECT_TIMEOUT_MS = 5_000;
const DEFAULT_REQUEST_TIMEOUT_MS = 15_000;

export function createClient(input: {
  /** The connections requests go over, owned (and closed) by whoever built them: the runtime context. */
  connections: HttpConnections;
  credentials: ResolvedCredentials;
  env: Env;
  clock: Clock;
  deadline?: number;
  /** The --timeout the deadline comes from, in seconds (named in timeout errors). */
  timeoutSeconds?: number;
  signal?: AbortSignal;
  requestTimeoutSeconds?: number;
  retry?: Partial<RetryPolicy>;
  log?: (line: string) => void;
  wire?: WireSettings;
  warn?: (text: string) => void;
  /** A wire name learned from the server: kept by the runtime (runtime/wire-memory.ts). */
  learn?: (learned: LearnedWire) => void;
  /** Sees every answer (`hedge doctor`). */
  observe?: (answer: ObservedAnswer) => void;
}): HedgeClient {
  const { env } = input;
  return new HedgeClient(
    new Transport({
      connections: input.connections,
      baseUrl: input.credentials.baseUrl,
      localSocket: input.credentials.localSocket,
      apiKey: input.credentials.apiKey,
      userAgent: `hedge-cli/${VERSION} (node ${process.version}; ${process.platform})`,
      caFile: input.credentials.caFile,
      nodeExtraCaCerts: env.NODE_EXTRA_CA_CERTS || undefined,
      connectTimeoutMs: DEFAULT_CONNECT_TIMEOUT_MS,
      requestTimeoutMs:
        input.requestTimeoutSeconds !== undefined ? input.requestTimeoutSeconds * 1000 : DEFAULT_REQUEST_TIMEOUT_MS,
      // '' rather than undefined: the transport would otherwise read process.env behind the context's back.
      proxy: {
        httpsProxy: env.HTTPS_PROXY ?? env.https_proxy ?? '',
        httpProxy: env.HTTP_PROXY ?? env.http_proxy ?? '',
        noProxy: env.NO_PROXY ?? env.no_proxy ?? '',
      },
      retry: { ...DEFAULT_RETRY_POLICY, ...input.retry },
      clock: input.clock,
      deadline: input.deadline,
      deadlineTotalMs: input.timeoutSeconds !== undefined ? input.timeoutSeconds * 1000 : undefined,
      signal: input.signal,
      log: input.log,
      observe: input.observe,
      maxAnswerBytes: maxAnswerBytes(env),
    }),
    { wire: input.wire, warn: input.warn, learn: input.learn, log: input.log },
  );
}

/** HEDGE_MAX_ANSWER_MB: the answer size cap in MiB (default 64). */
function maxAnswerBytes(env: Env) {
  const mb = Number(env.HEDGE_MAX_ANSWER_MB);
  return Number.isFinite(mb) && mb > 0 ? mb * 1024 * 1024 : undefined;
}
