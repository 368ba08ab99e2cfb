// The declaration of `hedge roll`: its arguments, options, tier and examples (the
// manifest collects it; roll.ts types its input from it). Data only: the front bundles it.
import { declare } from '../runner/command-spec.js';
import { WRITE_OPTIONS, SKIP_CHECKS, TENOR_OPTION, MARKET_ARG, SIDE_ARG } from './spec-parts.js';

export const ROLL = declare({
  name: 'roll',
  summary: "Close a side's hedge and open it again for a new tenor",
  description: 'Keep a side covered past its maturity: close the open hedge and open the same notional for a new tenor',
  group: 'trading',
  tier: 'write',
  args: [MARKET_ARG, SIDE_ARG],
  options: [
    TENOR_OPTION,
    {
      flags: '--ref <client_reference>',
      key: 'ref',
      kind: 'value',
      description: "the new hedge's deal id (default: the rolled hedge's own, kept through the roll)",
    },
    SKIP_CHECKS,
    ...WRITE_OPTIONS,
  ],
  examples: [
    'hedge roll USDTNGN buy --tenor 7',
    'hedge roll USDTNGN sell --tenor 3 --dry-run',
    'hedge roll USDTNGN buy --tenor 3 --ref DEAL-43',
  ],
});
