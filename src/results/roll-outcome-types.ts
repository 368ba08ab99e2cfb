// What a roll did and what it shows before its confirmation, as data (flows/roll.ts returns them;
// ui/roll-view.ts and ui/roll-outcome.ts render them, the keeper reads them).
import type { Quote } from '../api/schemas.js';

/** The roll as data (`--json`): both legs, each with its journal entry. */
export interface RollView {
  market: string;
  side: string;
  notional_usd: number;
  tenor_days: number;
  /** The hedge being rolled: the one closed, or the one that had already settled. */
  rolled_hedge_id: string | null;
  journal_group: string;
  /** null when nothing was open to close (the side had settled: the roll opened anew). */
  close: {
    journal_id: string | null;
    outcome: string;
    hedge_id: string | null;
    order_tx_hash: string | null;
    /** What closing was expected to return: the position's net margin just before the close. */
    net_margin_usd: number | null;
    /** The closed hedge's history record, when it appeared in time. */
    realized: Record<string, unknown> | null;
  } | null;
  open: {
    journal_id: string;
    outcome: string;
    hedge_id: string | null;
    /** The new hedge as the server sent it (filled), or the submit answer with --no-wait. */
    hedge: Record<string, unknown> | null;
    /** The quote shown before the confirmation (null when the roll was resumed). */
    quote: Quote | null;
  };
}

/** A request as the dry run shows it (flows/dry-run.ts describePlannedRequest makes it). */
export interface PlannedRequestView {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: unknown;
}

/** Something the roll has to say besides its result (a leg found settled, a roll set aside by --new). */
export interface RollNote {
  level: 'note' | 'warn';
  text: string;
}

/** One leg of a roll as it ended: its journal entry, key and hedge. */
interface RollLegOutcome {
  journalId: string | null;
  idempotencyKey: string | null;
  hedgeId: string | null;
  /** The journal's outcome of the leg (filled, done, submitted, unknown, …). */
  outcome: string;
}

/** What a roll did (flows/roll.ts returns it), for the command to render and the keeper to report. */
export type RollOutcome =
  | {
      kind: 'dry-run';
      market: string;
      side: 'buy' | 'sell';
      legs: Array<{ leg: string; request: PlannedRequestView; note?: string }>;
      notes: RollNote[];
    }
  | {
      kind: 'rolled';
      market: string;
      side: 'buy' | 'sell';
      notionalUsd: number;
      tenorDays: number;
      group: string;
      /** Finished from the journal (an earlier run's roll), not planned by this run. */
      resumed: boolean;
      /** The hedge being rolled: the one closed, or the one that had already settled. */
      rolledHedgeId: string | null;
      /** null: nothing was open to close (the side had settled, the roll opened anew). */
      closed: RollLegOutcome | null;
      /** landed: the new hedge was waited for and resolved (false: submitted, --no-wait or a resumed record). */
      opened: RollLegOutcome & { maturityAt: string | null; status: string | null; landed: boolean };
      /** Whether the side is covered now: the new hedge filled, or submitted and not failed. */
      covered: boolean;
      /** The new hedge failed on-chain: the command renders the roll, then fails with this. */
      failure?: Error;
      view: RollView;
      notes: RollNote[];
    };

/** What the confirmation shows of each leg. */
export interface RollPreview {
  market: string;
  side: string;
  notionalUsd: number;
  tenorDays: number;
  /** `hedges`: the side's hedges when it holds several (a close closes them all). */
  closing?: {
    hedgeId?: string;
    netMarginUsd?: number;
    maturityAt?: string;
    hedges?: Array<{ id: string; notionalUsd?: number; maturityAtMs?: number }>;
  };
  /** The hedge that already settled, when there is nothing to close. */
  ended?: { id: string; maturityAt?: string | null; status: string };
  quote: Quote;
}
