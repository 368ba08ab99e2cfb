// One book from every view: a side reconciled from its hedge records and the positions list,
// which need not move in step, so no decision reads one of them alone. Nothing acts on a settling side.
import { cents } from '../../core/money.js';
import { formatUsd } from '../../core/number-format.js';

/** A hedge as its record shows it, in the book's terms. */
export interface HedgeRecord {
  id: string;
  status: string;
  notionalUsd?: number;
  maturityAtMs?: number;
  clientReference?: string;
}

/** The positions list's line for the side, in the book's terms. */
interface PositionLine {
  notionalUsd?: number;
  hedgeId?: string;
}

export interface SideBook {
  state: 'flat' | 'in-step' | 'settling';
  why?: string;
  filled: HedgeRecord[];
  opening: HedgeRecord[];
  ended: string[];
  recordsUsd: number;
  line?: PositionLine;
  unreadable?: { endpoint: 'GET /positions' | 'GET /hedges'; notionalUsd: number };
  /** The filled hedges read, when that read may be cut short of the side's: reading again would not tell more. */
  recordsCut?: number;
  /** The history records read, when a filled hedge of the side may be listed ended past them: the side may still come
   * into step (a view that trails), so it is waited on; past the bound, said with how to read the history whole. */
  historyCut?: number;
}

/** The statuses a hedge ends in: it holds nothing any more. */
export const FINAL = new Set(['failed', 'closed']);
const SAME_USD = 0.005;

/** The side's book from its hedges' records (any order; other sides' are ignored by the caller) and its positions line. */
export function reconcileSide(
  records: readonly HedgeRecord[],
  line: PositionLine | undefined,
  nowMs: number,
): SideBook {
  const filled = records
    .filter((record) => record.status === 'filled')
    .sort((a, b) => (b.maturityAtMs ?? 0) - (a.maturityAtMs ?? 0));
  const opening = records.filter((record) => record.status !== 'filled' && !FINAL.has(record.status));
  // A record without a notional hedge can read says nothing about the side's size: the line's then stands for it.
  const recordsUsd =
    filled.some((record) => record.notionalUsd === undefined) && line?.notionalUsd !== undefined
      ? line.notionalUsd
      : cents(filled.reduce((sum, record) => sum + (record.notionalUsd ?? 0), 0));
  const ended = records.flatMap((record) => (FINAL.has(record.status) ? [record.id] : []));
  const book = { filled, opening, ended, recordsUsd, ...(line && { line }) };
  const one = filled.length === 1;
  // (An amount or a time not given compares false.)
  const bad = filled.find((record) => record.notionalUsd! <= 0);
  const matured = filled.find((record) => record.maturityAtMs! <= nowMs);
  const unreadable =
    line?.notionalUsd !== undefined && line.notionalUsd <= 0
      ? { endpoint: 'GET /positions' as const, notionalUsd: line.notionalUsd }
      : bad && { endpoint: 'GET /hedges' as const, notionalUsd: bad.notionalUsd! };
  const why = unreadable
    ? unreadable.endpoint === 'GET /positions'
      ? `the positions list gives the open side a notional of ${formatUsd(unreadable.notionalUsd)}, which cannot be`
      : `hedge ${bad!.id} is filled with a notional of ${formatUsd(unreadable.notionalUsd)} on its record, which cannot be`
    : matured
      ? `hedge ${matured.id} is past its maturity and not settled yet`
      : !line
        ? filled.length
          ? `${one ? 'hedge' : 'hedges'} ${filled.map((record) => record.id).join(', ')} ${one ? 'is filled on its record' : 'are filled on their records'}, not in the positions list yet`
          : undefined
        : filled.length
          ? line.notionalUsd !== undefined && Math.abs(line.notionalUsd - recordsUsd) >= SAME_USD
            ? `the positions list shows ${formatUsd(line.notionalUsd)}, the hedge records ${formatUsd(recordsUsd)}`
            : undefined
          : 'the positions list still shows the side, whose hedges are not filled on their records';
  // Settling while any view says something the others do not; flat or in step when they agree.
  return why === undefined
    ? { ...book, state: line ? 'in-step' : 'flat' }
    : { ...book, state: 'settling', why, ...(unreadable && { unreadable }) };
}

/** What an actor's own write must make every view show before it decides that side again (as a controller waits for its lagging cache): the notional after, hedges to be filled, hedges to be gone. */
export interface SideExpectation {
  notionalUsd: number;
  present?: readonly string[];
  gone?: readonly string[];
  sinceMs: number;
}

/** Whether every view shows the expectation; an expected hedge that has ended on its record since was seen land, and the side is the book's to say again. */
export function expectationMet(book: SideBook, expected: SideExpectation) {
  if (book.state === 'settling') return false;
  if (expected.present?.some((id) => book.ended.includes(id))) return true;
  // A write that names its hedges is seen by them: a colleague's change of the side since is the
  // book's to show (drift), not a reason to wait. One that names none is seen by its notional.
  const named = expected.present?.length || expected.gone?.length;
  if (!named && (book.opening.length || Math.abs(book.recordsUsd - expected.notionalUsd) >= SAME_USD)) return false;
  const ids = new Set(book.filled.map((record) => record.id));
  return (
    !expected.present?.some((id) => !ids.has(id)) &&
    !expected.gone?.some((id) => ids.has(id) || book.line?.hedgeId === id)
  );
}
