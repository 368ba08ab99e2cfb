// `hedge report`: P&L of closed hedges by day, week, month, side, tenor or market, with totals and
// the open positions' unrealized P&L on its own line; a table (bars, sparkline) on a terminal,
// tab-separated rows in a pipe, --format csv, --json / --format json, and --html FILE.
import { type CommandContext, echo, type In, notAllowed, parseClientReference, UsageError } from '../command-input.js';
import { REPORT_GROUPINGS, cumulativePoint } from '../../../features/report/report-rules.js';
import { accountName, closedHedgeListing, gatherReport, htmlTarget } from '../../../features/report/report.js';
import { closedHedgeRow, reportHtmlAround } from '../../../features/report/report-html.js';
import {
  renderReportTable,
  reportColumns,
  reportNotes,
  reportPlainTotals,
  reportTable,
} from '../../../features/report/report-view.js';
import { readDeal, readHedgeReferences } from '../../../features/book/deal.js';
import { closePeriod, noteShortRecords, noteStillHeld } from './history.js';

/** What this command uses of its context. */
export type Options = Pick<
  CommandContext,
  'client' | 'clock' | 'credentials' | 'globals' | 'hedgeCommand' | 'journal' | 'log' | 'output'
>;

/** What a --until condition may read: every name of the report's JSON (a test checks it against a report). */
export const CONDITION_FIELDS =
  'by since until groups totals unrealized cumulative missing locked complete key label count notional_usd gross_pnl_usd carry_pnl_usdc fees_pnl_usdc net_pnl_usd deal positions at excluded undated amount client_reference market side tenor_days closed_at entry_price exit_price quote_currency quote_amount_locked hedge_id'.split(
    ' ',
  );

export async function run(ctx: Options, { options: given }: In<'REPORT'>) {
  const { output } = ctx;
  // Every option checked before anything is sent: a bad one is a UsageError (exit 2) naming it.
  const by = given.by === undefined ? 'day' : REPORT_GROUPINGS.find((name) => name === given.by!.trim().toLowerCase());
  if (by === undefined) throw notAllowed('--by', given.by, `one of ${REPORT_GROUPINGS.join(', ')}`);
  const period = closePeriod(ctx, given);
  // A report is a table, CSV, JSON, or (tsv, and in a pipe) plain lines.
  const format = output.format === 'csv' ? 'csv' : output.mode;
  const html = given.html === undefined ? undefined : htmlTarget(given.html);
  // --fields for tsv and csv: the report's own columns, in the order given.
  const columns = output.mode === 'plain' ? ctx.globals.fields : undefined;
  const allowed = reportColumns(by);
  const unknown = columns?.filter((field) => !allowed.includes(field));
  if (unknown?.length)
    throw new UsageError(
      `--fields: ${unknown.map((field) => echo(field)).join(', ')} is not a report column; expected some of ${allowed.join(', ')}.`,
    );
  const ref = parseClientReference(given.ref);
  const client = await period.client();
  // Deal references for closed-hedge records that carry none, from the hedge records: a
  // deal followed with --ref is every hedge carrying it; a report by hedge or by reference labels
  // its rows from the newest hedge records. The others need none.
  const deal = ref === undefined ? undefined : await readDeal(client, ref);
  const references = deal ?? (by === 'hedge' || by === 'ref' ? await readHedgeReferences(client) : undefined);
  if (references?.problem !== undefined)
    output.warn(
      `Deal references not joined from the hedge records: ${references.problem}; closed hedges count under their own reference alone.`,
    );
  noteShortRecords(ctx, references?.read);
  // The HTML listing's rows wait in a file beside the target while the history is read.
  const listing = html === undefined ? undefined : closedHedgeListing(html, closedHedgeRow);
  // JSON and the HTML file take the cumulative line compact (a point per close time: 100,000 of
  // them for a long history); the terminal's and the plain formats' line reads the points.
  const gathered = await gatherReport(
    client,
    Object.assign(period, { by, ref }),
    listing?.add,
    format !== 'json',
    references,
  ).catch((error: unknown) => {
    listing?.discard();
    throw error;
  });
  const { report, complete, cumulative } = gathered;

  if (gathered.warning) output.warn(gathered.warning);
  for (const note of reportNotes(report)) output.note(output.chalk.dim(note));
  // The report counts what the deal closed; what it still holds after its rolls is said beside it.
  noteStillHeld(ctx, deal, gathered.ended);

  switch (format) {
    case 'json':
      output.jsonWithList({ ...report, complete }, 'cumulative', cumulative.length, (index) =>
        cumulativePoint(cumulative, index),
      );
      break;
    case 'csv':
      output.write(output.cellsText(reportTable(report, columns, ctx.globals.header)));
      break;
    case 'plain': {
      if (!report.groups.length) output.note('No closed hedges in this period.');
      const rows = output.cellsText(reportTable(report, columns, ctx.globals.header));
      if (rows) output.write(rows);
      output.note(reportPlainTotals(report));
      break;
    }
    case 'table':
      output.write(await renderReportTable(report, output.chalk, output.columns, ctx.clock.now()));
  }

  if (listing) {
    const credentials = await ctx.credentials();
    const [before, after] = reportHtmlAround(
      report,
      {
        account: accountName(credentials),
        environment: credentials.environment,
        generatedAt: new Date(ctx.clock.now()).toISOString(),
        cumulative,
      },
      listing.size,
    );
    listing.writeReport(before, after);
    output.note(`HTML report written to ${html}`);
  }
}
