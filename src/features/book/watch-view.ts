// The live view of `--watch`: one screen redrawn in place, marking changes and drawing sparklines.
// `renderWatchScreen` is pure, for tests; `openLiveView` owns the terminal.
import type { ChalkInstance } from 'chalk';
import { formatSignedMoney } from '../../core/number-format.js';
import type { Alert } from '../../core/alerts.js';
import { safeStyled, safeText } from '../../core/security/safe-text.js';
import type { FieldKind } from '../../platform/fields/fields.js';
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
import type { JsonObject } from '../../core/objects.js';

interface WatchField {
  key: string;
  label: string;
  kind?: FieldKind;
}

interface WatchRow {
  key: string;
  values: JsonObject;
  maturityAt?: string;
}

/** The key of the countdown column, and of the sparkline column, in a model's priority list. */
export const COUNTDOWN_KEY = 'matures_in';
export const TREND_KEY = 'trend';

export interface WatchModel {
  title: string;
  layout: 'table' | 'card';
  fields: WatchField[];
  priority: readonly string[];
  decisive?: number;
  rows: WatchRow[];
  empty: string;
  countdown?: { label: string };
  trend?: { label: string; field: WatchField };
  total?: { label: string; value: number | undefined };
}

/** How a value is shown to people (Output.humanValue): the view formats nothing itself but time. */
type FormatValue = (field: { key: string; kind?: FieldKind }, value: unknown) => string;

/** Everything on screen, as the flow last said it. */
interface WatchState {
  model?: WatchModel;
  intervalMs: number;
  lastGoodAt?: number;
  /** The server's clock less ours at the last good refresh: countdowns to its maturities run on its clock. */
  offsetMs?: number;
  stale?: { since: number; reason: string; nextAt: number };
  alerts: Array<{ alert: Alert; at: number }>;
  series: Map<string, number[]>;
  previous: Map<string, JsonObject>;
}

interface RenderOptions {
  columns: number;
  chalk: ChalkInstance;
  now: number;
  format: FormatValue;
  clockTime: (ms: number) => string;
}

const TOTAL_SERIES = '\u0000total';
const SERIES_LIMIT = 600;
const TREND_MIN_WIDTH = 8;
const TREND_MAX_WIDTH = 24;
const GAP = 2;

export function emptyWatchState(intervalMs: number): WatchState {
  return { intervalMs, alerts: [], series: new Map(), previous: new Map() };
}

function pushPoint(series: Map<string, number[]>, key: string, value: number | undefined) {
  if (value === undefined || !Number.isFinite(value)) return;
  const points = series.get(key) ?? [];
  points.push(value);
  if (points.length > SERIES_LIMIT) points.splice(0, points.length - SERIES_LIMIT);
  series.set(key, points);
}

function shownNumber(format: FormatValue, field: WatchField, value: unknown) {
  if (typeof value !== 'number' || !Number.isFinite(value)) return;
  const text = stripVTControlCharacters(format(field, value)).replace(/[^0-9.+-]/g, '');
  const shown = Number(text);
  return text !== '' && Number.isFinite(shown) ? shown : value;
}

/** A refresh that succeeded; sparkline points are values as shown, so the line moves only when the screen does. */
export function applyFresh(state: WatchState, model: WatchModel, at: number, format: FormatValue, offsetMs = 0) {
  state.previous = new Map((state.model?.rows ?? []).map((row) => [row.key, row.values]));
  const trend = model.trend?.field;
  if (trend)
    for (const row of model.rows) pushPoint(state.series, row.key, shownNumber(format, trend, row.values[trend.key]));
  if (model.total) pushPoint(state.series, TOTAL_SERIES, model.total.value);
  state.model = model;
  state.lastGoodAt = at;
  state.offsetMs = offsetMs;
  state.stale = undefined;
}

/** The time of day in `timeZone` (an IANA name such as the environment's TZ), else the local one. */
export function clockTimeIn(timeZone?: string) {
  const inZone = (zone?: string) =>
    new Intl.DateTimeFormat('en-GB', {
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
      timeZone: zone,
    });
  let format: Intl.DateTimeFormat;
  try {
    format = inZone(timeZone);
  } catch {
    // A zone Intl does not know: the local one.
    format = inZone();
  }
  return (ms: number) => format.format(ms);
}

/** Time left to a maturity, to the second: "2d 03:04:05", "00:59:59", or "matured". */
export function formatCountdown(ms: number) {
  if (ms <= 0) return 'matured';
  const total = Math.floor(ms / 1000);
  const days = Math.floor(total / 86_400);
  const two = (value: number) => String(value).padStart(2, '0');
  const clock = `${two(Math.floor((total % 86_400) / 3600))}:${two(Math.floor((total % 3600) / 60))}:${two(total % 60)}`;
  return days > 0 ? `${days}d ${clock}` : clock;
}

function everyText(intervalMs: number) {
  return `every ${Number((intervalMs / 1000).toFixed(3))}s`;
}

/** One line about an alert, for the screen and for stderr. Server text is made harmless. */
export function describeAlert(alert: Alert, now: number) {
  if (alert.kind === 'pnl')
    return `net P&L ${formatSignedMoney(alert.netPnlUsd)} USD is at or below ${formatSignedMoney(alert.thresholdUsd)} USD`;
  const what = [alert.market, alert.side].filter((part) => part !== undefined).join(' ') || 'a hedge';
  const id = alert.hedgeId !== undefined ? ` (${alert.hedgeId})` : '';
  const left = Date.parse(alert.maturityAt) - now;
  const when = left > 0 ? `matures in ${formatCountdown(left)}` : 'has reached maturity';
  return safeText(`${what}${id} ${when} (--alert-maturity ${alert.within})`);
}

/** The whole screen as lines of at most `columns` columns. */
export function renderWatchScreen(state: WatchState, options: RenderOptions) {
  const { chalk: c, columns, now, clockTime } = options;
  const model = state.model;
  const onServer = { ...options, now: now + (state.offsetMs ?? 0) };
  // Wrapped between its parts, never cut: the time of the last good refresh is what tells the view is live.
  const lines = wrapParts(
    [
      c.bold(model?.title ?? 'Watching'),
      everyText(state.intervalMs),
      `last good refresh ${state.lastGoodAt === undefined ? '—' : clockTime(state.lastGoodAt)}`,
      ...(c.level === 0 ? ['* changed'] : []),
      'Ctrl-C to stop',
    ],
    columns,
    c.dim(' · '),
  );
  if (model === undefined) lines.push(c.dim('Waiting for the first refresh…'));
  else if (model.layout === 'card') lines.push(...renderCard(state, model, onServer));
  else lines.push(...renderTable(state, model, onServer));
  if (model?.total) {
    const value = model.total.value;
    const shown = value === undefined ? c.dim('—') : options.format({ key: 'total', kind: 'pnl' }, value);
    const points = state.series.get(TOTAL_SERIES) ?? [];
    const room = Math.max(0, columns - displayWidth(`${model.total.label}  ${shown}  `));
    const line = `${c.bold(model.total.label)}  ${shown}${points.length && room >= 4 ? `  ${c.cyan(sparkline(points, Math.min(room, TREND_MAX_WIDTH * 2)))}` : ''}`;
    lines.push(line);
  }
  // What a person acts on (a stale view, an alert) wraps at its spaces rather than being cut.
  const said = (line: string) => lines.push(...wrapParts([line], columns, '', 2));
  const { stale } = state;
  if (stale)
    said(
      `${c.yellow.bold('STALE')} since ${clockTime(stale.since)} (${safeText(stale.reason)}) · next try in ${Math.max(0, Math.ceil((stale.nextAt - now) / 1000))}s`,
    );
  for (const { alert, at } of state.alerts)
    said(`${c.red.bold('ALERT')} ${clockTime(at)} ${describeAlert(alert, onServer.now)}`);
  return lines.map((line) => truncateEnd(line, columns));
}

/** A value as shown, marked when both the data and what is shown changed since the refresh before. */
function shownValue(state: WatchState, row: WatchRow, field: WatchField, options: RenderOptions) {
  const c = options.chalk;
  const value = row.values[field.key];
  const text = options.format(field, value);
  const before = state.previous.get(row.key);
  const changed =
    before !== undefined &&
    JSON.stringify(before[field.key]) !== JSON.stringify(value) &&
    options.format(field, before[field.key]) !== text;
  if (c.level === 0) return `${text}${changed ? '*' : ' '}`;
  return changed ? c.inverse(text) : text;
}

function renderTable(state: WatchState, model: WatchModel, options: RenderOptions) {
  const c = options.chalk;
  if (!model.rows.length) return [c.dim(model.empty)];
  const columns: TableColumn[] = model.fields.map((field) => ({
    key: field.key,
    header: field.label,
    // As the lists: text (a reference) may be cut with …, an id in the middle, an amount is kept before an id whole.
    ...kindColumn(field.kind),
    cells: model.rows.map((row) => tableCell(shownValue(state, row, field, options))),
  }));
  if (model.countdown) {
    columns.push({
      key: COUNTDOWN_KEY,
      header: model.countdown.label,
      align: 'right',
      cells: model.rows.map((row) =>
        tableCell(
          row.maturityAt === undefined ? c.dim('—') : formatCountdown(Date.parse(row.maturityAt) - options.now),
        ),
      ),
    });
  }
  if (model.trend) {
    const longest = Math.max(0, ...model.rows.map((row) => state.series.get(row.key)?.length ?? 0));
    columns.push({
      key: TREND_KEY,
      header: model.trend.label,
      align: 'left',
      cells: [],
      drawn: {
        width: Math.min(TREND_MAX_WIDTH, Math.max(TREND_MIN_WIDTH, longest)),
        minWidth: TREND_MIN_WIDTH,
        draw: (index, width) => c.cyan(sparkline(state.series.get(model.rows[index].key) ?? [], width)),
      },
    });
  }
  const { text, leftOut } = drawLoadedTable({
    columns,
    priority: model.priority,
    decisive: model.decisive,
    rowCount: model.rows.length,
    width: options.columns,
    chalk: c,
    seeAlso: '--json, or a wider terminal',
  });
  const lines = text.split('\n');
  // What the width left out is named on the screen itself, wrapped, never cut.
  if (leftOut !== undefined) lines.push(...wrapWords(c.dim(leftOut), options.columns).split('\n'));
  return lines;
}

function renderCard(state: WatchState, model: WatchModel, options: RenderOptions) {
  const c = options.chalk;
  const row = model.rows[0];
  if (row === undefined) return [c.dim(model.empty)];
  const entries: Array<[string, string]> = model.fields
    .filter((field) => row.values[field.key] !== undefined)
    .map((field) => [field.label, shownValue(state, row, field, options)]);
  if (model.countdown && row.maturityAt !== undefined)
    entries.push([model.countdown.label, formatCountdown(Date.parse(row.maturityAt) - options.now)]);
  const labelWidth = Math.max(
    0,
    ...entries.map(([label]) => displayWidth(label)),
    model.trend ? displayWidth(model.trend.label) : 0,
  );
  const valueWidth = Math.max(1, options.columns - labelWidth - GAP);
  const points = state.series.get(row.key) ?? [];
  if (model.trend && points.length)
    entries.push([model.trend.label, c.cyan(sparkline(points, Math.min(valueWidth, TREND_MAX_WIDTH * 2)))]);
  return entries.map(
    ([label, value]) => `${c.dim(label.padEnd(labelWidth))}${' '.repeat(GAP)}${truncateEnd(value, valueWidth)}`,
  );
}

interface LiveViewInit extends Pick<RenderOptions, 'chalk' | 'format' | 'clockTime'> {
  stream: NodeJS.WritableStream;
  intervalMs: number;
  now: () => number;
  columns: () => number;
}

/** Starts drawing on the terminal, redrawn on resize. */
export async function openLiveView(init: LiveViewInit) {
  await loadTableDrawer();
  const state = emptyWatchState(init.intervalMs);
  // Values were filtered cell by cell; this keeps our colours and shows anything else escaped.
  // Hides the cursor while it draws, and shows it again at the end (whatever way the process ends).
  const { render, close } = await liveScreen(init.stream, init.columns, () =>
    safeStyled(renderWatchScreen(state, { ...init, columns: init.columns(), now: init.now() }).join('\n')),
  );
  return {
    fresh(model: WatchModel, at: number, offsetMs: number) {
      applyFresh(state, model, at, init.format, offsetMs);
      render();
    },
    stale(at: number, reason: string, nextAt: number) {
      state.stale = { since: state.stale?.since ?? at, reason, nextAt };
      render();
    },
    /** Alerts whose condition holds now (shown until they clear); `ring` rings the bell. */
    alerts(holding: WatchState['alerts'], ring: boolean) {
      state.alerts = holding;
      render();
      if (ring) init.stream.write('\u0007');
    },
    /** Redraws (the countdown and "next try in" move with the clock). */
    render,
    /** Leaves one last screen in place, drawn whole, shows the cursor again and stops listening for resizes. */
    close,
  };
}
