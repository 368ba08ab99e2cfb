// Fault injection, so the CLI's retry, idempotency and timeout code is exercised over real sockets.

import { hashString, nextRandom } from '../prng.js';
import { ApiError, type EngineRequest, type EngineResponse, errorResponse } from './envelope.js';
import { isWrite } from './routes.js';

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
export function faultInjector(initial: Partial<FaultSettings>, seed: string) {
  let current = { ...NO_FAULTS };
  const prng = { state: hashString(`faults:${seed}`) };
  const random = () => nextRandom(prng, 'state');

  /** Settings not given (or undefined) stay as they are. */
  function update(partial: Partial<FaultSettings>) {
    const given = Object.entries(partial).filter(([key, value]) => key in NO_FAULTS && value !== undefined);
    const next: FaultSettings = { ...current, ...Object.fromEntries(given) };
    for (const share of ['fault5xx', 'fault429', 'dropAfterCommit'] as const)
      if (!(next[share] >= 0 && next[share] <= 1)) throw new Error(`${share} must be a share between 0 and 1`);
    const { next503RetryAfter: retry, nextError: error, nextOversized: oversized } = next;
    // Node refuses a header value with control characters only when the answer is written.
    if (retry && !/^[\x20-\x7e]+$/.test(retry.retryAfter))
      throw new Error('next503RetryAfter.retryAfter must be printable ASCII, e.g. "2" or an HTTP-date');
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
  function take<K extends 'nextLatency' | 'next503RetryAfter' | 'nextError' | 'nextMalformed' | 'nextOversized'>(
    key: K,
  ) {
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
    const retryAfter = take('next503RetryAfter')?.retryAfter;
    if (retryAfter)
      return answer(
        '503-retry-after',
        503,
        'service_unavailable',
        'service unavailable (injected)',
        { retry_after: retryAfter },
        { 'retry-after': retryAfter },
      );
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
