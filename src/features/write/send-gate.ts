// What the write flow asks of an agent's call before a write leaves: the plan a live confirmation token was issued
// for, and the operator's limits — before the first send and again before every retry.
import type { ApiRequest, SendHooks } from '../../platform/api/transport.js';
import { readNumber } from '../../core/number-format.js';
import { POSITION_FIELD_SYNONYMS } from '../../platform/api/wire/fields.js';
import { PreTradeCheckError } from '../../core/errors.js';
import { bodyOf, type JournalEntry } from '../../platform/journal/index.js';
import type { FlowPorts } from '../../platform/runtime/context.js';
import type { Trade } from '../../platform/runtime/agent-limits.js';

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

/** Asks the call's checks about `action` before it is sent; returns the hook that asks its limits before each retry. */
export async function gateTheSend(
  ports: FlowPorts,
  action: GatedAction,
  run: GatedRun,
): Promise<SendHooks | undefined> {
  // A plan's leg was checked with the plan by its caller; a journaled action finished again is no new plan.
  const planCheck = !action.admitted && !run.resumed ? ports.planCheck : undefined;
  const gate = ports.tradeGate;
  // What it trades as the side is now (a close: what it holds), under the side's lock.
  let judged: readonly Trade[] | undefined = planCheck || gate ? await action.trades?.() : undefined;
  planCheck?.check([action.plan(run.key)], judged);
  if (!gate) return undefined;
  if (!action.admitted) {
    // An entry the agent journaled itself is judged anew in place of what it recorded, not on top of it.
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
