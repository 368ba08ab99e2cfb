// The declaration of `hedge quote`: its arguments, options, tier and examples (the
// manifest collects it; quote.ts types its input from it). Data only: the front bundles it.
import { declare } from '../runner/command-spec.js';
import { TENOR_OPTION, MARKET_ARG, SIDE_ARG, notionalArg, UNTIL_OPTION } from './spec-parts.js';

export const QUOTE = declare({
  name: 'quote',
  summary: 'Quote a hedge: price, impact, carry, margin and fee',
  description: 'Quote a hedge: execution price, impact, carry, margin, fee and maturity (reserves nothing)',
  group: 'trading',
  tier: 'read',
  args: [MARKET_ARG, SIDE_ARG, notionalArg('size')],
  options: [TENOR_OPTION, UNTIL_OPTION],
  examples: ['hedge quote USDTNGN buy 10000 --tenor 3', 'hedge quote USDTNGN sell 1.5m --tenor 7 --json'],
});
