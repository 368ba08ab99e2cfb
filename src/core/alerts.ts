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

export function rowKeyOf(market: string, side: string) {
  return `${market.toUpperCase()} ${side}`;
}

/** "holds 1,000.00 USD, target 2,000.00 USD" */
function describeDrift(current: unknown, target: unknown) {
  const usd = (value: unknown) => (typeof value === 'number' ? formatUsd(value) : `${String(value ?? '?')} USD`);
  return `holds ${usd(current)}, target ${usd(target)}`;
}

/** One step: the conditions this cycle shows, against those active; what starts and what clears. */
export function stepAlerts(state: AlertState, observation: CycleObservation) {
  const { rows, nowMs, toleranceUsd, headroom, thresholdUsd } = observation;
  // The conditions this cycle shows, by key; the first one seen for a key stands.
  const holding = new Map<string, AlertCondition>();
  const hold = (cause: AlertCause, message: string, row?: { market: string; side: string }, trigger?: KeepEvent) => {
    const key = row ? `${cause}|${rowKeyOf(row.market, row.side)}` : cause;
    if (!holding.has(key)) holding.set(key, { key, cause, ...row, message, ...(trigger && { trigger }) });
  };

  // The keeper's events: what they show, and which rows a step of it changed (succeeded) or tried to roll.
  const succeeded = new Set<string>();
  const rolling = new Set<string>();
  for (const event of observation.events) {
    const { market, side, action } = event;
    const row =
      typeof market === 'string' && typeof side === 'string' ? { market: market.toUpperCase(), side } : undefined;
    const key = row && rowKeyOf(row.market, row.side);
    if (key && SUCCESS_EVENTS.includes(event.event) && event.dry_run !== true) succeeded.add(key);
    if (key && (event.event === 'roll' || (event.event === 'error' && action === 'roll'))) rolling.add(key);
    if (event.event === 'drift' && row) hold('drift', describeDrift(event.notional_usd, event.target_usd), row, event);
    if (event.event !== 'error') continue;
    if (event.phase === 'cycle')
      hold('store_unreachable', String(event.message ?? 'the journal or team store cannot be used'), undefined, event);
    else if (event.phase === 'read')
      hold(
        'server_unreachable',
        `the book could not be read: ${String(event.message ?? event.code ?? 'no answer')}`,
        undefined,
        event,
      );
    else if (row && typeof action === 'string')
      hold(
        'refused',
        `${action} failed: ${String(event.code ?? 'error')}: ${String(event.message ?? '')}`.trim(),
        row,
        event,
      );
  }

  // The drifts and missed rolls this cycle's rows show, against the previous cycle's.
  const rowsNow = new Map((rows ?? []).map((row) => [rowKeyOf(row.market, row.side), row]));
  for (const [key, row] of rowsNow) {
    // A side that cannot be told this cycle starts nothing; it is judged once it can, against the last cycle that could tell it (kept below).
    if (row.current_unknown === true) continue;
    const base = { market: row.market.toUpperCase(), side: row.side };
    const current = row.current_usd ?? 0;
    if (current > 0 && Math.abs(current - row.target_usd) > toleranceUsd)
      hold('drift', describeDrift(current, row.target_usd), base);
    const before = state.rows.get(key);
    const dueAt =
      before?.next_action === 'roll' && before.next_action_at ? Date.parse(before.next_action_at) : Number.NaN;
    // The keeper's own re-open of it in this cycle does not matter: the side settled before it.
    const keeperRolled = state.rolling?.has(key) === true || rolling.has(key);
    if (
      before?.current_usd &&
      before.current_usd > 0 &&
      current === 0 &&
      dueAt <= (observation.serverNowMs ?? nowMs) &&
      !keeperRolled
    )
      hold(
        'missed_roll',
        `${formatUsd(before.current_usd)} settled instead of being rolled (its roll was due ${before.next_action_at})`,
        base,
      );
  }

  if (headroom && thresholdUsd !== undefined) {
    const below = `below ${formatUsd(thresholdUsd)}`;
    const usd = headroom.exposureHeadroomUsd;
    if (usd !== undefined && usd < thresholdUsd)
      hold('exposure_headroom_low', `headroom under the exposure cap is ${formatUsd(usd)}, ${below}`);
    for (const [key, capacity] of headroom.capacityUsd) {
      const [market, side] = key.split(' ');
      if (capacity < thresholdUsd)
        hold('capacity_low', `${key} has ${formatUsd(capacity)} of capacity left, ${below}`, { market, side });
    }
  }

  // What stands without being seen again: a condition this cycle could not judge, or one that clears only once its row is back at target (a refusal backs off and is not retried every cycle).
  const stillHolds = ({ cause, market, side }: ActiveAlert) => {
    // Cleared by a cycle that finished (its rows came) without the store or the read failing (a failure holds it above).
    if (cause === 'store_unreachable' || cause === 'server_unreachable') return !rows;
    if (cause === 'exposure_headroom_low' || cause === 'capacity_low') return !headroom;
    if (!ROW_CAUSES.includes(cause) || market === undefined || side === undefined) return false;
    if (!rows) return true;
    const key = rowKeyOf(market, side);
    const row = rowsNow.get(key);
    // A refusal, a missed roll or a drift clears when the row is back at target (or a step of it succeeded and it is) — never because a cycle did not see it: a side whose views disagree (settling, its own roll landing) shows no notional, which says nothing about the drift. A row no longer in the target has nothing left to alert about.
    if (!row) return false;
    const current = row.current_usd ?? 0;
    const atTarget = Math.abs(current - row.target_usd) <= toleranceUsd && (row.target_usd === 0 || current > 0);
    return !atTarget && !(succeeded.has(key) && row.target_usd === 0);
  };
  for (const [key, active] of state.active) if (!holding.has(key) && stillHolds(active)) holding.set(key, active);

  const at = new Date(nowMs).toISOString();
  const edges = alertEdges(
    state.active,
    [...holding.values()].map((condition) => ({ ...condition, since: at })),
  );
  const notice = (was: ActiveAlert, alert: AlertNotice['alert'], told: Partial<AlertNotice> & { text: string }) => ({
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
      const seconds = Math.max(0, Math.round((nowMs - Date.parse(was.since)) / 1000));
      const held =
        seconds < 60
          ? `${seconds}s`
          : seconds < 3600
            ? `${Math.floor(seconds / 60)}m ${seconds % 60}s`
            : `${Math.floor(seconds / 3600)}h ${Math.floor((seconds % 3600) / 60)}m`;
      return notice(was, 'recovered', {
        duration_s: seconds,
        text: `hedge keep recovered — ${subject(was)} (held ${held})`,
      });
    }),
  ];
  // The rows a next cycle is judged against: this cycle's, except a side it could not tell, whose last told row stands (a hedge that matured unrolled settles through cycles that cannot tell the side).
  const told = new Map(
    [...rowsNow].map(([key, row]) => [key, row.current_unknown === true ? (state.rows.get(key) ?? row) : row]),
  );
  return { state: { active: edges.active, rows: rows ? told : state.rows, rolling }, notices };
}
