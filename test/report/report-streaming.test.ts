// The report read page by page: reportBuilder tallies records one at a time, saying which it
// covers, and closedHedgeListing writes the HTML listing from
// a file in the order renderReportHtml sorts it into (close time, ties in arrival order, records
// without a close time last): byte for byte the same page, for more rows than one block holds.
import { readFileSync, readdirSync } from 'node:fs';
import type { HistoryFacts } from '../../src/core/wire.js';
import { join } from 'node:path';
import { reportBuilder, cumulativePoint, cumulativePoints } from '../../src/features/report/report-rules.js';
import { closedHedgeListing } from '../../src/features/report/report.js';
import { output } from '../support/output/fake-output.js';
import { closedHedgeRow, reportHtmlAround, type ReportHtmlMeta } from '../../src/features/report/report-html.js';
import { buildReport, renderReportHtml } from '../support/report.js';
import { tempDir } from '../support/hedge-cli.js';

const work = tempDir('hedge-report-streaming-');
afterAll(() => work.remove());

/** Newest first, as a history arrives; every 7th shares its close time with the one before; some undated. */
function facts(count: number) {
  const start = Date.UTC(2026, 0, 1);
  return Array.from({ length: count }, (_, index) => {
    const minute = count - index - (index % 7 === 6 ? 1 : 0);
    const record: HistoryFacts = {
      netPnlUsd: ((index * 37) % 1000) / 100 - 4,
      grossPnlUsd: ((index * 53) % 900) / 100,
      carryUsd: (index % 13) / 10,
      feesUsd: 5,
      notionalUsd: 1_000 * (1 + (index % 9)),
      side: index % 2 === 0 ? 'buy' : 'sell',
      tenorDays: [1, 3, 7][index % 3],
      market: index % 5 === 0 ? 'USDTKES' : 'USDTNGN',
      hedgeId: `hdg_${String(index).padStart(6, '0')}`,
    };
    if (index % 97 !== 50) record.closedAt = new Date(start + minute * 60_000).toISOString();
    return record;
  });
}

it.each(['day', 'week', 'month', 'side', 'tenor', 'market'] as const)(
  'the report built record by record: by %s: each record added says whether the report covers it',
  (by) => {
    const builder = reportBuilder({ by, since: by === 'week' ? new Date(Date.UTC(2026, 0, 2)) : undefined });
    expect(facts(3_000).filter((record) => builder.add(record)).length).toBe(builder.finish([]).totals.count);
  },
);

describe('the HTML listing through a file', () => {
  const META = { account: 'desk', environment: 'test' as const, generatedAt: '2026-02-01T00:00:00.000Z' };
  /** The page closedHedgeListing writes to NAME in the work folder, `records` added one by one, and the page renderReportHtml writes. */
  function listed(name: string, records: HistoryFacts[], by: 'day' | 'side', meta: ReportHtmlMeta = META) {
    const report = buildReport(records, [], { by });
    const target = join(work.path, name);
    const listing = closedHedgeListing(target, closedHedgeRow);
    for (const record of records) listing.add(record);
    const [before, after] = reportHtmlAround(report, meta, listing.size);
    listing.writeReport(before, after);
    return [readFileSync(target, 'utf8'), renderReportHtml(report, { ...meta, records })];
  }

  it('writes the page renderReportHtml writes, for 6,000 rows in several blocks, and leaves no file behind', () => {
    const [written, rendered] = listed('report.html', facts(6_000), 'day');
    // Rows go to the file and come back in blocks of 1 MiB: several of each.
    expect(written.length).toBeGreaterThan(1.5 * 1024 * 1024);
    expect(written).toBe(rendered);
    expect(readdirSync(work.path)).toEqual(['report.html']);
  });

  it('draws the same cumulative chart from the compact line as from the points', () => {
    const builder = reportBuilder({ by: 'week' });
    for (const record of facts(5_000)) builder.add(record);
    const meta = { ...META, records: [] };
    const fromPoints = renderReportHtml(builder.finish([]), meta);
    const fromLine = renderReportHtml(builder.finish([], { points: false }), {
      ...meta,
      cumulative: builder.cumulative(),
    });
    expect(fromLine).toBe(fromPoints);
    expect(fromLine).toMatch(/<path class="line" d="M[^"]{40000,}"/);
  });

  it('an empty listing, and one discarded before the report is written', () => {
    const [written, rendered] = listed('empty.html', [], 'side', { ...META, environment: 'live' });
    expect(written).toBe(rendered);

    const abandoned = closedHedgeListing(join(work.path, 'never.html'), closedHedgeRow);
    abandoned.add(facts(1)[0]);
    abandoned.discard();
    expect(readdirSync(work.path).sort()).toEqual(['empty.html', 'report.html']);
  });
});

describe('JSON written a piece at a time', () => {
  it.each([0, 1, 2, 40_000])('a document with a list of %i points is the bytes json() writes', (count) => {
    const records = facts(count);
    const builder = reportBuilder({ by: 'day' });
    for (const record of records) builder.add(record);
    const line = builder.cumulative();
    const document = { ...builder.finish([], { points: false }), complete: true, note: 'odd\u202etext' };
    const streamed = output('json');
    streamed.out.jsonWithList(document, 'cumulative', line.length, (index) => cumulativePoint(line, index));
    const whole = output('json');
    whole.out.json({ ...document, cumulative: cumulativePoints(line) });
    expect(streamed.stdout()).toBe(whole.stdout());
    expect(JSON.parse(streamed.stdout()).cumulative).toEqual(buildReport(records, [], { by: 'day' }).cumulative);
  });

  it('with ndjson or --fields, the list is made and json() writes it', () => {
    const document = { by: 'day', cumulative: [] as unknown[], totals: 1 };
    const item = (index: number) => ({ at: `t${index}`, net_pnl_usd: index });
    for (const make of [() => output('ndjson'), () => output('json', { fields: ['cumulative', 'by'] })]) {
      const streamed = make();
      streamed.out.jsonWithList(document, 'cumulative', 3, item);
      const whole = make();
      whole.out.json({ ...document, cumulative: [0, 1, 2].map(item) });
      expect(streamed.stdout()).toBe(whole.stdout());
      expect(streamed.stdout()).toContain('"t2"');
    }
  });
});
