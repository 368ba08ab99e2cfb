// hedge add / reduce MARKET SIDE NOTIONAL: change the open hedge on a side (an add keeps its maturity), then wait
// until every view of the side shows the change (or the side is gone).
import type { CommandModule } from '../../runner/command-spec.js';
import { type CommandContext, type In, parseMarket, parseNotional, parseSide } from '../command-input.js';
import { sendTrade, tradeRecord } from '../../../features/trade/trade-actions.js';
import { writeOptionsFrom, type WriteOptions } from '../../../features/write/write-run.js';
import { showChanged, showTrade, writeFields } from './trade-outcome.js';
import type { WritePorts } from '../../../features/write/ports.js';
import type { Side } from '../../../core/vocabulary.js';

/** What this command uses of its context. */
export type Options = WritePorts & Pick<CommandContext, 'output'>;

/** One add or reduce through the write flow, shown. The checks are optional safety: what they could not read is said,
 * and named in a live confirmation; `--skip-checks` leaves a flat side to the server. */
export async function sendChange(
  ctx: Options,
  action: 'add' | 'reduce',
  change: {
    market: string;
    side: Side;
    notionalUsd: number;
    skipChecks: boolean;
    write: WriteOptions;
    ask?: boolean;
  },
) {
  const { market, side, notionalUsd, skipChecks } = change;
  const request = { market, side, notional_usd: notionalUsd };
  const record = tradeRecord(action, request, {
    ask: change.ask,
    serverDecides: skipChecks,
    checks: { preTrade: action === 'add' && !skipChecks },
  });
  return showTrade(ctx, await sendTrade(ctx, record, change.write), showChanged);
}

/** Typed by reduce's input: add's is the same and --skip-checks. */
function changeCommand(action: 'add' | 'reduce'): CommandModule<In<'REDUCE'>> {
  return {
    run: (ctx: Options, { args, options }) =>
      sendChange(ctx, action, {
        market: parseMarket(args.market),
        side: parseSide(args.side),
        notionalUsd: parseNotional(args.notional),
        skipChecks: (options as { skipChecks?: boolean }).skipChecks === true,
        write: writeOptionsFrom(options),
      }),
    OUTPUT_FIELDS: writeFields(action),
    // An add's quote, shown before its question.
    ...(action === 'add' && { CARDS: ['addition-quote'] as const }),
  };
}

export const add = changeCommand('add');
export const reduce = changeCommand('reduce');
