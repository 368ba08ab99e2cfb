// The posting file an ERP's journal import takes: a line per posting of the journal's lines, with its document,
// dates, company code, ledger, GL account, debit and credit in the functional currency, the amount in the transaction
// currency at the line's rate, and its text. Pure: made from the journal as printed (a closed month's as posted), so a
// closed month's file is the same bytes every time.
import { UsageError } from '../../core/errors.js';
import { asFunctional } from '../../core/markets.js';
import type { Entity, Relationship } from './acct-files.js';
import { centsNumber, div, exact, mul, sub, toCents, type Exact } from './acct-money.js';
import { entityOf, QUOTE } from './acct.js';
import { ROLES } from './acct-rules.js';
import { readBoundedJson } from '../../core/security/json-keys.js';
import { MAX_INPUT_FILE_BYTES } from '../../core/security/bounded-read.js';
import { readInputFile, type InputPorts } from '../write/input-file.js';
import * as z from 'zod/mini';

const ACCOUNTS = z.partialRecord(
  z.enum(ROLES),
  z.string().check(z.regex(/^[\x20-\x7e]{1,64}$/, 'expected a GL account')),
);

/** `--accounts FILE`: each role's GL account, or the line refusing the file. */
export async function readAccounts(ctx: InputPorts, file: string): Promise<Readonly<Record<string, string>>> {
  const { text, sourceName } = await readInputFile(ctx, file, 'accounts file');
  const map = readBoundedJson(text, { maxBytes: MAX_INPUT_FILE_BYTES, maxDepth: 2 }, ACCOUNTS);
  if (typeof map === 'string')
    throw new UsageError(
      `--accounts ${sourceName}: ${map}; expected {"role": "account"} for roles ${ROLES.join(', ')}.`,
    );
  return map;
}

type Row = Record<string, unknown>;

/** What a posting file is made with besides the journal: each role's GL account, the ledger (else the framework's: IFRS
 * or US GAAP), each relationship and its market's quote, and the declared entities (each relationship's company code
 * is the entity whose books it is in). */
export interface PostingInput {
  accounts: Readonly<Record<string, string>>;
  ledger?: string;
  relationships: ReadonlyMap<string, Relationship>;
  /** Each market's quote as recorded, for a line posted without one. */
  quotes: ReadonlyMap<string, string>;
  entities: ReadonlyMap<string, Entity>;
}

/** The ledger a relationship's postings go to when none is given: its framework's accounting principles. */
const LEDGERS = { ifrs9: 'IFRS', ias39: 'IFRS', asc815: 'USGAAP' } as const;

const cents = (value: unknown) => toCents(exact(String(value ?? 0))!);

/** The amount in the transaction currency (the market's other currency than the books'), at the line's rate quoted
 * `quote`; the functional amount itself where the line has no rate (an adjustment, books with nothing to translate). */
function inTransactionCurrency(amount: Exact, currency: string, rate: unknown, quote: string | undefined) {
  const [, units, per] = (quote && QUOTE.exec(quote)) || [];
  const spot = typeof rate === 'string' || typeof rate === 'number' ? exact(String(rate)) : undefined;
  if (!spot || !units) return { amount: toCents(amount), currency };
  // `units per one of per`: books in `units` divide by it, books in `per` multiply.
  if (asFunctional(units) === asFunctional(currency)) return { amount: toCents(div(amount, spot)), currency: per };
  if (asFunctional(per) === asFunctional(currency)) return { amount: toCents(mul(amount, spot)), currency: units };
  return { amount: toCents(amount), currency };
}

/** The posting file's lines, in the journal's order (one entity's: the books never mix two), each entry's lines
 * numbered from 1; refused (one line, nothing written) when the map names no account for a role a line posts to, or a
 * relationship is in no entity's books. */
export function postingLines(journal: readonly Row[], input: PostingInput) {
  const companyOf = (id: unknown) => {
    const rel = input.relationships.get(String(id));
    return rel && entityOf(rel, input.entities);
  };
  const unmapped = unmappedRoles(journal, input.accounts);
  if (unmapped.length)
    throw new UsageError(
      `--accounts: no GL account for ${unmapped.join(', ')}, which the postings use; expected {"role": "account"} for each role posted to.`,
    );
  const uncoded = [...new Set(journal.map((row) => String(row.relationship_id)))].filter((id) => !companyOf(id));
  if (uncoded.length)
    throw new UsageError(
      `--gl: ${uncoded.join(', ')} is in no entity's books, and its postings need a company code; declare the group's entities (hedge acct entities FILE), the one whose books it is in marked "default": true.`,
    );
  const numbered = new Map<string, number>();
  return journal.map((row) => {
    const rel = input.relationships.get(String(row.relationship_id));
    const document = String(row.entry_id);
    const line = (numbered.get(document) ?? 0) + 1;
    numbered.set(document, line);
    const currency = String(row.currency);
    const signed = sub([cents(row.debit), 100n], [cents(row.credit), 100n]);
    const quote = typeof row.rate_quote === 'string' ? row.rate_quote : rel && input.quotes.get(rel.market);
    const transaction = inTransactionCurrency(signed, currency, row.rate, quote);
    const date = String(row.date);
    return {
      document_number: document,
      line_item: line,
      document_date: date,
      posting_period: date.slice(0, 7),
      company_code: companyOf(row.relationship_id)!,
      ledger: input.ledger ?? (rel ? LEDGERS[rel.framework] : ''),
      account: input.accounts[String(row.role)],
      debit: row.debit,
      credit: row.credit,
      currency,
      amount_tc: centsNumber(transaction.amount),
      currency_tc: transaction.currency,
      rate: row.rate ?? null,
      rate_source: row.rate_source ?? null,
      reference: row.relationship_id,
      text: row.description ?? null,
    };
  });
}

/** The roles a journal posts to that `accounts` leaves out: said beside a journal whose accounts are mapped. */
export const unmappedRoles = (journal: readonly Row[], accounts: Readonly<Record<string, string>>) =>
  [...new Set(journal.map((row) => String(row.role)))].filter((role) => !accounts[role]);
