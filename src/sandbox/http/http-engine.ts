// The engine behind HTTP: a request routed to its action, the engine's result shaped into status, headers and
// envelope. The server and the engine tests answer requests through this one adapter.

import { type EngineRequest, type EngineResult, type HandleContext, SandboxEngine } from '../engine.js';
import { ApiError, errorResponse } from './envelope.js';
import { matchRoute } from './routes.js';

/** The statuses of the engine's own refusals. */
const REFUSAL_STATUS: Record<string, number> = {
  unauthorized: 401,
  live_key_refused: 401,
  rate_limited: 429,
  idempotency_in_flight: 409,
  idempotency_key_reuse: 409,
  validation_error: 400,
};

export class HttpSandboxEngine extends SandboxEngine {
  handle(request: EngineRequest, nowMs: number, context: HandleContext = {}) {
    try {
      const { handle, idempotent, params } = matchRoute(request.method, request.path);
      return toResponse(
        this.run(request, nowMs, idempotent, (acting) => handle({ ...acting, request, params }), context),
      );
    } catch (error) {
      if (error instanceof ApiError) return errorResponse(error);
      const message = error instanceof Error ? error.message : String(error);
      return errorResponse(new ApiError(500, 'internal_error', `sandbox error: ${message}`));
    }
  }

  /** Only a write (an endpoint that honours Idempotency-Key) holds its key. */
  override acquireIdempotencyKey(request: EngineRequest) {
    try {
      if (!matchRoute(request.method, request.path).idempotent) return null;
    } catch {
      return null;
    }
    return super.acquireIdempotencyKey(request);
  }
}

function toResponse(result: EngineResult) {
  const { rate } = result;
  const headers = {
    ...(result.ok
      ? result.replayed && { 'idempotent-replayed': 'true' }
      : result.code === 'rate_limited' && {
          'retry-after': String(Math.max(1, Math.ceil(Number(result.details?.retry_after_ms) / 1000))),
        }),
    ...(rate && { 'x-ratelimit-limit': String(rate.limit), 'x-ratelimit-remaining': String(rate.remaining) }),
  };
  if (result.ok) return { status: 200, headers, body: { data: result.data, error: null, meta: result.meta } };
  const { code, message, details } = result;
  return errorResponse(new ApiError(REFUSAL_STATUS[code] ?? 500, code, message, details, headers));
}
