// Every failure a command can end with is one of these types, each carrying its exit code, JSON code and details (src/platform/terminal/exit-codes.ts says them).

/** What a failure says about itself in its JSON `details`. */
type Details = Record<string, unknown>;

/** What a failure is told besides its message: its next step and cause, and what its JSON says where it has them: its own `code` (else its kind's), `details`, the HTTP status. */
interface Told {
  hint?: string;
  cause?: unknown;
  code?: string;
  details?: Details;
  status?: number;
}

/** How a failure ends a command: its exit code, the JSON `code` (the exit code's name unless given), details. */
type ErrorFacts = Told & { exitCode: number };

export class HedgeError extends Error {
  readonly hint?: string;
  idempotencyKey?: string;
  /** The journal entry of the write that failed, where one was journaled. */
  journalId?: string;
  code?: string;
  details?: Details;
  status?: number;
  constructor(message: string, { hint, cause, code, details, status }: Told = {}) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = new.target.name;
    Object.assign(this, { hint, code, details, status });
  }

  facts(): ErrorFacts {
    return { exitCode: 1, code: 'unexpected' };
  }
}

/** A failure of one exit code, and of one JSON code where that is not the exit code's name (unless it carries its own). */
const failure = (exitCode: number, code?: string) =>
  class extends HedgeError {
    override facts(): ErrorFacts {
      return { exitCode, code: this.code ?? code, details: this.details, status: this.status };
    }
  };

/** Bad arguments or options: nothing was sent. */
export class UsageError extends failure(2) {}

/** A request that would go somewhere other than the profile's base URL's origin (another host or port, or a URL carrying a user and password): a resumed journal row, a server's next-page link, any path. */
export class OffOriginError extends UsageError {
  override code = 'off_origin';
}

/** Missing, malformed or refused API key, or no profile at all. */
export class AuthError extends failure(4) {}

export class ConfigError extends failure(1, 'config') {}

/** A file the command was asked to write (an `--html` page) that could not be written: exit 1, as a lost stdout. */
export class OutputError extends failure(1, 'output') {}

/** A pre-trade check refused the action before anything was sent (same exit code as an API 4xx). */
export class PreTradeCheckError extends failure(3) {
  declare readonly code: string;
  declare readonly details: Details;
  constructor(code: string, message: string, details: Details, hint?: string) {
    super(message, { hint, code, details });
  }
}

export class ApiError extends HedgeError {
  declare readonly status: number;
  declare readonly code: string;
  declare readonly details: Details;
  readonly requestId?: string;
  readonly endpoint: string;
  readonly ambiguous: boolean;
  /** The server's own words (its error.message), kept apart: the message may be added to by hedge. */
  readonly serverMessage: string;
  constructor(
    init: Told & {
      status: number;
      code: string;
      message: string;
      requestId?: string;
      endpoint: string;
      ambiguous?: boolean;
    },
  ) {
    super(init.message, { ...init, details: init.details ?? {} });
    this.ambiguous = init.ambiguous === true;
    this.serverMessage = init.message;
    this.requestId = init.requestId;
    this.endpoint = init.endpoint;
  }

  override facts() {
    const { status } = this;
    const exitCode = status === 401 || status === 403 ? 4 : status >= 500 || status === 429 ? 5 : 3;
    return { exitCode, code: this.code, details: this.details, status };
  }

  /** The same refusal with another next step (the caller knows better what to do about it). */
  withHint(hint: string) {
    return new ApiError({ ...this, message: this.message, hint });
  }
}

/** A clear refusal: the server looked at the request and did nothing (4xx with only an error; a 429 asks to come back,
 * and a key still in flight may yet act). */
export function isRejection(error: unknown): error is ApiError {
  return (
    error instanceof ApiError &&
    !error.ambiguous &&
    error.status >= 400 &&
    error.status < 500 &&
    error.status !== 429 &&
    error.code !== 'idempotency_in_flight'
  );
}

/** No usable answer after every retry: connection refused/reset, timeouts, 5xx, 429 exhausted. */
export class NetworkError extends failure(5, 'network') {
  readonly endpoint: string;
  readonly attempts: number;
  /** No attempt left this machine (every connection refused, a TLS handshake that failed): the server saw nothing. */
  readonly notSent: boolean;
  /** The server refused every attempt it got before acting (a 429), the others never sent: nothing was done. */
  readonly notDone: boolean;
  retryAfterMs?: number;
  constructor(
    message: string,
    init: Told & { endpoint: string; attempts: number; notSent?: boolean; notDone?: boolean },
  ) {
    super(message, {
      ...init,
      details: {
        endpoint: init.endpoint,
        attempts: init.attempts,
        ...(init.notSent && { not_sent: true }),
        ...(init.notDone && { not_done: true }),
      },
    });
    this.endpoint = init.endpoint;
    this.attempts = init.attempts;
    this.notSent = init.notSent === true;
    this.notDone = init.notDone === true;
  }
}

/** The server answered in a way hedge could not read (exit 14 `unreadable`, never "network failure"): not JSON, not the envelope, or a field hedge needs to act safely that is missing or of another kind. */
export class InvalidResponseError extends failure(14) {
  readonly endpoint: string;
  constructor(message: string, init: Told & { endpoint: string; status: number; field?: string; received?: string }) {
    const { endpoint, field, received } = init;
    super(message, {
      ...init,
      hint: init.hint ?? UNREADABLE_HINT,
      details: { endpoint, ...(field && { field }), ...(received !== undefined && { received }) },
    });
    this.endpoint = endpoint;
  }
}

const UNREADABLE_HINT =
  'Nothing was changed by this read. Run `hedge doctor` to see which answers hedge can read, and report this with the output of --verbose.';

/** The on-chain order did not land (`failed`): nothing was opened. */
export class OrderFailedError extends failure(6, 'order_failed') {
  constructor(message: string, hedgeId: string, hint?: string) {
    super(message, { hint, details: { hedge_id: hedgeId } });
  }
}

/** The wait ran out before the action resolved; the action itself stands. */
export class StillPendingError extends failure(7, 'still_pending') {
  constructor(
    message: string,
    readonly resumeCommand: string,
    readonly record?: unknown,
  ) {
    super(message, { hint: `Resume the wait with: ${resumeCommand}`, details: { resume: resumeCommand } });
  }
}

/** The abort reason when a signal stopped the command; its exit code is the signal's (130, 143, 129). */
export class StopSignal extends Error {
  constructor(
    readonly signal: string,
    readonly exitCode: 129 | 130 | 143,
  ) {
    super(`stopped by ${signal}`);
  }
}

/** The exit code of a stop signal's abort reason (StopSignal carries 129, 130 or 143); 130 (Ctrl-C) when nothing says otherwise. */
export function stopExitCode(reason: unknown) {
  const code = (reason as { exitCode?: unknown } | undefined)?.exitCode;
  return code === 129 || code === 143 ? code : 130;
}

/** Ctrl-C (130), SIGTERM (143) or SIGHUP (129) at a prompt or during a wait. */
export class InterruptedError extends HedgeError {
  /** Set again by the runner, which knows the signal, where the interrupted part (a prompt, a request) saw only its abort. */
  exitCode: 129 | 130 | 143;
  /** `stoppedBy`: the abort reason of the signal that stopped the command (a flow hands it over as it is); its exit code (129, 130, 143) is chosen here, with the other errors' codes, not by the flow. */
  constructor(message: string, options: Told & { stoppedBy?: unknown } = {}) {
    super(message, options);
    this.exitCode = stopExitCode(options.stoppedBy);
  }

  override facts() {
    return { exitCode: this.exitCode };
  }
}

/** A refusal whose hint is required and whose details go into its JSON. */
const detailed = (exitCode: number, code?: string) =>
  class extends failure(exitCode, code) {
    declare details: Details;
    constructor(message: string, init: Told & { hint: string }) {
      super(message, { ...init, details: init.details ?? {} });
    }
  };

/** A "No" at a confirmation: nothing was sent. */
export class DeclinedError extends failure(8) {}

/** A write whose answer does not say what happened (the connection dropped after sending, an answer that is both data and error, a 2xx carrying an error, Ctrl-C while it was out): the server may have acted. */
export class OutcomeUnknownError extends detailed(5, 'outcome_unknown') {
  constructor(message: string, init: Told & { idempotencyKey: string; hint: string }) {
    super(message, init);
    this.idempotencyKey = init.idempotencyKey;
  }
}

/** Another live process holds this action (an in-flight journal entry) or the account lock this command needs, or the run only observed another process's action: this run did not act (exit 11). */
export class HeldError extends failure(11) {
  /** `holder`: the journal's Holder, of which its pid, host and since are said (errors import nothing). */
  constructor(
    message: string,
    { holder, ...init }: Told & { holder?: { pid: number; host: string; since: string } } = {},
  ) {
    super(message, {
      ...init,
      details: {
        ...(holder && { holder: { pid: holder.pid, host: holder.host, since: holder.since } }),
        ...init.details,
      },
    });
  }
}

/** The same write (same request, same account) finished moments ago, the side still shows exactly what it left, and this run sent nothing: a re-run of a command killed after its action was done must not do it again silently (exit 16, `repeated`; `--again` sends another one). */
export class RepeatedActionError extends detailed(16, 'repeated_action') {}

/** The outcome of an earlier action cannot be told (older than the key lifetime, the book inconclusive), and there is no terminal to ask on: nothing was resent (exit 12). */
export class UnresolvedError extends detailed(12) {}

/** An add or reduce the server accepted that did not happen: the hedge it was to change settled or was closed first (exit 3, like a refusal: nothing of it is on the book). */
export class NotAppliedError extends detailed(3, 'not_applied') {}

/** Local state cannot be used — the journal (or another local store) is unwritable, unreadable, a symbolic link, or corrupt beyond use (exit 13). */
export class StateError extends failure(13) {
  readonly path?: string;
  constructor(message: string, options: Told & { path?: string } = {}) {
    super(message, { ...options, details: options.path ? { path: options.path } : {} });
    this.path = options.path;
  }
}

/** A journal row that would be sent again does not verify as this account's own (no seal, or a seal that does not match what it would send), its key already has a finished row (a duplicate), or it no longer plans to the hash journaled with it: it is not sent (exit 13, `unverified_row`). */
export class UnverifiedRowError extends StateError {
  override code = 'unverified_row';
  constructor(
    message: string,
    options: { journalId: string; trust: 'unsealed' | 'forged' | 'duplicate' | 'plan'; hint?: string },
  ) {
    super(message, options);
    this.journalId = options.journalId;
    this.details = { journal_id: options.journalId, seal: options.trust };
  }
}

/** An `--until EXPR` that did not hold: `waitedMs` says how long it was waited for. */
const untilFailure = (exitCode: number, code: string) =>
  class extends detailed(exitCode, code) {
    constructor(message: string, init: { expression: string; polls: number; waitedMs?: number; hint: string }) {
      const { expression: until, polls, waitedMs, hint } = init;
      super(message, { hint, details: { until, polls, ...(waitedMs !== undefined && { waited_ms: waitedMs }) } });
    }
  };

/** `--until EXPR` on data that can no longer change (a hedge closed or failed) where the condition is false: it can never hold. */
export class UntilNeverError extends untilFailure(17, 'until_never') {}

/** `--until EXPR` never held within the time bound: the reads were fine, the condition was not met. */
export class UntilNotMetError extends untilFailure(124, 'until_not_met') {}
