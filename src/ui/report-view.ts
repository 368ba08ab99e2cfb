// `hedge report` on a terminal, in a pipe and as CSV. Renders only: the report comes built
// (domain/report.ts). The terminal table fits the width it is given (80 columns included) by
// shrinking the bar and dropping the least needed money columns, which --format csv and --json
// always carry; a bar per group shows its net P&L, and a sparkline the cumulative net P&L.
import type { ChalkInstance } from 'chalk';
import { stringify } from 'csv-stringify/sync';
import type { Report, ReportFigures, ReportGroup, ReportGrouping } from '../domain/report.js';
import { safeText } from '../security/safe-text.js';
import { formatMoney, formatSignedMoney } from './format.js';
import { bar, sparkline } from './text-charts.js';
import { displayWidth, fitColumns, padCell, truncateEnd, wrapWords, type ColumnDemand } from './width.js';

// ---- CSV and plain rows ---------------------------------------------------------------------

/**
 * The CSV columns, in this order (also the order of the tab-separated rows off a terminal):
 *   group, count, notional_usd, gross_pnl_usd, carry_usd, fees_usd, net_pnl_usd
 * `group` is the group's key: a UTC day (2026-03-02), an ISO week (2026-W10), a month (2026-03),
 * a side (buy/sell), a tenor in days (3), a market (USDTNGN), or `unknown` when the records do not
 * say. Money has two decimals; a figure no record in the group gives is an empty cell. Carry and
 * fees are positive when paid by the account. One row per group, no totals row.
 */
export const REPORT_CSV_COLUMNS = ['group', 'count', 'notional_usd', 'gross_pnl_usd', 'carry_usd', 'fees_usd', 'net_pnl_usd'] as const;

const cents = (value: number | null): string => (value === null ? '' : value.toFixed(2));

function rowValues(key: string, figures: ReportFigures): string[] {
  return [
    key,
    String(figures.count),
    cents(figures.notional_usd),
    cents(figures.gross_pnl_usd),
    cents(figures.carry_usd),
    cents(figures.fees_usd),
    cents(figures.net_pnl_usd),
  ];
}

export type ReportColumn = (typeof REPORT_CSV_COLUMNS)[number];

/** Which columns, in which order, tsv and csv print: --fields, or all of them. */
export interface ReportColumns {
  columns?: readonly ReportColumn[];
  /** false with --no-header. */
  header?: boolean;
}

function pick(cells: string[], columns: readonly ReportColumn[]): string[] {
  return columns.map((column) => cells[REPORT_CSV_COLUMNS.indexOf(column)]!);
}

export function reportCsv(report: Report, options: ReportColumns = {}): string {
  const columns = options.columns ?? REPORT_CSV_COLUMNS;
  const rows = report.groups.map((group) => pick(rowValues(group.key, group), columns));
  return stringify(options.header === false ? rows : [[...columns], ...rows], { record_delimiter: 'unix' });
}

/** Off a terminal, or --format tsv: a header row of the column names, then the rows tab-separated (like every list). */
export function reportPlainRows(report: Report, options: ReportColumns = {}): string[] {
  const columns = options.columns ?? REPORT_CSV_COLUMNS;
  const rows = report.groups.map((group) => pick(rowValues(safeText(group.key), group), columns).map((cell) => cell.replace(/[\t\n]/g, ' ')).join('\t'));
  return options.header === false ? rows : [columns.join('\t'), ...rows];
}

/** The totals, for stderr next to the plain rows. */
export function reportPlainTotals(report: Report): string {
  const [, ...values] = rowValues('', report.totals);
  return ['Total', ...REPORT_CSV_COLUMNS.slice(1).map((column, index) => `${column}=${values[index]}`)].join('\t');
}

// ---- terminal ---------------------------------------------------------------------------------

const GROUP_TITLES: Record<ReportGrouping, string> = {
  day: 'Day (UTC)',
  week: 'ISO week',
  month: 'Month',
  side: 'Side',
  tenor: 'Tenor',
  market: 'Market',
};

const BY_WORDS: Record<ReportGrouping, string> = {
  day: 'day (UTC)',
  week: 'ISO week (UTC)',
  month: 'month (UTC)',
  side: 'side',
  tenor: 'tenor',
  market: 'market',
};

const COLUMN_WORDS: Record<string, string> = { notional: 'notional', gross: 'gross P&L', carry: 'carry', fees: 'fees', count: 'hedges', bar: 'bars' };

const DASH = '—';
const GAP = 2;
const BAR_WIDTH = 21;
const BAR_MIN_WIDTH = 9;

function utcMinute(iso: string): string {
  return `${iso.slice(0, 16).replace('T', ' ')} UTC`;
}

export function periodText(report: Pick<Report, 'since' | 'until'>): string {
  if (report.since && report.until) return `closed ${utcMinute(report.since)} to ${utcMinute(report.until)} (end excluded)`;
  if (report.since) return `closed from ${utcMinute(report.since)}`;
  if (report.until) return `closed before ${utcMinute(report.until)}`;
  return 'all history';
}

interface Cell {
  text: string;
  align: 'left' | 'right';
}

type ColumnKey = 'group' | 'count' | 'notional' | 'gross' | 'carry' | 'fees' | 'net' | 'bar';

interface ColumnDef {
  key: ColumnKey;
  title: string;
  priority: number;
  align: 'left' | 'right';
}

// Lower priority numbers stay longest: the group and its net P&L always; the bar before the
// money columns that explain the net, notional first to go.
const COLUMNS: readonly ColumnDef[] = [
  { key: 'group', title: '', priority: 0, align: 'left' },
  { key: 'count', title: 'Hedges', priority: 1, align: 'right' },
  { key: 'notional', title: 'Notional', priority: 6, align: 'right' },
  { key: 'gross', title: 'Gross P&L', priority: 5, align: 'right' },
  { key: 'carry', title: 'Carry paid', priority: 4, align: 'right' },
  { key: 'fees', title: 'Fees', priority: 3, align: 'right' },
  { key: 'net', title: 'Net P&L', priority: 0, align: 'right' },
  { key: 'bar', title: '', priority: 2, align: 'left' },
];

export interface ReportViewOptions {
  chalk: ChalkInstance;
  /** The width to fit (terminalColumns). */
  columns: number;
}

/** The terminal report: title, table (groups, then totals), unrealized P&L, cumulative sparkline. */
export function renderReportTable(report: Report, options: ReportViewOptions): string {
  const { chalk: c, columns: width } = options;
  const fitLine = (line: string): string => (displayWidth(line) > width ? truncateEnd(line, width) : line);
  const lines: string[] = [fitLine(c.bold(`P&L by ${BY_WORDS[report.by]}, ${periodText(report)}`))];

  if (report.groups.length === 0) {
    lines.push(c.dim('No closed hedges in this period.'));
  } else {
    lines.push(...table(report, options));
  }
  lines.push(wrapWords(unrealizedLine(report, c), width));
  lines.push(fitLine(cumulativeLine(report, c, width)));
  return lines.map((line) => line.trimEnd()).join('\n');
}

function money(value: number | null, c: ChalkInstance): string {
  return value === null ? c.dim(DASH) : formatMoney(value);
}

function pnl(value: number | null, c: ChalkInstance): string {
  if (value === null) return c.dim(DASH);
  const text = formatSignedMoney(value);
  return value > 0 ? c.green(text) : value < 0 ? c.red(text) : text;
}

function figureCells(figures: ReportFigures, c: ChalkInstance): Record<Exclude<ColumnKey, 'group' | 'bar'>, string> {
  return {
    count: figures.count.toLocaleString('en-US'),
    notional: money(figures.notional_usd, c),
    gross: pnl(figures.gross_pnl_usd, c),
    carry: money(figures.carry_usd, c),
    fees: money(figures.fees_usd, c),
    net: pnl(figures.net_pnl_usd, c),
  };
}

function table(report: Report, options: ReportViewOptions): string[] {
  const { chalk: c, columns: width } = options;
  const titles: Record<ColumnKey, string> = Object.fromEntries(COLUMNS.map((column) => [column.key, column.title])) as Record<ColumnKey, string>;
  titles.group = GROUP_TITLES[report.by];
  const groupRows = report.groups.map((group: ReportGroup) => ({ group: safeText(group.label), ...figureCells(group, c) }));
  const totalRow = { group: 'Total', ...figureCells(report.totals, c) };
  const textRows: Array<Record<Exclude<ColumnKey, 'bar'>, string>> = [...groupRows, totalRow];

  const demands: ColumnDemand[] = COLUMNS.map((column) => {
    if (column.key === 'bar') return { key: 'bar', priority: column.priority, width: BAR_WIDTH, minWidth: BAR_MIN_WIDTH, shrink: 'truncate' };
    const widest = Math.max(displayWidth(titles[column.key]), ...textRows.map((row) => displayWidth(row[column.key as Exclude<ColumnKey, 'bar'>])));
    return column.key === 'group'
      ? { key: 'group', priority: 0, width: widest, minWidth: Math.min(widest, 10), shrink: 'truncate' }
      : { key: column.key, priority: column.priority, width: widest };
  });
  const layout = fitColumns(demands, width, GAP);
  const kept = layout.keep.map((kept) => ({ ...kept, def: COLUMNS.find((column) => column.key === kept.key)! }));

  const maxAbs = report.groups.reduce((max, group) => Math.max(max, Math.abs(group.net_pnl_usd)), 0);
  const line = (cells: Record<string, Cell>): string =>
    kept.map(({ key, width: columnWidth }) => padCell(cells[key]?.text ?? '', columnWidth, cells[key]?.align ?? 'left')).join(' '.repeat(GAP));
  const cellsOf = (row: Record<string, string>, extra: Record<string, Cell> = {}, bold = false): Record<string, Cell> => {
    const cells: Record<string, Cell> = {};
    for (const { key, def } of kept) if (key !== 'bar') cells[key] = { text: bold ? c.bold(row[key]) : row[key], align: def.align };
    return { ...cells, ...extra };
  };
  const barWidth = kept.find((column) => column.key === 'bar')?.width ?? 0;
  const barCell = (value: number): Cell => {
    const drawn = bar(value, maxAbs, barWidth);
    return { text: value > 0 ? c.green(drawn) : value < 0 ? c.red(drawn) : c.dim(drawn), align: 'left' };
  };

  const head = line(cellsOf(Object.fromEntries(kept.map(({ key }) => [key, titles[key as ColumnKey]])), {}, true));
  const rule = c.dim(kept.map(({ width: columnWidth }) => '─'.repeat(columnWidth)).join(' '.repeat(GAP)));
  const out = [head, rule];
  report.groups.forEach((group, index) => out.push(line(cellsOf(groupRows[index], { bar: barCell(group.net_pnl_usd) }))));
  out.push(rule, line(cellsOf(totalRow, {}, true)));
  if (layout.dropped.length > 0) {
    const words = layout.dropped.map((key) => COLUMN_WORDS[key] ?? key).join(', ');
    out.push(c.dim(wrapWords(`Not shown at ${width} columns: ${words} (all in --format csv and --json).`, width)));
  }
  return out;
}

function unrealizedLine(report: Report, c: ChalkInstance): string {
  const { positions, net_pnl_usd: net } = report.unrealized;
  if (positions === 0) return `Unrealized P&L: ${c.dim('no open positions')}`;
  const count = `${positions} open ${positions === 1 ? 'position' : 'positions'}`;
  const value = net === null ? c.dim('not given by the server') : pnl(net, c);
  return `Unrealized P&L (${count}, not in the figures above): ${value}`;
}

function cumulativeLine(report: Report, c: ChalkInstance, width: number): string {
  const label = 'Cumulative net P&L ';
  if (report.cumulative.length === 0) return `${label}${c.dim('(no dated closes)')}`;
  const last = report.cumulative[report.cumulative.length - 1]!.net_pnl_usd;
  const end = ` ${formatSignedMoney(last)}`;
  const room = Math.max(1, width - displayWidth(label) - displayWidth(end));
  const line = sparkline(
    report.cumulative.map((point) => point.net_pnl_usd),
    Math.min(room, 60),
  );
  return `${label}${c.cyan(line)}${last > 0 ? c.green(end) : last < 0 ? c.red(end) : end}`;
}

// ---- notes (stderr) -----------------------------------------------------------------------------

const MISSING_WORDS: Record<keyof Report['missing'], string> = {
  notional_usd: 'notional',
  gross_pnl_usd: 'gross P&L',
  carry_usd: 'carry',
  fees_usd: 'fees',
};

const plural = (count: number, one: string, many = `${one}s`): string => `${count} ${count === 1 ? one : many}`;

/** What the reader of the figures should know about the data behind them (stderr, every mode). */
export function reportNotes(report: Report): string[] {
  const notes: string[] = [];
  if (report.excluded > 0) {
    const why = report.since !== null || report.until !== null ? 'a period is given' : `the grouping is by ${report.by}`;
    notes.push(`${plural(report.excluded, 'closed hedge')} left out: no readable close time, and ${why}.`);
  }
  if (report.undated > 0) notes.push(`${plural(report.undated, 'closed hedge')} without a close time counted in the figures but not in the cumulative line.`);
  for (const key of Object.keys(MISSING_WORDS) as Array<keyof Report['missing']>) {
    const count = report.missing[key];
    if (count > 0) notes.push(`The ${MISSING_WORDS[key]} of ${plural(count, 'closed hedge')} is not given by the server; its sums cover the others.`);
  }
  return notes;
}
