// `hedge report --html FILE`: one self-contained page, nothing fetched, printable on A4. Every
// outside string passes safeText and is HTML-escaped; only this module's own markup is raw.
import { cents, payWords } from '../../core/money.js';
import { formatFixed, formatMoney, formatRate, formatSignedMoney, plural } from '../../core/number-format.js';
import type { HistoryFacts } from '../../core/wire.js';
import { lockedCents, quoteOf, type CumulativeSeries, type Report, type ReportFigures } from './report-rules.js';
import { safeText } from '../../core/security/safe-text.js';
import { COLUMN_WORDS, GROUP_WORDS, periodText } from './report-view.js';
import { shortenMiddle, truncateEnd } from '../../platform/terminal/width.js';
import { utcClockMillis, utcDay, utcDayMinute, utcDaySecond, utcMinute as utcMinuteText } from '../../core/utc-text.js';

export interface ReportHtmlMeta {
  account: string;
  environment: 'live' | 'test';
  generatedAt: string;
  cumulative?: CumulativeSeries;
}

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };

/** Untrusted text → safe content or "-quoted attribute; `'/:(@` become numeric references so no `https://…`, `url(…)` or `@import` in the data reads as one. */
export function escapeHtml(value: string) {
  return safeText(value).replace(/[&<>"'/:(@]/g, (char) => HTML_ESCAPES[char] ?? `&#${char.charCodeAt(0)};`);
}

const DASH = '—';

const isNumber = (value: unknown): value is number => Number.isFinite(value);

// The class that closes a class attribute and titles the element's dash.
const UNKNOWN = `unknown" title="not given by the server">${DASH}`;

const pnlClass = (value: number) => (value > 0 ? 'pos' : value < 0 ? 'neg' : 'zero');

/** Number cells: money to the cent, a signed P&L to the cent, or a rate; a dash (titled) when not given. */
function cells(kind: 'money' | 'pnl' | 'rate', tag: string, ...values: Array<number | null | undefined>) {
  return values
    .map((value) => {
      const amount = cents(value ?? 0);
      const body = !isNumber(value)
        ? ` ${UNKNOWN}`
        : kind === 'rate'
          ? `">${formatRate(value)}`
          : kind === 'pnl'
            ? ` ${pnlClass(amount)}">${formatSignedMoney(amount)}`
            : `">${formatMoney(amount)}`;
      return `<${tag} class="num${body}</${tag}>`;
    })
    .join('');
}

const utcMinute = (iso: string, ms = Date.parse(iso)) => (isNumber(ms) ? `${utcMinuteText(ms)} UTC` : escapeHtml(iso));

export const CHART = { width: 720, height: 270, left: 78, right: 16, top: 16, bottom: 46 } as const;
const PLOT_WIDTH = CHART.width - CHART.left - CHART.right;
const PLOT_BOTTOM = CHART.height - CHART.bottom;
const PLOT_HEIGHT = PLOT_BOTTOM - CHART.top;

/** Round tick values (1, 2 or 5 × 10ⁿ apart) covering [min, max] and always 0. */
export function niceScale(min: number, max: number) {
  const low = Math.min(0, min);
  let high = Math.max(0, max);
  if (high === low) high = low + 1;
  const rough = (high - low) / 5;
  const magnitude = 10 ** Math.floor(Math.log10(rough));
  const step = ([1, 2, 5, 10].find((multiple) => multiple * magnitude >= rough) ?? 10) * magnitude;
  // The tolerance keeps float noise (0.3 / 0.1 = 2.9999999999999996) from adding a step.
  const first = Math.floor(low / step + 1e-9);
  const last = Math.ceil(high / step - 1e-9);
  const ticks = Array.from({ length: last - first + 1 }, (_, index) =>
    Number(((first + index) * step).toPrecision(12)),
  );
  return { low: ticks[0], high: ticks[ticks.length - 1], ticks, step };
}

type Scale = ReturnType<typeof niceScale>;

function tickLabel(value: number, step: number) {
  const decimals = step >= 1 ? 0 : Math.min(6, Math.ceil(-Math.log10(step)));
  return formatFixed(value, decimals);
}

export const fixed = (value: number) => value.toFixed(1);

/** The lowest and highest of finite values (a loop: a line may hold more points than a call takes arguments). */
function extent(values: Iterable<number>) {
  let [low, high] = [Infinity, -Infinity];
  for (const value of values) [low, high] = [Math.min(low, value), Math.max(high, value)];
  return [low, high] as const;
}

function yOf(scale: Scale, value: number) {
  return PLOT_BOTTOM - ((value - scale.low) / (scale.high - scale.low)) * PLOT_HEIGHT;
}

const across = (kind: string, y: string) =>
  `<line class="${kind}" x1="${CHART.left}" x2="${CHART.width - CHART.right}" y1="${y}" y2="${y}"/>`;

/** A P&L chart: its net P&L axis (a line per tick), the body, the title under it. */
function plot(label: string, scale: Scale, body: string, xTitle: string) {
  const titleY = fixed(CHART.top + PLOT_HEIGHT / 2);
  const lines = scale.ticks.map((tick) => {
    const y = fixed(yOf(scale, tick));
    return (
      across(tick === 0 ? 'zero-line' : 'grid', y) +
      `<text class="tick" x="${CHART.left - 6}" y="${y}" text-anchor="end" dominant-baseline="middle">${tickLabel(tick, scale.step)}</text>`
    );
  });
  return (
    svgOpen(label) +
    lines.join('') +
    `<text class="axis-title" x="14" y="${titleY}" text-anchor="middle" transform="rotate(-90 14 ${titleY})">Net P&amp;L (USD)</text>` +
    `<line class="axis" x1="${CHART.left}" x2="${CHART.left}" y1="${CHART.top}" y2="${PLOT_BOTTOM}"/>` +
    body +
    `<text class="axis-title" x="${CHART.left + PLOT_WIDTH / 2}" y="${CHART.height - 6}" text-anchor="middle">${xTitle}</text>` +
    '</svg>'
  );
}

/** The one SVG kit of both HTML reports: a chart's opening tag (titled for a screen reader) and a bar with its tooltip (markup: the caller escapes what came from outside). */
export function svgOpen(label: string, height: number = CHART.height, chart?: string) {
  return `<svg class="chart"${chart ? ` data-chart="${chart}"` : ''} viewBox="0 0 ${CHART.width} ${height}" role="img" aria-label="${escapeHtml(label)}"><title>${escapeHtml(label)}</title>`;
}

export function svgBar(kind: string, title: string, ...[x, y, width, height]: unknown[]) {
  return `<rect class="bar ${kind}" x="${x}" y="${y}" width="${width}" height="${height}"><title>${title}</title></rect>`;
}

/** The x-axis labels: the coarsest precision at which every tick reads differently. */
function timeTickLabels(ticksMs: readonly number[], spanMs: number) {
  for (const label of [...(spanMs >= 3 * 86_400_000 ? [utcDay] : []), utcDayMinute, utcDaySecond]) {
    const labels = ticksMs.map(label);
    if (new Set(labels).size === labels.length) return labels;
  }
  const finest = ticksMs.map(utcClockMillis);
  return finest.map((label, index) => (index > 0 && label === finest[index - 1] ? '' : label));
}

function cumulativeChart(report: Report, generatedAt: string, series?: CumulativeSeries) {
  const { length, timesMs, netUsd } = series ?? {
    length: report.cumulative.length,
    timesMs: report.cumulative.map((point) => Date.parse(point.at)),
    netUsd: report.cumulative.map((point) => point.net_pnl_usd),
  };
  if (length === 0) return '<p class="empty">No closed hedges with a close time in this period.</p>';
  const [first, last] = [timesMs[0], timesMs[length - 1]];
  // NaN (no bound) compares false and leaves the first close as the start.
  const since = Date.parse(report.since ?? '');
  let start = since <= first ? since : first;
  // The line runs on to the end of the period, but not past the moment the report was made (NaN: not known).
  let end = Math.max(last, Math.min(Date.parse(report.until ?? '') || last, Date.parse(generatedAt) || last));
  if (end === start) {
    start -= 43_200_000;
    end += 43_200_000;
  }
  const xOf = (ms: number) => fixed(CHART.left + ((ms - start) / (end - start)) * PLOT_WIDTH);
  const scale = niceScale(...extent(netUsd));
  const points = Array.from({ length }, (_, index) => [xOf(timesMs[index]), fixed(yOf(scale, netUsd[index]))]);

  // Realized P&L moves only at a close: a step line, flat between closes, from 0 at the start.
  const path = `M${xOf(start)} ${fixed(yOf(scale, 0))}${points.map(([x, y]) => ` H${x} V${y}`).join('')} H${xOf(end)}`;
  const timeTicks = [0, 1, 2, 3, 4].map((index) => start + ((end - start) * index) / 4);
  const tickLabels = timeTickLabels(timeTicks, end - start);
  const xLabels = timeTicks
    .map((ms, index) => {
      const x = xOf(ms);
      return (
        `<line class="tick-mark" x1="${x}" x2="${x}" y1="${PLOT_BOTTOM}" y2="${PLOT_BOTTOM + 4}"/>` +
        `<text class="tick" x="${x}" y="${PLOT_BOTTOM + 18}" text-anchor="${['start', 'middle', 'middle', 'middle', 'end'][index]}">${tickLabels[index]}</text>`
      );
    })
    .join('');
  const dots =
    length <= 60
      ? points
          .map(([x, y], index) => `<circle class="dot ${pnlClass(netUsd[index])}" cx="${x}" cy="${y}" r="2.5"/>`)
          .join('')
      : '';
  return plot(
    `Cumulative net P&L, ending at ${formatSignedMoney(netUsd[length - 1])} USD`,
    scale,
    `<path class="line" d="${path}"/>${dots}${xLabels}`,
    'Close time (UTC)',
  );
}

function compactMoney(value: number) {
  const size = Math.abs(value);
  const [unit, suffix] = size >= 1e6 ? [1e6, 'M'] : size >= 1e4 ? [1e3, 'k'] : [];
  return (value > 0 ? '+' : value < 0 ? '-' : '') + (unit ? (size / unit).toFixed(1) + suffix : formatMoney(size));
}

function groupChart(report: Report) {
  const groups = report.groups;
  if (!groups.length) return '<p class="empty">No closed hedges in this period.</p>';
  const showValues = groups.length <= 14;
  // Head-room (12%) for the value written past the end of the longest bar.
  const scale = niceScale(...extent(groups.map((group) => group.net_pnl_usd * (showValues ? 1.12 : 1))));
  const slot = PLOT_WIDTH / groups.length;
  const barWidth = Math.min(56, Math.max(1, slot * 0.7));
  const labels = groups.map((group) => safeText(group.label));
  const longest = extent(labels.map((label) => label.length))[1];
  // 6.2: a character's approximate width at the labels' size.
  const labelEvery = Math.max(1, Math.ceil(((longest * 6.2 + 10) * groups.length) / PLOT_WIDTH));
  const zeroY = yOf(scale, 0);

  const bars = groups
    .map(({ net_pnl_usd: value, count }, index) => {
      const center = CHART.left + slot * (index + 0.5);
      const y = yOf(scale, value);
      const top = Math.min(y, zeroY);
      const height = Math.max(value === 0 ? 0 : 1, Math.abs(zeroY - y));
      const tooltip = `${labels[index]}: ${formatSignedMoney(value)} USD, ${plural(count, 'hedge')}`;
      const text = (kind: string, y: string | number, body: string) =>
        `<text class="${kind}" x="${fixed(center)}" y="${y}" text-anchor="middle">${body}</text>`;
      return (
        svgBar(pnlClass(value), escapeHtml(tooltip), ...[center - barWidth / 2, top, barWidth, height].map(fixed)) +
        (showValues
          ? text(`value ${pnlClass(value)}`, fixed(value < 0 ? top + height + 12 : top - 4), compactMoney(value))
          : '') +
        (index % labelEvery ? '' : text('tick', PLOT_BOTTOM + 16, escapeHtml(labels[index])))
      );
    })
    .join('');
  const title = GROUP_WORDS[report.by].pageWords;
  return plot(
    `Net P&L by ${title}`,
    scale,
    bars + across('zero-line', fixed(zeroY)),
    escapeHtml(title.charAt(0).toUpperCase() + title.slice(1)),
  );
}

function figureText(value: number | null, signed = true) {
  if (value === null) return `<span class="${UNKNOWN}</span>`;
  return signed ? `<span class="${pnlClass(value)}">${formatSignedMoney(value)}</span>` : formatMoney(value);
}

function totalsSection(report: Report) {
  const { positions, net_pnl_usd: unrealized } = report.unrealized;
  const html = [
    // Each card: the report's field, then its label.
    ...'net_pnl_usd Net P&amp;L (USD)|gross_pnl_usd Gross P&amp;L (USD)|carry_pnl_usdc Carry (USDC)|fees_pnl_usdc Fees (USDC)|count Closed hedges|notional_usd Notional (USD)'
      .split('|')
      .map((card) => {
        const [field, label] = card.split(/ (.*)/);
        return [field, label, report.totals[field as keyof ReportFigures]] as const;
      }),
    ...report.locked.map(
      (sum) =>
        ['quote_amount_locked', `Locked (${escapeHtml(sum.quote_currency ?? 'quote currency')})`, sum.amount] as const,
    ),
  ].map(([field, label, value], index) => {
    // Carry and fees say in words who paid; notional and locked amounts are unsigned.
    const body =
      field === 'count'
        ? String(value)
        : figureText(value, field.includes('pnl')) +
          (value !== null && field.endsWith('usdc') ? ` <span class="words">${payWords(value, true)}</span>` : '');
    // `data-total` names the report's JSON field and `data-value` holds its number as the JSON has it (carry and fees from your side: - paid), so a script can read the figures back whatever the page shows.
    return `<div class="card ${index ? '' : 'headline'}"><div class="card-label">${label}</div><div class="card-value" data-total="${field}"${value === null ? '' : ` data-value="${value}"`}>${body}</div></div>`;
  });
  return `<section class="totals"><h2>Totals</h2><div class="cards">${html.join('')}</div><p class="unrealized">${
    positions === 0
      ? 'No open positions.'
      : `${plural(positions, 'open position')}: unrealized net P&amp;L ${figureText(unrealized)} USD (price plus carry, before the fee to close), not included above.`
  }</p></section>`;
}

function notes(report: Report) {
  const lines = [
    "P&amp;L and notional in USD; carry and fees in USDC, signed from your side (− you paid, + you earned): net P&amp;L = gross P&amp;L + carry + fees. Locked: notional × entry rate, in the market's quote currency. Sums are to the cent: every total is the sum of the rows above it.",
  ];
  for (const [count, without, where] of [
    [report.excluded, ' usable', 'left out of this report'],
    [report.undated, '', 'in the totals but not in the cumulative chart'],
  ] as const)
    if (count > 0)
      lines.push(
        `${plural(count, 'closed hedge')} without a${without} close time ${count === 1 ? 'is' : 'are'} ${where}.`,
      );
  for (const [key, count] of Object.entries(report.missing))
    if (count > 0)
      lines.push(
        `The ${escapeHtml(COLUMN_WORDS[key])} of ${plural(count, 'hedge')} is not given; sums cover the others (${DASH} where none is given).`,
      );
  return `<ul class="notes"><li>${lines.join('</li><li>')}</li></ul>`;
}

const pnlCells = (figures: ReportFigures, tag: string) =>
  cells('pnl', tag, figures.gross_pnl_usd, figures.carry_pnl_usdc, figures.fees_pnl_usdc, figures.net_pnl_usd);

function figuresRow(label: string, figures: ReportFigures, tag: string) {
  return `<tr><${tag} class="label">${label}</${tag}><${tag} class="num">${figures.count}</${tag}>${cells('money', tag, figures.notional_usd)}${pnlCells(figures, tag)}</tr>`;
}

function groupTable(report: Report) {
  const head = `<thead><tr><th>${GROUP_WORDS[report.by].pageTitle}</th><th class="num">Hedges</th><th class="num">Notional</th><th class="num">Gross P&amp;L</th><th class="num">Carry (USDC)</th><th class="num">Fees (USDC)</th><th class="num">Net P&amp;L</th></tr></thead>`;
  const rows = report.groups.map((group) => figuresRow(escapeHtml(group.label), group, 'td')).join('');
  return `<table class="figures">${head}<tbody>${rows}</tbody><tfoot>${figuresRow('Total', report.totals, 'th')}</tfoot></table>`;
}

/** One line, never broken: an id shortened in the middle (to 11), a reference cut past 16 characters (whole in the title); on paper, where no title shows, whole up to 32. */
function shortened(value: string | undefined, onScreen: (value: string) => string, onPaper?: string) {
  if (value === undefined) return DASH;
  const shown = onScreen(value);
  if (shown === value) return escapeHtml(value);
  const paper = onPaper !== undefined;
  return `<span${paper ? ' class="screen"' : ''} title="${escapeHtml(value)}">${escapeHtml(shown)}</span>${paper ? `<span class="paper">${escapeHtml(onPaper)}</span>` : ''}`;
}

/** A line per closed hedge, as a desk reconciles it with its own deal list. */
export function closedHedgeRow(record: HistoryFacts) {
  const { closedAt, clientReference: reference, market } = record;
  const locked = lockedCents(record);
  const currency = quoteOf(record);
  return (
    '<tr>' +
    // The date over the time: two parts, each whole, so that the numbers have the width.
    `<td class="time">${closedAt === undefined ? DASH : utcMinute(closedAt).replace(' UTC', '').replace(' ', '<br>')}</td>` +
    `<td class="id">${shortened(record.hedgeId, (id) => shortenMiddle(id, 11))}</td>` +
    `<td class="ref">${shortened(reference, (ref) => truncateEnd(ref, 16), reference && truncateEnd(reference, 32))}</td>` +
    `<td class="word">${shortened(market, String)}</td><td class="word">${shortened(record.side, String)}</td>` +
    `<td class="num">${isNumber(record.tenorDays) ? `${record.tenorDays}d` : DASH}</td>` +
    cells('rate', 'td', record.entryPrice, record.exitPrice) +
    cells('money', 'td', record.notionalUsd) +
    (locked === undefined
      ? cells('money', 'td', locked)
      : `<td class="num">${formatMoney(locked / 100)}${currency ? ` ${escapeHtml(currency)}` : ''}</td>`) +
    cells('pnl', 'td', record.grossPnlUsd, record.carryUsd, record.feesUsd, record.netPnlUsd) +
    '</tr>'
  );
}

const CLOSED_HEDGES_HEAD =
  '<thead><tr><th>Closed (UTC)</th><th>Hedge</th><th>Ref</th><th>Market</th><th>Side</th><th class="num">Tenor</th><th class="num">Entry rate</th><th class="num">Exit rate</th><th class="num">Notional (USD)</th><th class="num">Locked</th><th class="num">Gross P&amp;L</th><th class="num">Carry (USDC)</th><th class="num">Fees (USDC)</th><th class="num">Net P&amp;L</th></tr></thead>';

function closedHedgesFoot(report: Report) {
  const { totals, locked } = report;
  const one = locked.length === 1;
  const lockedTotal = locked
    .map(
      (sum) =>
        `${formatMoney(sum.amount)}${one && !sum.quote_currency ? '' : ` ${escapeHtml(sum.quote_currency ?? '')}`}`,
    )
    .join('<br>');
  return (
    `<tfoot><tr><th class="label" colspan="6">Total (${plural(totals.count, 'hedge')})</th><th></th><th></th>` +
    cells('money', 'th', totals.notional_usd) +
    `<th class="num"${one ? ' data-total="quote_amount_locked"' : ''}>${lockedTotal}</th>` +
    pnlCells(totals, 'th') +
    '</tr></tfoot>'
  );
}

// System fonts only: nothing is fetched, and a printed copy looks like the screen.
export const REPORT_STYLE = `
:root { --pos: #17663a; --neg: #b3261e; --ink: #1b1f24; --muted: #5b6470; --rule: #d7dce2; --soft: #f4f6f8; }
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body { margin: 0 auto; max-width: 960px; padding: 28px 32px 48px; color: var(--ink); background: #fff;
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
header { display: flex; justify-content: space-between; align-items: flex-start; gap: 16px; border-bottom: 2px solid var(--ink); padding-bottom: 12px; }
h1 { font-size: 24px; margin: 0 0 4px; }
h2 { font-size: 16px; margin: 28px 0 10px; }
.subtitle { color: var(--muted); margin: 0; }
.env { font-weight: 700; letter-spacing: 0.06em; padding: 4px 10px; border-radius: 4px; border: 2px solid; white-space: nowrap; }
.env.live { color: #fff; background: var(--neg); border-color: var(--neg); }
.env.test { color: var(--muted); border-color: var(--muted); }
dl.meta { display: grid; grid-template-columns: max-content 1fr; gap: 3px 16px; margin: 12px 0 0; }
dl.meta dt { color: var(--muted); }
dl.meta dd { margin: 0; overflow-wrap: anywhere; }
.cards { display: grid; grid-template-columns: repeat(3, 1fr); gap: 10px; }
.card { border: 1px solid var(--rule); border-radius: 6px; padding: 10px 12px; background: var(--soft); }
.card-label { color: var(--muted); font-size: 12px; }
.card-value { font-size: 18px; font-weight: 600; font-variant-numeric: tabular-nums; }
.card.headline .card-value { font-size: 22px; }
.unrealized { margin: 10px 0 0; }
.notes { color: var(--muted); font-size: 12px; margin: 10px 0 0; padding-left: 18px; }
.pos { color: var(--pos); }
.neg { color: var(--neg); }
.unknown { color: var(--muted); }
.words { font-size: 12px; font-weight: 400; color: var(--muted); }
.empty { color: var(--muted); font-style: italic; }
svg.chart { display: block; width: 100%; height: auto; border: 1px solid var(--rule); border-radius: 6px; }
svg.chart text { font-size: 11px; fill: var(--muted); font-family: inherit; }
svg.chart text.axis-title { font-size: 11px; fill: var(--ink); }
svg.chart text.value { font-size: 10px; font-weight: 600; }
svg.chart text.value.pos { fill: var(--pos); }
svg.chart text.value.neg { fill: var(--neg); }
svg.chart .grid { stroke: var(--rule); stroke-width: 1; }
svg.chart .zero-line { stroke: var(--ink); stroke-width: 1.5; }
svg.chart .axis, svg.chart .tick-mark { stroke: var(--muted); stroke-width: 1; }
svg.chart .line { fill: none; stroke: #1f4e99; stroke-width: 2; }
svg.chart .dot { fill: #1f4e99; }
svg.chart .bar.pos { fill: var(--pos); }
svg.chart .bar.neg { fill: var(--neg); }
table { width: 100%; border-collapse: collapse; font-variant-numeric: tabular-nums; }
th, td { padding: 4px 6px; border-bottom: 1px solid var(--rule); text-align: left; vertical-align: top; }
thead th { border-bottom: 2px solid var(--ink); font-size: 12px; color: var(--muted); font-weight: 600; }
tfoot th { border-top: 2px solid var(--ink); border-bottom: none; }
.num { text-align: right; white-space: nowrap; }
table.hedges { font-size: 11px; }
table.figures { margin-top: 12px; }
table.hedges th, table.hedges td { padding: 4px 3px; }
@media screen and (max-width: 1040px) { body { padding: 20px 8px 40px; } }
table.hedges td.id, table.hedges td.ref, table.hedges td.word, table.hedges td.time { white-space: nowrap; }
table.hedges thead th.num { white-space: normal; }
table.hedges .paper { display: none; }
/* Landscape: the closed hedges' fourteen columns fit an A4 page across, none cut. */
@page { size: A4 landscape; margin: 14mm 12mm; }
@media print {
  body { max-width: none; padding: 0; font-size: 10pt; }
  h2 { margin: 16px 0 6px; break-after: avoid; page-break-after: avoid; }
  .card { padding: 6px 10px; }
  .card-value { font-size: 15px; }
  .card.headline .card-value { font-size: 18px; }
  svg.chart { width: 90%; margin: 0 auto; }
  table.hedges th, table.hedges td { padding: 2px 3px; }
  table.hedges .screen { display: none; }
  table.hedges .paper { display: inline; }
  .cards, svg.chart, tr, header { break-inside: avoid; page-break-inside: avoid; }
  thead { display: table-header-group; }
  tfoot { display: table-row-group; }
  table.hedges { font-size: 8pt; }
  * { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
}
`;

/** The page before the first and after the last of `count` closed-hedge rows, streamed in between. */
export function reportHtmlAround(report: Report, meta: ReportHtmlMeta, count: number) {
  const by = escapeHtml(GROUP_WORDS[report.by].pageWords);
  const live = meta.environment === 'live';
  const page = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(`P&L report, ${meta.account}`)}</title>
<style>${REPORT_STYLE}</style>
</head>
<body>
<header><div>
<h1>P&amp;L report</h1>
<p class="subtitle">Closed hedges by ${by}</p>
<dl class="meta">
<dt>Account</dt><dd>${escapeHtml(meta.account)}</dd>
<dt>Environment</dt><dd>${live ? 'live (production, real funds)' : 'test (sandbox, test funds)'}</dd>
<dt>Period (close time)</dt><dd>${periodText(report)}</dd>
<dt>Generated</dt><dd>${utcMinute(meta.generatedAt)}</dd>
</dl>
</div>${live ? '<div class="env live" title="production: real funds">LIVE</div>' : '<div class="env test" title="sandbox: test funds">TEST</div>'}</header>
<main>
${totalsSection(report)}
${notes(report)}
<section><h2>Cumulative net P&amp;L</h2>
${cumulativeChart(report, meta.generatedAt, meta.cumulative)}
</section>
<section><h2>Net P&amp;L by ${by}</h2>
${groupChart(report)}
${groupTable(report)}
</section>
<section><h2>Closed hedges (${count})</h2>
${count === 0 ? '<p class="empty">No closed hedges in this period.</p>' : `<table class="hedges">${CLOSED_HEDGES_HEAD}<tbody>${ROWS}</tbody>${closedHedgesFoot(report)}</table>`}
</section>
</main>
</body>
</html>
`;
  const [before, after = ''] = page.split(ROWS);
  return [before, after];
}

const ROWS = '\u0000rows\u0000';
