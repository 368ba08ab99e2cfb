// `hedge acct designate FILE`: a relationship checked, recorded append-only with its hash, and its memo printed.
import { type CommandContext, type In, UsageError } from '../command-input.js';
import { readInputFile, type InputPorts } from '../../../features/write/input-file.js';
import { describeReadError, refuseToWriteAt, writeNamedFile } from '../../../core/security/bounded-read.js';
import { StateError } from '../../../core/errors.js';
import { parseRelationship } from '../../../features/acct/acct-files.js';
import { designate } from '../../../features/acct/acct.js';
import { memoHtml, memoMarkdown, memoText } from '../../../features/acct/acct-view.js';
import { htmlTarget } from '../../../features/report/report.js';

/** What this command uses of its context. */
export type Options = InputPorts & Pick<CommandContext, 'client' | 'credentials' | 'env' | 'output'>;

export async function run(ctx: Options, { args, options }: In<'ACCT_DESIGNATE'>) {
  const html = options.html === undefined ? undefined : htmlTarget(options.html);
  // Judged before the relationship is recorded: a folder others can change refuses with nothing recorded.
  if (html !== undefined) refuseToWriteAt(html, '--html');
  const late = options.recordedLate?.trim();
  if (late === '') throw new UsageError('--recorded-late: expected the reason the designation is recorded late.');
  const { text, sourceName } = await readInputFile(ctx, args.file, 'relationship file');
  const relationship = parseRelationship(text);
  if (typeof relationship === 'string') throw new UsageError(`${sourceName}: ${relationship}`);
  // The memo is written before the relationship is recorded: a memo that cannot be written records nothing.
  const designation = await designate(
    ctx,
    relationship,
    late,
    html === undefined
      ? undefined
      : (sealed) => {
          try {
            writeNamedFile(html, memoHtml(sealed), '--html');
          } catch (error) {
            if (error instanceof UsageError) throw error;
            throw new StateError(`--html: cannot write ${html}: ${describeReadError(error)}; nothing was recorded.`, {
              path: html,
              hint: 'Free the disk or name a file in a folder you can write, then designate it again.',
            });
          }
        },
  );
  const { output } = ctx;
  if (html !== undefined) output.note(`Designation memo written to ${html}`);
  output.document(
    {
      ...designation.relationship,
      recorded_at: designation.recordedAt,
      hash: designation.hash,
      recorded_late: late ?? null,
    },
    () => (options.markdown ? memoMarkdown(designation) : memoText(designation, output.columns)),
  );
}
