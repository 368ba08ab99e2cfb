// `hedge exposures FILE`: from a treasury's receivables and payables (by due date) and a hedge-ratio
// policy to the target book they imply now, its schedule of changes, the projected cost of holding
// it to each due date and a stress table (flows/exposures.ts gathers, domain/exposures.ts decides,
// ui/exposures-view.ts renders). Sends no write. Exit 0, or 2 for a bad file, policy or option.
import type { InputOf } from '../cli/command-spec.js';
import type { EXPOSURES } from './exposures.spec.js';
import { echo } from '../domain/input.js';
import { resolvePolicy, type PolicyFlags } from '../domain/exposure-policy.js';
import { UsageError } from '../errors.js';
import { gatherExposures } from '../flows/exposures.js';
import type { CommandContext } from '../runtime/context.js';
import { EXPOSURE_SECTIONS, renderExposures, type ExposureSection } from '../ui/exposures-view.js';

export interface ExposuresOptions {
  file: string;
  policyFile?: string;
  flags: PolicyFlags;
  feeBps?: number;
  section?: ExposureSection;
}

/** Every option checked before anything is read: a bad one is a UsageError (exit 2) naming it. */
export function parseExposuresOptions(input: InputOf<typeof EXPOSURES>): ExposuresOptions {
  const { args, options } = input;
  let feeBps: number | undefined;
  if (options.feeBps !== undefined) {
    feeBps = Number(options.feeBps);
    if (!/^\s*\d+(\.\d+)?\s*$/.test(options.feeBps) || !(feeBps >= 0) || feeBps > 1000) {
      throw new UsageError(`--fee-bps: ${echo(options.feeBps)} is not allowed; expected basis points of the notional traded from 0 to 1000, e.g. 5.`);
    }
  }
  let section: ExposureSection | undefined;
  if (options.show !== undefined) {
    section = EXPOSURE_SECTIONS.find((name) => name === options.show!.trim().toLowerCase());
    if (section === undefined) throw new UsageError(`--show: ${echo(options.show)} is not allowed; expected one of ${EXPOSURE_SECTIONS.join(', ')}.`);
  }
  const flags: PolicyFlags = {
    ...(options.ratios === undefined ? {} : { ratios: options.ratios }),
    ...(options.band === undefined ? {} : { band: options.band }),
    ...(options.sizing === undefined ? {} : { sizing: options.sizing }),
    ...(options.functional === undefined ? {} : { functional: options.functional }),
    ...(options.netting === false ? { netting: false } : {}),
  };
  // The flags alone, checked now: a bad one is exit 2 before any file is read.
  resolvePolicy({}, flags);
  return { file: args.file, ...(options.policy === undefined ? {} : { policyFile: options.policy }), flags, ...(feeBps === undefined ? {} : { feeBps }), ...(section === undefined ? {} : { section }) };
}

export async function runExposures(ctx: CommandContext, opts: ExposuresOptions): Promise<number> {
  const view = await gatherExposures(ctx, { file: opts.file, policyFile: opts.policyFile, flags: opts.flags, feeBps: opts.feeBps });
  await renderExposures(ctx.output, view, { section: opts.section });
  return 0;
}

export function run(ctx: CommandContext, input: InputOf<typeof EXPOSURES>): Promise<number> {
  return runExposures(ctx, parseExposuresOptions(input));
}
