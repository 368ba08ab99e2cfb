// hedge close MARKET SIDE — closes the position on that side, waits until the side leaves
// GET /positions (the spec's confirmation), then shows what closing returned (the position's
// net_margin_usd just before the close) and, when the record appears in time, the realized figures.
import { type CommandContext, type In, parseMarket, parseSide, UnresolvedError, formatUsd } from '../command-input.js';
import { sendTrade, tradeRecord, type CloseResult } from '../../../features/trade/trade-actions.js';
import { writeOptionsFrom } from '../../../features/write/write-run.js';
import { showClosed, showTrade, writeFields } from './trade-outcome.js';
import { hedgesWords } from '../../../features/write/confirm.js';
import type { WritePorts } from '../../../features/write/ports.js';

/** What this command uses of its context. */
export type Options = WritePorts & Pick<CommandContext, 'output'>;

export async function run(ctx: Options, { args, options }: In<'CLOSE'>) {
  const request = { market: parseMarket(args.market), side: parseSide(args.side) };
  const write = writeOptionsFrom(options);
  const outcome = await sendTrade(ctx, tradeRecord('close', request), write);
  showTrade(ctx, outcome, showClosed);
  // Asked to close the side: one open again under another hedge (another actor's since) is no exit 0.
  const open = outcome.kind === 'resolved' ? (outcome.result as CloseResult).openNow : undefined;
  if (open) {
    const { market, side } = request;
    throw new UnresolvedError(
      `The ${side} side of ${market} is not flat after this close: ${hedgesWords(open)} (${formatUsd(open.notional_usd)}) is open on it now, opened by another actor since; this close did not close it.`,
      {
        details: { market, side, open_hedge_ids: open.hedge_ids, open_notional_usd: open.notional_usd },
        hint: `See \`${ctx.hedgeCommand('positions')}\`; to close what the side holds now, \`${ctx.hedgeCommand('close', market, side, '--again')}\`.`,
      },
    );
  }
}

export const OUTPUT_FIELDS = writeFields('close');
