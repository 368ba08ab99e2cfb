// The pre-trade checks against live facts: reads the markets list and the account (in parallel)
// and throws the first problem the pure rules (domain/pre-trade.ts) find. Nothing is sent.
import type { HedgeClient } from '../api/client.js';
import { preTradeProblem, type PreTradeFacts, type PreTradeRequest } from '../domain/pre-trade.js';

/** Reads what the checks need: the live markets list and the account summary, in parallel. */
export async function fetchPreTradeFacts(client: HedgeClient): Promise<PreTradeFacts> {
  const [list, account] = await Promise.all([client.listMarkets(), client.getAccount()]);
  return { markets: list.markets, account };
}

/** Fetches the facts and throws the first failed check; returns the facts for later use. */
export async function runPreTradeChecks(client: HedgeClient, request: PreTradeRequest): Promise<PreTradeFacts> {
  const facts = await fetchPreTradeFacts(client);
  const problem = preTradeProblem(facts, request);
  if (problem) throw problem;
  return facts;
}
