// `hedge journal`: the action journal, newest first — every write this machine sent (or, with a team
// store, every machine of the desk), by which profile and host, when, and with what outcome. Filters: --pending (unresolved only), --since, --limit.
import {
  type CommandContext,
  type In,
  notAllowed,
  parseClientReference,
  parseWholeNumber,
  sameReference,
  safeText,
} from '../command-input.js';
import { parseDuration, readDateTime, readMonthsAgo } from '../../../core/duration.js';
import { journalReference, renderJournalList } from '../../../platform/results/journal-fields.js';
import type { JournalEntry } from '../../../platform/journal/index.js';
import { checkUnresolvedRows } from '../../../features/write/row-trust.js';

/** What this command uses of its context. */
export type Options = Pick<
  CommandContext,
  'clock' | 'credentials' | 'hedgeCommand' | 'journal' | 'journalChoice' | 'origin' | 'output'
>;

/** A journal is kept for years: a time ago may reach back that far (core/duration.ts's grammar). */
const MAX_AGO_MS = 100 * 366 * 86_400_000;
const SINCE_FORMS = 'a date (2026-11-20), an ISO time (2026-11-20T08:00:00Z) or a time ago (30m, 2h, 3d, 1w, 1mo)';

/** --since: YYYY-MM-DD (UTC midnight), an ISO time (UTC when no zone is given), or `2h` / `3d` / `1w` / `1mo` before now. */
export function parseSince(raw: string | undefined, nowMs: number) {
  if (raw === undefined) return;
  const value = raw.trim();
  // A time ago in months (`3mo`) is no duration: parseDuration refuses it, and it is read below.
  if (/^\d+(\.\d+)?\s*[a-z]/i.test(value)) {
    try {
      return nowMs - parseDuration(value, '--since', 'mhdw', MAX_AGO_MS).ms;
    } catch {
      // Said below with every form --since takes.
    }
  }
  const time = readMonthsAgo(value, new Date(nowMs)) ?? readDateTime(value);
  if (time) return time.getTime();
  throw notAllowed('--since', raw, SINCE_FORMS);
}

export async function run(ctx: Options, { options: given }: In<'JOURNAL_LIST'>) {
  const { output } = ctx;
  const pending = given.pending === true;
  const since = parseSince(given.since, ctx.clock.now());
  const limit =
    given.limit === undefined
      ? 50
      : parseWholeNumber(given.limit, '--limit', 1, Number.MAX_SAFE_INTEGER, 'a whole number of 1 or more');
  const ref = parseClientReference(given.ref);
  // The journal knows no reference filter: with --ref the entries of the window are read a part at a time, newest
  // first, until enough are kept. One entry past the limit read too: "more" is said only when there is more.
  const matching: JournalEntry[] = [];
  for await (const entry of (await ctx.journal()).each({ pending, since }))
    if ((ref === undefined || sameReference(journalReference(entry), ref)) && matching.push(entry) > limit) break;
  const entries = matching.slice(0, limit);
  const filtered = pending || since !== undefined || ref !== undefined;
  const choice = await ctx.journalChoice();
  const empty =
    choice.kind === 'file'
      ? 'The journal is empty: no action has been sent from this machine yet.'
      : `The team journal ${choice.shown} is empty: no machine has recorded an action there yet.`;
  const checks = await checkUnresolvedRows(ctx, entries);
  await renderJournalList(output, entries, {
    empty: filtered ? 'No journal entries match these filters.' : empty,
    team: choice.kind !== 'file',
    checks,
  });
  // Said whatever the width: a narrow table may leave its seal column out.
  const unverified = [...(checks ?? [])]
    .filter(([, check]) => check === 'unsealed' || check === 'forged')
    .map(([id]) => safeText(id));
  const count = unverified.length;
  if (count) {
    const named = unverified.slice(0, 3).join(', ') + (count > 3 ? ` and ${count - 3} more` : '');
    const one = count === 1;
    output.textNote(
      output.chalk.yellow(
        `${one ? 'Row' : `${count} rows`} ${named} ${one ? 'does' : 'do'} not verify as this account's own: hedge never sends ${one ? 'it' : 'them'} again (\`${ctx.hedgeCommand('journal', 'show', unverified[0])}\`).`,
      ),
    );
  }
  if (entries.length)
    output.tableNote(output.chalk.dim(`One entry in full: ${ctx.hedgeCommand('journal', 'show', '<ID>')}`));
  if (matching.length > limit) output.tableNote(output.chalk.dim(`Showing the newest ${limit}; more with --limit.`));
}
