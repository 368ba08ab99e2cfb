// The live view of `--watch`: one screen redrawn in place from each refresh's model (watch-model.ts),
// marking changes and drawing sparklines. `renderWatchScreen` is pure, for tests; `openLiveView` owns the terminal.
import type { ChalkInstance } from 'chalk';
import { formatSignedMoney } from '../../core/number-format.js';
import type { Alert } from '../../core/alerts.js';
import { safeStyled, safeText } from '../../core/security/safe-text.js';
import type { WatchSink } from './watch.js';
import { COUNTDOWN_KEY, TREND_KEY, type WatchField, type WatchModel, type WatchRow } from './watch-model.js';
import { settlingLines } from './positions-view.js';
import type { CommandContext } from '../../platform/runtime/context.js';
import { describeError } from '../../platform/terminal/exit-codes.js';
import { terminalColumns } from '../../platform/terminal/terminal.js';
import { formatTimeLeft } from '../../platform/terminal/format.js';
import {
  drawLoadedTable,
  kindColumn,
  loadTableDrawer,
  tableCell,
  type TableColumn,
} from '../../platform/terminal/table.js';
import { sparkline } from '../../platform/results/text-charts.js';
import { stripVTControlCharacters } from 'node:util';
import { liveScreen } from '../../platform/terminal/live-screen.js';
import { displayWidth, truncateEnd, wrapParts, wrapWords } from '../../platform/terminal/width.js';
import { formatSpan } from '../../core/duration.js';

/** Everything on screen, as the flow last said it. */
interface WatchState {
  model?: WatchModel;
  intervalMs: number;
  lastGoodAt?: number;
  /** The server's clock less ours at the last good refresh: countdowns to its maturities run on its clock. */
  offsetMs?: number;
  stale?: { since: number; reason: string; nextAt: number };
  alerts: Array<{ alert: Alert; at: number }>;
  /** Each row's trend points (the last 600). */
  series: Map<string, number[]>;
  /** The model of the refresh before, whose values a change is marked against. */
  previous?: WatchModel;
}

interface RenderOptions {
  columns: number;
  chalk: ChalkInstance;
  now: number;
  /** How a value is shown to people: the view formats nothing itself but time. */
  format: CommandContext['output']['humanValue'];
  clockTime: (ms: number) => string;
}

const TOTAL_SERIES = '\u0000total';
const TREND_MIN_WIDTH = 8;
const TREND_MAX_WIDTH = 24;

export function emptyWatchState(intervalMs: number): WatchState {
  return { intervalMs, alerts: [], series: new Map() };
}

/** A refresh that succeeded; sparkline points are values as shown, so the line moves only when the screen does. */
export function applyFresh(
  state: WatchState,
  model: WatchModel,
  at: number,
  format: RenderOptions['format'],
  offsetMs = 0,
) {
  const push = (key: string, value: unknown) =>
    Number.isFinite(value) && state.series.set(key, [...(state.series.get(key) ?? []), value as number].slice(-600));
  const trend = model.fields.find((field) => field.key === model.trend?.key);
  for (const { key, values } of trend ? model.rows : []) {
    const value = values[trend!.key];
    const shown = Number(stripVTControlCharacters(format(trend!, value)).replace(/[^0-9.+-]/g, '') || NaN);
    push(key, Number.isFinite(value) && Number.isFinite(shown) ? shown : value);
  }
  if (model.total) push(TOTAL_SERIES, model.total.value);
  Object.assign(state, { previous: state.model, model, lastGoodAt: at, offsetMs, stale: undefined });
}

/** The time of day in `timeZone` (an IANA name such as the environment's TZ), else the local one. */
export function clockTimeIn(timeZone?: string) {
  // en-GB's medium time: HH:MM:SS on a 24-hour clock.
  const inZone = (zone?: string) => new Intl.DateTimeFormat('en-GB', { timeStyle: 'medium', timeZone: zone }).format;
  try {
    return inZone(timeZone);
  } catch {
    // A zone Intl does not know: the local one.
    return inZone();
  }
}

/** Time left to a maturity, to the second: "2d 03:04:05", "00:59:59", or "matured". */
export function formatCountdown(ms: number) {
  if (ms <= 0) return 'matured';
  const total = Math.floor(ms / 1000);
  const days = Math.floor(total / 86_400);
  // Hours of the day, minutes of the hour, seconds of the minute.
  const clock = [3600, 60, 1]
    .map((unit) => String(Math.floor(total / unit) % (unit === 3600 ? 24 : 60)).padStart(2, '0'))
    .join(':');
  return days > 0 ? `${days}d ${clock}` : clock;
}

/** One line about an alert, for the screen and for stderr. Server text is made harmless. */
export function describeAlert(alert: Alert, now: number) {
  if (alert.kind === 'pnl')
    return `net P&L ${formatSignedMoney(alert.netPnlUsd)} USD is at or below ${formatSignedMoney(alert.thresholdUsd)} USD`;
  const what = [alert.market, alert.side].filter((part) => part !== undefined).join(' ') || 'a hedge';
  const left = Date.parse(alert.maturityAt) - now;
  return safeText(
    `${what}${alert.hedgeId === undefined ? '' : ` (${alert.hedgeId})`} ${left > 0 ? `matures in ${formatSpan(left)}` : 'has reached maturity'} (--alert-maturity ${alert.within})`,
  );
}

/** How a refresh's values are shown: marked where they changed since the refresh before, counted down on the server's
 * clock, a trend drawn as a sparkline. */
function screenOf(state: WatchState, options: RenderOptions) {
  const { chalk: c, now, format } = options;
  // Maturities are counted down on the server's clock.
  const serverNow = now + (state.offsetMs ?? 0);
  /** Whether what a row shows of a field changed since the refresh before (data moving below the shown precision is no change). */
  const changed = (row: WatchRow, field: WatchField) => {
    const before = state.previous?.rows.findLast((other) => other.key === row.key)?.values;
    return before !== undefined && format(field, before[field.key]) !== format(field, row.values[field.key]);
  };
  return {
    ...options,
    state,
    serverNow,
    changed,
    /** A value as shown, marked when it changed since the refresh before: inverse, or without colour a `*` after it
     * (the column's other values then padded by a space, so that they stay aligned: `marked`, whether any of them
     * changed). */
    shown: (row: WatchRow, field: WatchField, marked = true) => {
      const text = format(field, row.values[field.key]);
      if (c.level === 0) return marked ? `${text}${changed(row, field) ? '*' : ' '}` : text;
      return changed(row, field) ? c.inverse(text) : text;
    },
    countdownOf: (row: WatchRow) => {
      // A maturity the server wrote unreadably has no countdown (a dash), never NaN:NaN:NaN.
      const left = Date.parse(row.maturityAt ?? '') - serverNow;
      return Number.isNaN(left) ? undefined : formatCountdown(left);
    },
    trendLine: (points: number[], width: number) => c.cyan(sparkline(points, Math.min(width, TREND_MAX_WIDTH * 2))),
  };
}

type Screen = ReturnType<typeof screenOf>;

/** A list's rows as a table that fits `columns`, what it leaves out named under it. */
function watchTable(
  { rows, countdown, trend, fields, priority = [], decisive }: WatchModel,
  { chalk: c, columns, state, changed, shown, countdownOf, serverNow }: Screen,
) {
  const series = (index: number) => state.series.get(rows[index].key) ?? [];
  const tableColumns: TableColumn[] = fields.map((field) => {
    // A column none of whose values changed takes no room for a mark.
    const marked = rows.some((row) => changed(row, field));
    return {
      key: field.key,
      header: field.label,
      // As the lists: text (a reference) may be cut with …, an id in the middle, an amount is kept before an id whole.
      ...kindColumn(field.kind),
      cells: rows.map((row) => tableCell(shown(row, field, marked))),
    };
  });
  if (countdown)
    tableColumns.push({
      key: COUNTDOWN_KEY,
      header: countdown,
      align: 'right',
      cells: rows.map((row) => tableCell(countdownOf(row) ?? c.dim('—'))),
      // A narrow screen: to the hour, as the positions list counts it ("6d 23h"), before the column is left out.
      compact: rows.map((row) => tableCell(formatTimeLeft(row.maturityAt ?? '', serverNow) || c.dim('—'))),
    });
  if (trend)
    tableColumns.push({
      key: TREND_KEY,
      header: trend.label,
      align: 'left',
      cells: [],
      drawn: {
        width: Math.min(TREND_MAX_WIDTH, Math.max(TREND_MIN_WIDTH, ...rows.map((_, index) => series(index).length))),
        minWidth: TREND_MIN_WIDTH,
        draw: (index, width) => c.cyan(sparkline(series(index), width)),
      },
    });
  const { text, leftOut } = drawLoadedTable({
    columns: tableColumns,
    priority,
    decisive,
    rowCount: rows.length,
    width: columns,
    chalk: c,
    seeAlso: '--json, or a wider terminal',
    // Under a settling side, why, as the positions list marks it.
    sections: rows.flatMap((row, index) =>
      row.settling === undefined
        ? []
        : settlingLines(row.settling, columns, c, '  ').map((line) => ({ before: index + 1, line })),
    ),
  });
  // What the width left out is named on the screen itself, wrapped, never cut.
  return (leftOut === undefined ? text : `${text}\n${wrapWords(c.dim(leftOut), columns)}`).split('\n');
}

/** One thing's fields as a card of labels and values. */
function watchCard(
  { rows: [row], fields, countdown, trend }: WatchModel,
  { chalk: c, columns, state, shown, countdownOf, trendLine }: Screen,
) {
  const left = countdownOf(row);
  const entries = fields
    .filter((field) => row.values[field.key] !== undefined)
    .map((field) => [field.label, shown(row, field)]);
  if (countdown && left !== undefined) entries.push([countdown, left]);
  const labelWidth = Math.max(0, ...[...entries.map(([label]) => label), trend?.label ?? ''].map(displayWidth));
  // Two spaces between a label and its value.
  const valueWidth = Math.max(1, columns - labelWidth - 2);
  const points = state.series.get(row.key) ?? [];
  if (trend && points.length) entries.push([trend.label, trendLine(points, valueWidth)]);
  return entries.map(([label, value]) => `${c.dim(label.padEnd(labelWidth))}  ${truncateEnd(value, valueWidth)}`);
}

/** The whole screen as lines of at most `columns` columns. */
export function renderWatchScreen(state: WatchState, options: RenderOptions) {
  const { chalk: c, columns, now, clockTime, format } = options;
  const { model, stale } = state;
  const screen = screenOf(state, options);
  // Wrapped between its parts, never cut: the time of the last good refresh is what tells the view is live.
  const lines = wrapParts(
    [
      c.bold(model?.title ?? 'Watching'),
      `every ${formatSpan(state.intervalMs)}`,
      `last good refresh ${state.lastGoodAt === undefined ? '—' : clockTime(state.lastGoodAt)}`,
      ...(c.level === 0 ? ['* changed'] : []),
      'Ctrl-C to stop',
    ],
    columns,
    c.dim(' · '),
  );
  lines.push(
    ...(model === undefined
      ? [c.dim('Waiting for the first refresh…')]
      : model.rows.length
        ? (model.layout === 'card' ? watchCard : watchTable)(model, screen)
        : [c.dim(model.empty)]),
  );
  // Marked under what it is about: neither open nor ended, so neither counted down nor final.
  if (model?.settling !== undefined) lines.push(...settlingLines(model.settling, columns, c));
  if (model?.total) {
    const { label, value } = model.total;
    const shown = value === undefined ? c.dim('—') : format({ key: 'total', kind: 'pnl' }, value);
    const points = state.series.get(TOTAL_SERIES) ?? [];
    const room = columns - displayWidth(`${label}  ${shown}  `);
    lines.push(`${c.bold(label)}  ${shown}${points.length && room >= 4 ? `  ${screen.trendLine(points, room)}` : ''}`);
  }
  // What a person acts on (a stale view, an alert) wraps at its spaces rather than being cut.
  const said = (line: string) => lines.push(...wrapParts([line], columns, '', 2));
  if (stale)
    said(
      `${c.yellow.bold('STALE')} since ${clockTime(stale.since)} (${safeText(stale.reason)}) · next try in ${formatSpan(Math.max(0, stale.nextAt - now))}`,
    );
  for (const { alert, at } of state.alerts)
    said(`${c.red.bold('ALERT')} ${clockTime(at)} ${describeAlert(alert, screen.serverNow)}`);
  return lines.map((line) => truncateEnd(line, columns));
}

/** The watch's sink on a terminal: starts drawing, redrawn on resize, and left usable whatever way the command ends (cursor shown, screen kept). */
export async function openLiveView(
  ctx: Pick<CommandContext, 'io' | 'output' | 'clock' | 'env' | 'onDispose'>,
  intervalMs: number,
): Promise<WatchSink> {
  const { io, output } = ctx;
  await loadTableDrawer();
  const state = emptyWatchState(intervalMs);
  const options = {
    chalk: output.chalk,
    format: output.humanValue.bind(output),
    // The environment's TZ as the command was given it (the process's own zone otherwise).
    clockTime: clockTimeIn(ctx.env.TZ),
  };
  const columns = () => terminalColumns(io.stdout, io.stdoutIsTTY, ctx.env);
  // Values were filtered cell by cell; this keeps our colours and shows anything else escaped.
  // Hides the cursor while it draws, and shows it again at the end (whatever way the process ends).
  const { render, close } = await liveScreen(io.stdout, columns, () =>
    safeStyled(renderWatchScreen(state, { ...options, columns: columns(), now: ctx.clock.now() }).join('\n')),
  );
  ctx.onDispose(close);
  return {
    fresh(snapshot, at, offsetMs) {
      applyFresh(state, snapshot.view, at, options.format, offsetMs);
      render();
    },
    stale(error, at, nextAt) {
      const { code, message } = describeError(error);
      state.stale = { since: state.stale?.since ?? at, reason: `${code}: ${message}`, nextAt };
      render();
    },
    // Alerts whose condition holds now are shown until they clear; a new one rings the bell.
    alerts(fired, holding) {
      state.alerts = holding;
      render();
      if (fired.length) io.stdout.write('\u0007');
    },
    // The countdown and "next try in" move with the clock.
    tick: render,
    // Leaves one last screen in place, drawn whole, shows the cursor again and stops listening for resizes.
    close,
  };
}
