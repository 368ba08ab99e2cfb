// hedge open MARKET SIDE NOTIONAL --tenor D [--ref REF] — or, on a terminal without them, the
// wizard. Quote first (the card on a terminal), then the one write flow: journaled, sent with one
// Idempotency-Key, waited until `filled` (struck rate against the quote) or `failed` (exit 6).
import type { HedgeClient, OpenRequest } from '../../../platform/api/client.js';
import type { Quote, Side, Tenor } from '../../../platform/api/schemas.js';
import type { InputOf } from '../../runner/command-spec.js';
import type { OPEN } from '../specs.js';
import { dryRunResult, RESULT_FIELDS, writeResult } from '../../../platform/results/result-fields.js';
import { parseClientReference, parseMarket, parseNotional, parseSide, parseTenor } from '../../../core/input.js';
import { UsageError } from '../../../core/errors.js';
import { writeOptionsFrom, type WriteOptions } from '../../../features/write/write-flow.js';
import { openHedge, runChange } from '../../../features/trade/change.js';
import { showTrade } from './trade-outcome.js';
import type { CommandContext } from '../../../platform/runtime/context.js';

export interface OpenOptions {
  market?: string;
  side?: Side;
  notionalUsd?: number;
  tenorDays?: Tenor;
  clientReference?: string;
  allowDuplicateRef: boolean;
  skipChecks: boolean;
  write: WriteOptions;
}

export function parseOpenOptions(input: InputOf<typeof OPEN>): OpenOptions {
  const { args, options } = input;
  return {
    market: args.market === undefined ? undefined : parseMarket(args.market),
    side: args.side === undefined ? undefined : parseSide(args.side),
    notionalUsd: args.notional === undefined ? undefined : parseNotional(args.notional),
    tenorDays: options.tenor === undefined ? undefined : parseTenor(options.tenor),
    clientReference: parseClientReference(options.ref),
    allowDuplicateRef: options.allowDuplicateRef === true,
    skipChecks: options.skipChecks === true,
    write: writeOptionsFrom(options),
  };
}

function missingNames(opts: OpenOptions) {
  const missing: string[] = [];
  if (opts.market === undefined) missing.push('MARKET');
  if (opts.side === undefined) missing.push('SIDE');
  if (opts.notionalUsd === undefined) missing.push('NOTIONAL');
  if (opts.tenorDays === undefined) missing.push('--tenor');
  return missing;
}

export async function run(ctx: CommandContext, input: InputOf<typeof OPEN>): Promise<number> {
  const opts = parseOpenOptions(input);
  const missing = missingNames(opts);
  if (missing.length > 0 && (!ctx.interactive || opts.write.dryRun)) {
    const why = opts.write.dryRun
      ? '--dry-run needs every argument (the wizard quotes, and a dry run sends nothing)'
      : ctx.globals.input
        ? 'no terminal to ask on'
        : '--no-input';
    throw new UsageError(
      `missing ${missing.join(', ')} (${why}); usage: hedge open MARKET SIDE NOTIONAL --tenor 1|3|7 [--ref REF]. On a terminal, \`hedge open\` alone starts a wizard.`,
    );
  }
  const client = await ctx.client();
  if (missing.length > 0) {
    // Asked before anything is sent; the wizard confirms with the quote card in view.
    await ctx.credentials();
    const { runOpenWizard } = await import('./open-wizard.js');
    const live = (await ctx.credentials()).environment === 'live';
    const answers = await runOpenWizard(ctx, client, opts, { skipChecks: opts.skipChecks, live });
    if (answers.kind === 'add') {
      // The side chosen is open, and the operator chose to add to it: the add quotes and confirms itself.
      const { outcome, body } = await runChange(ctx, 'add', {
        market: answers.market,
        side: answers.side,
        notionalUsd: answers.notionalUsd,
        skipChecks: opts.skipChecks,
        write: opts.write,
      });
      return showTrade(ctx, 'add', outcome, body);
    }
    const request: OpenRequest = {
      market: answers.market,
      side: answers.side,
      notional_usd: answers.notionalUsd,
      tenor_days: answers.tenorDays,
      client_reference: answers.clientReference,
    };
    await submit(ctx, client, request, opts, { quote: answers.quote, confirmed: true });
    return 0;
  }
  const request: OpenRequest = {
    market: opts.market!,
    side: opts.side!,
    notional_usd: opts.notionalUsd!,
    tenor_days: opts.tenorDays!,
    client_reference: opts.clientReference,
  };
  await submit(ctx, client, request, opts, {});
  return 0;
}

async function submit(
  ctx: CommandContext,
  client: HedgeClient,
  request: OpenRequest,
  opts: OpenOptions,
  given: { quote?: Quote; confirmed?: boolean },
) {
  const { outcome, quote } = await openHedge(ctx, client, request, {
    allowDuplicateRef: opts.allowDuplicateRef,
    skipChecks: opts.skipChecks,
    write: opts.write,
    ...given,
  });
  showTrade(ctx, 'open', outcome, { ...request }, quote);
}

/** What `hedge open` prints, so that --fields is checked before anything is sent (ui/result-fields.ts). */
export const OUTPUT_FIELDS = (input: InputOf<typeof OPEN>) =>
  input.options.dryRun ? dryRunResult() : writeResult(RESULT_FIELDS.open);
