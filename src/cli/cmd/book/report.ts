// `hedge report`: P&L of closed hedges by day, week, month, side, tenor or market, with totals and
// the open positions' unrealized P&L on its own line; a table (bars, sparkline) on a terminal,
// tab-separated rows in a pipe, --format csv, --json / --format json, and --html FILE.
import type { InputOf } from '../../runner/command-spec.js';
import type { REPORT } from '../specs.js';
import { echo, parseClientReference } from '../../../core/input.js';
import {
  REPORT_GROUPINGS,
  cumulativePoint,
  parseReportDate,
  reportPeriodProblem,
  type ReportGrouping,
} from '../../../features/report/report-rules.js';
import { UsageError } from '../../../core/errors.js';
import {
  accountName,
  ClosedHedgeListing,
  gatherReport,
  htmlTarget,
  incompleteWarning,
} from '../../../features/report/report.js';
import type { CommandContext } from '../../../platform/runtime/context.js';
import type { OutputFormat } from '../../../platform/runtime/globals.js';
import { closedHedgeRow, reportHtmlAround } from '../../../features/report/report-html.js';
import {
  renderReportTable,
  reportColumns,
  reportCsv,
  reportNotes,
  reportPlainRows,
  reportPlainTotals,
  type ReportColumn,
} from '../../../features/report/report-view.js';
import { dealReferences, readDeal, readHedgeReferences } from '../../../features/book/deal.js';
import { dealStillHeld, shellWord } from '../../../features/book/deal-view.js';

/** What a --until condition may read: every name of the report's JSON (a test checks it against a report). */
export const CONDITION_FIELDS: readonly string[] =
  'by since until groups totals unrealized cumulative missing locked complete key label count notional_usd gross_pnl_usd carry_usdc fees_usdc net_pnl_usd deal positions at excluded undated amount client_reference market side tenor_days closed_at entry_price exit_price quote_currency quote_amount_locked hedge_id'.split(
    ' ',
  );

type ReportFormat = 'table' | 'csv' | 'json' | 'plain';

export interface ReportCommandOptions {
  by: ReportGrouping;
  since?: Date;
  until?: Date;
  /** `plain`: off a terminal with no --format (tab-separated rows). */
  format: ReportFormat | 'plain';
  /** Absolute path of the HTML file to write. */
  html?: string;
  /** --fields for tsv and csv: the report's own columns, in the order given. */
  columns?: ReportColumn[];
  /** --ref: only the closed hedges that carry this reference. */
  ref?: string;
}

function oneOf<const T extends string>(option: string, raw: string, allowed: readonly T[]) {
  const value = raw.trim().toLowerCase();
  const found = allowed.find((candidate) => candidate === value);
  if (!found) throw new UsageError(`${option}: ${echo(raw)} is not allowed; expected one of ${allowed.join(', ')}.`);
  return found;
}

function date(option: string, raw: string | undefined, now: Date) {
  if (raw === undefined) return undefined;
  const parsed = parseReportDate(raw, now);
  if (!parsed.ok) throw new UsageError(`${option}: ${parsed.message}`);
  return parsed.date;
}

/** Every option checked before anything is sent: a bad one is a UsageError (exit 2) naming it. */
export function parseReportOptions(
  input: InputOf<typeof REPORT>,
  context: { now: Date; format: OutputFormat | undefined; stdoutIsTTY: boolean; fields?: readonly string[] },
) {
  const { options } = input;
  const by = options.by === undefined ? 'day' : oneOf('--by', options.by, REPORT_GROUPINGS);
  const since = date('--since', options.since, context.now);
  const until = date('--until', options.until, context.now);
  const period = reportPeriodProblem(since, until);
  if (period) throw new UsageError(period);
  // The global --format: a report is a table, CSV, JSON, or (tsv, and in a pipe) plain lines.
  const asked = context.format;
  const format =
    asked === 'json' || asked === 'ndjson'
      ? 'json'
      : asked === 'csv' || asked === 'table'
        ? asked
        : asked === 'tsv'
          ? 'plain'
          : context.stdoutIsTTY
            ? 'table'
            : 'plain';
  let html: string | undefined;
  if (options.html !== undefined) {
    const target = htmlTarget(options.html);
    if ('problem' in target) throw new UsageError(`--html: ${target.problem}`);
    html = target.path;
  }
  let columns: ReportColumn[] | undefined;
  if (context.fields !== undefined && (format === 'csv' || format === 'plain')) {
    const allowed = reportColumns(by) as readonly string[];
    const unknown = context.fields.filter((field) => !allowed.includes(field));
    if (unknown.length > 0) {
      throw new UsageError(
        `--fields: ${unknown.map((field) => echo(field)).join(', ')} is not a report column; expected some of ${allowed.join(', ')}.`,
      );
    }
    columns = context.fields as ReportColumn[];
  }
  return { by, since, until, format, html, columns, ref: parseClientReference(options.ref) };
}

export async function run(ctx: CommandContext, input: InputOf<typeof REPORT>) {
  const options = parseReportOptions(input, {
    now: new Date(ctx.clock.now()),
    format: ctx.globals.format,
    stdoutIsTTY: ctx.io.stdoutIsTTY,
    fields: ctx.globals.fields,
  });
  const client = await ctx.client();
  // Deal references for closed-hedge records that carry none, from the hedge records: a
  // deal followed with --ref is every hedge carrying it; a report by hedge or by reference labels
  // its rows from the newest hedge records. The others need none.
  const deal = options.ref === undefined ? undefined : await readDeal(client, options.ref);
  const references =
    deal !== undefined
      ? dealReferences(deal)
      : options.by === 'hedge' || options.by === 'ref'
        ? await readHedgeReferences(client)
        : undefined;
  if (references?.problem !== undefined)
    ctx.output.warn(
      `Deal references not joined from the hedge records: ${references.problem}; closed hedges count under their own reference alone.`,
    );
  // The HTML listing's rows wait in a file beside the target while the history is read.
  const listing = options.html === undefined ? undefined : new ClosedHedgeListing(options.html, closedHedgeRow);
  let gathered: Awaited<ReturnType<typeof gatherReport>>;
  try {
    // JSON and the HTML file take the cumulative line compact (a point per close time: 100,000 of
    // them for a long history); the terminal's and the plain formats' line reads the points.
    const points = options.format !== 'json';
    gathered = await gatherReport(
      client,
      { by: options.by, since: options.since, until: options.until, ref: options.ref },
      listing && ((record) => listing.add(record)),
      {
        points,
        ...(references !== undefined ? { references } : {}),
      },
    );
  } catch (error) {
    listing?.discard();
    throw error;
  }
  const { report } = gathered;

  if (!gathered.complete) ctx.output.warn(incompleteWarning(gathered.fetched, gathered.stopped));
  for (const note of reportNotes(report)) ctx.output.note(ctx.output.chalk.dim(note));
  // The report counts what the deal closed; what it still holds after its rolls is said beside it.
  const held =
    deal === undefined
      ? undefined
      : dealStillHeld(deal, ctx.clock.now(), ctx.hedgeCommand('hedges', '--ref', shellWord(deal.reference)));
  if (held !== undefined) ctx.output.note(held);

  switch (options.format) {
    case 'json': {
      const line = gathered.cumulative;
      ctx.output.jsonWithList({ ...report, complete: gathered.complete }, 'cumulative', line.length, (index) =>
        cumulativePoint(line, index),
      );
      break;
    }
    case 'csv':
      ctx.output.write(
        reportCsv(report, (await import('../../../platform/terminal/csv.js')).csvText, {
          columns: options.columns,
          header: ctx.globals.header,
        }).replace(/\n$/, ''),
      );
      break;
    case 'plain':
      if (report.groups.length === 0) ctx.output.note('No closed hedges in this period.');
      for (const row of reportPlainRows(report, { columns: options.columns, header: ctx.globals.header }))
        ctx.output.write(row);
      ctx.output.note(reportPlainTotals(report));
      break;
    case 'table': {
      ctx.output.write(
        await renderReportTable(report, {
          chalk: ctx.output.chalk,
          columns: ctx.output.columns,
          nowMs: ctx.clock.now(),
        }),
      );
      break;
    }
  }

  if (options.html !== undefined && listing) {
    const credentials = await ctx.credentials();
    const [before, after] = reportHtmlAround(
      report,
      {
        account: accountName(credentials),
        environment: credentials.environment,
        generatedAt: new Date(ctx.clock.now()).toISOString(),
        cumulative: gathered.cumulative,
      },
      listing.size,
    );
    listing.writeReport(options.html, before, after);
    ctx.output.note(`HTML report written to ${options.html}`);
  }
}
