// Whose a journal row is: the account a write is made as, in the journal's own terms (environment, host, key
// fingerprint, profile, who asked); the row a person named, and the one decision about sending a row again; what a row
// traded, as an agent's limits count it.
import { hostname } from 'node:os';
import { echo } from '../../core/input.js';
import { readNumber } from '../../core/number-format.js';
import { UnverifiedRowError, UsageError } from '../../core/errors.js';
import {
  bodyOf,
  isUnresolved,
  JournalError,
  keyFingerprint,
  recordedUsd,
  type Journal,
  type JournalEntry,
} from '../../platform/journal/index.js';
import type { RowCheck, RowSealer } from '../../platform/journal/row-integrity.js';
import type { CommandContext } from '../../platform/runtime/context.js';
import { safeText } from '../../core/security/safe-text.js';
import { confirmOrStop, planHash } from './confirm.js';
import type { WritePorts } from './ports.js';
import type { WritePlan } from './write-run.js';

/** Where the current credentials send, in the journal's own terms. */
export async function identityOf(ports: Pick<CommandContext, 'credentials' | 'origin'>) {
  const credentials = await ports.credentials();
  return {
    profile: credentials.profileName,
    environment: credentials.environment,
    // The demo's port changes every run; its journal entries must still match across runs.
    base_url_host: credentials.sources.baseUrl === 'demo' ? 'demo' : new URL(credentials.baseUrl).host,
    key_id: keyFingerprint(credentials.apiKey),
    /** Set when the write came through `hedge mcp` (agent) or a keeper's step (keeper). */
    via: ports.origin === 'cli' ? undefined : ports.origin,
  };
}

export type Identity = Awaited<ReturnType<typeof identityOf>>;

/** Whether an entry acts on the account now in use: the same key in the same environment, through whichever host name
 * of the base URL (`127.0.0.1` and `localhost` reach one service). */
export function sameAccount(identity: Pick<JournalEntry, 'environment' | 'key_id'>, entry: typeof identity) {
  return entry.environment === identity.environment && entry.key_id === identity.key_id;
}

/** Whether an entry was sent with the credentials now in use (another key is another account; another host is where
 * a resend would go). */
export function sentBy(
  identity: Pick<JournalEntry, 'environment' | 'base_url_host' | 'key_id'>,
  entry: typeof identity,
) {
  return sameAccount(identity, entry) && entry.base_url_host === identity.base_url_host;
}

/** One sealer per resolved credentials (deriving one is an HKDF): dropped with them. */
const sealers = new WeakMap<object, RowSealer>();

/** The sealer of the current API key. */
export async function rowSealerOf(ports: Pick<CommandContext, 'credentials'>) {
  const credentials = await ports.credentials();
  if (!sealers.has(credentials))
    sealers.set(credentials, (await import('../../platform/journal/row-integrity.js')).rowSealer(credentials.apiKey));
  return sealers.get(credentials)!;
}

/** The entry for an id or a unique part of one (`journal show`, `journal resolve`, `resume`). */
export async function findJournalEntry(ports: Pick<WritePorts, 'hedgeCommand'>, journal: Journal, id: string) {
  if (id.trim() === '') throw new UsageError('id: a journal id (a_…) or a unique part of one is required.');
  const entry = await journal.get(id).catch((error: unknown) => {
    // Only the ambiguity is the caller's: a journal that cannot be read stays a JournalError.
    throw error instanceof JournalError && /matches \d+ journal entries/.test(error.message)
      ? new UsageError(error.message, { hint: error.hint })
      : error;
  });
  if (!entry)
    throw new UsageError(`No journal entry ${echo(id)} in ${journal.location}.`, {
      hint: `List the journal with \`${ports.hedgeCommand('journal')}\`.`,
    });
  return entry;
}

/** Which rows a decision may count: only those that verify under this key. */
export async function ownRowTest(ports: Pick<WritePorts, 'credentials'>) {
  const sealer = await rowSealerOf(ports);
  return (entry: JournalEntry) => sealer.trust(entry) === 'verified';
}

/** Refuses (exit 13, nothing sent) a row not this account's own, an unresolved one whose key already has a finished row
 * (a row is valid once), or one journaled with a plan's hash that the plan rebuilt from it (`plan`: its kind, its
 * request and the side as journaled; none: no trade) no longer matches. */
export async function requireOwnRow(
  ports: Pick<WritePorts, 'credentials' | 'journal' | 'hedgeCommand'>,
  entry: JournalEntry,
  plan?: WritePlan,
) {
  // Whether the row verifies under the current key (journal rows shown by `hedge journal` say it too).
  const sealed = (await rowSealerOf(ports)).trust(entry);
  const hash = entry.context?.plan_hash;
  const trust = sealed === 'verified' && hash !== undefined && (!plan || planHash(plan) !== hash) ? 'plan' : sealed;
  const twins = (await (await ports.journal()).list({ idempotencyKey: entry.idempotency_key })).filter(
    (other) => other.id !== entry.id,
  );
  const spent = twins.find((other) => !isUnresolved(other));
  if (trust === 'verified' && (spent === undefined || !isUnresolved(entry))) return;
  const request = entry.request ?? { method: '?', path: '?' };
  const row = `Journal ${safeText(entry.id)} (${safeText(String(entry.command))}: ${safeText(String(request.method))} ${safeText(String(request.path))})`;
  const twin = spent ?? twins[0];
  const copy = twin
    ? ` Its idempotency key is also journal ${safeText(twin.id)}'s (${safeText(twin.outcome)}): this row is a copy, never sent as an action of its own.`
    : '';
  const why =
    trust === 'verified'
      ? ': a row is valid once.'
      : trust === 'plan'
        ? ` does not match the plan journaled with it: what it would send, or the side it recorded before its send, is not what was planned (changed after it was written, under this key's seal).`
        : ` does not verify as this account's own row: ${trust === 'unsealed' ? 'it carries no seal this hedge accepts (written by an older hedge, by hand, or by someone without this key)' : 'its seal does not match what it would send (copied under another id or time, changed after it was written, or written without this key)'}.`;
  throw new UnverifiedRowError(`${row}${why}${copy} hedge does not send it; nothing was sent.`, {
    journalId: entry.id,
    trust: trust === 'verified' ? 'duplicate' : trust,
    hint: `Look at the book (\`${ports.hedgeCommand('positions')}\`, \`${ports.hedgeCommand('hedges')}\`) and the row (\`${ports.hedgeCommand('journal', 'show', entry.id)}\`); then record it with \`${ports.hedgeCommand('journal', 'resolve', entry.id, '--not-landed')}\` (or --landed) and type the command again yourself if it is still wanted.`,
  });
}

/** Whether the row was begun on another machine than this one (a team store's row). */
export function begunElsewhere(entry: Pick<JournalEntry, 'host'>) {
  return typeof entry.host === 'string' && entry.host !== hostname();
}

/** A row begun on another machine is resumed here only on a person's word (--yes, or a yes at a prompt; else exit 2). */
export async function confirmRowFromElsewhere(
  ports: Pick<WritePorts, 'globals' | 'interactive' | 'confirm'>,
  entry: JournalEntry,
  what: string,
) {
  if (!begunElsewhere(entry) || ports.globals.yes) return;
  const from = `Journal ${safeText(entry.id)} (${safeText(String(entry.command))}) was begun on ${safeText(String(entry.host))}, not on this machine`;
  if (!ports.interactive)
    throw new UsageError(
      `${from}: pass --yes to ${what} from here (there is no terminal to confirm on); nothing was sent.`,
    );
  await confirmOrStop(ports, `${from}. ${what[0].toUpperCase()}${what.slice(1)} from here?`);
}

/** The seal verdict of each unresolved row, for `hedge journal`; undefined when there is none or no key. */
export async function checkUnresolvedRows(
  ports: Pick<WritePorts, 'credentials' | 'origin'>,
  entries: readonly JournalEntry[],
) {
  const unresolved = entries.filter(isUnresolved);
  if (!unresolved.length) return;
  const identity = await identityOf(ports).catch(() => undefined);
  if (!identity) return;
  const sealer = await rowSealerOf(ports);
  return new Map<string, RowCheck>(
    unresolved.map((entry) => [entry.id, sentBy(identity, entry) ? sealer.trust(entry) : 'other-key']),
  );
}

/** What a journal entry traded: what it recorded it moved (a close), else its body's amount under whatever name the
 * server gives it (open, add, reduce), else its context's notional, else what an agent's limits judged it trades. */
export function tradedUsd(entry: Pick<JournalEntry, 'request' | 'context' | 'traded_usd'>) {
  if (typeof entry.traded_usd === 'number') return Math.abs(entry.traded_usd);
  const { notional_usd: notional, judged_usd: judged } = entry.context ?? {};
  return Math.abs(recordedUsd(bodyOf(entry)) ?? readNumber(notional) ?? readNumber(judged) ?? 0);
}
