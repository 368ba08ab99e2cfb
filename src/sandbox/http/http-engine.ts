// The engine behind HTTP: a request routed to its action, the engine's result shaped into status, headers and
// envelope. The server and the engine tests answer requests through this one adapter.

import { ApiError, type EngineRequest, type HandleContext, SandboxEngine } from '../engine.js';
import { type EngineResponse, errorResponse } from './envelope.js';
import { matchRoute } from './routes.js';

export class HttpSandboxEngine extends SandboxEngine {
  handle(request: EngineRequest, nowMs: number, context: HandleContext = {}): EngineResponse {
    try {
      const { handle, idempotent, params } = matchRoute(request.method, request.path);
      const { data, meta, replayed, rate } = this.run(
        request,
        nowMs,
        idempotent,
        (acting) => handle({ ...acting, request, params }),
        context,
      );
      const headers = {
        ...(replayed && { 'idempotent-replayed': 'true' }),
        ...(rate && { 'x-ratelimit-limit': String(rate.limit), 'x-ratelimit-remaining': String(rate.remaining) }),
      };
      return { status: 200, headers, body: { data, error: null, meta } };
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
