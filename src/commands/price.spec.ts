// The declaration of `hedge price`: its arguments, options, tier and examples (the
// manifest collects it; price.ts types its input from it). Data only: the front bundles it.
import { declare } from '../runner/command-spec.js';
import { MARKET_ARG, optional, WATCH_OPTIONS, UNTIL_OPTION } from './spec-parts.js';

export const PRICE = declare({
  name: 'price',
  summary: 'The indicative mid price of a market, or of every one',
  description: 'Show the indicative mid price of a market (every listed market without one)',
  group: 'trading',
  tier: 'read',
  args: [optional(MARKET_ARG)],
  options: [...WATCH_OPTIONS, UNTIL_OPTION],
  examples: ['hedge price USDTNGN', 'hedge price --json', 'hedge price USDTNGN --watch'],
});
