// The one write flow: every state-changing command goes through `runWrite`. The journal entry is on disk before
// the request leaves, so a killed run leaves a key the next run reuses, and the action happens once.
import { randomUUID } from 'node:crypto';
import type { ApiRequest, SendHooks } from '../../platform/api/transport.js';
import { redactKey, scrubSecrets } from '../../core/security/secrets.js';
import { notAllowed, keyLifetimeMs, repeatWindowMs } from '../../core/input.js';
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
  RepeatedActionError,
  StillPendingError,
  UnresolvedError,
  UsageError,
} from '../../core/errors.js';
import { DEFAULT_WAIT_BOUND_MS } from '../../platform/config/wait-bound.js';
import {
  confirmRowFromElsewhere,
  identityOf,
  ownRowTest,
  requireOwnRow,
  rowSealerOf,
  sentBy,
  type Identity,
} from './row-trust.js';
import {
  bodyOf,
  changeOf,
  sideOf,
  describeHolder,
  hasLanded,
  isUnresolved,
  JournalError,
  matchesRequest,
  NOT_WAITED_MESSAGE,
  recordedUsd,
  resumeWithItsCredentials,
  type Holder,
  type JournalEntry,
  type JournalPatch,
  type SideAfter,
} from '../../platform/journal/index.js';
import { readSideInStep, sameSide, sideAfterOf } from '../book/side-book.js';
import { byAmount, endsSide, movedBefore, sameAsShown, shownFlat } from '../book/book.js';
import type { Side } from '../../core/vocabulary.js';
import { safeText, messageOf } from '../../core/security/safe-text.js';
import type { WritePorts } from './ports.js';
import type { Trade } from '../../platform/runtime/context.js';
import { confirmOrStop, guardLiveAction, sayMovedSinceAsked, tradesUsd, type Approval } from './confirm.js';
import { utcClock, utcDay, utcIso } from '../../core/utc-text.js';
import { formatSpan } from '../../core/duration.js';
import { actionAge } from '../../core/server-clock.js';
import { withoutUndefined, type JsonObject } from '../../core/objects.js';

export interface WriteOptions {
  /** false with --no-wait: return at `submitted`. */
  wait: boolean;
  dryRun?: boolean;
  /** --idempotency-key: resume this exact key. */
  idempotencyKey?: string;
  /** --new: a fresh action even if the same one is unresolved in the journal. */
  fresh?: boolean;
  /** --again: another action although the same one ended within the repeat window. */
  again?: boolean;
  /** `resume --resend-unproven`: send an earlier action again although nothing proves it did not land (a person's word). */
  resendUnproven?: boolean;
  /** The locks its caller holds (a plan's step): its side's taken only when not among them. */
  held?: Held;
}

export const writeOptionsFrom = (
  options: Partial<Record<'wait' | 'dryRun' | 'new' | 'again', boolean>> & { idempotencyKey?: string },
) => ({
  wait: options.wait !== false,
  dryRun: options.dryRun === true,
  idempotencyKey: parseIdempotencyKey(options.idempotencyKey),
  fresh: options.new === true,
  again: options.again === true,
});

/** Every roll's journal group starts with this (a leg's hint says how the whole roll is finished). */
export const ROLL_GROUP_PREFIX = 'roll-';

/** One write as data (CONTRIBUTING.md, the write path): what it sends, the side it moves, how it is shown and asked,
 * where it belongs; what it sends is its kind's (trade-actions.ts `tradeAction`, api-call.ts), which gives it its behaviour. */
export interface WriteRecord {
  /** Journaled as its command: the kind, or `api POST /path`. */
  command: string;
  /** Completes "this will …" in the live banner and "--yes is required to …". */
  verb: string;
  argv: string[];
  /** The side this action moves: its lock is held from the key's choice until the action resolved (`withAccountLock`). */
  side?: { market: string; side: Side };
  /** A group id and leg name when this action is one leg of several (roll, apply, the keeper). */
  group?: string;
  leg?: string;
  /** Asked on any key, not only a live one (the open wizard asks before every write it makes). */
  ask?: boolean;
  /** What was approved before this write reached the flow, as data its confirm stage decides from (unset: nothing). */
  approved?: Approval;
  /** Journaled beside the facts read before the send (a retry: the refused entry it retries). */
  context?: JsonObject;
}

/** What a kind does with its record, stage by stage. `S` is the submit answer, `R` the resolution, `K` what this run
 * read before the send and keeps for its later stages: each stage is given it and returns what it adds (a resume has
 * none: what it needs was journaled). */
export interface WriteKind<S, R, K = unknown> {
  /** The request, planned with the key (the dry run prints it; the journal records it). */
  plan(key: string): ApiRequest;
  /** Pre-trade checks; not run when resuming (the first run's own effect may now fill the headroom). */
  check?(): Promise<K | undefined>;
  /** Facts read before the send: `journaled` with the entry (the wait, and a resumed one, read them: e.g. the notional
   * before an add), `kept` for this run's later stages. */
  before?(kept?: K): Promise<{ journaled?: JsonObject; kept?: K }>;
  /** Says what the action will do (a quote), before its question. */
  preview?(kept?: K): Promise<K | undefined>;
  /** The confirmation question on a live key (the guard adds the LIVE marker), of the trades as shown (read by `trades`). */
  question(shown?: readonly Trade[], kept?: K): string;
  /** `hooks`: what the request carries besides its plan (an agent's limits asked again before a retry). */
  send(key: string, hooks?: SendHooks): Promise<S>;
  /** Journal fields from the submit answer (a close: also what it closed), given what was read before: `shown`, the
   * trades as last read before the send; `earlier`, the entry a resume sends again. */
  submitted(
    answer: S,
    read: { kept?: K; shown?: readonly Trade[]; earlier?: JournalEntry },
  ): Pick<JournalPatch, 'hedge_id' | 'order_tx_hash' | 'traded_usd'>;
  /** Waits until the action resolved: what proves it landed, and the side as every view showed it then (journaled: a
   * later identical run is judged by it). `context`: when the request left, the facts read before it (`before`, as
   * journaled; `kept`), and whether a resume found the earlier send landed and follows it (`sentEarlier`). */
  wait(
    answer: S,
    context: { startedAt: number; before?: JsonObject; kept?: K; sentEarlier?: boolean },
  ): Promise<{ result: R; sideAfter?: SideAfter; outcome?: Resolved }>;
  /** What this action trades, for an agent's limits (the context's TradeGate): read when it is about to be sent. */
  trades?(): Promise<Trade[] | undefined>;
  /** What the book shows about an earlier send of this action, against what its entry recorded before it (compared
   * before it is sent again): landed (record it done, send nothing; `answer`: the submit answer as the server would
   * have given it, to wait on and render), not-landed (send it again with its key), or unknown (the book cannot tell);
   * `evidence`: what the book shows, in a sentence (untrusted values already sanitised). */
  reconcile?(
    entry: JournalEntry,
    changedSince: boolean,
  ): Promise<{
    verdict: 'landed' | 'not-landed' | 'unknown';
    evidence: string;
    answer?: S;
  }>;
}

/** What the journal records of a write its wait resolved (unset: done). */
type Resolved = 'filled' | 'done' | 'failed';

/** A record with its kind's behaviour bound to it: what `runWrite` carries out. */
export type WriteAction<S, R, K = unknown> = WriteRecord & WriteKind<S, R, K>;

/** What one write did — the flow prints none of it: the command (or keeper, roll, apply, agent) shows it. */
export type WriteOutcome<S, R, K = unknown> = Awaited<ReturnType<typeof runWrite<S, R, K>>>;

/** The refusal of a run that found its action carried out by another live process: it sends nothing (exit 11). */
export function heldError(ports: WritePorts, entry: JournalEntry, holder: Holder, more = '') {
  const what = `${safeText(entry.command)}${entry.leg ? ` (${safeText(entry.leg)} of ${safeText(entry.group ?? '')})` : ''}`;
  return new HeldError(
    `The same ${what} (journal ${entry.id}, ${started(entry)}) is being carried out by another hedge process: ${safeText(describeHolder(holder))}. This run sent nothing${more}.`,
    {
      holder,
      details: { journal_id: entry.id },
      hint: `Its outcome shows in \`${ports.hedgeCommand('journal', 'show', entry.id)}\` once that process is done (\`${resumeCommand(ports, entry)}\` finishes it should that process die first); to send a separate ${safeText(entry.command)} anyway, run the command again with --new.`,
    },
  );
}

const started = (entry: JournalEntry) => `started ${utcClock(entry.created_at)} UTC`;

// Check and act under one lock: a per-account lock of the journal, so two processes never both
// decide from the same book. A waiter reads the book afresh; still held at its bound, exit 11.
/** The account locks a run holds (their scopes), handed by a plan to the writes it makes: an inner check-and-act runs
 * under its outer hold instead of waiting for itself. */
export type Held = ReadonlySet<string>;

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

/** Lock: the one place a side's lock is taken, for a plan of several steps (the plan executor's, `runPlan`: an
 * apply's, a roll's close then open, a keeper's step) and for every lone write. The sides' locks in one order (two
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
 * (`WriteRun`) and what the stages before it returned. */
export async function runWrite<S, R, K = unknown>(...write: Parameters<typeof settleWrite<S, R, K>>) {
  const done = await settleWrite(...write);
  if (done.kind === 'failed') throw done.error;
  return done;
}

/** runWrite, a run that failed once under way returned as `failed` with its error and what its confirmation was given
 * on (`approvedOn`): a retry under the server's field name goes on it. */
export async function settleWrite<S, R, K = unknown>(
  ports: WritePorts,
  action: WriteAction<S, R, K>,
  options: WriteOptions,
) {
  const run = await startRun(ports, action, options);
  if (options.dryRun)
    return carryOut(run, {
      key: options.idempotencyKey ?? makeIdempotencyKey(),
      resumed: options.idempotencyKey !== undefined,
    });
  // The same action in flight in another live process: said at once (exit 11), not waited for.
  if (!options.idempotencyKey && !options.fresh) {
    const pending = await run.journal.findUnresolvedMatch(run.match);
    const holder = pending && (await run.journal.holderOf(pending.id));
    if (holder) throw heldError(ports, pending, holder);
  }
  // One change in flight per side: decided, sent and seen to land under the side's lock.
  return lock(
    ports,
    { sides: action.side ? [action.side] : [], run: async () => carryOut(run, await chooseKey(run)) },
    options.held,
  );
}

/** What every stage of one write is given: the action, its options, and what the run read once at its start: the
 * entry this action would journal (`probe`, its key blank) and what an identical request matches (`match`); `own`, only
 * a row this key sealed says what this account did (a forged row could move a decision at will); `checked`, its checks
 * (and an agent's limits) ran before it reached the flow: with its plan, or on the attempt it retries. */
async function startRun<S, R, K>(ports: WritePorts, action: WriteAction<S, R, K>, options: WriteOptions) {
  const { approved } = action;
  const guard = await guardLiveAction(ports, { action: action.verb, dryRun: options.dryRun, approved });
  const journal = await ports.journal();
  const identity = await identityOf(ports);
  const probe = entryFields(identity, action, '');
  const checked = approved?.by === 'plan' || approved?.by === 'retry';
  const match = { ...probe, body: probe.request.body };
  return { ports, action, options, guard, journal, identity, probe, match, own: await ownRowTest(ports), checked };
}

type WriteRun<S = unknown, R = unknown, K = unknown> = Awaited<ReturnType<typeof startRun<S, R, K>>>;

const say = (ports: WritePorts, kind: string, level: 'warn' | 'note' | 'success', text: string) =>
  void ports.notify({ kind, level, text });
const resumeCommand = (ports: WritePorts, entry: JournalEntry) => ports.hedgeCommand('resume', entry.id);
const resolveCommands = (ports: WritePorts, entry: JournalEntry) =>
  `\`${ports.hedgeCommand('journal', 'resolve', entry.id, '--landed')}\` or \`${ports.hedgeCommand('journal', 'resolve', entry.id, '--not-landed')}\``;

/** The server's time, when its answers told it. */
async function serverNow(ports: WritePorts) {
  const time = (await ports.client()).transport?.serverNow?.();
  return time && !time.assumed ? time : undefined;
}

/** The key a run acts under: `resumed` continues an earlier run's key (checks skipped, a change may have landed), with
 * its `entry` unless the journal does not know the key; `hold`, this run's hold of the earlier entry (let go when the
 * run ends unresolved); `finished`, a key whose action is done (nothing sent again). */
type RunKey = Awaited<ReturnType<typeof chooseKey>>;

/** Takes hold of an earlier unresolved entry to resume it, or refuses (exit 11) when a live process holds it. */
async function holdToResume({ ports, journal }: WriteRun, entry: JournalEntry) {
  const answer = await journal.hold(entry.id);
  if (answer.held) return answer.hold;
  const now = await journal.get(entry.id);
  if (!now || isUnresolved(now)) throw heldError(ports, entry, answer.holder);
  // Another process finished it between our look and our hold: this run only saw its action.
  throw new HeldError(
    `The same ${safeText(entry.command)} (journal ${entry.id}, ${started(entry)}) was carried out meanwhile by another hedge process (${safeText(describeHolder(answer.holder))}); its outcome is ${safeText(now.outcome)}. This run sent nothing.`,
    {
      holder: answer.holder.pid > 0 ? answer.holder : undefined,
      details: { journal_id: entry.id, outcome: now.outcome },
      hint: `See it with \`${ports.hedgeCommand('journal', 'show', entry.id)}\`; run the command again for another ${safeText(entry.command)}.`,
    },
  );
}

/** ChooseKey: --idempotency-key, else an unresolved entry of the same request (exit 11 when live), else new. */
async function chooseKey(run: WriteRun) {
  const { ports, journal, options, match } = run;
  const key = options.idempotencyKey;
  if (key) return givenKey(run, key);
  const pending = await journal.findUnresolvedMatch(match);
  if (pending && !options.fresh) {
    await requireOwnRow(ports, pending);
    // A colleague's action is taken over by a lone command only on a person's word, as by `hedge resume` (multi-leg actions ask their own).
    if (match.group === undefined) await confirmRowFromElsewhere(ports, pending, 'resume it');
    const hold = await holdToResume(run, pending);
    say(
      ports,
      'resuming',
      'warn',
      `Resuming the ${pending.command} ${started(pending)} (journal ${pending.id}, outcome ${pending.outcome}) with key ${pending.idempotency_key}: its process is gone; the book is read first, and if it is sent again, its key lets the server act at most once.`,
    );
    return { key: pending.idempotency_key, resumed: true, entry: pending, hold };
  }
  await refuseUnresolvedChange(run, pending?.id);
  if (pending) {
    const holder = await journal.holderOf(pending.id);
    const same = `--new: journal ${pending.id} (the same ${pending.command}, ${started(pending)}`;
    say(
      ports,
      holder ? 'left-to-its-process' : 'set-aside',
      'warn',
      holder
        ? `${same}) is still being carried out by ${safeText(describeHolder(holder))}; it is left to that process, and this run is a separate action with a new key.`
        : `${same}, outcome ${pending.outcome}) is set aside; this run is a new action with a new key.`,
    );
    if (!holder) await journal.update(pending.id, { outcome: 'abandoned', message: 'set aside by --new' });
  }
  if (!options.again && match.group === undefined) await refuseRecentRepeat(run);
  return { key: makeIdempotencyKey(), resumed: false };
}

/** The run of a key given with --idempotency-key: a key stands for one request of this account's own. */
async function givenKey(run: WriteRun, key: string) {
  const { ports, journal, match } = run;
  const [known] = await journal.list({ idempotencyKey: key });
  if (!known) return { key, resumed: true };
  const resume = `\`${resumeCommand(ports, known)}\``;
  const done = hasLanded(known);
  // A key stands for one request: the journal would otherwise credit this run to the earlier action. A row is valid
  // once: a key whose action ended is never sent again, under a second row.
  const refused = !matchesRequest(known, match)
    ? ` belongs to journal ${known.id} (a ${known.command} ${started(known)}) with another request, account or environment; a key is reused only for the same request (${resume} finishes that one).`
    : known.group !== undefined && known.group !== match.group
      ? ` belongs to a leg of ${known.group} (journal ${known.id}); finish that action with ${resume}.`
      : !done &&
        !isUnresolved(known) &&
        `'s action (journal ${known.id}, a ${known.command} ${started(known)}) ended ${safeText(known.outcome)}; a key is one action, so nothing was sent: run the command without --idempotency-key, or with a new key, for another.`;
  if (refused) throw new UsageError(`--idempotency-key: that key${refused}`);
  // What the run takes from the row (its key, its outcome, its request to resend) must be this account's own.
  await requireOwnRow(ports, known);
  // Done already (a script re-running a command killed after its action): exactly once, nothing sent. A planned
  // leg was never sent: nothing of it can have happened yet.
  return done
    ? { key, resumed: true, entry: known, finished: true }
    : { key, resumed: known.outcome !== 'planned', entry: known, hold: await holdToResume(run, known) };
}

/** An unresolved write of this account making the same change on the same side (another command's, `hedge api`'s,
 * one sent through another host name of the base URL), that verifies as this key's: a new write could act beside
 * it, so nothing is sent (exit 12; 11 while its process lives) until it is finished or resolved; --new goes on. */
async function refuseUnresolvedChange(
  { ports, journal, identity, probe, match, own, options }: WriteRun,
  exceptId?: string,
) {
  const change = changeOf(probe);
  if (!change) return;
  const [earlier] = (await journal.findUnresolvedChanges(identity, change)).filter(
    (entry) => entry.id !== exceptId && (match.group === undefined || entry.group !== match.group) && own(entry),
  );
  if (!earlier) return;
  const holder = await journal.holderOf(earlier.id);
  const what = `${safeText(earlier.command)} (journal ${earlier.id}, ${started(earlier)} through ${safeText(earlier.base_url_host)}, outcome ${safeText(earlier.outcome)})`;
  if (options.fresh) {
    say(ports, 'set-aside', 'warn', `--new: the unresolved ${what} is left as it is; this run is a separate action.`);
    return;
  }
  if (holder) throw heldError(ports, earlier, holder);
  const resume = sentBy(identity, earlier) ? `\`${resumeCommand(ports, earlier)}\`` : resumeWithItsCredentials(earlier);
  throw new UnresolvedError(
    `An earlier ${change.kind} on the ${change.side} side of ${safeText(change.market)} has no known outcome: ${what}. Another ${change.kind} now could act beside it, so nothing was sent.`,
    {
      details: { journal_id: earlier.id, command: earlier.command, base_url_host: earlier.base_url_host },
      hint: `Finish it first: ${resume} reads the book and sends it again only under its own key; or look at the book and record what happened: ${resolveCommands(ports, earlier)}; then run this command again. --new sends this one anyway, as a separate action.`,
    },
  );
}

/** A re-run of a lone write that ended within the repeat window is refused (exit 11) without --again. */
async function refuseRecentRepeat({ ports, journal, match, own, action, checked }: WriteRun) {
  const windowMs = repeatWindowMs(ports.env);
  if (windowMs === 0) return;
  const since = ports.clock.now() - windowMs;
  const endedAt = (entry: JournalEntry) => Date.parse(entry.resolved_at ?? entry.created_at);
  // The journal reads by when an action began: one resumed into the window may have begun a key lifetime before it.
  const [recent] = (await journal.list({ since: since - keyLifetimeMs(ports.env) }))
    .filter(
      (entry) =>
        hasLanded(entry) &&
        entry.group === undefined &&
        matchesRequest(entry, match) &&
        endedAt(entry) >= since &&
        // A forged "done" is no earlier run.
        own(entry),
    )
    .sort((a, b) => endedAt(b) - endedAt(a));
  if (!recent) return;
  // Judged by the side: only while it still shows what that action left is this run likely the same intent again.
  const moved = action.side;
  const unchanged =
    recent.side_after &&
    moved &&
    sameSide(
      sideAfterOf((await readSideInStep(ports, await ports.client(), moved.market, moved.side)).book),
      recent.side_after,
    );
  if (unchanged === false) return;
  // A refusal with a reason of its own (an open --ref whose deal is active: exit 3) comes before "repeated".
  if (!checked) await action.check?.();
  const ended = recent.resolved_at ?? recent.created_at;
  const hedge = recent.hedge_id ? `, hedge ${safeText(recent.hedge_id)}` : '';
  // A close re-run on the side it left flat: that is the whole news.
  const flat = unchanged && endsSide(recent.command) && shownFlat(recent.side_after!);
  const { market, side } = bodyOf(recent);
  const which = typeof market === 'string' && typeof side === 'string' ? `${side} side of ${market}` : 'side';
  throw new RepeatedActionError(
    flat
      ? `The ${safeText(which)} is already flat: the same close closed it at ${utcClock(ended)} UTC (journal ${recent.id}${hedge}); nothing was sent.`
      : `The same ${safeText(recent.command)} (journal ${recent.id}, ${safeText(recent.outcome)} at ${utcClock(ended)} UTC${hedge}) ended ${formatSpan(ports.clock.now() - endedAt(recent))} ago${unchanged ? ' and the side still shows exactly what it left' : ''}; this run sent nothing, so a re-run of a finished command does not act twice.`,
    {
      details: {
        journal_id: recent.id,
        ...(!flat && { outcome: recent.outcome, ended_at: ended }),
        hedge_id: recent.hedge_id ?? null,
        side_unchanged: unchanged ?? null,
      },
      hint: `See it with \`${ports.hedgeCommand('journal', 'show', recent.id)}\`.${flat ? '' : ' To send another one, run the command again with --again; scripts that re-run on failure pass their own --idempotency-key instead (exactly once across any kill).'}`,
    },
  );
}

/** The entry's context with its side's baseline moved by every change of the side the journal knows landed since (the
 * side model adds them up), and the changes it cannot attribute (`uncertain`). */
async function attributedContext({ journal, identity, own }: WriteRun, entry: JournalEntry) {
  // The other changes of the side this account's journal knows began since.
  const others = (await journal.list({ since: Date.parse(entry.created_at) })).filter(
    (other) =>
      other.id !== entry.id &&
      !['planned', 'rejected', 'abandoned'].includes(other.outcome) &&
      // The entry is this account's (the key's choice matched it): so must its side's other changes be.
      sentBy(identity, other) &&
      sideOf(other) === sideOf(entry),
  );
  const uncertain: JournalEntry[] = [];
  const landed: Array<{ kind: 'add' | 'reduce'; changeUsd: number }> = [];
  for (const other of others) {
    const changeUsd = recordedUsd(bodyOf(other));
    const { command: kind } = other;
    if (!own(other)) uncertain.push(other);
    else if (byAmount(kind) && hasLanded(other) && changeUsd !== undefined) landed.push({ kind, changeUsd });
    // A whole roll closed and re-opened the same notional.
    else if (
      !other.group?.startsWith(ROLL_GROUP_PREFIX) ||
      !others.filter((leg) => leg.group === other.group).every((leg) => hasLanded(leg) && own(leg))
    )
      uncertain.push(other);
  }
  const context = entry.context && { ...entry.context };
  for (const name of ['baseline_notional_usd', 'notional_usd']) {
    const value = context?.[name];
    if (typeof value === 'number') context![name] = movedBefore(value, landed);
  }
  return { context, uncertain };
}

/** Resume reads the book before it resends: landed → follow it; proven not landed, or the key still young on both
 * clocks → send again with the key; otherwise only a person's word sends it again (else exit 12). With
 * --idempotency-key of an action the journal has as done (`finished`), nothing is sent again. */
async function reconcileEarlier<S>(run: WriteRun<S>, entry: JournalEntry, finished?: boolean) {
  const { ports, action, options } = run;
  if (entry.outcome === 'planned') return;
  const { context, uncertain: others } = finished
    ? { context: entry.context, uncertain: [] }
    : await attributedContext(run, entry);
  const found = (await action.reconcile?.({ ...entry, context }, others.length > 0)) ?? {
    verdict: 'unknown',
    evidence: 'no view of the book shows what this request did',
  };
  const lifetime = keyLifetimeMs(ports.env);
  // How old the entry's key is, on both clocks (core/server-clock.ts).
  const sentAt = entry.context?.server_time_ms;
  const begunAt = begunHere.get(entry.id);
  const { ms: age, clock } = actionAge(
    { serverMs: typeof sentAt === 'number' ? sentAt : undefined, localMs: Date.parse(entry.created_at) },
    {
      server: await serverNow(ports),
      localMs: ports.clock.now(),
      elapsedMs: begunAt && performance.now() - begunAt,
    },
  );
  const begun = `Journal ${entry.id} (the ${safeText(entry.command)} started ${utcDay(entry.created_at)} ${utcClock(entry.created_at)} UTC, ${age === undefined ? UNTOLD_AGE[clock] : `${formatSpan(age)} ago by the ${clock} clock`})`;
  if (found.verdict === 'landed' && found.answer !== undefined) {
    if (!finished)
      say(
        ports,
        'earlier-landed',
        'warn',
        `${begun}. The book shows it landed: ${found.evidence}. Nothing is sent again; following it to its end.`,
      );
    return { kind: 'landed', answer: found.answer } as const;
  }
  if (finished) {
    say(
      ports,
      'already-done',
      'note',
      `Journal ${entry.id} (this --idempotency-key) is already ${safeText(entry.outcome)}: the ${safeText(action.command)} happened once, and nothing was sent again.`,
    );
    return { kind: 'recorded', entry } as const;
  }
  if (found.verdict === 'not-landed')
    return say(
      ports,
      'earlier-not-landed',
      'warn',
      `${begun}. The book shows it could not have landed (${found.evidence}), and no other change of the side is known since. Sending it again with its key.`,
    );
  if (age !== undefined && age < lifetime)
    return void ports.log(
      `Resuming ${entry.id}: the key is ${formatSpan(age)} old by the ${clock} clock, within its lifetime; the server answers a repeated key with the original result.`,
    );
  const one = others.length === 1;
  const since = others.length
    ? ` ${others.length} other change${one ? '' : 's'} of the side ${one ? 'was' : 'were'} made since (${others
        .slice(0, 3)
        .map((other) => `${safeText(other.command)} ${other.id}`)
        .join(', ')}), so the side's notional proves nothing.`
    : '';
  const question = `${begun} ${age === undefined ? 'may be' : 'is'} past the key lifetime of ${formatSpan(lifetime)} (HEDGE_KEY_LIFETIME): the server may have forgotten its key, so it is not sent again on the key alone. The book cannot tell whether it landed: ${found.evidence}.${since}`;
  if (options.resendUnproven)
    return say(
      ports,
      'resend-unproven',
      'warn',
      `${question} Sending it again with its key, as --resend-unproven asks: had it landed, it happens twice.`,
    );
  const answered = await askWhetherLanded(run, entry, question);
  if (answered !== 'stop') return answered;
  throw new UnresolvedError(`${question} Nothing was sent.`, {
    details: { journal_id: entry.id, age_ms: age ?? null, key_lifetime_ms: lifetime, clock },
    hint: `Look at the book (\`${ports.hedgeCommand('positions')}\`, \`${ports.hedgeCommand('hedges')}\`) and ask who else acts on this account: a side back at its old figure proves nothing. Then record what happened: ${resolveCommands(ports, entry)} (after --not-landed, run the command again for a new action); or, sure that it did not land, \`${ports.hedgeCommand('resume', entry.id, '--resend-unproven')}\` sends it again with its key.`,
  });
}

/** A person at a terminal says whether an earlier send that the book cannot tell about landed: landed is recorded
 * done (nothing sent), not landed sends it again (unset); `stop` (or no one to ask) leaves it unresolved. */
async function askWhetherLanded({ ports, journal }: WriteRun, entry: JournalEntry, question: string) {
  if (!ports.interactive || ports.origin !== 'cli') return 'stop';
  say(ports, 'cannot-tell', 'warn', question);
  const choice = await (
    await ports.prompter()
  ).select({
    message: `Did the ${safeText(entry.command)} of journal ${entry.id} land?`,
    choices: [
      { name: 'It landed: record it as done, send nothing', value: 'landed' },
      { name: 'I checked, it did not land: send it again with its key', value: 'not-landed' },
      { name: 'Stop: decide later', value: 'stop' },
    ],
    default: 'stop',
  });
  if (choice === 'not-landed') return;
  if (choice !== 'landed') return 'stop';
  const recorded = await journal.update(entry.id, { outcome: 'done', message: 'resolved at the prompt: landed' });
  say(ports, 'recorded-landed', 'success', `Journal ${entry.id} recorded as landed (done); nothing was sent.`);
  return { kind: 'recorded', entry: recorded } as const;
}

/** What the write flow asks of an agent's call before a write leaves: the plan a live confirmation token was issued
 * for, and the operator's limits — before the first send; returns the hook that asks its limits before each retry. */
async function gateTheSend({ ports, action, checked }: WriteRun, run: RunKey) {
  // A plan's leg was checked with the plan by its caller; a journaled action finished again is no new plan.
  const fresh = !checked && !run.resumed;
  const { planCheck, tradeGate: gate } = ports;
  const approvedTrades = action.approved?.by === 'retry' ? action.approved.trades : undefined;
  const bound = planCheck && (fresh || approvedTrades);
  // What it trades as the side is now (a close: what it holds), under the side's lock.
  let judged = bound || gate ? await action.trades?.() : undefined;
  // A token holds for the trades it was checked on: a retry under the server's field name goes only while they hold.
  if (bound && (fresh || !sameAsShown(approvedTrades, judged))) planCheck.check([action.plan(run.key)], judged);
  // An agent's token is its confirmation: it holds for the trades it was checked on.
  const approvedOn = approvedTrades ?? (fresh && planCheck ? judged : undefined);
  // An entry the agent journaled itself is judged anew in place of what it recorded, not on top of it.
  if (gate && !checked)
    await gate.admit(
      judged,
      action.command,
      run.resumed && run.entry?.via === 'agent' ? { finishing: run.entry.id } : undefined,
    );
  if (!gate || judged === undefined) return { approvedOn, judged };
  /** What it trades as read again before a retry of the send (the last read before the send). */
  let retried: Trade[] | undefined;
  return {
    approvedOn,
    judged,
    retried: () => retried,
    judgedUsd: tradesUsd(judged),
    sendHooks: {
      beforeRetry: async (reason) => {
        const now = await action.trades?.();
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
async function check<S, K>(run: WriteRun<S, unknown, K>, key: RunKey) {
  const { ports, action, checked } = run;
  const gated = await gateTheSend(run, key);
  /** What this run read before the send, kept for its later stages (the kind's). */
  let kept: K | undefined;
  if (!key.resumed && !checked) kept = await action.check?.();
  else ports.log('Resuming: pre-trade checks skipped (the server replays the original outcome or decides).');
  return {
    ...key,
    gated,
    kept,
    reconciled: key.entry && (await reconcileEarlier(run, key.entry, key.finished)),
    approvedOn: gated.approvedOn,
  };
}

/** Confirm: the facts the wait needs, read before the send; a new action, or a key this journal does not know (nothing
 * says it was confirmed here), shows its preview and asks as its approval decides (`askAsApproved`). */
async function confirm<S, K>(run: WriteRun<S, unknown, K>, checked: Awaited<ReturnType<typeof check<S, K>>>) {
  const { action, options } = run;
  const earlier = checked.entry;
  let { kept, approvedOn } = checked;
  const readBefore = async () => {
    if (earlier) return (await attributedContext(run, earlier)).context;
    if (!options.wait || !action.before) return;
    const read = await action.before(kept);
    kept = read.kept ?? kept;
    return action.context ? { ...read.journaled, ...action.context } : read.journaled;
  };
  let before = await readBefore();
  if (!checked.resumed || !earlier) {
    if (!run.checked) kept = (await action.preview?.(kept)) ?? kept;
    approvedOn = await askAsApproved(run, approvedOn, kept, async () => {
      before = await readBefore();
    });
  }
  return { ...checked, kept, before, approvedOn };
}

/** How a write is confirmed, decided here from what was approved (`approvedOn`: the trades a "yes" or a token was given
 * on): a plan's or a run's approval goes; an earlier attempt's "yes" goes while its side is as shown, else a live key (or
 * the wizard) asks, and a moved side is asked about again. A "yes" holds for what the question showed: its trades, with
 * the side's hedges and their notional (confirm.ts). Returns what the confirmation holds for. */
async function askAsApproved<K>(
  { ports, action, guard }: WriteRun<unknown, unknown, K>,
  approvedOn: readonly Trade[] | undefined,
  kept: K | undefined,
  reread: () => Promise<void>,
) {
  const by = action.approved?.by;
  if (by === 'plan' || by === 'run' || (by === 'retry' && !approvedOn)) return approvedOn;
  if (!guard.needsConfirmation && !action.ask) return approvedOn;
  const { side } = action;
  let shown = side && (approvedOn ?? (await action.trades?.()));
  // An earlier "yes" goes while the side is as it showed; each time it moved, that is said and the question (which
  // names what it holds now) is asked anew, and once answered the facts before the send are read again. Without a
  // side to compare, it is asked once.
  for (let ask = !approvedOn || !shown; ; ask = true) {
    if (ask) await confirmOrStop(ports, action.question(shown, kept), { live: guard.live });
    if (!side || !shown) return approvedOn;
    const now = (await action.trades?.()) ?? shown;
    if (sameAsShown(shown, now)) return shown;
    sayMovedSinceAsked(ports, side, shown, now);
    shown = now;
    if (ask) await reread();
  }
}

type Confirmed<S = unknown, K = unknown> = Awaited<ReturnType<typeof confirm<S, K>>>;

/** Journal: the entry on disk before the request may leave, a new one (what it read before, the earliest the server's
 * time can be at the first send, what an agent's limits judged it trades) or the resumed one set pending. */
async function journal(run: WriteRun, confirmed: Confirmed) {
  const { ports, action, identity } = run;
  const { before } = confirmed;
  let entry = confirmed.entry;
  /** When this run began its entry, on the monotonic clock (unset: it resumes an earlier one). */
  let begunAt: number | undefined;
  if (!entry) {
    // A resume measures the key's age on the server's clock too. What an agent's limits judged it trades is kept when
    // nothing else records it (a close not waited for whose answer is lost): its daily cap counts it until resolved.
    const fields = withoutUndefined({
      ...before,
      server_time_ms: (await serverNow(ports))?.earliestMs,
      judged_usd: before === undefined ? confirmed.gated.judgedUsd : undefined,
    });
    entry = await run.journal
      .begin(
        entryFields(identity, action, confirmed.key, Object.keys(fields).length ? fields : undefined),
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
  return { entry, begunAt, writer: entryWriter(run, entry) };
}

/** Carries one write out under its key, stage by stage; a run that fails once under way ends `failed`, with what its
 * confirmation was given on, having let go of any hold it took. */
async function carryOut<S, R, K>(run: WriteRun<S, R, K>, key: RunKey) {
  /** What this run's confirmation holds for, once decided (carried by an error that ends the run). */
  let approvedOn: readonly Trade[] | undefined;
  let journaled: Awaited<ReturnType<typeof journal>> | undefined;
  try {
    const checked = await check(run, key);
    approvedOn = checked.approvedOn;
    if (run.options.dryRun)
      return { kind: 'dry-run', planned: await planDryRun(run.ports, run.action.plan(key.key)) } as const;
    if (checked.reconciled?.kind === 'recorded') return checked.reconciled;
    const confirmed = await confirm(run, checked);
    approvedOn = confirmed.approvedOn;
    journaled = await journal(run, confirmed);
    return await prove(run, confirmed, await send(run, confirmed, journaled.writer), journaled.writer);
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
async function send<S>(run: WriteRun<S>, confirmed: Confirmed<S>, writer: EntryWriter) {
  const { action } = run;
  const { gated, reconciled, kept, entry: earlier } = confirmed;
  const answer =
    reconciled?.kind === 'landed'
      ? reconciled.answer
      : await writer.proving(
          () => action.send(confirmed.key, { ...gated.sendHooks, firstSend: !confirmed.resumed }),
          earlier !== undefined && earlier.outcome !== 'planned',
        );
  const startedAt = run.ports.clock.now();
  // What it trades as last read before the send: again before a retry, at the confirmation, or by the check.
  const shown = gated.retried?.() ?? confirmed.approvedOn ?? gated.judged;
  await writer.record({ outcome: 'submitted', ...action.submitted(answer, { kept, shown, earlier }) });
  return { answer, startedAt };
}

/** Prove: a bounded wait until it is seen to land (--no-wait: done at `submitted`), then resolved. */
async function prove<S, R, K>(
  run: WriteRun<S, R, K>,
  { kept, before, reconciled }: Confirmed<S, K>,
  { answer, startedAt }: { answer: S; startedAt: number },
  writer: EntryWriter,
) {
  if (!run.options.wait)
    return {
      kind: 'submitted',
      answer,
      kept,
      entry: await writer.record({ outcome: 'done', message: NOT_WAITED_MESSAGE }),
    } as const;
  return resolve(run, writer, {
    answer,
    kept,
    ...(await writer.proving(() =>
      run.action.wait(answer, { startedAt, before, kept, sentEarlier: reconciled?.kind === 'landed' }),
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

/** When each entry this process began and left unresolved was begun, on the monotonic clock: its age in this process never follows the wall clock back. */
const begunHere = new Map<string, number>();

const UNTOLD_AGE = {
  server:
    "its age cannot be told: the server's clock now puts its first send in the future, or no longer tells the time",
  local:
    "its age cannot be told: this machine's clock puts its start in the future, and the server's answers do not tell the server's",
};

/** A request's extra headers (`hedge api -H`) as a dry run shows them and the journal records them: scrubbed of secrets. */
function shownHeaders(headers: ApiRequest['headers'] = {}) {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [scrubSecrets(name), scrubSecrets(value)]));
}

/** What the journal records of an action before it is sent (never the API key: only its fingerprint); its extra
 * headers are recorded, not sealed: a resume sends the request without them. */
function entryFields(identity: Identity, action: WriteAction<unknown, unknown>, key: string, context?: JsonObject) {
  const { method, path, body = null, headers } = action.plan(key);
  const extra = shownHeaders(headers);
  return {
    ...identity,
    command: action.command,
    request: { method, path, body, ...(Object.keys(extra).length > 0 && { headers: extra }) },
    idempotency_key: key,
    group: action.group,
    leg: action.leg,
    context,
    argv: action.argv,
  };
}

/** Journals a later leg of a multi-leg action as planned, before any leg is sent. */
export async function journalAhead(
  ports: WritePorts,
  action: WriteAction<unknown, unknown>,
  key: string,
  context?: JsonObject,
) {
  return (await ports.journal()).begin(
    { ...entryFields(await identityOf(ports), action, key, context), outcome: 'planned' },
    (await rowSealerOf(ports)).seal,
  );
}

// One Idempotency-Key per state-changing command: made here once, handed to the transport, which sends the same
// key on every automatic retry, so the server acts at most once.
export const makeIdempotencyKey = () => randomUUID();

/** Checks a key typed with --idempotency-key (exit 2 before anything is sent). The spec asks for "any unique string";
 * a header value must be visible ASCII, and we bound its length. */
export function parseIdempotencyKey(raw?: string) {
  if (raw === undefined) return;
  const value = raw.trim();
  if (/^[\x21-\x7e]{1,255}$/.test(value)) return value;
  throw notAllowed(
    '--idempotency-key',
    raw,
    '1 to 255 visible ASCII characters without spaces (the key an earlier run printed)',
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
