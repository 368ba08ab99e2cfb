// The declaration of `hedge maturities`: its arguments, options, tier and examples (the
// manifest collects it; maturities.ts types its input from it). Data only: the front bundles it.
import { declare } from '../runner/command-spec.js';
import { UNTIL_OPTION, REF_FILTER } from './spec-parts.js';

export const MATURITIES = declare({
  name: 'maturities',
  summary: 'What settles when, grouped by day, with countdowns',
  description: 'Upcoming settlements grouped by day: market, side, notional, maturity and countdown, mark P&L, carry',
  group: 'book',
  tier: 'read',
  options: [
    {
      flags: '--within <duration>',
      key: 'within',
      kind: 'value',
      description: 'only hedges maturing within this long: 12h, 3d, 2w (default: all)',
    },
    REF_FILTER,
    UNTIL_OPTION,
  ],
  examples: ['hedge maturities', 'hedge maturities --within 3d --json'],
});
