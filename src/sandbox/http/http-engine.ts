// The engine behind HTTP: a request routed to its action, the engine's result shaped into status, headers and
// envelope. The server and the engine tests answer requests through this one adapter.

import { type EngineRequest, type EngineSuccess, type HandleContext, Refusal, SandboxEngine } from '../engine.js';
import { ApiError, errorResponse } from './envelope.js';
import { isWrite, matchRoute } from './routes.js';

/** The statuses of the engine's own refusals. */
const REFUSAL_STATUS: Record<string, number> = {
  unauthorized: 401,
  live_key_refused: 401,
  rate_limited: 429,
  idempotency_in_flight: 409,
  idempotency_key_reuse: 409,
  validation_error: 400,
};

const rateHeaders = (rate: EngineSuccess['rate']) =>
  rate && { 'x-ratelimit-limit': String(rate.limit), 'x-ratelimit-remaining': String(rate.remaining) };

export class HttpSandboxEngine extends SandboxEngine {
  handle(request: EngineRequest, nowMs: number, context: HandleContext = {}) {
    try {
      const { handle, idempotent, params } = matchRoute(request.method, request.path);
      const { data, meta, replayed, rate } = this.run(
        request,
        nowMs,
        idempotent,
        (acting) => handle({ ...acting, request, params }),
        context,
      );
      const headers = { ...(replayed && { 'idempotent-replayed': 'true' }), ...rateHeaders(rate) };
      return { status: 200, headers, body: { data, error: null, meta } };
    } catch (error) {
      return errorResponse(apiError(error));
    }
  }

  /** Only a write (an endpoint that honours Idempotency-Key) holds its key. */
  override acquireIdempotencyKey(request: EngineRequest) {
    return isWrite(request.method, request.path) ? super.acquireIdempotencyKey(request) : null;
  }
}

/** What the client is told: a refusal of the engine's or a route's as the spec's error, anything else as a 500. */
function apiError(error: unknown) {
  if (error instanceof ApiError) return error;
  if (!(error instanceof Refusal))
    return new ApiError(
      500,
      'internal_error',
      `sandbox error: ${error instanceof Error ? error.message : String(error)}`,
    );
  const { code, details, rate } = error;
  const retryAfter = code === 'rate_limited' && {
    'retry-after': String(Math.max(1, Math.ceil(Number(details?.retry_after_ms) / 1000))),
  };
  return new ApiError(REFUSAL_STATUS[code], code, error.message, details, { ...retryAfter, ...rateHeaders(rate) });
}
