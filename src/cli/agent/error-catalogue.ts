// The error catalogue for agents (and scripts): every `error.code` a tool call or a command can end with, its exit code and class (src/platform/terminal/exit-codes.ts), whether trying again can help, how, and what to do.
import { GUIDED_CODES, guideFor } from '../../platform/api/error-guide.js';
import { EXIT_CODES } from '../../platform/terminal/exit-codes.js';

/**
 * One entry per code: a line `code class retry applies_to…`, then indented, what to do and (`after: …`) when to
 * retry. retry: `no` (the same call fails the same way), `after_fix` (change the arguments or the account first),
 * `same_call` (the same call again, after `retry_after`), `resume` (the same call again — or `resume` — with the same
 * idempotency key: it cannot act twice). applies_to: `every` tool, the `read` or `write` tools, or the ones named; none for a code no tool ends with.
 * Retrying helps for `same_call` and `resume`.
 */
function entries(table: string) {
  return table
    .trim()
    .split(/\n(?=\S)/)
    .map((block) => {
      const [head, ...lines] = block.split(/\n\s+/);
      const [code, exit, retry, ...applies] = head.split(' ');
      const after = lines.find((line) => line.startsWith('after: '));
      return {
        code,
        exit,
        retry,
        applies,
        what: lines.find((line) => line !== after),
        after: after?.slice('after: '.length),
      };
    });
}

/** API codes with a status of their own (the rest are 4xx refusals: exit 3, `rejected`, after_fix, write tools). */
const API_CODES = entries(`
unauthorized auth after_fix every
live_key_refused auth after_fix every
rate_limited network same_call every
  after: the Retry-After the server gave (hedge already waited it out up to 30 s); else a few seconds
idempotency_in_flight network resume write
  after: a few seconds
action_pending rejected same_call add reduce close roll apply resume
  after: once the earlier change on that side landed (poll positions)
hedge_not_found rejected after_fix hedges resume
market_disabled rejected same_call quote open add roll apply resume
  after: when markets shows the market open again
`);

/** Guidance by exit-code class, then codes of hedge's own. */
const OWN_CODES = entries(`
ok ok no
  Not an error: the call did what was asked; for a write, its action happened, once. (A tool result, never a tool error.)
unexpected unexpected no every
  A bug or an unusable config store: report it with the message; run the CLI command with --verbose for the stack.
config unexpected after_fix every
  The profile store cannot be used: fix or remove the file the message names (hedge never rewrites a broken store).
usage usage after_fix every
  An argument is not allowed; \`argument\` names it and the message says what is allowed. Nothing was sent: fix it and call again.
off_origin usage no every
  A request would have left the profile's base URL for another host or port (a resumed journal row's path, a server's next-page link): refused, nothing was sent and the key did not leave. Do not call again; the operator looks at the journal row or the server the message names.
auth auth after_fix every
  The API key is missing, malformed or refused: the operator must fix the profile (hedge login / hedge whoami). Nothing was sent.
network network same_call every
  The server could not be reached or failed after retries. A read can be called again; for a write, use \`resume\` (or call again with the same arguments) — never a new action.
  after: a few seconds to a minute (hedge already retried with backoff)
service_unavailable network same_call every
  The service is down for a moment; call again later. A write whose outcome is unknown says so (outcome_unknown).
  after: the Retry-After the server gave
internal_error network same_call every
  A transient server failure after retries; call again later.
  after: a few seconds
answer_too_large network after_fix read
  The answer passed the size cap: ask for less (limit) or have the operator raise HEDGE_MAX_ANSWER_MB.
invalid_response network same_call every
  The server answered with something that is not the API envelope (a proxy, a changed service); call again later and report it if it stays.
  after: a minute
outcome_unknown network resume write
  The write was sent but its answer was lost: the server may have acted. Call \`resume\` with the journal id in details (or the same tool with the same arguments): the same idempotency key is reused, so it acts at most once. Never start a new action for it.
order_failed order-failed after_fix hedges open roll apply resume
  The order failed on-chain: nothing was opened and the margin was released. Check markets, then open again (a new action).
still_pending pending resume hedges open add reduce close roll apply resume
  The action was sent and stands, but had not resolved when the wait ran out. Call \`resume\` (or hedges with the id and wait) to follow it; do not send it again as a new action.
declined declined no write
  The operator declined at a confirmation; nothing was sent.
changes changes no plan
  Not an error: plan says the book is not at the target. apply brings it there.
alert alert no
  Not an error: a --watch alert fired (--exit-on-alert). Watches are not tools.
keeper_down keeper-down no
  Not an error of a call: \`hedge keep status\` found no keeper running for the account (dead, hung, stopped or never started). The operator restarts it. The keeper is not a tool.
until_never until-never no hedges
  The \`until\` condition can never hold: the data read can no longer change (a hedge closed or failed) and the condition is false on it. Do not call again with it; check the condition against the data.
until_not_met until same_call read
  The \`until\` condition never held within the time bound; the reads themselves worked. Call again (a longer --timeout), or check the condition against the data.
  after: when the condition may hold; give a longer timeout
hangup hangup resume every
  Stopped by SIGHUP: an action in flight stays in the journal; \`resume\` finishes it.
interrupted interrupted resume every
  Interrupted: an action in flight stays in the journal; \`resume\` finishes it.
terminated terminated resume every
  Stopped by SIGTERM: an action in flight stays in the journal; \`resume\` finishes it.
held held same_call write
  Another live process holds this action or the account lock; this call did not act. Call again once it is done.
  after: when the holder (pid, host, since in details) has finished
unresolved unresolved after_fix write
  An earlier action's outcome cannot be told; nothing was resent. The operator decides with \`hedge journal resolve ID --landed|--not-landed\`.
not_applied rejected after_fix add reduce apply resume
  The add or reduce was accepted but did not happen: the hedge it was to change settled or was closed first. Nothing of it is on the book; the side is flat. Open a new hedge if the side should be covered.
repeated_action repeated after_fix write
  The same write (same request, same account) finished minutes ago and the side still shows exactly what it left, so this call sent nothing: it may be a re-run of a killed command. Call again with again: true for another one, or pass your own idempotency_key to make a retry exactly-once.
state state after_fix every
  Local state (journal, demo state, team store) cannot be used; nothing was sent. The operator fixes the path the message names.
unverified_row state no open add reduce close roll apply resume
  A journal row this call would send again does not verify as this account's own (no seal, or a seal that does not match), or its key already has a finished row: it was not sent. A person looks at the book and records it with \`hedge journal resolve ID --landed|--not-landed\`.
unreadable unreadable same_call every
  The server answered in a way hedge could not read (the field is named); report it. A write in this state is resumed, not resent.
  after: a minute
capacity_exceeded rejected after_fix open add roll apply resume
  ${guideFor('capacity_exceeded', 400).next}
duplicate_client_reference rejected after_fix open
  An active hedge already carries this ref: use another ref, or allow_duplicate_ref if a second hedge is meant.
hedge_not_filled rejected same_call roll
  The side's hedge has not filled yet; wait for it (hedges with the id and wait), then roll.
  after: once the side's hedge filled
hedge_maturing rejected same_call roll
  The side's hedge matures before a close sent now could be known to land: it is left to settle, nothing was sent. Roll once it has settled (the side is opened anew).
  after: once the side's hedge settled
nothing_to_roll rejected after_fix roll
  No open hedge on that side (and none matured lately): open one instead.
side_already_open rejected no roll resume
  The side was already covered: the roll did not open a second hedge. Read positions.
plan_check_failed rejected after_fix apply
  The plan fails pre-trade checks (listed in details): lower the targets, then plan again.
not_this_rows rejected after_fix apply
  A target row's side holds hedges under another reference (or none), listed in details: nothing was sent. The operator adopts them (--adopt REF|ID) or gives the row their reference.
max_notional_exceeded rejected after_fix write
  The call trades more than this agent may in one call (hedge mcp --max-notional; details.max_notional_usd): use a smaller notional, or ask the operator. Nothing was sent.
max_daily_notional_exceeded rejected same_call write
  This agent's trades of the last 24 h plus this call pass its daily cap (hedge mcp --max-daily-notional; details has used_usd and max_daily_notional_usd). Nothing was sent.
  after: details.frees_at, when earlier trades leave the 24 h window (or a smaller notional now)
market_not_allowed rejected no write
  The market is not in this agent's allowlist (hedge mcp --markets; details.allowed_markets). Nothing was sent; only the operator can change the list.
preview_changed rejected after_fix write
  A LIVE write's confirmation_token binds what its preview showed would happen, and the call would now do something else (the side's notional, the book or the target file changed; details.previewed_usd and now_usd): nothing was sent. new_preview in the answer shows it as it is now, with its own token: read it, and call again with that token if it is still wanted.
`);

function apiGuidance(code: string) {
  const known = API_CODES.find((entry) => entry.code === code) ?? entries(`${code} rejected after_fix write`)[0];
  const guide = guideFor(code, known.exit === 'auth' ? 401 : 400);
  return { ...known, what: `${guide.sentence} ${guide.next}` };
}

/** The whole catalogue, in exit-code order. */
export function errorCatalogue() {
  const seen = new Set<string>();
  return [...OWN_CODES, ...GUIDED_CODES.map(apiGuidance)]
    .flatMap(({ code, exit, retry, applies, what, after }) => {
      const exit_code = EXIT_CODES.find((entry) => entry.name === exit)?.code;
      if (exit_code === undefined || seen.has(code)) return [];
      seen.add(code);
      return [
        {
          code,
          exit_code,
          class: exit,
          retryable: retry === 'same_call' || retry === 'resume',
          retry,
          ...(after && { retry_after: after }),
          what_to_do: what!,
          applies_to: /^(every|read|write)$/.test(applies.join(' ')) ? applies[0] : applies,
        },
      ];
    })
    .sort((a, b) => a.exit_code - b.exit_code);
}
