// Alerts as pure rules, for `--watch` and for the keeper: which conditions hold, and which start and clear now.
import { formatUsd } from './number-format.js';
import { withoutUndefined } from './objects.js';
import type { KeepEvent, KeepRowStatus } from './keep-rules.js';

export interface AlertRules {
  pnlAtOrBelowUsd?: number;
  maturityWithinMs?: number;
  maturityWithinText?: string;
}

/** What a snapshot says that an alert can be about. */
export interface AlertFacts {
  netPnlUsd?: number;
  maturities: MaturityFact[];
}

export interface MaturityFact {
  key: string;
  maturityAt: string;
  market?: string;
  side?: string;
  hedgeId?: string;
}

export type Alert =
  | { kind: 'pnl'; key: string; netPnlUsd: number; thresholdUsd: number }
  | (MaturityFact & { kind: 'maturity'; secondsLeft: number; within: string });

export function alertConditions(facts: AlertFacts, rules: AlertRules, nowMs: number) {
  const holding: Alert[] = [];
  if (
    rules.pnlAtOrBelowUsd !== undefined &&
    facts.netPnlUsd !== undefined &&
    facts.netPnlUsd <= rules.pnlAtOrBelowUsd
  ) {
    holding.push({ kind: 'pnl', key: 'pnl', netPnlUsd: facts.netPnlUsd, thresholdUsd: rules.pnlAtOrBelowUsd });
  }
  if (rules.maturityWithinMs !== undefined) {
    for (const fact of facts.maturities) {
      const at = Date.parse(fact.maturityAt);
      if (Number.isNaN(at)) continue;
      const left = at - nowMs;
      if (left > rules.maturityWithinMs) continue;
      holding.push({
        kind: 'maturity',
        key: `maturity:${fact.key}`,
        maturityAt: fact.maturityAt,
        secondsLeft: Math.max(0, Math.floor(left / 1000)),
        within: rules.maturityWithinText ?? `${Math.round(rules.maturityWithinMs / 1000)}s`,
        ...withoutUndefined({ market: fact.market, side: fact.side, hedgeId: fact.hedgeId }),
      });
    }
  }
  return holding;
}

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

export type AlertCause = keyof typeof CAUSE_WORDS;

interface AlertCondition {
  key: string;
  cause: AlertCause;
  market?: string;
  side?: string;
  message: string;
  trigger?: KeepEvent;
}

export interface ActiveAlert extends AlertCondition {
  since: string;
}

/** What is sent: the start or the clearing of one condition. */
export interface AlertNotice extends ActiveAlert {
  alert: 'started' | 'recovered';
  at: string;
  duration_s?: number;
  text: string;
}

interface HeadroomReading {
  exposureHeadroomUsd?: number;
  capacityUsd: ReadonlyMap<string, number>;
}

export interface CycleObservation {
  nowMs: number;
  events: readonly KeepEvent[];
  rows?: readonly KeepRowStatus[];
  serverNowMs?: number;
  toleranceUsd: number;
  headroom?: HeadroomReading;
  thresholdUsd?: number;
}

interface AlertState {
  active: ReadonlyMap<string, ActiveAlert>;
  rows: ReadonlyMap<string, KeepRowStatus>;
  /** Rows the keeper tried to roll at the previous observation (a roll event, or a roll that failed): flat now because of its own roll, never a missed one (a failed roll's open is a `refused` alert). */
  rolling?: ReadonlySet<string>;
}

export const NO_ALERTS: AlertState = { active: new Map(), rows: new Map() };

const ROW_CAUSES: ReadonlySet<AlertCause> = new Set(['missed_roll', 'drift', 'refused', 'capacity_low']);
const SUCCESS_EVENTS: ReadonlySet<string> = new Set(['roll', 'reopen', 'converge']);

export function rowKeyOf(market: string, side: string) {
  return `${market.toUpperCase()} ${side}`;
}

/** One step: the conditions this cycle shows, against those active; what starts and what clears. */
export function stepAlerts(state: AlertState, observation: CycleObservation) {
  const { rows, nowMs, toleranceUsd, headroom, thresholdUsd } = observation;
  const holding: Holding = new Map();
  const { succeeded, rolling, readFailed, storeFailed } = eventConditions(observation.events, holding);
  const rowsNow = new Map((rows ?? []).map((row) => [rowKeyOf(row.market, row.side), row]));
  if (rows) rowConditions(holding, state, rowsNow, rolling, observation.serverNowMs ?? nowMs, toleranceUsd);
  if (headroom && thresholdUsd !== undefined) headroomConditions(holding, headroom, thresholdUsd);

  // What stands without being seen again: a condition this cycle could not judge, or one that clears only once its row is back at target (a refusal backs off and is not retried every cycle).
  const stillHolds = (active: ActiveAlert) => {
    switch (active.cause) {
      case 'store_unreachable':
        // Cleared by a cycle that finished (its rows came) without the store failing.
        return !rows || storeFailed;
      case 'server_unreachable':
        return !rows || readFailed;
      case 'exposure_headroom_low':
      case 'capacity_low':
        return !headroom;
    }
    if (!ROW_CAUSES.has(active.cause) || active.market === undefined || active.side === undefined) return false;
    if (!rows) return true;
    const key = rowKeyOf(active.market, active.side);
    const row = rowsNow.get(key);
    // A refusal, a missed roll or a drift clears when the row is back at target (or a step of it succeeded and it is) — never because a cycle did not see it: a side whose views disagree (settling, its own roll landing) shows no notional, which says nothing about the drift. A row no longer in the target has nothing left to alert about.
    if (!row) return false;
    const current = row.current_usd ?? 0;
    const atTarget = Math.abs(current - row.target_usd) <= toleranceUsd && (row.target_usd === 0 || current > 0);
    return !atTarget && !(succeeded.has(key) && row.target_usd === 0);
  };
  for (const [key, active] of state.active) if (!holding.has(key) && stillHolds(active)) holding.set(key, active);

  const { active, notices } = startsAndClears(state.active, holding, nowMs);
  // The rows a next cycle is judged against: this cycle's, except a side it could not tell, whose last told row stands (a hedge that matured unrolled settles through cycles that cannot tell the side).
  const told = new Map(
    [...rowsNow].map(([key, row]) => [key, row.current_unknown === true ? (state.rows.get(key) ?? row) : row]),
  );
  return { state: { active, rows: rows ? told : state.rows, rolling }, notices };
}

/** The conditions a cycle shows, by key; the first one seen for a key stands. */
type Holding = Map<string, AlertCondition>;

function hold(holding: Holding, condition: Omit<AlertCondition, 'key'>) {
  const { cause, market, side } = condition;
  const key = market !== undefined && side !== undefined ? `${cause}|${rowKeyOf(market, side)}` : cause;
  if (!holding.has(key)) holding.set(key, { key, ...condition });
}

/** "holds 1,000.00 USD, target 2,000.00 USD" */
function describeDrift(current: unknown, target: unknown) {
  const usd = (value: unknown) => (typeof value === 'number' ? formatUsd(value) : `${String(value ?? '?')} USD`);
  return `holds ${usd(current)}, target ${usd(target)}`;
}

/** The conditions the keeper's events show, and what they tell of the rows (stepped, rolling) and of the cycle (failed). */
function eventConditions(events: readonly KeepEvent[], holding: Holding) {
  const succeeded = new Set<string>();
  const rolling = new Set<string>();
  let readFailed = false;
  let storeFailed = false;
  for (const event of events) {
    const row =
      typeof event.market === 'string' && typeof event.side === 'string'
        ? { market: event.market.toUpperCase(), side: event.side }
        : undefined;
    const key = row && rowKeyOf(row.market, row.side);
    if (SUCCESS_EVENTS.has(event.event) && key && event.dry_run !== true) succeeded.add(key);
    if (key && (event.event === 'roll' || (event.event === 'error' && event.action === 'roll'))) rolling.add(key);
    if (event.event === 'drift' && row)
      hold(holding, {
        cause: 'drift',
        ...row,
        message: describeDrift(event.notional_usd, event.target_usd),
        trigger: event,
      });
    if (event.event !== 'error') continue;
    if (event.phase === 'cycle') {
      storeFailed = true;
      hold(holding, {
        cause: 'store_unreachable',
        message: String(event.message ?? 'the journal or team store cannot be used'),
        trigger: event,
      });
    } else if (event.phase === 'read') {
      readFailed = true;
      hold(holding, {
        cause: 'server_unreachable',
        message: `the book could not be read: ${String(event.message ?? event.code ?? 'no answer')}`,
        trigger: event,
      });
    } else if (row && typeof event.action === 'string') {
      hold(holding, {
        cause: 'refused',
        ...row,
        message: `${event.action} failed: ${String(event.code ?? 'error')}: ${String(event.message ?? '')}`.trim(),
        trigger: event,
      });
    }
  }
  return { succeeded, rolling, readFailed, storeFailed };
}

/** The drifts and missed rolls this cycle's rows show, against the previous cycle's. */
function rowConditions(
  holding: Holding,
  state: AlertState,
  rowsNow: ReadonlyMap<string, KeepRowStatus>,
  rolling: ReadonlySet<string>,
  serverNowMs: number,
  toleranceUsd: number,
) {
  for (const [key, row] of rowsNow) {
    const base = { market: row.market.toUpperCase(), side: row.side };
    // A side that cannot be told this cycle starts nothing; it is judged once it can, against the last cycle that could tell it (kept below).
    if (row.current_unknown === true) continue;
    const current = row.current_usd ?? 0;
    if (current > 0 && Math.abs(current - row.target_usd) > toleranceUsd)
      hold(holding, { cause: 'drift', ...base, message: describeDrift(current, row.target_usd) });
    const before = state.rows.get(key);
    const dueAt =
      before?.next_action === 'roll' && before.next_action_at ? Date.parse(before.next_action_at) : Number.NaN;
    // The keeper's own re-open of it in this cycle does not matter: the side settled before it.
    const keeperRolled = state.rolling?.has(key) === true || rolling.has(key);
    if (before?.current_usd && before.current_usd > 0 && current === 0 && dueAt <= serverNowMs && !keeperRolled) {
      hold(holding, {
        cause: 'missed_roll',
        ...base,
        message: `${formatUsd(before.current_usd)} settled instead of being rolled (its roll was due ${before.next_action_at})`,
      });
    }
  }
}

function headroomConditions(holding: Holding, headroom: HeadroomReading, threshold: number) {
  const { exposureHeadroomUsd, capacityUsd } = headroom;
  if (exposureHeadroomUsd !== undefined && exposureHeadroomUsd < threshold) {
    hold(holding, {
      cause: 'exposure_headroom_low',
      message: `headroom under the exposure cap is ${formatUsd(exposureHeadroomUsd)}, below ${formatUsd(threshold)}`,
    });
  }
  for (const [key, capacity] of capacityUsd) {
    if (capacity >= threshold) continue;
    const [market, side] = key.split(' ');
    hold(holding, {
      cause: 'capacity_low',
      market,
      side,
      message: `${key} has ${formatUsd(capacity)} of capacity left, below ${formatUsd(threshold)}`,
    });
  }
}

function startsAndClears(before: ReadonlyMap<string, ActiveAlert>, holding: Holding, nowMs: number) {
  const at = new Date(nowMs).toISOString();
  const edges = alertEdges(
    before,
    [...holding.values()].map((condition) => ({ ...condition, since: at })),
  );
  const notice = (
    was: ActiveAlert,
    alert: AlertNotice['alert'],
    told: Pick<AlertNotice, 'text' | 'duration_s' | 'trigger'>,
  ) => ({
    alert,
    key: was.key,
    cause: was.cause,
    ...(was.market !== undefined && was.side !== undefined && { market: was.market, side: was.side }),
    message: was.message,
    since: was.since,
    at,
    ...told,
  });
  const subject = ({ market, side, cause }: ActiveAlert) =>
    market !== undefined ? `${market} ${side}: ${CAUSE_WORDS[cause]}` : CAUSE_WORDS[cause];
  const notices = [
    ...edges.started.map((alert) =>
      notice(alert, 'started', {
        text: `hedge keep alert — ${subject(alert)} — ${alert.message}`,
        ...(alert.trigger && { trigger: alert.trigger }),
      }),
    ),
    ...edges.cleared.map((was) => {
      const durationS = Math.max(0, Math.round((nowMs - Date.parse(was.since)) / 1000));
      return notice(was, 'recovered', {
        duration_s: durationS,
        text: `hedge keep recovered — ${subject(was)} (held ${formatSeconds(durationS)})`,
      });
    }),
  ];
  return { active: edges.active, notices };
}

function formatSeconds(seconds: number) {
  if (seconds < 60) return `${seconds}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m ${seconds % 60}s`;
  return `${Math.floor(seconds / 3600)}h ${Math.floor((seconds % 3600) / 60)}m`;
}
