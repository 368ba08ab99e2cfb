// `hedge journal resolve`: the operator's word on an action whose outcome hedge cannot tell; it sends nothing.
// --not-landed sets it aside, so a re-run is a new action with a new key; a live process's action is left alone.
import { type CommandContext, type In, UsageError, safeText } from '../command-input.js';
import { heldError } from '../../../features/write/write-run.js';
import { isUnresolved } from '../../../platform/journal/index.js';
import { checkUnresolvedRows, findJournalEntry } from '../../../features/write/row-trust.js';
import { renderJournalEntry } from '../../../platform/results/journal-fields.js';
import type { WritePorts } from '../../../features/write/ports.js';

/** What this command uses of its context. */
export type Options = WritePorts & Pick<CommandContext, 'output'>;

export async function run(ctx: Options, { args, options: { landed, notLanded } }: In<'JOURNAL_RESOLVE'>) {
  // Exactly one of the two flags (each is set or absent).
  if (landed === notLanded)
    throw new UsageError(
      landed
        ? '--landed and --not-landed: give one of them, not both.'
        : 'give --landed (it happened on the server) or --not-landed (it did not).',
    );
  const journal = await ctx.journal();
  const entry = await findJournalEntry(ctx, journal, args.id);
  if (!isUnresolved(entry))
    throw new UsageError(
      `Journal ${entry.id} (${safeText(entry.command)}) is already resolved: its outcome is ${safeText(entry.outcome)}; nothing was changed.`,
    );
  const check = (await checkUnresolvedRows(ctx, [entry]))?.get(entry.id);
  const unverified = check === 'unsealed' || check === 'forged';
  // A copy (its key is also a row's that ended) is never sent by resume either (a row is valid once).
  const copyOf = (await journal.list({ idempotencyKey: entry.idempotency_key })).find(
    (other) => other.id !== entry.id && !isUnresolved(other),
  );
  // A planned leg is finished by its roll's resume, which never sends an unverified row or a copy: a person's word is then its only end.
  if (entry.outcome === 'planned' && !unverified && !copyOf)
    throw new UsageError(
      `Journal ${entry.id} is a planned leg of ${safeText(entry.group ?? 'an action')}: it was never sent, so there is nothing to resolve; finish its action with \`${ctx.hedgeCommand('resume', entry.id)}\`.`,
    );
  const holder = await journal.holderOf(entry.id);
  if (holder) throw heldError(ctx, entry, holder, ' and changed nothing');
  const why = unverified
    ? `does not verify as this account's own row (${check === 'unsealed' ? 'no seal this hedge accepts' : 'its seal does not match'})`
    : copyOf && `is a copy: its idempotency key is also journal ${safeText(copyOf.id)}'s (${safeText(copyOf.outcome)})`;
  if (why)
    ctx.notify({
      kind: 'unverified-row',
      level: 'warn',
      text: `Journal ${entry.id} ${why}: it is recorded as you say, and hedge will never send it again.`,
    });
  const resolved = await journal.update(
    entry.id,
    landed
      ? { outcome: 'done', message: 'resolved by hand: landed' }
      : { outcome: 'abandoned', message: 'resolved by hand: did not land' },
  );
  ctx.output.done(
    `Journal ${entry.id} (${safeText(entry.command)}) recorded as ${landed ? 'landed: outcome done. Nothing was sent.' : 'not landed: outcome abandoned. Nothing was sent; run the command again for a new action with a new key.'}`,
  );
  renderJournalEntry(ctx.output, resolved);
}
