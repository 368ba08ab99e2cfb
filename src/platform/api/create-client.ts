import type { ResolvedCredentials } from '../config/credentials.js';
import type { Env } from '../config/env.js';
import { parseDecimal } from '../../core/input.js';
import { VERSION } from '../../core/version.js';
import { hedgeClient, type ClientOptions } from './client.js';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from './retry-policy.js';
import { createTransport, type TransportConfig } from './transport.js';

const DEFAULT_CONNECT_TIMEOUT_MS = 5_000;
const DEFAULT_REQUEST_TIMEOUT_MS = 15_000;

export function createClient({
  credentials,
  env,
  timeoutSeconds,
  requestTimeoutSeconds,
  retry,
  wire,
  warn,
  learn,
  pageSizeLearned,
  seen,
  ...transport
}: ClientOptions &
  Pick<TransportConfig, 'connections' | 'clock' | 'deadline' | 'signal' | 'observe' | 'log'> & {
    credentials: ResolvedCredentials;
    env: Env;
    /** The --timeout the deadline comes from, in seconds (named in timeout errors). */
    timeoutSeconds?: number;
    requestTimeoutSeconds?: number;
    retry?: Partial<RetryPolicy>;
  }) {
  return hedgeClient(
    createTransport({
      // The connections requests go over are owned (and closed) by whoever built them: the runtime context.
      ...credentials,
      ...transport,
      userAgent: `hedge-cli/${VERSION} (node ${process.version}; ${process.platform})`,
      nodeExtraCaCerts: env.NODE_EXTRA_CA_CERTS || undefined,
      connectTimeoutMs: DEFAULT_CONNECT_TIMEOUT_MS,
      requestTimeoutMs: requestTimeoutSeconds !== undefined ? requestTimeoutSeconds * 1000 : DEFAULT_REQUEST_TIMEOUT_MS,
      // '' rather than undefined: the transport would otherwise read process.env behind the context's back.
      proxy: {
        httpsProxy: env.HTTPS_PROXY ?? env.https_proxy ?? '',
        httpProxy: env.HTTP_PROXY ?? env.http_proxy ?? '',
        noProxy: env.NO_PROXY ?? env.no_proxy ?? '',
      },
      retry: { ...DEFAULT_RETRY_POLICY, ...retry },
      deadlineTotalMs: timeoutSeconds && timeoutSeconds * 1000,
      maxAnswerBytes: maxAnswerBytes(env),
    }),
    { wire, warn, learn, pageSizeLearned, seen },
  );
}

/** HEDGE_MAX_ANSWER_MB in bytes, undefined when unset; a value that is not a size in MiB is refused. */
export function maxAnswerBytes(env: Env) {
  const raw = env.HEDGE_MAX_ANSWER_MB;
  if (!raw?.trim()) return;
  return (
    parseDecimal(raw, { name: 'HEDGE_MAX_ANSWER_MB', unit: 'MiB', min: 0, aboveMin: true, max: 4096, example: '64' }) *
    1024 *
    1024
  );
}
