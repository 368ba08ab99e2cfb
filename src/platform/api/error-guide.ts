// What each API error code means for a desk operator and what to do next.

interface Guide {
  sentence: string;
  next: string;
}

const GUIDES: Record<string, Guide> = {
  exposure_exceeded: {
    sentence: 'This would push the account over its aggregate exposure cap.',
    next: 'Lower the notional (see available_exposure_usd in `hedge account`) or reduce/close a position first.',
  },
  capacity_exceeded: {
    sentence: 'The market has not enough capacity on this side for that notional.',
    next: 'Lower the notional to the side capacity shown by `hedge markets`.',
  },
  no_open_hedge: {
    sentence: 'There is no open hedge on that market and side.',
    next: 'Check `hedge positions`; open one with `hedge open` first.',
  },
  hedge_not_found: {
    sentence: 'No hedge with that id belongs to this account.',
    next: 'List your hedges with `hedge hedges` and copy the id from there (shortened as shown, or whole).',
  },
  hedge_already_open: {
    sentence: 'A hedge is already open on that market and side.',
    next: 'Use `hedge add` to increase it, or close it first.',
  },
  action_pending: {
    sentence: 'An earlier change on that side has not landed yet.',
    next: 'Wait a few seconds (`hedge positions`), then try again.',
  },
  idempotency_key_reuse: {
    sentence: 'That idempotency key was already used for a different request.',
    next: 'Run the command without --idempotency-key to make a new action, or repeat the original request exactly.',
  },
  idempotency_in_flight: {
    sentence: 'The same action is still being processed by the server.',
    next: 'Wait a moment and run the same command with the same --idempotency-key.',
  },
  rate_limited: {
    sentence: 'Too many requests for this API key.',
    next: 'Slow down and try again in a few seconds.',
  },
  unauthorized: {
    sentence: 'The API refused the key.',
    next: 'Check the key with `hedge whoami`, or save a new one with `hedge login`.',
  },
  live_key_refused: {
    sentence: 'This endpoint accepts test keys only.',
    next: 'Use a *_test_* key here, or point the profile at the production base URL.',
  },
  market_not_available: {
    sentence: 'That market is not available to this account.',
    next: 'See `hedge markets` for the markets you can trade.',
  },
  market_disabled: {
    sentence: 'That market is disabled right now.',
    next: 'Try again later; `hedge markets` shows its status.',
  },
  notional_too_large: {
    sentence: 'That is more than the open notional.',
    next: 'Reduce by at most the open notional (see `hedge positions`), or use `hedge close`.',
  },
  validation_error: {
    sentence: 'The API rejected a field of the request.',
    next: 'Fix the field named in the details and try again.',
  },
};

/** The API error codes this guide knows (the spec's table and the sandbox's), for the agents' error catalogue. */
export const GUIDED_CODES: readonly string[] = Object.keys(GUIDES);

export function guideFor(code: string, status: number) {
  const known = GUIDES[code];
  if (known) return known;
  if (status === 401 || status === 403) return GUIDES.unauthorized;
  if (status >= 500) return { sentence: 'The service failed to handle the request.', next: 'Try again in a moment.' };
  return { sentence: 'The API rejected the request.', next: 'Check the arguments against `hedge <command> --help`.' };
}
