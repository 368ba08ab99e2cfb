// The declaration of `hedge open`: its arguments, options, tier and examples (the
// manifest collects it; open.ts types its input from it). Data only: the front bundles it.
import { declare } from '../runner/command-spec.js';
import { WRITE_OPTIONS, SKIP_CHECKS, TENOR_OPTION, MARKET_ARG, SIDE_ARG, notionalArg, optional } from './spec-parts.js';

export const OPEN = declare({
  name: 'open',
  summary: 'Open a hedge and wait for the fill (a wizard on a terminal)',
  description: 'Open a hedge and wait for the fill (no arguments on a terminal starts a wizard)',
  group: 'trading',
  tier: 'write',
  args: [optional(MARKET_ARG), optional(SIDE_ARG), optional(notionalArg('size'))],
  options: [
    TENOR_OPTION,
    {
      flags: '--ref <client_reference>',
      key: 'ref',
      kind: 'value',
      description: 'your own deal id, to find the hedge later with `hedge hedges --ref`',
    },
    {
      flags: '--allow-duplicate-ref',
      key: 'allowDuplicateRef',
      kind: 'flag',
      description: 'open even if an active hedge already carries this --ref',
    },
    SKIP_CHECKS,
    ...WRITE_OPTIONS,
  ],
  examples: [
    'hedge open USDTNGN buy 10000 --tenor 3 --ref DEAL-42',
    'hedge open',
    'hedge open USDTNGN sell 25k --tenor 7 --no-wait --json',
  ],
});
