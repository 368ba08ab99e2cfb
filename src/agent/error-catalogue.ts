// The error catalogue for agents (and scripts): every `error.code` a tool call or a command can end with, its exit code
// and class (src/terminal/exit-codes.ts), whether trying again can help, how, and what to do.
import { GUIDED_CODES, guideFor } from '../api/error-guide.js';
import { EXIT_CODES } from '../terminal/exit-codes.js';

/**
 * How to try again: `no` (the same call fails the same way), `after_fix` (change the arguments or the account
 * first), `same_call` (the same call again, after `retry_after`), `resume` (the same call again — or `resume` —
 * with the same idempotency key: it cannot act twice).
 */
type RetryGuidance = 'no' | 'after_fix' | 'same_call' | 'resume';

/** Which tools can end with the code: every tool, the read or write tools, or the ones named. */
type AppliesTo = 'every' | 'read' | 'write' | readonly string[];

export interface ErrorCatalogueEntry {
  code: string;
  exit_code: number;
  class: string;
  retryable: boolean;
  retry: RetryGuidance;
  retry_after?: string;
  what_to_do: string;
  applies_to: AppliesTo;
}

type Guidance = Omit<ErrorCatalogueEntry, 'exit_code' | 'class'> & { exit: string };

const WRITES = 'write' as const;
const EVERY = 'every' as const;

/** API codes with a status of their own (the rest are 4xx refusals: exit 3, `rejected`). */
const API_CODE_CLASS: Record<
  string,
  { exit: string; retry: RetryGuidance; retryable: boolean; retry_after?: string; applies_to?: AppliesTo }
> = {
  unauthorized: { exit: 'auth', retry: 'after_fix', retryable: false, applies_to: EVERY },
  live_key_refused: { exit: 'auth', retry: 'after_fix', retryable: false, applies_to: EVERY },
  rate_limited: {
    exit: 'network',
    retry: 'same_call',
    retryable: true,
    retry_after: 'the Retry-After the server gave (hedge already waited it out up to 30 s); else a few seconds',
    applies_to: EVERY,
  },
  idempotency_in_flight: {
    exit: 'network',
    retry: 'resume',
    retryable: true,
    retry_after: 'a few seconds',
    applies_to: WRITES,
  },
  action_pending: {
    exit: 'rejected',
    retry: 'same_call',
    retryable: true,
    retry_after: 'once the earlier change on that side landed (poll positions)',
    applies_to: ['add', 'reduce', 'close', 'roll', 'apply', 'resume'],
  },
  hedge_not_found: { exit: 'rejected', retry: 'after_fix', retryable: false, applies_to: ['hedges', 'resume'] },
  market_disabled: {
    exit: 'rejected',
    retry: 'same_call',
    retryable: true,
    retry_after: 'when markets shows the market open again',
    applies_to: ['quote', 'open', 'add', 'roll', 'apply', 'resume'],
  },
};

/** Guidance by exit-code class, then codes of hedge's own; each entry names its class. */
const OWN_CODES: Guidance[] = [
  {
    code: 'ok',
    exit: 'ok',
    retryable: false,
    retry: 'no',
    what_to_do:
      'Not an error: the call did what was asked; for a write, its action happened, once. (A tool result, never a tool error.)',
    applies_to: [],
  },
  {
    code: 'unexpected',
    exit: 'unexpected',
    retryable: false,
    retry: 'no',
    what_to_do:
      'A bug or an unusable config store: report it with the message; run the CLI command with --verbose for the stack.',
    applies_to: EVERY,
  },
  {
    code: 'config',
    exit: 'unexpected',
    retryable: false,
    retry: 'after_fix',
    what_to_do:
      'The profile store cannot be used: fix or remove the file the message names (hedge never rewrites a broken store).',
    applies_to: EVERY,
  },
  {
    code: 'usage',
    exit: 'usage',
    retryable: false,
    retry: 'after_fix',
    what_to_do:
      'An argument is not allowed; `argument` names it and the message says what is allowed. Nothing was sent: fix it and call again.',
    applies_to: EVERY,
  },
  {
    code: 'off_origin',
    exit: 'usage',
    retryable: false,
    retry: 'no',
    what_to_do:
      "A request would have left the profile's base URL for another host or port (a resumed journal row's path, a server's next-page link): refused, nothing was sent and the key did not leave. Do not call again; the operator looks at the journal row or the server the message names.",
    applies_to: EVERY,
  },
  {
    code: 'auth',
    exit: 'auth',
    retryable: false,
    retry: 'after_fix',
    what_to_do:
      'The API key is missing, malformed or refused: the operator must fix the profile (hedge login / hedge whoami). Nothing was sent.',
    applies_to: EVERY,
  },
  {
    code: 'network',
    exit: 'network',
    retryable: true,
    retry: 'same_call',
    retry_after: 'a few seconds to a minute (hedge already retried with backoff)',
    what_to_do:
      'The server could not be reached or failed after retries. A read can be called again; for a write, use `resume` (or call again with the same arguments) — never a new action.',
    applies_to: EVERY,
  },
  {
    code: 'service_unavailable',
    exit: 'network',
    retryable: true,
    retry: 'same_call',
    retry_after: 'the Retry-After the server gave',
    what_to_do:
      'The service is down for a moment; call again later. A write whose outcome is unknown says so (outcome_unknown).',
    applies_to: EVERY,
  },
  {
    code: 'internal_error',
    exit: 'network',
    retryable: true,
    retry: 'same_call',
    retry_after: 'a few seconds',
    what_to_do: 'A transient server failure after retries; call again later.',
    applies_to: EVERY,
  },
  {
    code: 'answer_too_large',
    exit: 'network',
    retryable: false,
    retry: 'after_fix',
    what_to_do: 'The answer passed the size cap: ask for less (limit) or have the operator raise HEDGE_MAX_ANSWER_MB.',
    applies_to: 'read',
  },
  {
    code: 'invalid_response',
    exit: 'network',
    retryable: true,
    retry: 'same_call',
    retry_after: 'a minute',
    what_to_do:
      'The server answered with something that is not the API envelope (a proxy, a changed service); call again later and report it if it stays.',
    applies_to: EVERY,
  },
  {
    code: 'outcome_unknown',
    exit: 'network',
    retryable: true,
    retry: 'resume',
    what_to_do:
      'The write was sent but its answer was lost: the server may have acted. Call `resume` with the journal id in details (or the same tool with the same arguments): the same idempotency key is reused, so it acts at most once. Never start a new action for it.',
    applies_to: WRITES,
  },
  {
    code: 'order_failed',
    exit: 'order-failed',
    retryable: false,
    retry: 'after_fix',
    what_to_do:
      'The order failed on-chain: nothing was opened and the margin was released. Check markets, then open again (a new action).',
    applies_to: ['hedges', 'open', 'roll', 'apply', 'resume'],
  },
  {
    code: 'still_pending',
    exit: 'pending',
    retryable: true,
    retry: 'resume',
    what_to_do:
      'The action was sent and stands, but had not resolved when the wait ran out. Call `resume` (or hedges with the id and wait) to follow it; do not send it again as a new action.',
    applies_to: ['hedges', 'open', 'add', 'reduce', 'close', 'roll', 'apply', 'resume'],
  },
  {
    code: 'declined',
    exit: 'declined',
    retryable: false,
    retry: 'no',
    what_to_do: 'The operator declined at a confirmation; nothing was sent.',
    applies_to: WRITES,
  },
  {
    code: 'changes',
    exit: 'changes',
    retryable: false,
    retry: 'no',
    what_to_do: 'Not an error: plan says the book is not at the target. apply brings it there.',
    applies_to: ['plan'],
  },
  {
    code: 'alert',
    exit: 'alert',
    retryable: false,
    retry: 'no',
    what_to_do: 'Not an error: a --watch alert fired (--exit-on-alert). Watches are not tools.',
    applies_to: [],
  },
  {
    code: 'keeper_down',
    exit: 'keeper-down',
    retryable: false,
    retry: 'no',
    what_to_do:
      'Not an error of a call: `hedge keep status` found no keeper running for the account (dead, hung, stopped or never started). The operator restarts it. The keeper is not a tool.',
    applies_to: [],
  },
  {
    code: 'until_not_met',
    exit: 'until',
    retryable: true,
    retry: 'same_call',
    retry_after: 'when the condition may hold; give a longer timeout',
    what_to_do:
      'The `until` condition never held within the time bound; the reads themselves worked. Call again (a longer --timeout), or check the condition against the data.',
    applies_to: 'read',
  },
  {
    code: 'hangup',
    exit: 'hangup',
    retryable: true,
    retry: 'resume',
    what_to_do: 'Stopped by SIGHUP: an action in flight stays in the journal; `resume` finishes it.',
    applies_to: EVERY,
  },
  {
    code: 'interrupted',
    exit: 'interrupted',
    retryable: true,
    retry: 'resume',
    what_to_do: 'Interrupted: an action in flight stays in the journal; `resume` finishes it.',
    applies_to: EVERY,
  },
  {
    code: 'terminated',
    exit: 'terminated',
    retryable: true,
    retry: 'resume',
    what_to_do: 'Stopped by SIGTERM: an action in flight stays in the journal; `resume` finishes it.',
    applies_to: EVERY,
  },
  // Exit codes other parts of hedge add (listed here so each gets its guidance when it exists).
  {
    code: 'held',
    exit: 'held',
    retryable: true,
    retry: 'same_call',
    retry_after: 'when the holder (pid, host, since in details) has finished',
    what_to_do:
      'Another live process holds this action or the account lock; this call did not act. Call again once it is done.',
    applies_to: WRITES,
  },
  {
    code: 'unresolved',
    exit: 'unresolved',
    retryable: false,
    retry: 'after_fix',
    what_to_do:
      "An earlier action's outcome cannot be told; nothing was resent. The operator decides with `hedge journal resolve ID --landed|--not-landed`.",
    applies_to: WRITES,
  },
  {
    code: 'not_applied',
    exit: 'rejected',
    retryable: false,
    retry: 'after_fix',
    what_to_do:
      'The add or reduce was accepted but did not happen: the hedge it was to change settled or was closed first. Nothing of it is on the book; the side is flat. Open a new hedge if the side should be covered.',
    applies_to: ['add', 'reduce', 'apply', 'resume'],
  },
  {
    code: 'repeated_action',
    exit: 'repeated',
    retryable: false,
    retry: 'after_fix',
    what_to_do:
      'The same write (same request, same account) finished minutes ago and the side still shows exactly what it left, so this call sent nothing: it may be a re-run of a killed command. Call again with again: true for another one, or pass your own idempotency_key to make a retry exactly-once.',
    applies_to: WRITES,
  },
  {
    code: 'state',
    exit: 'state',
    retryable: false,
    retry: 'after_fix',
    what_to_do:
      'Local state (journal, demo state, team store) cannot be used; nothing was sent. The operator fixes the path the message names.',
    applies_to: EVERY,
  },
  {
    code: 'unverified_row',
    exit: 'state',
    retryable: false,
    retry: 'no',
    what_to_do:
      "A journal row this call would send again does not verify as this account's own (no seal, or a seal that does not match), or its key already has a finished row: it was not sent. A person looks at the book and records it with `hedge journal resolve ID --landed|--not-landed`.",
    applies_to: ['open', 'add', 'reduce', 'close', 'roll', 'apply', 'resume'],
  },
  {
    code: 'unreadable',
    exit: 'unreadable',
    retryable: true,
    retry: 'same_call',
    retry_after: 'a minute',
    what_to_do:
      'The server answered in a way hedge could not read (the field is named); report it. A write in this state is resumed, not resent.',
    applies_to: EVERY,
  },
  // Pre-trade checks and the agent's own limits: nothing was sent.
  {
    code: 'capacity_exceeded',
    exit: 'rejected',
    retryable: false,
    retry: 'after_fix',
    what_to_do: guideFor('capacity_exceeded', 400).next,
    applies_to: ['open', 'add', 'roll', 'apply', 'resume'],
  },
  {
    code: 'duplicate_client_reference',
    exit: 'rejected',
    retryable: false,
    retry: 'after_fix',
    what_to_do:
      'An active hedge already carries this ref: use another ref, or allow_duplicate_ref if a second hedge is meant.',
    applies_to: ['open'],
  },
  {
    code: 'hedge_not_filled',
    exit: 'rejected',
    retryable: true,
    retry: 'same_call',
    retry_after: "once the side's hedge filled",
    what_to_do: "The side's hedge has not filled yet; wait for it (hedges with the id and wait), then roll.",
    applies_to: ['roll'],
  },
  {
    code: 'nothing_to_roll',
    exit: 'rejected',
    retryable: false,
    retry: 'after_fix',
    what_to_do: 'No open hedge on that side (and none matured lately): open one instead.',
    applies_to: ['roll'],
  },
  {
    code: 'side_already_open',
    exit: 'rejected',
    retryable: false,
    retry: 'no',
    what_to_do: 'The side was already covered: the roll did not open a second hedge. Read positions.',
    applies_to: ['roll', 'resume'],
  },
  {
    code: 'plan_check_failed',
    exit: 'rejected',
    retryable: false,
    retry: 'after_fix',
    what_to_do: 'The plan fails pre-trade checks (listed in details): lower the targets, then plan again.',
    applies_to: ['apply'],
  },
  {
    code: 'max_notional_exceeded',
    exit: 'rejected',
    retryable: false,
    retry: 'after_fix',
    what_to_do:
      'The call trades more than this agent may in one call (hedge mcp --max-notional; details.max_notional_usd): use a smaller notional, or ask the operator. Nothing was sent.',
    applies_to: WRITES,
  },
  {
    code: 'max_daily_notional_exceeded',
    exit: 'rejected',
    retryable: true,
    retry: 'same_call',
    retry_after: 'details.frees_at, when earlier trades leave the 24 h window (or a smaller notional now)',
    what_to_do:
      "This agent's trades of the last 24 h plus this call pass its daily cap (hedge mcp --max-daily-notional; details has used_usd and max_daily_notional_usd). Nothing was sent.",
    applies_to: WRITES,
  },
  {
    code: 'market_not_allowed',
    exit: 'rejected',
    retryable: false,
    retry: 'no',
    what_to_do:
      "The market is not in this agent's allowlist (hedge mcp --markets; details.allowed_markets). Nothing was sent; only the operator can change the list.",
    applies_to: WRITES,
  },
  {
    code: 'preview_changed',
    exit: 'rejected',
    retryable: false,
    retry: 'after_fix',
    what_to_do:
      "A LIVE write's confirmation_token binds what its preview showed would happen, and the call would now do something else (the side's notional, the book or the target file changed; details.previewed_usd and now_usd): nothing was sent. new_preview in the answer shows it as it is now, with its own token: read it, and call again with that token if it is still wanted.",
    applies_to: WRITES,
  },
];

function apiGuidance(code: string): Guidance {
  const special = API_CODE_CLASS[code];
  const guide = guideFor(code, special?.exit === 'auth' ? 401 : 400);
  return {
    code,
    exit: special?.exit ?? 'rejected',
    retryable: special?.retryable ?? false,
    retry: special?.retry ?? 'after_fix',
    ...(special?.retry_after ? { retry_after: special.retry_after } : {}),
    what_to_do: `${guide.sentence} ${guide.next}`,
    applies_to: special?.applies_to ?? WRITES,
  };
}

/** The whole catalogue, in exit-code order. */
export function errorCatalogue(): ErrorCatalogueEntry[] {
  const codeOf = new Map<string, number>(EXIT_CODES.map((entry) => [entry.name, entry.code]));
  const seen = new Set<string>();
  const entries: ErrorCatalogueEntry[] = [];
  for (const guidance of [...OWN_CODES, ...GUIDED_CODES.map(apiGuidance)]) {
    const exitCode = codeOf.get(guidance.exit);
    if (exitCode === undefined || seen.has(guidance.code)) continue;
    seen.add(guidance.code);
    const { exit, ...rest } = guidance;
    entries.push({
      code: rest.code,
      exit_code: exitCode,
      class: exit,
      retryable: rest.retryable,
      retry: rest.retry,
      ...(rest.retry_after ? { retry_after: rest.retry_after } : {}),
      what_to_do: rest.what_to_do,
      applies_to: rest.applies_to,
    });
  }
  return entries.sort((a, b) => a.exit_code - b.exit_code);
}

/** The part of the catalogue a tool can end with. */
export function errorsOfTool(
  catalogue: readonly ErrorCatalogueEntry[],
  tool: { name: string; tier: 'read' | 'write' },
): ErrorCatalogueEntry[] {
  return catalogue.filter(
    ({ applies_to: applies }) =>
      applies === 'every' || applies === tool.tier || (Array.isArray(applies) && applies.includes(tool.name)),
  );
}
