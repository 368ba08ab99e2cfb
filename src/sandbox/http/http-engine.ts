// The engine behind HTTP: a request authenticated, held to its key's rate and routed to its action, a write to its
// Idempotency-Key; the answer as status, headers and envelope. The server and the engine tests answer requests through
// this one class.

import { createBook } from '../book.js';
import { createEngineState, type EngineOptions } from '../engine-state.js';
import { parseDialect, wireDialect } from '../dialects.js';
import { DAY_MS } from '../market-model.js';
import { ApiError, type Answer, type EngineRequest, errorResponse, validationError } from './envelope.js';
import { isWrite, matchRoute } from './routes.js';

const TEST_KEY = /^[a-z]{2,8}_test_[A-Za-z0-9]{16,64}$/;
const LIVE_KEY = /^[a-z]{2,8}_live_[A-Za-z0-9]{16,64}$/;
/** Like common payment APIs: a key can be replayed for a day, then it may be reused freely. */
const IDEMPOTENCY_TTL_MS = DAY_MS;
const MAX_IDEMPOTENCY_KEY_LENGTH = 255;
const EXPIRY_COMPACTION_MIN = 1024;

const rateHeaders = (limit: number, remaining: number) => ({
  'x-ratelimit-limit': String(limit),
  'x-ratelimit-remaining': String(remaining),
});

export type HttpSandboxEngine = ReturnType<typeof createHttpEngine>;

export function createHttpEngine(options: EngineOptions, state = createEngineState(options.seed, options.dialect)) {
  if (state.version !== 1) throw new Error(`unsupported sandbox state version ${String(state.version)}`);
  if (options.dialect !== undefined && parseDialect(options.dialect) !== state.dialect)
    throw new Error(
      `this sandbox state speaks the ${state.dialect} dialect, not ${options.dialect}; start without a dialect to keep it, or from a fresh state for another`,
    );
  const accountIdsByKey = new Map<string, string>();
  const inFlight = new Set<string>();
  const buckets = new Map<string, { tokens: number; updatedMs: number }>();
  /**
   * Idempotency records in creation order, which is expiry order since sandbox time never runs backwards: expiring
   * them costs only the records that expire, not a walk over a day of keys.
   */
  let expiryQueue: { scope: string; createdAtMs: number }[] | undefined;
  let expiryHead = 0;
  const several = options.severalPerSide;
  /** The dialect's rules as this sandbox applies them (severalPerSide may override one). */
  const wire = {
    ...wireDialect(state.dialect),
    ...(several !== undefined && { hedgesPerSide: several ? ('several' as const) : ('one' as const) }),
    closedSettlingMs: options.closedSettlingMs ?? 0,
    historyMarkers: !options.unmarkedHistoryPages,
  };
  for (const key of options.apiKeys) {
    if (!TEST_KEY.test(key)) throw new Error('sandbox API keys must be test keys like hpk_test_<16-64 alphanumerics>');
    accountIdsByKey.set(key, options.knownAccountIds?.[key] ?? accountIdFor(key));
  }
  const book = createBook(state, options, wire.markets);

  /**
   * One request: its endpoint, who sends it, within its rate, at its time. A write honours Idempotency-Key: its
   * action runs at most once (a replay runs nothing). `lease`: the key scope this request holds in flight itself.
   */
  function handle(
    request: EngineRequest,
    nowMs: number,
    { realTimeMs, lease }: { realTimeMs?: number; lease?: string } = {},
  ) {
    try {
      const { handle, idempotent, params } = matchRoute(request.method, request.path);
      const principal = authenticate(request.headers.authorization);
      const rate = enforceRateLimit(principal.apiKey, realTimeMs ?? nowMs);
      const now = advanceTo(nowMs);
      const account = accountOf(principal.accountId);
      const act = () => handle({ book, account, nowMs: now, dialect: wire, request, params });
      /** A write that acts (not a replay, not refused) moves the state, and trailing views show it later. */
      function write() {
        const acted = () => {
          const result = act();
          engine.revision++;
          book.noteViewChange(account, now);
          return result;
        };
        const idempotency = idempotencyKey(request, account.id);
        if (!idempotency) return acted();
        const { key, scope } = idempotency;
        if (inFlight.has(scope) && lease !== scope)
          throw new ApiError(409, 'idempotency_in_flight', 'a request with this Idempotency-Key is still in progress', {
            idempotency_key: key,
          });
        // Same method, path and JSON body (key order ignored) is "the same request". A body that did not parse reads as
        // no body: neither is a request that acts, so neither is remembered.
        const digest = sha256(`${request.method} ${request.path} ${canonicalJson(request.body)}`, 'base64url');
        const existing = state.idempotency[scope];
        if (existing && now - existing.createdAtMs < IDEMPOTENCY_TTL_MS) {
          if (existing.fingerprintDigest !== digest)
            throw new ApiError(409, 'idempotency_key_reuse', 'this Idempotency-Key was used with a different request', {
              idempotency_key: key,
            });
          return { ...(JSON.parse(existing.bodyJson) as Answer), replayed: true };
        }
        // Only successes are remembered: a refused request did nothing, so retrying it may act.
        const result = acted();
        state.idempotency[scope] = {
          fingerprintDigest: digest,
          createdAtMs: now,
          // Flattened: JSON.stringify's string is a tree of pieces that would be kept as such for a day.
          bodyJson: Buffer.from(JSON.stringify(result)).toString(),
        };
        // Not built yet: building it later reads this record from the state with the others.
        expiryQueue?.push({ scope, createdAtMs: now });
        return result;
      }
      const { data, meta, replayed } = idempotent ? write() : act();
      const headers = { ...(replayed && { 'idempotent-replayed': 'true' }), ...rate };
      return { status: 200, headers, body: { data, error: null, meta } };
    } catch (error) {
      // A refusal goes out as the spec's error; anything else as a 500.
      if (error instanceof ApiError) return errorResponse(error);
      const message = error instanceof Error ? error.message : String(error);
      return errorResponse(new ApiError(500, 'internal_error', `sandbox error: ${message}`));
    }
  }

  /** Also expires day-old idempotency records; the time returned never moves backwards. */
  function advanceTo(nowMs: number) {
    const now = Math.max(nowMs, state.nowMs);
    if (book.processDueEvents(now) > 0) engine.revision++;
    if (expireIdempotency(now) > 0) engine.revision++;
    state.nowMs = now;
    return now;
  }

  function authenticate(authorization: string | undefined) {
    const match = authorization ? /^Bearer\s+(\S+)\s*$/i.exec(authorization) : null;
    if (!match) throw new ApiError(401, 'unauthorized', 'missing or malformed Authorization: Bearer <API key>');
    const apiKey = match[1];
    const accountId = accountIdsByKey.get(apiKey);
    if (accountId) return { apiKey, accountId };
    if (LIVE_KEY.test(apiKey)) throw new ApiError(401, 'live_key_refused', 'the sandbox accepts test keys only');
    throw new ApiError(401, 'unauthorized', 'unknown API key');
  }

  function accountOf(accountId: string) {
    if (!state.accounts[accountId]) engine.revision++;
    return book.account(accountId);
  }

  /** Token bucket: bursts up to one second's worth, then `rateLimit` per second; the rate headers of an answer. */
  function enforceRateLimit(apiKey: string, realTimeMs: number) {
    const limit = options.rateLimit;
    if (limit === undefined || limit <= 0) return;
    const bucket = buckets.get(apiKey) ?? { tokens: limit, updatedMs: realTimeMs };
    const elapsed = Math.max(0, realTimeMs - bucket.updatedMs);
    bucket.tokens = Math.min(limit, bucket.tokens + (elapsed * limit) / 1000);
    bucket.updatedMs = realTimeMs;
    buckets.set(apiKey, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return rateHeaders(limit, Math.floor(bucket.tokens));
    }
    // The epsilon keeps float dust (0.6000000001 tokens missing) from adding a millisecond.
    const retryAfterMs = Math.ceil(((1 - bucket.tokens) * 1000) / limit - 1e-6);
    throw new ApiError(
      429,
      'rate_limited',
      `more than ${limit} requests per second for this key; retry later`,
      { retry_after_ms: retryAfterMs },
      { 'retry-after': String(Math.max(1, Math.ceil(retryAfterMs / 1000))), ...rateHeaders(limit, 0) },
    );
  }

  function expireIdempotency(nowMs: number) {
    const queue = (expiryQueue ??= Object.entries(state.idempotency)
      .map(([scope, record]) => ({ scope, createdAtMs: record.createdAtMs }))
      .sort((a, b) => a.createdAtMs - b.createdAtMs));
    let expired = 0;
    while (expiryHead < queue.length && nowMs - queue[expiryHead].createdAtMs >= IDEMPOTENCY_TTL_MS) {
      const { scope, createdAtMs } = queue[expiryHead++];
      // A key reused after it expired has a newer record (and a later entry): leave that one.
      if (state.idempotency[scope]?.createdAtMs === createdAtMs) {
        delete state.idempotency[scope];
        expired++;
      }
    }
    if (expiryHead >= EXPIRY_COMPACTION_MIN && expiryHead * 2 >= queue.length) {
      expiryQueue = queue.slice(expiryHead);
      expiryHead = 0;
    }
    return expired;
  }

  const engine = {
    state,
    fillDelayMs: book.config.fillDelayMs,
    wire,
    book,
    /** Counts the changes of state since the last save (its host sets it back to 0 when it saves). */
    revision: 0,
    handle,
    releaseIdempotencyKey: (lease: string) => inFlight.delete(lease),
    /** Holds a write's Idempotency-Key in flight during injected latency: its scope (undefined: nothing to hold). */
    acquireIdempotencyKey(request: EngineRequest) {
      try {
        if (!isWrite(request.method, request.path)) return;
        const principal = authenticate(request.headers.authorization);
        const scope = idempotencyKey(request, principal.accountId)?.scope;
        if (scope === undefined) return;
        if (inFlight.has(scope)) return 'in-flight';
        inFlight.add(scope);
        return scope;
      } catch {
        // Refused later by handle(), with nothing held.
      }
    },
    /** Test and bench helper: `count` past hedges of the key's account (book.seedPastHedges). */
    seedHedges(apiKey: string, count: number, status: 'closed' | 'failed', nowMs: number) {
      const { accountId } = authenticate(`Bearer ${apiKey}`);
      const now = advanceTo(nowMs);
      const ids = book.seedPastHedges(accountOf(accountId), count, status, now);
      engine.revision++;
      return ids;
    },
    advanceTo,
  };
  return engine;
}

function accountIdFor(apiKey: string) {
  return `acct_${sha256(apiKey, 'hex').slice(0, 16)}`;
}

// node:crypto is loaded by the first hash: a request that hashes nothing (a quote, a list, every request of the
// demo's key) never loads it.
function sha256(text: string, encoding: 'hex' | 'base64url') {
  return process.getBuiltinModule('node:crypto').createHash('sha256').update(text).digest(encoding);
}

/** The request's Idempotency-Key, if it sends one, and its scope: the account's record of that key. */
function idempotencyKey({ headers }: EngineRequest, accountId: string) {
  const key = headers['idempotency-key'];
  if (key === undefined) return;
  if (!key.length || key.length > MAX_IDEMPOTENCY_KEY_LENGTH)
    throw validationError('Idempotency-Key', `must be 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} characters`);
  // Joined, not a template: the expiry queue keeps this string for a day, and V8 keeps a string made by
  // concatenation as a tree of its parts (book.ts, hex64).
  return { key, scope: ['test', accountId, key].join(':') };
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    const entries = Object.keys(record)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'undefined';
}
