// The declaration of `hedge add`: its arguments, options, tier and examples (the
// manifest collects it; add.ts types its input from it). Data only: the front bundles it.
import { declare } from '../runner/command-spec.js';
import { WRITE_OPTIONS, SKIP_CHECKS, MARKET_ARG, SIDE_ARG, notionalArg } from './spec-parts.js';

export const ADD = declare({
  name: 'add',
  summary: "Add notional to a side's open hedge (same maturity)",
  description: 'Add notional to the open hedge on a market and side (same maturity)',
  group: 'trading',
  tier: 'write',
  args: [MARKET_ARG, SIDE_ARG, notionalArg('notional to add')],
  options: [SKIP_CHECKS, ...WRITE_OPTIONS],
  examples: ['hedge add USDTNGN buy 5000'],
});
