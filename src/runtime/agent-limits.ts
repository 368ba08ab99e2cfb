// What an agent's call through `hedge mcp` brings to a command besides its arguments: where its
// target files come from, the operator's limits on what it trades, and the plan its token confirmed.
// Unset at the CLI. Set by src/agent/, asked by the flows through their ports.
import type { ApiRequest } from '../api/transport.js';

/**
 * Where `plan` and `apply` get their target file's text. Unset: the file system (or stdin for
 * `-`), as the CLI reads it. `hedge mcp` sets one per call that reads only under its roots, or
 * takes the target inline (src/agent/file-access.ts).
 */
export interface TargetFileSource {
  read(file: string): Promise<{ text: string; sourceName: string }>;
}

/** One market's share of what an action trades, in USD of notional. */
export interface Trade {
  market: string;
  notionalUsd: number;
}

/**
 * The operator's limits on an agent's call (`hedge mcp --max-notional`, `--max-daily-notional`,
 * `--markets`; src/agent/guardrails.ts). A write asks it about the trades it is about to journal
 * and send — the plan it will carry out, decided under whatever lock it holds — so what is checked
 * is what is sent; and again before every send after the first (a retry, a resume), on what the
 * action trades then. `undefined` trades: the action cannot tell what it trades (refused under a
 * cap). Throws PreTradeCheckError (nothing sent) when the trades are over a limit. Unset at the CLI.
 */
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

/**
 * A live write an agent confirmed with a token (src/agent/confirmation.ts): where a command decides
 * its plan (a lone action, an apply's steps, a roll's legs) it passes the requests it is about to
 * send, in order, and what they trade (a close's body does not say: the side it empties does),
 * before the first leaves. A preview's dry run records them; the confirmed run throws when they
 * differ from what the preview showed. Unset at the CLI.
 */
export interface PlanCheck {
  check(requests: readonly ApiRequest[], trades: readonly Trade[] | undefined): void;
}
