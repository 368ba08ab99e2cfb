// Alerts as pure rules, for `--watch` and for the keeper: which conditions hold, and which start and clear now.
import { formatUsd } from './number-format.js';
import { withoutUndefined } from './objects.js';
import { formatSpan } from './duration.js';
import { onTarget, rowKey, type KeepEvent, type KeepRowStatus } from './keep-rules.js';

interface AlertRules {
  pnlAtOrBelowUsd?: number;
  maturityWithinMs?: number;
  maturityWithinText?: string;
}

/** What a snapshot says that an alert can be about. */
export interface AlertFacts {
  netPnlUsd?: number;
  maturities: Array<{ key: string; maturityAt: string; market?: string; side?: string; hedgeId?: string }>;
}

export function alertConditions(
  { netPnlUsd, maturities }: AlertFacts,
  { pnlAtOrBelowUsd: thresholdUsd, maturityWithinMs: withinMs, maturityWithinText }: AlertRules,
  nowMs: number,
) {
  const pnl =
    thresholdUsd !== undefined && netPnlUsd !== undefined && netPnlUsd <= thresholdUsd
      ? [{ kind: 'pnl' as const, key: 'pnl', netPnlUsd, thresholdUsd }]
      : [];
  const due = (withinMs === undefined ? [] : maturities).flatMap(({ key, maturityAt, ...about }) => {
    // An unreadable time (NaN) is never within.
    const left = Date.parse(maturityAt) - nowMs;
    return left <= withinMs!
      ? [
          {
            kind: 'maturity' as const,
            key: `maturity:${key}`,
            maturityAt,
            secondsLeft: Math.max(0, Math.floor(left / 1000)),
            within: maturityWithinText ?? `${Math.round(withinMs! / 1000)}s`,
            ...withoutUndefined(about),
          },
        ]
      : [];
  });
  return [...pnl, ...due];
}

export type Alert = ReturnType<typeof alertConditions>[number];

/** Fire once, clear once: the alerts that start now (holding, not active before), those that cleared (active before, no longer holding), and the active ones to pass as `before` next time (one already active keeps its first record, its start time with it). */
export function alertEdges<A extends { key: string }>(before: ReadonlyMap<string, A>, holding: readonly A[]) {
  const active = new Map(holding.map((alert) => [alert.key, before.get(alert.key) ?? alert]));
  return {
    started: holding.filter((alert) => !before.has(alert.key)),
    cleared: [...before.values()].filter((alert) => !active.has(alert.key)),
    active,
  };
}

/** Each cause of a keeper's alert, in the words its notices use. */
const CAUSE_WORDS = {
  /** A covered side became flat after its roll fell due, with no roll by the keeper: it settled instead. */
  missed_roll: 'missed roll (settled instead)',
  /** A side holds another notional than its target (beyond the tolerance). */
  drift: 'drift',
  /** A roll, re-open or convergence the server (or a check) refused; it clears when the row is at target. */
  refused: 'refused',
  /** The journal or team store could not be used for a cycle. */
  store_unreachable: 'journal or team store unreachable',
  /** The book could not be read (the server unreachable, or failing). */
  server_unreachable: 'server unreachable',
  /** A row's market has less capacity left on its side than the threshold. */
  capacity_low: 'capacity low',
  /** The account's headroom under its exposure cap is below the threshold. */
  exposure_headroom_low: 'exposure headroom low',
};

type AlertCause = keyof typeof CAUSE_WORDS;

export interface ActiveAlert {
  key: string;
  cause: AlertCause;
  market?: string;
  side?: string;
  message: string;
  trigger?: KeepEvent;
  since: string;
}

/** What is sent: the start or the clearing of one condition. */
export interface AlertNotice extends ActiveAlert {
  alert: 'started' | 'recovered';
  at: string;
  duration_s?: number;
  text: string;
}

export interface CycleObservation {
  nowMs: number;
  events: readonly KeepEvent[];
  rows?: readonly KeepRowStatus[];
  serverNowMs?: number;
  toleranceUsd: number;
  headroom?: { exposureHeadroomUsd?: number; capacityUsd: ReadonlyMap<string, number> };
  thresholdUsd?: number;
}

interface AlertState {
  active: ReadonlyMap<string, ActiveAlert>;
  rows: ReadonlyMap<string, KeepRowStatus>;
  /** Rows the keeper tried to roll at the previous observation (a roll event, or a roll that failed): flat now because of its own roll, never a missed one (a failed roll's open is a `refused` alert). */
  rolling?: ReadonlySet<string>;
}

export const NO_ALERTS: AlertState = { active: new Map(), rows: new Map() };

/** The causes about one row that clear only once it is back at target. */
const ROW_CAUSES: readonly string[] = ['missed_roll', 'drift', 'refused'];
const SUCCESS_EVENTS: readonly string[] = ['roll', 'reopen', 'converge'];

/** "holds 1,000.00 USD, target 2,000.00 USD" */
function describeDrift(current: unknown, target: unknown) {
  const usd = (value: unknown) => (typeof value === 'number' ? formatUsd(value) : `${String(value ?? '?')} USD`);
  return `holds ${usd(current)}, target ${usd(target)}`;
}

/** One step: the conditions this cycle shows, against those active; what starts and what clears. */
export function stepAlerts(state: AlertState, cycle: CycleObservation) {
  const { rows, nowMs } = cycle;
  const at = new Date(nowMs).toISOString();
  const { shown, succeeded, rolling } = eventConditions(cycle.events);
  const rowsNow = new Map((rows ?? []).map((row) => [rowKey(row), row]));
  // The conditions this cycle shows, by key; the first one seen for a key stands.
  const holding = new Map<string, ActiveAlert>();
  for (const condition of [...shown, ...rowConditions(state, cycle, rowsNow, rolling), ...headroomConditions(cycle)])
    if (!holding.has(condition.key)) holding.set(condition.key, { ...condition, since: at });
  for (const [key, active] of state.active)
    if (!holding.has(key) && stillHolds(active, cycle, rowsNow, succeeded)) holding.set(key, active);

  // One already active keeps its first record (alertEdges), its start time with it.
  const edges = alertEdges(state.active, [...holding.values()]);
  const notices = [
    ...edges.started.map((was) => noticeOf('started', was, at, nowMs)),
    ...edges.cleared.map((was) => noticeOf('recovered', was, at, nowMs)),
  ];
  // The rows a next cycle is judged against: this cycle's, except a side it could not tell, whose last told row stands (a hedge that matured unrolled settles through cycles that cannot tell the side).
  const told = new Map(
    [...rowsNow].map(([key, row]) => [key, row.current_unknown ? (state.rows.get(key) ?? row) : row]),
  );
  return { state: { active: edges.active, rows: rows ? told : state.rows, rolling }, notices };
}

/** A condition shown now, keyed by its cause and the side it is about, if any. */
function condition(cause: AlertCause, message: string, row?: { market: string; side: string }, trigger?: KeepEvent) {
  return { key: row ? `${cause}|${rowKey(row)}` : cause, cause, ...row, message, ...(trigger && { trigger }) };
}

/** The keeper's events: what they show, and which rows a step of it changed (succeeded) or tried to roll. */
function eventConditions(events: readonly KeepEvent[]) {
  const shown = [];
  const succeeded = new Set<string>();
  const rolling = new Set<string>();
  for (const event of events) {
    const { market, side, action, message, code } = event;
    const row =
      typeof market === 'string' && typeof side === 'string' ? { market: market.toUpperCase(), side } : undefined;
    const key = row && rowKey(row);
    const kind = event.event;
    if (key && SUCCESS_EVENTS.includes(kind) && event.dry_run !== true) succeeded.add(key);
    if (key && (kind === 'roll' || (kind === 'error' && action === 'roll'))) rolling.add(key);
    if (kind === 'drift' && row)
      shown.push(condition('drift', describeDrift(event.notional_usd, event.target_usd), row, event));
    if (kind !== 'error') continue;
    if (event.phase === 'cycle')
      shown.push(
        condition('store_unreachable', String(message ?? 'the journal or team store cannot be used'), undefined, event),
      );
    else if (event.phase === 'read')
      shown.push(
        condition(
          'server_unreachable',
          `the book could not be read: ${String(message ?? code ?? 'no answer')}`,
          undefined,
          event,
        ),
      );
    // A wait that ran out with the order standing (still pending) is no refusal: the side settles once it fills.
    else if (row && typeof action === 'string' && code !== 'still_pending')
      shown.push(
        condition(
          'refused',
          `${action} failed: ${String(code ?? 'error')}: ${String(message ?? '')}`.trim(),
          row,
          event,
        ),
      );
  }
  return { shown, succeeded, rolling };
}

/** The drifts and missed rolls this cycle's rows show, against the previous cycle's. */
function* rowConditions(
  state: AlertState,
  { nowMs, serverNowMs, toleranceUsd }: CycleObservation,
  rowsNow: ReadonlyMap<string, KeepRowStatus>,
  rolling: ReadonlySet<string>,
) {
  for (const [key, row] of rowsNow) {
    // A side that cannot be told this cycle starts nothing; it is judged once it can, against the last cycle that could tell it (kept in the state).
    if (row.current_unknown || row.not_this_rows) continue;
    const base = { market: row.market.toUpperCase(), side: row.side };
    const current = row.current_usd;
    // A drift is a held side's: a flat one under its target is re-opened, or says why not.
    if (current !== null && !onTarget(current, row.target_usd, toleranceUsd))
      yield condition('drift', describeDrift(current, row.target_usd), base);
    const before = state.rows.get(key);
    const dueAt = before?.next_action === 'roll' ? Date.parse(before.next_action_at ?? '') : NaN;
    const held = before?.current_usd;
    // The keeper's own re-open of it in this cycle does not matter: the side settled before it.
    if (held && !current && dueAt <= (serverNowMs ?? nowMs) && !state.rolling?.has(key) && !rolling.has(key))
      yield condition(
        'missed_roll',
        `${formatUsd(held)} settled instead of being rolled (its roll was due ${before.next_action_at})`,
        base,
      );
  }
}

/** The account's headroom and each side's capacity, against the threshold. */
function* headroomConditions({ headroom, thresholdUsd }: CycleObservation) {
  if (headroom && thresholdUsd !== undefined) {
    const below = `below ${formatUsd(thresholdUsd)}`;
    const usd = headroom.exposureHeadroomUsd;
    if (usd !== undefined && usd < thresholdUsd)
      yield condition('exposure_headroom_low', `headroom under the exposure cap is ${formatUsd(usd)}, ${below}`);
    for (const [key, capacity] of headroom.capacityUsd) {
      const [market, side] = key.split(' ');
      if (capacity < thresholdUsd)
        yield condition('capacity_low', `${key} has ${formatUsd(capacity)} of capacity left, ${below}`, {
          market,
          side,
        });
    }
  }
}

/** Whether an active alert not seen again stands: a condition this cycle could not judge, or one that clears only once its row is back at target (a refusal backs off and is not retried every cycle). */
function stillHolds(
  { cause, market, side }: ActiveAlert,
  { rows, headroom, toleranceUsd }: CycleObservation,
  rowsNow: ReadonlyMap<string, KeepRowStatus>,
  succeeded: ReadonlySet<string>,
) {
  // Cleared by a cycle that finished (its rows came) without the store or the read failing (a failure shows it again).
  if (cause === 'store_unreachable' || cause === 'server_unreachable') return !rows;
  if (cause === 'exposure_headroom_low' || cause === 'capacity_low') return !headroom;
  if (!ROW_CAUSES.includes(cause) || market === undefined || side === undefined) return false;
  if (!rows) return true;
  const key = rowKey({ market, side });
  const row = rowsNow.get(key);
  // A refusal, a missed roll or a drift clears when the row is back at target (or a step of it succeeded and it is) — never because a cycle did not see it: a side whose views disagree (settling, its own roll landing) shows no notional, which says nothing about the drift. A row no longer in the target has nothing left to alert about.
  if (!row) return false;
  return !onTarget(row.current_usd, row.target_usd, toleranceUsd) && !(succeeded.has(key) && row.target_usd === 0);
}

/** The notice of an alert that starts, or of one that clears with how long it held. */
function noticeOf(
  alert: AlertNotice['alert'],
  { key, cause, market, side, message, since, trigger }: ActiveAlert,
  at: string,
  nowMs: number,
): AlertNotice {
  const subject = market !== undefined ? `${market} ${side}: ${CAUSE_WORDS[cause]}` : CAUSE_WORDS[cause];
  const head = {
    alert,
    key,
    cause,
    ...(market !== undefined && side !== undefined && { market, side }),
    message,
    since,
    at,
  };
  if (alert === 'started')
    return { ...head, text: `hedge keep alert — ${subject} — ${message}`, ...(trigger && { trigger }) };
  const heldMs = Math.max(0, nowMs - Date.parse(since));
  const text = `hedge keep recovered — ${subject} (held ${formatSpan(heldMs)})`;
  return { ...head, duration_s: Math.round(heldMs / 1000), text };
}
