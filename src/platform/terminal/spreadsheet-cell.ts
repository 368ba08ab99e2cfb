// A TSV or CSV cell: untrusted text made visible as everywhere (safeText: control characters escaped, known secrets
// redacted), then a cell a spreadsheet would run as a formula (`=…`, `@…`, `+…`, `-…`) gets a leading `'`, in CSV and
// TSV alike (spreadsheets open .tsv too), so server text or a deal reference cannot act when a desk opens it.
import { isNumericText } from '../../core/number-format.js';
import { safeText } from '../../core/security/safe-text.js';

const FORMULA_START = /^[=+\-@]/;

export function spreadsheetSafe(cell: string) {
  const text = safeText(cell);
  return FORMULA_START.test(text) && !isNumericText(text, false) ? `'${text}` : text;
}
