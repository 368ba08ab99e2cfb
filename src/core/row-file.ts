// Every row file (target, exposures) is read one way: CSV or JSON, checked whole before anything is read from the
// server, every problem collected so that one edit fixes them all.
import { parse as parseCsv } from 'csv-parse/sync';
import * as z from 'zod/mini';
import { jsonSyntaxWhere, parseBoundedJson, repeatedKeyProblems } from './security/json-keys.js';
import { messageOf } from './security/safe-text.js';
import { readDateTime } from './duration.js';

interface RowFileProblem {
  line: number;
  message: string;
}

interface RawRow<C extends string> {
  line: number;
  unit: 'line' | 'item';
  label: string;
  cells: Partial<Record<C, string>>;
  /** Columns whose problem is already said: the row's check does not read them. */
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

/** How a feature's row files (exposures, accounting rates and values) name a row and a header's problem. */
export const NUMBERED_ROWS: Pick<RowFileLayout<string>, 'csvLabel' | 'header'> = {
  csvLabel: (index) => `row ${index + 1}: `,
  header: {
    unknown: (column, expected) => `header: column ${column} is not a known column; the columns are ${expected}.`,
    repeated: (name) => `header: column ${name} appears more than once.`,
    lacks: (missing, expected) => `header: lacks ${missing}; it must name ${expected}, in any order.`,
  },
};

export interface RowFileOptions {
  sourceName: string;
}

/** Reads one cell: `field(column, parse)` is the parsed value, or undefined with the parser's error among the row's problems. */
export type Field<C extends string> = <T>(column: C, parse: (value: string | undefined) => T) => T | undefined;

/** Reads the file and checks each row (`check` gives its value, trusted only when the file has no problem, and the key two rows may not share: `repeated` names the earlier row): the rows with their lines, or every problem in the order of the file. */
export function readRowFile<C extends string, T>(
  text: string,
  { sourceName }: RowFileOptions,
  layout: RowFileLayout<C>,
  check: (field: Field<C>) => { key?: string; value: T },
  repeated: (earlier: RawRow<C>) => string,
): { rows: Array<T & { line: number }> } | { problems: RowFileProblem[] } {
  const content = text.replace(/^\ufeff/, '');
  const known = [...layout.required, ...layout.optional];
  const expected = `${layout.required.join(', ')} and optionally ${layout.optional.join(', ')}`;
  const empty = `${sourceName} is empty; expected a header row naming ${expected}, then one row per ${layout.rowIs}.`;
  const problems: RowFileProblem[] = [];
  const refuse = (message: string, line = 0): RawRow<C>[] => {
    problems.push({ line, message });
    return [];
  };

  function readCsv() {
    let framingError: RowFileProblem | undefined;
    // csv-parse counts a CRLF inside a quoted field as two lines; with LF only, its line numbers are the file's.
    const records = parseCsv(content.replace(/\r\n?/g, '\n'), {
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
        const reason = CSV_REASONS[error.code] ?? `the reader stopped here (${error.code ?? 'unknown reason'}).`;
        framingError = { line: typeof error.lines === 'number' ? error.lines : 0, message: `not valid CSV: ${reason}` };
      },
    }) as unknown as Array<{ record: string[]; info: { lines: number } }>;

    const located = records
      // csv-parse reports the line a record ends on; a quoted field with line breaks starts earlier.
      .map(({ record, info }) => ({ fields: record, line: info.lines - record.join('').split('\n').length + 1 }))
      // A spreadsheet's empty row (`,,,`) is a blank line too.
      .filter(({ fields, line }) => fields.join('').trim() && line < (framingError?.line ?? Infinity));
    if (framingError) problems.push(framingError);

    const [header, ...body] = located;
    if (!header) return framingError ? [] : refuse(empty);
    const columns = header.fields.map((name) => name.trim().toLowerCase() as C);
    // One column that names several with another separator (a spreadsheet's `;` or a tab): said, not read as a name.
    const separator = columns.length === 1 ? [';', '\t', '|'].find((mark) => columns[0].includes(mark)) : undefined;
    if (separator !== undefined)
      return refuse(
        `the header's columns are separated by ${separator === '\t' ? 'tabs' : `"${separator}"`}; a CSV file separates them by commas: ${known.filter((name) => layout.required.includes(name)).join(',')}`,
        header.line,
      );
    const seen = new Set<string>();
    columns.forEach((name, index) => {
      if (!known.includes(name)) refuse(layout.header.unknown(index + 1, expected), header.line);
      else if (seen.has(name)) refuse(layout.header.repeated(name), header.line);
      seen.add(name);
    });
    const missing = layout.required.filter((name) => !seen.has(name));
    // Without a required column no row can be checked in full; its absence is the one problem.
    if (missing.length) return refuse(layout.header.lacks(missing.join(', '), expected), header.line);

    return body.flatMap(({ fields, line }, index): RawRow<C>[] => {
      const label = layout.csvLabel(index);
      if (fields.length !== columns.length)
        return refuse(`${label}expected ${columns.length} fields as in the header, found ${fields.length}.`, line);
      const cells: Partial<Record<C, string>> = {};
      columns.forEach((name, at) => known.includes(name) && (cells[name] = fields[at]));
      return [{ line, unit: 'line', label, cells, reported: new Set() }];
    });
  }

  function readJson() {
    if (!content.trim()) return refuse(empty);
    const parsed = parseBoundedJson(content);
    if (parsed.problem !== undefined && !parsed.repeated) {
      const { syntax } = parsed;
      if (syntax === undefined)
        return refuse(`${sourceName} is JSON ${parsed.problem}; a row file is a list of rows of a few fields.`);
      return refuse(`${sourceName} is not valid JSON: ${jsonSyntaxWhere(content, syntax)}.`);
    }
    const document = parsed.value;
    const { listKey } = layout;
    const items = Array.isArray(document) ? document : (document as Record<string, unknown> | null)?.[listKey];
    if (!Array.isArray(items))
      return refuse(`${sourceName}: expected an array of ${listKey} or an object { "${listKey}": [...] }.`);
    // JSON.parse kept the last of two equal keys: the file says two things, and is refused.
    problems.push(...repeatedKeyProblems(parsed.repeated ?? [], listKey, known));
    // Each of the layout's keys a string, a number or null (absent), and no other key.
    const cell = z.nullish(
      z.union([z.string(), z.number()], {
        error: ({ input }) =>
          `expected a string or a number, found ${Array.isArray(input) ? 'an array' : typeof input === 'object' ? 'an object' : `a ${typeof input}`}`,
      }),
    );
    const schema = z.strictObject(Object.fromEntries(known.map((key) => [key, cell])));
    return items.flatMap((item: Record<string, unknown>, index) => {
      const line = index + 1;
      const label = `item ${line}: `;
      const issues = schema.safeParse(item).error?.issues ?? [];
      if (issues.some((issue) => !issue.path.length && issue.code !== 'unrecognized_keys'))
        return refuse(`${label}expected an object with ${expected}.`, line);
      const row: RawRow<C> = { line, unit: 'item', label, cells: {}, reported: new Set() };
      for (const issue of issues) {
        if (issue.code === 'unrecognized_keys')
          refuse(`${label}a key that is not known; the keys are ${expected}.`, line);
        else {
          const key = String(issue.path[0]) as C;
          refuse(`${label}${key}: ${issue.message}.`, line);
          row.reported.add(key);
        }
      }
      for (const key of known) if (!row.reported.has(key) && item[key] != null) row.cells[key] = String(item[key]);
      return [row];
    });
  }

  const first = content.trimStart()[0];
  const raws = first === '[' || first === '{' ? readJson() : readCsv();
  const rows = [];
  // No row is ever kept under an undefined key.
  const firstRowOf = new Map<string | undefined, RawRow<C>>();
  for (const raw of raws) {
    const said = (message: string) => refuse(`${raw.label}${message}`, raw.line);
    const { key, value } = check((column, parse) => {
      if (raw.reported.has(column)) return;
      try {
        return parse(raw.cells[column]);
      } catch (error) {
        // With the value left out (what echo() quoted): a row file's content is never repeated back (it may be any file an agent named, secrets included).
        said(messageOf(error).replace(/"(?:[^"\\]|\\.)*"/g, 'the value'));
      }
    });
    const earlier = firstRowOf.get(key);
    if (earlier) said(repeated(earlier));
    else if (key !== undefined) firstRowOf.set(key, raw);
    rows.push({ ...value, line: raw.line });
  }
  problems.sort((a, b) => a.line - b.line);
  if (!problems.length && !rows.length)
    refuse(`${sourceName} has no ${layout.rowsAre}; expected one row per ${layout.rowIs}.`);
  return problems.length ? { problems } : { rows };
}

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

/** A cell that is a date (midnight UTC) or a timestamp with its zone (Z or an offset), ISO 8601, in ms since the epoch; `refusal` is thrown for anything else. */
export function readInstant(raw: string | undefined, refusal: string) {
  const value = raw?.trim() ?? '';
  // A file's grammar (a time names its zone), read as --since reads it: 2026-02-30 is refused, not taken for 2 March.
  const ms = DATE_ONLY.test(value) || TIMESTAMP.test(value) ? readDateTime(value)?.getTime() : undefined;
  if (ms === undefined) throw new Error(refusal);
  return ms;
}

/** csv-parse's own messages quote the field they stopped at: only the kind of problem is said. */
const CSV_REASONS: Record<string, string> = {
  CSV_INVALID_CLOSING_QUOTE: 'a closing quote is followed by something other than a comma or the end of the line.',
  CSV_QUOTE_NOT_CLOSED: 'a quoted field is never closed.',
  CSV_INVALID_OPENING_QUOTE: 'a quote opens in the middle of a field.',
};
