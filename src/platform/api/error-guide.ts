// What each API error code means for a desk operator and what to do next.

/** A paragraph a code: the code, what it means, what to do next. */
const GUIDES = Object.fromEntries(
  `
exposure_exceeded
This would push the account over its aggregate exposure cap.
Lower the notional (see available_exposure_usd in \`hedge account\`) or reduce/close a position first.

capacity_exceeded
The market has not enough capacity on this side for that notional.
Lower the notional to the side capacity shown by \`hedge markets\`.

no_open_hedge
There is no open hedge on that market and side.
Check \`hedge positions\`; open one with \`hedge open\` first.

hedge_not_found
No hedge with that id belongs to this account.
List your hedges with \`hedge hedges\` and copy the id from there (shortened as shown, or whole).

hedge_already_open
A hedge is already open on that market and side.
Use \`hedge add\` to increase it, or close it first.

action_pending
An earlier change on that side has not landed yet.
Wait a few seconds (\`hedge positions\`), then try again.

idempotency_key_reuse
That idempotency key was already used for a different request.
Run the command without --idempotency-key to make a new action, or repeat the original request exactly.

idempotency_in_flight
The same action is still being processed by the server.
Wait a moment and run the same command with the same --idempotency-key.

rate_limited
Too many requests for this API key.
Slow down and try again in a few seconds.

unauthorized
The API refused the key.
Check the key with \`hedge whoami\`, or save a new one with \`hedge login\`.

live_key_refused
This endpoint accepts test keys only.
Use a *_test_* key here, or point the profile at the production base URL.

market_not_available
That market is not available to this account.
See \`hedge markets\` for the markets you can trade.

market_disabled
That market is disabled right now.
Try again later; \`hedge markets\` shows its status.

notional_too_large
That is more than the open notional.
Reduce by at most the open notional (see \`hedge positions\`), or use \`hedge close\`.

validation_error
The API rejected a field of the request.
Fix the field named in the details and try again.`
    .trim()
    .split('\n\n')
    .map((paragraph) => {
      const [code, sentence, next] = paragraph.split('\n');
      return [code, { sentence, next }];
    }),
);

/** The API error codes this guide knows (the spec's table and the sandbox's), for the agents' error catalogue. */
export const GUIDED_CODES: readonly string[] = Object.keys(GUIDES);

export function guideFor(code: string, status: number) {
  return (
    GUIDES[code] ??
    (status === 401 || status === 403
      ? GUIDES.unauthorized
      : status >= 500
        ? { sentence: 'The service failed to handle the request.', next: 'Try again in a moment.' }
        : { sentence: 'The API rejected the request.', next: 'Check the arguments against `hedge <command> --help`.' })
  );
}
