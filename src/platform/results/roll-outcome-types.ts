// What a roll did and what its confirmation shows, as data (features/trade/roll.ts returns them).
import type { Quote } from '../api/schemas.js';
import type { JsonObject } from '../../core/objects.js';
import type { DryRunView } from './dry-run-view.js';

/** The roll as data (`--json`): both legs, each with its journal entry. */
export interface RollView {
  market: string;
  side: string;
  notional_usd: number;
  tenor_days: number;
  rolled_hedge_id: string | null;
  journal_group: string;
  /** null when nothing was open to close (the side had settled: the roll opened anew). */
  close: {
    journal_id: string | null;
    outcome: string;
    hedge_id: string | null;
    order_tx_hash: string | null;
    net_margin_usd: number | null;
    realized: JsonObject | null;
  } | null;
  open: {
    journal_id: string;
    outcome: string;
    hedge_id: string | null;
    hedge: JsonObject | null;
    quote: Quote | null;
  };
}

export type RollOutcome =
  | {
      kind: 'dry-run';
      legs: Array<{ leg: string; request: DryRunView; note?: string }>;
      /** What the roll has to say besides its result (a leg found settled, a roll set aside by --new). */
      notes: string[];
    }
  | {
      kind: 'rolled';
      view: RollView;
      /** The open leg's key: what the keeper's event names. */
      idempotencyKey: string | null;
      /** The new hedge was read once it landed (not only its submission answered). */
      landed: boolean;
      covered: boolean;
      failure?: Error;
      notes: string[];
    };

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
    hedges?: ReadonlyArray<{ id: string; notionalUsd?: number; maturityAtMs?: number }>;
  };
  ended?: { id: string; maturity_at?: string | null; status: string };
  quote: Quote;
}
