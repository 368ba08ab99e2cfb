// The error table of the spec (section 7), row by row, as data: the client test and the
// end-to-end exit-code test each drive every row, and each fails when a row has no scenario.
export const SPEC_ERROR_TABLE = [
  { status: 400, code: 'exposure_exceeded', condition: 'an open (or add) would exceed the aggregate exposure cap' },
  { status: 404, code: 'no_open_hedge', condition: 'add (or reduce) on a market and side with no open hedge' },
  { status: 404, code: 'hedge_not_found', condition: "hedge id is not one of the caller's" },
  { status: 409, code: 'idempotency_key_reuse', condition: 'an Idempotency-Key reused with a different body' },
  { status: 409, code: 'idempotency_in_flight', condition: 'a request with the same key is still in progress' },
  { status: 429, code: 'rate_limited', condition: 'per-key rate limit exceeded' },
] as const;

export type SpecErrorCode = (typeof SPEC_ERROR_TABLE)[number]['code'];
