// The declaration of `hedge reduce`: its arguments, options, tier and examples (the
// manifest collects it; reduce.ts types its input from it). Data only: the front bundles it.
import { declare } from '../runner/command-spec.js';
import { WRITE_OPTIONS, MARKET_ARG, SIDE_ARG, notionalArg } from './spec-parts.js';

export const REDUCE = declare({
  name: 'reduce',
  summary: "Remove notional from a side's open hedge",
  description: 'Remove notional from the open hedge on a market and side (margin scales down with it)',
  group: 'trading',
  tier: 'write',
  args: [MARKET_ARG, SIDE_ARG, notionalArg('notional to remove')],
  options: [...WRITE_OPTIONS],
  examples: ['hedge reduce USDTNGN buy 2500'],
});
