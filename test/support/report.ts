// A report built and drawn whole, as `hedge report` builds and streams it record by record.
import type { HistoryFacts } from '../../src/core/wire.js';
import {
  reportBuilder,
  closedHedgeTime,
  compareListed,
  type ReportOptions,
  type Report,
} from '../../src/features/report/report-rules.js';
import { closedHedgeRow, reportHtmlAround, type ReportHtmlMeta } from '../../src/features/report/report-html.js';

export function buildReport(
  records: readonly HistoryFacts[],
  openPositions: ReadonlyArray<{ netPnlUsd?: number }>,
  options: ReportOptions,
) {
  const builder = reportBuilder(options);
  for (const record of records) builder.add(record);
  return builder.finish(openPositions);
}

/** The page with its closed hedges in close-time order, ties in the order given. */
export function renderReportHtml(report: Report, meta: ReportHtmlMeta & { records: HistoryFacts[] }) {
  const [before, after] = reportHtmlAround(report, meta, meta.records.length);
  const order = meta.records.map((record, index) => ({ record, index, ms: closedHedgeTime(record) }));
  order.sort((a, b) => compareListed(a.ms, a.index, b.ms, b.index));
  return before + order.map(({ record }) => closedHedgeRow(record)).join('') + after;
}
