// The one resume path: an unresolved journal entry finished with its own idempotency key (the server
// replays what it already did, or acts once). `hedge resume`, apply's unfinished steps and the
// keeper's unfinished actions all come through here.
import type { HedgeClient } from '../api/client.js';
import { UsageError } from '../errors.js';
import { isUnresolved, type Holder, type JournalEntry } from '../journal/index.js';
import type { CommandContext } from '../runtime/context.js';
import { safeText } from '../security/safe-text.js';
import { API_COMMAND_PREFIX } from './api-call.js';
import { findJournalEntry } from './journal-entry.js';
import { resumeRoll, ROLL_GROUP_PREFIX } from './roll.js';
import { actionFromJournal } from './trade-actions.js';
import { heldError, identityOf, runWrite, type Identity, type WriteAction, type WriteResult } from './write-flow.js';

/** Whether an entry was sent with the credentials now in use (another key is another account). */
export function sentBy(identity: Pick<Identity, 'environment' | 'host' | 'keyId'>, entry: JournalEntry): boolean {
  return entry.environment === identity.environment && entry.base_url_host === identity.host && entry.key_id === identity.keyId;
}

/** The unresolved entries of this account whose group starts with one of these prefixes, oldest first. */
export async function unfinishedOfThisAccount(ctx: CommandContext, groupPrefixes: readonly string[]): Promise<JournalEntry[]> {
  const [journal, identity] = await Promise.all([ctx.journal(), identityOf(ctx)]);
  return (await journal.list({ pending: true }))
    .filter((entry) => sentBy(identity, entry) && groupPrefixes.some((prefix) => entry.group?.startsWith(prefix) === true))
    .reverse();
}

/** The trade action a journal entry was, rebuilt from its recorded request; undefined when it is none. */
export function journaledAction(ctx: CommandContext, client: HedgeClient, entry: JournalEntry): WriteAction<unknown, unknown> | undefined {
  const body = entry.request?.body;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const argv = Array.isArray(entry.argv) ? entry.argv.map(String) : [entry.command];
  return actionFromJournal(ctx, client, entry.command, body as Record<string, unknown>, argv, { group: entry.group, leg: entry.leg });
}

/**
 * Sends a journaled trade action again with its own key and waits as asked. `present` adapts the
 * action to its caller (a step of a run shows nothing of its own; `hedge resume` shows it all).
 * Undefined when the entry is not a trade action.
 */
export async function finishJournaled(
  ctx: CommandContext,
  client: HedgeClient,
  entry: JournalEntry,
  options: { wait: boolean; present?: (action: WriteAction<unknown, unknown>) => WriteAction<unknown, unknown> },
): Promise<WriteResult<unknown, unknown> | undefined> {
  const action = journaledAction(ctx, client, entry);
  if (!action) return undefined;
  return runWrite(ctx, options.present ? options.present(action) : action, { wait: options.wait, dryRun: false, idempotencyKey: entry.idempotency_key, fresh: false });
}

/** How to select the credentials the entry was sent with, for the refusal's hint. */
function selectorFor(entry: JournalEntry): string {
  const again = ['resume', entry.id];
  if (entry.profile === 'demo' || entry.base_url_host === 'demo') return ['hedge', '--demo', ...again].join(' ');
  if (entry.profile) return ['hedge', '--profile', safeText(entry.profile), ...again].join(' ');
  return `HEDGE_API_KEY=<the key with fingerprint ${safeText(entry.key_id)}> HEDGE_BASE_URL=<https://${safeText(entry.base_url_host)}/…> hedge resume ${entry.id}`;
}

/** The entry must be resumed with the key and server it was sent to: another key is another account. */
async function checkSameCredentials(ctx: CommandContext, entry: JournalEntry): Promise<void> {
  const current = await identityOf(ctx);
  const differences: string[] = [];
  if (entry.environment !== current.environment) differences.push(`environment ${entry.environment} (now ${current.environment})`);
  if (entry.base_url_host !== current.host) differences.push(`host ${safeText(entry.base_url_host)} (now ${safeText(current.host)})`);
  if (entry.key_id !== current.keyId) differences.push(`key fingerprint ${safeText(entry.key_id)} (now ${current.keyId})`);
  if (differences.length === 0) return;
  const by = entry.profile ? ` with profile "${safeText(entry.profile)}"` : '';
  const typed = Array.isArray(entry.argv) && entry.argv.length > 0 ? ` (\`hedge ${safeText(entry.argv.join(' '))}\`)` : '';
  // A usage error is one line: what to run goes in the message itself.
  throw new UsageError(
    `Journal ${entry.id}${typed} was sent${by} with other credentials: ${differences.join(', ')}. Nothing was sent; resume it with the credentials it was sent with: ${selectorFor(entry)}`,
  );
}

/**
 * The entry named, or the newest unresolved one that no live process is carrying out (an action in
 * flight is not crashed: it is never resumed from under its process).
 */
export async function chooseEntryToResume(ctx: CommandContext, id: string | undefined): Promise<JournalEntry | undefined> {
  const journal = await ctx.journal();
  if (id !== undefined) return findJournalEntry(ctx, journal, id);
  let held: { entry: JournalEntry; holder: Holder } | undefined;
  for (const entry of await journal.list({ pending: true })) {
    // A planned leg belongs to its roll; the roll is resumed through any of its entries.
    const holder = await journal.holderOf(entry.id);
    if (!holder) return entry;
    held ??= { entry, holder };
  }
  if (held) throw heldError(ctx, held.entry, held.holder, ' (every unresolved action in the journal is held by a live process)');
  return undefined;
}

function resumingNote(ctx: CommandContext, entry: JournalEntry): void {
  ctx.output.note(
    ctx.output.chalk.yellow(
      `Resuming the ${safeText(entry.command)} started ${entry.created_at.slice(11, 19)} UTC with key ${safeText(entry.idempotency_key)} (journal ${entry.id}, outcome ${entry.outcome}): the server returns its original result or acts once.`,
    ),
  );
}

/** `hedge resume`: one entry, shown as its own command would show it. */
export async function resumeEntry(ctx: CommandContext, entry: JournalEntry, options: { wait: boolean }): Promise<number> {
  // A leg of a roll is finished with the whole roll: the close (if still due), then the open, once.
  if (entry.group?.startsWith(ROLL_GROUP_PREFIX)) {
    await checkSameCredentials(ctx, entry);
    return resumeRoll(ctx, entry, { wait: options.wait });
  }
  if (!isUnresolved(entry)) {
    const when = entry.resolved_at ? ` at ${safeText(entry.resolved_at)}` : '';
    throw new UsageError(`Journal ${entry.id} (${safeText(entry.command)}) is already resolved: its outcome is ${safeText(entry.outcome)}${when}. Only pending, submitted or unknown actions can be resumed; see it with \`${ctx.hedgeCommand('journal', 'show', entry.id)}\`.`);
  }
  await checkSameCredentials(ctx, entry);
  // In flight in another process: not resumed from under it (runWrite's hold would refuse it too; said before any note).
  const holder = await (await ctx.journal()).holderOf(entry.id);
  if (holder) throw heldError(ctx, entry, holder);
  // A `hedge api` write: its method, path and body as journaled, sent again with its key.
  if (entry.command.startsWith(API_COMMAND_PREFIX)) return resumeApiWrite(ctx, entry, options);
  const body = entry.request?.body;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new UsageError(`Journal ${entry.id} has no request body to send again; it cannot be resumed.`);
  }
  const client = await ctx.client();
  if (!journaledAction(ctx, client, entry)) {
    throw new UsageError(`Journal ${entry.id} is a ${safeText(entry.command)}, which \`hedge resume\` cannot send again.`, {
      hint: `Run the original command again: it reuses the key of its unresolved journal entry.`,
    });
  }
  resumingNote(ctx, entry);
  await finishJournaled(ctx, client, entry, { wait: options.wait });
  return 0;
}

/** Resumes a `hedge api` write (flows/api-call.ts): the answer is printed as `hedge api` prints it. */
async function resumeApiWrite(ctx: CommandContext, entry: JournalEntry, options: { wait: boolean }): Promise<number> {
  const [{ apiActionFromJournal }, { printAnswers }] = await Promise.all([import('./api-call.js'), import('../ui/api-answer.js')]);
  const client = await ctx.client();
  const action = apiActionFromJournal(client, entry, (answer) => printAnswers(ctx.output, [answer], { include: false, failed: false }))!;
  resumingNote(ctx, entry);
  await runWrite(ctx, action, { wait: options.wait, dryRun: false, idempotencyKey: entry.idempotency_key, fresh: false });
  return 0;
}
