// The numbers a write's confirmation step shows an agent (a LIVE key with --allow-live: the first call sends nothing
// and answers with a preview and a token), as the terminal shows a person the quote card before asking: for open, the
// quote; for add, the position and the quote of the addition (at the tenor that covers its maturity); for reduce and
// close, the position as it is now (its net_margin_usd is what closing returns; a reduce also its share); for roll, the
// position and the quote of the new hedge.
import { readPosition } from '../../platform/api/wire/fields.js';
import type { RawInput } from '../runner/command-spec.js';
import { additionQuoteTenor } from '../../features/trade/pre-trade.js';
import { parseMarket, parseNotional } from '../../core/input.js';
import type { JsonObject } from '../../core/objects.js';
import { onSide } from '../../features/book/positions.js';

/** Runs a read tool (by name) and keeps its JSON under `key` in the preview; a failure is the call's answer, unless it is only looked up (`lookUp`: its error is kept beside it). */
export type PreviewStep<F> = (key: string, tool: string, input: RawInput, lookUp?: boolean) => Promise<F | undefined>;

/** For open, the quote is a step (as it always was: a refused quote is the call's answer). */
export async function previewTradeNumbers<F>(
  tool: string,
  { args: { market, side, notional }, options: { tenor } }: RawInput,
  step: PreviewStep<F>,
  preview: JsonObject,
  now: () => number,
) {
  if (!market || !side) return;
  const quote = (amount: string, days: string, lookUp?: boolean) =>
    step('quote', 'quote', { args: { market, side, notional: amount }, options: { tenor: days } }, lookUp);
  if (tool === 'open') return notional && typeof tenor === 'string' ? quote(notional, tenor) : undefined;
  if (!['add', 'reduce', 'close', 'roll'].includes(tool)) return;
  await step('position', 'positions', { args: {}, options: {} }, true);
  const wanted = parseMarket(market);
  const rows = Array.isArray(preview.position) ? (preview.position as JsonObject[]) : [];
  const row = rows.find((candidate) => onSide(readPosition(candidate), { market: wanted, side }));
  if (preview.position_error === undefined) preview.position = row ?? null;
  const facts = row && readPosition(row);
  if (tool === 'reduce' && facts?.notionalUsd && notional)
    preview.share_of_position = Math.min(
      1,
      Math.round((parseNotional(notional) / facts.notionalUsd) * 10_000) / 10_000,
    );
  if (tool === 'add' && notional) {
    const covering = additionQuoteTenor(
      facts?.maturityAt,
      now(),
      typeof row?.tenor_days === 'number' ? row.tenor_days : undefined,
    );
    return quote(notional, String(covering), true);
  }
  if (tool === 'roll' && facts?.notionalUsd && typeof tenor === 'string')
    return quote(String(facts.notionalUsd), tenor, true);
}
