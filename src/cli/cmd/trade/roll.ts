// hedge roll: closes the open hedge and opens the same notional for the new tenor, both legs journaled as one
// action, so an interrupted roll is finished by `hedge resume` or by the same command again.
import {
  type CommandContext,
  type In,
  parseClientReference,
  parseMarket,
  parseSide,
  parseTenor,
} from '../command-input.js';
import { ROLL_DRY_RUN_FIELDS } from '../../../platform/results/result-fields.js';
import { writeFields } from './trade-outcome.js';
import { runRoll } from '../../../features/trade/roll.js';
import { writeOptionsFrom } from '../../../features/write/write-flow.js';
import { renderRollOutcome } from '../../../platform/results/roll-outcome.js';

export async function run(ctx: CommandContext, { args, options }: In<'ROLL'>) {
  const outcome = await runRoll(ctx, {
    market: parseMarket(args.market),
    side: parseSide(args.side),
    tenorDays: parseTenor(options.tenor),
    skipChecks: options.skipChecks === true,
    write: writeOptionsFrom(options),
    clientReference: parseClientReference(options.ref),
  });
  return renderRollOutcome(ctx.output, outcome, ctx.hedgeCommand);
}

export const OUTPUT_FIELDS = writeFields('roll', ROLL_DRY_RUN_FIELDS);
