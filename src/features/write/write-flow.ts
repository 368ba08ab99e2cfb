// The one write flow: every state-changing command goes through `runWrite`. The journal entry is on disk before
// the request leaves, so a killed run leaves a key the next run reuses, and the action happens once. The key a run acts
// under, and what the book says an earlier run of it did, are resume-repeat.ts's, beside this normal path.
import type { ApiRequest, SendHooks } from '../../platform/api/transport.js';
import { redactKey } from '../../core/security/secrets.js';
import {
  ApiError,
  DeclinedError,
  HedgeError,
  HeldError,
  InterruptedError,
  isRejection,
  NetworkError,
  NotAppliedError,
  OutcomeUnknownError,
  PreTradeCheckError,
  StillPendingError,
  UnresolvedError,
} from '../../core/errors.js';
import { DEFAULT_WAIT_BOUND_MS } from '../../platform/config/wait-bound.js';
import { identityOf, ownRowTest, rowSealerOf } from './row-trust.js';
import {
  describeHolder,
  JournalError,
  NOT_WAITED_MESSAGE,
  type Holder,
  type JournalEntry,
  type JournalPatch,
  type SideAfter,
} from '../../platform/journal/index.js';
import { safeText, messageOf } from '../../core/security/safe-text.js';
import type { WritePorts } from './ports.js';
import type { Trade } from '../../platform/runtime/context.js';
import { confirmOrStop, guardLiveAction, planHash, samePlan, sayMovedSinceAsked, tradesUsd } from './confirm.js';
import { utcIso } from '../../core/utc-text.js';
import { formatSpan } from '../../core/duration.js';
import { withoutUndefined, type JsonObject } from '../../core/objects.js';
import {
  attributedContext,
  begunHere,
  chooseKey,
  othersSince,
  reconcileEarlier,
  type Earlier,
} from './resume-repeat.js';
import {
  entryFields,
  heldError,
  makeIdempotencyKey,
  resolveCommands,
  resumeCommand,
  ROLL_GROUP_PREFIX,
  say,
  serverNow,
  shownHeaders,
  type Held,
  type Resolved,
  type RunKey,
  type WriteAction,
  type WriteOptions,
  type WritePlan,
  type WriteRun,
} from './write-run.js';

// Check and act under one lock: a per-account lock of the journal, so two processes never both
// decide from the same book. A waiter reads the book afresh; still held at its bound, exit 11.
/** Runs `body` holding the account lock `parts` names (at once when `held` has it already); `what` says in messages what
 * is guarded ("the book of this account"). `body` is given the locks held then, and told who held the lock first when
 * this run waited for it: the book may have changed under it. */
export async function withAccountLock<T>(
  ports: WritePorts,
  what: string,
  parts: string[],
  body: (held: Held, waitedFor?: Holder) => Promise<T>,
  held: Held = new Set(),
) {
  const journal = await ports.journal();
  // The account's: its key in its environment, whichever host name of the base URL a run goes through.
  const { environment, key_id } = await identityOf(ports);
  const scope = [environment, key_id, ...parts].join('|');
  if (held.has(scope)) return body(held);
  let answer = await journal.lock(scope, { waitMs: 0 });
  let waitedFor: Holder | undefined;
  if (!answer.held) {
    waitedFor = answer.holder;
    const now = ports.clock.now();
    const deadline = ports.waitDeadline(now);
    const waitMs = deadline === undefined ? Number.MAX_SAFE_INTEGER : Math.max(0, deadline - now);
    const bound = deadline === undefined ? 'no bound (--timeout 0)' : `at most ${formatSpan(waitMs)}`;
    say(
      ports,
      'waiting-for-lock',
      'note',
      `Waiting for ${what}: another hedge process holds it (${safeText(describeHolder(answer.holder))}); ${bound}.`,
    );
    answer = await journal.lock(scope, { waitMs });
    if (!answer.held)
      throw new HeldError(
        `${what[0].toUpperCase()}${what.slice(1)} is still held by another hedge process (${safeText(describeHolder(answer.holder))}); this run stopped waiting and sent nothing.`,
        {
          holder: answer.holder,
          details: { scope: parts.join('|') },
          hint: `Run it again once that process is done${deadline === undefined ? '' : `, or wait longer with --timeout SECONDS (now ${formatSpan(waitMs)}; the default is ${formatSpan(DEFAULT_WAIT_BOUND_MS)})`}.`,
        },
      );
  }
  try {
    return await body(new Set([...held, scope]), waitedFor);
  } finally {
    await answer.hold.release();
  }
}

/** Lock: the one place a side's lock is taken, for a plan of several steps (the plan executor's: an apply's, a roll's
 * close then open, a keeper's step) and for every lone write. The sides' locks in one order (two
 * holders of several never deadlock), after the book's when `book` (a plan: a second apply or roll waits for the first;
 * `run` is told who held it meanwhile) unless `held`, the locks its caller holds, has every one of its sides already (a
 * roll a keeper's step makes). `run` is given the locks held, to hand to the writes it makes. */
export const lock = <T>(
  ports: WritePorts,
  plan: {
    sides: ReadonlyArray<{ market: string; side: string }>;
    book?: boolean;
    run: (held: Held, waitedFor?: Holder) => Promise<T>;
  },
  held: Held = new Set(),
) => {
  // Each side once, in the order of its key `MARKET|side`.
  const keys = [...new Set(plan.sides.map(({ market, side }) => `${market.toUpperCase()}|${side}`))].sort();
  const underSides = (outer: Held, waitedFor?: Holder) =>
    keys.reduceRight<(now: Held) => Promise<T>>(
      (inner, key) => (now) => {
        const [market, side] = key.split('|');
        return withAccountLock(ports, `the ${side} side of ${market}`, ['side', market, side], inner, now);
      },
      (now) => plan.run(now, waitedFor),
    )(outer);
  // A plan made inside a step that holds all its sides already (a keeper's roll) decides under that step's locks.
  const inside = keys.length > 0 && keys.every((key) => [...held].some((scope) => scope.endsWith(`|side|${key}`)));
  return plan.book && !inside
    ? withAccountLock(ports, 'the book of this account', ['book'], underSides, held)
    : underSides(held);
};

/** The one write flow, as its named stages (CONTRIBUTING.md, the write path): chooseKey → check → confirm → journal →
 * send → prove → resolve, under the lock stage. Each is a function given what the run read once at its start
 * (`WriteRun`) and what the stages before it returned, each a named value (`RunKey`, `Checked`, `Confirmed`,
 * `Journaled`, `Sent`). */
export async function runWrite<S, R, K = unknown>(...write: Parameters<typeof settleWrite<S, R, K>>) {
  const done = await settleWrite(...write);
  if (done.kind === 'failed') throw done.error;
  return done;
}

/** What one write did — the flow prints none of it: the command (or keeper, roll, apply, agent) shows it. */
export type WriteOutcome<S, R, K = unknown> = Awaited<ReturnType<typeof runWrite<S, R, K>>>;

/** runWrite, a run that failed once under way returned as `failed` with its error and what its confirmation was given
 * on (`approvedOn`): a retry under the server's field name goes on it. */
export async function settleWrite<S, R, K = unknown>(
  ports: WritePorts,
  action: WriteAction<S, R, K>,
  options: WriteOptions,
) {
  // The run as read once at its start (write-run.ts WriteRun).
  const { approved } = action;
  const guard = await guardLiveAction(ports, { action: action.verb, dryRun: options.dryRun, approved });
  const journal = await ports.journal();
  const identity = await identityOf(ports);
  const probe = entryFields(identity, action, '');
  const own = await ownRowTest(ports);
  const run = {
    ports,
    action,
    options,
    guard,
    journal,
    identity,
    probe,
    match: { ...probe, body: probe.request.body },
    own,
    checked: approved?.by === 'plan' || approved?.by === 'retry',
  };
  if (options.dryRun)
    return carryOut(run, {
      key: options.idempotencyKey ?? makeIdempotencyKey(),
      resumed: options.idempotencyKey !== undefined,
    });
  // The same action in flight in another live process: said at once (exit 11), not waited for.
  if (!options.idempotencyKey && !options.fresh) {
    const pending = await journal.findUnresolvedMatch(run.match);
    const holder = pending && (await journal.holderOf(pending.id));
    if (holder) throw heldError(ports, pending, holder);
  }
  // One change in flight per side: decided, sent and seen to land under the side's lock.
  return lock(
    ports,
    { sides: action.moves ? [action.moves] : [], run: async () => carryOut(run, await chooseKey(run)) },
    options.held,
  );
}

/** What an agent's checks made of the write before it leaves (gateTheSend): what its confirmation holds for
 * (`approvedOn`), what it trades as read under the side's lock (`judged`, and `retried`: as read again before a retry of
 * the send), its sum for the journal (`judgedUsd`), and the hook that asks its limits again before each retry. */
interface Gated {
  approvedOn?: WritePlan;
  judged?: readonly Trade[];
  retried?: () => readonly Trade[] | undefined;
  judgedUsd?: number;
  sendHooks?: SendHooks;
}

/** What the check stage returns: the key, the agent's gate, what the kind's own check read (`kept`), and what the book
 * shows of an earlier send under this key (`earlier`: landed, or recorded done). */
interface Checked<S, K> {
  key: RunKey;
  gated: Gated;
  kept?: K;
  earlier?: Earlier<S>;
}

/** What the confirm stage settled: what the kind read so far (`kept`), the facts journaled before the send (`before`),
 * and the plan the confirmation holds for (`approvedOn`). */
interface Confirmed<K> {
  kept?: K;
  before?: JsonObject;
  approvedOn?: WritePlan;
}

/** What the journal stage wrote: the run's entry, when this run began it (unset: it resumes an earlier one), and what
 * the later stages write to it. */
interface Journaled {
  entry: JournalEntry;
  begunAt?: number;
  writer: EntryWriter;
}

/** What the send stage got: the answer, and when the request left. */
interface Sent<S> {
  answer: S;
  startedAt: number;
}

/** What the write flow asks of an agent's call before a write leaves: the plan a live confirmation token was issued
 * for, and the operator's limits — before the first send; returns the hook that asks its limits before each retry. */
async function gateTheSend({ ports, action, checked }: WriteRun, run: RunKey): Promise<Gated> {
  // A plan's leg was checked with the plan by its caller; a journaled action finished again is no new plan.
  const fresh = !checked && !run.resumed;
  const { planCheck, tradeGate: gate } = ports;
  const approvedPlan = action.approved?.by === 'retry' ? action.approved.plan : undefined;
  const bound = planCheck && (fresh || approvedPlan);
  // The write as it plans on the side now (a close: what it holds), under the side's lock: what it trades.
  const planned = bound || gate ? await action.stages.planned?.(action) : undefined;
  let judged = planned?.shown;
  // A token holds for the plan it was checked on: a retry under the server's field name goes only while it holds.
  if (bound && (fresh || !samePlan(approvedPlan, planned)))
    planCheck.check([action.stages.plan(action, run.key)], judged);
  // An agent's token is its confirmation: it holds for the plan it was checked on.
  const approvedOn = approvedPlan ?? (fresh && planCheck ? planned : undefined);
  // An entry the agent journaled itself is judged anew in place of what it recorded, not on top of it.
  if (gate && !checked)
    await gate.admit(
      judged,
      action.command,
      run.resumed && run.entry?.via === 'agent' ? { finishing: run.entry.id } : undefined,
    );
  if (!gate || judged === undefined) return { approvedOn, judged };
  /** What it trades as read again before a retry of the send (the last read before the send). */
  let retried: readonly Trade[] | undefined;
  return {
    approvedOn,
    judged,
    retried: () => retried,
    judgedUsd: tradesUsd(judged),
    sendHooks: {
      beforeRetry: async (reason) => {
        const now = (await action.stages.planned?.(action))?.shown;
        await gate.admit(now, action.command, { replacing: judged }).catch((error: unknown) => {
          // The attempt before may have acted: not a refusal of the action, whose outcome is unknown.
          throw reason === 'conflict' || !(error instanceof PreTradeCheckError)
            ? error
            : new Error(error.message, { cause: error });
        });
        judged = retried = now;
      },
    } satisfies SendHooks,
  };
}

/** Check: an agent's limits and the plan its token was issued for (asked again before every retry), then the pre-trade
 * checks; a resumed action skips them and reads what the book shows of its earlier send (landed: followed, not sent
 * again). */
async function check<S, K>(run: WriteRun<S, unknown, K>, key: RunKey): Promise<Checked<S, K>> {
  const { ports, action, checked } = run;
  const gated = await gateTheSend(run, key);
  /** What this run read before the send, kept for its later stages (the kind's). */
  let kept: K | undefined;
  if (!key.resumed && !checked) kept = await action.stages.check?.(action);
  else ports.log('Resuming: pre-trade checks skipped (the server replays the original outcome or decides).');
  return { key, gated, kept, earlier: key.entry && (await reconcileEarlier(run, key.entry, key.finished)) };
}

/** Confirm: the facts the wait needs, read before the send; a new action, or a key this journal does not know (nothing
 * says it was confirmed here), shows its preview and asks as its approval decides (`askAsApproved`). */
async function confirm<S, K>(run: WriteRun<S, unknown, K>, { key, gated, kept: read }: Checked<S, K>) {
  const { action, options } = run;
  const earlier = key.entry;
  let kept = read;
  let approvedOn = gated.approvedOn;
  const readBefore = async () => {
    if (earlier) return (await attributedContext(run, earlier)).context;
    const read = options.wait ? await action.stages.before?.(action, kept) : undefined;
    if (!read) return;
    kept = read.kept ?? kept;
    return action.context ? { ...read.journaled, ...action.context } : read.journaled;
  };
  let before = await readBefore();
  if (!key.resumed || !earlier) {
    if (!run.checked) kept = (await action.stages.preview?.(action, kept)) ?? kept;
    approvedOn = await askAsApproved(run, approvedOn, kept, async () => {
      before = await readBefore();
    });
  }
  return { kept, before, approvedOn } satisfies Confirmed<K>;
}

/** How a write is confirmed, decided here from what was approved (`approvedOn`: the plan a "yes" or a token was given
 * on): a plan's or a run's approval goes; an earlier attempt's "yes" goes while the write plans as it did, else a live
 * key (or the wizard) asks, and a moved side is asked about again. A "yes" holds for what the question showed: the
 * write's plan, its hash bound (confirm.ts planHash: its trades, with the side's hedges and their notional). Returns
 * what the confirmation holds for. */
async function askAsApproved<K>(
  { ports, action, guard }: WriteRun<unknown, unknown, K>,
  approvedOn: WritePlan | undefined,
  kept: K | undefined,
  reread: () => Promise<void>,
) {
  const by = action.approved?.by;
  if (by === 'plan' || by === 'run' || (by === 'retry' && !approvedOn)) return approvedOn;
  if (!guard.needsConfirmation && !action.ask) return approvedOn;
  const { moves: side, stages } = action;
  let shown = side && (approvedOn ?? (await stages.planned?.(action)));
  // An earlier "yes" goes while the write plans as it showed; each time the side moved, that is said and the question
  // (which names what it holds now) is asked anew, and once answered the facts before the send are read again. Without
  // a side to compare, it is asked once.
  for (let ask = !approvedOn || !shown; ; ask = true) {
    if (ask) await confirmOrStop(ports, stages.question(action, shown?.shown, kept), { live: guard.live });
    if (!side || !shown) return approvedOn;
    const now = (await stages.planned?.(action)) ?? shown;
    if (samePlan(shown, now)) return shown;
    sayMovedSinceAsked(ports, side, shown.shown, now.shown);
    shown = now;
    if (ask) await reread();
  }
}

/** Journal: the entry on disk before the request may leave, a new one (what it read before, the earliest the server's
 * time can be at the first send, what an agent's limits judged it trades) or the resumed one set pending. */
async function journal(run: WriteRun, { key, gated }: Checked<unknown, unknown>, { before }: Confirmed<unknown>) {
  const { ports, action, identity } = run;
  let { entry } = key;
  /** When this run began its entry, on the monotonic clock (unset: it resumes an earlier one). */
  let begunAt: number | undefined;
  if (!entry) {
    // A resume measures the key's age on the server's clock too. What an agent's limits judged it trades is kept when
    // nothing else records it (a close not waited for whose answer is lost): its daily cap counts it until resolved.
    const fields = withoutUndefined({
      ...before,
      server_time_ms: (await serverNow(ports))?.earliestMs,
      judged_usd: before === undefined ? gated.judgedUsd : undefined,
    });
    entry = await run.journal
      .begin(
        rowFields(identity, action, key.key, Object.keys(fields).length ? fields : undefined),
        (await rowSealerOf(ports)).seal,
      )
      .catch((error) => {
        throw error instanceof JournalError
          ? new JournalError(`${error.message} Nothing was sent.`, { path: error.path, hint: error.hint, cause: error })
          : error;
      });
    begunAt = performance.now();
  }
  if (entry.outcome === 'planned') await run.journal.update(entry.id, { outcome: 'pending' });
  return { entry, begunAt, writer: entryWriter(run, entry) } satisfies Journaled;
}

/** Carries one write out under its key, stage by stage; a run that fails once under way ends `failed`, with what its
 * confirmation was given on, having let go of any hold it took. */
async function carryOut<S, R, K>(run: WriteRun<S, R, K>, key: RunKey) {
  /** What this run's confirmation holds for, once decided (carried by an error that ends the run). */
  let approvedOn: WritePlan | undefined;
  let journaled: Journaled | undefined;
  try {
    const checked = await check(run, key);
    approvedOn = checked.gated.approvedOn;
    if (run.options.dryRun)
      return {
        kind: 'dry-run',
        planned: await planDryRun(run.ports, run.action.stages.plan(run.action, key.key)),
      } as const;
    if (checked.earlier?.kind === 'recorded') return checked.earlier;
    const confirmed = await confirm(run, checked);
    approvedOn = confirmed.approvedOn;
    journaled = await journal(run, checked, confirmed);
    const sent = await send(run, checked, confirmed, journaled.writer);
    return await prove(run, checked, confirmed, sent, journaled);
  } catch (error) {
    const begun = journaled?.begunAt === undefined ? undefined : journaled.entry;
    if (begun) begunHere.set(begun.id, journaled!.begunAt!);
    // A run that ends unresolved lets go of its hold at once, so a long-lived process never blocks a resume (a run
    // that began its entry holds none of an earlier one).
    const own = begun && (await run.journal.hold(begun.id).catch(() => undefined));
    await (own?.held ? own.hold : key.hold)?.release();
    return { kind: 'failed', error, approvedOn } as const;
  }
}

/** Send: the request with its one key (a resume that found it landed follows its earlier answer instead); what its
 * answer says is journaled (`submitted`). */
async function send<S, K>(
  run: WriteRun<S, unknown, K>,
  { key, gated, earlier: found }: Checked<S, K>,
  { kept, approvedOn }: Confirmed<K>,
  writer: EntryWriter,
): Promise<Sent<S>> {
  const { action } = run;
  const earlier = key.entry;
  const answer =
    found?.kind === 'landed'
      ? found.answer
      : await writer.proving(
          () => action.stages.send(action, key.key, { ...gated.sendHooks, firstSend: !key.resumed }),
          earlier !== undefined && earlier.outcome !== 'planned',
        );
  const startedAt = run.ports.clock.now();
  // What it trades as last read before the send: again before a retry, at the confirmation, or by the check.
  const shown = gated.retried?.() ?? approvedOn?.shown ?? gated.judged;
  await writer.record({ outcome: 'submitted', ...action.stages.submitted(action, answer, { kept, shown, earlier }) });
  return { answer, startedAt };
}

/** Prove: a bounded wait until it is seen to land (--no-wait: done at `submitted`), then resolved. */
async function prove<S, R, K>(
  run: WriteRun<S, R, K>,
  { earlier }: Checked<S, K>,
  { kept, before }: Confirmed<K>,
  { answer, startedAt }: Sent<S>,
  { entry, writer }: Journaled,
) {
  if (!run.options.wait)
    return {
      kind: 'submitted',
      answer,
      kept,
      entry: await writer.record({ outcome: 'done', message: NOT_WAITED_MESSAGE }),
    } as const;
  const { action } = run;
  return resolve(run, writer, {
    answer,
    kept,
    ...(await writer.proving(() =>
      action.stages.wait(action, answer, {
        startedAt,
        before,
        kept,
        sentEarlier: earlier?.kind === 'landed',
        othersSince: () => othersSince(run, entry, before),
      }),
    )),
  });
}

/** Resolve: filled, done or failed, with the side as every view showed it, journaled and returned. */
async function resolve<S, R, K>(
  { ports }: WriteRun,
  writer: EntryWriter,
  {
    answer,
    kept,
    result,
    sideAfter,
    outcome = 'done',
  }: { answer: S; kept?: K; result: R; sideAfter?: SideAfter; outcome?: Resolved },
) {
  return {
    kind: 'resolved',
    answer,
    result,
    kept,
    entry: await writer.record({ outcome, resolved_at: utcIso(ports.clock.now()), side_after: sideAfter }),
  } as const;
}

/** The hint on every unresolved write: the way to finish it with its own key (a roll's leg: its whole roll). */
const finishHint = ({ ports, action }: WriteRun, entry: JournalEntry) =>
  action.group?.startsWith(ROLL_GROUP_PREFIX)
    ? `The roll stopped part way. Finish it safely with \`${resumeCommand(ports, entry)}\`, or run \`${ports.hedgeCommand(...action.argv)}\` again: each leg reuses its own key, and the side is never opened twice.`
    : `The server may have acted. Finish it safely with \`${resumeCommand(ports, entry)}\`, or run the same command again (with --idempotency-key ${entry.idempotency_key} from another machine): the key is reused, so it cannot act twice.`;

/** The request left and what became of it is unknown: the error names the entry, its key and how to finish it. */
const sentUnknown = (run: WriteRun, entry: JournalEntry, what: string, cause: unknown) =>
  new OutcomeUnknownError(`The ${entry.command} was sent, but ${what}`, {
    idempotencyKey: entry.idempotency_key,
    hint: finishHint(run, entry),
    status: cause instanceof ApiError ? cause.status : undefined,
    details: { journal_id: entry.id },
    cause,
  });

type EntryWriter = ReturnType<typeof entryWriter>;

/** What the stages after the journal write to the run's entry: `record`, a patch (the journal stamps a final outcome's
 * resolved_at on this run's clock); `proving`, a send (`sentEarlier` given: whether an earlier run sent it) or the wait,
 * whose failure is recorded as what it proves (`failureProves`), the error naming its key and how to finish it. From
 * here on the request has left: a journal write that fails must not hide that, nor the key. */
function entryWriter(run: WriteRun, entry: JournalEntry) {
  const record = (patch: JournalPatch) =>
    run.journal.update(entry.id, patch).catch((error: unknown) => {
      // Stopped by a signal while the journal recorded what followed the send: the signal's exit, with the key.
      if (error instanceof InterruptedError)
        throw Object.assign(
          new InterruptedError(
            `The ${entry.command} was sent; ${error.message.replace(/^./, (first) => first.toLowerCase())}`,
            {
              hint: finishHint(run, entry),
            },
          ),
          { idempotencyKey: entry.idempotency_key, journalId: entry.id },
        );
      if (!(error instanceof JournalError)) throw error;
      throw sentUnknown(run, entry, `the journal could not record what happened next: ${error.message}`, error);
    });
  const proving = async <T>(work: () => Promise<T>, sentEarlier?: boolean) => {
    try {
      return await work();
    } catch (error) {
      const { patch, said } = failureProves(run, entry, error, sentEarlier);
      if (patch) await record(patch);
      if (said instanceof HedgeError) {
        said.idempotencyKey ??= entry.idempotency_key;
        said.journalId ??= entry.id;
      }
      throw said;
    }
  };
  return { record, proving };
}

/** What a failed send or wait proves, as one table: what the journal records of it (`patch`; unset: nothing) and the
 * error the run ends with (`said`). A send (`sentEarlier`: whether an earlier run sent it): a clear refusal is
 * rejected, a request that never left abandoned, anything else unknown. A wait (`sentEarlier` unset): the action
 * stands, unresolved. */
function failureProves(
  run: WriteRun,
  entry: JournalEntry,
  error: unknown,
  sentEarlier: boolean | undefined,
): { patch?: JournalPatch; said: unknown } {
  const { ports } = run;
  const message = messageOf(error);
  const error_code = error instanceof ApiError || error instanceof PreTradeCheckError ? error.code : undefined;
  const rejected = { outcome: 'rejected', error_code, message } as const;
  if (sentEarlier === undefined) {
    if (error instanceof StillPendingError)
      return {
        patch: { message },
        said: new StillPendingError(
          `${message} (journal ${entry.id}: \`${resumeCommand(ports, entry)}\` also finishes it)`,
          error.resumeCommand,
          error.record,
        ),
      };
    if (error instanceof InterruptedError)
      return {
        said: new InterruptedError(message, {
          hint: `${error.hint ? `${error.hint}; or` : 'The action stands.'} pick up the wait with: ${resumeCommand(ports, entry)}`,
          stoppedBy: ports.signal.reason,
        }),
      };
    // Sent, and its effect cannot be told apart from another's: never exit 0, never resent blindly.
    if (error instanceof UnresolvedError)
      return {
        patch: { outcome: 'unknown', message },
        said: new UnresolvedError(message, {
          hint: `${error.hint} ${resolveCommands(ports, entry)}.`,
          details: { ...error.details, journal_id: entry.id },
        }),
      };
    return { patch: error instanceof NotAppliedError ? rejected : undefined, said: error };
  }
  // An earlier send under this key may have acted: nothing this run learnt resolves the entry.
  if (sentEarlier && error_code === 'idempotency_key_reuse') return { patch: { error_code, message }, said: error };
  // Refused before anything left the machine (no time left under --timeout, every connection refused, no TLS): this
  // run did nothing.
  if (error instanceof NetworkError && (error.attempts === 0 || error.notSent))
    return {
      patch: sentEarlier ? undefined : { outcome: 'abandoned', message: `not sent: ${message}` },
      said: error,
    };
  // The server refused every attempt it got before acting (rate limited): not done, as a refusal is.
  if (error instanceof NetworkError && error.notDone)
    return { patch: { outcome: 'rejected', error_code: error.code, message }, said: error };
  // Also an agent's limits refusing a retry after the server refused the last attempt: nothing happened.
  if (isRejection(error) || error instanceof PreTradeCheckError) return { patch: rejected, said: error };
  return {
    patch: { outcome: 'unknown', error_code, message },
    said:
      error instanceof InterruptedError || error instanceof DeclinedError
        ? new InterruptedError(`${message} The request may have reached the server: its outcome is unknown.`, {
            hint: finishHint(run, entry),
            stoppedBy: ports.signal.reason,
          })
        : sentUnknown(run, entry, `its outcome is unknown: ${message}`, error),
  };
}

/** What the journal begins a row with (write-run.ts entryFields), and the hash of the plan it records (`plan_hash` in
 * its context, sealed with it): the row is sent again only while the plan rebuilt from it hashes alike (row-trust.ts
 * requireOwnRow). */
function rowFields(
  identity: WriteRun['identity'],
  action: WriteAction<unknown, unknown>,
  key: string,
  context?: JsonObject,
) {
  const fields = entryFields(identity, action, key, context);
  const plan = action.stages.rowPlan?.(action, fields);
  return plan ? { ...fields, context: { ...context, plan_hash: planHash(plan) } } : fields;
}

/** Journals a later leg of a multi-leg action as planned, with a new key and what is kept beside it, before any leg is
 * sent: from then on the journal holds the plan, and a later run finishes it from there. */
export async function journalAhead(ports: WritePorts, action: WriteAction<unknown, unknown>, context?: JsonObject) {
  return (await ports.journal()).begin(
    { ...rowFields(await identityOf(ports), action, makeIdempotencyKey(), context), outcome: 'planned' },
    (await rowSealerOf(ports)).seal,
  );
}

// --dry-run: the exact request a write would send (method, URL, headers, JSON body), described and not sent
// (the command prints it).
/** The planned request as a dry run shows it: its URL and headers, the key redacted (the command prints it: cli/cmd/trade/trade-outcome.ts). */
export async function planDryRun(ports: WritePorts, { method, path, body, idempotencyKey, headers }: ApiRequest) {
  const { baseUrl, apiKey } = await ports.credentials();
  return {
    dry_run: true as const,
    method,
    url: baseUrl + path,
    path,
    headers: {
      Authorization: `Bearer ${redactKey(apiKey)}`,
      ...(body !== undefined && { 'Content-Type': 'application/json' }),
      ...(idempotencyKey && { 'Idempotency-Key': idempotencyKey }),
      ...shownHeaders(headers),
    },
    body: body ?? null,
    idempotency_key: idempotencyKey,
  };
}
