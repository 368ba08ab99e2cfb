// The one resume path: an unresolved journal entry finished with its own idempotency key (the server replays
// what it already did, or acts once).
import type { HedgeClient } from '../../platform/api/client.js';
import { UsageError } from '../../core/errors.js';
import {
  isUnresolved,
  resumeWithItsCredentials,
  type Holder,
  type JournalEntry,
} from '../../platform/journal/index.js';
import type { WritePorts } from '../write/ports.js';
import { isObject } from '../../core/objects.js';
import { safeText } from '../../core/security/safe-text.js';
import { shellWord } from '../../core/program.js';
import { API_COMMAND_PREFIX, apiActionFromJournal } from './api-call.js';
import { confirmRowFromElsewhere, findJournalEntry, identityOf, requireOwnRow, sentBy } from '../write/row-trust.js';
import { resumeRollOutcome } from './roll.js';
import { recordFromJournal, rowPlan, tradeAction } from './trade-actions.js';
import { runWrite } from '../write/write-flow.js';
import { heldError, ROLL_GROUP_PREFIX } from '../write/write-run.js';
import type { Approval } from '../write/write-run.js';

/** Sends a journaled trade action again with its own key and waits as asked, and returns what it did (its caller shows it, or not). */
export async function finishJournaled(
  ports: WritePorts,
  client: HedgeClient,
  entry: JournalEntry,
  options: {
    wait: boolean;
    resendUnproven?: boolean;
    /** What its caller approved (an apply's run, the keeper's). */
    approved?: Approval;
  },
) {
  const record = recordFromJournal(client, entry);
  if (!record) return;
  const { approved, ...write } = options;
  return runWrite(ports, tradeAction(ports, client, { ...record, approved }), {
    ...write,
    idempotencyKey: entry.idempotency_key,
  });
}

/** The entry must be resumed with the key and server it was sent to: another key is another account. */
async function checkSameCredentials(ports: WritePorts, entry: JournalEntry) {
  const current = await identityOf(ports);
  const differences = [
    entry.environment !== current.environment && `environment ${entry.environment} (now ${current.environment})`,
    entry.base_url_host !== current.base_url_host &&
      `host ${safeText(entry.base_url_host)} (now ${safeText(current.base_url_host)})`,
    entry.key_id !== current.key_id && `key fingerprint ${safeText(entry.key_id)} (now ${current.key_id})`,
  ].filter(Boolean);
  if (!differences.length) return;
  const by = entry.profile ? ` with profile "${safeText(entry.profile)}"` : '';
  // Its words as typed then, unquoted: a quoted `hedge …` would be given this run's environment.
  const typed =
    Array.isArray(entry.argv) && entry.argv.length
      ? ` (${safeText(entry.argv.map(String).map(shellWord).join(' '))})`
      : '';
  // A usage error is one line: what to run goes in the message itself.
  throw new UsageError(
    `Journal ${entry.id}${typed} was sent${by} with other credentials: ${differences.join(', ')}. Nothing was sent; resume it with the credentials it was sent with: ${resumeWithItsCredentials(entry)}`,
  );
}

/** The entry named, or the newest unresolved one that no live process is carrying out (an action in flight is not crashed: it is never resumed from under its process), this account's own first. */
export async function chooseEntryToResume(ports: WritePorts, id: string | undefined) {
  const journal = await ports.journal();
  if (id !== undefined) return findJournalEntry(ports, journal, id);
  let held: { entry: JournalEntry; holder: Holder } | undefined;
  let another: JournalEntry | undefined;
  for (const entry of await journal.list({ pending: true })) {
    // A planned leg belongs to its roll; the roll is resumed through any of its entries.
    const holder = await journal.holderOf(entry.id);
    if (holder) held ??= { entry, holder };
    // Another account's action is never this key's to send: it is named (with its credentials) only when this
    // account has none of its own to finish.
    else if (sentBy(await identityOf(ports), entry)) return entry;
    else another ??= entry;
  }
  if (another) return another;
  if (held)
    throw heldError(
      ports,
      held.entry,
      held.holder,
      ' (every unresolved action in the journal is held by a live process)',
    );
}

/** What `hedge resume` must do with an entry, decided (and refused with a usage error) before anything is sent, so
 * that the command can say what it resumes before it does; nothing is sent. */
export async function planResume(ports: WritePorts, entry: JournalEntry) {
  // A leg of a roll is finished with the whole roll: the close (if still due), then the open, once.
  const roll = entry.group?.startsWith(ROLL_GROUP_PREFIX);
  if (!roll && !isUnresolved(entry)) {
    const when = entry.resolved_at ? ` at ${safeText(entry.resolved_at)}` : '';
    throw new UsageError(
      `Journal ${entry.id} (${safeText(entry.command)}) is already resolved: its outcome is ${safeText(entry.outcome)}${when}. Only pending, submitted or unknown actions can be resumed; see it with \`${ports.hedgeCommand('journal', 'show', entry.id)}\`.`,
    );
  }
  await checkSameCredentials(ports, entry);
  await requireOwnRow(ports, entry, rowPlan(await ports.client(), entry));
  if (roll) {
    await confirmRowFromElsewhere(ports, entry, 'finish its roll');
    return { kind: 'roll' as const, entry };
  }
  // In flight in another process: not resumed from under it (runWrite's hold would refuse it too; said before any note).
  const holder = await (await ports.journal()).holderOf(entry.id);
  if (holder) throw heldError(ports, entry, holder);
  await confirmRowFromElsewhere(ports, entry, 'resume it');
  // A `hedge api` write: its method, path and body as journaled, resolved again as a fresh one is
  // (refused here, before anything is said or sent, when it would not be), sent again with its key.
  if (entry.command.startsWith(API_COMMAND_PREFIX))
    return { kind: 'api' as const, entry, action: apiActionFromJournal(await ports.client(), entry) };
  if (!isObject(entry.request?.body)) {
    throw new UsageError(`Journal ${entry.id} has no request body to send again; it cannot be resumed.`);
  }
  if (!recordFromJournal(await ports.client(), entry)) {
    throw new UsageError(
      `Journal ${entry.id} is a ${safeText(entry.command)}, which \`hedge resume\` cannot send again.`,
      {
        hint: `Run the original command again: it reuses the key of its unresolved journal entry.`,
      },
    );
  }
  return { kind: 'trade' as const, entry };
}

/** `hedge resume`: carries out a plan with the entry's own key and returns what happened. */
export async function resumeEntry(
  ports: WritePorts,
  plan: Awaited<ReturnType<typeof planResume>>,
  options: { wait: boolean; resendUnproven: boolean },
) {
  const { entry } = plan;
  if (plan.kind === 'roll') return { kind: 'roll' as const, rolled: await resumeRollOutcome(ports, entry, options) };
  if (plan.kind === 'api') {
    const again = { ...options, idempotencyKey: entry.idempotency_key };
    return { kind: 'api' as const, entry, outcome: await runWrite(ports, plan.action, again) };
  }
  return {
    kind: 'trade' as const,
    entry,
    outcome: (await finishJournaled(ports, await ports.client(), entry, options))!,
  };
}
