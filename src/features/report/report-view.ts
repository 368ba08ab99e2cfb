// `hedge report` on a terminal, in a pipe and as CSV; the table drops the least needed columns
// (REPORT_PRIORITY) to fit the width.
import type { ChalkInstance } from 'chalk';
import { formatFixed, formatSignedMoney, plural } from '../../core/number-format.js';
import type { Report, ReportGrouping } from './report-rules.js';
import { safeText } from '../../core/security/safe-text.js';
import { decimalsOf, formatCell, rateUnitOf, type CellContext } from '../../platform/terminal/cells.js';
import { fieldLabel, fieldTable } from '../../platform/fields/fields.js';
import {
  drawTable,
  EMPTY_CELL,
  kindColumn,
  tableCell,
  type TableCell,
  type TableColumn,
} from '../../platform/terminal/table.js';
import { bar, sparkline } from '../../platform/results/text-charts.js';
import { displayWidth, truncateEnd, wrapWords } from '../../platform/terminal/width.js';
import { utcMinute } from '../../core/utc-text.js';
import { toned } from '../../platform/terminal/format.js';

/** The report's columns (CSV/TSV header and JSON field, table header, screen kind); off screen money has two decimals and an unknown figure is an empty cell (null in JSON). */
const REPORT_FIELDS = fieldTable(`
  group                Group       text
  client_reference     Ref         text
  market               Market
  side                 Side        side
  closed_at            Closed      utc
  count                Hedges      count
  entry_price          Entry       rate   rate
  exit_price           Exit        rate   rate
  notional_usd         Notional    money
  quote_currency       Quote
  quote_amount_locked  Locked      money
  gross_pnl_usd        Gross P&L   pnl
  carry_pnl_usdc       Carry USDC  pnl
  fees_pnl_usdc        Fees USDC   pnl
  net_pnl_usd          Net P&L     pnl`);

/** The CSV columns, in this order (also the order of the tab-separated rows off a terminal): */
export const REPORT_CSV_COLUMNS =
  'group count notional_usd gross_pnl_usd carry_pnl_usdc fees_pnl_usdc net_pnl_usd'.split(' ');

/** `--by hedge`: a row per closed hedge, with the rates it was struck and closed at and the quote amount it locked (notional × entry rate). */
export const REPORT_DEAL_CSV_COLUMNS = [
  ...'group client_reference market side closed_at entry_price exit_price notional_usd quote_currency quote_amount_locked'.split(
    ' ',
  ),
  ...REPORT_CSV_COLUMNS.slice(3),
];

/** The columns of a report grouped this way, in CSV order. */
export function reportColumns(by: ReportGrouping) {
  return by === 'hedge' ? REPORT_DEAL_CSV_COLUMNS : REPORT_CSV_COLUMNS;
}

/** What a narrow terminal keeps, most important first: the group, then what a desk decides on (net P&L, deal, side, notional, rates), then the rest. */
export const REPORT_DECIDES = 'group net_pnl_usd client_reference side notional_usd entry_price exit_price count'.split(
  ' ',
);
// The amounts net P&L is made of; the bar (net P&L drawn again) last: a narrow report drops
// decoration before data.
export const REPORT_PRIORITY = [
  ...REPORT_DECIDES,
  ...'quote_amount_locked gross_pnl_usd carry_pnl_usdc fees_pnl_usdc closed_at market bar'.split(' '),
];
// The amounts (money and P&L): notional_usd, quote_amount_locked and the four P&L figures.
const isMoney = (key: string) => /_(usdc?|locked)$/.test(key);

type Figures = Partial<Report['groups'][number]>;

/** A figure of a group (or the totals) or of its deal, by the report's field name. */
const valueOf = (key: string, figures: Figures) => (({ ...figures, ...figures.deal }) as Record<string, unknown>)[key];

/** A cell of CSV and TSV: money with two decimals, a figure no record gives empty; `group` is the group's key. */
function csvCell(column: string, figures: Figures) {
  const value = column === 'group' ? figures.key : valueOf(column, figures);
  return value == null ? '' : isMoney(column) ? (value as number).toFixed(2) : String(value);
}

/** The rows of cells in `columns` (--fields, or all of the grouping's), a header row of the column names first (unless --no-header): CSV and TSV alike, each through its encoder (platform/terminal/csv.ts defuses cells a spreadsheet would run as formulas). */
export function reportTable(report: Report, columns = reportColumns(report.by), header?: boolean) {
  const rows = report.groups.map((group) => columns.map((column) => csvCell(column, group)));
  return header === false ? rows : [[...columns], ...rows];
}

/** The totals, for stderr next to the plain rows. */
export function reportPlainTotals(report: Report) {
  const sums = REPORT_CSV_COLUMNS.slice(1).map((column) => `${column}=${csvCell(column, report.totals)}`);
  const locked = report.locked.map(
    (sum) => `quote_amount_locked_${sum.quote_currency ?? 'unknown'}=${sum.amount.toFixed(2)}`,
  );
  return ['Total', ...sums, ...(report.by === 'hedge' ? locked : [])].join('\t');
}

/** Per grouping: the table's column title and the "by …" words; then the page's, where it has room for longer words. */
export const GROUP_WORDS = Object.fromEntries(
  `day|Day (UTC)|day (UTC)
  week|ISO week|ISO week (UTC)||ISO week (Monday to Sunday, UTC)
  month|Month|month (UTC)|Month (UTC)
  side|Side|side
  tenor|Tenor|tenor
  market|Market|market
  hedge|Hedge ID|closed hedge|Hedge
  ref|Ref|deal reference|Deal reference`
    .split(/\n\s*/)
    .map((line) => {
      const [by, title, words, pageTitle, pageWords] = line.split('|');
      return [by, { title, words, pageTitle: pageTitle || title, pageWords: pageWords || words }] as const;
    }),
);

/** A column (or a figure `Report.missing` counts) in words. */
export const COLUMN_WORDS: Record<string, string> = Object.fromEntries(
  'count=hedges,notional_usd=notional,gross_pnl_usd=gross P&L,carry_pnl_usdc=carry,fees_pnl_usdc=fees,bar=bars,client_reference=reference,closed_at=close time,entry_price=entry rate,exit_price=exit rate,quote_amount_locked=amount locked'
    .split(',')
    .map((pair) => pair.split('=')),
);

const BAR_WIDTH = 21;
const BAR_MIN_WIDTH = 9;

/** The report's period in words (`closed ` before it on a terminal, where the title says what is grouped). */
export function periodText({ since, until }: Pick<Report, 'since' | 'until'>, closed = '') {
  const at = (iso: string) => `${utcMinute(iso)} UTC`;
  if (since && until) return `${closed}${at(since)} to ${at(until)} (end excluded)`;
  if (since) return `${closed}from ${at(since)}`;
  if (until) return `${closed}before ${at(until)}`;
  return 'all history';
}

/** The terminal report: title, table (groups, then totals), unrealized P&L, cumulative sparkline. */
export async function renderReportTable(report: Report, c: ChalkInstance, width: number, nowMs: number) {
  return [
    truncateEnd(c.bold(`P&L by ${GROUP_WORDS[report.by].words}, ${periodText(report, 'closed ')}`), width),
    ...(report.groups.length ? await groupTable(report, c, width, nowMs) : [c.dim('No closed hedges in this period.')]),
    wrapWords(unrealizedLine(report, c), width),
    truncateEnd(cumulativeLine(report, c, width), width),
  ]
    .map((line) => line.trimEnd())
    .join('\n');
}

async function groupTable(report: Report, c: ChalkInstance, width: number, nowMs: number) {
  const context = { chalk: c, nowMs, where: 'table' as const };
  const columns = groupColumns(report, context);
  const {
    text: drawn,
    hidden,
    shortened,
  } = await drawTable({
    columns: columns.map(([column]) => column),
    priority: REPORT_PRIORITY,
    decisive: REPORT_DECIDES.length,
    rowCount: report.groups.length,
    totals: { label: 'Total', cells: columns.map(([, total]) => total) },
    width,
    chalk: c,
  });
  const wrap = (text: string) => wrapWords(text, width);
  const out = drawn.split('\n');
  for (const sum of report.by === 'hedge' && report.locked.length > 1 ? report.locked : [])
    out.push(
      wrap(
        `Locked in ${sum.quote_currency ?? 'an unknown currency'}: ${formatFixed(sum.amount, 2)} (${plural(sum.count, 'hedge')})`,
      ),
    );
  out.push(
    c.dim(
      wrap(
        `Amounts in USD; carry and fees in USDC, from your side (- you paid, + you earned): net = gross + carry + fees.${
          report.by === 'hedge'
            ? ' Locked: notional × entry rate, in the quote currency.'
            : ' A line per deal, with its reference and rates: --by hedge.'
        }`,
      ),
    ),
  );
  if (hidden.length || shortened.includes('group')) {
    const words = hidden.map((key) => COLUMN_WORDS[key] ?? key).join(', ');
    const parts = hidden.length ? [`Not shown at ${width} columns: ${words}`] : [];
    if (shortened.includes('group'))
      parts.push(
        hidden.length ? 'hedge ids shortened in the middle' : `Hedge ids shortened in the middle at ${width} columns`,
      );
    out.push(c.dim(wrap(`${parts.join('; ')} (all in --format csv and --json).`)));
  }
  return out;
}

/** Each column of the table with its cell on the totals line. */
function groupColumns(report: Report, context: CellContext) {
  const c = context.chalk;
  const { groups } = report;
  // The rates' unit, and the currency the amounts locked are in, when every deal shown has one.
  const rateUnit = rateUnitOf(groups.map((group) => group.deal ?? {}));
  const [lockedIn, ...otherCurrencies] = new Set(groups.map((group) => group.deal?.quote_currency ?? null));
  const maxAbs = groups.reduce((max, group) => Math.max(max, Math.abs(group.net_pnl_usd)), 0);

  const keys = reportColumns(report.by).filter((key) => !/^(market|closed_at|quote_currency)$/.test(key));
  return [...keys, 'bar'].map((key): [TableColumn, TableCell] => {
    if (key === 'bar')
      return [
        {
          key,
          header: '',
          align: 'left',
          // The bar draws each group's net P&L: kept like an amount (headers wrap, an id is shortened, before it goes).
          money: true,
          cells: [],
          drawn: {
            width: BAR_WIDTH,
            minWidth: BAR_MIN_WIDTH,
            draw: (row, barWidth) => {
              const value = groups[row]?.net_pnl_usd;
              return value === undefined ? '' : toned(c, value, bar(value, maxAbs, barWidth), c.dim);
            },
          },
        },
        EMPTY_CELL,
      ];
    const field = REPORT_FIELDS.find((known) => known.key === key)!;
    const values = groups.map((group) => (key === 'group' ? group.label : valueOf(key, group)));
    // One number of decimals for the whole column, as in every list (a rate's: what the smallest needs).
    const decimals = decimalsOf(
      field,
      values.map((value) => ({ [key]: value })),
    );
    const cell = (value: unknown) => formatCell(field, value, {}, decimals, context);
    // The totals line: the sums of the CSV's columns; the amount locked when in one currency (several: each on its own line under the table).
    const total =
      key === 'quote_amount_locked'
        ? report.locked.length === 1
          ? tableCell(formatFixed(report.locked[0].amount, 2))
          : EMPTY_CELL
        : key !== 'group' && REPORT_CSV_COLUMNS.includes(key)
          ? cell(valueOf(key, report.totals))
          : EMPTY_CELL;
    return [
      {
        key,
        header:
          key === 'group'
            ? GROUP_WORDS[report.by].title
            : key === 'quote_amount_locked' && lockedIn && !otherCurrencies.length
              ? `${field.label} ${lockedIn}`
              : fieldLabel(field, 'header', rateUnit),
        // As the lists: a group's name or a reference may be cut at the end (a reference to 8); a hedge id is kept whole (cut in the middle only when it is all that fits).
        ...kindColumn(field.kind),
        ...(key === 'group' && report.by === 'hedge' && { shrink: 'middle', minWidth: undefined }),
        ...(key === 'client_reference' && { minWidth: 8 }),
        cells: values.map((value) => (key === 'group' ? tableCell(safeText(String(value))) : cell(value))),
      },
      total,
    ];
  });
}

function unrealizedLine(report: Report, c: ChalkInstance) {
  const { positions, net_pnl_usd: net } = report.unrealized;
  if (positions === 0) return `Unrealized P&L: ${c.dim('no open positions')}`;
  const value = net === null ? c.dim('not given by the server') : toned(c, net, formatSignedMoney(net));
  return `Unrealized P&L (${plural(positions, 'open position')}, not in the figures above): ${value}`;
}

function cumulativeLine(report: Report, c: ChalkInstance, width: number) {
  const label = 'Cumulative net P&L ';
  if (!report.cumulative.length) return `${label}${c.dim('(no dated closes)')}`;
  const last = report.cumulative.at(-1)!.net_pnl_usd;
  const end = ` ${formatSignedMoney(last)}`;
  const room = Math.max(1, width - displayWidth(label) - displayWidth(end));
  const line = sparkline(
    report.cumulative.map((point) => point.net_pnl_usd),
    Math.min(room, 60),
  );
  return `${label}${c.cyan(line)}${toned(c, last, end)}`;
}

/** What the reader of the figures should know about the data behind them (stderr, every mode). */
export function reportNotes(report: Report) {
  const notes: string[] = [];
  if (report.excluded > 0) {
    const why =
      report.since !== null || report.until !== null ? 'a period is given' : `the grouping is by ${report.by}`;
    notes.push(`${plural(report.excluded, 'closed hedge')} left out: no readable close time, and ${why}.`);
  }
  if (report.undated > 0)
    notes.push(
      `${plural(report.undated, 'closed hedge')} without a close time counted in the figures but not in the cumulative line.`,
    );
  for (const [key, count] of Object.entries(report.missing))
    if (count > 0)
      notes.push(
        `The ${COLUMN_WORDS[key]} of ${plural(count, 'closed hedge')} is not given by the server; its sums cover the others.`,
      );
  return notes;
}
