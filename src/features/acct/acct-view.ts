// The designation memo (terminal text, Markdown, a self-contained HTML page) and the accounts' tables.
import { fieldTable } from '../../platform/fields/fields.js';
import type { JsonObject } from '../../core/objects.js';
import { wrapWords } from '../../platform/terminal/width.js';
import { escapeHtml, REPORT_STYLE } from '../report/report-html.js';
import type { Designation } from './acct.js';
import { asFunctional } from '../../core/markets.js';
import { formatMoney, formatRate } from '../../core/number-format.js';
import { FRAMEWORK_RULES, percent, ruleOf } from './acct-rules.js';
import { utcDay } from '../../core/utc-text.js';
import { safeText } from '../../core/security/safe-text.js';
import type { CommandContext } from '../../platform/runtime/context.js';

const JUDGEMENT =
  'hedge prints the figures and the documentation; whether hedge accounting applies, and whether this relationship qualifies, is your judgement and your auditors’. 80–125 % is ASC 815’s and IAS 39’s line; under IFRS 9 the offset ratio is a diagnostic of the economic relationship.';

/** Where the excluded part goes, as each framework has it. */
const EXCLUDED_SAID = {
  pnl: 'to profit or loss as it changes',
  cost_of_hedging_reserve:
    'to the cost-of-hedging reserve, released with the hedged item (or amortised over the forward for a recognised item)',
  amortised: 'amortised in earnings over the instrument’s life; its other changes in other comprehensive income',
};
/** How each kind of hedge's balance is measured, as the memo says it. */
const EFFECTIVE_SAID = {
  whole: 'the whole designated change',
  lower_of: 'the lower of the two changes',
  hedged_item: 'both changes to profit or loss; the hedged item’s in its carrying amount',
};
const EVENT_LABELS = {
  occurred: 'Occurred',
  disposed: 'Disposed of',
  'de-designated': 'De-designated',
  rebalanced: 'Rebalanced',
  terminated: 'Instrument terminated',
};

/** The memo's facts in order, as label and text; the text from files through the one sanitiser. */
function memoRows(designation: Designation) {
  const { relationship: rel } = designation;
  const item = rel.hedged_item;
  const money = (text: string) => formatMoney(Number(text));
  const heldText = designation.hedges
    .map(
      (hedge) =>
        `${hedge.id} ${hedge.side} ${money(hedge.notional_usd)} USD at ${hedge.entry_rate === null ? 'a rate not yet struck' : formatRate(Number(hedge.entry_rate))}${hedge.maturity ? `, maturing ${hedge.maturity}` : ''}`,
    )
    .join('; ');
  const instrument =
    'references' in rel.instrument
      ? `the desk's own hedges carrying ${rel.instrument.references.join(', ')}, through every roll (gross price P&L designated; carry excluded; fees to P&L)${heldText ? `; held when designated: ${heldText}` : ''}`
      : `a forward held elsewhere: ${Number(item.amount) > 0 ? 'sells' : 'buys'} ${money(rel.instrument.notional)} ${rel.instrument.currency} at ${rel.instrument.contract_rate} (${rel.instrument.rate_quote}), maturing ${rel.instrument.maturity}`;
  const rules = ruleOf(rel.framework, rel.type);
  const { cites } = rules;
  // What the documentation must hold and the file may leave out: a missing one is named, never written for the user.
  const given = (text: string | undefined, field: string) =>
    text ?? `not given: ${rules.cites.documentation} asks for it (the relationship file's ${field})`;
  return [
    ...Object.entries({
      Relationship: rel.id,
      Framework: `${rules.name}, ${rules.hedge}`,
      Designated: rel.designated_at,
      Recorded: `${designation.recordedAt}${designation.recordedBy === undefined ? '' : ` by ${designation.recordedBy}`}`,
      'Record hash': designation.hash,
      'Objective and strategy': rel.objective,
      'Hedged item': `${item.description}: ${money(item.amount)} ${item.currency} (${item.operation === undefined ? item.kind : `the net assets of ${item.operation}, a foreign operation`})${item.expected_date ? `, expected ${item.expected_date}` : ''}`,
      'Hedged risk': given(rel.hedged_risk, 'hedged_risk'),
      ...(item.probability_evidence !== undefined && { 'Evidence of probability': item.probability_evidence }),
      Rates: rel.market,
      ...(rel.entity !== undefined && { Entity: rel.entity }),
      'Functional currency': rel.functional_currency
        ? `${rel.functional_currency}${asFunctional(rel.functional_currency) !== rel.functional_currency ? ' (read as USD)' : ''}`
        : 'the rates’ other currency than the hedged item’s',
      'Hedging instrument': instrument,
      'Hedge ratio': `${rel.ratio} (the designated share of the instrument)`,
      'How the ratio was determined': given(rel.ratio_basis, 'ratio_basis'),
      'Designated risk':
        rel.designation === 'spot'
          ? `the spot element; the forward points (or the carry) are excluded${rel.discount_hedged_item ? '; its spot change and the hedged item’s discounted to the cash-flow date' : ''}`
          : 'the forward element whole (forward rate)',
      'Excluded part': `${EXCLUDED_SAID[rel.excluded]} (${cites.excluded})`,
      Effectiveness: `${rel.method.replaceAll('_', ' ')}${rel.method === 'critical_terms' && rel.framework === 'asc815' ? `; the maturity matches ${rel.maturity_match === 'within_31_days' ? 'within one 31-day period' : rel.maturity_match === 'same_fiscal_month' ? 'within the same fiscal month' : 'within one 31-day period or the same fiscal month (the file documents neither: maturity_match)'} (ASC 815-20-25-84)` : ''}`,
      'Economic relationship': given(rel.economic_relationship, 'economic_relationship'),
      'Credit risk': given(rel.credit_risk, 'credit_risk'),
      'Prospective assessment': given(rel.prospective_assessment, 'prospective_assessment'),
      'Sources of ineffectiveness': rel.sources_of_ineffectiveness,
      'Rules applied': `documentation ${cites.documentation}; effectiveness ${cites.effectiveness}${rules.brightLine ? ' (80–125 %: a period outside ends hedge accounting from the last date it was met)' : ' (no pass line)'}; ${rules.effective === 'hedged_item' ? 'measurement' : 'deferral'} ${cites.effective} (${EFFECTIVE_SAID[rules.effective]}); the transaction ${cites.transaction}${'disposal' in cites ? `; disposal ${cites.disposal}` : ''}; discontinuation ${cites.discontinuation}`,
      'Approved by': rel.approved_by,
    }),
    ...designation.events.map((event) => [
      EVENT_LABELS[event.type],
      `${event.date}${event.reason ? `: ${event.reason}` : ''}${event.still_expected === false ? ' (no longer expected)' : ''}${event.share ? ` (a share of ${event.share})` : ''}${event.amount ? ` (${event.amount} ${item.currency})` : ''}${event.ratio ? ` (ratio ${event.ratio})` : ''}`,
    ]),
    ...(designation.failed ?? []).map(({ date, line }) => ['Hedge accounting ended', `${date}: ${line}`]),
  ].map(([label, text]) => [label, safeText(text)] as const);
}

const lateLine = (designation: Designation) =>
  designation.recordedLate === undefined
    ? []
    : [
        `RECORDED LATE: ${safeText(designation.recordedLate)} (designated ${designation.relationship.designated_at}, recorded ${utcDay(designation.recordedAt)})`,
      ];

/** The fewest columns a fact's text is given beside its label; on a narrower terminal the label has a line of its own. */
const MIN_TEXT_COLUMNS = 24;

/** The memo for a terminal: a line a fact, wrapped at the width with its words whole. */
function memoText(designation: Designation, columns: number) {
  const rows = memoRows(designation);
  const width = Math.max(...rows.map(([label]) => label.length)) + 2;
  const beside = columns - width >= MIN_TEXT_COLUMNS;
  return [
    // The heading lines whole where a fact fits beside its label (a line to find), else wrapped too.
    ...[...lateLine(designation), `Hedge designation memo: ${designation.relationship.id}`].map((line) =>
      beside ? line : wrapWords(line, columns),
    ),
    '',
    ...rows.map(([label, text]) =>
      beside
        ? wrapWords(`${`${label}:`.padEnd(width)}${text}`, columns, { hangingIndent: width })
        : `${wrapWords(`${label}:`, columns)}\n${wrapWords(`  ${text}`, columns, { hangingIndent: 2 })}`,
    ),
    '',
    wrapWords(JUDGEMENT, columns),
  ].join('\n');
}

const markdownCell = (text: string) =>
  text
    .replace(/\\/g, '\\\\')
    .replace(/\|/g, '\\|')
    .replace(/\s*\n\s*/g, ' ');

function memoMarkdown(designation: Designation) {
  return [
    ...lateLine(designation).map((line) => `**${markdownCell(line)}**\n`),
    `# Hedge designation memo: ${markdownCell(designation.relationship.id)}`,
    '',
    '| | |',
    '|---|---|',
    ...memoRows(designation).map(([label, text]) => `| ${label} | ${markdownCell(text)} |`),
    '',
    `> ${JUDGEMENT}`,
    '',
  ].join('\n');
}

/** The memo printed (Markdown or text), or as JSON the relationship as recorded, with `more`. */
export function printMemo(
  output: CommandContext['output'],
  designation: Designation,
  markdown: boolean | undefined,
  more = {},
) {
  output.document(
    {
      ...designation.relationship,
      recorded_at: designation.recordedAt,
      hash: designation.hash,
      recorded_late: designation.recordedLate ?? null,
      ...more,
    },
    () => (markdown ? memoMarkdown(designation) : memoText(designation, output.columns)),
  );
}

/** What the page documents: `Cash-flow hedge documentation, as recorded by hedge`. */
const documented = ({ relationship: rel }: Designation) => {
  const hedge = ruleOf(rel.framework, rel.type).hedge;
  return `${hedge[0].toUpperCase()}${hedge.slice(1)} documentation, as recorded by hedge`;
};

/** A self-contained page (the report's styles, no script), printable on A4: its title, styles of its own, what
 * comes before its header, its subtitle and its main part (HTML, escaped by the caller). */
export function a4Page(title: string, style: string, before: string, subtitle: string, main: string) {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${REPORT_STYLE}
@page { size: A4 portrait; margin: 16mm 14mm; }
${style}
</style>
</head>
<body>
${before}
<header><div><h1>${escapeHtml(title)}</h1><p class="subtitle">${escapeHtml(subtitle)}</p></div></header>
<main>
${main}
</main>
</body>
</html>
`;
}

/** The memo as a page. */
export function memoHtml(designation: Designation) {
  return a4Page(
    `Hedge designation memo: ${designation.relationship.id}`,
    `.late { border: 2px solid var(--neg); color: var(--neg); font-weight: 700; padding: 8px 12px; border-radius: 4px; }
table.memo th { width: 28%; color: var(--muted); font-weight: 600; }
table.memo td { overflow-wrap: anywhere; }
.judgement { color: var(--muted); margin-top: 18px; }`,
    lateLine(designation)
      .map((line) => `<p class="late">${escapeHtml(line)}</p>`)
      .join('\n'),
    documented(designation),
    `<table class="memo"><tbody>
${memoRows(designation)
  .map(([label, text]) => `<tr><th scope="row">${escapeHtml(label)}</th><td>${escapeHtml(text)}</td></tr>`)
  .join('\n')}
</tbody></table>
<p class="judgement">${escapeHtml(JUDGEMENT)}</p>`,
  );
}

/** A relationship's id is read whole (a column waits for a wider terminal before one is cut). */
const WHOLE_ID = { relationship_id: { kind: 'text', whole: true } } as const;

const words = (keys: string) => keys.split(' ');

type Framework = keyof typeof FRAMEWORK_RULES;

/** A month's test in a word, as a screen shows it beside its ratio: the framework's sentence is said once, under it. */
function verdict(row: JsonObject, framework: Framework | undefined) {
  if (row.status === 'failed') return 'fails';
  if (row.status === 'ended') return 'no test';
  const fit = row.regression as { met?: boolean } | null;
  if (fit) return fit.met === undefined ? 'not judged' : fit.met ? 'met' : 'not met';
  if (framework && !FRAMEWORK_RULES[framework].brightLine) return 'diagnostic';
  return typeof row.ratio === 'number' ? 'inside' : 'not measurable';
}

/** On a screen, a month a line under its relationship's heading: the month, the effective and ineffective parts and
 * the reserve's close first, then the ratio and its test in a word; every amount signed one way (a gain, a credit
 * positive), the framework's sentence said once under the table. */
export function periodView(frameworks: ReadonlyMap<string, Framework>) {
  return {
    fields: fieldTable(
      `
  relationship_id  Relationship  id
  period  Month  text
  period_end  To  text
  status  Status  text
  instrument_change  Instrument (cum.)  money
  hedged_item_change  Hedged item (cum.)  money
  ratio  Offset ratio  text
  test  Test  text
  effective  Effective  money
  ineffective  Ineffective  money
  excluded  Excluded  money
  reserve_open  Reserve open  money
  reclassified  Reclassified  money
  reserve_close  Reserve close  money
  cost_of_hedging_close  Cost of hedging  money
  line  Pass line  text
`,
      {
        ...WHOLE_ID,
        ...ratioOnScreen,
        test: { screenOnly: true, get: (row) => verdict(row, frameworks.get(String(row.relationship_id))) },
      },
    ),
    priority: words(
      'period effective ineffective reserve_close ratio test status instrument_change hedged_item_change reclassified reserve_open excluded period_end cost_of_hedging_close',
    ),
    decisive: 4,
    // The relationship heads its rows; the pass line is said once under the table.
    table: words(
      'period period_end status instrument_change hedged_item_change ratio test effective ineffective excluded reserve_open reclassified reserve_close cost_of_hedging_close',
    ),
  };
}

/** What is said once under a test's table: each framework's line, and the whole sentence of a month whose test failed
 * (or of a relationship's last regression). */
export function testNotes(rows: readonly JsonObject[], frameworks: ReadonlyMap<string, Framework>) {
  const used = new Set(rows.flatMap((row) => frameworks.get(String(row.relationship_id)) ?? []));
  const lines = [...used].map((framework) => {
    const rules = FRAMEWORK_RULES[framework];
    return rules.brightLine
      ? `${rules.name}: the offset ratio passes inside 80–125 %; outside, the test fails and hedge accounting ends from the last date it was met (${rules.cites.effectiveness}).`
      : `${rules.name}: no pass line; the offset ratio is a diagnostic of the economic relationship (${rules.cites.effectiveness}).`;
  });
  const lastFit = new Map(rows.flatMap((row) => (row.regression ? [[String(row.relationship_id), row] as const] : [])));
  const told = rows.filter((row) => row.status === 'failed' || [...lastFit.values()].includes(row));
  return [...lines, ...told.map((row) => `${String(row.relationship_id)} ${String(row.period)}: ${String(row.line)}`)];
}

/** Rows grouped by relationship (each in its own order), with a heading line before each group: its id, currency and
 * the balance its figures are of. */
export function byRelationship(rows: readonly JsonObject[]) {
  const ids = [...new Set(rows.map((row) => String(row.relationship_id)))];
  const grouped = ids.flatMap((id) => rows.filter((row) => String(row.relationship_id) === id));
  const sections = ids.map((id) => {
    const first = grouped.findIndex((row) => String(row.relationship_id) === id);
    const said = [grouped[first].currency, grouped[first].balance].filter((each) => typeof each === 'string');
    const named = said.map((each) => String(each).replaceAll('_', ' ')).join(', ');
    return { before: first, line: safeText(`${id}${named ? ` (${named})` : ''}`) };
  });
  return { rows: grouped, sections };
}

/** A ratio on a screen as a percentage to the tenth (`101.7 %`), as the framework's line says it; JSON keeps the number. */
const ratioOnScreen = {
  ratio: {
    onScreen: {
      get: (row: JsonObject) => (typeof row.ratio === 'number' ? percent(row.ratio) : row.ratio),
    },
  },
} as const;

export const RESERVE_FIELDS = fieldTable(
  `
  relationship_id  Relationship  id
  period  Month  text
  period_end  To  text
  reserve_open  Reserve open  money
  effective  Effective  money
  reclassified  Reclassified  money
  adjustment  Adjustment  money
  reserve_close  Reserve close  money
  cost_of_hedging_open  Cost of hedging open  money
  cost_of_hedging_movement  Cost of hedging moved  money
  cost_of_hedging_reclassified  Cost of hedging reclassified  money
  cost_of_hedging_adjustment  Cost of hedging adjusted  money
  cost_of_hedging_close  Cost of hedging  money
  balance  Balance  text
`,
  WHOLE_ID,
);

/** On a screen: the roll-forward a month a line under its relationship's heading (open + effective − reclassified +
 * adjustment = close), the month first. */
export const RESERVE_VIEW = {
  fields: RESERVE_FIELDS,
  priority: words(
    'period reserve_open effective reclassified reserve_close adjustment period_end cost_of_hedging_close cost_of_hedging_movement cost_of_hedging_open cost_of_hedging_reclassified cost_of_hedging_adjustment',
  ),
  decisive: 5,
  // The relationship's heading names the balance the figures are of.
  table: words(
    'period period_end reserve_open effective reclassified adjustment reserve_close cost_of_hedging_open cost_of_hedging_movement cost_of_hedging_reclassified cost_of_hedging_adjustment cost_of_hedging_close',
  ),
};

/** An account as a screen shows it: a role named by hedge in words (it wraps at them in a narrow column), a GL account
 * as mapped. */
const accountOnScreen = (row: JsonObject) =>
  row.account === row.role ? String(row.account).replaceAll('_', ' ') : row.account;

/** On a screen: each line's date, account, debit and credit first, under its relationship's heading; the entry by its
 * number that day (its whole id in JSON, TSV and CSV); where the rate came from last. */
export const JOURNAL_VIEW = {
  fields: fieldTable(
    `
  entry_id  Entry  id
  relationship_id  Relationship  id
  hedge_ids  Hedges  text
  date  Date  text
  role  Role  text
  account  Account  text
  debit  Debit  money
  credit  Credit  money
  currency  Currency  text
  rate  Rate  text
  rate_source  Rate source  text
  rate_quote  Rate quote  text
  description  What  text
`,
    {
      ...WHOLE_ID,
      entry_id: { onScreen: { get: (row) => String(row.entry_id).split('/').at(-1), kind: 'text', whole: true } },
      account: { wrap: true, onScreen: { get: accountOnScreen } },
      rate_source: { wrap: true },
    },
  ),
  priority: words('date account debit credit entry_id currency role hedge_ids rate rate_source rate_quote description'),
  decisive: 4,
  table: words('date entry_id account debit credit currency role hedge_ids rate rate_source rate_quote description'),
};

/** `hedge acct journal --gl`: the posting file, a line per posting, its columns in the order an import reads them. */
export const POSTING_FIELDS = fieldTable(
  `
  document_number  Document  text
  line_item  Line  count
  document_date  Date  text
  posting_period  Period  text
  company_code  Company  text
  ledger  Ledger  text
  account  Account  text
  debit  Debit  money
  credit  Credit  money
  currency  Currency  text
  amount_tc  Amount (transaction)  money
  currency_tc  Transaction currency  text
  rate  Rate  text
  rate_source  Rate source  text
  reference  Reference  text
  text  Text  text
`,
  { account: { wrap: true }, text: { wrap: true } },
);

/** `hedge acct rates --market M`: what is recorded, a row a date. */
export const RATE_FIELDS = fieldTable(`
  date  Date  text
  spot  Spot  text
  forward  Forward  text
  discount_factor  Discount factor  text
  source  Source  text
`);

/** `hedge acct list`: a relationship a row. */
export const LIST_FIELDS = fieldTable(`
  id  Relationship  id
  framework  Framework  text
  designated_at  Designated  text
  item  Hedged item  text
  instrument  Instrument  text
  status  Status  text
  reserve  Reserve  money
  currency  Currency  text
  reserve_as_of  As of  text
  entity  Entity  text
  type  Hedge  text
  balance  Balance  text
`);

/** `hedge acct entities`: an entity a row. */
export const ENTITY_FIELDS = fieldTable(`
  code  Entity  id
  name  Name  text
  functional_currency  Currency  text
  default  Default  text
  status  Status  text
`);

/** The columns of `hedge acct log` (its JSON has each record's hash too). */
export const LOG_FIELDS = fieldTable(`
  seq  #  text
  recorded_at  When  text
  by  Who  text
  subject  Of  id
  what  What  text
  why  Why  text
  approval  Approval  text
  profile  Profile  text
  key  Key  text
`);
