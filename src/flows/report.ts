// `hedge report`: reads the closed hedges (GET /hedges/history) and the open positions
// (GET /positions), reads both tolerantly, and builds the report (domain/report.ts). Also the
// close-time filter `hedge history --since/--until` shares, and the HTML file's writing.
import { statSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { HedgeClient } from '../api/client.js';
import { readHistoryRecord, readPositionPnl, type HistoryFacts } from '../api/read-history.js';
import type { HistoryRecord } from '../api/schemas.js';
import { MAX_PAGE_SIZE } from '../api/unspecified.js';
import { buildReport, type Report, type ReportOptions } from '../domain/report.js';

export interface GatheredReport {
  report: Report;
  /** The closed hedges the report covers (same rule as buildReport), for the HTML listing. */
  records: HistoryFacts[];
  /** How many records GET /hedges/history returned. */
  fetched: number;
  /** False when the page may have cut off older closed hedges (see historyMayBeIncomplete). */
  complete: boolean;
}

/**
 * The spec shows a page-size bound (500) on the hedge lists and no cursor, offset or "next page"
 * for GET /hedges/history: one request for the largest page is all the CLI can read. Rule: when
 * that page comes back exactly full (MAX_PAGE_SIZE records), older closed hedges may exist that
 * it did not hold, so the report may be incomplete: the CLI warns on stderr and the JSON says
 * `"complete": false`. Fewer than MAX_PAGE_SIZE records means the server had no more.
 */
export function historyMayBeIncomplete(fetched: number): boolean {
  return fetched >= MAX_PAGE_SIZE;
}

export function incompleteWarning(fetched: number): string {
  return (
    `GET /hedges/history returned ${fetched} closed hedges, the most one page holds, and the API shows no way to ask for older ones: ` +
    'closed hedges older than these are missing, so the figures may be incomplete.'
  );
}

/** Whether buildReport counts a record: the same period and close-time rule, kept beside it. */
function inReport(record: HistoryFacts, options: ReportOptions): boolean {
  if (options.ref !== undefined && record.clientReference !== options.ref) return false;
  const needsCloseTime = options.since !== undefined || options.until !== undefined || ['day', 'week', 'month'].includes(options.by);
  const ms = record.closedAt === undefined ? Number.NaN : Date.parse(record.closedAt);
  if (!Number.isFinite(ms)) return !needsCloseTime;
  if (options.since && ms < options.since.getTime()) return false;
  if (options.until && ms >= options.until.getTime()) return false;
  return true;
}

export async function gatherReport(client: HedgeClient, options: ReportOptions): Promise<GatheredReport> {
  const [raws, positions] = await Promise.all([client.listHistory({ limit: MAX_PAGE_SIZE }), client.listPositions()]);
  const facts = raws.map((raw) => readHistoryRecord(raw));
  const open = positions.map((position) => ({ netPnlUsd: readPositionPnl(position) }));
  const report = buildReport(facts, open, options);
  return {
    report,
    records: facts.filter((record) => inReport(record, options)),
    fetched: raws.length,
    complete: !historyMayBeIncomplete(raws.length),
  };
}

// ---- hedge history --since/--until ---------------------------------------------------------

/**
 * The close time of a history record as read by readHistoryRecord. A record that gives no net
 * P&L still has its close time read (history lists what the server sends; only the report needs
 * the net P&L).
 */
export function closeTimeOf(raw: Record<string, unknown>): string | undefined {
  try {
    return readHistoryRecord(raw).closedAt;
  } catch {
    const probe: Record<string, unknown> = { net_pnl_usd: 0 };
    for (const [name, value] of Object.entries(raw)) {
      if (name.toLowerCase().replace(/[^a-z0-9]/g, '') !== 'netpnlusd') probe[name] = value;
    }
    return readHistoryRecord(probe).closedAt;
  }
}

export interface CloseTimeFilter {
  /** Inclusive. */
  since?: Date;
  /** Exclusive. */
  until?: Date;
}

/** Records closed in [since, until); those with no readable close time are left out and counted. */
export function filterByCloseTime(records: HistoryRecord[], filter: CloseTimeFilter): { kept: HistoryRecord[]; unreadable: number } {
  const kept: HistoryRecord[] = [];
  let unreadable = 0;
  for (const record of records) {
    const closedAt = closeTimeOf(record);
    const ms = closedAt === undefined ? Number.NaN : Date.parse(closedAt);
    if (!Number.isFinite(ms)) {
      unreadable += 1;
      continue;
    }
    if (filter.since && ms < filter.since.getTime()) continue;
    if (filter.until && ms >= filter.until.getTime()) continue;
    kept.push(record);
  }
  return { kept, unreadable };
}

// ---- --html FILE ----------------------------------------------------------------------------

/** The absolute path of an --html target, or why it cannot be written (said before anything is sent). */
export function htmlTarget(path: string): { path: string } | { problem: string } {
  if (path.trim() === '') return { problem: 'expected a file path.' };
  const absolute = resolve(path);
  try {
    if (statSync(absolute, { throwIfNoEntry: false })?.isDirectory()) return { problem: `${absolute} is a folder; expected a file path.` };
    if (!statSync(dirname(absolute), { throwIfNoEntry: false })?.isDirectory()) return { problem: `the folder ${dirname(absolute)} does not exist.` };
  } catch (error) {
    return { problem: `${absolute} cannot be used (${(error as Error).message}).` };
  }
  return { path: absolute };
}

export async function writeReportFile(path: string, html: string): Promise<void> {
  await writeFile(path, html, 'utf8');
}
