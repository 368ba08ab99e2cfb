// What the write flow asks of an agent's call before a write leaves (runWrite's first step): the
// plan a live confirmation token was issued for (its requests, and what they trade as the side is
// now: runtime PlanCheck), and the operator's limits
// (runtime TradeGate) — on the action's trades before its first send, and again before every retry
// of it, since the side a close empties may have grown meanwhile (a change still landing answers
// 409 with Retry-After, and the same request is sent again a second later). And what a journaled
// action traded, as the daily cap counts it.
import type { ApiRequest, SendHooks } from '../api/transport.js';
import { readNumber } from '../core/number-format.js';
import { POSITION_FIELD_SYNONYMS } from '../api/wire/fields.js';
import { PreTradeCheckError } from '../errors.js';
import type { JournalEntry } from '../journal/index.js';
import type { FlowPorts } from '../runtime/context.js';
import type { Trade } from '../runtime/agent-limits.js';
import { bodyOf } from '../journal/index.js';

/** What of a write flow's action the checks read (WriteAction, write-flow.ts). */
interface GatedAction {
  command: string;
  admitted?: boolean;
  plan(key: string): ApiRequest;
  trades?(): Promise<Trade[] | undefined>;
}

/** What of the write flow's run the checks read (WriteRun, write-flow.ts). */
interface GatedRun {
  key: string;
  resumed: boolean;
  unverified?: boolean;
  entry?: Pick<JournalEntry, 'id' | 'via'>;
}

/**
 * Asks the call's checks about `action` before it is journaled and sent, and returns the hook that
 * asks its limits again before each retry (undefined when there is nothing to ask). A refusal
 * throws PreTradeCheckError: before the first send, nothing was sent; at a retry after the server
 * refused the last attempt for a conflict, nothing happened (the write flow journals it rejected);
 * at a retry after an attempt that may have acted (no answer, a 5xx), its outcome stays unknown.
 */
export async function gateTheSend(
  ports: Pick<FlowPorts, 'tradeGate' | 'planCheck'>,
  action: GatedAction,
  run: GatedRun,
): Promise<SendHooks | undefined> {
  // A leg of a plan (an apply's step, a roll's leg) was checked with the plan, by its caller; a
  // journaled action finished again (its row verified: row-trust.ts) is no new plan.
  const planCheck = !action.admitted && !run.resumed ? ports.planCheck : undefined;
  const gate = ports.tradeGate;
  // What it trades as the side is now (a close: what it holds), under the side's lock.
  let judged: readonly Trade[] | undefined = planCheck || gate ? await action.trades?.() : undefined;
  planCheck?.check([action.plan(run.key)], judged);
  if (!gate) return undefined;
  if (!action.admitted) {
    // An entry the agent journaled itself was counted when it was first sent: it is judged anew
    // in place of what it recorded, not on top of it.
    const own = run.resumed && !run.unverified && run.entry?.via === 'agent' ? run.entry.id : undefined;
    await gate.admit(judged, action.command, own === undefined ? undefined : { finishing: own });
  }
  if (judged === undefined) return undefined;
  return {
    beforeRetry: async (reason) => {
      const now = await action.trades?.();
      try {
        await gate.admit(now, action.command, { replacing: judged });
      } catch (error) {
        if (reason === 'conflict' || !(error instanceof PreTradeCheckError)) throw error;
        // The attempt before may have acted: not a refusal of the action, whose outcome is unknown.
        throw new Error(error.message, { cause: error });
      }
      judged = now;
    },
  };
}

/** What a journal entry traded: what it recorded it moved (a close), else its body's notional (open, add, reduce), else its context's. */
export function tradedUsd(entry: Pick<JournalEntry, 'request' | 'context' | 'traded_usd'>): number {
  if (typeof entry.traded_usd === 'number') return Math.abs(entry.traded_usd);
  for (const name of POSITION_FIELD_SYNONYMS.notionalUsd) {
    const value = readNumber(bodyOf(entry)[name]);
    if (value !== undefined) return Math.abs(value);
  }
  return Math.abs(readNumber(entry.context?.notional_usd) ?? 0);
}
