// Resume and repeat, beside the normal path (write-flow.ts): the key a run acts under — the one given, an earlier
// unresolved run's of the same request, else a new one (refused while another change of the side has no known outcome,
// or when the same action ended moments ago) — and, for an earlier run's key, what the book now says it did.
import { keyLifetimeMs, repeatWindowMs } from '../../core/input.js';
import { HeldError, RepeatedActionError, UnresolvedError, UsageError } from '../../core/errors.js';
import { confirmRowFromElsewhere, requireOwnRow, sentBy } from './row-trust.js';
import {
  bodyOf,
  changeOf,
  sideOf,
  describeHolder,
  hasLanded,
  isUnresolved,
  matchesRequest,
  recordedUsd,
  resumeWithItsCredentials,
  type JournalEntry,
} from '../../platform/journal/index.js';
import { readSideInStep, sideAfterOf } from '../book/side-book.js';
import { byAmount, endsSide, movedBefore, sameSide, shownFlat, type AmountChange } from '../book/book.js';
import { safeText } from '../../core/security/safe-text.js';
import { utcClock, utcDay } from '../../core/utc-text.js';
import { formatSpan } from '../../core/duration.js';
import { actionAge } from '../../core/server-clock.js';
import { DEFAULT_WAIT_BOUND_MS } from '../../platform/config/wait-bound.js';
import type { JsonObject } from '../../core/objects.js';
import {
  heldError,
  makeIdempotencyKey,
  resolveCommands,
  resumeCommand,
  ROLL_GROUP_PREFIX,
  say,
  serverNow,
  started,
  type RunKey,
  type WriteRun,
} from './write-run.js';

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
export async function chooseKey(run: WriteRun): Promise<RunKey> {
  const { ports, journal, options, match, action } = run;
  const key = options.idempotencyKey;
  if (key) return givenKey(run, key);
  const pending = await journal.findUnresolvedMatch(match);
  if (pending && !options.fresh) {
    await requireOwnRow(ports, pending, action.stages.rowPlan?.(action, pending));
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
async function givenKey(run: WriteRun, key: string): Promise<RunKey> {
  const { ports, journal, match, action } = run;
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
  await requireOwnRow(ports, known, action.stages.rowPlan?.(action, known));
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
  const [recent] = (await journal.list({ since: since - keyLifetimeMs(ports.env), request: match }))
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
  const moved = action.moves;
  const unchanged =
    recent.side_after &&
    moved &&
    sameSide(
      sideAfterOf((await readSideInStep(ports, await ports.client(), moved.market, moved.side)).book),
      recent.side_after,
    );
  if (unchanged === false) return;
  // A refusal with a reason of its own (an open --ref whose deal is active: exit 3) comes before "repeated".
  if (!checked) await action.stages.check?.(action);
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

/** The baselines an entry's context records, which the side's changes since move. */
const BASELINES = ['baseline_notional_usd', 'notional_usd'] as const;

/** The entry's context with its side's baseline moved by every change of the side the journal knows landed since (the
 * side model adds them up), and the changes it cannot attribute (`uncertain`): besides those begun since, one begun
 * within a wait's bound before it and not resolved before it began (a killed run's, resumed or not) may have landed on
 * either side of its read of the side. */
export async function attributedContext({ journal, identity, own }: WriteRun, entry: JournalEntry) {
  const begun = Date.parse(entry.created_at);
  // The other changes of the side this account's journal knows began since, or were under way when it began.
  const others = (await journal.list({ since: begun - DEFAULT_WAIT_BOUND_MS, side: sideOf(entry) })).filter(
    (other) =>
      other.id !== entry.id &&
      !['planned', 'rejected', 'abandoned'].includes(other.outcome) &&
      // The entry is this account's (the key's choice matched it): so must its side's other changes be.
      sentBy(identity, other) &&
      sideOf(other) === sideOf(entry) &&
      (Date.parse(other.created_at) >= begun || isUnresolved(other) || Date.parse(other.resolved_at ?? '') >= begun),
  );
  const uncertain: JournalEntry[] = [];
  const landed: AmountChange[] = [];
  for (const other of others) {
    const changeUsd = recordedUsd(bodyOf(other));
    const { command: kind } = other;
    if (!own(other) || Date.parse(other.created_at) < begun) uncertain.push(other);
    else if (byAmount(kind) && hasLanded(other) && changeUsd !== undefined) landed.push({ kind, changeUsd });
    // A whole roll closed and re-opened the same notional.
    else if (
      !other.group?.startsWith(ROLL_GROUP_PREFIX) ||
      !others.filter((leg) => leg.group === other.group).every((leg) => hasLanded(leg) && own(leg))
    )
      uncertain.push(other);
  }
  const context = entry.context && { ...entry.context };
  for (const name of BASELINES) {
    const value = context?.[name];
    if (typeof value === 'number') context![name] = movedBefore(value, landed);
  }
  return { context, uncertain, landed };
}

/** The side's other adds and reduces known since the entry began that `before` (the baseline a wait compares with)
 * does not count, any of which its hedge may carry: those the journal cannot attribute (an amount unset: not read),
 * and those that landed since `before` was read (a resume's is moved by them). */
export async function othersSince(
  run: WriteRun,
  entry: JournalEntry,
  before: JsonObject | undefined,
): Promise<AmountChange[]> {
  const { context, uncertain, landed } = await attributedContext(run, entry);
  const counted = BASELINES.every((name) => context?.[name] === before?.[name]);
  return [
    ...uncertain.flatMap(({ command: kind, ...other }) =>
      byAmount(kind) ? [{ kind, changeUsd: recordedUsd(bodyOf(other)) }] : [],
    ),
    ...(counted ? [] : landed),
  ];
}

/** What the book shows of an earlier send under a run's key: landed (its answer followed, nothing sent again), or
 * recorded done (a key whose action is done, or a person's word at the prompt); unset: it is sent again. */
export type Earlier<S> = { kind: 'landed'; answer: S } | { kind: 'recorded'; entry: JournalEntry };

/** Resume reads the book before it resends: landed → follow it; proven not landed, or the key still young on both
 * clocks → send again with the key; otherwise only a person's word sends it again (else exit 12). With
 * --idempotency-key of an action the journal has as done (`finished`), nothing is sent again. */
export async function reconcileEarlier<S>(
  run: WriteRun<S>,
  entry: JournalEntry,
  finished?: boolean,
): Promise<Earlier<S> | undefined> {
  const { ports, action, options } = run;
  if (entry.outcome === 'planned') return;
  const { context, uncertain: others } = finished
    ? { context: entry.context, uncertain: [] }
    : await attributedContext(run, entry);
  const found = (await action.stages.reconcile?.(action, { ...entry, context }, others.length > 0)) ?? {
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

/** When each entry this process began and left unresolved was begun, on the monotonic clock: its age in this process never follows the wall clock back. */
export const begunHere = new Map<string, number>();

const UNTOLD_AGE = {
  server:
    "its age cannot be told: the server's clock now puts its first send in the future, or no longer tells the time",
  local:
    "its age cannot be told: this machine's clock puts its start in the future, and the server's answers do not tell the server's",
};
