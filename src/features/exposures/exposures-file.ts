// The exposures file: one receivable or payable a row (`id, market, type, amount, currency, due[, hedge_ratio]`),
// CSV or JSON; a problem names the row and field, never the cell's content.
import { parseMarket, readAmount, readDecimal } from '../../core/input.js';
import { asFunctional, quoteCurrencyOf } from '../../core/markets.js';
import {
  NUMBERED_ROWS,
  readInstant,
  readRowFile,
  type Field,
  type RowFileLayout,
  type RowFileOptions,
} from '../../core/row-file.js';
import { withoutUndefined } from '../../core/objects.js';

export interface Exposure {
  /** The treasury's own id of the invoice or deal (unique in the file). */
  id: string;
  /** Upper-cased; whether it is listed is the server's business, not the file's. */
  market: string;
  type: 'receivable' | 'payable';
  /** In `currency`, positive. */
  amount: number;
  /** `USD` or the market's quote currency (NGN for USDTNGN), upper-cased. */
  currency: string;
  /** When the money moves (ms since the epoch; a date alone is midnight UTC). */
  dueMs: number;
  /** 0..1; overrides the policy's ratio for its time bucket. */
  hedgeRatio?: number;
  /** Where the row is: the file's line (CSV) or the item's position (JSON). */
  line: number;
}

type Column = 'id' | 'market' | 'type' | 'amount' | 'currency' | 'due' | 'hedge_ratio';

const LAYOUT: RowFileLayout<Column> = {
  required: ['id', 'market', 'type', 'amount', 'currency', 'due'],
  optional: ['hedge_ratio'],
  listKey: 'exposures',
  rowIs: 'receivable or payable',
  rowsAre: 'exposures',
  ...NUMBERED_ROWS,
};
/** An amount in any currency: NGN 450 million is 4.5e8; a thousand times more is still refused as a typo. */
const MAX_AMOUNT = 1e15;

export function parseExposuresFile(text: string, options: RowFileOptions) {
  return readRowFile(
    text,
    options,
    LAYOUT,
    checkRow,
    (earlier) => `id: the same id as ${earlier.label.replace(/: $/, '')}; each exposure needs its own id.`,
  );
}

function checkRow(field: Field<Column>) {
  const id = field('id', (raw) => {
    const value = raw?.trim() ?? '';
    // Printable ASCII only: an id is shown in every table, and must not be a way to reach the terminal.
    if (!/^[\x21-\x7e](?:[\x20-\x7e]{0,62}[\x21-\x7e])?$/.test(value))
      throw new Error('id: missing or not allowed; expected 1 to 64 printable ASCII characters, such as INV-1042.');
    return value;
  });
  const market = field('market', parseMarket);
  const type = field('type', (raw) => {
    const value = raw?.trim().toLowerCase();
    if (value === 'receivable' || value === 'payable') return value;
    throw new Error('type: missing or not allowed; expected receivable or payable.');
  });
  // 450000000, 450_000_000, 450,000,000, 450m, 1.2bn — the one amount grammar (input.ts readAmount), positive, at most 1e15.
  const amount = field('amount', (raw) => {
    const allowed = 'expected a positive amount such as 450000000, 450_000_000, 450,000,000, 450m or 1.2bn';
    const read = readAmount(raw ?? '', 'positive', MAX_AMOUNT);
    if (read === 'shape') throw new Error(`amount: missing or not allowed; ${allowed}.`);
    if (read === 'too-big') throw new Error(`amount: not allowed; ${allowed}, at most 1e15.`);
    if (read === 'cents') throw new Error('amount: more than 2 decimals.');
    return read;
  });
  const currency = field('currency', (value) => parseCurrency(value, market));
  // A date (midnight UTC) or a timestamp with its zone: a keeper elsewhere must read it the same.
  const dueMs = field('due', (value) =>
    readInstant(
      value,
      'due: missing or not allowed; expected a date (2027-01-15, midnight UTC) or a timestamp with its zone (2027-01-15T17:00:00+01:00).',
    ),
  );
  // 0.75, 75% or 75 (percent when above 1); blank: the policy's ratio for the row's time bucket.
  const hedgeRatio = field('hedge_ratio', (raw) => {
    const value = raw?.trim() ?? '';
    if (value === '') return;
    const number = readDecimal(value, { min: 0, max: 100, percent: true });
    const ratio = number !== undefined && (value.endsWith('%') || number > 1) ? number / 100 : number;
    if (ratio === undefined)
      throw new Error(
        'hedge_ratio: not allowed; expected a ratio from 0 to 1 (0.75) or a percentage from 0% to 100% (75%).',
      );
    return ratio;
  });
  return {
    key: id,
    // Read only when every field is: a row with a problem is never used.
    value: { id, market, type, amount, currency, dueMs, ...withoutUndefined({ hedgeRatio }) } as Exposure,
  };
}

function parseCurrency(raw: string | undefined, market: string | undefined) {
  const quote = quoteCurrencyOf(market ?? '');
  const allowed = quote ? `USD or ${quote} (the market's quote currency)` : "USD or the market's quote currency";
  const currency = asFunctional(raw?.trim().toUpperCase() ?? '');
  if (currency === 'USD' || currency === quote) return currency;
  if (market !== undefined && quote === undefined && /^[A-Z]{3}$/.test(currency))
    throw new Error(
      `currency: the market's name does not say its quote currency; expected USD, or a market named USDT followed by its currency.`,
    );
  throw new Error(`currency: missing or not allowed; expected ${allowed}.`);
}
