// The declaration of `hedge close`: its arguments, options, tier and examples (the
// manifest collects it; close.ts types its input from it). Data only: the front bundles it.
import { declare } from '../runner/command-spec.js';
import { WRITE_OPTIONS, MARKET_ARG, SIDE_ARG } from './spec-parts.js';

export const CLOSE = declare({
  name: 'close',
  summary: "Close a side's position and show what it returned",
  description: 'Close the position on a market and side, and show what it returned',
  group: 'trading',
  tier: 'write',
  args: [MARKET_ARG, SIDE_ARG],
  options: [...WRITE_OPTIONS],
  examples: ['hedge close USDTNGN buy', 'hedge close USDTNGN sell --yes --json'],
});
