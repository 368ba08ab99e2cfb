import type { HistoryFacts } from '../../src/core/wire.js';
import type { Report, ReportGrouping } from '../../src/features/report/report-rules.js';
import { escapeHtml, niceScale } from '../../src/features/report/report-html.js';
import { buildReport, renderReportHtml } from '../support/report.js';

const HOSTILE = 'USDT<script>alert("x")</script>\u001b]0;x\u0007\u202eNGN';

const records = () =>
  Array.from({ length: 30 }, (_, index): HistoryFacts => {
    const gross = ((index * 37) % 19) * 10.01 - 60.5;
    return {
      hedgeId: `hdg_${index}`,
      market: index % 5 === 0 ? HOSTILE : 'USDTNGN',
      side: index % 2 === 0 ? 'buy' : 'sell',
      tenorDays: [1, 3, 7][index % 3],
      notionalUsd: 1000 + index * 250.5,
      grossPnlUsd: gross,
      // On the account's side, as the facts are read: net = gross + carry + fees.
      carryUsd: index % 4 === 0 ? 0.7 : -1.1,
      feesUsd: -0.8,
      netPnlUsd: Number((gross + (index % 4 === 0 ? 0.7 : -1.1) - 0.8).toFixed(2)),
      closedAt: new Date(Date.UTC(2026, 10, 1) + index * 20 * 3_600_000).toISOString(),
    };
  });

type Meta = Partial<Parameters<typeof renderReportHtml>[1]>;
/** The page of `report` for a test account, generated at `generatedAt`, listing no hedges unless given. */
const page = (report: Report, generatedAt: string, extra: Meta = {}) =>
  renderReportHtml(report, { account: 'desk', environment: 'test', generatedAt, records: [], ...extra });

function render(by: ReportGrouping, overrides: Meta = {}) {
  const facts = records();
  const report = buildReport(facts, [{ netPnlUsd: 12.34 }, { netPnlUsd: -2 }], {
    by,
    since: new Date('2026-11-01T00:00:00Z'),
    until: new Date('2026-12-01T00:00:00Z'),
  });
  return { report, html: page(report, '2026-11-30T12:00:00.000Z', { records: facts, ...overrides }) };
}

/** The figure a totals card shows, without its words (`-12.50 you paid` → `-12.50`). */
function totalShown(html: string, field: string) {
  const match = new RegExp(`data-total="${field}"[^>]*>(.*?)</div>`).exec(html);
  if (!match) throw new Error(`no total ${field}`);
  return match[1]
    .replace(/<span class="words">.*?<\/span>/g, '')
    .replace(/<[^>]+>/g, '')
    .trim();
}

/** The number a totals card holds for scripts: the JSON's, as `data-value`. */
function totalValue(html: string, field: string) {
  const match = new RegExp(`data-total="${field}" data-value="([^"]*)"`).exec(html);
  return match ? Number(match[1]) : undefined;
}

const asNumber = (text: string) => Number(text.replace(/[,+]/g, ''));

/** Anything that makes a browser fetch, run or reference something outside the file. */
const EXTERNAL =
  /<script|<img|<link|<iframe|<object|<embed|<video|<audio|<source|@import|@font-face|url\(|https?:|\/\/|\bsrc\s*=|\bhref\s*=|xlink:|xmlns/i;

describe('renderReportHtml', () => {
  for (const by of ['week', 'day', 'side', 'tenor', 'market'] as const) {
    it(`--by ${by}: the totals shown are the report's totals`, () => {
      const { report, html } = render(by);
      expect(report.totals.count).toBe(30);
      for (const field of [
        'net_pnl_usd',
        'gross_pnl_usd',
        'carry_pnl_usdc',
        'fees_pnl_usdc',
        'notional_usd',
        'count',
      ] as const) {
        // Every figure, carry and fees included, on the account's side as the report's JSON has it (paid is negative).
        const shown = report.totals[field]!;
        expect(asNumber(totalShown(html, field)), field).toBe(shown === 0 ? 0 : shown);
        expect(totalValue(html, field), field).toBe(report.totals[field]);
      }
      expect(html).toContain(
        `<th class="num ${report.totals.net_pnl_usd < 0 ? 'neg' : 'pos'}">${totalShown(html, 'net_pnl_usd')}</th>`,
      );
    });
  }

  it('signs P&L and writes money with separators and 2 decimals', () => {
    const html = page(
      buildReport([{ netPnlUsd: -1234.5, grossPnlUsd: 1000000, closedAt: '2026-11-02T00:00:00Z' }], [], {
        by: 'month',
      }),
      '2026-11-03T00:00:00Z',
      { account: 'a' },
    );
    expect(['net_pnl_usd', 'gross_pnl_usd', 'carry_pnl_usdc'].map((field) => totalShown(html, field))).toEqual([
      '-1,234.50',
      '+1,000,000.00',
      '—',
    ]);
  });

  it('references nothing outside the file: no script, link, image, font, import or URL', () => {
    for (const by of ['week', 'market'] as const) {
      const { html } = render(by, { account: 'desk https://evil.example//x' });
      expect(html.match(EXTERNAL), by).toBeNull();
    }
  });

  it('has inline CSS for A4 print and two inline SVG charts; lists every closed hedge in close-time order', () => {
    const { html } = render('week');
    expect(html.startsWith('<!doctype html>')).toBe(true);
    for (const part of ['@page { size: A4 landscape;', '@media print', 'class="zero-line"', 'Close time (UTC)'])
      expect(html).toContain(part);
    expect(html.match(/<svg /g)).toHaveLength(2);
    expect([...html.matchAll(/<td class="id">(hdg_\d+)<\/td>/g)].map((match) => match[1])).toEqual(
      Array.from({ length: 30 }, (_, index) => `hdg_${index}`),
    );
  });

  it('escapes hostile server text wherever it appears: table, chart labels, account; the five HTML characters, and the ones that could read as a reference', () => {
    const { html } = render('market', { account: '<b>desk</b> & co' });
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f\u202e]/);
    const escaped = 'USDT&lt;script&gt;alert&#40;&quot;x&quot;)&lt;&#47;script&gt;\\x1b]0;x\\x07\\u202eNGN';
    for (const part of [
      `<td class="word">${escaped}</td>`,
      `text-anchor="middle">${escaped}</text>`,
      '<dd>&lt;b&gt;desk&lt;&#47;b&gt; &amp; co</dd>',
    ])
      expect(html).toContain(part);
    expect(html).not.toContain('<b>desk');
    expect([escapeHtml(`a&b<c>d"e'f`), escapeHtml('https://x.example/a.css url(y) @import')]).toEqual([
      'a&amp;b&lt;c&gt;d&quot;e&#39;f',
      'https&#58;&#47;&#47;x.example&#47;a.css url&#40;y) &#64;import',
    ]);
  });

  it('shows the environment, the period and the unrealized line', () => {
    const { html } = render('week', { environment: 'live' });
    for (const part of [
      '<div class="env live" title="production: real funds">LIVE</div>',
      '<dd>2026-11-01 00:00 UTC to 2026-12-01 00:00 UTC (end excluded)</dd>',
      '2 open positions: unrealized net P&amp;L <span class="pos">+10.34</span> USD',
    ])
      expect(html).toContain(part);
  });

  it('labels every tick of the time axis differently: closes a minute apart get seconds, not the same minute five times', () => {
    const base = Date.UTC(2026, 10, 23, 11, 53, 5);
    const close = records()
      .slice(0, 3)
      .map((record, index) => ({
        ...record,
        market: 'USDTNGN',
        closedAt: new Date(base + index * 40_000).toISOString(),
      }));
    const timeTicks = [
      ...page(buildReport(close, [], { by: 'hedge' }), new Date(base + 80_000).toISOString(), {
        records: close,
      }).matchAll(/<text class="tick" [^>]*text-anchor="(?:start|middle|end)"[^>]*>([^<]*)<\/text>/g),
    ]
      .map((match) => match[1])
      .filter((label) => /\d\d:\d\d/.test(label));
    expect(timeTicks).toHaveLength(5);
    expect([new Set(timeTicks).size, timeTicks[0]]).toEqual([5, '11-23 11:53:05']);
  });

  it('renders an empty period without charts; says when some records do not give a figure or have no close time', () => {
    const html = page(buildReport([], [], { by: 'day' }), '2026-11-30T12:00:00Z');
    expect(html).not.toContain('<svg');
    expect(html).toContain('No closed hedges with a close time in this period.');
    expect(totalShown(html, 'net_pnl_usd')).toBe('0.00');
    expect(html).toContain('<dd>all history</dd>');
    const noted = page(
      buildReport([{ netPnlUsd: 1, carryUsd: 1, closedAt: '2026-11-02T00:00:00Z' }, { netPnlUsd: 2 }], [], {
        by: 'side',
      }),
      '2026-11-30T12:00:00Z',
    );
    for (const note of [
      '<li>1 closed hedge without a close time is in the totals but not in the cumulative chart.</li>',
      '<li>The carry of 1 hedge is not given; sums cover the others (— where none is given).</li>',
    ])
      expect(noted).toContain(note);
  });
});

it('niceScale: covers the range and zero with round steps', () => {
  expect([niceScale(-973.75, 387.75), niceScale(0.1, 0.3), niceScale(0, 0).ticks]).toEqual([
    { low: -1000, high: 500, step: 500, ticks: [-1000, -500, 0, 500] },
    { low: 0, high: 0.3, step: 0.1, ticks: [0, 0.1, 0.2, 0.3] },
    [0, 0.2, 0.4, 0.6, 0.8, 1],
  ]);
});

it('the account a report names: is the profile and host; never a temporary port of this machine', async () => {
  const { accountName } = await import('../../src/features/report/report.js');
  expect([
    accountName({
      profileName: 'demo',
      baseUrl: 'http://127.0.0.1:34933/partners/sandbox/v2',
      sources: { profile: 'demo' },
    }),
    accountName({ profileName: 'desk', baseUrl: 'http://127.0.0.1:8080/partners/sandbox/v2' }),
    accountName({ baseUrl: 'http://localhost:9/v2' }),
    accountName({ profileName: 'desk', baseUrl: 'https://partner.example.com/partners/v2' }),
    accountName({ profileName: 'desk', baseUrl: 'http://[::1]:8080/v2' }),
    // A name that starts like a loopback address is a host like any other.
    accountName({ profileName: 'desk', baseUrl: 'https://127.example.com/partners/v2' }),
  ]).toEqual([
    'demo (the built-in simulator, test funds)',
    'desk (a simulator on this machine)',
    'key from HEDGE_API_KEY (a simulator on this machine)',
    'desk @ partner.example.com',
    'desk (a simulator on this machine)',
    'desk @ 127.example.com',
  ]);
});
