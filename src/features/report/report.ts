// `hedge report`: reads the history page by page, tallying each page and letting it go, so memory
// stays at one page; the HTML listing goes through a file beside the report.
import { closeSync, openSync, readSync, rmSync, statSync, writeSync } from 'node:fs';
import { type HistoryFacts, MAX_PAGE_SIZE } from '../../core/wire.js';
import { dirname, join, resolve } from 'node:path';
import type { HedgeClient, HistoryPage } from '../../platform/api/client.js';
import { MAX_EMPTY_PAGES } from '../../platform/api/wire/pages.js';
import { historyCloseTime, readHistoryRecord, readPosition } from '../../platform/api/wire/fields.js';
import type { HistoryRecord } from '../../platform/api/schemas.js';
import { closedHedgeTime, compareListed, outsidePeriod, reportBuilder, type ReportOptions } from './report-rules.js';
import type { HedgeReferences } from '../book/deal.js';
import { UsageError } from '../../core/errors.js';
import { cannotWrite, refuseToWriteAt, writeNamedFile } from '../../core/security/bounded-read.js';
import { isLoopbackHost } from '../../core/security/base-url.js';

/** Every page of closed hedges, each record handed to `onRecord` (false stops the walk); whole once a record closed
 * before `since` is read, as the history comes newest first. What it found: how many were read, whether that is all,
 * and (`warning`, for stderr) why the figures may be incomplete. */
export async function walkHistory(
  client: HedgeClient,
  period: { since?: Date },
  onRecord: (raw: HistoryRecord) => boolean | void,
) {
  let fetched = 0;
  let last: HistoryPage | undefined;
  let passed = false;
  const walked = (stopped?: keyof typeof INCOMPLETE) => ({
    fetched,
    complete: !stopped,
    warning: stopped && `GET /hedges/history returned ${fetched} closed hedges${INCOMPLETE[stopped]}`,
  });
  for await (const page of client.historyPages()) {
    last = page;
    for (const raw of page.records) {
      fetched += 1;
      if (onRecord(raw) === false) return walked();
      passed ||= period.since !== undefined && inPeriod(raw, { since: period.since }) === 'out';
    }
  }
  // A record closed before the period: every older page is outside it too.
  if (!passed) {
    if (last?.next === 'repeated' || last?.next === 'empty-run') return walked(last.next);
    if (last?.more === true && last.records.length) return walked('no-next');
    // A last page without a cursor to the next may hide older closed hedges when it is full, or when the server does not
    // read the page size (as lists are checked): the report then says `"complete": false` and the CLI warns.
    if (last !== undefined && !last.paged) {
      if (last.records.length >= MAX_PAGE_SIZE) return walked('full-page');
      if (await last.mayBeCut()) return walked('page-size');
    }
  }
  return walked();
}

/** What follows `GET /hedges/history returned N closed hedges` in the warning, by why the walk stopped (a last page's
 * `next` where it says why). */
const INCOMPLETE = {
  repeated:
    ', then pointed again at a page it had already given (the same cursor, link or time): the pages were not followed round again, so the figures may be incomplete.',
  'empty-run': `, then ${MAX_EMPTY_PAGES} empty pages in a row, each naming another: the pages were not followed further, so the figures may be incomplete.`,
  'no-next':
    ' and says more exist, but gave no way hedge can ask for them: the figures may be incomplete. `hedge doctor` shows how the server pages; `hedge api /hedges/history` shows its answer.',
  'page-size':
    ' and no next page, and the server may not read the page size hedge sends: closed hedges older than these may be missing, so the figures may be incomplete. `hedge doctor` shows how it pages; set HEDGE_WIRE_PAGE_SIZE_PARAM to its page-size parameter.',
  'full-page':
    ', the most one page holds, and the API shows no way to ask for older ones: closed hedges older than these are missing, so the figures may be incomplete.',
};

/** Reads the history page by page into the report; `onCovered` gets each closed hedge it covers. */
export async function gatherReport(
  client: HedgeClient,
  options: ReportOptions,
  onCovered: ((record: HistoryFacts) => void) | undefined,
  points: boolean,
  references?: HedgeReferences,
) {
  // Both requests in flight together.
  const positions = client.listPositions();
  positions.catch(() => {
    // Reported below, once the history is read (or by the history's own failure first).
  });
  const builder = reportBuilder(options);
  // The hedges of the records' references the history lists closed, in the period or not (a deal's: not still held);
  // only theirs, so that a long history is never held whole.
  const ended = new Set<string>();
  const walk = await walkHistory(client, options, (raw) => {
    const facts = readHistoryRecord(raw);
    if (facts.hedgeId !== undefined && references?.referenceOf(facts.hedgeId) !== undefined) ended.add(facts.hedgeId);
    // A record that carries no reference is its hedge's deal, as the hedge records say.
    if (facts.clientReference === undefined && facts.hedgeId !== undefined)
      facts.clientReference = references?.referenceOf(facts.hedgeId);
    if (builder.add(facts)) onCovered?.(facts);
  });
  return {
    report: builder.finish((await positions).map(readPosition), { points }),
    cumulative: builder.cumulative(),
    ended,
    ...walk,
  };
}

const FLUSH_BYTES = 1 << 20;

/** The closed hedges' rows of an HTML report, kept in a file beside `target` (the report's file) instead of memory and written in the listing's order at the end; memory holds only each row's sort key and place. */
export function closedHedgeListing(target: string, rowOf: (record: HistoryFacts) => string) {
  const path = join(dirname(target), `.${process.pid}-${Date.now()}.hedge-report-rows`);
  let fd: number;
  try {
    // Made here (O_EXCL): nothing planted beside the report is followed or reused.
    fd = openSync(path, 'wx+', 0o600);
  } catch (error) {
    throw cannotWrite(target, '--html', error);
  }
  let pending = '';
  /** The bytes of every row added, written or pending. */
  let end = 0;
  const times: number[] = [];
  /** Where each row starts; it ends where the next starts (the last at `end`). */
  const offsets: number[] = [];
  /** Appends the pending rows: the reads back name their place, so the file's own position is the end. */
  const flush = () => {
    try {
      writeSync(fd, pending);
    } catch (error) {
      discard();
      throw cannotWrite(target, '--html', error);
    }
    pending = '';
  };
  /** Removes the rows' file (also when the report is not written). */
  const discard = () => {
    try {
      closeSync(fd);
    } catch {
      // Closed already.
    }
    rmSync(path, { force: true });
  };
  return {
    get size() {
      return times.length;
    },
    add(record: HistoryFacts) {
      const row = rowOf(record);
      times.push(closedHedgeTime(record));
      offsets.push(end);
      end += Buffer.byteLength(row);
      pending += row;
      if (pending.length >= FLUSH_BYTES) flush();
    },
    /** Writes `before`, every row in the listing's order, then `after`, to `target`; removes the rows' file. */
    writeReport(before: string, after: string) {
      flush();
      const order = Uint32Array.from(times.keys()).sort((a, b) => compareListed(times[a], a, times[b], b));
      try {
        writeNamedFile(
          target,
          (write) => {
            write(before);
            let chunk = '';
            for (const index of order) {
              // Read back one row at a time: memory holds no more than a chunk of the page.
              const row = Buffer.alloc((offsets[index + 1] ?? end) - offsets[index]);
              readSync(fd, row, 0, row.length, offsets[index]);
              chunk += row.toString('utf8');
              if (chunk.length >= FLUSH_BYTES) {
                write(chunk);
                chunk = '';
              }
            }
            write(chunk + after);
          },
          '--html',
        );
      } finally {
        discard();
      }
    },
    discard,
  };
}

/** Whether a record closed in [since, until); one with no readable close time is 'unreadable'. */
export function inPeriod(record: HistoryRecord, filter: { since?: Date; until?: Date }) {
  const ms = Date.parse(historyCloseTime(record) ?? '');
  if (!Number.isFinite(ms)) return 'unreadable';
  return outsidePeriod(ms, filter) ? 'out' : 'in';
}

/** The absolute path of an --html target; a UsageError says why it cannot be written (before anything is sent). */
export function htmlTarget(path: string) {
  if (path.trim() === '') throw new UsageError('--html: expected a file path.');
  // `-` reads as stdout to a script author; the HTML is only ever written to a file.
  if (path === '-')
    throw new UsageError('--html: "-" is not written to stdout; expected a file path (./- for a file named -).');
  const absolute = resolve(path);
  const isFolder = (at: string) => {
    try {
      return statSync(at, { throwIfNoEntry: false })?.isDirectory();
    } catch (error) {
      throw new UsageError(`--html: ${absolute} cannot be used (${(error as Error).message}).`);
    }
  };
  if (isFolder(absolute)) throw new UsageError(`--html: ${absolute} is a folder; expected a file path.`);
  if (!isFolder(dirname(absolute))) throw new UsageError(`--html: the folder ${dirname(absolute)} does not exist.`);
  // Said before anything is read; judged again when written.
  refuseToWriteAt(absolute, '--html');
  return absolute;
}

/** Whose report it is, for its header; a loopback host is named as a simulator, not an account. */
export function accountName(credentials: { profileName?: string; baseUrl: string; sources?: { profile?: string } }) {
  if (credentials.sources?.profile === 'demo') return 'demo (the built-in simulator, test funds)';
  const who = credentials.profileName ?? 'key from HEDGE_API_KEY';
  if (!URL.canParse(credentials.baseUrl)) return `${who} @ unknown host`;
  const { hostname, host } = new URL(credentials.baseUrl);
  return isLoopbackHost(hostname) ? `${who} (a simulator on this machine)` : `${who} @ ${host}`;
}
