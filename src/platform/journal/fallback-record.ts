// A local record of a team entry, written when the team store fails after a send and merged back by `hedge journal
// migrate` by revisions (knowsMore), never by the clocks of the machines that wrote them.
import type { openJournal } from './journal.js';
import { isUnresolved, PATCH_FIELDS, type JournalEntry, type JournalPatch } from './entry.js';
import { JournalError, JournalStoreError } from './journal-error.js';
import { withoutUndefined, type JsonObject } from '../../core/objects.js';

/** `store`: the store as shown (password redacted); `openLocal`: the local file journal, opened on the first fallback. */
export function fallbackRecords(store: string, openLocal: () => ReturnType<typeof openJournal>) {
  let local: ReturnType<typeof openJournal> | undefined;
  /** Team entry id → the id of its local fallback record. */
  const ids = new Map<string, string>();
  /** Entries this process has read or written: what a fallback record starts from. */
  const known = new Map<string, JournalEntry>();
  /** Set once the store failed on an update: later updates of this run go to the fallback at once. */
  let failure: JournalStoreError | undefined;

  /** The fallback record of `id`: what it would send, then what the store had learnt before it failed. */
  async function start(journal: ReturnType<typeof openJournal>, id: string) {
    const base = known.get(id);
    if (!base) throw new JournalError(`this run never read entry ${id}`);
    const { id: _id, created_at, updated_at, holder, outcome, seq, revision, ...fields } = base;
    for (const field of PATCH_FIELDS) delete (fields as JsonObject)[field];
    const begun = await journal.begin({
      ...fields,
      outcome: outcome === 'planned' ? 'planned' : 'pending',
      // An unknown revision is left out (begin keeps what JSON keeps).
      fallback_for: { id, store, revision },
    });
    ids.set(id, begun.id);
    const had = outcomeFields(base);
    if (Object.keys(had).length) await journal.update(begun.id, had);
    return begun.id;
  }

  return {
    known,
    /** The store's change of the entry `id`; a store that fails after the request may have left: what `change` says is then kept in the local journal, and the failure thrown. */
    async change(id: string, change: JournalPatch, inStore: () => Promise<JournalEntry | undefined>) {
      if (!failure)
        try {
          return await inStore();
        } catch (error) {
          if (!(error instanceof JournalStoreError)) throw error;
          failure = error;
        }
      let kept;
      try {
        local ??= openLocal();
        const localId = ids.get(id) ?? (await start(local, id));
        await local.update(localId, outcomeFields(change));
        kept = `; what happened to ${id} is kept in the local journal ${local.file} (fallback record ${localId}): \`hedge journal migrate\` merges it into the team store once the store is back`;
      } catch (error) {
        kept = `, and the local fallback record could not be written either (${(error as Error).message})`;
      }
      const { message, hint } = failure;
      throw new JournalStoreError(`${message.replace(/\.$/, '')}${kept}.`, { store, hint, cause: failure });
    },
  };
}

export function outcomeFields(record: Partial<JournalEntry>) {
  return withoutUndefined(Object.fromEntries(PATCH_FIELDS.map((field) => [field, record[field]])));
}

export function knowsMore(local: JournalEntry, stored: JournalEntry) {
  // Of a finished copy and an unfinished one, the finished one knows more.
  if (isUnresolved(stored) !== isUnresolved(local)) return isUnresolved(stored);
  const storedRevision = stored.revision ?? 1;
  // A fallback record from before revisions were kept continues from nothing known: the store's copy stands.
  if (local.fallback_for) return storedRevision <= (local.fallback_for.revision ?? 0);
  return (local.revision ?? 1) > storedRevision;
}

/** The revision a local record brings into the store: a fallback record is one change past the revision it continued from. */
export function importedRevision(local: JournalEntry) {
  if (local.fallback_for) return (local.fallback_for.revision ?? 0) + 1;
  return local.revision ?? 1;
}
