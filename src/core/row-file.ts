// Every row file (target, exposures) is read one way: CSV or JSON, checked whole before anything is read from the
// server, every problem collected so that one edit fixes them all.
import { parse as parseCsv } from 'csv-parse/sync';
import * as z from 'zod/mini';
import { repeatedKeyProblems } from './security/json-keys.js';
import { withoutEcho } from './input.js';
import { messageOf } from './security/safe-text.js';

export interface RowFileProblem {
  line: number;
  message: string;
}

interface RawRow<C extends string> {
  line: number;
  unit: 'line' | 'item';
  label: string;
  cells: Partial<Record<C, string>>;
  reported: Set<C>;
}

export interface RowFileLayout<C extends string> {
  required: readonly C[];
  optional: readonly C[];
  listKey: string;
  rowIs: string;
  rowsAre: string;
  csvLabel: (index: number) => string;
  header: {
    unknown: (column: number, expected: string) => string;
    repeated: (name: string) => string;
    lacks: (missing: string, expected: string) => string;
  };
}

export interface RowFileOptions {
  sourceName: string;
}

/** Reads one cell: `field(column, parse)` is the parsed value, or undefined with the parser's error among the row's problems. */
export type Field<C extends string> = <T>(column: C, parse: (value: string | undefined) => T) => T | undefined;

const BOM = '\ufeff';

/** Reads the file and checks each row (`check` gives its value, trusted only when the file has no problem, and the key two rows may not share: `repeated` names the earlier row): the rows with their lines, or every problem in the order of the file. */
export function readRowFile<C extends string, T>(
  text: string,
  options: RowFileOptions,
  layout: RowFileLayout<C>,
  check: (field: Field<C>) => { key?: string; value: T },
  repeated: (earlier: RawRow<C>) => string,
): { rows: Array<T & { line: number }> } | { problems: RowFileProblem[] } {
  const content = text.startsWith(BOM) ? text.slice(BOM.length) : text;
  const first = content.trimStart()[0];
  const read = (first === '[' || first === '{' ? readJson : readCsv)(content, options.sourceName, layout);
  const problems = [...read.problems];
  const rows: Array<T & { line: number }> = [];
  const firstRowOf = new Map<string, RawRow<C>>();
  for (const raw of read.rows) {
    const said = (message: string) => problems.push({ line: raw.line, message: `${raw.label}${message}` });
    const field: Field<C> = (column, parse) => {
      if (raw.reported.has(column)) return;
      try {
        return parse(raw.cells[column]);
      } catch (error) {
        said(withoutEcho(messageOf(error)));
        return;
      }
    };
    const { key, value } = check(field);
    if (key !== undefined) {
      const earlier = firstRowOf.get(key);
      if (earlier) said(repeated(earlier));
      else firstRowOf.set(key, raw);
    }
    rows.push({ ...value, line: raw.line });
  }
  problems.sort((a, b) => a.line - b.line);
  if (problems.length) return { problems };
  if (!rows.length)
    return {
      problems: [
        { line: 0, message: `${options.sourceName} has no ${layout.rowsAre}; expected one row per ${layout.rowIs}.` },
      ],
    };
  return { rows };
}

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

/** A cell that is a date (midnight UTC) or a timestamp with its zone (Z or an offset), ISO 8601, in ms since the epoch; `refusal` is thrown for anything else. */
export function readInstant(raw: string | undefined, refusal: string) {
  const value = raw?.trim() ?? '';
  const ms = DATE_ONLY.test(value)
    ? Date.parse(`${value}T00:00:00Z`)
    : TIMESTAMP.test(value)
      ? Date.parse(value)
      : Number.NaN;
  if (!Number.isFinite(ms)) throw new Error(refusal);
  return ms;
}

function columnsExpected(layout: RowFileLayout<string>) {
  return `${layout.required.join(', ')} and optionally ${layout.optional.join(', ')}`;
}

function columns<C extends string>(layout: RowFileLayout<C>) {
  return [...layout.required, ...layout.optional];
}

function isColumn<C extends string>(layout: RowFileLayout<C>, name: string): name is C {
  return (columns(layout) as string[]).includes(name);
}

/** Each of the layout's keys a string, a number or null (absent), and no other key. */
function rowSchema(layout: RowFileLayout<string>) {
  const cell = z.nullish(
    z.union([z.string(), z.number()], {
      error: (issue) => `expected a string or a number, found ${describeJsonValue(issue.input)}`,
    }),
  );
  return z.strictObject(Object.fromEntries(columns(layout).map((key) => [key, cell])));
}

function emptyFileProblem(sourceName: string, layout: RowFileLayout<string>) {
  return {
    line: 0,
    message: `${sourceName} is empty; expected a header row naming ${columnsExpected(layout)}, then one row per ${layout.rowIs}.`,
  };
}

function readCsv<C extends string>(content: string, sourceName: string, layout: RowFileLayout<C>) {
  // csv-parse counts a CRLF inside a quoted field as two lines; with LF only, its line numbers are the file's.
  const normalised = content.replace(/\r\n?/g, '\n');
  let framingError: RowFileProblem | undefined;
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
      // After a broken quote the reader no longer knows where rows begin: keep the first framing error and drop the rows read after it, whose lines and fields cannot be trusted.
      if (!error || framingError) return;
      framingError = {
        line: typeof error.lines === 'number' ? error.lines : 0,
        message: `not valid CSV: ${csvErrorReason(error)}`,
      };
      return;
    },
  }) as unknown as Array<{ record: string[]; info: { lines: number } }>;

  const problems: RowFileProblem[] = [];
  const located = records
    .map(({ record, info }) => ({ fields: record, line: recordStartLine(record, info.lines) }))
    // A spreadsheet's empty row (`,,,`) is a blank line too.
    .filter((entry) => entry.fields.some((field) => field.trim() !== ''))
    .filter((entry) => !framingError || entry.line < framingError.line);
  if (framingError) problems.push(framingError);

  const [header, ...body] = located;
  if (!header) {
    if (!framingError) problems.push(emptyFileProblem(sourceName, layout));
    return { rows: [], problems };
  }
  const columns = header.fields.map((name) => name.trim().toLowerCase());
  const seen = new Set<string>();
  columns.forEach((name, index) => {
    if (!isColumn(layout, name))
      problems.push({ line: header.line, message: layout.header.unknown(index + 1, columnsExpected(layout)) });
    else if (seen.has(name)) problems.push({ line: header.line, message: layout.header.repeated(name) });
    seen.add(name);
  });
  const missing = layout.required.filter((name) => !seen.has(name));
  // Without a required column no row can be checked in full; its absence is the one problem.
  if (missing.length) {
    problems.push({ line: header.line, message: layout.header.lacks(missing.join(', '), columnsExpected(layout)) });
    return { rows: [], problems };
  }

  const rows: RawRow<C>[] = [];
  for (const [index, { fields, line }] of body.entries()) {
    const label = layout.csvLabel(index);
    if (fields.length !== columns.length) {
      problems.push({
        line,
        message: `${label}expected ${columns.length} fields as in the header, found ${fields.length}.`,
      });
      continue;
    }
    const cells: Partial<Record<C, string>> = {};
    columns.forEach((name, index) => {
      if (isColumn(layout, name)) cells[name] = fields[index];
    });
    rows.push({ line, unit: 'line', label, cells, reported: new Set() });
  }
  return { rows, problems };
}

/** csv-parse reports the line a record ends on; a quoted field with line breaks starts earlier. */
function recordStartLine(fields: string[], endLine: number) {
  const breaks = fields.reduce((count, field) => count + (field.match(/\n/g)?.length ?? 0), 0);
  return endLine - breaks;
}

/** csv-parse's own messages quote the field they stopped at: only the kind of problem is said. */
function csvErrorReason(error: { code?: string; message: string }) {
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

function readJson<C extends string>(content: string, sourceName: string, layout: RowFileLayout<C>) {
  if (content.trim() === '') return { rows: [], problems: [emptyFileProblem(sourceName, layout)] };
  let document: unknown;
  try {
    document = JSON.parse(content);
  } catch (error) {
    return {
      rows: [],
      problems: [{ line: 0, message: `${sourceName} is not valid JSON: ${jsonErrorReason(error, content)}` }],
    };
  }
  const list = z.array(z.unknown());
  const { data } = z.union([list, z.looseObject({ [layout.listKey]: list })]).safeParse(document);
  const items = Array.isArray(data) ? data : data?.[layout.listKey];
  if (!items) {
    const message = `${sourceName}: expected an array of ${layout.listKey} or an object { "${layout.listKey}": [...] }.`;
    return { rows: [], problems: [{ line: 0, message }] };
  }
  // JSON.parse kept the last of two equal keys: the file says two things, and is refused.
  const problems: RowFileProblem[] = repeatedKeyProblems(content, layout.listKey, columns(layout));
  const schema = rowSchema(layout);
  const rows: RawRow<C>[] = [];
  items.forEach((item, index) => {
    const line = index + 1;
    const label = `item ${line}: `;
    const issues = schema.safeParse(item).error?.issues ?? [];
    if (issues.some((issue) => !issue.path.length && issue.code !== 'unrecognized_keys')) {
      problems.push({ line, message: `${label}expected an object with ${columnsExpected(layout)}.` });
      return;
    }
    const row: RawRow<C> = { line, unit: 'item', label, cells: {}, reported: new Set() };
    for (const issue of issues) {
      if (issue.code === 'unrecognized_keys')
        problems.push({ line, message: `${label}a key that is not known; the keys are ${columnsExpected(layout)}.` });
      else {
        const key = String(issue.path[0]) as C;
        problems.push({ line, message: `${label}${key}: ${issue.message}.` });
        row.reported.add(key);
      }
    }
    for (const key of columns(layout)) {
      const value = (item as Record<string, unknown>)[key];
      if (!row.reported.has(key) && value != null) row.cells[key] = String(value);
    }
    rows.push(row);
  });
  return { rows, problems };
}

/** V8's reason, where it is in its own words with a position (`Unterminated string in JSON at position 5`); its "Unexpected token" quotes the input, so only where it stopped is said. */
function jsonErrorReason(error: unknown, content: string) {
  const message = messageOf(error);
  if (/^Unexpected end of JSON input/.test(message)) return 'it ends before the JSON is complete.';
  const positioned = /^(.*?) in JSON at position (\d+)/.exec(message);
  if (positioned && !/["'`]/.test(positioned[1].replace(/'[}\]:,]'/g, ''))) {
    return `${positioned[1]} (${where(content, Number(positioned[2]))}).`;
  }
  return 'a character that JSON does not allow there.';
}

/** `line 3, column 7` for a 0-based offset into the text. */
function where(content: string, offset: number) {
  const before = content.slice(0, offset).split('\n');
  return `line ${before.length}, column ${before.at(-1)!.length + 1}`;
}

function describeJsonValue(value: unknown) {
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
