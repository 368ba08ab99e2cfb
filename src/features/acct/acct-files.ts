// What the accounts read from files: a hedging relationship (JSON), dated rates and fair values (CSV or JSON rows).
// A problem names the field and what is allowed (a date, the value given too).
import * as z from 'zod/mini';
import { UsageError } from '../../core/errors.js';
import { NUMBERED_ROWS, readRowFile, type Field } from '../../core/row-file.js';
import { jsonSyntaxWhere, numbersAsText, parseBoundedJson, readBoundedJson } from '../../core/security/json-keys.js';
import { MAX_INPUT_FILE_BYTES } from '../../core/security/bounded-read.js';
import { FRAMEWORKS, HEDGE_TYPES, ITEM_KINDS, METHODS } from './acct-rules.js';
import { exact, type Exact } from './acct-money.js';
import { amountAsDecimalText, echo } from '../../core/input.js';

const DATE = /^\d{4}-\d{2}-\d{2}$/;
/** A calendar day as written (`2026-13-01` and `2026-02-30` are none). */
const isDate = (text: string) => {
  const ms = DATE.test(text) ? Date.parse(text) : NaN;
  return Number.isFinite(ms) && new Date(ms).toISOString().startsWith(text);
};
const A_DATE = 'expected a date such as 2026-11-30 (YYYY-MM-DD)';
/** The refusal of a date, naming what was given. */
const notADate = (name: string, raw: string) =>
  raw.trim() === '' ? `${name}: missing; ${A_DATE}.` : `${name}: ${echo(raw)} is not a date; ${A_DATE}.`;

/** The date an option gives, or the line refusing it. */
export function parseDate(option: string, raw: string) {
  if (!isDate(raw)) throw new UsageError(notADate(option, raw));
  return raw;
}

/** Text that matches `re`, else `message`. */
const pattern = (re: RegExp, message: string) => z.string().check(z.regex(re, message));
const date = (what: string) => z.string().check(z.refine(isDate, `${what}: ${A_DATE}`));
const text = z.string().check(z.minLength(1, 'expected some text'));
/** A decimal as text; `amount`: written in the one grammar of an amount too (`30m`, `10_000`), read exactly. */
const decimalText = (
  what: string,
  positive = false,
  { amount = false, allowed = `${positive ? 'a positive' : 'a'} decimal number such as 770000 or -20000.50` } = {},
) =>
  z
    .pipe(
      z.union([z.string(), z.number()]),
      z.transform((value) => (amount && amountAsDecimalText(String(value))) || String(value)),
    )
    .check(
      z.refine((value) => {
        const read = exact(value);
        return read !== undefined && (!positive || read[0] > 0n);
      }, `${what}: expected ${allowed}`),
    );

/** An entity of the group: a company code, as an ERP names it. */
const COMPANY_CODE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,31}$/;
const REFERENCE = pattern(/^[\x21-\x7e](?:[\x20-\x7e]{0,62}[\x21-\x7e])?$/, 'expected a client reference');

const RELATIONSHIP = z.strictObject({
  id: pattern(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'expected 1 to 64 letters, digits, ., _ or -'),
  framework: z.enum(FRAMEWORKS),
  type: z.enum(HEDGE_TYPES),
  /** The entity whose books the relationship is in (a company code): the one the entities file declares. */
  entity: z.optional(pattern(COMPANY_CODE, 'expected a company code')),
  designated_at: date('designated_at'),
  objective: text,
  market: pattern(/^[A-Z0-9]{4,16}$/, 'expected the market whose rates apply, e.g. USDTNGN'),
  /** The currency the books are kept in (ISO); USDT and USDC are read as USD. */
  functional_currency: z.optional(
    pattern(/^[A-Z]{3,5}$/, 'expected the currency code the books are kept in, such as NGN'),
  ),
  hedged_item: z.strictObject({
    description: text,
    currency: pattern(/^[A-Z]{3,5}$/, 'expected a currency code such as NGN'),
    amount: decimalText('hedged_item.amount (positive to receive, negative to pay)', false, {
      amount: true,
      allowed: 'an amount such as 770000, -20000.50, 30m or -2.5k',
    }),
    // What the kind of hedge needs of these (a net investment has no date): its row of the rules table says.
    expected_date: z.optional(date('hedged_item.expected_date')),
    kind: z.enum(ITEM_KINDS),
    probability_evidence: z.optional(text),
    /** A net investment's foreign operation: the entity whose net assets are hedged. */
    operation: z.optional(pattern(COMPANY_CODE, 'expected the company code of the foreign operation')),
    /** A non-financial item (inventory, equipment) or a financial one: IFRS 9 adjusts a non-financial item's cost. */
    nature: z.optional(z.enum(['financial', 'non_financial'])),
  }),
  instrument: z.union([
    z.strictObject({ references: z.array(REFERENCE).check(z.minLength(1, 'expected at least one reference')) }),
    z.strictObject({
      notional: decimalText('instrument.notional', true, {
        amount: true,
        allowed: 'a positive amount such as 770000, 10_000 or 30m',
      }),
      currency: pattern(/^[A-Z]{3,5}$/, 'expected a currency code'),
      contract_rate: decimalText('instrument.contract_rate', true),
      maturity: date('instrument.maturity'),
      rate_quote: text,
    }),
  ]),
  ratio: decimalText('ratio (the designated share of the instrument, at most 1)', true, {
    allowed: 'a positive decimal number more than 0 and at most 1, such as 1 or 0.5',
  }),
  designation: z.enum(['spot', 'forward']),
  excluded: z.enum(['pnl', 'cost_of_hedging_reserve', 'amortised']),
  method: z.enum(METHODS),
  sources_of_ineffectiveness: text,
  approved_by: text,
  /** Where the reserve goes when the transaction happens: the hedged item's line, or the asset's cost. */
  on_occurrence: z.optional(z.enum(['reclassify', 'basis_adjustment'])),
  /** A spot designation whose spot changes (the hedged item's, the forward's spot element) are discounted. */
  discount_hedged_item: z.optional(z.boolean()),
  /** How the excluded part known at inception is spread: by days, or by months as a textbook does. */
  amortisation: z.optional(z.enum(['days', 'months'])),
  // What the designation documents besides (IFRS 9 6.4.1(b), ASC 815-20-25-3): the memo names any left out.
  hedged_risk: z.optional(text),
  ratio_basis: z.optional(text),
  economic_relationship: z.optional(text),
  credit_risk: z.optional(text),
  prospective_assessment: z.optional(text),
  /** ASC 815 critical terms: the maturity matches within one 31-day period or within the same fiscal month. */
  maturity_match: z.optional(z.enum(['within_31_days', 'same_fiscal_month'])),
});
export type Relationship = z.infer<typeof RELATIONSHIP>;

/** The fields a file may not leave out. */
const REQUIRED_FIELDS = Object.entries(RELATIONSHIP.shape).flatMap(([key, field]) =>
  field instanceof z.ZodMiniOptional ? [] : [key],
);

/** The relationship a file holds, or the one line that says what is wrong with it. */
export function parseRelationship(source: string): Relationship | string {
  // Where the file is not JSON, said on the file as written (line and column).
  const bounds = { maxBytes: MAX_INPUT_FILE_BYTES, maxDepth: 8 };
  const plain = parseBoundedJson(source, bounds);
  if (plain.problem !== undefined && plain.syntax !== undefined)
    return `${plain.problem}: ${jsonSyntaxWhere(source, plain.syntax)}`;
  // Numbers read as the digits written: an amount is never a double first.
  const read = readBoundedJson(numbersAsText(source), bounds, RELATIONSHIP);
  // The checked value with its amounts as decimal text (a JSON number is read as the text it is written as).
  if (typeof read !== 'string') return RELATIONSHIP.parse(read);
  // A field left out reads better as what it is than as zod's "expected string, received undefined".
  const missing = /^([a-z_.]+): Invalid input: expected \w+, received undefined$/.exec(read);
  return missing ? `${missing[1]}: missing; the file needs ${REQUIRED_FIELDS.join(', ')}` : read;
}

/** The group's entities, each declared once: its company code, name and the currency its books are kept in; one may
 * hold the relationships that name none (`default`). */
const ENTITIES = z.strictObject({
  entities: z
    .array(
      z.strictObject({
        code: pattern(COMPANY_CODE, 'expected a company code, such as NG01'),
        name: text,
        functional_currency: pattern(/^[A-Z]{3,5}$/, 'expected the currency code its books are kept in, such as NGN'),
        default: z.optional(z.boolean()),
      }),
    )
    .check(z.minLength(1, 'expected at least one entity')),
});
export type Entity = z.infer<typeof ENTITIES>['entities'][number];

/** The entities a file declares, or the one line that says what is wrong with it. */
export function parseEntities(source: string): Entity[] | string {
  const bounds = { maxBytes: MAX_INPUT_FILE_BYTES, maxDepth: 4 };
  const plain = parseBoundedJson(source, bounds);
  if (plain.problem !== undefined && plain.syntax !== undefined)
    return `${plain.problem}: ${jsonSyntaxWhere(source, plain.syntax)}`;
  const read = readBoundedJson(source, bounds, ENTITIES);
  return typeof read === 'string' ? read : read.entities;
}

// ---- Rows: rates and values ----

/** What a rate may be: a spot or forward price of a millionth to a thousand million units, a discount factor above 0 up to
 * 2 (the dearest negative rate stays below it); anything else cannot be a rate and would poison every period after. */
const PRICE_RANGE = [
  [1n, 1_000_000n],
  [1_000_000_000n, 1n],
] as const;
const RATE_RANGE = {
  spot: PRICE_RANGE,
  forward: PRICE_RANGE,
  discount_factor: [
    [0n, 1n],
    [2n, 1n],
  ],
} as const satisfies Record<string, readonly [Exact, Exact]>;
type RateColumn = keyof typeof RATE_RANGE;

const below = (a: Exact, b: Exact) => a[0] * b[1] < b[0] * a[1];

/** Why `text` cannot be the decimal (or the rate) `column` holds, or undefined when it can. */
export function rateProblem(column: string, text: string) {
  const value = exact(text);
  if (value === undefined) return `${column}: not allowed; expected a decimal number such as 1.0929`;
  if (!(column in RATE_RANGE)) return;
  const [low, high] = RATE_RANGE[column as RateColumn];
  if (below(value, low) || below(high, value) || (column === 'discount_factor' && value[0] <= 0n))
    return `${column}: out of range; expected ${column === 'discount_factor' ? 'a discount factor above 0 and at most 2' : 'a positive price from 0.000001 to 1000000000'}`;
}

const decimalCell = (column: string, optional: boolean) => (raw: string | undefined) => {
  const value = raw?.trim() ?? '';
  if (value === '' && optional) return undefined;
  if (value === '')
    throw new Error(`${column}: missing, a gap in the rates; expected a decimal number such as 1.0929.`);
  const problem = rateProblem(column, value);
  if (problem) throw new Error(`${problem}.`);
  return value;
};
const dateCell = (raw: string | undefined) => {
  const value = raw?.trim() ?? '';
  // A row's value is never repeated back (row-file.ts), but one of a date's shape holds nothing else: it is named.
  if (DATE.test(value) && !isDate(value)) throw new Error(`date: ${value} is not a day of the calendar; ${A_DATE}.`);
  if (!isDate(value)) throw new Error(notADate('date', value));
  return value;
};

/** A file of dated rows (`name`: the list's key, `row`: what one is), one a date, in date order; or its problems. */
function readDated<C extends string, T extends { date: string }>(
  source: string,
  sourceName: string,
  [name, row]: [string, string],
  required: C[],
  optional: C[],
  check: (field: Field<C>) => T,
) {
  const read = readRowFile(
    source,
    { sourceName },
    { required, optional, listKey: name, rowIs: 'date', rowsAre: name, ...NUMBERED_ROWS },
    (field) => {
      const line = check(field);
      return { key: line.date, value: line };
    },
    (earlier) => `date: the same date as ${earlier.label.replace(/: $/, '')}; one ${row} a date.`,
  );
  return 'problems' in read ? read : { rows: read.rows.toSorted((a, b) => a.date.localeCompare(b.date)) };
}

/** What a refused rates or values file asks of the user. */
export const FIX_ROWS = 'Fix every row listed, then run the command again (the files: docs/accounting.md).';

/** A market's rates: one row a date, each with its spot (a date without one is a gap), no other market's rows. */
export function parseRatesFile(source: string, sourceName: string, market: string) {
  return readDated(
    source,
    sourceName,
    ['rates', 'rate'],
    ['date', 'spot', 'forward', 'discount_factor', 'source'],
    ['market'],
    (field) => {
      field('market', (raw) => {
        const value = raw?.trim().toUpperCase() ?? '';
        if (value !== '' && value !== market)
          throw new Error(`market: another market's rate; this file holds ${market}'s alone (--market).`);
        return value;
      });
      return {
        date: field('date', dateCell)!,
        spot: field('spot', decimalCell('spot', false))!,
        forward: field('forward', decimalCell('forward', true)),
        discount_factor: field('discount_factor', decimalCell('discount_factor', true)),
        source: field('source', (raw) => {
          const value = raw?.trim() ?? '';
          if (!/^[\x20-\x7e]{1,200}$/.test(value))
            throw new Error('source: missing or not allowed; expected where the rate comes from, in printable ASCII.');
          return value;
        })!,
      };
    },
  );
}

export type RatesFileRow = Extract<ReturnType<typeof parseRatesFile>, { rows: unknown }>['rows'][number];

/** Cumulative fair values since designation, one row a date, in date order. */
export function parseValuesFile(source: string, sourceName: string) {
  return readDated(
    source,
    sourceName,
    ['values', 'row'],
    ['date', 'instrument_value', 'hedged_item_value'],
    ['excluded_value', 'fees'],
    (field) => ({
      date: field('date', dateCell)!,
      instrument_value: field('instrument_value', decimalCell('instrument_value', false))!,
      hedged_item_value: field('hedged_item_value', decimalCell('hedged_item_value', false))!,
      excluded_value: field('excluded_value', decimalCell('excluded_value', true)),
      fees: field('fees', decimalCell('fees', true)),
    }),
  );
}
export type ValueLine = Extract<ReturnType<typeof parseValuesFile>, { rows: unknown }>['rows'][number];
