// The one decision on cells a spreadsheet may open: CSV and TSV alike (TSV is the default in a pipe, and spreadsheets
// open .tsv files as readily as .csv), a cell it would run as a formula (`=HYPERLINK(…)`, `@SUM(…)`, `+…`, `-…`, or one
// starting with a tab or carriage return) gets a leading `'`, so text from the server or a user's deal reference cannot
// act when a desk opens the file.
import { isNumericText } from '../../core/number-format.js';

const FORMULA_START = /^[=+\-@\t\r]/;

export function spreadsheetSafe(cell: string) {
  return FORMULA_START.test(cell) && !isNumericText(cell, false) ? `'${cell}` : cell;
}
