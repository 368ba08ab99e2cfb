// How `hedge roll` reads: both legs before the confirmation, the dry run's two requests, and the outcome; a new
// hedge that failed on-chain is thrown after the card is shown.
import type { RollOutcome, RollPreview, RollView } from './roll-outcome-types.js';
import { historyRecordForPeople } from '../api/wire/fields.js';
import { safeText } from '../../core/security/safe-text.js';
import { fieldTable } from '../fields/fields.js';
import {
  formatDays,
  formatMoney,
  formatRate,
  formatRelative,
  formatUtc,
  formatUtcMinutes,
} from '../terminal/format.js';
import { requestText } from './dry-run-view.js';
import { payOrEarn, toAccountSide } from '../../core/money.js';
import type { Output } from '../terminal/output.js';

/** On a terminal: a card of both legs, as a person reads them before confirming. Otherwise one line on stderr. */
export function renderRollPreview(output: Output, preview: RollPreview, nowMs: number) {
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
    const matures = (iso: string) => `${formatUtc(iso)} ${c.dim(`(${formatRelative(iso, nowMs)})`)}`;
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
      ...[...(several ?? [])]
        .sort((a, b) => (a.maturityAtMs ?? Infinity) - (b.maturityAtMs ?? Infinity))
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

function flat({ close, open, market, side, notional_usd, rolled_hedge_id, tenor_days, journal_group }: RollView) {
  const hedge = open.hedge ?? {};
  const realizedNet = close?.realized?.net_pnl_usd;
  return {
    market,
    side,
    notional_usd,
    rolled_hedge_id,
    close_outcome: close ? close.outcome : 'nothing to close (settled)',
    close_tx_hash: close?.order_tx_hash ?? null,
    returned_usd: close?.net_margin_usd ?? null,
    realized_net_pnl_usd: typeof realizedNet === 'number' ? realizedNet : null,
    hedge_id: open.hedge_id,
    status: typeof hedge.status === 'string' ? hedge.status : open.outcome,
    tenor_days,
    struck_rate: hedge.struck_rate ?? null,
    quoted_execution_price: open.quote?.pricing.execution_price ?? null,
    upfront_usdc: open.quote?.upfront.total_upfront_usdc ?? null,
    maturity_at: hedge.maturity_at ?? null,
    order_tx_hash: hedge.order_tx_hash ?? null,
    journal_group,
  };
}

export function renderRollOutcome(output: Output, outcome: RollOutcome, hedgeCommand: (...argv: string[]) => string) {
  // A note and a warning read alike here.
  for (const note of outcome.notes) output.warn(note);
  // `--dry-run`: both requests, in the order they would be sent; one JSON document under --json.
  if (outcome.kind === 'dry-run') {
    output.warn(
      'Dry run: these requests were NOT sent. Run the same command without --dry-run to roll (each leg with its own key).',
    );
    const { legs } = outcome;
    output.document(
      { dry_run: true, legs: legs.map(({ leg, request, note }) => ({ leg, ...request, ...(note && { note }) })) },
      () =>
        legs
          .map(
            ({ leg, request, note }, index) =>
              `# ${index + 1}. ${leg}${note ? ` (${note})` : ''}\n${requestText(request)}`,
          )
          .join('\n\n'),
    );
    return 0;
  }
  const { view } = outcome;
  const market = safeText(view.market);
  const hedgeId = view.open.hedge_id;
  const newId = hedgeId ? safeText(hedgeId) : 'the new hedge';
  // Said beside text output only: the JSON document carries the same facts; a failed roll shows its card, then throws.
  if (!outcome.failure && outcome.landed) {
    const maturity = view.open.hedge?.maturity_at;
    const until = typeof maturity === 'string' ? ` until ${formatUtcMinutes(maturity)} UTC` : '';
    output.done(
      `Rolled: the ${view.side} side of ${market} is covered by ${newId} (${formatDays(view.tenor_days)})${until}.`,
    );
  } else if (!outcome.failure && hedgeId) {
    output.textNote(`Submitted ${newId}; follow it with: ${safeText(hedgeCommand('hedges', hedgeId, '--wait'))}`);
  }
  // The closed leg's history record is a server object: in the one shape, as `hedge history --json` gives it.
  const json = output.named(view, ({ close }) =>
    close?.realized ? { ...view, close: { ...close, realized: historyRecordForPeople(close.realized) } } : view,
  );
  const title =
    view.open.outcome === 'filled'
      ? `Rolled ${market} ${view.side} to ${formatDays(view.tenor_days)}`
      : `Roll of ${market} ${view.side}`;
  output.record(flat(view), ROLL_FIELDS, { title, json });
  if (outcome.failure) throw outcome.failure;
  return 0;
}
