// hedge keep FILE — a long-running keeper that holds the book at a target file through
// maturities (features/keeper/keep.ts): rolls what matures within roll_before, re-opens a side that settled,
// reports drift (and with --converge brings it back), leaves a row past its `until` to mature.
import {
  type CommandContext,
  type In,
  stopExitCode,
  UsageError,
  describeError,
  errorAsEventFields,
  parseDecimal,
} from '../command-input.js';
import { errorCatalogue } from '../../agent/error-catalogue.js';
import { DEFAULT_INTERVAL_MS, MAX_INTERVAL_MS, MIN_INTERVAL_MS, runKeep } from '../../../features/keeper/keep.js';
import { liveReporter, ndjsonReporter } from '../../../features/keeper/keep-view.js';
import { parseTolerance } from '../../../features/plan/target-plan.js';
import { exposuresKeepTarget } from '../../../features/exposures/exposures.js';
import { parseKeeperServiceOptions } from '../../../features/keeper/keeper-service.js';
import { redrawsInPlace } from '../../../platform/terminal/terminal.js';
import type { WritePorts } from '../../../features/write/ports.js';

/** What this command uses of its context. */
export type Options = WritePorts & Pick<CommandContext, 'interceptSignals' | 'keeperStep' | 'output'>;

function parseKeepOptions({ args, options }: In<'KEEP_RUN'>) {
  const intervalMs =
    options.interval === undefined
      ? DEFAULT_INTERVAL_MS
      : Math.round(
          parseDecimal(options.interval, {
            name: '--interval',
            unit: 'seconds',
            min: MIN_INTERVAL_MS / 1000,
            max: MAX_INTERVAL_MS / 1000,
            example: '60',
          }) * 1000,
        );
  const alertCommand = options.alertCmd?.trim();
  if (alertCommand === '')
    throw new UsageError('--alert-cmd: empty; expected a shell command, e.g. --alert-cmd "notify-desk".');
  const service = parseKeeperServiceOptions(options);
  // --exposures: the target moves (due dates, buckets, the price), so drift is always brought back, within the band.
  const exposures = options.exposures === true;
  if (options.policy !== undefined && !exposures)
    throw new UsageError('--policy: only with --exposures (the policy turns exposures into a target).');
  return {
    movingTarget: exposures
      ? exposuresKeepTarget({ file: args.file, policyFile: options.policy, flags: {} }, intervalMs)
      : undefined,
    file: args.file,
    once: options.once === true,
    intervalMs,
    dryRun: options.dryRun === true,
    converge: options.converge === true || exposures,
    toleranceUsd: parseTolerance(options.tolerance),
    adopt: options.adopt ?? [],
    alertCommand,
    ...service,
    // --metrics names an error by its code only when the code is one hedge knows (the catalogue's).
    metricsErrorCodes: service.metrics && errorCatalogue().map((entry) => entry.code),
  };
}

export async function run(ctx: Options, input: In<'KEEP_RUN'>) {
  const options = parseKeepOptions(input);
  // On a terminal that can be redrawn (and not --json), the live status; otherwise NDJSON, one event a line.
  const reporter =
    redrawsInPlace(ctx.io.stdout, ctx.io.stdoutIsTTY) && ctx.output.isHuman
      ? await liveReporter(ctx.io.stdout, () => ctx.output.columns, ctx.output.chalk)
      : ndjsonReporter(ctx.io.stdout);
  const { interrupted, firstError } = await runKeep(ctx, options, reporter, errorAsEventFields);
  // A second signal cut the steps short: the signal's own code (143, 130); a clean stop is 0.
  if (interrupted) return stopExitCode(ctx.signal.reason);
  return firstError === undefined ? 0 : describeError(firstError).exitCode;
}
