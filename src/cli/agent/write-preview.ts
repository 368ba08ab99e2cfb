// The numbers a write's confirmation step shows an agent (a LIVE key with --allow-live: the first call sends nothing
// and answers with a preview and a token), as the terminal shows a person the quote card before asking: for open, the
// quote; for add, the position and the quote of the addition (at the tenor that covers its maturity); for reduce and
// close, the position as it is now (its net_margin_usd is what closing returns; a reduce also its share); for roll, the
// position and the quote of the new hedge.
import { readPosition } from '../../platform/api/wire/fields.js';
import type { RawInput } from '../runner/command-spec.js';
import { additionQuoteTenor } from '../../features/trade/pre-trade-rules.js';
import { parseMarket, parseNotional } from '../../core/input.js';
import type { AgentTool } from './catalogue.js';
import type { JsonObject } from '../../core/objects.js';

/** Runs a read tool and keeps its JSON under `key` in the preview; a failure is the call's answer. */
export type PreviewStep<F> = (key: string, tool: AgentTool, input: RawInput) => Promise<F | undefined>;

/** For open, the quote is a step (as it always was: a refused quote is the call's answer). */
export async function previewTradeNumbers<F>(
  tool: AgentTool,
  input: RawInput,
  deps: {
    tools: readonly AgentTool[];
    now: () => number;
    step: PreviewStep<F>;
    lookUp: PreviewStep<F>;
    preview: JsonObject;
  },
) {
  const { step, preview } = deps;
  const lookUp = deps.lookUp;
  const quoteTool = deps.tools.find((candidate) => candidate.name === 'quote');
  const positionsTool = deps.tools.find((candidate) => candidate.name === 'positions');
  const { market, side, notional } = input.args;
  const tenor = input.options.tenor;
  if (tool.name === 'open') {
    if (quoteTool && market && side && notional && typeof tenor === 'string')
      return step('quote', quoteTool, { args: { market, side, notional }, options: { tenor } });
    return;
  }
  if (!['add', 'reduce', 'close', 'roll'].includes(tool.name) || !positionsTool || !market || !side) return;
  await lookUp('position', positionsTool, { args: {}, options: {} });
  const wanted = parseMarket(market);
  const rows = Array.isArray(preview.position) ? (preview.position as Array<JsonObject>) : [];
  const row = rows.find((candidate) => {
    const facts = readPosition(candidate);
    return facts.side === side && (facts.market === undefined || facts.market.toUpperCase() === wanted);
  });
  if (preview.position_error === undefined) preview.position = row ?? null;
  const facts = row ? readPosition(row) : undefined;
  if (tool.name === 'reduce' && facts?.notionalUsd && notional)
    preview.share_of_position = Math.min(
      1,
      Math.round((parseNotional(notional) / facts.notionalUsd) * 10_000) / 10_000,
    );
  if (!quoteTool) return;
  if (tool.name === 'add' && notional) {
    const covering = additionQuoteTenor(
      facts?.maturityAt,
      deps.now(),
      typeof row?.tenor_days === 'number' ? row.tenor_days : undefined,
    );
    return lookUp('quote', quoteTool, { args: { market, side, notional }, options: { tenor: String(covering) } });
  }
  if (tool.name === 'roll' && facts?.notionalUsd && typeof tenor === 'string')
    return lookUp('quote', quoteTool, {
      args: { market, side, notional: String(facts.notionalUsd) },
      options: { tenor },
    });
  return;
}
