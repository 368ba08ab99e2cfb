// `hedge acct journal [--period P] [--accounts FILE]`: balanced entries per relationship and period, GL accounts from a
// map file; a table, --json, or CSV for an ERP import.
import * as z from 'zod/mini';
import type { CommandContext, In } from '../command-input.js';
import { UsageError } from '../command-input.js';
import { readInputFile, type InputPorts } from '../../../features/write/input-file.js';
import { readBoundedJson } from '../../../core/security/json-keys.js';
import { MAX_INPUT_FILE_BYTES } from '../../../core/security/bounded-read.js';
import { parsePeriod } from '../../../features/acct/acct.js';
import { balanced, periodEntries, ROLES, type Role } from '../../../features/acct/acct-rules.js';
import { centsNumber } from '../../../features/acct/acct-money.js';
import { JOURNAL_FIELDS } from '../../../features/acct/acct-view.js';
import { computeAll, rateText } from './periods.js';

/** What this command uses of its context. */
export type Options = InputPorts & Pick<CommandContext, 'client' | 'env' | 'output'>;

const ACCOUNTS = z.partialRecord(
  z.enum(ROLES),
  z.string().check(z.regex(/^[\x20-\x7e]{1,64}$/, 'expected a GL account')),
);

export async function run(ctx: Options, { args, options }: In<'ACCT_JOURNAL'>) {
  const period = options.period === undefined ? undefined : parsePeriod(options.period);
  let accounts: Partial<Record<Role, string>> = {};
  if (options.accounts !== undefined) {
    const { text, sourceName } = await readInputFile(ctx, options.accounts, 'accounts file');
    const map = readBoundedJson(text, { maxBytes: MAX_INPUT_FILE_BYTES, maxDepth: 2 }, ACCOUNTS);
    if (typeof map === 'string')
      throw new UsageError(
        `--accounts ${sourceName}: ${map}; expected {"role": "account"} for roles ${ROLES.join(', ')}.`,
      );
    accounts = map;
  }
  const computed = await computeAll(ctx, args.id, period?.to, options.values);
  const rows = computed.flatMap(({ designation, results, rates, hedgeIds, currency }) =>
    results
      .filter((result) => period === undefined || result.period_end >= period.from)
      .flatMap((result) => {
        const into =
          designation.relationship.on_occurrence === 'basis_adjustment' ? 'basis_adjustment' : 'reclassification';
        const lines = periodEntries(designation.relationship.id, result, into);
        // Every entry balances, or nothing is printed: an entry that does not is a fault of hedge's, never a posting.
        if (!balanced(lines))
          throw new Error(`an entry of ${designation.relationship.id} at ${result.period_end} does not balance`);
        const rate = rates.get(result.period_end);
        return lines.map((line) => ({
          entry_id: line.entry_id,
          relationship_id: line.relationship_id,
          hedge_ids: hedgeIds.join(' '),
          date: line.date,
          role: line.role,
          account: accounts[line.role] ?? line.role,
          debit: line.amount > 0n ? centsNumber(line.amount) : 0,
          credit: line.amount < 0n ? centsNumber(-line.amount) : 0,
          currency,
          rate: rate ? rateText(rate.spot) : null,
          rate_source: rate?.source ?? null,
          description: line.description,
        }));
      }),
  );
  await ctx.output.list(rows, JOURNAL_FIELDS, { empty: 'No entries in this period.' });
}
