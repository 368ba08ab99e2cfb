// How `hedge maturities` reads: on a terminal, one table fitted to the width with a line per UTC
// day (date, count, notional) above that day's settlements; in a pipe the flat list as TSV/CSV;
// under --json the flat list itself (one object per hedge, each with its `day`). Renders only.
import type { Maturity, MaturityDay } from '../domain/maturities.js';
import { safeText } from '../security/safe-text.js';
import type { FieldSpec } from './fields.js';
import { formatMoney, formatRate, formatRelative, formatSignedMoney } from './format.js';
import type { Output } from './output.js';
import { displayWidth, fitColumns, padCell, truncateEnd, type ColumnDemand } from './width.js';

/** The columns of the list in TSV, CSV and JSON --fields, in this order. */
export const MATURITY_FIELDS: FieldSpec[] = [
  { key: 'day', label: 'Day' },
  { key: 'maturity_at', label: 'Maturity', kind: 'utc' },
  { key: 'matures_in_seconds', label: 'Matures in (s)', kind: 'count' },
  { key: 'market', label: 'Market' },
  { key: 'side', label: 'Side', kind: 'side' },
  { key: 'notional_usd', label: 'Notional (USD)', kind: 'money' },
  { key: 'tenor_days', label: 'Tenor (days)', kind: 'count' },
  { key: 'hedge_id', label: 'Hedge ID' },
  { key: 'client_reference', label: 'Ref' },
  { key: 'mark_price', label: 'Mark', kind: 'rate' },
  { key: 'net_pnl_usd', label: 'Net P&L (USD)', kind: 'pnl' },
  { key: 'accrued_carry_usdc', label: 'Carry (USDC)', kind: 'money' },
];

interface Column {
  key: string;
  label: string;
  /** 0 is never dropped; higher goes first when the width is short. */
  priority: number;
  align: 'left' | 'right';
  /** Hedge ids are cut in the middle, references at the end, before the column is dropped. */
  shrink?: { mode: 'middle' | 'truncate'; minWidth: number };
  cell(item: Maturity): string;
}

const DASH = '—';
const money = (value: number | null): string => (value === null ? DASH : formatMoney(value));

function columnsFor(output: Output, nowMs: number): Column[] {
  const c = output.chalk;
  const pnl = (value: number | null): string => {
    if (value === null) return c.dim(DASH);
    const text = formatSignedMoney(value);
    return value > 0 ? c.green(text) : value < 0 ? c.red(text) : text;
  };
  return [
    { key: 'time', label: 'UTC', priority: 0, align: 'left', cell: (item) => item.maturity_at.slice(11, 16) },
    { key: 'left', label: 'Left', priority: 1, align: 'left', cell: (item) => countdown(item, nowMs) },
    { key: 'market', label: 'Market', priority: 0, align: 'left', cell: (item) => safeText(item.market) },
    { key: 'side', label: 'Side', priority: 0, align: 'left', cell: (item) => (item.side === 'buy' ? c.green('buy') : c.magenta('sell')) },
    { key: 'notional', label: 'Notional USD', priority: 0, align: 'right', cell: (item) => money(item.notional_usd) },
    { key: 'pnl', label: 'P&L USD', priority: 2, align: 'right', cell: (item) => pnl(item.net_pnl_usd) },
    { key: 'carry', label: 'Carry USDC', priority: 3, align: 'right', cell: (item) => money(item.accrued_carry_usdc) },
    { key: 'mark', label: 'Mark', priority: 5, align: 'right', cell: (item) => (item.mark_price === null ? DASH : formatRate(item.mark_price)) },
    { key: 'tenor', label: 'Tenor', priority: 6, align: 'right', cell: (item) => (item.tenor_days === null ? DASH : `${item.tenor_days}d`) },
    {
      key: 'hedge',
      label: 'Hedge',
      priority: 4,
      align: 'left',
      shrink: { mode: 'middle', minWidth: 13 },
      cell: (item) => (item.hedge_id === null ? DASH : safeText(item.hedge_id)),
    },
    {
      key: 'ref',
      label: 'Ref',
      priority: 7,
      align: 'left',
      shrink: { mode: 'truncate', minWidth: 8 },
      cell: (item) => (item.client_reference === null ? '' : safeText(item.client_reference)),
    },
  ];
}

/** Time left: "2d 23h", or "due" once the maturity has come and the hedge has not settled yet. */
function countdown(item: Maturity, nowMs: number): string {
  const relative = formatRelative(item.maturity_at, nowMs);
  return item.matures_in_seconds <= 0 || relative === 'now' ? 'due' : relative.replace(/^in /, '');
}

/** "Tue 03 Mar 2026 · 2 hedges · 15,000.00 USD" */
function dayLine(day: MaturityDay): string {
  const date = new Date(`${day.day}T00:00:00Z`);
  const weekday = date.toLocaleDateString('en-GB', { weekday: 'short', timeZone: 'UTC' });
  const dayMonthYear = date.toLocaleDateString('en-GB', { day: '2-digit', month: 'short', year: 'numeric', timeZone: 'UTC' });
  const count = day.maturities.length;
  return `${weekday} ${dayMonthYear} · ${count} hedge${count === 1 ? '' : 's'} · ${formatMoney(day.notional_usd)} USD`;
}

export interface MaturitiesViewOptions {
  /** The width to fit (the terminal's, else COLUMNS, else 80). */
  columns: number;
  nowMs: number;
  /** Said when nothing is listed: "No open hedges." or "Nothing matures within 3d." */
  empty: string;
  /** Open positions for which no maturity could be read. */
  undated: number;
}

/** The settlements on stdout: the grouped table on a terminal, the flat list otherwise. */
export function renderMaturities(output: Output, days: readonly MaturityDay[], options: MaturitiesViewOptions): void {
  const maturities = days.flatMap((day) => day.maturities);
  if (!output.isHuman) {
    output.list(maturities as unknown as Record<string, unknown>[], MATURITY_FIELDS, { empty: options.empty });
  } else if (maturities.length === 0) {
    output.write(output.chalk.dim(options.empty));
  } else {
    const { text, dropped } = renderTable(output, days, options);
    output.write(text);
    if (dropped.length > 0) output.note(output.chalk.dim(`Hidden at ${options.columns} columns: ${dropped.join(', ')} — see --format tsv or --json.`));
    const shared = maturities.some((item) => item.net_pnl_usd === null && item.hedge_id !== null);
    output.note(
      output.chalk.dim(
        `Times in UTC. P&L: net (price and carry) at the mark, as \`hedge positions\` shows it; carry accrued to date.${shared ? ' A side holding several hedges shows its P&L and carry once, in `hedge positions` (— here).' : ''}`,
      ),
    );
  }
  if (options.undated > 0) {
    output.warn(`${options.undated} open position${options.undated === 1 ? '' : 's'} without a readable maturity (not listed); see \`hedge positions\`.`);
  }
}

function renderTable(output: Output, days: readonly MaturityDay[], options: MaturitiesViewOptions): { text: string; dropped: string[] } {
  const c = output.chalk;
  const maturities = days.flatMap((day) => day.maturities);
  // A column nobody has a value for (no client references) is left out.
  const columns = columnsFor(output, options.nowMs).filter((column) => maturities.some((item) => column.cell(item) !== ''));
  const cells = maturities.map((item) => columns.map((column) => column.cell(item)));
  const demands: ColumnDemand[] = columns.map((column, index) => {
    const width = Math.max(displayWidth(column.label), ...cells.map((row) => displayWidth(row[index]!)));
    return {
      key: column.key,
      priority: column.priority,
      width,
      ...(column.shrink ? { shrink: column.shrink.mode, minWidth: Math.min(width, Math.max(displayWidth(column.label), column.shrink.minWidth)) } : {}),
    };
  });
  const fitted = fitColumns(demands, options.columns);
  const kept = fitted.keep.map(({ key, width }) => ({ index: columns.findIndex((column) => column.key === key), width }));
  const row = (texts: readonly string[]): string =>
    kept
      .map(({ index, width }) => padCell(texts[index]!, width, columns[index]!.align, columns[index]!.shrink?.mode))
      .join('  ')
      .trimEnd();
  const lines = [row(columns.map((column) => c.bold(column.label))), kept.map(({ width }) => c.dim('─'.repeat(width))).join('  ')];
  let at = 0;
  for (const day of days) {
    lines.push(c.bold(truncateEnd(dayLine(day), options.columns)));
    for (const _ of day.maturities) lines.push(row(cells[at++]!));
  }
  return { text: lines.join('\n'), dropped: fitted.dropped };
}
