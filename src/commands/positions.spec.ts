// The declaration of `hedge positions`: its arguments, options, tier and examples (the
// manifest collects it; positions.ts types its input from it). Data only: the front bundles it.
import { declare } from '../runner/command-spec.js';
import { WATCH_OPTIONS, UNTIL_OPTION, REF_FILTER } from './spec-parts.js';

export const POSITIONS = declare({
  name: 'positions',
  summary: 'Open positions: entry, mark, P&L, carry, time to maturity',
  description: 'Show open positions per side: entry and mark, P&L, carry, fee to close, net margin',
  group: 'book',
  tier: 'read',
  options: [REF_FILTER, ...WATCH_OPTIONS, UNTIL_OPTION],
  examples: ['hedge positions', 'hedge positions --json', 'hedge positions --watch 5 --alert-pnl -500'],
});
