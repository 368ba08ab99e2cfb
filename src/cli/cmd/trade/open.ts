// hedge open MARKET SIDE NOTIONAL --tenor D [--ref REF] — or, on a terminal without them, the
// wizard. Quote first (the card on a terminal), then the one write flow: journaled, sent with one
// Idempotency-Key, waited until `filled` (struck rate against the quote) or `failed` (exit 6).
import {
  type CommandContext,
  type In,
  parseClientReference,
  parseMarket,
  parseNotional,
  parseSide,
  parseTenor,
  safeText,
  UsageError,
} from '../command-input.js';
import { withAccountLock } from '../../../features/write/write-flow.js';
import { writeOptionsFrom } from '../../../features/write/write-run.js';
import { sendTrade, tradeRecord } from '../../../features/trade/trade-actions.js';
import { sendChange } from './change.js';
import { showOpened, showTrade, writeFields } from './trade-outcome.js';
import type { WritePorts } from '../../../features/write/ports.js';

/** What this command uses of its context. */
export type Options = WritePorts & Pick<CommandContext, 'output'>;

export async function run(ctx: Options, { args, options }: In<'OPEN'>) {
  const given = {
    market: args.market === undefined ? undefined : parseMarket(args.market),
    side: args.side === undefined ? undefined : parseSide(args.side),
    notionalUsd: args.notional === undefined ? undefined : parseNotional(args.notional),
    tenorDays: options.tenor === undefined ? undefined : parseTenor(options.tenor),
    clientReference: parseClientReference(options.ref),
  };
  const skipChecks = options.skipChecks === true;
  const write = writeOptionsFrom(options);
  const missing = Object.entries({
    MARKET: given.market,
    SIDE: given.side,
    NOTIONAL: given.notionalUsd,
    '--tenor': given.tenorDays,
  })
    .filter(([, value]) => value === undefined)
    .map(([name]) => name);
  if (missing.length && (!ctx.interactive || write.dryRun)) {
    const why = write.dryRun
      ? '--dry-run needs every argument (the wizard quotes, and a dry run sends nothing)'
      : ctx.globals.input
        ? 'no terminal to ask on'
        : '--no-input';
    throw new UsageError(
      `missing ${missing.join(', ')} (${why}); usage: hedge open MARKET SIDE NOTIONAL --tenor 1|3|7 [--ref REF]. On a terminal, \`hedge open\` alone starts a wizard.`,
    );
  }
  const client = await ctx.client();
  // Asked before anything is sent; the wizard confirms with the quote card in view.
  const answers = missing.length
    ? await (await import('./open-wizard.js')).runOpenWizard(ctx, client, given, skipChecks)
    : undefined;
  // The side chosen is open, and the operator chose to add to it: the add quotes, and asks as the wizard's open does.
  if (answers?.kind === 'add') return sendChange(ctx, 'add', { ...answers, skipChecks, write, ask: true });
  const { market, side, notionalUsd, tenorDays, clientReference: reference } = answers ?? given;
  const request = {
    market: market!,
    side: side!,
    notional_usd: notionalUsd!,
    tenor_days: tenorDays!,
    client_reference: reference,
  };
  const guarded = reference !== undefined && options.allowDuplicateRef !== true;
  // The checks are optional safety: what they could not read is said, and named in a live confirmation. The wizard
  // quoted already (its question asked on any key with its card in view, no checks again); otherwise the quote is
  // said (a card on a terminal) before the question.
  const record = tradeRecord('open', request, {
    ask: answers !== undefined,
    question: answers?.question,
    checks: { duplicateReference: guarded, preTrade: !skipChecks && !answers, quote: !answers },
  });
  // One lock per client reference: a second `open --ref` of the same deal waits, then checks the book as the first left it.
  const send = () => sendTrade(ctx, record, write);
  const outcome =
    !guarded || write.dryRun
      ? await send()
      : await withAccountLock(ctx, `client reference ${JSON.stringify(safeText(reference))}`, ['ref', reference], send);
  // The quote it was decided on (for the struck rate against it): the wizard's, else the one its preview showed.
  return showTrade(ctx, outcome, showOpened(answers?.quote ?? ('kept' in outcome ? outcome.kept?.quote : undefined)));
}

export const OUTPUT_FIELDS = writeFields('open');

/** The quote before an open's question; the wizard's add quotes as `add` does. */
export const CARDS = ['open-quote', 'addition-quote'] as const;
