// hedge close MARKET SIDE — closes the position on that side, waits until the side leaves
// GET /positions (the spec's confirmation), then shows what closing returned (the position's
// net_margin_usd just before the close) and, when the record appears in time, the realized figures.
import type { InputOf } from '../runner/command-spec.js';
import type { CLOSE } from './close.spec.js';
import { dryRunResult, RESULT_FIELDS, writeResult } from '../ui/result-fields.js';
import { parseMarket, parseSide } from '../domain/input.js';
import type { Side } from '../domain/vocabulary.js';
import { closeAction, closeArgv } from '../flows/trade-actions.js';
import { runWrite, writeOptionsFrom, type WriteOptions, type WriteOutcome } from '../flows/write-flow.js';
import { showTrade } from './trade-outcome.js';
import type { CommandContext } from '../runtime/context.js';

export interface CloseOptions {
  market: string;
  side: Side;
  write: WriteOptions;
}

export function parseCloseOptions(input: InputOf<typeof CLOSE>): CloseOptions {
  return {
    market: parseMarket(input.args.market),
    side: parseSide(input.args.side),
    write: writeOptionsFrom(input.options),
  };
}

export async function runClose(ctx: CommandContext, opts: CloseOptions): Promise<number> {
  const client = await ctx.client();
  const request = { market: opts.market, side: opts.side };
  const action = closeAction(ctx, client, request, { argv: closeArgv(request) });
  return showTrade(ctx, 'close', (await runWrite(ctx, action, opts.write)) as WriteOutcome<unknown, unknown>, {
    ...request,
  });
}

export function run(ctx: CommandContext, input: InputOf<typeof CLOSE>): Promise<number> {
  return runClose(ctx, parseCloseOptions(input));
}

/** What `hedge close` prints, so that --fields is checked before anything is sent (ui/result-fields.ts). */
export const OUTPUT_FIELDS = (input: InputOf<typeof CLOSE>) =>
  input.options.dryRun ? dryRunResult() : writeResult(RESULT_FIELDS.close);
