// A cell a spreadsheet would run as a formula (`=…`, `@…`, `+…`, `-…`, a leading tab or CR) gets a leading `'`, in
// CSV and TSV alike (spreadsheets open .tsv too), so server text or a deal reference cannot act when a desk opens it.
import { isNumericText } from '../../core/number-format.js';

const FORMULA_START = /^[=+\-@\t\r]/;

export function spreadsheetSafe(cell: string) {
  return FORMULA_START.test(cell) && !isNumericText(cell, false) ? `'${cell}` : cell;
}
