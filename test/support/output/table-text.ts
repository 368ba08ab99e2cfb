// Reading a table as printed (ANSI codes stripped): its columns are where its rule's dashes are
// (`────  ───────`), and a column's header is the text above its dashes — one line, or two when a
// narrow terminal put the unit under the label (`Notional` over `USD`): read whole, "Notional USD".

/** A rule line of the table: runs of ─ two or more spaces apart. */
const RULE = /^─+(?: +─+)*$/;

/** Whether every character of the line lies over a column (a header line; a title runs across the gaps). */
function overColumns(line: string, spans: number[][]) {
  return (
    line.trim() !== '' &&
    line.split('').every((char, at) => char === ' ' || spans.some(([start, end]) => at >= start && at < end))
  );
}

/**
 * The first table at or after line `from`, or undefined when there is none: each column's header (its
 * lines joined by a space) and its [start, end) on the line, and the index of the rule line under the headers.
 */
export function printedTable(text: string, from = 0) {
  const lines = text.split('\n').map((line) => line.trimEnd());
  const ruleAt = lines.findIndex((line, index) => index >= from && RULE.test(line));
  if (ruleAt < 1) return undefined;
  // Where the columns are: the rule's runs of dashes.
  const spans = [...lines[ruleAt].matchAll(/─+/g)].map((match) => [match.index, match.index + match[0].length]);
  const above: string[] = [];
  // A header is one line, or two (the label over its unit).
  for (let index = ruleAt - 1; index >= Math.max(0, ruleAt - 2) && overColumns(lines[index], spans); index--)
    above.unshift(lines[index]);
  const headers = spans.map(([start, end]) =>
    above
      .map((line) => line.slice(start, end).trim())
      .filter((part) => part !== '')
      .join(' '),
  );
  return { headers, spans, ruleAt };
}

/** The column headers of the first table in `text` (both lines of a two-line header, joined). */
export function tableHeaders(text: string) {
  return printedTable(text)?.headers ?? [];
}

/** The names a table's note says it left out, on its one line: `Hidden at N columns: a, b; shortened: c — …`, or the most
 * important and how many more (`Hidden: a, +3 more — …`), or how many (`Hidden: 4 columns — …`): `more` counts those not
 * named. */
export function leftOut(notes: string) {
  const text = notes.replace(/\s+/g, ' ');
  const list = (pattern: RegExp) =>
    (pattern.exec(text)?.[1] ?? '')
      .split(',')
      .map((name) => name.trim())
      .filter((name) => name !== '' && !/^\+\d+ more$/.test(name));
  // Only how many (`Hidden: 4 columns — …`), where no name fits.
  const counted = /Hidden: (\d+) columns? —/.exec(text)?.[1];
  return {
    hidden: counted ? [] : list(/Hidden(?: at \d+ columns)?: ([^;—]*)/),
    more: Number(counted ?? /Hidden[^—]*, \+(\d+) more —/.exec(text)?.[1] ?? 0),
    shortened: list(/[Ss]hortened(?: at \d+ columns)?: ([^;—]*)/),
  };
}
