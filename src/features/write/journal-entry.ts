// Finding one journal entry by the id (or a unique part of one) a person typed: shared by `journal show`,
// `journal resolve` and `resume`.
import { echo } from '../../core/input.js';
import { UsageError } from '../../core/errors.js';
import { JournalError, type Journal } from '../../platform/journal/index.js';
import type { CommandContext } from '../../platform/runtime/context.js';

/** The entry for an id or a unique part of one. */
export async function findJournalEntry(ports: Pick<CommandContext, 'hedgeCommand'>, journal: Journal, id: string) {
  if (id.trim() === '') throw new UsageError('id: a journal id (a_…) or a unique part of one is required.');
  const entry = await journal.get(id).catch((error: unknown) => {
    // Only the ambiguity is the caller's: a journal that cannot be read stays a JournalError.
    throw error instanceof JournalError && /matches \d+ journal entries/.test(error.message)
      ? new UsageError(error.message, { hint: error.hint })
      : error;
  });
  if (!entry) {
    throw new UsageError(`No journal entry ${echo(id)} in ${journal.location}.`, {
      hint: `List the journal with \`${ports.hedgeCommand('journal')}\`.`,
    });
  }
  return entry;
}
