// What the stages of one write share (write-flow.ts the normal path, resume-repeat.ts an earlier run's key): the write
// as data (its record and its kind's behaviour), its options, the run as read once at its start, the key it acts
// under, and what the journal records of it before it is sent.
import { randomUUID } from 'node:crypto';
import type { ApiRequest, SendHooks } from '../../platform/api/transport.js';
import { scrubSecrets } from '../../core/security/secrets.js';
import { notAllowed } from '../../core/input.js';
import { HeldError } from '../../core/errors.js';
import {
  describeHolder,
  type Holder,
  type Journal,
  type JournalEntry,
  type JournalPatch,
  type SideAfter,
} from '../../platform/journal/index.js';
import type { Side } from '../../core/vocabulary.js';
import type { AmountChange, SideShown } from '../book/book.js';
import { safeText } from '../../core/security/safe-text.js';
import type { WritePorts } from './ports.js';
import type { Trade } from '../../platform/runtime/context.js';
import { utcClock } from '../../core/utc-text.js';
import type { JsonObject } from '../../core/objects.js';

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
 * where it belongs; how it is carried out is its family's stages (trade-actions.ts, api-call.ts). */
export interface WriteRecord {
  /** Journaled as its command: the kind, or `api POST /path`. */
  command: string;
  /** Completes "this will …" in the live banner and "--yes is required to …". */
  verb: string;
  argv: string[];
  /** The side this action moves: its lock is held from the key's choice until the action resolved (`withAccountLock`). */
  moves?: { market: string; side: Side };
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

/** What a family of writes (the trades, `hedge api`'s) does at each stage: a table of functions, none bound to a write,
 * each given the write `A` (its record with what its stages read) and what the stage hands it. `S` is the submit
 * answer, `R` the resolution, `K` what a run read before the send and keeps for its later stages: each stage is given
 * it and returns what it adds (a resume has none: what it needs was journaled). */
export interface WriteStages<A, S, R, K = unknown> {
  /** The request, planned with the key (the dry run prints it; the journal records it). */
  plan(write: A, key: string): ApiRequest;
  /** Pre-trade checks; not run when resuming (the first run's own effect may now fill the headroom). */
  check?(write: A): Promise<K | undefined>;
  /** Facts read before the send: `journaled` with the entry (the wait, and a resumed one, read them: e.g. the notional
   * before an add), `kept` for this run's later stages; none: it reads nothing. */
  before?(write: A, kept?: K): Promise<{ journaled?: JsonObject; kept?: K } | undefined>;
  /** Says what the action will do (a quote), before its question. */
  preview?(write: A, kept?: K): Promise<K | undefined>;
  /** The confirmation question on a live key (the guard adds the LIVE marker), of the trades as shown (its plan's). */
  question(write: A, shown?: readonly Trade[], kept?: K): string;
  /** `hooks`: what the request carries besides its plan (an agent's limits asked again before a retry). */
  send(write: A, key: string, hooks?: SendHooks): Promise<S>;
  /** Journal fields from the submit answer (a close: also what it closed), given what was read before: `shown`, the
   * trades as last read before the send; `earlier`, the entry a resume sends again. */
  submitted(
    write: A,
    answer: S,
    read: { kept?: K; shown?: readonly Trade[]; earlier?: JournalEntry },
  ): Pick<JournalPatch, 'hedge_id' | 'order_tx_hash' | 'traded_usd'>;
  /** Waits until the action resolved: what proves it landed, and the side as every view showed it then (journaled: a
   * later identical run is judged by it). `context`: when the request left, the facts read before it (`before`, as
   * journaled; `kept`), whether a resume found the earlier send landed and follows it (`sentEarlier`), and a read of
   * the journal: the other changes of the side known since it began that `before` does not count (`othersSince`). */
  wait(
    write: A,
    answer: S,
    context: {
      startedAt: number;
      before?: JsonObject;
      kept?: K;
      sentEarlier?: boolean;
      othersSince?: () => Promise<readonly AmountChange[]>;
    },
  ): Promise<{ result: R; sideAfter?: SideAfter; outcome?: Resolved }>;
  /** The write as a plan value, the side read now (what a confirmation binds, and what it trades for an agent's limits:
   * the context's TradeGate): read when it is about to be sent. */
  planned?(write: A): Promise<WritePlan>;
  /** What the book shows about an earlier send of this action, against what its entry recorded before it (compared
   * before it is sent again): landed (record it done, send nothing; `answer`: the submit answer as the server would
   * have given it, to wait on and render), not-landed (send it again with its key), or unknown (the book cannot tell);
   * `evidence`: what the book shows, in a sentence (untrusted values already sanitised). */
  reconcile?(
    write: A,
    entry: JournalEntry,
    changedSince: boolean,
  ): Promise<{
    verdict: 'landed' | 'not-landed' | 'unknown';
    evidence: string;
    answer?: S;
  }>;
  /** The plan a row of this write records (what it sends and the side as journaled before the send): its hash is
   * journaled with the row, and checked before the row is sent again; none: a write of no plan (`hedge api`'s). */
  rowPlan?(write: A, row: PlannedRow): WritePlan | undefined;
}

/** What a row's plan is rebuilt from: what it sends, where it belongs, and what was journaled before the send. */
export type PlannedRow = Pick<JournalEntry, 'command' | 'request' | 'group' | 'leg' | 'argv' | 'context'>;

/** What the journal records of a write its wait resolved (unset: done). */
export type Resolved = 'filled' | 'done' | 'failed';

/** Who approved a write before it reached the flow, as data (unset: no one; the confirm stage asks as the key and the
 * command's --yes require): `plan`, a plan's one confirmation (apply's, a roll's), whose checks and agent's limits ran
 * over the whole plan, and whose owner checks each step right before it is sent (apply's side not moved since the plan;
 * a roll's side not covered between its close and its open); `run`, the command's own run (apply's or the keeper's
 * start, their --yes and target), its checks and limits still the write's; `retry`, an earlier attempt of this same
 * action refused for the amount's name only, checked then, with `trades`, what a person's "yes" or an agent's token was
 * given on (sent on it only while the side is as they show; moved, asked again where a person can be asked, else
 * refused). */
export type Approval = { by: 'plan' } | { by: 'run' } | { by: 'retry'; plan?: WritePlan };

/** A write as a plan value: its kind and request, the side as read (its hedges and their sum; unset: not read), what
 * it expects the side to hold after, and what is shown — its trades, which an agent's limits judge. A confirmation binds
 * its hash (confirm.ts planHash): a "yes" holds while the write plans the same. */
export interface WritePlan {
  kind: string;
  request: unknown;
  side?: SideShown;
  expects?: number;
  shown: readonly Trade[];
}

/** What `runWrite` carries out: a record with what its stages read, and its family's stages (called with it). */
export interface WriteAction<S, R, K = unknown> extends WriteRecord {
  stages: WriteStages<this, S, R, K>;
}

/** The account locks a run holds (their scopes), handed by a plan to the writes it makes: an inner check-and-act runs
 * under its outer hold instead of waiting for itself. */
export type Held = ReadonlySet<string>;

/** Where the current credentials send, in the journal's own terms (row-trust.ts identityOf). */
type Identity = Pick<JournalEntry, 'profile' | 'environment' | 'base_url_host' | 'key_id' | 'via'>;

/** What every stage of one write is given: the action, its options, and what the run read once at its start: its live
 * guard; the entry this action would journal (`probe`, its key blank) and what an identical request matches (`match`);
 * `own`, only a row this key sealed says what this account did (a forged row could move a decision at will);
 * `checked`, its checks (and an agent's limits) ran before it reached the flow: with its plan, or on the attempt it
 * retries. */
export interface WriteRun<S = unknown, R = unknown, K = unknown> {
  ports: WritePorts;
  action: WriteAction<S, R, K>;
  options: WriteOptions;
  guard: { live: boolean; needsConfirmation: boolean };
  journal: Journal;
  identity: Identity;
  probe: ReturnType<typeof entryFields>;
  match: ReturnType<typeof entryFields> & { body: unknown };
  own: (entry: JournalEntry) => boolean;
  checked: boolean;
}

/** The key a run acts under: `resumed` continues an earlier run's key (checks skipped, a change may have landed), with
 * its `entry` unless the journal does not know the key; `hold`, this run's hold of the earlier entry (let go when the
 * run ends unresolved); `finished`, a key whose action is done (nothing sent again). */
export interface RunKey {
  key: string;
  resumed: boolean;
  entry?: JournalEntry;
  hold?: { release(): Promise<unknown> };
  finished?: true;
}

export const say = (ports: WritePorts, kind: string, level: 'warn' | 'note' | 'success', text: string) =>
  void ports.notify({ kind, level, text });
export const resumeCommand = (ports: WritePorts, entry: JournalEntry) => ports.hedgeCommand('resume', entry.id);
export const resolveCommands = (ports: WritePorts, entry: JournalEntry) =>
  `\`${ports.hedgeCommand('journal', 'resolve', entry.id, '--landed')}\` or \`${ports.hedgeCommand('journal', 'resolve', entry.id, '--not-landed')}\``;

/** The server's time, when its answers told it. */
export async function serverNow(ports: WritePorts) {
  const time = (await ports.client()).transport?.serverNow?.();
  return time && !time.assumed ? time : undefined;
}

/** When an entry began, as messages say it. */
export const started = (entry: JournalEntry) => `started ${utcClock(entry.created_at)} UTC`;

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

/** A request's extra headers (`hedge api -H`) as a dry run shows them and the journal records them: scrubbed of secrets. */
export function shownHeaders(headers: ApiRequest['headers'] = {}) {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [scrubSecrets(name), scrubSecrets(value)]));
}

/** What the journal records of an action before it is sent (never the API key: only its fingerprint); its extra
 * headers are recorded, not sealed: a resume sends the request without them. */
export function entryFields(
  identity: Identity,
  action: WriteAction<unknown, unknown>,
  key: string,
  context?: JsonObject,
) {
  const { method, path, body = null, headers } = action.stages.plan(action, key);
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
