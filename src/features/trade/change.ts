// What `add` and `reduce` share: their options parsed once, then the one write flow with the change action (the
// commands' files hold only their parse and run).
import { parseMarket, parseNotional, parseSide } from '../../core/input.js';
import type { Side } from '../../core/vocabulary.js';
import { questionWithUnchecked, runPreTradeChecks, uncheckedList } from './pre-trade.js';
import { changeAction, changeArgv } from './trade-actions.js';
import { writeOptionsFrom, type WriteOptions, type WriteOutcome } from '../write/write-flow.js';
import { runWriteLearning } from '../write/wire-learning.js';
import type { FlowPorts } from '../../platform/runtime/context.js';

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

/** Sends one add or reduce through the write flow and returns what it did, with the request it sent. */
export async function runChange(
  ports: FlowPorts,
  action: 'add' | 'reduce',
  opts: ChangeOptions,
): Promise<{ outcome: WriteOutcome<unknown, unknown>; body: Record<string, unknown> }> {
  const client = await ports.client();
  const request = { market: opts.market, side: opts.side, notional_usd: opts.notionalUsd };
  // The checks are optional safety: what they could not read is said, and named in a live confirmation.
  const unchecked = uncheckedList(ports);
  const check =
    action === 'add' && !opts.skipChecks
      ? async () => {
          await runPreTradeChecks(
            client,
            { market: opts.market, side: opts.side, notionalUsd: opts.notionalUsd, action: 'add' },
            unchecked,
          );
        }
      : undefined;
  const argv = changeArgv(action, request);
  const build = () => {
    const built = changeAction(ports, client, action, request, { argv, check, serverDecides: opts.skipChecks });
    return { ...built, question: () => questionWithUnchecked(built.question(), unchecked) };
  };
  // A server that names another field for the amount is answered once more in its own words.
  const outcome = (await runWriteLearning(ports, client, build, opts.write)) as WriteOutcome<unknown, unknown>;
  return { outcome, body: { ...request } };
}
