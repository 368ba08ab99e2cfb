// The response envelope and the error vocabulary of the sandbox (spec section 7 plus the wire contract's
// additions).

/** An envelope's meta, an error's details. */
type Fields = Record<string, unknown>;

export interface EngineRequest {
  method: string;
  /** Path relative to the base path, e.g. `/hedges/hdg_…`. */
  path: string;
  query: Record<string, string>;
  /** Header names in lower case. */
  headers: Record<string, string | undefined>;
  /** Parsed JSON, `INVALID_JSON` (http-engine.ts) when it did not parse, `undefined` when there was none. */
  body: unknown;
}

/** An action's data (`replayed`: an idempotent write answered from its record, nothing acted again). */
export interface Answer {
  data: unknown;
  meta: Fields;
  replayed?: true;
}

export interface Envelope {
  data: unknown;
  error: { code: string; message: string; details?: Fields } | null;
  meta: Fields;
}

export interface EngineResponse {
  status: number;
  headers: Record<string, string>;
  body: Envelope;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: Fields,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export function succeeded(data: unknown, meta: Fields = {}) {
  return { data, meta };
}

/** A refusal as the spec's error; anything else thrown as a 500, its message after `prefix`. */
export function errorResponse(error: unknown, prefix = '') {
  const { status, headers, code, message, details } =
    error instanceof ApiError
      ? error
      : new ApiError(500, 'internal_error', prefix + (error instanceof Error ? error.message : String(error)));
  return {
    status,
    headers: { ...headers },
    body: { data: null, error: { code, message, ...(details && { details }) }, meta: {} },
  };
}

/** A 400 naming the field and why; `more` details follow those two. */
export function validationError(field: string, reason: string, more?: Fields) {
  return new ApiError(400, 'validation_error', `${field} ${reason}`, { field, reason, ...more });
}

export function notFoundError(path: string) {
  return new ApiError(404, 'not_found', `no endpoint at ${path}`, { path });
}
