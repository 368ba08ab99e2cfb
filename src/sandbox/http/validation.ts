import { ApiError, validationError } from './envelope.js';
import { HEDGE_STATUSES } from '../engine-state.js';
import { MARKET_MODEL, type Side } from '../market-model.js';
import type { WireDialect } from '../dialects.js';

/** Marks a request body that arrived but was not valid JSON (the server parses, the engine judges). */
export const INVALID_JSON = Symbol('invalid-json');

type JsonObject = Record<string, unknown>;
type Query = Record<string, string>;

const MAX_CLIENT_REFERENCE_LENGTH = 128;
const MAX_MARKET_LENGTH = 32;
const MAX_PAGE_SIZE = 500;

export function requireJsonObject(body: unknown) {
  if (body === INVALID_JSON) throw new ApiError(400, 'invalid_json', 'request body is not valid JSON');
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new ApiError(400, 'invalid_json', 'request body must be a JSON object');
  return body as JsonObject;
}

/** A body field that must be there and `valid`, or a 400 saying what it `must` be. */
function required<T>(body: JsonObject, field: string, valid: (value: unknown) => boolean, must: string) {
  const value = body[field];
  if (value === undefined) throw validationError(field, 'is required');
  if (!valid(value)) throw validationError(field, must);
  return value as T;
}

/** A non-empty string of at most `max` characters. */
const readShortText = (body: JsonObject, field: string, max: number) =>
  required<string>(
    body,
    field,
    (value) => typeof value === 'string' && value.length > 0 && value.length <= max,
    `must be a non-empty string of at most ${max} characters`,
  );

export const readMarket = (body: JsonObject) => readShortText(body, 'market', MAX_MARKET_LENGTH);

export const readSide = (body: JsonObject) =>
  required<Side>(body, 'side', (side) => side === 'buy' || side === 'sell', 'must be buy or sell');

const readPositiveAmount = (body: JsonObject, field: string) =>
  required<number>(
    body,
    field,
    (amount) => typeof amount === 'number' && Number.isFinite(amount) && amount > 0,
    'must be a positive finite number',
  );

/** What a quote and an open both carry, checked in this order. */
export function readHedgeTerms(body: JsonObject) {
  return {
    market: readMarket(body),
    side: readSide(body),
    notionalUsd: readPositiveAmount(body, 'notional_usd'),
    tenorDays: required<number>(
      body,
      'tenor_days',
      (tenor) => typeof tenor === 'number' && MARKET_MODEL.tenorsDays.includes(tenor),
      `must be one of ${MARKET_MODEL.tenorsDays.join(', ')}`,
    ),
  };
}

/** The notional of an add or reduce under the dialect's field name. */
export function readChangeNotional(body: JsonObject, dialect: WireDialect) {
  const field = dialect.changeNotionalField;
  const foreign = dialect.refusedNotionalFields.find((name) => body[name] !== undefined);
  if (foreign !== undefined)
    throw validationError(field, `carries the notional on this server; ${foreign} is not accepted`);
  return readPositiveAmount(body, field);
}

export function readClientReference(body: JsonObject) {
  if (body.client_reference == null) return;
  return readShortText(body, 'client_reference', MAX_CLIENT_REFERENCE_LENGTH);
}

/** The page size under the dialect's parameter name (`limit` in the reference dialect). */
export function readPageSize(query: Query, dialect: WireDialect) {
  const parameter = dialect.pageSizeParameter;
  const raw = query[parameter];
  if (raw === undefined) return dialect.defaultPageSize;
  const size = /^\d{1,6}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(size >= 1 && size <= MAX_PAGE_SIZE))
    throw validationError(parameter, `must be an integer from 1 to ${MAX_PAGE_SIZE}`);
  return size;
}

/** A strict dialect refuses a list's query parameter it does not know (400 naming it); the others ignore it. */
export function checkListQuery(query: Query, dialect: WireDialect, ...known: string[]) {
  if (dialect.unknownListQuery !== 'refused') return;
  known.push(dialect.pageSizeParameter, ...(dialect.paging === 'cursor' ? ['cursor'] : []));
  const unknown = Object.keys(query).find((name) => !known.includes(name));
  if (unknown !== undefined)
    throw validationError(unknown, `is not a query parameter of this endpoint (known: ${known.join(', ')})`, {
      allowed: known,
    });
}

/** The status filter: the spec's five, and the dialect's own extra statuses. */
export function readStatusFilter(query: Query, extra: readonly string[]) {
  const status = query.status;
  if (status === undefined) return;
  const allowed = [...HEDGE_STATUSES, ...extra];
  if (!allowed.includes(status)) throw validationError('status', `must be one of ${allowed.join(', ')}`);
  return status;
}

const CURSOR_PREFIX = 'c1.';

/** An opaque page cursor: the position of the next page's first item in the list. */
export function encodeCursor(position: number) {
  return CURSOR_PREFIX + Buffer.from(`at:${position}`).toString('base64url');
}

/** The position a cursor stands for (0 without one); a cursor this server did not make is refused. */
export function decodeCursor(cursor: string | undefined) {
  if (cursor === undefined) return 0;
  const text = cursor.startsWith(CURSOR_PREFIX)
    ? Buffer.from(cursor.slice(CURSOR_PREFIX.length), 'base64url').toString('utf8')
    : '';
  const match = /^at:(\d{1,9})$/.exec(text);
  if (!match) throw validationError('cursor', 'is not a cursor this server gave out');
  return Number(match[1]);
}
