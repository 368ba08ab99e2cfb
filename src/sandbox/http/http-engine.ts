// The engine behind HTTP: a request authenticated, held to its key's rate and routed to its action, a write to its
// Idempotency-Key; the answer as status, headers and envelope; the endpoints, their input checks and wire shapes. The
// server and the engine tests answer requests through this one engine.

import * as z from 'zod/mini';
import { canonicalJson } from '../../core/files/canonical-json.js';
import { type Book, type OpenRequest, createBook } from '../book.js';
import { keptReference, parseDialect, renderPrices, wireDialect, wireRecord } from '../dialects.js';
import {
  HEDGE_STATUSES,
  type AccountState,
  type ChangeAction,
  type EngineOptions,
  type HedgeState,
  type HistoryRecord,
  type PositionBasis,
  compareHistoryRecords,
  createEngineState,
  partitionPoint,
  toIso,
} from '../engine-state.js';
import {
  ApiError,
  type Answer,
  type EngineRequest,
  errorResponse,
  notFoundError,
  succeeded,
  validationError,
} from './envelope.js';
import {
  DAY_MS,
  MARKET_MODEL,
  type MarketDefinition,
  type Side,
  dailyCarryRatePct,
  grossPnlUsd,
  marketHeadroomUsd,
  platformFeeUsdc,
  reductionClosesFully,
  requiredMarginUsdc,
  roundExecutionPrice,
  roundMoney,
  roundRatePct,
} from '../market-model.js';

const TEST_KEY = /^[a-z]{2,8}_test_[A-Za-z0-9]{16,64}$/;
const LIVE_KEY = /^[a-z]{2,8}_live_[A-Za-z0-9]{16,64}$/;
/** Like common payment APIs: a key can be replayed for a day, then it may be reused freely. */
const IDEMPOTENCY_TTL_MS = DAY_MS;
const MAX_IDEMPOTENCY_KEY_LENGTH = 255;
const EXPIRY_COMPACTION_MIN = 1024;

/** The rate-limit headers of an answer: `resetS`, the seconds until a request is taken again (a 429's wait). */
const rateHeaders = (
  limit: number,
  remaining: number,
  resetS: number,
  form: EngineOptions['rateLimitHeaders'],
): Record<string, string> =>
  form === 'draft'
    ? { ratelimit: `limit=${limit}, remaining=${remaining}, reset=${resetS}`, 'ratelimit-policy': `${limit};w=1` }
    : { 'x-ratelimit-limit': String(limit), 'x-ratelimit-remaining': String(remaining) };

export type HttpSandboxEngine = ReturnType<typeof createHttpEngine>;
/** The dialect as a sandbox applies it, with the options beside it (engine-state.ts EngineOptions). */
type Wire = HttpSandboxEngine['wire'];

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
    emptyHistoryPages: options.emptyHistoryPages ?? 0,
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
      return errorResponse(error, 'sandbox error: ');
    }
  }

  /** Also expires day-old idempotency records; the time returned never moves backwards. */
  function advanceTo(nowMs: number) {
    const now = Math.max(nowMs, state.nowMs);
    if (book.processDueEvents(now) + expireIdempotency(now) > 0) engine.revision++;
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
    bucket.tokens = Math.min(limit, bucket.tokens + (Math.max(0, realTimeMs - bucket.updatedMs) * limit) / 1000);
    bucket.updatedMs = realTimeMs;
    buckets.set(apiKey, bucket);
    const form = options.rateLimitHeaders;
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return rateHeaders(limit, Math.floor(bucket.tokens), bucket.tokens >= 1 ? 0 : 1, form);
    }
    // The epsilon keeps float dust (0.6000000001 tokens missing) from adding a millisecond.
    const retryAfterMs = Math.ceil(((1 - bucket.tokens) * 1000) / limit - 1e-6);
    const waitS = Math.max(1, Math.ceil(retryAfterMs / 1000));
    throw new ApiError(
      429,
      'rate_limited',
      `more than ${limit} requests per second for this key; retry later`,
      { retry_after_ms: retryAfterMs },
      { ...(form !== 'draft' && { 'retry-after': String(waitS) }), ...rateHeaders(limit, 0, waitS, form) },
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
        const scope = idempotencyKey(request, authenticate(request.headers.authorization).accountId)?.scope;
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

// Reading and checking a request's input.

/** Marks a request body that arrived but was not valid JSON (the server parses, the engine judges). */
export const INVALID_JSON = Symbol('invalid-json');

type Query = Record<string, string>;

const MAX_CLIENT_REFERENCE_LENGTH = 128;
const MAX_MARKET_LENGTH = 32;
const MAX_PAGE_SIZE = 500;

/** A body's fields, each schema's error what the field must be: a 400 names the first (in the shape's order) that is
 * missing or not so. */
function readFields<S extends z.core.$ZodLooseShape>(body: unknown, shape: S) {
  if (body === INVALID_JSON) throw new ApiError(400, 'invalid_json', 'request body is not valid JSON');
  const read = z.looseObject(shape).safeParse(body);
  if (read.success) return read.data;
  const { path, message } = read.error.issues[0];
  const field = path[0] as string | undefined;
  if (field === undefined) throw new ApiError(400, 'invalid_json', 'request body must be a JSON object');
  throw validationError(field, (body as Record<string, unknown>)[field] === undefined ? 'is required' : message);
}

const shortText = (max: number) =>
  z
    .string({ error: `must be a non-empty string of at most ${max} characters` })
    .check(z.minLength(1), z.maxLength(max));

const amount = z.number({ error: 'must be a positive finite number' }).check(z.positive());

/** The side a change names; a quote and an open also carry a notional and a tenor. */
const SIDE_FIELDS = {
  market: shortText(MAX_MARKET_LENGTH),
  side: z.enum(['buy', 'sell'], { error: 'must be buy or sell' }),
};
const HEDGE_FIELDS = {
  ...SIDE_FIELDS,
  notional_usd: amount,
  tenor_days: z.literal(MARKET_MODEL.tenorsDays, { error: `must be one of ${MARKET_MODEL.tenorsDays.join(', ')}` }),
};

/** An open's reference (null read as none); a quote's is not read. */
const REFERENCE = { open: z.nullish(shortText(MAX_CLIENT_REFERENCE_LENGTH)), quote: z.transform(() => undefined) };

/** A quote's or an open's terms, checked in this order. */
function readHedgeTerms(body: unknown, kind: keyof typeof REFERENCE) {
  const { market, side, notional_usd, tenor_days, client_reference } = readFields(body, {
    ...HEDGE_FIELDS,
    client_reference: REFERENCE[kind],
  });
  return {
    market,
    side,
    notionalUsd: notional_usd,
    tenorDays: tenor_days,
    clientReference: client_reference ?? undefined,
  };
}

/** The page size under the dialect's parameter name (`limit` in the reference dialect). */
function readPageSize(query: Query, dialect: Wire) {
  const parameter = dialect.pageSizeParameter;
  const raw = query[parameter];
  if (raw === undefined) return dialect.defaultPageSize;
  const size = /^\d{1,6}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(size >= 1 && size <= MAX_PAGE_SIZE))
    throw validationError(parameter, `must be an integer from 1 to ${MAX_PAGE_SIZE}`);
  return size;
}

/** A strict dialect refuses a list's query parameter it does not know (400 naming it); the others ignore it. */
function checkListQuery(query: Query, dialect: Wire, ...known: string[]) {
  if (dialect.unknownListQuery !== 'refused') return;
  known.push(
    dialect.pageSizeParameter,
    ...(dialect.paging === 'cursor' ? ['cursor'] : dialect.paging === 'numbers' ? ['page'] : []),
  );
  const unknown = Object.keys(query).find((name) => !known.includes(name));
  if (unknown !== undefined)
    throw validationError(unknown, `is not a query parameter of this endpoint (known: ${known.join(', ')})`, {
      allowed: known,
    });
}

// Wire shapes of the resources (spec section 2 and src/platform/api/wire-contract.md).

/** The status a client sees: in some dialects an early close leaves the hedge `filled`. */
function wireStatus(hedge: HedgeState, dialect: Wire, nowMs: number) {
  if (hedge.closeReason === 'closed')
    return nowMs - hedge.closedAtMs! < dialect.closedSettlingMs ? 'settling' : dialect.statusAfterEarlyClose;
  const change = hedge.pendingChange;
  // Closing: a close, or a reduce of about the whole notional, has been accepted and has not landed yet.
  if (
    hedge.status === 'filled' &&
    dialect.closingStatus !== null &&
    change &&
    (change.action === 'close' ||
      (change.action === 'reduce' && reductionClosesFully(hedge.notionalUsd, change.notionalUsd)))
  )
    return dialect.closingStatus;
  return hedge.status;
}

function hedgeView(hedge: HedgeState, dialect: Wire, nowMs: number) {
  const status = wireStatus(hedge, dialect, nowMs);
  return {
    id: hedge.id,
    ...(hedge.clientReference !== undefined && { client_reference: hedge.clientReference }),
    market: hedge.market,
    side: hedge.side,
    // Settling after an early close (closedSettlingMs): its notional already gone.
    notional_usd: status === 'settling' && hedge.closeReason === 'closed' ? 0 : roundMoney(hedge.notionalUsd),
    tenor_days: hedge.tenorDays,
    status,
    order_tx_hash: hedge.orderTxHash,
    ...(hedge.fillTxHash !== undefined && { fill_tx_hash: hedge.fillTxHash }),
    ...(hedge.struckRate !== undefined && { struck_rate: hedge.struckRate }),
    units: roundMoney(hedge.notionalUsd),
    order_key: hedge.orderKey,
    opened_at: toIso(hedge.openedAtMs),
    ...(hedge.filledAtMs !== undefined && { filled_at: toIso(hedge.filledAtMs) }),
    maturity_at: toIso(hedge.maturityAtMs),
    // A hedge shown as still filled after its close carries no closing time either.
    ...(hedge.closedAtMs !== undefined && status === 'closed' && { closed_at: toIso(hedge.closedAtMs) }),
  };
}

/**
 * One line per open side (spec: "aggregated per side"), and the account's figures, as the views show them at `nowMs`
 * (with trailing views, all of it trails).
 */
function positionViews(book: Book, account: AccountState, nowMs: number) {
  const { asOfMs, figures, sides } = book.shownBook(account, nowMs);
  return {
    figures,
    lines: sides.map((hedges) => aggregateSide(hedges.map((hedge) => hedgeLine(book, hedge, asOfMs)))),
  };
}

type PositionLine = ReturnType<typeof hedgeLine>;

function hedgeLine(book: Book, hedge: PositionBasis, nowMs: number) {
  const entry = hedge.entryPrice!;
  const mark = book.midPrice(hedge.market, nowMs);
  return {
    market: hedge.market,
    side: hedge.side,
    hedge_id: hedge.id,
    notional_usd: roundMoney(hedge.notionalUsd),
    units: roundMoney(hedge.notionalUsd),
    entry_price: entry,
    mark_price: mark,
    ...money(
      roundMoney(grossPnlUsd(hedge.side, hedge.notionalUsd, entry, mark)),
      roundMoney(book.accruedCarryAt(hedge, nowMs)),
      platformFeeUsdc(hedge.notionalUsd),
      hedge.marginUsdc,
    ),
    opened_at: toIso(hedge.openedAtMs),
    maturity_at: toIso(hedge.maturityAtMs),
  };
}

/** A line's money: its P&L net of carry, and what closing it returns (margin plus net P&L, less the close fee). */
function money(gross: number, carry: number, closeFee: number, margin: number) {
  const net = roundMoney(gross - carry);
  return {
    gross_pnl_usd: gross,
    accrued_carry_usdc: carry,
    net_pnl_usd: net,
    close_fee_usdc: closeFee,
    margin_usdc: margin,
    net_margin_usd: roundMoney(margin + net - closeFee),
  };
}

/**
 * A side's one line (several hedges where a dialect allows it): amounts summed from each hedge's rounded figures, so
 * `net_margin_usd` is still exactly what closing them all returns; entry weighted by notional; the identity (id,
 * times) of the newest hedge, the one add acts on. A lone hedge's line comes out as it went in.
 */
function aggregateSide(lines: PositionLine[]) {
  const total = (key: keyof ReturnType<typeof money> | 'notional_usd' | 'units') =>
    roundMoney(lines.reduce((sum, line) => sum + line[key], 0));
  const notional = total('notional_usd');
  const weightedEntry = lines.reduce((sum, line) => sum + line.entry_price * line.notional_usd, 0) / notional;
  return {
    ...lines[lines.length - 1],
    notional_usd: notional,
    units: total('units'),
    entry_price: roundExecutionPrice(weightedEntry),
    ...money(total('gross_pnl_usd'), total('accrued_carry_usdc'), total('close_fee_usdc'), total('margin_usdc')),
  };
}

/** The account as of the same moment as the positions list. */
function accountView(book: Book, account: AccountState, nowMs: number) {
  const { figures, lines: positions } = positionViews(book, account, nowMs);
  return {
    balance_usdc: figures.balanceUsdc,
    margin_in_use_usdc: figures.marginInUseUsdc,
    open_exposure_usd: figures.openExposureUsd,
    unrealized_pnl_usd: roundMoney(positions.reduce((sum, position) => sum + position.net_pnl_usd, 0)),
    open_positions: positions.length,
    available_exposure_usd: book.exposureLeftUsd(figures.openExposureUsd),
    exposure_cap_usd: book.config.exposureCapUsd,
  };
}

function marketView(book: Book, { market, status }: MarketDefinition, nowMs: number) {
  const openInterest = book.totalOpenInterest(market);
  const bySide = (value: (side: Side) => number) => ({ buy: value('buy'), sell: value('sell') });
  return {
    market,
    status,
    price: book.midPrice(market, nowMs),
    available_capacity_usd: bySide((side) => book.availableCapacityUsd(market, side)),
    net_rate_daily_pct: bySide((side) => dailyCarryRatePct(openInterest, side)),
  };
}

function quoteView(book: Book, { market, side, notionalUsd, tenorDays }: OpenRequest, nowMs: number) {
  const quote = book.quote(market, side, notionalUsd, nowMs);
  const dailyCarry = (notionalUsd * quote.dailyCarryRatePct) / 100;
  return {
    market,
    side,
    notional_usd: notionalUsd,
    tenor_days: tenorDays,
    maturity: toIso(nowMs + tenorDays * book.config.dayMs),
    pricing: {
      market_price: quote.marketPrice,
      execution_price: quote.executionPrice,
      price_impact_usd: quote.priceImpactUsd,
    },
    carry: {
      daily_usdc: roundMoney(dailyCarry),
      daily_rate_pct: quote.dailyCarryRatePct,
      total_usdc: roundMoney(dailyCarry * tenorDays),
      total_rate_pct: roundRatePct(quote.dailyCarryRatePct * tenorDays),
    },
    upfront: {
      required_margin_usdc: quote.requiredMarginUsdc,
      platform_fee_usdc: quote.platformFeeUsdc,
      total_upfront_usdc: roundMoney(quote.requiredMarginUsdc + quote.platformFeeUsdc),
    },
  };
}

// The twelve endpoints: each reads and checks its input, asks the book to act, renders the result.

/** What an action works on: the book, the caller's account, the sandbox time and the dialect; its request. */
interface RouteContext {
  book: Book;
  account: AccountState;
  nowMs: number;
  dialect: Wire;
  request: EngineRequest;
  params: string[];
}

const ONCHAIN = { source: 'onchain' };

const marketNames = (book: Book) => book.markets.map((listed) => listed.market);

/** A listed market (`open`: and open to new notional), else the spec's refusal. */
function requireMarket(book: Book, market: string, open = true) {
  const definition = book.findMarket(market);
  if (!definition)
    throw new ApiError(400, 'market_not_available', `market ${market} is not available to this account`, {
      market,
      allowed_markets: marketNames(book),
    });
  if (open && definition.status !== 'open')
    throw new ApiError(400, 'market_disabled', `market ${market} is ${definition.status}`, {
      market,
      status: definition.status,
    });
  return definition;
}

/** Cap first: a notional over the account's cap is `exposure_exceeded` whatever the market holds. */
function requireRoomFor(book: Book, account: AccountState, market: string, side: Side, notionalUsd: number) {
  const availableExposure = book.exposureLeftUsd(book.accountFigures(account).openExposureUsd);
  if (notionalUsd > availableExposure)
    throw new ApiError(400, 'exposure_exceeded', 'this would push the account over its aggregate exposure cap', {
      available_exposure_usd: availableExposure,
      requested_usd: notionalUsd,
      exposure_cap_usd: book.config.exposureCapUsd,
    });
  if (notionalUsd > marketHeadroomUsd(book.totalOpenInterest(market), side))
    throw new ApiError(400, 'capacity_exceeded', `not enough ${side} capacity on ${market}`, {
      side,
      available_capacity_usd: book.availableCapacityUsd(market, side),
      requested_usd: notionalUsd,
    });
  const upfront = roundMoney(requiredMarginUsdc(notionalUsd) + platformFeeUsdc(notionalUsd));
  if (upfront > account.balanceUsdc)
    throw new ApiError(400, 'insufficient_balance', 'the balance does not cover margin plus fee', {
      balance_usdc: account.balanceUsdc,
      required_usdc: upfront,
    });
}

function getPrices({ book, request, nowMs, dialect }: RouteContext) {
  const symbols = request.query.symbols?.split(',').map((symbol) => symbol.trim());
  const timestamp = toIso(nowMs);
  const prices = (symbols?.filter(Boolean) ?? marketNames(book)).map((market) => ({
    market,
    price: book.midPrice(requireMarket(book, market, false).market, nowMs),
    timestamp,
  }));
  return succeeded(renderPrices[dialect.pricesShape](prices), ONCHAIN);
}

/**
 * The answer of a list: a page of the items `keep` keeps, newest first, each as `show` renders it; the scan stops at
 * the first item past the page (a next page exists).
 */
function page<T>(
  items: readonly T[],
  request: EngineRequest,
  dialect: Wire,
  show: (item: T) => unknown,
  keep = (_item: T) => true,
) {
  const pageSize = readPageSize(request.query, dialect);
  if (dialect.paging === 'numbers') return numberedPage(items.filter(keep), request, pageSize, show);
  // An opaque cursor: `c1.` and, in base64url, `at:` and the position of the next page's first item in the list.
  const cursor = dialect.paging === 'cursor' ? request.query.cursor : undefined;
  const position =
    cursor?.startsWith('c1.') && /^at:(\d{1,9})$/.exec(Buffer.from(cursor.slice(3), 'base64url').toString());
  if (cursor !== undefined && !position) throw validationError('cursor', 'is not a cursor this server gave out');
  const skip = position ? Number(position[1]) : 0;
  const kept = [];
  let seen = 0;
  let more = false;
  for (const item of items) {
    if (!keep(item) || seen++ < skip) continue;
    if ((more = kept.length === pageSize)) break;
    kept.push(item);
  }
  const next = `c1.${Buffer.from(`at:${skip + kept.length}`).toString('base64url')}`;
  return succeeded(
    kept.map(show),
    dialect.paging === 'cursor' ? { page_size: pageSize, next_cursor: more ? next : null } : {},
  );
}

/** Page `?page=` (zero-based) of `size` items, with the meta a Spring Data server gives (pages and items counted whole). */
function numberedPage<T>(kept: readonly T[], request: EngineRequest, size: number, show: (item: T) => unknown) {
  const raw = request.query.page ?? '0';
  if (!/^\d{1,9}$/.test(raw)) throw validationError('page', 'must be a whole number from 0 (the first page)');
  const page = Number(raw);
  return succeeded(kept.slice(page * size, (page + 1) * size).map(show), {
    page,
    size,
    total_pages: Math.ceil(kept.length / size),
    total_elements: kept.length,
  });
}

function listHedges({ book, account, request, nowMs, dialect }: RouteContext) {
  checkListQuery(request.query, dialect, 'status', 'client_reference');
  // The spec's five statuses, and the dialect's own.
  const allowed = [
    ...new Set([...HEDGE_STATUSES, dialect.closingStatus, dialect.closedSettlingMs > 0 && 'settling']),
  ].filter((one) => typeof one === 'string');
  const { status } = request.query;
  if (status !== undefined && !allowed.includes(status))
    throw validationError('status', `must be one of ${allowed.join(', ')}`);
  const clientReference = keptReference(request.query.client_reference, dialect);
  return page(
    book.hedgesNewestFirst(account),
    request,
    dialect,
    (hedge) => hedgeView(hedge, dialect, nowMs),
    (hedge) =>
      book.recordShown(hedge, nowMs) &&
      (status === undefined || wireStatus(hedge, dialect, nowMs) === status) &&
      (clientReference === undefined || hedge.clientReference === clientReference),
  );
}

function getHedge({ book, account, params: [id], nowMs, dialect }: RouteContext) {
  // Own records only: `__proto__` or `constructor` is no hedge of anyone's.
  const hedge = Object.hasOwn(account.hedges, id) ? account.hedges[id] : undefined;
  if (!hedge || !book.recordShown(hedge, nowMs))
    throw new ApiError(404, 'hedge_not_found', `hedge ${id} is not one of yours`, { hedge_id: id });
  return succeeded(hedgeView(hedge, dialect, nowMs));
}

/** The history is kept oldest first (compareHistoryRecords), so the newest page is its tail, read backwards. */
function getHistory({ book, account, request, nowMs, dialect }: RouteContext) {
  const pages = dialect.historyPages;
  const shown = book.shownHistoryLength(account, nowMs);
  const { history } = account;
  const wire = (record: HistoryRecord) => wireRecord(record, dialect.historyFields, dialect);
  const byTime = pages === 'time';
  const parameter = byTime ? 'before' : 'cursor';
  checkListQuery(request.query, dialect, ...(pages ? [parameter] : []));
  // A dialect that pages every list its own way (gamma), or that sends history in one page.
  if (!pages) return page(history.slice(0, shown).reverse(), request, dialect, wire);
  // Unmarked, the page size asked is not read either: nothing in an answer says more may follow.
  const pageSize =
    !dialect.historyMarkers && byTime
      ? TIME_PAGE
      : Math.min(readPageSize(request.query, dialect), byTime ? TIME_PAGE : Infinity);
  const raw = request.query[parameter];
  const { below, emptied } =
    raw === undefined ? { emptied: 0 } : byTime ? { below: readBefore(raw), emptied: 0 } : readHistoryCursor(raw);
  // A page over records that it then leaves out: empty, naming the next page at the same place.
  if (!byTime && emptied < dialect.emptyHistoryPages && shown > 0)
    return succeeded([], { next_cursor: historyCursor(below, emptied + 1) });
  // The records before `below` are a prefix (of those shown, too).
  let next = below ? partitionPoint(shown, (index) => compareHistoryRecords(history[index], below) < 0) : shown;
  const served = [];
  while (next > 0 && served.length < pageSize) served.push(wire(history[--next]));
  const more = next > 0 && served.length > 0;
  if (byTime)
    return succeeded(served, dialect.historyMarkers ? { next_before: more ? history[next].closed_at : null } : {});
  return succeeded(served, more ? { next_cursor: historyCursor(history[next], 0) } : {});
}

/** The position of the next record as a cursor: its close time and id (the order history is kept in; none: the
 * newest), and how many empty pages were given there (emptyHistoryPages). */
function historyCursor(record: HistoryRecord | undefined, emptied: number) {
  const at = record ? [record.closed_at, record.hedge_id] : [null, null];
  return Buffer.from(JSON.stringify(emptied ? [...at, emptied] : at)).toString('base64url');
}

/** The most records a page by time holds, whatever page size is asked. */
const TIME_PAGE = 40;

function readHistoryCursor(raw: string) {
  try {
    const [closedAt, hedgeId, emptied = 0] = JSON.parse(Buffer.from(raw, 'base64url').toString()) as [
      unknown,
      unknown,
      number,
    ];
    if (!Number.isSafeInteger(emptied)) throw new Error('not a count');
    if (closedAt === null && hedgeId === null) return { emptied };
    if (typeof closedAt === 'string' && typeof hedgeId === 'string')
      return { below: { closed_at: closedAt, hedge_id: hedgeId } as HistoryRecord, emptied };
  } catch {
    // Refused below.
  }
  throw validationError('cursor', 'is not a cursor this server handed out (meta.next_cursor)');
}

/** `before`: a time; the records closed strictly before it. */
function readBefore(raw: string) {
  const ms = Date.parse(raw);
  if (!Number.isFinite(ms)) throw validationError('before', 'must be a time (ISO 8601)');
  return { closed_at: toIso(ms), hedge_id: '' } as HistoryRecord;
}

function openHedge({ book, account, request, nowMs, dialect }: RouteContext) {
  const terms = readHedgeTerms(request.body, 'open');
  const clientReference = keptReference(terms.clientReference, dialect);
  const { market, side, notionalUsd } = terms;
  requireMarket(book, market);
  const existing = book.sideHedges(account, market, side).at(-1);
  if (existing && dialect.hedgesPerSide === 'one')
    throw new ApiError(409, 'hedge_already_open', `a ${side} hedge on ${market} is already open; use add`, {
      hedge_id: existing.id,
    });
  requireRoomFor(book, account, market, side, notionalUsd);
  const hedge = book.submitOpen(account, { ...terms, clientReference }, nowMs);
  return succeeded({ ...hedgeView(hedge, dialect, nowMs), hedge_id: hedge.id });
}

const sideNotional = (hedges: readonly Pick<HedgeState, 'notionalUsd'>[]) =>
  hedges.reduce((sum, hedge) => sum + hedge.notionalUsd, 0);

/** Add acts on the newest hedge; close closes all; reduce takes newest first, and about the whole side closes all. */
export function changeParts<H extends Pick<HedgeState, 'notionalUsd'>>(
  action: ChangeAction,
  hedges: readonly H[],
  requestedUsd: number,
) {
  const newestFirst = hedges.toReversed();
  if (action === 'add') return [{ hedge: newestFirst[0], notionalUsd: requestedUsd }];
  const whole = action === 'close' || (hedges.length > 1 && reductionClosesFully(sideNotional(hedges), requestedUsd));
  let left = whole ? Infinity : requestedUsd;
  const parts = [];
  for (const hedge of newestFirst) {
    if (left <= 0) break;
    const taken = Math.min(left, hedge.notionalUsd);
    parts.push({ hedge, notionalUsd: taken });
    left -= taken;
  }
  return parts;
}

/** Add, reduce and close resolve the side's hedges server-side (no id is sent), per changeParts. */
function changeHedge({ book, account, request, nowMs, dialect, params }: RouteContext) {
  const action = params[0] as ChangeAction;
  const body = readFields(request.body, SIDE_FIELDS);
  const { market, side } = body;
  // An add or reduce carries its notional under the dialect's field name.
  let requested: number | undefined;
  if (action !== 'close') {
    const field = dialect.changeNotionalField;
    const foreign = dialect.refusedNotionalFields.find((name) => body[name] !== undefined);
    if (foreign !== undefined)
      throw validationError(field, `carries the notional on this server; ${foreign} is not accepted`);
    requested = readFields(body, { [field]: amount })[field];
  }
  // Leaving a position must stay possible on a disabled market; growing one must not.
  requireMarket(book, market, action === 'add');
  const hedges = book.sideHedges(account, market, side);
  if (!hedges.length) throw new ApiError(404, 'no_open_hedge', `no open ${side} hedge on ${market}`, { market, side });
  // Newest first: add acts on the newest hedge alone.
  const pending = (action === 'add' ? hedges.slice(-1) : hedges).findLast(
    (hedge) => hedge.status !== 'filled' || hedge.pendingChange,
  );
  // Retry-After: the change lands within the fill delay; the same request may be sent again then.
  if (pending)
    throw new ApiError(
      409,
      'action_pending',
      `hedge ${pending.id} has a change that has not landed yet`,
      { hedge_id: pending.id },
      { 'retry-after': '1' },
    );
  const openUsd = sideNotional(hedges);
  const changeUsd = requested ?? openUsd;
  if (action === 'add') requireRoomFor(book, account, market, side, changeUsd);
  if (action === 'reduce' && changeUsd > openUsd)
    throw new ApiError(400, 'notional_too_large', 'cannot reduce by more than the open notional', {
      notional_usd: roundMoney(openUsd),
    });
  const parts = changeParts(action, hedges, changeUsd);
  const changes = parts.map((part) => book.submitChange(account, part.hedge, action, part.notionalUsd, nowMs));
  return succeeded({
    hedge_id: parts[0].hedge.id,
    action,
    market,
    side,
    status: 'submitted',
    order_tx_hash: changes[0].orderTxHash,
    notional_usd: roundMoney(changeUsd),
    submitted_at: toIso(nowMs),
  });
}

// Literal paths come before the `/hedges/{id}` pattern so `/hedges/history` is not an id.
const ROUTES: [string | RegExp, Record<string, (context: RouteContext) => Answer>][] = [
  [
    '/markets',
    {
      GET: ({ book, nowMs }) =>
        succeeded(
          book.markets.map((definition) => marketView(book, definition, nowMs)),
          { ...ONCHAIN, allowed_markets: marketNames(book) },
        ),
    },
  ],
  ['/prices', { GET: getPrices }],
  [
    '/quotes',
    {
      POST: ({ book, request, nowMs }) => {
        const terms = readHedgeTerms(request.body, 'quote');
        requireMarket(book, terms.market);
        return succeeded(quoteView(book, terms, nowMs), ONCHAIN);
      },
    },
  ],
  ['/hedges', { GET: listHedges, POST: openHedge }],
  [/^\/hedges\/(add|reduce|close)$/, { POST: changeHedge }],
  ['/hedges/history', { GET: getHistory }],
  [/^\/hedges\/([^/]+)$/, { GET: getHedge }],
  [
    '/positions',
    {
      GET: ({ book, account, nowMs, dialect }) =>
        succeeded(
          positionViews(book, account, nowMs).lines.map((line) => wireRecord(line, dialect.positionFields, dialect)),
        ),
    },
  ],
  [
    '/account',
    {
      GET: ({ book, account, nowMs, dialect }) =>
        succeeded(wireRecord(accountView(book, account, nowMs), dialect.accountFields, dialect)),
    },
  ],
];

/** The endpoint; `idempotent`: it changes state, so it honours Idempotency-Key (spec section 7). */
function matchRoute(method: string, path: string) {
  for (const [pattern, methods] of ROUTES) {
    const match = typeof pattern === 'string' ? pattern === path && [] : pattern.exec(path)?.slice(1);
    if (!match) continue;
    const handle = methods[method];
    if (!handle) {
      const allow = Object.keys(methods).join(', ');
      throw new ApiError(405, 'method_not_allowed', `${method} is not allowed on ${path}`, { allow }, { allow });
    }
    return {
      handle,
      idempotent: method === 'POST' && path !== '/quotes',
      params: match.map((segment) => {
        try {
          return decodeURIComponent(segment);
        } catch {
          return segment;
        }
      }),
    };
  }
  throw notFoundError(path);
}

/** Whether a request is a write: an endpoint that changes state (an unknown path or method changes nothing). */
export function isWrite(method: string, path: string) {
  try {
    return matchRoute(method, path).idempotent;
  } catch {
    return false;
  }
}
