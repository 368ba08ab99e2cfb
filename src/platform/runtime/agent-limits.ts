// What an agent's call brings besides its arguments: where target files come from, trade limits, its token's plan.
import type { ApiRequest } from '../api/transport.js';
import type { SideAfter } from '../journal/index.js';

export interface TargetFileSource {
  read(file: string): Promise<{ text: string; sourceName: string }>;
}

export interface Trade {
  market: string;
  notionalUsd: number;
  /** The hedges its side held and their notional when read: a confirmation binds them (features/write/as-shown.ts). */
  held?: SideAfter;
}

/** The operator's limits on an agent's call (`hedge mcp --max-notional`, `--max-daily-notional`, `--markets`). */
export interface TradeGate {
  admit(trades: readonly Trade[] | undefined, what: string, again?: Readmission): Promise<void>;
}

/** An action judged anew: its amount replaces what was counted for it before, never adds to it. */
export interface Readmission {
  /** What this call admitted for the action before (a retry): replaced by `trades`. */
  replacing?: readonly Trade[];
  /** The journal entry the action finishes (a resume): what it recorded leaves the daily count, `trades` counts instead. */
  finishing?: string;
}

/** A live write an agent confirmed with a token: the command passes the requests it is about to send, in order. */
export interface PlanCheck {
  check(requests: readonly ApiRequest[], trades: readonly Trade[] | undefined): void;
}
