// The alerts of `--watch` as pure rules: which conditions hold for one snapshot of the book, and
// which of them fire now. An alert fires once, when its condition starts to hold, and again only
// after it has cleared (a P&L back above the threshold, a hedge no longer listed); a refresh that
// failed says nothing either way, so the caller simply does not ask then.
import { parseDuration, type Duration } from './duration.js';
import { parseUsdAmount } from './input.js';

export interface AlertRules {
  /** --alert-pnl: net P&L at or below this many USD. */
  pnlAtOrBelowUsd?: number;
  /** --alert-maturity: a hedge maturing within this many ms (one already past maturity included). */
  maturityWithinMs?: number;
  /** --alert-maturity as typed (normalised), for the alert record: "6h". */
  maturityWithinText?: string;
}

/** What a snapshot says that an alert can be about. */
export interface AlertFacts {
  /** Net P&L in USD: the positions' net P&L summed, or the account's unrealized P&L; undefined when unknown. */
  netPnlUsd?: number;
  /** Everything with a known maturity (a position side, or the hedge watched). */
  maturities: MaturityFact[];
}

export interface MaturityFact {
  /** Stable while it is the same thing: its hedge id, else market and side. */
  key: string;
  maturityAt: string;
  market?: string;
  side?: string;
  hedgeId?: string;
}

export type Alert =
  | { kind: 'pnl'; key: string; netPnlUsd: number; thresholdUsd: number }
  | {
      kind: 'maturity';
      key: string;
      maturityAt: string;
      /** Whole seconds until maturity; 0 when it is already past. */
      secondsLeft: number;
      within: string;
      market?: string;
      side?: string;
      hedgeId?: string;
    };

/** Every alert condition that holds for these facts at `nowMs`. */
export function alertConditions(facts: AlertFacts, rules: AlertRules, nowMs: number): Alert[] {
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
        ...(fact.market !== undefined ? { market: fact.market } : {}),
        ...(fact.side !== undefined ? { side: fact.side } : {}),
        ...(fact.hedgeId !== undefined ? { hedgeId: fact.hedgeId } : {}),
      });
    }
  }
  return holding;
}

/**
 * The alerts that fire now: those holding that did not hold at the previous snapshot. `active`
 * is what to pass as `previous` next time (a condition that stopped holding is cleared).
 */
export function fireAlerts(
  previous: ReadonlySet<string>,
  holding: readonly Alert[],
): { fired: Alert[]; active: Set<string> } {
  return {
    fired: holding.filter((alert) => !previous.has(alert.key)),
    active: new Set(holding.map((alert) => alert.key)),
  };
}

// ---- Parsing the options ----------------------------------------------------------------------

/** --alert-pnl: a signed USD amount (`-500`, `-1_000`, `-2.5k`, `0`), in the one USD grammar (input.ts). */
export function parseAlertPnl(raw: string): number {
  return parseUsdAmount(raw, '--alert-pnl', 'signed');
}

/** --alert-maturity: `30m`, `6h`, `1d`, `1d12h`, `2w`. Returns the length in ms and the text as normalised. */
export function parseAlertDuration(raw: string): Duration {
  return parseDuration(raw, '--alert-maturity');
}
