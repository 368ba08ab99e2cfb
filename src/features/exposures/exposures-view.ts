// How `hedge exposures FILE` reads: one table per section on a terminal, one JSON document, or one
// section's rows (--show, default the book) in TSV, CSV and NDJSON; with --report the same for
// coverage, cost to date and effectiveness, and a self-contained HTML file with two charts and the
// tables (--html). Renders only.
import { describePolicy } from './exposure-policy.js';
import { EFFECTIVE_BAND_PCT, sum } from './exposures-rules.js';
import type { ExposureReportView, ExposuresView } from './exposures.js';
import { fieldTable, type FieldSpec } from '../../platform/fields/fields.js';
import { formatFixed, formatSignedMoney, formatUpTo } from '../../core/number-format.js';
import { payOrEarn, toCents } from '../../core/money.js';
import type { Output } from '../../platform/terminal/output.js';
import { CHART, escapeHtml, fixed, svgBar, svgOpen } from '../report/report-html.js';
import { utcMinute } from '../../core/utc-text.js';
import type { JsonObject } from '../../core/objects.js';

/** A section: its title, what it says when empty, its fields as fieldTable's lines, and the order a narrow table keeps them in (theirs when not given). */
const section = (
  title: string,
  empty: string,
  table: string,
  priority?: string,
  extra?: Record<string, Partial<FieldSpec>>,
) => {
  const fields = fieldTable(table, extra);
  return { title, empty, fields, priority: priority?.split(' ') ?? fields.map((field) => field.key) };
};
const WRAP = { wrap: true };

/** `hedge exposures FILE`: every section on a terminal and in JSON, one in the row formats (the book unless --show says). */
export const PLAN_VIEW = {
  // In the order --show lists them. Lists of ids and reasons wrap at their spaces in a narrow table, never cut inside an id or a word.
  sections: {
    book: section(
      'Target book now (hold each side within its band)',
      'Nothing to hold.',
      `
  market         Market
  side           Side       side
  target_usd     Target     money  USD
  band_low_usd   Band low   money  USD
  band_high_usd  Band high  money  USD
  tenor_days     Tenor      count  days
  until          Until      utc
  exposures      Covers     text`,
      'side target_usd market band_low_usd band_high_usd tenor_days until exposures',
      {
        exposures: { ...WRAP, get: (row) => (Array.isArray(row.exposures) ? row.exposures.join(' ') : row.exposures) },
      },
    ),
    exposures: section(
      'Exposures as the policy sees them now',
      'No exposures.',
      `
  id            ID        text
  market        Market
  type          Type
  amount        Amount    money
  currency      Ccy
  due           Due       utc
  days_to_due   Days      count
  bucket        Bucket
  ratio         Ratio     count
  cover_side    Cover     side
  exposure_usd  Exposure  money  USD
  hedge_usd     Hedge     money  USD
  sizing_price  Sized at  rate   rate`,
      'id cover_side hedge_usd due amount currency type bucket ratio exposure_usd market days_to_due sizing_price',
    ),
    schedule: section(
      "Schedule of changes (at today's price)",
      'No change ahead: every exposure is due.',
      `
  at          At      utc
  market      Market
  side        Side    side
  from_usd    From    money  USD
  to_usd      To      money  USD
  change_usd  Change  pnl    USD
  reason      Why     text`,
      'at side to_usd change_usd reason from_usd market',
      { reason: WRAP },
    ),
    cost: section(
      "Projected cost to each due date (today's carry and fees, rolls included)",
      'Nothing to hold, so no cost.',
      `
  due             Due       utc
  market          Market
  exposures       Due then  text
  carry_pnl_usdc  Carry     pnl    USDC
  fees_pnl_usdc   Fees      pnl    USDC
  rolls           Rolls     count
  cost_usdc       Cost      pnl    USDC`,
      'due cost_usdc exposures carry_pnl_usdc fees_pnl_usdc rolls market',
      { exposures: WRAP },
    ),
    stress: section(
      'Stress: the price moves now by …',
      'No price to stress.',
      `
  market               Market
  shock_pct            Shock %    count
  price                Price      rate   rate
  exposure_change_usd  Exposure   pnl    USD
  cover_pnl_usd        Cover P&L  pnl    USD
  net_usd              Net        pnl    USD`,
      'shock_pct net_usd exposure_change_usd cover_pnl_usd price market',
    ),
    policy: section(
      'Hedge ratio by time to due',
      'No ratio buckets.',
      `
    within_days  Within days  count
    ratio_pct    Ratio %      count`,
    ),
  } as Record<string, ReturnType<typeof section>>,
  all: ['exposures', 'book', 'schedule', 'cost', 'stress'],
  fallback: 'book',
  footer: 'Nothing was sent. Carry and fees from your side (- you pay); stress: + a gain, - a loss, in USD.',
};

/** A document (its head: the time, file, policy and prices; then its sections' rows)'s sections: JSON whole (or the member); a table per section on a terminal; one section's rows (asked, or the view's fallback) in TSV, CSV and NDJSON. */
export async function renderExposureSections(
  output: Output,
  document: ExposuresView | ExposureReportView,
  view: typeof PLAN_VIEW,
  section?: string,
) {
  // The policy section's rows are its ratio buckets; a section's title and empty text are its list's.
  const list = (shown: Output, name: string, more = {}) =>
    shown.list(
      (name === 'policy' ? document.policy.ratios : (document as JsonObject)[name]) as JsonObject[],
      view.sections[name],
      { ...view.sections[name], ...more },
    );
  output.tableNote(
    output.chalk.dim(`${document.source} as of ${utcMinute(document.as_of)} UTC: ${describePolicy(document.policy)}.`),
  );
  // A person reads every section; TSV and CSV one (asked, or the fallback); JSON the document (or the asked member).
  await (section !== undefined
    ? list(output, section, { json: (document as JsonObject)[section] })
    : list(output, view.fallback, {
        json: document,
        people: async (shown: Output) => {
          for (const name of view.all) await list(shown, name);
        },
      }));
  output.tableNote(output.chalk.dim(view.footer));
}

// ---- --report ------------------------------------------------------------------------------

const REPORT_SECTION_VIEWS = {
  coverage: section(
    'Coverage per week',
    'No week to show.',
    `
    week          Week of
    at            Taken      utc
    market        Market
    exposure_usd  Exposure   money  USD
    target_usd    Target     money  USD
    hedged_usd    Hedged     money  USD
    coverage_pct  Covered %  count`,
    'week coverage_pct hedged_usd exposure_usd target_usd market at',
  ),
  cost: section(
    'Cost to date (closed hedges, from history)',
    'No closed hedges.',
    `
    market          Market
    closed_hedges   Closed hedges  count
    carry_pnl_usdc  Carry          pnl    USDC
    fees_pnl_usdc   Fees           pnl    USDC
    cost_usdc       Cost           pnl    USDC`,
    'market cost_usdc carry_pnl_usdc fees_pnl_usdc closed_hedges',
  ),
  effectiveness: section(
    "Effectiveness: the dollar-offset ratio since the first cover; the verdict is ASC 815's 80–125% (under IFRS 9 the ratio is a diagnostic)",
    'No exposures.',
    `
    id                   ID           text
    market               Market
    cover_side           Cover        side
    first_cover_at       First cover  utc
    first_price          From         rate   rate
    price_to             To           rate   rate
    exposure_change_usd  Exposure     pnl    USD
    cover_pnl_usd        Cover P&L    pnl    USD
    offset_pct           Dollar offset %           count
    effective            Within 80–125% (ASC 815)`,
    'id offset_pct effective exposure_change_usd cover_pnl_usd cover_side first_price price_to first_cover_at market',
  ),
};

/** `hedge exposures FILE --report`: as PLAN_VIEW, coverage by default. */
export const REPORT_VIEW: typeof PLAN_VIEW = {
  sections: REPORT_SECTION_VIEWS,
  all: Object.keys(REPORT_SECTION_VIEWS),
  fallback: 'coverage',
  footer:
    "Exposure in USD at today's price; hedged: what the hedges held then, in the exposure's direction. Nothing was sent.",
};
// ---- the report's HTML ---------------------------------------------------------------------

const HEIGHT = 260;
const PAD = { left: 70, right: 16, top: 16, bottom: 40 };

function compact(value: number) {
  const abs = Math.abs(value);
  if (abs >= 1e6) return `${(value / 1e6).toFixed(1)}m`;
  if (abs >= 1e3) return `${(value / 1e3).toFixed(0)}k`;
  return value.toFixed(0);
}

/** Bars of exposure and hedged per week (one market at a time), the target as a line of dots. */
function coverageChart(view: ExposureReportView, market: string) {
  const weeks = view.coverage.filter((row) => row.market === market);
  if (!weeks.length) return '';
  const top = Math.max(1, ...weeks.flatMap((row) => [row.exposure_usd, row.hedged_usd, row.target_usd])) * 1.1;
  const plotH = HEIGHT - PAD.top - PAD.bottom;
  const slot = (CHART.width - PAD.left - PAD.right) / weeks.length;
  const bar = Math.max(2, Math.min(24, slot / 3));
  const y = (value: number) => PAD.top + plotH - (value / top) * plotH;
  let body = '';
  for (let tick = 0; tick <= 4; tick++) {
    const value = (top / 4) * tick;
    const at = fixed(y(value));
    body += `<line class="grid" x1="${PAD.left}" x2="${CHART.width - PAD.right}" y1="${at}" y2="${at}"/><text x="${PAD.left - 6}" y="${fixed(y(value) + 4)}" text-anchor="end">${compact(value)}</text>`;
  }
  weeks.forEach((row, index) => {
    const x = PAD.left + slot * index + slot / 2;
    const column = (kind: string, left: number, usd: number, more = '') =>
      svgBar(
        kind,
        `Week of ${row.week}: ${kind} ${formatFixed(usd, 0)} USD${more}`,
        ...[left, y(usd), bar, PAD.top + plotH - y(usd)].map(fixed),
      );
    body += column('exposure', x - bar, row.exposure_usd);
    body += column('hedged', x, row.hedged_usd, ` (${row.coverage_pct ?? '—'}%)`);
    body += `<circle class="target" cx="${fixed(x)}" cy="${fixed(y(row.target_usd))}" r="3"><title>Target ${formatFixed(row.target_usd, 0)} USD</title></circle>`;
    if (weeks.length <= 16 || index % Math.ceil(weeks.length / 16) === 0)
      body += `<text x="${fixed(x)}" y="${HEIGHT - PAD.bottom + 16}" text-anchor="middle">${row.week.slice(5)}</text>`;
  });
  const label = `Coverage per week, ${market}: exposure, hedged and target in USD`;
  return `${svgOpen(label, HEIGHT, 'coverage')}${body}<text class="axis-title" x="${PAD.left}" y="${HEIGHT - 6}">week of (UTC) — bars: exposure (grey), hedged (blue); dots: target</text></svg>`;
}

/** Each exposure's dollar-offset ratio as a bar, against the 80–125% band. */
function effectivenessChart(view: ExposureReportView) {
  const rows = view.effectiveness.filter((row) => row.offset_pct !== null);
  if (!rows.length) return '<p class="muted">No exposure has moved since its first cover yet: no ratio to chart.</p>';
  const rowH = 26;
  const height = PAD.top + rows.length * rowH + PAD.bottom;
  const max = Math.max(150, ...rows.map((row) => Math.min(300, Math.abs(row.offset_pct!))));
  const plotW = CHART.width - 120 - PAD.right;
  const x = (pct: number) => 120 + (Math.max(0, Math.min(max, pct)) / max) * plotW;
  const [from, to] = EFFECTIVE_BAND_PCT.map(x);
  let body = `<rect class="band" data-band="80-125" x="${fixed(from)}" y="${PAD.top - 4}" width="${fixed(to - from)}" height="${rows.length * rowH + 4}"><title>Effective: 80% to 125%</title></rect>`;
  for (const pct of [0, 80, 100, 125, max])
    body += `<text x="${fixed(x(pct))}" y="${height - PAD.bottom + 16}" text-anchor="middle">${Math.round(pct)}%</text>`;
  rows.forEach((row, index) => {
    const top = PAD.top + index * rowH;
    const pct = row.offset_pct!;
    const title = `${escapeHtml(row.id)}: dollar offset ${pct}%, ${row.effective ? 'within' : 'outside'} 80–125% (ASC 815)`;
    body += `<text x="112" y="${top + 15}" text-anchor="end">${escapeHtml(row.id)}</text>`;
    body += svgBar(row.effective ? 'in' : 'out', title, 120, top + 3, fixed(x(pct) - 120), rowH - 8);
  });
  const label = 'Dollar-offset ratio per exposure against the 80–125% band';
  return `${svgOpen(label, height, 'effectiveness')}${body}<text class="axis-title" x="120" y="${height - 6}">dollar offset: cover P&amp;L / exposure change (shaded: 80–125%, ASC 815)</text></svg>`;
}

/** A report section's table, whole: every row and column. */
function table(view: ExposureReportView, name: keyof typeof REPORT_SECTION_VIEWS) {
  const { fields } = REPORT_SECTION_VIEWS[name];
  const cell = (value: unknown, field: FieldSpec) => {
    if (value == null) return '<td class="muted">—</td>';
    if (typeof value === 'boolean') return `<td>${value ? 'yes' : '<strong>no</strong>'}</td>`;
    // Carry, fees and cost come on the account's side, signed as every screen shows them: -10.00 is paid.
    if (typeof value === 'number')
      return `<td class="num">${escapeHtml(field.unit === 'USDC' ? formatSignedMoney(value) : formatUpTo(value, 2))}</td>`;
    return `<td>${escapeHtml(field.kind === 'utc' && typeof value === 'string' ? utcMinute(value) : String(value))}</td>`;
  };
  const head = fields.map(
    ({ label, unit }) => `<th>${escapeHtml(label)}${unit && unit !== 'rate' ? ` (${escapeHtml(unit)})` : ''}</th>`,
  );
  const body = (view[name] as JsonObject[]).map(
    (row) => `<tr>${fields.map((field) => cell(row[field.key], field)).join('')}</tr>`,
  );
  return `<div class="scroll"><table><thead><tr>${head.join('')}</tr></thead><tbody>${body.join('\n')}</tbody></table></div>`;
}

const CSS = `
:root { --ink: #1b1f24; --muted: #5b6470; --rule: #d8dde3; --exposure: #9aa3ad; --hedged: #1f4e99; --in: #1a7f37; --out: #b42318; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--ink); max-width: 960px; margin: 24px auto; padding: 0 16px; }
h1 { font-size: 20px; margin: 0 0 4px; } h2 { font-size: 16px; margin: 28px 0 8px; }
.muted { color: var(--muted); }
table { border-collapse: collapse; width: 100%; margin: 8px 0; font-size: 13px; font-variant-numeric: tabular-nums; }
th, td { border-bottom: 1px solid var(--rule); padding: 4px 5px; text-align: left; white-space: nowrap; }
/* A header wraps at its words (\`Within 80–125% (ASC 815)\`), so that a table of many columns fits its page; its figures never do. */
th { white-space: normal; vertical-align: bottom; }
td.num { text-align: right; }
.scroll { overflow-x: auto; }
svg.chart { display: block; width: 100%; height: auto; border: 1px solid var(--rule); border-radius: 6px; margin: 8px 0; }
svg.chart text { font-size: 11px; fill: var(--muted); }
svg.chart text.axis-title { fill: var(--ink); }
svg.chart .grid { stroke: var(--rule); }
svg.chart .bar.exposure { fill: var(--exposure); } svg.chart .bar.hedged { fill: var(--hedged); }
svg.chart .target { fill: #e8a317; }
svg.chart .band { fill: #1a7f37; fill-opacity: 0.12; stroke: #1a7f37; stroke-dasharray: 3 3; }
svg.chart .bar.in { fill: var(--in); } svg.chart .bar.out { fill: var(--out); }
@media print { body { max-width: none; margin: 0; } .scroll { overflow: visible; } }
`;

/** The self-contained HTML report (no script, no request: it opens offline and prints on A4). */
export function exposureReportHtml(view: ExposureReportView, account: string, generatedAt: string) {
  const markets = Object.keys(view.prices).sort();
  const total = sum(view.cost, (row) => toCents(row.cost_usdc)) / 100;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Exposures report — ${escapeHtml(view.source)}</title><style>${CSS}</style></head>
<body>
<h1>Exposures: coverage, cost and effectiveness</h1>
<p class="muted">${escapeHtml(account)} · ${escapeHtml(view.source)} · as of ${escapeHtml(utcMinute(view.as_of))} UTC · generated ${escapeHtml(generatedAt)}</p>
<p>${escapeHtml(describePolicy(view.policy))}.</p>
<h2>Coverage per week</h2>
${markets.map((name) => coverageChart(view, name)).join('\n')}
${table(view, 'coverage')}
<h2>Cost to date</h2>
<p>Carry and fees of the closed hedges of ${escapeHtml(markets.join(', '))}: ${escapeHtml(payOrEarn(total, { realized: true }))}${view.history_complete ? '' : ' (history may be incomplete)'}.</p>
${table(view, 'cost')}
<h2>Effectiveness (dollar offset)</h2>
${effectivenessChart(view)}
${table(view, 'effectiveness')}
<p class="muted">Exposure in USD at today's price. The dollar-offset ratio is the cover's price P&amp;L against the exposure's revaluation since the market's first cover; within 80–125% is ASC 815's test of an effective hedge, while under IFRS 9 the ratio is a diagnostic, not a qualification (docs/exposures.md).</p>
</body></html>
`;
}
