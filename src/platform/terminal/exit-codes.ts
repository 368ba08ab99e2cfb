// The one mapping from a failure to what the process says about it: its exit code, the JSON `code` a script routes on, the hint (what to do next) and the details.
import { guideFor } from '../api/error-guide.js';
import { ApiError, HedgeError } from '../../core/errors.js';
import { asRun, type Invocation } from '../../core/program.js';

/** The one table of exit codes: printed by `hedge help exit-codes`, the man page and docs/exit-codes.md (a test compares them). */
export const EXIT_CODES = (
  [
    [0, 'ok', 'the command did what was asked'],
    [
      1,
      'unexpected',
      'an unexpected error (a bug), a config store that cannot be used, or a file it was asked to write that could not be written (a full disk)',
    ],
    [2, 'usage', 'usage or invalid input; nothing was sent'],
    [3, 'rejected', 'rejected by the API or a pre-trade check (4xx such as exposure_exceeded, no_open_hedge)'],
    [4, 'auth', 'authentication: missing, malformed or refused API key'],
    [5, 'network', 'network or server failure after retries, or the outcome of a write is unknown (key printed)'],
    [6, 'order-failed', 'the order failed on-chain (status failed); nothing was opened'],
    [7, 'pending', 'still pending when the wait ran out; the action stands (resume command printed)'],
    [8, 'declined', 'declined at a confirmation; nothing was sent'],
    [9, 'changes', '`hedge plan`: the account is not at the target (changes are needed)'],
    [10, 'alert', '`--watch --exit-on-alert`: an alert fired'],
    [
      11,
      'held',
      'another live process holds this action or the account lock (pid, host and since named), or this run only observed its action; this run did not act',
    ],
    [
      12,
      'unresolved',
      "an action's outcome cannot be told (past the key lifetime with nothing that proves it did not land, or a side moved by an actor outside hedge); nothing was resent: `hedge journal resolve ID --landed|--not-landed`, or `hedge resume ID --resend-unproven`; also a `close` that leaves its side open under a hedge another actor opened since (named)",
    ],
    [
      13,
      'state',
      "local state (the config folder, the journal, the demo state, a team store) cannot be used: unwritable, unreachable, a file where a folder goes, a symlink or corrupt; or a journal row to be sent again does not verify as this account's own or its key already has a finished row (`unverified_row`); nothing was sent; the path or row is named",
    ],
    [
      14,
      'unreadable',
      'the server answered in a way hedge could not read (the field and what came are named); not a network failure',
    ],
    [
      15,
      'keeper-down',
      '`hedge keep status`: no keeper is running for this account (dead, hung, stopped, or never started here)',
    ],
    [
      16,
      'repeated',
      'the same write (same request, same account) finished within the repeat window and the side still shows exactly what it left: likely a re-run of a command killed after its action; nothing was sent (`--again` sends another); a refusal of its own comes first (an `open --ref` of an active deal: 3)',
    ],
    [
      17,
      'until-never',
      '`--until EXPR`: what was read can no longer change (a hedge closed or failed) and the condition is false on it, so it can never hold; stopped at once; under --json that data is on stdout',
    ],
    [
      124,
      'until',
      '`--until EXPR`: the condition never became true within the time bound (--timeout, default 120 s); under --json the last data is on stdout',
    ],
    [129, 'hangup', 'stopped by SIGHUP (terminal closed); an unresolved action stays in the journal'],
    [130, 'interrupted', 'interrupted (Ctrl-C); an unresolved action stays in the journal'],
    [143, 'terminated', 'stopped by SIGTERM; an unresolved action stays in the journal'],
  ] as const
).map(([code, name, meaning]) => ({ code, name, meaning }));

/** The exit code of a name in EXIT_CODES (`changes` for a plan that is not at target). */
export function exitCodeNamed(name: (typeof EXIT_CODES)[number]['name']) {
  return EXIT_CODES.find((entry) => entry.name === name)!.code;
}

export type ErrorDescription = ReturnType<typeof describeError>;

export function describeError(error: unknown) {
  const hedge = error instanceof HedgeError ? error : undefined;
  const facts = hedge?.facts() ?? { exitCode: 1, code: 'unexpected' };
  const exitCode = facts.exitCode;
  const guide = error instanceof ApiError ? guideFor(error.code, error.status) : undefined;
  const kind = EXIT_CODES.find((entry) => entry.code === exitCode)!.name;
  return {
    exitCode,
    code: facts.code ?? kind,
    kind,
    message: error instanceof Error ? error.message : String(error),
    hint:
      facts.code === 'unexpected'
        ? 'Run again with --verbose for the stack trace, and report it.'
        : (hedge?.hint ?? guide?.next),
    details: facts.details ?? {},
    status: facts.status ?? null,
    idempotencyKey: hedge?.idempotencyKey,
    journalId: hedge?.journalId,
    ...(guide && { requestId: (error as ApiError).requestId, sentence: guide.sentence }),
    ...(error instanceof ApiError && { server: { words: error.serverMessage, endpoint: error.endpoint } }),
  };
}

/** The JSON a script reads on stderr under --json (and an agent as a tool error). */
export function errorAsJson({
  code,
  kind,
  message,
  details,
  status,
  requestId,
  idempotencyKey,
  hint,
}: ErrorDescription) {
  return {
    code,
    class: kind,
    message,
    details,
    status,
    ...(requestId && { request_id: requestId }),
    ...(idempotencyKey && { idempotency_key: idempotencyKey }),
    ...(hint && { hint }),
  };
}

/** A failure as one event's fields (a keeper's `error` event), described as every command describes it: its code, the exit code a command would end with, the sentence, what to do next, and the journal entry it names. */
export function errorAsEventFields(error: unknown) {
  const { code, exitCode, message, hint, idempotencyKey, journalId, details } = describeError(error);
  const journal = journalId ?? details.journal_id;
  return {
    code,
    exit_code: exitCode,
    message,
    ...(hint && { hint }),
    ...(idempotencyKey && { idempotency_key: idempotencyKey }),
    ...(typeof journal === 'string' && { journal_id: journal }),
  };
}

/** A failure as the runner reports it (the CLI's and the agent's runs alike): every `hedge …` command its message and hint name is written as the user runs it — the program as run and the flags that chose the environment (`--demo`, `--profile NAME`) once — for the text written where no context is at hand. */
export function describeFailure(error: unknown, run: Invocation) {
  const described = describeError(error);
  described.message = asRun(described.message, run);
  described.hint &&= asRun(described.hint, run);
  return described;
}
