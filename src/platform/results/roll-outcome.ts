// How `hedge roll` reads: both legs before the confirmation, and the result's fields (the dry run and the outcome
// are shown by cli/cmd/trade/roll.ts, where the outcome's type is).
import type { Hedge, Quote } from '../api/schemas.js';
import { safeText } from '../../core/security/safe-text.js';
import { fieldTable } from '../fields/fields.js';
import { formatDays, formatUtc } from '../terminal/format.js';
import { formatMoney, formatRate } from '../../core/number-format.js';
import { payOrEarn, toAccountSide } from '../../core/money.js';
import type { Output } from '../terminal/output.js';

interface RollPreview {
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
  ended?: Hedge;
  quote: Quote;
}

/** On a terminal: a card of both legs, as a person reads them before confirming. Otherwise one line on stderr. */
export function renderRollPreview(output: Output, { preview, nowMs }: { preview: RollPreview; nowMs: number }) {
  const { quote, closing, ended, side } = preview;
  const endedText = ended && `${safeText(ended.id)} is ${safeText(ended.status)}`;
  const market = safeText(preview.market);
  const days = formatDays(preview.tenorDays);
  const several = closing?.hedges;
  const one = closing?.hedgeId && safeText(closing.hedgeId);
  const returns = closing?.netMarginUsd === undefined ? undefined : formatMoney(closing.netMarginUsd);
  const upfront = formatMoney(quote.upfront.total_upfront_usdc);
  const closeText = closing
    ? `close ${side} ${market}${several ? ` (all ${several.length} of its hedges)` : one ? ` (${one})` : ''}${returns === undefined ? '' : `, returns about ${returns} USD`}`
    : `nothing to close (${endedText ?? 'already settled'})`;
  const opens = `${side} ${formatMoney(preview.notionalUsd)} USD on ${market} for ${days}`;
  output.cardOrNote(() => {
    const c = output.chalk;
    // The one time cell: how far off it is where it can be read, the text as sent where it cannot.
    const matures = (iso: string) => output.humanValue({ key: 'maturity_at', kind: 'time' }, iso, nowMs);
    const rows = [
      [
        '1. Close',
        closing
          ? `${side} ${market}${several ? ` · all ${several.length} hedges of the side` : one ? ` · ${one}` : ''}`
          : c.dim(
              `nothing open${ended ? `: ${endedText}${ended.maturity_at ? ` (matured ${formatUtc(ended.maturity_at)})` : ''}` : ''}`,
            ),
      ],
      // Each hedge the close ends, soonest to mature first: the later ones end before their maturity.
      ...(several ?? [])
        .toSorted((a, b) => (a.maturityAtMs ?? Infinity) - (b.maturityAtMs ?? Infinity))
        .map((hedge): [string, string] => [
          `   ${safeText(hedge.id)}`,
          `${hedge.notionalUsd === undefined ? '' : `${formatMoney(hedge.notionalUsd)} USD, `}${hedge.maturityAtMs === undefined ? 'maturity unknown' : `matures ${formatUtc(new Date(hedge.maturityAtMs).toISOString())}`}`,
        ]),
      ['   Matures', !several && closing?.maturityAt ? matures(closing.maturityAt) : undefined],
      [
        '   Returns (est.)',
        closing && (returns === undefined ? c.dim('unknown (no net margin in the positions list)') : `${returns} USD`),
      ],
      ['2. Open', opens],
      ['   Matures', matures(quote.maturity)],
      ['   Price (indicative)', formatRate(quote.pricing.execution_price)],
      [
        '   Upfront',
        `${upfront} USDC ${c.dim(`(margin ${formatMoney(quote.upfront.required_margin_usdc)} + fee ${formatMoney(quote.upfront.platform_fee_usdc)})`)}`,
      ],
      ['   Carry over the tenor', payOrEarn(toAccountSide(quote.carry.total_usdc))],
    ] as const;
    return output.card(rows, `Roll ${market} ${side} to ${days}`);
  }, `Roll: ${closeText}; then open ${opens}, about ${upfront} USDC upfront.`);
}

/** The result's card and TSV columns, in this order. */
export const ROLL_FIELDS = fieldTable(`
  market                  Market
  side                    Side                    side
  notional_usd            Notional (USD)          money
  rolled_hedge_id         Rolled hedge
  close_outcome           Close
  close_tx_hash           Close tx                hash
  returned_usd            Returned (est., USD)    money
  realized_net_pnl_usd    Realized net P&L (USD)  pnl
  hedge_id                New hedge
  status                  Status                  status
  tenor_days              Tenor (days)            count
  struck_rate             Struck rate             rate
  quoted_execution_price  Quoted price            rate
  upfront_usdc            Upfront (quoted, USDC)  money
  maturity_at             Maturity                time
  order_tx_hash           Order tx                hash
  journal_group           Journal group`);
