// CSV for --format csv: RFC 4180 quoting by csv-stringify, LF line ends. Loaded only when asked for.
import { stringify } from 'csv-stringify/sync';

const PLAIN_NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * A cell a spreadsheet would run as a formula (`=HYPERLINK(…)`, `@SUM(…)`, `+…`, `-…`) gets a
 * leading `'`, so text from the server cannot act when a desk opens the file; numbers stay numbers.
 */
export function spreadsheetSafe(cell: string): string {
  return FORMULA_START.test(cell) && !PLAIN_NUMBER.test(cell) ? `'${cell}` : cell;
}

export function csvText(rows: string[][]): string {
  return stringify(
    rows.map((row) => row.map(spreadsheetSafe)),
    { record_delimiter: 'unix' },
  );
}
