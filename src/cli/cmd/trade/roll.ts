// hedge roll: closes the open hedge and opens the same notional for the new tenor, both legs journaled as one
// action, so an interrupted roll is finished by `hedge resume` or by the same command again. Its outcome is shown
// here (the dry run's two requests, or the result; a new hedge that failed on-chain is thrown after the card).
import {
  type CommandContext,
  type In,
  parseClientReference,
  parseMarket,
  parseSide,
  parseTenor,
  safeText,
} from '../command-input.js';
import { ROLL_VIEW } from '../../../platform/results/result-fields.js';
import { requestText, writeFields } from './trade-outcome.js';
import { runRoll, type RollOutcome } from '../../../features/trade/roll.js';
import { writeOptionsFrom } from '../../../features/write/write-run.js';
import { ROLL_FIELDS } from '../../../platform/results/roll-outcome.js';
import { historyRecordForPeople } from '../../../platform/api/wire/fields.js';
import { formatDays, formatUtc } from '../../../platform/terminal/format.js';
import { utcMinute } from '../../../core/utc-text.js';
import type { JsonObject } from '../../../core/objects.js';
import type { WritePorts } from '../../../features/write/ports.js';

/** What this command uses of its context. */
export type Options = WritePorts & Pick<CommandContext, 'output'>;

export async function run(ctx: Options, { args, options }: In<'ROLL'>) {
  const outcome = await runRoll(ctx, {
    market: parseMarket(args.market),
    side: parseSide(args.side),
    tenorDays: parseTenor(options.tenor),
    skipChecks: options.skipChecks === true,
    write: writeOptionsFrom(options),
    clientReference: parseClientReference(options.ref),
  });
  return renderRollOutcome(ctx, outcome);
}

// `--dry-run` under --json: both legs' requests, in order.
export const OUTPUT_FIELDS = writeFields('roll', ['dry_run', 'legs']);

/** Both legs before the confirmation. */
export const CARDS = ['roll-preview'] as const;

type RollView = Extract<RollOutcome, { kind: 'rolled' }>['view'];
// Every key of the roll's JSON document is one of its result's fields (result-fields.ts).
ROLL_VIEW satisfies Record<keyof RollView, boolean>;

function flat({ close, open, market, side, notional_usd, rolled_hedge_id, tenor_days, journal_group }: RollView) {
  const hedge: JsonObject = open.hedge ?? {};
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

export function renderRollOutcome({ output, hedgeCommand }: Options, outcome: RollOutcome) {
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
    // The server's maturity as the one UTC formatter says it: the text as sent (escaped) where it cannot be read.
    const until = typeof maturity === 'string' && maturity ? ` until ${formatUtc(safeText(maturity), utcMinute)}` : '';
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
