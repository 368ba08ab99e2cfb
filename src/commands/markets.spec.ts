// The declaration of `hedge markets`: its arguments, options, tier and examples (the
// manifest collects it; markets.ts types its input from it). Data only: the front bundles it.
import { declare } from '../runner/command-spec.js';
import { UNTIL_OPTION } from './spec-parts.js';

export const MARKETS = declare({
  name: 'markets',
  summary: 'Markets: status, price, capacity and daily carry per side',
  description: 'List the markets open to the account: status, price, capacity and daily carry per side',
  group: 'trading',
  tier: 'read',
  options: [UNTIL_OPTION],
  examples: ['hedge markets', 'hedge markets --json | jq ".[].market"'],
});
