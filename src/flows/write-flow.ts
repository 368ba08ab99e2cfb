// The one write flow. Every state-changing command — open, add, reduce, close, and roll's legs,
// apply's steps, the agent's write tools, `hedge resume` — goes through `runWrite`:
//
//   live guard → journal match (resume or new key) → checks → dry-run → preview + confirm
//   → journal entry on disk → send with the key → journal outcome → wait → journal outcome → render
//
// What differs between actions is data: a `WriteAction` (flows/trade-actions.ts). The journal
// entry is written and flushed before the request leaves the machine, so a process killed at any
// point leaves a record whose key the next run (or `hedge resume`) reuses: the server answers a
// repeated key with the original result, and the action happens once.
import type { ApiRequest } from '../api/transport.js';
import { ApiError, DeclinedError, HedgeError, InterruptedError, NetworkError, OutcomeUnknownError, StillPendingError, UsageError } from '../errors.js';
import { isUnresolved, JournalError, matchesRequest, type JournalEntry, type Journal, type SameRequest } from '../journal/index.js';
import { makeIdempotencyKey, parseIdempotencyKey } from '../domain/idempotency.js';
import type { CommandContext } from '../runtime/context.js';
import { printDryRun } from './dry-run.js';
import { guardLiveAction } from './live-guard.js';

/** The options every write command shares (WRITE_OPTIONS in the manifest). */
export interface WriteOptions {
  /** false with --no-wait: return at `submitted`. */
  wait: boolean;
  dryRun: boolean;
  /** --idempotency-key: resume this exact key. */
  idempotencyKey?: string;
  /** --new: a fresh action even if the same one is unresolved in the journal. */
  fresh: boolean;
}

export function writeOptionsFrom(options: { wait?: boolean; dryRun?: boolean; idempotencyKey?: string; new?: boolean }): WriteOptions {
  return {
    wait: options.wait !== false,
    dryRun: options.dryRun === true,
    idempotencyKey: parseIdempotencyKey(options.idempotencyKey),
    fresh: options.new === true,
  };
}

/** What the flow knows when it hands over to an action's hooks. */
export interface WriteRun {
  key: string;
  /** True when this run continues an earlier one (its key): checks are skipped, a change may have landed. */
  resumed: boolean;
  entry?: JournalEntry;
  /** --idempotency-key named a key this journal does not know: nothing says it was confirmed here. */
  unverified?: boolean;
}

/** One state-changing action, as data and hooks. `S` is the submit answer, `R` the resolution. */
export interface WriteAction<S, R> {
  /** Journal command word: open, add, reduce, close. */
  command: string;
  /** Completes "this will …" in the live banner and "--yes is required to …". */
  verb: string;
  /** The request, planned with the key (the dry run prints it; the journal records it). */
  plan(key: string): ApiRequest;
  /** Pre-trade checks; not run when resuming (the first run's own effect may now fill the headroom). */
  check?(): Promise<void>;
  /** Facts read before the send that the wait needs (e.g. the notional before an add); journaled. */
  before?(run: WriteRun): Promise<Record<string, unknown> | undefined>;
  /** Human preview before the confirmation (a quote card). */
  preview?(): Promise<void>;
  /** The confirmation question on a live key (the guard adds the LIVE marker). */
  question(): string;
  send(key: string): Promise<S>;
  /** Journal fields from the submit answer. */
  submitted(answer: S): { hedge_id?: string; order_tx_hash?: string };
  /** Waits until the action resolved; `before` is what before() returned (or what the journal kept). */
  wait(answer: S, context: { startedAt: number; before?: Record<string, unknown>; run: WriteRun }): Promise<R>;
  /** filled / done / failed, from the resolution. */
  outcome(result: R): 'filled' | 'done' | 'failed';
  renderSubmitted(answer: S, run: WriteRun): void;
  renderResolved(result: R, answer: S, run: WriteRun): void;
  /** A group id and leg name when this action is one leg of several (roll, apply). */
  group?: string;
  leg?: string;
  /** The command as the user could type it again (journal, resume). */
  argv: string[];
  /** The caller already asked (the open wizard confirms with the quote in view). */
  confirmed?: boolean;
  /** How to finish this action when its outcome is unknown; default resumeHint (a leg of several says how its whole action is finished). */
  resumeHint?(entry: Pick<JournalEntry, 'id' | 'idempotency_key'>): string;
}

export type WriteResult<S, R> =
  | { kind: 'dry-run' }
  | { kind: 'submitted'; answer: S; entry: JournalEntry }
  | { kind: 'resolved'; answer: S; result: R; entry: JournalEntry };

export interface Identity {
  profile?: string;
  environment: 'live' | 'test';
  host: string;
  keyId: string;
  /** Set when the write came through `hedge mcp`. */
  via?: 'agent';
}

/** Where the current credentials send, in the journal's own terms. */
export async function identityOf(ctx: CommandContext): Promise<Identity> {
  const credentials = await ctx.credentials();
  const { keyFingerprint } = await import('../journal/index.js');
  return {
    profile: credentials.profileName,
    environment: credentials.environment,
    // The demo's port changes every run; its journal entries must still match across runs.
    host: credentials.sources.baseUrl === 'demo' ? 'demo' : new URL(credentials.baseUrl).host,
    keyId: keyFingerprint(credentials.apiKey),
    via: ctx.origin === 'agent' ? 'agent' : undefined,
  };
}

function timeOf(iso: string): string {
  return iso.slice(11, 19);
}

/** The hint on every unresolved write: the way to finish it with its own key. */
export function resumeHint(ctx: CommandContext, entry: Pick<JournalEntry, 'id' | 'idempotency_key'>): string {
  return `The server may have acted. Finish it safely with \`${ctx.hedgeCommand('resume', entry.id)}\`, or run the same command again (with --idempotency-key ${entry.idempotency_key} from another machine): the key is reused, so it cannot act twice.`;
}

/**
 * Decides the key: --idempotency-key as given; else an unresolved journal entry for the same
 * request (resumed, and said so); else a fresh one. With --new, the pending one is shown and set aside.
 */
async function chooseKey(ctx: CommandContext, journal: Journal, match: SameRequest, options: WriteOptions): Promise<WriteRun> {
  if (options.idempotencyKey) {
    const key = options.idempotencyKey;
    const known = (await journal.list()).find((candidate) => candidate.idempotency_key === key);
    if (known === undefined) return { key, resumed: true, unverified: true };
    // A key stands for one request: sent with another body (or by another account) it would be
    // refused at best, and the journal would credit this run to the earlier action.
    const resume = `\`${ctx.hedgeCommand('resume', known.id)}\``;
    if (!matchesRequest(known, match)) {
      throw new UsageError(
        `--idempotency-key: that key belongs to journal ${known.id} (a ${known.command} started ${timeOf(known.created_at)} UTC) with another request, account or environment; a key is reused only for the same request (${resume} finishes that one).`,
      );
    }
    if (known.group !== undefined && known.group !== match.group) {
      throw new UsageError(`--idempotency-key: that key belongs to a leg of ${known.group} (journal ${known.id}); finish that action with ${resume}.`);
    }
    // A planned leg was never sent: nothing of it can have happened yet.
    return { key, resumed: known.outcome !== 'planned', entry: isUnresolved(known) ? known : undefined };
  }
  const pending = await journal.findUnresolvedMatch(match);
  if (pending && !options.fresh) {
    ctx.output.note(
      ctx.output.chalk.yellow(
        `Resuming the ${pending.command} started ${timeOf(pending.created_at)} UTC (journal ${pending.id}, outcome ${pending.outcome}) with key ${pending.idempotency_key}: the server returns its original result or acts once.`,
      ),
    );
    return { key: pending.idempotency_key, resumed: true, entry: pending };
  }
  if (pending && options.fresh) {
    ctx.output.warn(
      `--new: journal ${pending.id} (the same ${pending.command}, started ${timeOf(pending.created_at)} UTC, outcome ${pending.outcome}) is set aside; this run is a new action with a new key.`,
    );
    await journal.update(pending.id, { outcome: 'abandoned', message: 'set aside by --new' });
  }
  return { key: makeIdempotencyKey(), resumed: false };
}

/** A clear refusal: the server looked at the request and did nothing (4xx with only an error). */
export function isRejection(error: unknown): error is ApiError {
  return (
    error instanceof ApiError && !error.ambiguous && error.status >= 400 && error.status < 500 && error.status !== 429 && error.code !== 'idempotency_in_flight'
  );
}

export async function runWrite<S, R>(ctx: CommandContext, action: WriteAction<S, R>, options: WriteOptions): Promise<WriteResult<S, R>> {
  // Decided before any request, reads included: a refused live run sends nothing at all.
  const guard = await guardLiveAction(ctx, { action: action.verb, dryRun: options.dryRun });
  const journal = await ctx.journal();
  const identity = await identityOf(ctx);
  const probe = action.plan('');
  const match: SameRequest = {
    environment: identity.environment,
    base_url_host: identity.host,
    key_id: identity.keyId,
    command: action.command,
    body: probe.body ?? null,
    group: action.group,
    leg: action.leg,
  };
  const run = options.dryRun
    ? { key: options.idempotencyKey ?? makeIdempotencyKey(), resumed: options.idempotencyKey !== undefined }
    : await chooseKey(ctx, journal, match, options);

  if (!run.resumed) await action.check?.();
  else ctx.log('Resuming: pre-trade checks skipped (the server replays the original outcome or decides).');
  if (options.dryRun) {
    await printDryRun(ctx, action.plan(run.key));
    return { kind: 'dry-run' };
  }
  // Read only for the wait: --no-wait sends nothing more than the action needs.
  const before = run.entry?.context ?? (options.wait ? await action.before?.(run) : undefined);
  if (!run.resumed || run.unverified) {
    await action.preview?.();
    if (!action.confirmed) await guard.confirm(action.question());
  }

  const request = action.plan(run.key);
  const entry =
    run.entry ??
    (await journal.begin(entryFields(identity, action, request, run.key, before)));
  const current: WriteRun = { ...run, entry };
  // Write-ahead as for a new entry: once this is on disk the request may leave.
  if (entry.outcome === 'planned') await journal.update(entry.id, { outcome: 'pending' });

  // From here on the request has left the machine: a journal that cannot be written must not hide
  // that, nor the key (the entry on disk stays resumable).
  const afterSend = <T>(write: () => Promise<T>) => journalAfterSend(ctx, entry, write, action.resumeHint?.bind(action));
  let answer: S;
  try {
    answer = await action.send(run.key);
  } catch (error) {
    throw await afterSend(() =>
      recordSendFailure(ctx, journal, entry, error, { earlier: run.entry !== undefined && run.entry.outcome !== 'planned', hintFor: action.resumeHint?.bind(action) }),
    );
  }
  const startedAt = ctx.clock.now();
  const ids = action.submitted(answer);
  let recorded = await afterSend(() => journal.update(entry.id, { outcome: 'submitted', ...ids }));

  if (!options.wait) {
    recorded = await afterSend(() => journal.update(entry.id, { outcome: 'done', message: 'submitted; not waited (--no-wait)', resolved_at: new Date(ctx.clock.now()).toISOString() }));
    action.renderSubmitted(answer, current);
    return { kind: 'submitted', answer, entry: recorded };
  }
  let result: R;
  try {
    result = await action.wait(answer, { startedAt, before, run: current });
  } catch (error) {
    throw await afterSend(() => recordWaitFailure(ctx, journal, entry, error));
  }
  const outcome = action.outcome(result);
  recorded = await afterSend(() => journal.update(entry.id, { outcome, resolved_at: new Date(ctx.clock.now()).toISOString() }));
  action.renderResolved(result, answer, current);
  return { kind: 'resolved', answer, result, entry: recorded };
}

/** What the journal records of an action before it is sent (never the API key: only its fingerprint). */
function entryFields<S, R>(
  identity: Awaited<ReturnType<typeof identityOf>>,
  action: WriteAction<S, R>,
  request: ReturnType<WriteAction<S, R>['plan']>,
  key: string,
  context: Record<string, unknown> | undefined,
) {
  return {
    profile: identity.profile,
    environment: identity.environment,
    base_url_host: identity.host,
    key_id: identity.keyId,
    ...(identity.via ? { via: identity.via } : {}),
    command: action.command,
    argv: action.argv,
    request: { method: request.method, path: request.path, body: request.body ?? null },
    idempotency_key: key,
    group: action.group,
    leg: action.leg,
    context,
  };
}

/**
 * Journals an action that a multi-leg action will send later (outcome planned), before any of its
 * legs is sent: a run killed at any point then leaves a record of every leg still to come.
 * `runWrite` with the same key sends it later (planned turns pending on disk right before the send).
 */
export async function journalAhead<S, R>(ctx: CommandContext, action: WriteAction<S, R>, key: string, context?: Record<string, unknown>): Promise<JournalEntry> {
  const journal = await ctx.journal();
  const identity = await identityOf(ctx);
  const request = action.plan(key);
  return journal.begin({ ...entryFields(identity, action, request, key, context), outcome: 'planned' });
}

/**
 * Runs a journal write made after the request left. If the journal cannot be written (disk full,
 * a lock held too long), the report is "sent, outcome not recorded" with the key and the way to
 * finish it, never a bare journal error that would hide that the server may have acted.
 */
async function journalAfterSend<T>(
  ctx: CommandContext,
  entry: JournalEntry,
  write: () => Promise<T>,
  hintFor: (entry: JournalEntry) => string = (unresolved) => resumeHint(ctx, unresolved),
): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (!(error instanceof JournalError)) throw error;
    throw new OutcomeUnknownError(`The ${entry.command} was sent, but the journal could not record what happened next: ${error.message}`, {
      idempotencyKey: entry.idempotency_key,
      hint: hintFor(entry),
      details: { journal_id: entry.id },
      cause: error,
    });
  }
}

/** The send failed: a clear refusal is journaled as rejected; anything else leaves the outcome unknown. */
async function recordSendFailure(
  ctx: CommandContext,
  journal: Journal,
  entry: JournalEntry,
  error: unknown,
  options: { earlier: boolean; hintFor?: (entry: JournalEntry) => string },
): Promise<unknown> {
  const hintFor = options.hintFor ?? ((unresolved: JournalEntry) => resumeHint(ctx, unresolved));
  if (error instanceof HedgeError) error.idempotencyKey ??= entry.idempotency_key;
  // An earlier send under this key may have acted: nothing this run learnt resolves the entry.
  if (options.earlier && error instanceof ApiError && error.code === 'idempotency_key_reuse') {
    await journal.update(entry.id, { error_code: error.code, message: error.message });
    return error;
  }
  // Refused before anything left the machine (no time left under --timeout): this run did nothing.
  if (error instanceof NetworkError && error.attempts === 0) {
    if (!options.earlier) await journal.update(entry.id, { outcome: 'abandoned', message: `not sent: ${error.message}`, resolved_at: new Date(ctx.clock.now()).toISOString() });
    return error;
  }
  if (isRejection(error)) {
    await journal.update(entry.id, { outcome: 'rejected', error_code: error.code, message: error.message, resolved_at: new Date(ctx.clock.now()).toISOString() });
    return error;
  }
  const message = error instanceof Error ? error.message : String(error);
  await journal.update(entry.id, { outcome: 'unknown', error_code: error instanceof ApiError ? error.code : undefined, message });
  const hint = hintFor(entry);
  if (error instanceof InterruptedError || error instanceof DeclinedError) {
    const interrupted = new InterruptedError(`${message} The request may have reached the server: its outcome is unknown.`, { hint, exitCode: ctx.stopExitCode });
    interrupted.idempotencyKey = entry.idempotency_key;
    return interrupted;
  }
  return new OutcomeUnknownError(`The ${entry.command} was sent, but its outcome is unknown: ${message}`, {
    idempotencyKey: entry.idempotency_key,
    hint,
    status: error instanceof ApiError ? error.status : undefined,
    details: { journal_id: entry.id },
    cause: error,
  });
}

/** The wait ended without a resolution: the action stands, the entry stays unresolved. */
async function recordWaitFailure(ctx: CommandContext, journal: Journal, entry: JournalEntry, error: unknown): Promise<unknown> {
  if (error instanceof HedgeError) error.idempotencyKey ??= entry.idempotency_key;
  const resume = ctx.hedgeCommand('resume', entry.id);
  // The errors made here carry the key too: the report prints it (the action stands under it).
  if (error instanceof StillPendingError) {
    await journal.update(entry.id, { message: error.message });
    // The wait's own resume command stays the hint; the journal's way to finish it is said too.
    return withKey(new StillPendingError(`${error.message} (journal ${entry.id}: \`${resume}\` also finishes it)`, error.resumeCommand, error.record), entry);
  }
  if (error instanceof InterruptedError) {
    const hint = `${error.hint ? `${error.hint}; or` : 'The action stands.'} pick up the wait with: ${resume}`;
    return withKey(new InterruptedError(error.message, { hint, exitCode: ctx.stopExitCode }), entry);
  }
  return error;
}

function withKey<E extends HedgeError>(error: E, entry: Pick<JournalEntry, 'idempotency_key'>): E {
  error.idempotencyKey = entry.idempotency_key;
  return error;
}
