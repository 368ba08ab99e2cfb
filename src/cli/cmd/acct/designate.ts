// `hedge acct designate FILE`: a relationship checked, recorded append-only with its hash, and its memo printed.
import { type CommandContext, type In, UsageError } from '../command-input.js';
import { readInputFile, type InputPorts } from '../../../features/write/input-file.js';
import { describeReadError, writeNamedFile } from '../../../core/security/bounded-read.js';
import { StateError } from '../../../core/errors.js';
import { parseRelationship } from '../../../features/acct/acct-files.js';
import { designate, type Designation } from '../../../features/acct/acct.js';
import { asFunctional, quoteCurrencyOf, sideCovering } from '../../../core/markets.js';
import { memoHtml, printMemo } from '../../../features/acct/acct-view.js';
import { htmlTarget } from '../../../features/report/report.js';
import { heldNote } from '../../../features/acct/acct-approval.js';

/** What this command uses of its context. */
export type Options = InputPorts &
  Pick<
    CommandContext,
    'client' | 'credentials' | 'env' | 'journal' | 'journalChoice' | 'output' | 'rememberForCompletion'
  >;

export async function run(ctx: Options, { args, options }: In<'ACCT_DESIGNATE'>) {
  // Judged before the relationship is recorded (htmlTarget): a folder others can change refuses with nothing recorded.
  const html = options.html === undefined ? undefined : htmlTarget(options.html);
  const late = options.recordedLate?.trim();
  if (late === '') throw new UsageError('--recorded-late: expected the reason the designation is recorded late.');
  const { text, sourceName } = await readInputFile(ctx, args.file, 'relationship file');
  const relationship = parseRelationship(text);
  if (typeof relationship === 'string') throw new UsageError(`${sourceName}: ${relationship}`);
  // The memo is written before the relationship is recorded: a memo that cannot be written records nothing.
  const designation = await designate(ctx, relationship, {
    recordedLate: late,
    by: options.by,
    beforeRecord:
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
  });
  ctx.rememberForCompletion({ relationships: [relationship.id] });
  const { output } = ctx;
  if (html !== undefined) output.note(`Designation memo written to ${html}`);
  const against = sideAgainstItem(designation);
  if (against) output.warn(against);
  if (designation.held.length) output.warn(heldNote(designation.held));
  printMemo(output, designation, options.markdown);
}

/** The desk's hedges designated on the side that moves with the hedged item rather than against it (docs/exposures.md
 * "Direction by economics": in USD books an NGN receivable is covered by buy, a payable by sell; in NGN books a USD
 * one the other way): recorded as given, and said, since hedge never decides for the user. */
function sideAgainstItem({ relationship, hedges }: Designation) {
  const { market, hedged_item: item, functional_currency: functional } = relationship;
  const quote = quoteCurrencyOf(market);
  const usd = (code: string | undefined) => code === undefined || asFunctional(code) === 'USD';
  const receivable = !item.amount.startsWith('-');
  const kind = receivable ? 'receivable' : 'payable';
  // The item's currency against the books': a quote-currency item in USD books, or a USD one in quote-currency books.
  // Left out, the books are the rates' other currency than the item's.
  const books = functional ?? (usd(item.currency) ? quote : 'USD');
  const covering =
    item.currency === quote && usd(books)
      ? sideCovering(kind)
      : usd(item.currency) && books === quote
        ? sideCovering(receivable ? 'payable' : 'receivable')
        : undefined;
  const wrong = covering === undefined ? [] : hedges.filter((hedge) => hedge.side !== covering);
  if (!wrong.length) return;
  return `${relationship.id}: the hedged item is a ${kind} in ${item.currency}, which ${covering} covers in ${books} books; ${wrong.map((hedge) => `${hedge.id} is ${hedge.side}`).join(', ')}: it gains when the item gains, so it offsets nothing. Recorded as given; if the side is wrong, de-designate it (hedge acct event ${relationship.id} --de-designate DATE --reason …).`;
}
