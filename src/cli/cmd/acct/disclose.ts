// `hedge acct disclose --period P [--entity CODE]`: the period's hedge-accounting disclosures from one entity's books
// (IFRS 7 23B, 24A–24F; ASC 815's tabular ones), a line per figure, each kind of hedge by its row of the rules table;
// --html writes them as a page beside the report's.
import { type CommandContext, describeError, type In, safeText, UsageError } from '../command-input.js';
import type { InputPorts } from '../../../features/write/input-file.js';
import { describeReadError, writeNamedFile } from '../../../core/security/bounded-read.js';
import { StateError } from '../../../core/errors.js';
import { parsePeriod } from '../../../features/acct/acct.js';
import { disclosures } from '../../../features/acct/acct-disclose.js';
import { readAccounts } from '../../../features/acct/acct-posting.js';
import {
  DISCLOSE_VIEW,
  disclosureSections,
  disclosuresHtml,
  rulesNotes,
} from '../../../features/acct/acct-disclose-view.js';
import { htmlTarget } from '../../../features/report/report.js';

/** What this command uses of its context. */
export type Options = InputPorts &
  Pick<CommandContext, 'client' | 'credentials' | 'env' | 'journal' | 'journalChoice' | 'output'>;

/** Said once under the lines, and on the page. */
const NOTES = [
  'Amounts in each relationship’s functional currency: a gain is positive, a reserve positive when it is a credit; in the reserve’s reconciliation what leaves it is negative. The nominal amounts are in the instruments’ own currency, their average rate as the market quotes it.',
  'IFRS 7 24D (relationships that frequently reset) and 24G (credit exposures designated at fair value through profit or loss) are not shown: hedge keeps neither. hedge prints the figures: what the notes say is your judgement and your auditors’.',
];

export async function run(ctx: Options, { options }: In<'ACCT_DISCLOSE'>) {
  const period = parsePeriod(options.period);
  const name = options.period!.trim().toUpperCase();
  const html = options.html === undefined ? undefined : htmlTarget(options.html);
  const accounts = options.accounts === undefined ? {} : await readAccounts(ctx, options.accounts);
  const found = await disclosures(ctx, { name, ...period }, { accounts, entity: options.entity });
  // Each kind of hedge's treatment, as its row of the rules table cites it, said once under the lines.
  const rules = rulesNotes(found.rules);
  const notes = [...NOTES, ...rules];
  if (html !== undefined) {
    try {
      writeNamedFile(html, disclosuresHtml(found.lines, name, notes, found.entity), '--html');
    } catch (error) {
      if (error instanceof UsageError) throw error;
      throw new StateError(`--html: cannot write ${html}: ${describeReadError(error)}.`, {
        path: html,
        hint: 'Free the disk or name a file in a folder you can write, then run it again.',
      });
    }
    ctx.output.note(`Disclosures written to ${html}`);
  }
  await ctx.output.list(found.lines, DISCLOSE_VIEW, {
    empty: `No relationship${found.entity === undefined ? '' : ` of ${found.entity}'s books`} has a month in ${name}.`,
    sections: disclosureSections(found.lines),
    columnNotes: [...NOTES.map((text) => ({ text })), ...rules.map((text) => ({ text, alone: true }))],
  });
  for (const { id, error } of found.failed) ctx.output.warn(safeText(`${id}: not valued: ${error.message}`));
  return found.failed.length ? describeError(found.failed[0].error).exitCode : 0;
}
