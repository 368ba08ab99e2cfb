// CSV for --format csv: each cell escaped as TSV's (spreadsheetSafe), RFC 4180 quoting by csv-stringify, LF line ends.
import { stringify } from 'csv-stringify/sync';
import { spreadsheetSafe } from './spreadsheet-cell.js';

export function csvText(rows: string[][]) {
  return stringify(
    rows.map((row) => row.map(spreadsheetSafe)),
    { record_delimiter: 'unix' },
  );
}
