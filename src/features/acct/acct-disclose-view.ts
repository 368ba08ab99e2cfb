// How `hedge acct disclose` reads: a line per figure, under a heading per risk category and type of hedge on a
// terminal; every field in JSON, TSV and CSV; a self-contained HTML page (the report's styles, no script) with a table
// per heading.
import { fieldTable } from '../../platform/fields/fields.js';
import { safeText } from '../../core/security/safe-text.js';
import { formatMoney } from '../../core/number-format.js';
import { escapeHtml } from '../report/report-html.js';
import { a4Page } from './acct-view.js';
import type { Disclosed } from './acct-disclose.js';
import { ruleOf, type Framework, type HedgeType } from './acct-rules.js';

/** A figure a line: the paragraph and what it is first, then the amount and, for a nominal amount, its average rate. */
export const DISCLOSE_VIEW = {
  fields: fieldTable(
    `
  period  Period  text
  standard  Standard  text
  paragraph  Paragraph  text
  risk  Risk  text
  hedge_type  Hedge  text
  item  Item  text
  line_item  Line item  text
  amount  Amount  money
  currency  Currency  text
  average_rate  Average rate  text
  rate_quote  Quoted  text
`,
    { paragraph: { whole: true }, item: { wrap: true }, line_item: { wrap: true } },
  ),
  priority: 'paragraph item amount currency average_rate line_item rate_quote risk hedge_type standard period'.split(
    ' ',
  ),
  decisive: 4,
  // The standard, risk and type of hedge head each group of lines.
  table: 'paragraph item amount currency average_rate rate_quote line_item'.split(' '),
};

/** The heading of a group of lines: its standard, risk category and type of hedge. */
const headingOf = (line: Disclosed) => `${line.standard}: ${line.risk}, ${line.hedge_type.replaceAll('_', ' ')} hedges`;

/** Each group's first line, with its heading, for the table's sections. */
export function disclosureSections(lines: readonly Disclosed[]) {
  return lines.flatMap((line, index) =>
    index && headingOf(lines[index - 1]) === headingOf(line)
      ? []
      : [{ before: index, line: safeText(headingOf(line)) }],
  );
}

/** Where a row of the rules table takes the balance at the transaction, said. */
const AT_TRANSACTION = {
  required: "into a purchased non-financial item's cost, else to P&L",
  choice: "to P&L, or into a purchased non-financial item's cost",
  refused: 'to earnings',
  carrying_amount: "into the recognised item's carrying amount",
  none: undefined,
} as const;

/** Each kind of hedge disclosed, under its framework, as its row of the rules table says it: where its effective part
 * goes, what happens to it at the transaction, at discontinuation and at a disposal, with the paragraphs. */
export function rulesNotes(used: ReadonlyArray<{ framework: Framework; type: HedgeType }>) {
  return used.map(({ framework, type }) => {
    const rules = ruleOf(framework, type);
    const { cites } = rules;
    const transaction = AT_TRANSACTION[rules.transaction];
    return `${rules.name}, ${rules.hedge}s: the effective part to the ${rules.balance.replaceAll('_', ' ')} (${cites.effective})${transaction ? `; at the transaction ${transaction} (${cites.transaction})` : ''}; once discontinued, ${rules.afterwards} (${cites.discontinuation})${cites.disposal ? `; at a disposal, its share reclassified to P&L (${cites.disposal})` : ''}.`;
  });
}

/** The disclosures as a self-contained page, printable on A4: a table per heading; the entity's books named. */
export function disclosuresHtml(
  lines: readonly Disclosed[],
  period: string,
  notes: readonly string[],
  entity?: string,
) {
  const title = `Hedge accounting disclosures: ${entity === undefined ? '' : `${entity}, `}${period}`;
  const groups = new Map<string, Disclosed[]>();
  for (const line of lines) groups.set(headingOf(line), [...(groups.get(headingOf(line)) ?? []), line]);
  const cell = (text: string | null) => `<td>${escapeHtml(text ?? '')}</td>`;
  const amount = (line: Disclosed) =>
    line.amount === null
      ? ''
      : `${line.currency} ${formatMoney(line.amount)}${line.average_rate === null ? '' : ` at ${line.average_rate} ${line.rate_quote}`}`;
  return a4Page(
    title,
    `td.amount { text-align: right; white-space: nowrap; }
.notes { color: var(--muted); margin-top: 18px; }`,
    '',
    'From the books as posted, by risk category and type of hedge',
    `${[...groups]
      .map(
        ([heading, list]) => `<h2>${escapeHtml(heading)}</h2>
<table><thead><tr><th>Paragraph</th><th>Item</th><th>Line item</th><th>Amount</th></tr></thead><tbody>
${list
  .map(
    (line) =>
      `<tr>${cell(line.paragraph)}${cell(line.item)}${cell(line.line_item)}<td class="amount">${escapeHtml(amount(line))}</td></tr>`,
  )
  .join('\n')}
</tbody></table>`,
      )
      .join('\n')}
${notes.map((note) => `<p class="notes">${escapeHtml(note)}</p>`).join('\n')}`,
  );
}
