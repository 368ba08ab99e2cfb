// The exposures file of `hedge exposures` (and `hedge keep --exposures`): one row per receivable or
// payable, as an ERP or a spreadsheet exports it — `id, market, type, amount, currency, due` and
// optionally `hedge_ratio`. CSV or JSON, read the way target-file.ts reads target files: checked
// whole before anything is read from the server, every problem collected, and a problem names the
// row (the file's line in CSV, the item in JSON) and the field, never the cell's content (the file
// may be any file at all, and its text must not come back to a terminal or an agent).
import { parse as parseCsv } from 'csv-parse/sync';
import { repeatedKeyProblems } from '../security/json-keys.js';
import { parseMarket, readAmount, withoutEcho } from './input.js';
import { quoteCurrencyOf } from './markets.js';

export type ExposureType = 'receivable' | 'payable';

export interface Exposure {
  /** The treasury's own id of the invoice or deal (unique in the file). */
  id: string;
  /** Upper-cased; whether it is listed is the server's business, not the file's. */
  market: string;
  type: ExposureType;
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

export interface ExposureFileProblem {
  line: number;
  message: string;
}

export type ExposureFileResult = { exposures: Exposure[] } | { problems: ExposureFileProblem[] };

const REQUIRED = ['id', 'market', 'type', 'amount', 'currency', 'due'] as const;
const OPTIONAL = ['hedge_ratio'] as const;
type Column = (typeof REQUIRED)[number] | (typeof OPTIONAL)[number];
const COLUMNS: readonly string[] = [...REQUIRED, ...OPTIONAL];
const COLUMNS_EXPECTED = `${REQUIRED.join(', ')} and optionally ${OPTIONAL.join(', ')}`;
const BOM = '\ufeff';
/** An amount in any currency: NGN 450 million is 4.5e8; a thousand times more is still refused as a typo. */
const MAX_AMOUNT = 1e15;

interface RawRow {
  line: number;
  /** "row 3: " (CSV: the third row under the header) or "item 3: " (JSON). */
  label: string;
  cells: Partial<Record<Column, string>>;
  reported: Set<Column>;
}

export function parseExposuresFile(text: string, options: { sourceName: string; format?: 'csv' | 'json' }): ExposureFileResult {
  const content = text.startsWith(BOM) ? text.slice(BOM.length) : text;
  const first = content.trimStart()[0];
  const format = options.format ?? (first === '[' || first === '{' ? 'json' : 'csv');
  const read = format === 'json' ? readJson(content, options.sourceName) : readCsv(content, options.sourceName);
  const problems = [...read.problems];
  const exposures: Exposure[] = [];
  const firstLineOf = new Map<string, RawRow>();
  for (const raw of read.rows) {
    const checked = checkRow(raw);
    problems.push(...checked.problems.map((message) => ({ line: raw.line, message: `${raw.label}${message}` })));
    if (checked.id !== undefined) {
      const earlier = firstLineOf.get(checked.id);
      if (earlier) problems.push({ line: raw.line, message: `${raw.label}id: the same id as ${earlier.label.replace(/: $/, '')}; each exposure needs its own id.` });
      else firstLineOf.set(checked.id, raw);
    }
    if (checked.exposure) exposures.push(checked.exposure);
  }
  problems.sort((a, b) => a.line - b.line);
  if (problems.length > 0) return { problems };
  if (exposures.length === 0) return { problems: [{ line: 0, message: `${options.sourceName} has no exposures; expected one row per receivable or payable.` }] };
  return { exposures };
}

// ---- CSV ----

function readCsv(content: string, sourceName: string): { rows: RawRow[]; problems: ExposureFileProblem[] } {
  const normalised = content.replace(/\r\n?/g, '\n');
  const problems: ExposureFileProblem[] = [];
  let framingLine: number | undefined;
  const records = parseCsv(normalised, {
    info: true,
    comment: '#',
    comment_no_infix: true,
    skip_empty_lines: true,
    relax_column_count: true,
    skip_records_with_error: true,
    on_skip: (error) => {
      if (!error || framingLine !== undefined) return undefined;
      framingLine = typeof error.lines === 'number' ? error.lines : 0;
      problems.push({ line: framingLine, message: 'not valid CSV: a quoted field is broken here (csv-parse stopped reading).' });
      return undefined;
    },
  }) as unknown as Array<{ record: string[]; info: { lines: number } }>;
  const located = records
    .map(({ record, info }) => ({ fields: record, line: info.lines - record.reduce((count, field) => count + (field.match(/\n/g)?.length ?? 0), 0) }))
    .filter((entry) => entry.fields.some((field) => field.trim() !== ''))
    .filter((entry) => framingLine === undefined || entry.line < framingLine);
  const [header, ...body] = located;
  if (!header) {
    if (framingLine === undefined) problems.push({ line: 0, message: `${sourceName} is empty; expected a header row naming ${COLUMNS_EXPECTED}, then one row per exposure.` });
    return { rows: [], problems };
  }
  const columns = header.fields.map((name) => name.trim().toLowerCase());
  const seen = new Set<string>();
  columns.forEach((name, index) => {
    if (!COLUMNS.includes(name)) problems.push({ line: header.line, message: `header: column ${index + 1} is not a known column; the columns are ${COLUMNS_EXPECTED}.` });
    else if (seen.has(name)) problems.push({ line: header.line, message: `header: column ${name} appears more than once.` });
    seen.add(name);
  });
  const missing = REQUIRED.filter((name) => !seen.has(name));
  if (missing.length > 0) {
    problems.push({ line: header.line, message: `header: lacks ${missing.join(', ')}; it must name ${COLUMNS_EXPECTED}, in any order.` });
    return { rows: [], problems };
  }
  const rows: RawRow[] = [];
  for (const [index, { fields, line }] of body.entries()) {
    const label = `row ${index + 1}: `;
    if (fields.length !== columns.length) {
      problems.push({ line, message: `${label}expected ${columns.length} fields as in the header, found ${fields.length}.` });
      continue;
    }
    const cells: Partial<Record<Column, string>> = {};
    columns.forEach((name, index) => {
      if (COLUMNS.includes(name)) cells[name as Column] = fields[index];
    });
    rows.push({ line, label, cells, reported: new Set() });
  }
  return { rows, problems };
}

// ---- JSON ----

function readJson(content: string, sourceName: string): { rows: RawRow[]; problems: ExposureFileProblem[] } {
  let document: unknown;
  try {
    document = JSON.parse(content);
  } catch {
    return { rows: [], problems: [{ line: 0, message: `${sourceName} is not valid JSON.` }] };
  }
  const items = Array.isArray(document) ? document : exposuresOf(document);
  if (!items) return { rows: [], problems: [{ line: 0, message: `${sourceName}: expected an array of exposures or an object { "exposures": [...] }.` }] };
  const rows: RawRow[] = [];
  // JSON.parse kept the last of two equal keys: the file says two things, and is refused.
  const problems: ExposureFileProblem[] = repeatedKeyProblems(content, 'exposures', COLUMNS);
  items.forEach((item: unknown, index) => {
    const line = index + 1;
    const label = `item ${line}: `;
    if (typeof item !== 'object' || item === null || Array.isArray(item)) {
      problems.push({ line, message: `${label}expected an object with ${COLUMNS_EXPECTED}.` });
      return;
    }
    const row: RawRow = { line, label, cells: {}, reported: new Set() };
    for (const [key, value] of Object.entries(item)) {
      if (!COLUMNS.includes(key)) problems.push({ line, message: `${label}a key that is not known; the keys are ${COLUMNS_EXPECTED}.` });
      else if (typeof value === 'string') row.cells[key as Column] = value;
      else if (typeof value === 'number') row.cells[key as Column] = String(value);
      else if (value !== null) {
        problems.push({ line, message: `${label}${key}: expected a string or a number.` });
        row.reported.add(key as Column);
      }
    }
    rows.push(row);
  });
  return { rows, problems };
}

function exposuresOf(document: unknown): unknown[] | undefined {
  if (typeof document !== 'object' || document === null) return undefined;
  const list = (document as { exposures?: unknown }).exposures;
  return Array.isArray(list) ? list : undefined;
}

// ---- values ----

function checkRow(raw: RawRow): { id?: string; exposure?: Exposure; problems: string[] } {
  const problems: string[] = [];
  const field = <T>(column: Column, check: (value: string | undefined) => T): T | undefined => {
    if (raw.reported.has(column)) return undefined;
    try {
      return check(raw.cells[column]);
    } catch (error) {
      problems.push(withoutEcho(error instanceof Error ? error.message : String(error)));
      return undefined;
    }
  };
  const id = field('id', parseId);
  const market = field('market', parseMarket);
  const type = field('type', parseType);
  const amount = field('amount', parseAmount);
  const currency = field('currency', (value) => parseCurrency(value, market));
  const dueMs = field('due', parseDue);
  const hedgeRatio = field('hedge_ratio', parseHedgeRatio);
  if (problems.length > 0 || id === undefined || market === undefined || type === undefined || amount === undefined || currency === undefined || dueMs === undefined) {
    return { id, problems };
  }
  return {
    id,
    exposure: { id, market, type, amount, currency, dueMs, ...(hedgeRatio === undefined ? {} : { hedgeRatio }), line: raw.line },
    problems,
  };
}

function parseId(raw: string | undefined): string {
  const value = raw?.trim() ?? '';
  // Printable ASCII only: an id is shown in every table, and must not be a way to reach the terminal.
  if (!/^[\x21-\x7e](?:[\x20-\x7e]{0,62}[\x21-\x7e])?$/.test(value)) {
    throw new Error('id: missing or not allowed; expected 1 to 64 printable ASCII characters, such as INV-1042.');
  }
  return value;
}

function parseType(raw: string | undefined): ExposureType {
  const value = raw?.trim().toLowerCase();
  if (value === 'receivable' || value === 'payable') return value;
  throw new Error('type: missing or not allowed; expected receivable or payable.');
}

/** 450000000, 450_000_000, 450,000,000, 450m, 1.2bn — the one amount grammar (input.ts readAmount), positive, at most 1e15. */
function parseAmount(raw: string | undefined): number {
  const allowed = 'expected a positive amount such as 450000000, 450_000_000, 450,000,000, 450m or 1.2bn';
  const amount = readAmount(raw ?? '', 'positive', MAX_AMOUNT);
  if (amount === 'shape') throw new Error(`amount: missing or not allowed; ${allowed}.`);
  if (amount === 'too-big') throw new Error(`amount: not allowed; ${allowed}, at most 1e15.`);
  if (amount === 'cents') throw new Error('amount: more than 2 decimals.');
  return amount;
}

function parseCurrency(raw: string | undefined, market: string | undefined): string {
  const quote = market === undefined ? undefined : quoteCurrencyOf(market);
  const allowed = quote ? `USD or ${quote} (the market's quote currency)` : "USD or the market's quote currency";
  const value = raw?.trim().toUpperCase() ?? '';
  // USDT and USDC settle as USD here: the account's dollar is one dollar.
  const currency = value === 'USDT' || value === 'USDC' ? 'USD' : value;
  if (currency === 'USD') return currency;
  if (quote !== undefined && currency === quote) return currency;
  if (market !== undefined && quote === undefined && /^[A-Z]{3}$/.test(currency)) {
    throw new Error(`currency: the market's name does not say its quote currency; expected USD, or a market named USDT followed by its currency.`);
  }
  throw new Error(`currency: missing or not allowed; expected ${allowed}.`);
}

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

/** A date (midnight UTC) or a timestamp with its zone: a keeper elsewhere must read it the same. */
export function parseDue(raw: string | undefined): number {
  const value = raw?.trim() ?? '';
  const ms = DATE_ONLY.test(value) ? Date.parse(`${value}T00:00:00Z`) : TIMESTAMP.test(value) ? Date.parse(value) : Number.NaN;
  if (!Number.isFinite(ms)) {
    throw new Error('due: missing or not allowed; expected a date (2027-01-15, midnight UTC) or a timestamp with its zone (2027-01-15T17:00:00+01:00).');
  }
  return ms;
}

/** 0.75, 75% or 75 (percent when above 1); blank: the policy's ratio for the row's time bucket. */
export function parseHedgeRatio(raw: string | undefined): number | undefined {
  const value = raw?.trim() ?? '';
  if (value === '') return undefined;
  const match = /^(\d+(?:\.\d+)?)(%?)$/.exec(value);
  const number = match ? Number(match[1]) : Number.NaN;
  const ratio = match && (match[2] === '%' || number > 1) ? number / 100 : number;
  if (!Number.isFinite(ratio) || ratio < 0 || ratio > 1) {
    throw new Error('hedge_ratio: not allowed; expected a ratio from 0 to 1 (0.75) or a percentage from 0% to 100% (75%).');
  }
  return ratio;
}
