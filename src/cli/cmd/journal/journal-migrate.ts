// `hedge journal migrate`: the local journal into the team store, fallback records included. Every entry keeps its
// id, so running it again adds nothing; the local file is left as it is.
import { isTeamJournal, journalDir, JournalStoreError, openJournal } from '../../../platform/journal/index.js';
import { type CommandContext, UsageError, safeText, plural } from '../command-input.js';

/** What this command uses of its context. */
export type Options = Pick<
  CommandContext,
  'clock' | 'env' | 'globals' | 'hedgeCommand' | 'journal' | 'journalChoice' | 'output'
>;

export async function run(ctx: Options) {
  const { output } = ctx;
  const choice = await ctx.journalChoice();
  if (choice.kind === 'file')
    throw new UsageError(
      ctx.globals.demo
        ? 'journal migrate: --demo always keeps its own local journal; there is no team store to move it to.'
        : 'journal migrate: no team store is configured; set HEDGE_JOURNAL_URL=postgres://USER@HOST:PORT/DATABASE or save one in the profile with `hedge login --journal-url …`.',
    );
  const team = await ctx.journal();
  if (!isTeamJournal(team)) throw new Error('the journal in use is not the team store');
  const local = openJournal({ dir: journalDir(ctx.env), now: ctx.clock.now });
  // Schema versions this run applied (none when the store was current), then the ids by what became of each.
  const summary = {
    store: choice.shown,
    file: local.file,
    schema_applied: await team.migrateSchema(),
    added: [] as string[],
    merged: [] as string[],
    present: [] as string[],
    conflicts: [] as string[],
  };
  // Oldest first: the store then lists them in the order they happened here.
  const entries = (await local.list()).reverse();
  for (const entry of entries) {
    const { outcome, id } = await team.importEntry(entry);
    summary[outcome === 'conflict' ? 'conflicts' : outcome].push(id);
  }
  output.document(summary);
  const c = output.chalk;
  output.textNote(
    `${entries.length ? `Moved the local journal ${safeText(local.file)} (${plural(entries.length, 'entry', 'entries')})` : 'The local journal is empty'} into the team store ${safeText(choice.shown)}: ${summary.added.length} added, ${summary.merged.length} merged (a later outcome or a fallback record), ${summary.present.length} already there.`,
  );
  if (summary.schema_applied.length)
    output.textNote(c.dim(`Created the store's schema (version ${summary.schema_applied.join(', ')}).`));
  if (entries.length) output.textNote(c.dim(`The local file is left as it was; running this again adds nothing.`));
  if (summary.conflicts.length)
    throw new JournalStoreError(
      `${plural(summary.conflicts.length, 'local entry was', 'local entries were')} not moved: the team store ${choice.shown} holds another action under the same id (${summary.conflicts.join(', ')}).`,
      {
        store: choice.shown,
        hint: `See both with \`${ctx.hedgeCommand('journal', 'show', summary.conflicts[0])}\` and the local file ${local.file}; the rest was moved.`,
      },
    );
}
