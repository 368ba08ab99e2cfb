// The target file of `hedge plan` / `hedge apply`: one row per market and side saying how much
// notional that side should hold. It is checked whole before anything is read from the server, and
// every problem is collected (not just the first) so that one edit fixes them all.
//
// A problem never repeats the file's content: it names the line (or item) and the column, and
// what is allowed — not what was found. The file may be any file at all (an agent can name one),
// and its text must not come back in an error, to a terminal or to an agent.
//
// Line numbers: in CSV, `line` is the file's own line (header included, blank and `#` comment
// lines counted), the line where the row starts. In JSON, `line` is the 1-based position of the
// element in the array, and the message says "item N". `line` 0 means the file as a whole.
import { parse as parseCsv } from 'csv-parse/sync';
import { repeatedKeyProblems } from '../security/json-keys.js';
import { parseDuration } from './duration.js';
import { parseClientReference, parseMarket, parseNotional, parseSide, withoutEcho } from './input.js';
import { TENORS, type Side, type Tenor } from './vocabulary.js';

export interface TargetRow {
  /** Upper-cased; whether it is listed is the plan's business, not the file's. */
  market: string;
  side: Side;
  /** 0 means flat: the side should hold nothing. */
  notionalUsd: number;
  /** Required when notionalUsd > 0; used only when the plan opens the side. */
  tenorDays?: Tenor;
  clientReference?: string;
  /** `hedge keep`: when the exposure ends (ms since the epoch); a hedge maturing at or after it is not renewed. */
  untilMs?: number;
  /** `hedge keep`: how long before maturity the side is rolled (ms); the keeper's default when absent. */
  rollBeforeMs?: number;
  line: number;
}

interface TargetFileProblem {
  line: number;
  message: string;
}

export type TargetFileResult = { rows: TargetRow[] } | { problems: TargetFileProblem[] };

export interface TargetFileOptions {
  /** Without it the content decides: JSON when it starts with `[` or `{`, CSV otherwise. */
  format?: 'csv' | 'json';
  /** The path or `stdin`, named in problems about the file as a whole. */
  sourceName: string;
}

const REQUIRED_COLUMNS = ['market', 'side', 'notional_usd', 'tenor_days'] as const;
const OPTIONAL_COLUMNS = ['client_reference', 'until', 'roll_before'] as const;
const COLUMNS: readonly string[] = [...REQUIRED_COLUMNS, ...OPTIONAL_COLUMNS];
type Column = (typeof REQUIRED_COLUMNS)[number] | (typeof OPTIONAL_COLUMNS)[number];

const COLUMNS_EXPECTED = `${REQUIRED_COLUMNS.join(', ')} and optionally ${OPTIONAL_COLUMNS.join(', ')}`;
const FLAT = /^0+(?:\.0+)?$/;
const BOM = '\ufeff';

/** One row as read from either format, before its values are checked. */
interface RawRow {
  line: number;
  /** How problems name where a row is: a file line in CSV, an array item in JSON. */
  unit: 'line' | 'item';
  /** Put before each message: "item 3: " in JSON, nothing in CSV (the line says where). */
  label: string;
  cells: Partial<Record<Column, string>>;
  /** Columns whose problem the reader already reported (a JSON value of the wrong type). */
  reported: Set<Column>;
}

interface ReadResult {
  rows: RawRow[];
  problems: TargetFileProblem[];
}

export function parseTargetFile(text: string, options: TargetFileOptions): TargetFileResult {
  const content = text.startsWith(BOM) ? text.slice(BOM.length) : text;
  const format = options.format ?? detectFormat(content);
  const read = format === 'json' ? readJson(content, options.sourceName) : readCsv(content, options.sourceName);
  const checked = checkRows(read.rows);
  const problems = [...read.problems, ...checked.problems].sort((a, b) => a.line - b.line);
  if (problems.length > 0) return { problems };
  if (checked.rows.length === 0) {
    return { problems: [{ line: 0, message: `${options.sourceName} has no target rows; expected one row per market and side.` }] };
  }
  return { rows: checked.rows };
}

function detectFormat(content: string): 'csv' | 'json' {
  const first = content.trimStart()[0];
  return first === '[' || first === '{' ? 'json' : 'csv';
}

function emptyFileProblem(sourceName: string): TargetFileProblem {
  return {
    line: 0,
    message: `${sourceName} is empty; expected a header row naming ${COLUMNS_EXPECTED}, then one row per market and side.`,
  };
}

// ---- CSV ----

function readCsv(content: string, sourceName: string): ReadResult {
  // csv-parse counts a CRLF inside a quoted field as two lines; with LF only, its line numbers are
  // the file's. The line count does not change, so problems still name the right lines.
  const normalised = content.replace(/\r\n?/g, '\n');
  const framingErrors: TargetFileProblem[] = [];
  const records = parseCsv(normalised, {
    info: true,
    comment: '#',
    // A `#` inside a field (a deal id such as DEAL#42) is data; only whole lines are comments.
    comment_no_infix: true,
    skip_empty_lines: true,
    // Rows with the wrong number of fields are reported here, with their line, not thrown.
    relax_column_count: true,
    skip_records_with_error: true,
    on_skip: (error) => {
      // After a broken quote the reader no longer knows where rows begin: keep the first framing
      // error and drop the rows read after it, whose lines and fields cannot be trusted.
      if (!error) return undefined;
      const line = typeof error.lines === 'number' ? error.lines : 0;
      framingErrors.push({ line, message: `not valid CSV: ${csvErrorReason(error)}` });
      return undefined;
    },
  }) as unknown as Array<{ record: string[]; info: { lines: number } }>;

  const framingError = framingErrors[0];
  const problems: TargetFileProblem[] = [];
  const located = records
    .map(({ record, info }) => ({ fields: record, line: recordStartLine(record, info.lines) }))
    // A spreadsheet's empty row (`,,,`) is a blank line too.
    .filter((entry) => entry.fields.some((field) => field.trim() !== ''))
    .filter((entry) => !framingError || entry.line < framingError.line);
  if (framingError) problems.push(framingError);

  const [header, ...body] = located;
  if (!header) {
    if (!framingError) problems.push(emptyFileProblem(sourceName));
    return { rows: [], problems };
  }
  const columns = header.fields.map((name) => name.trim().toLowerCase());
  const headerProblems = checkHeader(columns, header.line);
  problems.push(...headerProblems.problems);
  // Without a required column no row can be checked in full; its absence is the one problem.
  if (headerProblems.missingRequired) return { rows: [], problems };

  const rows: RawRow[] = [];
  for (const { fields, line } of body) {
    if (fields.length !== columns.length) {
      problems.push({ line, message: `expected ${columns.length} fields as in the header, found ${fields.length}.` });
      continue;
    }
    const cells: Partial<Record<Column, string>> = {};
    columns.forEach((name, index) => {
      if (isColumn(name)) cells[name] = fields[index];
    });
    rows.push({ line, unit: 'line', label: '', cells, reported: new Set() });
  }
  return { rows, problems };
}

/** csv-parse reports the line a record ends on; a quoted field with line breaks starts earlier. */
function recordStartLine(fields: string[], endLine: number): number {
  const breaks = fields.reduce((count, field) => count + (field.match(/\n/g)?.length ?? 0), 0);
  return endLine - breaks;
}

/** csv-parse's own messages quote the field they stopped at: only the kind of problem is said. */
function csvErrorReason(error: { code?: string; message: string }): string {
  switch (error.code) {
    case 'CSV_INVALID_CLOSING_QUOTE':
      return 'a closing quote is followed by something other than a comma or the end of the line.';
    case 'CSV_QUOTE_NOT_CLOSED':
      return 'a quoted field is never closed.';
    case 'CSV_INVALID_OPENING_QUOTE':
      return 'a quote opens in the middle of a field.';
    default:
      return `the reader stopped here (${error.code ?? 'unknown reason'}).`;
  }
}

function checkHeader(columns: string[], line: number): { problems: TargetFileProblem[]; missingRequired: boolean } {
  const problems: TargetFileProblem[] = [];
  const seen = new Set<string>();
  columns.forEach((name, index) => {
    if (!isColumn(name)) {
      problems.push({ line, message: `column ${index + 1} of the header is not a known column; the columns are ${COLUMNS_EXPECTED}.` });
    } else if (seen.has(name)) {
      problems.push({ line, message: `column ${name} appears more than once.` });
    }
    seen.add(name);
  });
  const missing = REQUIRED_COLUMNS.filter((name) => !seen.has(name));
  if (missing.length > 0) {
    problems.push({
      line,
      message: `the header lacks ${missing.join(', ')}; it must name ${COLUMNS_EXPECTED}, in any order.`,
    });
  }
  return { problems, missingRequired: missing.length > 0 };
}

function isColumn(name: string): name is Column {
  return COLUMNS.includes(name);
}

// ---- JSON ----

function readJson(content: string, sourceName: string): ReadResult {
  if (content.trim() === '') return { rows: [], problems: [emptyFileProblem(sourceName)] };
  let document: unknown;
  try {
    document = JSON.parse(content);
  } catch (error) {
    return { rows: [], problems: [{ line: 0, message: `${sourceName} is not valid JSON: ${jsonErrorReason(error, content)}` }] };
  }
  const items = Array.isArray(document) ? document : targetsOf(document);
  if (!items) {
    return {
      rows: [],
      problems: [{ line: 0, message: `${sourceName}: expected an array of targets or an object { "targets": [...] }.` }],
    };
  }
  const rows: RawRow[] = [];
  // JSON.parse kept the last of two equal keys: the file says two things, and is refused.
  const problems: TargetFileProblem[] = repeatedKeyProblems(content, 'targets', COLUMNS);
  items.forEach((item: unknown, index) => {
    const line = index + 1;
    const label = `item ${line}: `;
    if (typeof item !== 'object' || item === null || Array.isArray(item)) {
      problems.push({ line, message: `${label}expected an object with ${COLUMNS_EXPECTED}.` });
      return;
    }
    const row: RawRow = { line, unit: 'item', label, cells: {}, reported: new Set() };
    for (const [key, value] of Object.entries(item)) {
      if (!isColumn(key)) {
        problems.push({ line, message: `${label}a key that is not known; the keys are ${COLUMNS_EXPECTED}.` });
      } else if (typeof value === 'string') {
        row.cells[key] = value;
      } else if (typeof value === 'number') {
        row.cells[key] = String(value);
      } else if (value !== null) {
        problems.push({ line, message: `${label}${key}: expected a string or a number, found ${describeJsonValue(value)}.` });
        row.reported.add(key);
      }
    }
    rows.push(row);
  });
  return { rows, problems };
}

function targetsOf(document: unknown): unknown[] | undefined {
  if (typeof document !== 'object' || document === null) return undefined;
  const targets = (document as { targets?: unknown }).targets;
  return Array.isArray(targets) ? targets : undefined;
}

/**
 * V8's reason, where it is in its own words with a position (`Unterminated string in JSON at
 * position 5`); its "Unexpected token" quotes the input, so only where it stopped is said.
 */
function jsonErrorReason(error: unknown, content: string): string {
  const message = error instanceof Error ? error.message : String(error);
  if (/^Unexpected end of JSON input/.test(message)) return 'it ends before the JSON is complete.';
  const positioned = /^(.*?) in JSON at position (\d+)/.exec(message);
  if (positioned && !/["'`]/.test(positioned[1]!.replace(/'[}\]:,]'/g, ''))) {
    return `${positioned[1]} (${where(content, Number(positioned[2]))}).`;
  }
  return 'a character that JSON does not allow there.';
}

/** `line 3, column 7` for a 0-based offset into the text. */
function where(content: string, offset: number): string {
  const before = content.slice(0, offset).split('\n');
  return `line ${before.length}, column ${before.at(-1)!.length + 1}`;
}

function describeJsonValue(value: unknown): string {
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

// ---- values, shared by both formats ----

function checkRows(rawRows: RawRow[]): { rows: TargetRow[]; problems: TargetFileProblem[] } {
  const rows: TargetRow[] = [];
  const problems: TargetFileProblem[] = [];
  const firstLineOf = new Map<string, RawRow>();
  for (const raw of rawRows) {
    const checked = checkRow(raw);
    problems.push(...checked.problems.map((message) => ({ line: raw.line, message: `${raw.label}${message}` })));
    if (checked.market !== undefined && checked.side !== undefined) {
      const key = `${checked.market} ${checked.side}`;
      const earlier = firstLineOf.get(key);
      if (earlier) {
        problems.push({
          line: raw.line,
          message: `${raw.label}the same market and side as ${earlier.unit} ${earlier.line}; one row per market and side.`,
        });
      } else {
        firstLineOf.set(key, raw);
      }
    }
    if (checked.row) rows.push(checked.row);
  }
  return { rows, problems };
}

interface CheckedRow {
  market?: string;
  side?: Side;
  row?: TargetRow;
  problems: string[];
}

function checkRow(raw: RawRow): CheckedRow {
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
  const market = field('market', parseMarket);
  const side = field('side', parseSide);
  const notionalUsd = field('notional_usd', parseTargetNotional);
  const tenorDays = field('tenor_days', (value) => parseTargetTenor(value, notionalUsd));
  const clientReference = field('client_reference', parseTargetClientReference);
  const untilMs = field('until', parseUntil);
  const rollBeforeMs = field('roll_before', parseRollBefore);

  const complete = market !== undefined && side !== undefined && notionalUsd !== undefined && problems.length === 0;
  const row: TargetRow | undefined = complete
    ? {
        market,
        side,
        notionalUsd,
        ...(tenorDays === undefined ? {} : { tenorDays }),
        ...(clientReference === undefined ? {} : { clientReference }),
        ...(untilMs === undefined ? {} : { untilMs }),
        ...(rollBeforeMs === undefined ? {} : { rollBeforeMs }),
        line: raw.line,
      }
    : undefined;
  return { market, side, row, problems };
}

/** The CLI's notional (10000, 10_000, 10k, 1.5m), plus 0 for flat, which the CLI never takes. */
function parseTargetNotional(raw: string | undefined): number {
  if (raw !== undefined && FLAT.test(raw.trim())) return 0;
  return parseNotional(raw, 'notional_usd');
}

/**
 * Required when the side should hold something (an open needs a tenor, and the plan cannot know
 * beforehand whether the side will be open). Accepts `3d` as the CLI's --tenor does. A flat row
 * may leave it blank.
 */
function parseTargetTenor(raw: string | undefined, notionalUsd: number | undefined): Tenor | undefined {
  const value = raw?.trim().replace(/d$/i, '') ?? '';
  if (value === '') {
    // An unreadable notional is already a problem; whether a tenor is needed is then unknown.
    if (notionalUsd === undefined || notionalUsd === 0) return undefined;
    throw new Error('tenor_days: missing; required when notional_usd is above 0; expected 1, 3 or 7 (days).');
  }
  const tenor = TENORS.find((allowed) => String(allowed) === value);
  if (tenor === undefined) throw new Error('tenor_days: the value is not allowed; expected 1, 3 or 7 (days).');
  return tenor;
}

/** Optional per row: a blank cell means none. The rule is the CLI's --ref rule, named for the file. */
function parseTargetClientReference(raw: string | undefined): string | undefined {
  const value = raw?.trim() ?? '';
  if (value === '') return undefined;
  try {
    return parseClientReference(value);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new Error(message.replace(/^--ref:/, 'client_reference:'));
  }
}

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * Optional per row: the day (UTC midnight) or instant the exposure ends, ISO 8601. A timestamp
 * must say its zone (Z or an offset): a keeper on a server in another zone must read it the same.
 */
function parseUntil(raw: string | undefined): number | undefined {
  const value = raw?.trim() ?? '';
  if (value === '') return undefined;
  const ms = DATE_ONLY.test(value) ? Date.parse(`${value}T00:00:00Z`) : TIMESTAMP.test(value) ? Date.parse(value) : Number.NaN;
  if (!Number.isFinite(ms)) {
    throw new Error('until: the value is not allowed; expected a date (2026-12-31, midnight UTC) or a timestamp with its zone (2026-12-31T17:00:00Z).');
  }
  return ms;
}

/** Optional per row: how long before maturity `hedge keep` rolls; the message never repeats the cell. */
function parseRollBefore(raw: string | undefined): number | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  try {
    return parseDuration(raw, 'roll_before', 'smhdw').ms;
  } catch {
    throw new Error('roll_before: the value is not allowed; expected a duration such as 30m, 2h or 1d (s, m, h, d, w), more than 0.');
  }
}
