// What `add` and `reduce` share: their options parsed once, then the one write flow with the
// change action. A reduce cannot push exposure up, so only an add runs the pre-trade checks.
import { parseMarket, parseNotional, parseSide } from '../domain/input.js';
import type { Side } from '../domain/vocabulary.js';
import { questionWithUnchecked, runPreTradeChecks, uncheckedList } from '../flows/pre-trade.js';
import { changeAction } from '../flows/trade-actions.js';
import { writeOptionsFrom, type WriteOptions } from '../flows/write-flow.js';
import { runWriteLearning } from '../flows/wire-learning.js';
import type { CommandContext } from '../runtime/context.js';

export interface ChangeOptions {
  market: string;
  side: Side;
  notionalUsd: number;
  skipChecks: boolean;
  write: WriteOptions;
}

export function parseChangeOptions(
  args: { market: string; side: string; notional: string },
  options: { skipChecks?: boolean; wait: boolean; dryRun?: boolean; idempotencyKey?: string; new?: boolean },
): ChangeOptions {
  return {
    market: parseMarket(args.market),
    side: parseSide(args.side),
    notionalUsd: parseNotional(args.notional),
    skipChecks: options.skipChecks === true,
    write: writeOptionsFrom(options),
  };
}

export async function runChangeCommand(
  ctx: CommandContext,
  action: 'add' | 'reduce',
  args: Parameters<typeof parseChangeOptions>[0],
  options: Parameters<typeof parseChangeOptions>[1],
): Promise<number> {
  const opts = parseChangeOptions(args, options);
  const client = await ctx.client();
  const request = { market: opts.market, side: opts.side, notional_usd: opts.notionalUsd };
  // The checks are optional safety: what they could not read is said, and named in a live confirmation.
  const unchecked = uncheckedList(ctx);
  const check =
    action === 'add' && !opts.skipChecks
      ? async () => {
          await runPreTradeChecks(client, { market: opts.market, side: opts.side, notionalUsd: opts.notionalUsd, action: 'add' }, unchecked);
        }
      : undefined;
  const argv = [action, opts.market, opts.side, String(opts.notionalUsd)];
  const build = () => {
    const built = changeAction(ctx, client, action, request, { argv, check });
    return { ...built, question: () => questionWithUnchecked(built.question(), unchecked) };
  };
  // A server that names another field for the amount is answered once more in its own words.
  await runWriteLearning(ctx, client, build, opts.write);
  return 0;
}
