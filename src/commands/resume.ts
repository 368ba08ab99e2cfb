// `hedge resume [ID]`: finishes an unresolved action from the journal (pending, submitted or
// unknown) with its own idempotency key — the server answers a repeated key with the original
// result, or acts once if the first request never arrived — then waits as the original command
// would. Without ID, the newest unresolved action.
import type { InputOf } from '../cli/command-spec.js';
import type { RESUME } from './resume.spec.js';
import type { ResolvedCredentials } from '../config/credentials.js';
import { UsageError } from '../errors.js';
import { resumeRoll, ROLL_GROUP_PREFIX } from '../flows/roll.js';
import { actionFromJournal } from '../flows/trade-actions.js';
import { heldError, runWrite } from '../flows/write-flow.js';
import { isUnresolved, keyFingerprint, type Holder, type JournalEntry } from '../journal/index.js';
import type { CommandContext } from '../runtime/context.js';
import { safeText } from '../security/safe-text.js';
import { findJournalEntry } from './journal-show.js';
import { API_COMMAND_PREFIX } from '../flows/api-call.js';

export interface ResumeOptions {
  /** A journal id or unique prefix; undefined: the newest unresolved entry. */
  id?: string;
  wait: boolean;
}

export function parseResumeOptions(input: InputOf<typeof RESUME>): ResumeOptions {
  const id = input.args.id?.trim();
  return { id: id === '' ? undefined : id, wait: input.options.wait !== false };
}

/** Where the current credentials send, in the journal's own terms (as write-flow records them). */
function currentTarget(credentials: ResolvedCredentials): { environment: string; host: string; keyId: string } {
  return {
    environment: credentials.environment,
    // The demo's port changes every run; its entries are recorded under the host `demo`.
    host: credentials.sources.baseUrl === 'demo' ? 'demo' : new URL(credentials.baseUrl).host,
    keyId: keyFingerprint(credentials.apiKey),
  };
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
  const current = currentTarget(await ctx.credentials());
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
async function chooseEntry(ctx: CommandContext, id: string | undefined): Promise<JournalEntry | undefined> {
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

export async function run(ctx: CommandContext, input: InputOf<typeof RESUME>): Promise<number> {
  const options = parseResumeOptions(input);
  const entry = await chooseEntry(ctx, options.id);
  if (!entry) {
    ctx.output.note(`Nothing to resume: every action in the journal is resolved. See them with \`${ctx.hedgeCommand('journal')}\`.`);
    return 0;
  }
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
  const argv = Array.isArray(entry.argv) ? entry.argv.map(String) : [entry.command];
  const action = actionFromJournal(ctx, client, entry.command, body as Record<string, unknown>, argv, { group: entry.group, leg: entry.leg });
  if (!action) {
    throw new UsageError(`Journal ${entry.id} is a ${safeText(entry.command)}, which \`hedge resume\` cannot send again.`, {
      hint: `Run the original command again: it reuses the key of its unresolved journal entry.`,
    });
  }
  ctx.output.note(
    ctx.output.chalk.yellow(
      `Resuming the ${safeText(entry.command)} started ${entry.created_at.slice(11, 19)} UTC with key ${safeText(entry.idempotency_key)} (journal ${entry.id}, outcome ${entry.outcome}): the server returns its original result or acts once.`,
    ),
  );
  await runWrite(ctx, action, { wait: options.wait, dryRun: false, idempotencyKey: entry.idempotency_key, fresh: false });
  return 0;
}

/** Resumes a `hedge api` write (flows/api-call.ts): the answer is printed as `hedge api` prints it. */
async function resumeApiWrite(ctx: CommandContext, entry: JournalEntry, options: ResumeOptions): Promise<number> {
  const [{ apiActionFromJournal }, { printAnswers }] = await Promise.all([import('../flows/api-call.js'), import('../ui/api-answer.js')]);
  const client = await ctx.client();
  const action = apiActionFromJournal(client, entry, (answer) => printAnswers(ctx.output, [answer], { include: false, failed: false }))!;
  ctx.output.note(
    ctx.output.chalk.yellow(
      `Resuming the ${safeText(entry.command)} started ${entry.created_at.slice(11, 19)} UTC with key ${safeText(entry.idempotency_key)} (journal ${entry.id}, outcome ${entry.outcome}): the server returns its original result or acts once.`,
    ),
  );
  await runWrite(ctx, action, { wait: options.wait, dryRun: false, idempotencyKey: entry.idempotency_key, fresh: false });
  return 0;
}
